//! Fuzz target: warpscope::fuzzing::experiment_file must not panic on any input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| warpscope::fuzzing::experiment_file(data));
