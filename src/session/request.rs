//! What `sweep` and `run` are asked for, as a front end takes it (names, lists and numbers as given):
//! checked, turned into a [`Session`] of a built-in kernel or a kernel file's session, and run.

use std::path::PathBuf;
use std::sync::Arc;

use super::{Devices, Session};
use crate::Outcome;
use crate::error::{Error, Input, Names, Result};
use crate::gpu::BackendKind;
use crate::kernels::{self, Problem};
use crate::report::{Destination, Visuals};
use crate::spec::BlockLists;
use crate::sweep::{self, Noise, Options};
use crate::userkernel::session::FileSession;
use crate::userkernel::sweep::rerun_line;
use crate::userkernel::{KernelFile, parse_define, parse_size};

/// The kernel to sweep.
pub enum What {
    /// A built-in kernel by name, bound to its problem.
    Builtin {
        /// Its name (`warpscope kernels` lists them).
        name: String,
        /// Its problem size (`None`s: the kernel's defaults).
        problem: Problem,
    },
    /// A user's kernel file.
    File {
        /// The file.
        path: PathBuf,
        /// Its problem sizes, `NAME=VALUE`.
        sizes: Vec<String>,
        /// Values of its compile-time parameters, `NAME=VALUES`.
        defines: Vec<String>,
        /// Only these configurations, by index (`1,4,5`: how a sweep goes on in a new process).
        configs: Option<String>,
    },
}

/// How to measure, as given.
pub struct Measure {
    /// Untimed launches before timing.
    pub warmup: u32,
    /// Timed launches per configuration.
    pub iters: u32,
    /// Seed of the random inputs (`None`: fresh each run).
    pub seed: Option<u64>,
    /// The time model's prediction beside every measured time.
    pub model: bool,
    /// Metrics to measure with counters (a list, or `all`).
    pub metrics: Option<String>,
    /// Flush L2 before every timed launch.
    pub cold: bool,
    /// Time until the spread is small enough instead of a fixed count.
    pub until_noise: Option<Noise>,
    /// Time the configurations round-robin.
    pub interleave: bool,
}

/// A `sweep` (or `run`) to do.
pub struct Request {
    /// The backend the devices are opened on.
    pub backend: BackendKind,
    /// The kernel.
    pub what: What,
    /// The block shapes (a kernel file has its own lists when none is given).
    pub blocks: BlockLists,
    /// How to measure.
    pub measure: Measure,
    /// The device, when no list of devices is given.
    pub device: u32,
    /// The GPUs to spread the configurations over (`all` or `0,1`).
    pub devices: Option<String>,
    /// This host's slice of the sweep (`K/N`).
    pub shard: Option<String>,
    /// An earlier run's results whose configurations are skipped.
    pub resume: Option<PathBuf>,
    /// Seconds a configuration may take before the session gives up on it.
    pub timeout: Option<f64>,
    /// Where the report goes.
    pub to: Destination,
    /// The figure and HTML page drawn from the report.
    pub visuals: Visuals,
    /// `run`: exactly one configuration.
    pub single: bool,
    /// The front end's names of the inputs, for the messages that name them.
    pub names: Names,
}

impl Request {
    /// Runs the sweep; the outcome says whether a configuration failed, and how the session ended.
    pub fn run(&self) -> Result<Outcome> {
        let (name, problem) = match &self.what {
            What::File { path, sizes, defines, configs } => return self.kernel_file(path, sizes, defines, configs),
            What::Builtin { name, problem } => (name, problem),
        };
        let blocks = self.blocks.shapes()?;
        let kernel = kernels::lookup(name, *problem)?;
        if self.single && blocks.len() != 1 {
            return Err(Error::usage(format!(
                "run takes exactly one block (got {}): use sweep for lists",
                blocks.len()
            )));
        }
        Session {
            backend: self.backend,
            kernel: Arc::from(kernel),
            blocks,
            options: self.options()?,
            devices: self.devices.clone().map_or(Devices::One(self.device), Devices::Listed),
            shard: self.shard.as_deref().map(str::parse).transpose()?,
            resume: self.resume.clone(),
            to: self.to.clone(),
            visuals: self.visuals.clone(),
            timeout: self.timeout,
            names: self.names,
        }
        .run()
    }

    /// The measuring options, checked.
    fn options(&self) -> Result<Options> {
        let m = &self.measure;
        let seed = m.seed.unwrap_or_else(sweep::fresh_seed);
        let metrics = m.metrics.as_deref().map(crate::metrics::parse_requested).transpose()?.unwrap_or_default();
        // Each value's own range is the front end's to check; what is left is how they combine.
        if let Some(n) = m.until_noise.filter(|n| n.max_iters < n.min_iters) {
            let name = self.names;
            return Err(Error::usage(format!(
                "{} {} is under {} {}",
                name(Input::MaxIters),
                n.max_iters,
                name(Input::MinIters),
                n.min_iters
            )));
        }
        Ok(Options {
            warmup: m.warmup,
            iters: m.iters,
            seed,
            model: m.model,
            metrics,
            cold: m.cold,
            until_noise: m.until_noise,
            interleave: m.interleave,
            // A timeout judges each configuration alone: its counters are measured before the next one runs.
            counter_window: if self.timeout.is_some() { 1 } else { sweep::COUNTER_WINDOW },
            // Each device's clock is set when its thread starts.
            watch: None,
        })
    }

    /// A user's kernel file on one device.
    fn kernel_file(
        &self,
        path: &std::path::Path,
        sizes: &[String],
        defines: &[String],
        configs: &Option<String>,
    ) -> Result<Outcome> {
        let (m, name) = (&self.measure, self.names);
        if m.interleave {
            return Err(Error::usage(format!(
                "{} is not supported with {} yet",
                name(Input::Interleave),
                name(Input::KernelFile)
            )));
        }
        let sizes = sizes.iter().map(|s| parse_size(s)).collect::<Result<Vec<_>>>()?;
        let parsed = defines.iter().map(|d| parse_define(d)).collect::<Result<Vec<_>>>()?;
        let file = KernelFile::load(path, &sizes)?;
        let blocks = self.blocks.given()?;
        let only: Option<Vec<usize>> = configs
            .as_deref()
            .map(|l| {
                l.split(',')
                    .map(|i| {
                        i.trim().parse::<usize>().map_err(|_| Error::usage(format!("{} '{l}'", name(Input::Configs))))
                    })
                    .collect::<Result<Vec<usize>>>()
            })
            .transpose()?;
        let options = self.options()?;
        let rerun = rerun_line(path, &file, blocks.as_deref(), defines, &options, m.metrics.as_deref(), self.timeout);
        FileSession {
            file: &file,
            blocks: blocks.as_deref(),
            defines: &parsed,
            device: (self.backend, self.device),
            options: &options,
            to: &self.to,
            visuals: &self.visuals,
            single: self.single,
            only: only.as_deref(),
            rerun: Some(rerun),
            timeout: self.timeout,
            shard: self.shard.as_deref().map(str::parse).transpose()?,
            resume: self.resume.as_deref(),
            devices: self.devices.clone(),
            names: self.names,
        }
        .run()
    }
}
