//! The case-study benchmarks of source 000 (docs/GLOSSARY.md), apart from the core pipeline: `peak`
//! (what the machine gives before tuning), `transpose --bench` (every transpose against the copy of
//! the same bytes) and `blur` (Gaussian blur pipelines against the seed's estimate rule, and real images).

pub mod blur;
pub mod blur_pipelines;
pub mod image_io;
pub mod peak;
pub mod transpose_bench;

use std::path::Path;

use crate::error::Result;
use crate::gpu::{self, Backend, BackendKind};
use crate::record::Record;
use crate::report::{self, Destination};
use crate::sweep::{self, Event, Options};

/// How a study (`peak`, `transpose --bench`) measures and where its report and figure go.
pub struct Study<'a> {
    /// The backend and device.
    pub device: (BackendKind, u32),
    /// Untimed launches before timing.
    pub warmup: u32,
    /// Timed launches per kernel.
    pub iters: u32,
    /// Where the report goes.
    pub to: &'a Destination,
    /// Where to draw the figure.
    pub plot: Option<&'a Path>,
}

impl Study<'_> {
    /// Fails now, before any measuring, if the report or the figure could not be written later.
    fn check(&self) -> Result<()> {
        self.to.check()?;
        report::check_plot(self.plot)
    }

    /// Opens the device and runs `run` on it (fresh random inputs), behind a progress bar of the `count`
    /// configurations (counted once the device is open), each record's `line` shown as it ends.
    fn measure<T>(
        &self,
        count: impl FnOnce() -> Result<usize>,
        line: impl Fn(&Record) -> String,
        run: impl FnOnce(&mut dyn Backend, &Options, &mut dyn FnMut(Event<'_>)) -> Result<T>,
    ) -> Result<T> {
        let opts = Options { warmup: self.warmup, iters: self.iters, seed: sweep::fresh_seed(), ..Default::default() };
        let mut backend = gpu::open(self.device.0, self.device.1)?;
        let bar = self.to.progress(count()?);
        let measured = run(backend.as_mut(), &opts, &mut |e| {
            if let Event::Record(r) = e {
                bar.inc(1);
                bar.suspend(|| self.to.line(&line(r)));
            }
        });
        bar.finish_and_clear();
        measured
    }
}
