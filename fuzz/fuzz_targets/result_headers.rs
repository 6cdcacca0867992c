//! Fuzz target: warpscope::fuzzing::result_headers must not panic on any input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| warpscope::fuzzing::result_headers(data));
