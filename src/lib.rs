//! warpscope: launches real CUDA kernels over sweeps of thread-block shapes, times them with CUDA
//! events, verifies every result against a CPU reference, and reports nvprof-style metrics, each
//! marked measured or estimated, in tables, CSV and JSON.
//!
//! The pipeline is [`spec`] (what to run) -> [`plan`] (validated configurations) -> [`sweep`]
//! (measure through a [`gpu::Backend`]) -> [`record::Report`] -> [`report`] (any format).
#![deny(missing_docs)]

pub mod baseline;
pub mod capacity;
pub mod compare;
pub mod error;
pub mod estimate;
pub mod fuzzing;
pub mod gpu;
pub mod handout;
pub mod import;
pub mod kernels;
pub mod merge;
pub mod metrics;
pub mod model;
pub mod nvprof;
pub mod outcome;
pub mod outfile;
pub mod output;
pub mod plan;
pub mod profile;
pub mod ptx;
pub mod record;
pub mod report;
pub mod resume;
pub mod runspec;
pub mod session;
pub mod signals;
pub mod spec;
pub mod stats;
pub mod studies;
pub mod sweep;
pub mod userkernel;
pub mod verify;
pub mod watch;

pub use error::{Error, Input, Result};
pub use outcome::Outcome;
