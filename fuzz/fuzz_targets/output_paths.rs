//! Fuzz target: warpscope::fuzzing::output_paths must not panic on any input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| warpscope::fuzzing::output_paths(data));
