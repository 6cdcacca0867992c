//! `warpscope blur` once its arguments are checked: the algorithms' benchmark printed and drawn, or an
//! image blurred on the GPU, verified, judged against the float64 Gaussian and written.

use std::path::Path;

use super::blur_pipelines::{self as blur, Algo};
use super::image_io;
use crate::Outcome;
use crate::error::Result;
use crate::gpu::{self, BackendKind};
use crate::kernels::Gaussian;
use crate::output::{self, note};
use crate::report::listing::{self, ListingFormat};
use crate::report::listings::BlurTable;
use crate::report::{self, figures};
use crate::sweep::{self, Event, Options};

/// `blur --bench`: every algorithm on a random image, against the seed's estimates.
pub struct Bench<'a> {
    /// The backend and device.
    pub device: (BackendKind, u32),
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// The Gaussian.
    pub gaussian: Gaussian,
    /// Timed launches per kernel.
    pub iters: u32,
    /// How the table is printed.
    pub format: ListingFormat,
    /// Where to draw the figure.
    pub plot: Option<&'a Path>,
    /// Nothing but the table.
    pub quiet: bool,
}

impl Bench<'_> {
    /// Measures, prints the table and draws it; `CheckFailed` when a stage failed verification.
    pub fn run(&self) -> Result<Outcome> {
        report::check_plot(self.plot)?;
        let (g, quiet) = (self.gaussian, self.quiet);
        let opts = Options { warmup: 2, iters: self.iters, seed: sweep::fresh_seed(), ..Default::default() };
        let mut backend = gpu::open(self.device.0, self.device.1)?;
        let bar = report::progress_bar(quiet, blur::count(self.width, self.height, g)?);
        let measured = blur::bench(backend.as_mut(), self.width, self.height, g, &opts, &mut |e| {
            if let Event::Record(r) = e {
                bar.inc(1);
                if !quiet {
                    bar.suspend(|| note(&format!("{} {}", r.launch_line(), r.problem)));
                }
            }
        });
        bar.finish_and_clear();
        let (rows, report) = measured?;
        listing::print(&BlurTable(&rows), self.format)?;
        if let Some(path) = self.plot {
            let title =
                format!("Gaussian blur {}x{}, sigma {}, on {}", self.width, self.height, g.sigma, report.device.name);
            figures::blur_bench(&rows, &title, path)?;
            if !quiet {
                note(&format!("wrote {}", path.display()));
            }
        }
        Ok(Outcome::checked(report.any_failed()))
    }
}

/// `blur --image`: one image blurred with one algorithm.
pub struct Image<'a> {
    /// The backend and device.
    pub device: (BackendKind, u32),
    /// The image.
    pub path: &'a Path,
    /// Where the blurred image goes.
    pub output: Option<&'a Path>,
    /// The algorithm.
    pub algo: Algo,
    /// The Gaussian.
    pub gaussian: Gaussian,
    /// Only the verdict line, and only when the bound is exceeded.
    pub quiet: bool,
}

impl Image<'_> {
    /// Blurs, verifies and writes; `CheckFailed` when a value differs from the CPU implementation or
    /// the blur is outside the algorithm's bound.
    pub fn run(&self) -> Result<Outcome> {
        let (algo, g, path) = (self.algo, self.gaussian, self.path);
        if let Some(out) = self.output {
            image_io::check_output(out)?;
        }
        let (w, h) = image_io::dimensions(path)?;
        let mut backend = gpu::open(self.device.0, self.device.1)?;
        blur::check_image_memory(backend.as_ref(), w, h).map_err(|e| e.or_smaller("blur a smaller image"))?;
        let img = image_io::read(path)?;
        let b = blur::blur_image(backend.as_mut(), algo, &img.planes, img.w, img.h, g)?;
        // The verdict line shows even with -q when the bound is exceeded.
        if !self.quiet || !b.within_bound {
            let bound = algo.bound();
            note(&format!(
                "{}: {}x{} {}, {} on {}, sigma {}: {} of {} pixel values match the CPU implementation; against the float64 Gaussian: max |error| {:.2e} ({:.3} of 255), relative L2 {:.2e} (bound {:.0e} / {:.0e}: {})",
                path.display(),
                img.w,
                img.h,
                if img.planes.len() == 3 { "RGB" } else { "gray" },
                algo.label(&g),
                backend.info().name,
                g.sigma,
                b.values() - b.mismatches,
                b.values(),
                b.max_abs_error,
                b.max_abs_error * 255.0,
                b.rel_l2_error,
                bound.0,
                bound.1,
                if b.within_bound { "within" } else { "EXCEEDED" }
            ));
        }
        if let Some(out) = self.output {
            image_io::write(out, &image_io::Planes { w: img.w, h: img.h, planes: b.planes })?;
            if !self.quiet && !output::is_stdout(out) {
                note(&format!("wrote {}", out.display()));
            }
        }
        if b.mismatches > 0 {
            note(&format!("FAILED: {} values differ from the CPU implementation", b.mismatches));
            return Ok(Outcome::CheckFailed);
        }
        if !b.within_bound {
            note(&format!("FAILED: the blur is outside the bound stated for {}", algo.name()));
            return Ok(Outcome::CheckFailed);
        }
        Ok(Outcome::Ok)
    }
}
