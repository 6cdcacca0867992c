//! Fuzz target: warpscope::fuzzing::block_lists must not panic on any input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| warpscope::fuzzing::block_lists(data));
