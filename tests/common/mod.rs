//! Shared helpers for the CLI tests: the real binary, on the mock backend unless a test says otherwise.

#![allow(dead_code)]

use assert_cmd::Command;

/// `warpscope ARGS` on the mock backend, with a fixed seed where the command takes one.
pub fn mock(args: &[&str]) -> Command {
    let mut c = Command::cargo_bin("warpscope").expect("binary built");
    c.env("WARPSCOPE_BACKEND", "mock").env_remove("WARPSCOPE_MOCK_FAULT").args(args);
    c
}

/// `warpscope ARGS` on the real CUDA backend.
pub fn cuda(args: &[&str]) -> Command {
    let mut c = Command::cargo_bin("warpscope").expect("binary built");
    c.env_remove("WARPSCOPE_BACKEND").args(args);
    c
}

/// Standard output of a finished command as text.
pub fn stdout(c: &mut Command) -> String {
    String::from_utf8(c.output().expect("runs").stdout).expect("utf-8")
}

/// Whether this machine has an NVIDIA driver (some tests only make sense without one).
pub fn has_driver() -> bool {
    ["/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1", "/usr/lib/libcuda.so.1"]
        .iter()
        .any(|p| std::path::Path::new(p).exists())
}

/// The seed's first sweep on a small matrix, deterministic.
pub const SMALL: &[&str] = &["--nx", "1024", "--ny", "512", "--seed", "42", "--iters", "5"];
