//! Fuzz target: warpscope::fuzzing::records must not panic on any input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| warpscope::fuzzing::records(data));
