//! Will it fit? The memory checks made before anything is allocated, one function per resource: the
//! device's free memory (as the backend reports it) and the host's available memory (Linux
//! `MemAvailable`). A problem that does not fit is a one-line error naming what it needs and what
//! there is, never an allocation failure or a machine swapping itself to a halt.

use crate::error::{Error, Result};
use crate::gpu::Backend;

/// Memory available to new allocations on this host, bytes (Linux: `MemAvailable`).
/// `WARPSCOPE_MOCK_HOST_MEMORY=BYTES` pretends otherwise, for tests.
pub fn host_available() -> Option<u64> {
    if let Some(bytes) = std::env::var("WARPSCOPE_MOCK_HOST_MEMORY").ok().and_then(|v| v.parse().ok()) {
        return Some(bytes);
    }
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kib| kib * 1024)
}

/// Bytes in words: `1.6 MB`, `2.15 GB`.
fn size(b: u64) -> String {
    match b {
        b if b >= 1_000_000_000 => format!("{:.2} GB", b as f64 / 1e9),
        b => format!("{:.1} MB", b as f64 / 1e6),
    }
}

/// Fails when `what` needs more than the device's free memory.
pub fn check_device(backend: &dyn Backend, what: &str, bytes: u64) -> Result<()> {
    match backend.free_memory().filter(|&free| bytes > free) {
        Some(free) => Err(Error::Memory {
            need: format!("{what} needs {} of device memory, {} free", size(bytes), size(free)),
            fix: None,
        }),
        None => Ok(()),
    }
}

/// Fails when `what` needs more than the host's available memory; `parts` says what the bytes hold.
pub fn check_host(what: &str, bytes: u64, parts: &str) -> Result<()> {
    match host_available().filter(|&avail| bytes > avail) {
        Some(avail) => Err(Error::Memory {
            need: format!("{what} needs {} of host memory ({parts}), {} available", size(bytes), size(avail)),
            fix: None,
        }),
        None => Ok(()),
    }
}

/// Both checks: `device` bytes on the backend's device, `host` bytes (holding `parts`) on this host.
pub fn check(backend: &dyn Backend, what: &str, device: u64, host: u64, parts: &str) -> Result<()> {
    check_device(backend, what, device)?;
    check_host(what, host, parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_much_is_refused_with_both_figures() {
        let b = crate::gpu::MockBackend::new(0).unwrap();
        let free = b.free_memory().unwrap();
        assert!(check_device(&b, "x", free).is_ok());
        let e = check_device(&b, "sumMatrixOnGPU2D 9x9", free + 1).unwrap_err().to_string();
        assert!(e.starts_with("sumMatrixOnGPU2D 9x9 needs ") && e.contains("of device memory,"), "{e}");
        assert!(check_host("x", u64::MAX, "inputs").unwrap_err().to_string().contains("of host memory (inputs)"));
        assert!(check_host("x", 1, "inputs").is_ok());
    }
}
