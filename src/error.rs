//! One error type for the library, so `main` can print one line, a hint, and the right exit code: the
//! user's and the environment's errors apart from [`Error::Internal`], a bug of warpscope's.

use thiserror::Error;

/// Everything that stops a command. Failed verification is not an error: it is a record with
/// status `failed`, and the command exits 1 after writing its report.
#[derive(Debug, Error)]
pub enum Error {
    /// Malformed input from the user (a bad block list, an unknown kernel, a file that does not parse).
    #[error("{0}")]
    Usage(String),
    /// A value the user gave for one of the library's inputs is wrong. The library names the input in
    /// its own words ([`Input::name`]); each front end says it its own way (the command line: its flag).
    #[error("{}{}: {message}", input.name(), value.as_deref().map(|v| format!(" {v}")).unwrap_or_default())]
    Input {
        /// Which input.
        input: Input,
        /// The value as given, where it helps to show it.
        value: Option<String>,
        /// What is wrong with it.
        message: String,
    },
    /// libcuda could not be opened.
    #[error("no NVIDIA driver found (libcuda.so.1): {0}")]
    NoDriver(String),
    /// The driver loaded but cannot run what warpscope needs.
    #[error("{0}")]
    Driver(String),
    /// A CUDA call failed.
    #[error("CUDA error in {call}: {message}")]
    Cuda {
        /// The call, e.g. `cuLaunchKernel(sumMatrixOnGPU2D)`.
        call: String,
        /// The driver's name and description of the error.
        message: String,
    },
    /// The driver refused one configuration at launch (the sweep records it and goes on).
    #[error("{0}")]
    LaunchRejected(String),
    /// A kernel faulted while running (an illegal address, a trap): the context is lost until it is
    /// recreated.
    #[error("{0}")]
    KernelFault(String),
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        source: std::io::Error,
    },
    /// Writing an output format failed.
    #[error("cannot write output: {0}")]
    Output(String),
    /// A problem too large for the device's or the host's memory, found before anything was allocated.
    #[error("{need}: {}", fix.as_deref().unwrap_or("choose a smaller problem"))]
    Memory {
        /// What is needed and what there is.
        need: String,
        /// The options that make the problem smaller, as the command says it.
        fix: Option<String>,
    },
    /// An invariant of warpscope's own broke (a bug, not the user's doing): `main` says so and asks for
    /// a report, and exits with its own code.
    #[error("internal error: {0}")]
    Internal(String),
    /// Standard output is a pipe whose reader has gone (`warpscope ... | head`): the command ends
    /// quietly with exit 141, as a shell reports a process ended by SIGPIPE.
    #[error("standard output closed")]
    BrokenPipe,
}

/// The inputs the library checks, for front ends to name ([`Error::Input`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Timed launches per configuration.
    Iters,
    /// Round-robin timing of the configurations.
    Interleave,
    /// The GPUs a session spreads its configurations over.
    Devices,
    /// This host's slice of a sweep.
    Shard,
    /// An earlier run's results to continue from.
    Resume,
    /// The block shapes of a sweep (a list or per-dimension lists).
    Blocks,
    /// The metrics to measure with counters.
    Metrics,
    /// A compile-time parameter of a kernel file and its values.
    Define,
    /// Positions of configurations in a sweep (a re-run of its rest).
    Configs,
    /// Seconds a configuration may take before a session gives up on it.
    Timeout,
    /// The largest delta a comparison lets pass.
    FailAbove,
    /// A problem size of a kernel file.
    Size,
    /// A compute capability to build or model for.
    Arch,
    /// A named card to model.
    Gpu,
    /// The steps of an experiment to run.
    Only,
    /// A user's kernel file.
    KernelFile,
    /// Timing until the spread is small enough.
    UntilNoise,
    /// The first batch of timed launches when timing until the spread is small enough.
    MinIters,
    /// The most timed launches when timing until the spread is small enough.
    MaxIters,
    /// Flushing L2 before every timed launch.
    Cold,
    /// A figure's file.
    Plot,
}

/// How a front end names the library's inputs where the library composes a message around them (the
/// command line: its flags); [`Input::name`] is the library's own.
pub type Names = fn(Input) -> &'static str;

impl Input {
    /// The library's own words for the input.
    pub fn name(self) -> &'static str {
        match self {
            Input::Iters => "iterations",
            Input::Interleave => "round-robin timing",
            Input::Devices => "devices",
            Input::Shard => "shard",
            Input::Resume => "results to resume",
            Input::Blocks => "block shapes",
            Input::Metrics => "metrics",
            Input::Define => "define",
            Input::Configs => "configurations",
            Input::Timeout => "timeout",
            Input::FailAbove => "threshold",
            Input::Size => "size",
            Input::Arch => "compute capability",
            Input::Gpu => "card",
            Input::Only => "steps to run",
            Input::KernelFile => "kernel file",
            Input::UntilNoise => "timing to a spread",
            Input::MinIters => "first batch",
            Input::MaxIters => "most iterations",
            Input::Cold => "cold caches",
            Input::Plot => "figure",
        }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A second line telling the user what to do, where there is something to do.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Error::Internal(_) => {
                Some("this is a bug of warpscope's: please report it with the command line that gave it")
            }
            Error::NoDriver(_) => Some(
                "install the NVIDIA driver, or run `warpscope estimate` for model-only figures on a machine without a GPU",
            ),
            _ => None,
        }
    }

    /// Whether `main` should say nothing (a closed pipe: whoever reads has stopped listening).
    pub fn is_quiet(&self) -> bool {
        matches!(self, Error::BrokenPipe)
    }

    /// A [`Error::Memory`] error telling how to make this command's problem smaller; any other error as it is.
    pub fn or_smaller(self, fix: &str) -> Self {
        match self {
            Error::Memory { need, .. } => Error::Memory { need, fix: Some(fix.to_string()) },
            e => e,
        }
    }

    /// Shorthand for an internal error.
    pub fn internal(msg: impl Into<String>) -> Self {
        Error::Internal(msg.into())
    }

    /// Shorthand for a usage error.
    pub fn usage(msg: impl Into<String>) -> Self {
        Error::Usage(msg.into())
    }

    /// A wrong value for `input`: `value` as given (where showing it helps) and what is wrong.
    pub fn input(input: Input, value: Option<String>, message: impl Into<String>) -> Self {
        Error::Input { input, value, message: message.into() }
    }

    /// An [`Error::Input`] said as a front end says it: `name` gives the input's name there (a flag);
    /// any other error as it is.
    pub fn named_by(self, name: impl Fn(Input) -> &'static str) -> Self {
        match self {
            Error::Input { input, value, message } => Error::Usage(format!(
                "{}{}: {message}",
                name(input),
                value.map(|v| format!(" {v}")).unwrap_or_default()
            )),
            e => e,
        }
    }
}
