//! Fuzz target: warpscope::fuzzing::importer must not panic on any input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| warpscope::fuzzing::importer(data));
