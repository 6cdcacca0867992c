//! The injection library of `warpscope nvprof`: the CUDA driver loads it into the profiled program
//! (`CUDA_INJECTION64_PATH`) and calls `InitializeInjection` at the program's first CUDA call. All the
//! work is in the warpscope library (`warpscope::nvprof::inject`); this crate only exports the entry point.

use std::ffi::c_int;

/// Entry point the CUDA driver calls once per process; returns 1 (success) even when profiling cannot
/// start, so that the program itself always runs (the reason reaches `warpscope nvprof`).
#[unsafe(no_mangle)]
pub extern "C" fn InitializeInjection() -> c_int {
    // A panic must not unwind into the CUDA driver.
    let _ = std::panic::catch_unwind(warpscope::nvprof::inject::initialize);
    1
}
