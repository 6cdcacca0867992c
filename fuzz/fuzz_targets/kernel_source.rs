//! Fuzz target: warpscope::fuzzing::kernel_source must not panic on any input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| warpscope::fuzzing::kernel_source(data));
