//! Images in and out of the blur command: PNG, JPEG and PGM/PPM through the `image` crate, as float
//! planes in [0, 1] (one for grayscale, three for RGB).

use std::path::Path;

use image::{DynamicImage, ImageBuffer, Luma, Rgb};

use crate::error::{Error, Result};

/// An image as float planes.
#[derive(Clone, Debug, PartialEq)]
pub struct Planes {
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
    /// One plane (gray) or three (R, G, B), each w x h, row-major, values in [0, 1].
    pub planes: Vec<Vec<f32>>,
}

/// An image's width and height, from its header alone (nothing decoded).
pub fn dimensions(path: &Path) -> Result<(u32, u32)> {
    let bad = |e: String| Error::usage(format!("{}: cannot read image: {e}", path.display()));
    image::ImageReader::open(path)
        .map_err(|e| bad(e.to_string()))?
        .with_guessed_format()
        .map_err(|e| bad(e.to_string()))?
        .into_dimensions()
        .map_err(|e| bad(e.to_string()))
}

/// Fails now, before any work, when `path` does not name an image format [`write`](fn@write) can write.
pub fn check_output(path: &Path) -> Result<()> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("png" | "jpg" | "jpeg" | "pgm" | "ppm" | "pnm") => crate::output::check_writable(path),
        _ if crate::output::is_stdout(path) => Ok(()),
        _ => Err(Error::usage(format!(
            "{}: cannot write an image of this type: use a .png, .jpg, .pgm or .ppm file name",
            path.display()
        ))),
    }
}

/// Reads an image; colour images become three planes, everything else one.
pub fn read(path: &Path) -> Result<Planes> {
    let img = image::open(path).map_err(|e| Error::usage(format!("{}: cannot read image: {e}", path.display())))?;
    let (w, h) = (img.width(), img.height());
    let planes = if img.color().has_color() {
        let rgb = img.to_rgb32f();
        (0..3).map(|c| rgb.pixels().map(|p| p.0[c]).collect()).collect()
    } else {
        vec![img.to_luma32f().pixels().map(|p| p.0[0]).collect()]
    };
    Ok(Planes { w, h, planes })
}

/// Writes 8-bit PNG, JPEG or PGM/PPM (by the file's extension), clamping to [0, 1].
pub fn write(path: &Path, img: &Planes) -> Result<()> {
    let q = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let n = img.w as usize * img.h as usize;
    let dynamic = match img.planes.as_slice() {
        [g] => DynamicImage::ImageLuma8(
            ImageBuffer::<Luma<u8>, Vec<u8>>::from_raw(img.w, img.h, g.iter().map(|&v| q(v)).collect())
                .ok_or_else(|| Error::usage("image size mismatch"))?,
        ),
        [r, g, b] => DynamicImage::ImageRgb8(
            ImageBuffer::<Rgb<u8>, Vec<u8>>::from_raw(
                img.w,
                img.h,
                (0..n).flat_map(|i| [q(r[i]), q(g[i]), q(b[i])]).collect(),
            )
            .ok_or_else(|| Error::usage("image size mismatch"))?,
        ),
        _ => return Err(Error::usage("an image has 1 or 3 planes")),
    };
    if crate::output::is_stdout(path) {
        // Standard output has no extension to choose a format by: PNG.
        let mut png = std::io::Cursor::new(Vec::new());
        dynamic
            .write_to(&mut png, image::ImageFormat::Png)
            .map_err(|e| Error::Output(format!("standard output: cannot encode the image: {e}")))?;
        return crate::output::emit(path, png.get_ref());
    }
    // Written whole or not at all; the temporary name keeps the extension that picks the format.
    let out = crate::outfile::OutFile::new(path);
    let saved = dynamic.save(out.target()).map_err(|e| Error::Output(format!("{}: {e}", path.display())));
    out.finish(saved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_png_and_pgm() {
        let dir = tempfile::tempdir().unwrap();
        let img = Planes { w: 3, h: 2, planes: vec![vec![0.0, 0.5, 1.0, 0.25, 0.75, 2.0]] };
        for ext in ["png", "pgm"] {
            let p = dir.path().join(format!("g.{ext}"));
            write(&p, &img).unwrap();
            let back = read(&p).unwrap();
            assert_eq!((back.w, back.h, back.planes.len()), (3, 2, 1));
            assert!((back.planes[0][1] - 128.0 / 255.0).abs() < 1e-6);
            assert_eq!(back.planes[0][5], 1.0, "clamped");
        }
        let rgb = Planes { w: 1, h: 1, planes: vec![vec![1.0], vec![0.0], vec![0.5]] };
        let p = dir.path().join("c.png");
        write(&p, &rgb).unwrap();
        assert_eq!(read(&p).unwrap().planes.len(), 3);
        assert!(read(&dir.path().join("missing.png")).unwrap_err().to_string().contains("cannot read image"));
    }
}
