//! Source 004's image kernels (the SKE experiment): RGB-to-gray, bilinear resize and a 5x5 Gaussian
//! smooth on a batch of 480x270 float RGB frames (interleaved), one thread per output pixel, the
//! frame index in blockIdx.z.

use rayon::prelude::*;

use super::{Access, AccessKind, Arg, Buffer, Entry, Kernel, Module, Param, Sizes, Thread, Tolerance, Work};
use crate::error::{Error, Result};
use crate::spec::Dim3;

/// The registry's lines: the three image kernels, on `frames` frames of nx x ny pixels.
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        name: "rgb-to-gray",
        entry: "rgbToGray",
        about: "luma of float RGB frames (source 004)",
        build: |s| Ok(Box::new(RgbToGray(Frames::of(s)?))),
        ..IMAGE
    },
    Entry {
        name: "resize",
        entry: "resizeBilinear",
        about: "bilinear 2x upscale of float RGB frames (source 004)",
        build: |s| Ok(Box::new(Resize(Frames::of(s)?))),
        ..IMAGE
    },
    Entry {
        name: "gaussian-smooth",
        entry: "gaussianSmooth",
        about: "5x5 Gaussian on float RGB frames (source 004)",
        build: |s| Ok(Box::new(GaussianSmooth(Frames::of(s)?))),
        ..IMAGE
    },
];

/// What the image kernels share: the source's 480 x 270 frames, 64 per launch.
const IMAGE: Entry = Entry {
    name: "",
    entry: "",
    about: "",
    params: &[(Param::Nx, 480.0), (Param::Ny, 270.0), (Param::Frames, 64.0)],
    selftest: &[(Param::Nx, 100.0), (Param::Ny, 77.0), (Param::Frames, 3.0)],
    selftest_blocks: super::SELFTEST_2D,
    build: |s| Ok(Box::new(RgbToGray(Frames::of(s)?))),
};

/// Frame geometry shared by the three kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frames {
    /// Width in pixels.
    pub w: u32,
    /// Height in pixels.
    pub h: u32,
    /// Frames per launch.
    pub n: u32,
}

impl Frames {
    /// Checks the sizes (indices are 32-bit in places, and every frame needs a pixel).
    pub fn new(w: u32, h: u32, n: u32) -> Result<Self> {
        if w == 0 || h == 0 || n == 0 {
            return Err(Error::usage(format!("invalid frames {w}x{h} x {n}: every size must be at least 1")));
        }
        if n > 65_535 {
            return Err(Error::usage(format!("invalid frames: {n} frames > 65535 (grid.z limit)")));
        }
        if (w as u64 * 2) * (h as u64 * 2) * n as u64 * 3 > (1u64 << 31) {
            return Err(Error::usage(format!(
                "invalid frames {w}x{h} x {n}: too large (2^31 floats per buffer at most)"
            )));
        }
        Ok(Frames { w, h, n })
    }

    /// The frames an entry's sizes ask for.
    fn of(s: &Sizes) -> Result<Self> {
        Frames::new(s.u32(Param::Nx)?, s.u32(Param::Ny)?, s.u32(Param::Frames)?)
    }

    fn pixels(&self) -> usize {
        self.w as usize * self.h as usize * self.n as usize
    }

    fn label(&self) -> String {
        format!("{}x{} x {} frames", self.w, self.h, self.n)
    }

    fn grid(&self, w: u32, h: u32, block: Dim3) -> Dim3 {
        let div = |n: u32, b: u32| if b == 0 { 0 } else { n.div_ceil(b) };
        Dim3::new(div(w, block.x), div(h, block.y), self.n)
    }

    /// (x, y, frame) of a thread.
    fn coords(t: &Thread) -> (u64, u64, u64) {
        (
            t.block.x as u64 * t.dim.x as u64 + t.thread.x as u64,
            t.block.y as u64 * t.dim.y as u64 + t.thread.y as u64,
            t.block.z as u64,
        )
    }
}

const LUMA: [f32; 3] = [0.299, 0.587, 0.114];
const TAPS: [f32; 5] = [1.0 / 16.0, 4.0 / 16.0, 6.0 / 16.0, 4.0 / 16.0, 1.0 / 16.0];
/// FMA contraction on the GPU and plain multiply-add on the CPU round differently by an ulp or so.
const FLOAT_TOL: Tolerance = Tolerance { abs: 1e-6, rel: 1e-5 };

fn buffers(input: usize, output: usize) -> Vec<Buffer> {
    vec![Buffer::input("in", input), Buffer::output("out", output)]
}

/// rgbToGray: gray = 0.299 R + 0.587 G + 0.114 B.
#[derive(Clone, Debug)]
pub struct RgbToGray(pub Frames);

impl Kernel for RgbToGray {
    fn name(&self) -> &str {
        "rgb-to-gray"
    }
    fn entry(&self) -> &str {
        "rgbToGray"
    }
    fn module(&self) -> Module<'_> {
        Module::Embedded("frames")
    }
    fn problem(&self) -> String {
        self.0.label()
    }
    fn buffers(&self) -> Vec<Buffer> {
        buffers(3 * self.0.pixels(), self.0.pixels())
    }
    fn args(&self) -> Vec<Arg> {
        vec![Arg::Buf(0), Arg::Buf(1), Arg::I32(self.0.w as i32), Arg::I32(self.0.h as i32)]
    }
    fn grid(&self, block: Dim3) -> Dim3 {
        self.0.grid(self.0.w, self.0.h, block)
    }
    fn work(&self) -> Work {
        let p = self.0.pixels() as u64;
        Work { bytes_read: 12 * p, bytes_written: 4 * p, flops: 5 * p }
    }
    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        let rgb = &inputs[0];
        let mut gray = vec![0f32; self.0.pixels()];
        gray.par_iter_mut().enumerate().for_each(|(p, g)| {
            *g = LUMA[0] * rgb[3 * p] + LUMA[1] * rgb[3 * p + 1] + LUMA[2] * rgb[3 * p + 2];
        });
        vec![gray]
    }
    fn tolerance(&self) -> Tolerance {
        FLOAT_TOL
    }
    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        let (x, y, f) = Frames::coords(t);
        let (w, h) = (self.0.w as u64, self.0.h as u64);
        if x < w && y < h {
            let p = (f * h + y) * w + x;
            for c in 0..3 {
                out.push(Access {
                    insn: c as u32,
                    kind: AccessKind::Load,
                    buffer: 0,
                    index: 3 * p + c,
                    byte: 0,
                    bytes: 4,
                });
            }
            out.push(Access { insn: 3, kind: AccessKind::Store, buffer: 1, index: p, byte: 0, bytes: 4 });
        }
    }
}

/// resizeBilinear: each frame scaled by 2 in both directions (pixel centres aligned, edges clamped).
#[derive(Clone, Debug)]
pub struct Resize(pub Frames);

impl Resize {
    fn out_size(&self) -> (u32, u32) {
        (2 * self.0.w, 2 * self.0.h)
    }

    /// (x0, x1, fx) of output column x, exactly as the kernel computes them in float.
    fn source(x: u32, w: u32, ow: u32) -> (usize, usize, f32) {
        let sx = ((x as f32 + 0.5) * w as f32 / ow as f32 - 0.5).max(0.0).min((w - 1) as f32);
        let x0 = sx as u32;
        (x0 as usize, (x0 + 1).min(w - 1) as usize, sx - x0 as f32)
    }
}

impl Kernel for Resize {
    fn name(&self) -> &str {
        "resize"
    }
    fn entry(&self) -> &str {
        "resizeBilinear"
    }
    fn module(&self) -> Module<'_> {
        Module::Embedded("frames")
    }
    fn problem(&self) -> String {
        let (ow, oh) = self.out_size();
        format!("{} -> {ow}x{oh}", self.0.label())
    }
    fn buffers(&self) -> Vec<Buffer> {
        let (ow, oh) = self.out_size();
        buffers(3 * self.0.pixels(), 3 * ow as usize * oh as usize * self.0.n as usize)
    }
    fn args(&self) -> Vec<Arg> {
        let (ow, oh) = self.out_size();
        let i = |v: u32| Arg::I32(v as i32);
        vec![Arg::Buf(0), Arg::Buf(1), i(self.0.w), i(self.0.h), i(ow), i(oh)]
    }
    fn grid(&self, block: Dim3) -> Dim3 {
        let (ow, oh) = self.out_size();
        self.0.grid(ow, oh, block)
    }
    fn work(&self) -> Work {
        let p = self.0.pixels() as u64;
        Work { bytes_read: 12 * p, bytes_written: 4 * 12 * p, flops: 4 * p * 28 }
    }
    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        let (w, h, n) = (self.0.w, self.0.h, self.0.n as usize);
        let (ow, oh) = self.out_size();
        let src = &inputs[0];
        let mut out = vec![0f32; 3 * ow as usize * oh as usize * n];
        out.par_chunks_mut(3 * ow as usize).enumerate().for_each(|(row, o)| {
            let (f, y) = (row / oh as usize, (row % oh as usize) as u32);
            let (y0, y1, fy) = Resize::source(y, h, oh);
            let r0 = &src[(f * h as usize + y0) * w as usize * 3..];
            let r1 = &src[(f * h as usize + y1) * w as usize * 3..];
            for x in 0..ow {
                let (x0, x1, fx) = Resize::source(x, w, ow);
                for c in 0..3 {
                    let top = r0[3 * x0 + c] + fx * (r0[3 * x1 + c] - r0[3 * x0 + c]);
                    let bot = r1[3 * x0 + c] + fx * (r1[3 * x1 + c] - r1[3 * x0 + c]);
                    o[3 * x as usize + c] = top + fy * (bot - top);
                }
            }
        });
        vec![out]
    }
    fn tolerance(&self) -> Tolerance {
        FLOAT_TOL
    }
    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        let (x, y, f) = Frames::coords(t);
        let (w, h) = (self.0.w, self.0.h);
        let (ow, oh) = self.out_size();
        if x >= ow as u64 || y >= oh as u64 {
            return;
        }
        let (x0, x1, _) = Resize::source(x as u32, w, ow);
        let (y0, y1, _) = Resize::source(y as u32, h, oh);
        let at = |yy: usize, xx: usize, c: u64| (f * h as u64 + yy as u64) * w as u64 * 3 + 3 * xx as u64 + c;
        let mut insn = 0;
        for c in 0..3 {
            for (yy, xx) in [(y0, x0), (y0, x1), (y1, x0), (y1, x1)] {
                out.push(Access { insn, kind: AccessKind::Load, buffer: 0, index: at(yy, xx, c), byte: 0, bytes: 4 });
                insn += 1;
            }
            let o = ((f * oh as u64 + y) * ow as u64 + x) * 3 + c;
            out.push(Access { insn, kind: AccessKind::Store, buffer: 1, index: o, byte: 0, bytes: 4 });
            insn += 1;
        }
    }
}

/// gaussianSmooth: 5x5 binomial filter per channel, edges clamped.
#[derive(Clone, Debug)]
pub struct GaussianSmooth(pub Frames);

impl Kernel for GaussianSmooth {
    fn name(&self) -> &str {
        "gaussian-smooth"
    }
    fn entry(&self) -> &str {
        "gaussianSmooth"
    }
    fn module(&self) -> Module<'_> {
        Module::Embedded("frames")
    }
    fn problem(&self) -> String {
        self.0.label()
    }
    fn buffers(&self) -> Vec<Buffer> {
        buffers(3 * self.0.pixels(), 3 * self.0.pixels())
    }
    fn args(&self) -> Vec<Arg> {
        vec![Arg::Buf(0), Arg::Buf(1), Arg::I32(self.0.w as i32), Arg::I32(self.0.h as i32)]
    }
    fn grid(&self, block: Dim3) -> Dim3 {
        self.0.grid(self.0.w, self.0.h, block)
    }
    fn work(&self) -> Work {
        let p = self.0.pixels() as u64;
        Work { bytes_read: 12 * p, bytes_written: 12 * p, flops: p * (25 + 25 * 3 * 2) }
    }
    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        let (w, h) = (self.0.w as i64, self.0.h as i64);
        let src = &inputs[0];
        let mut out = vec![0f32; 3 * self.0.pixels()];
        out.par_chunks_mut(3 * w as usize).enumerate().for_each(|(row, o)| {
            let (f, y) = (row as i64 / h, row as i64 % h);
            for x in 0..w {
                let mut acc = [0f32; 3];
                for dy in -2..=2i64 {
                    let yy = (y + dy).clamp(0, h - 1);
                    for dx in -2..=2i64 {
                        let xx = (x + dx).clamp(0, w - 1);
                        let wt = TAPS[(dy + 2) as usize] * TAPS[(dx + 2) as usize];
                        let p = (((f * h + yy) * w + xx) * 3) as usize;
                        for c in 0..3 {
                            acc[c] += wt * src[p + c];
                        }
                    }
                }
                o[3 * x as usize..3 * x as usize + 3].copy_from_slice(&acc);
            }
        });
        vec![out]
    }
    fn tolerance(&self) -> Tolerance {
        FLOAT_TOL
    }
    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        let (x, y, f) = Frames::coords(t);
        let (w, h) = (self.0.w as i64, self.0.h as i64);
        if x >= w as u64 || y >= h as u64 {
            return;
        }
        let (x, y, f) = (x as i64, y as i64, f as i64);
        let mut insn = 0u32;
        for dy in -2..=2 {
            let yy = (y + dy).clamp(0, h - 1);
            for dx in -2..=2 {
                let xx = (x + dx).clamp(0, w - 1);
                let p = (((f * h + yy) * w + xx) * 3) as u64;
                for c in 0..3 {
                    out.push(Access { insn, kind: AccessKind::Load, buffer: 0, index: p + c, byte: 0, bytes: 4 });
                    insn += 1;
                }
            }
        }
        let p = (((f * h + y) * w + x) * 3) as u64;
        for c in 0..3 {
            out.push(Access { insn, kind: AccessKind::Store, buffer: 1, index: p + c, byte: 0, bytes: 4 });
            insn += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::random_inputs;

    fn frames() -> Frames {
        Frames::new(7, 5, 2).unwrap()
    }

    #[test]
    fn gray_of_pure_colours() {
        let k = RgbToGray(Frames::new(3, 1, 1).unwrap());
        let rgb = vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let g = &k.reference(&[rgb])[0];
        assert_eq!(g, &vec![0.299, 0.587, 0.114]);
    }

    #[test]
    fn smoothing_a_constant_changes_nothing() {
        let k = GaussianSmooth(frames());
        let out = &k.reference(&[vec![0.25; 3 * 70]])[0];
        assert!(out.iter().all(|&v| (v - 0.25).abs() < 1e-7));
    }

    #[test]
    fn resize_keeps_constants_and_doubles_sizes() {
        let k = Resize(frames());
        assert_eq!(k.grid(Dim3::new(32, 4, 1)), Dim3::new(1, 3, 2));
        let out = &k.reference(&[vec![-0.5; 3 * 70]])[0];
        assert_eq!(out.len(), 3 * 14 * 10 * 2);
        assert!(out.iter().all(|&v| v == -0.5));
        // Pixel-centre alignment: output column 0 maps to source -0.25, clamped to 0.
        assert_eq!(Resize::source(0, 7, 14), (0, 1, 0.0));
        assert_eq!(Resize::source(13, 7, 14), (6, 6, 0.0));
    }

    #[test]
    fn every_output_is_stored_exactly_once() {
        // The address functions must cover the outputs the references compute (the mock relies on it).
        let kernels: Vec<Box<dyn Kernel>> =
            vec![Box::new(RgbToGray(frames())), Box::new(Resize(frames())), Box::new(GaussianSmooth(frames()))];
        for k in kernels {
            let block = Dim3::new(32, 3, 1);
            let g = k.grid(block);
            let out_len = k.buffers()[1].len;
            let mut seen = vec![0u8; out_len];
            let mut acc = Vec::new();
            for z in 0..g.z {
                for by in 0..g.y {
                    for bx in 0..g.x {
                        for ty in 0..block.y {
                            for tx in 0..block.x {
                                let t =
                                    Thread { block: Dim3::new(bx, by, z), thread: Dim3::new(tx, ty, 0), dim: block };
                                k.accesses(&t, &mut acc);
                            }
                        }
                    }
                }
            }
            for a in acc.iter().filter(|a| a.kind == AccessKind::Store) {
                seen[a.index as usize] += 1;
            }
            assert!(seen.iter().all(|&c| c == 1), "{}", k.name());
            assert!(acc.iter().filter(|a| a.kind == AccessKind::Load).all(|a| (a.index as usize) < k.buffers()[0].len));
            let inputs = random_inputs(k.as_ref(), 3);
            assert_eq!(k.reference(&inputs)[0].len(), out_len);
        }
    }

    #[test]
    fn sizes_are_checked() {
        assert!(Frames::new(0, 270, 1).is_err());
        assert!(Frames::new(480, 270, 70_000).is_err());
        assert!(Frames::new(480, 270, 64).is_ok());
    }
}
