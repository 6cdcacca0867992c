//! The device's calibration: the microbenchmarks run once per device and kept in the user's cache
//! directory (`$WARPSCOPE_CACHE_DIR`, else e.g. `~/.cache/warpscope`), one JSON file per device, keyed by
//! its name, compute capability, SMs, clock, PCI bus id and driver; `devices --calibrate` measures afresh.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::{Backend, DeviceInfo};
use crate::error::{Error, Result};
use crate::model::calibration::{self, Measurements};
use crate::model::time::Figures;
use crate::record::Source;

/// Version of the cache files' layout and of the microbenchmarks behind them (older files are measured
/// again).
const CACHE_VERSION: u32 = 11;

/// A device's calibration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// `CACHE_VERSION`.
    pub version: u32,
    /// The device it belongs to (see [`key`]).
    pub key: String,
    /// When it was measured, seconds since 1970 (UTC).
    pub measured_at: u64,
    /// What the microbenchmarks measured.
    pub measurements: Measurements,
    /// The figures the model uses.
    pub figures: Figures,
    /// Read from the cache (not measured now).
    #[serde(skip)]
    pub from_cache: bool,
}

/// The cache directory: `$WARPSCOPE_CACHE_DIR`, else the platform's user cache directory + `warpscope`.
pub fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os("WARPSCOPE_CACHE_DIR").filter(|v| !v.is_empty()) {
        Some(d) => Some(PathBuf::from(d)),
        None => dirs::cache_dir().map(|d| d.join("warpscope")),
    }
}

/// The cache key of a device: what changes its figures (another card, clock or driver).
pub fn key(info: &DeviceInfo) -> String {
    let raw = format!(
        "{}-{}-sm{}-{}sms-{}mhz-{}-{}-{}",
        info.backend,
        info.name,
        info.compute_capability.as_deref().unwrap_or("-"),
        info.sms.unwrap_or(0),
        info.sm_clock_mhz.unwrap_or(0),
        info.pci_bus_id.as_deref().unwrap_or("-"),
        info.driver.as_deref().unwrap_or("-"),
        info.ordinal
    );
    let mut k: String =
        raw.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    while k.contains("--") {
        k = k.replace("--", "-");
    }
    k.trim_matches('-').to_string()
}

/// The cache file of a device.
pub fn cache_path(info: &DeviceInfo) -> Option<PathBuf> {
    cache_dir().map(|d| d.join("calibration").join(format!("{}.json", key(info))))
}

/// The device's calibration: from the cache when there is one for it (and `refresh` is false), else
/// measured now and written to the cache (a cache that cannot be written is not an error). Values of
/// the mock are marked `mock` in the figures' source.
pub fn calibration(backend: &mut dyn Backend, refresh: bool) -> Result<Calibration> {
    let info = backend.info().clone();
    let path = cache_path(&info);
    if !refresh
        && let Some(c) = path.as_ref().and_then(|p| std::fs::read_to_string(p).ok())
        && let Ok(mut c) = serde_json::from_str::<Calibration>(&c)
        && c.version == CACHE_VERSION
        && c.key == key(&info)
        && calibration::check(&c.figures).is_ok()
    {
        c.from_cache = true;
        return Ok(c);
    }
    let measurements = backend.calibrate()?;
    let source = match backend.source() {
        Source::Mock => "mock (made-up figures)".to_string(),
        _ => format!("calibrated on {}", info.name),
    };
    let figures = calibration::figures(&measurements, source);
    calibration::check(&figures).map_err(|why| Error::Output(format!("{why}: the microbenchmarks misbehaved")))?;
    let measured_at = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let c =
        Calibration { version: CACHE_VERSION, key: key(&info), measured_at, measurements, figures, from_cache: false };
    if let Some(p) = path {
        let _ = write(&p, &c);
    }
    Ok(c)
}

/// Writes the cache file through a temporary name, so that a concurrent reader never sees half of it.
fn write(path: &std::path::Path, c: &Calibration) -> std::io::Result<()> {
    write_cache(path, serde_json::to_string_pretty(c).map_err(std::io::Error::other)?.as_bytes())
}

/// Writes a cache file (creating its folder) through a temporary name, so that a concurrent reader
/// never sees half of it.
pub fn write_cache(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("no parent directory"))?;
    std::fs::create_dir_all(dir)?;
    let tmp =
        dir.join(format!(".{}.{}.tmp", path.file_name().and_then(|n| n.to_str()).unwrap_or("c"), std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::MockBackend;

    #[test]
    fn keys_are_file_names() {
        let mut info = MockBackend::new(0).unwrap().info().clone();
        info.pci_bus_id = Some("00000000:1A:00.0".into());
        let k = key(&info);
        assert!(k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'), "{k}");
        assert!(k.contains("00000000-1a-00-0"), "{k}");
        info.sm_clock_mhz = Some(1410);
        assert_ne!(key(&info), k, "another clock is another calibration");
    }
}
