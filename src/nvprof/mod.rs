//! `warpscope nvprof`: nvprof's command line and output for any CUDA program on today's GPUs. The
//! program runs with warpscope's injection library loaded by the CUDA driver ([`inject`]), which
//! records GPU activities and API calls (CUPTI Activity API) and the metrics and events of the selected
//! kernel launches (Range Profiler, Nsight Compute's counters behind nvprof's names); the results come
//! back as warpscope records ([`protocol`]) and are printed the way nvprof printed them ([`render`]).

pub mod demangle;
pub mod events;
pub mod filter;
pub mod format;
pub mod inject;
pub mod names;
pub mod options;
pub mod process;
pub mod protocol;
pub mod render;
pub mod runner;
pub mod session;
