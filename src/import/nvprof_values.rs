//! What nvprof's text and CSV outputs share: device names with their ordinal (`Tesla K20c (0)`),
//! metric values with glued units (`35.908GB/s`, `12.50%`, `Low (2)`), and their conversion to the
//! catalogue's units.

use std::collections::HashMap;

use crate::metrics;

use super::build::Launch;
use super::units;

/// Per-kernel summary rows of a file, in first-seen order: one per (process, kernel, device), the
/// time summary, event and metric blocks of one run merged into it.
#[derive(Default)]
pub struct Summaries {
    order: Vec<(String, String, Option<u32>)>,
    launches: HashMap<(String, String, Option<u32>), Launch>,
}

impl Summaries {
    /// The summary of `kernel`, aggregating (at least) `launches` launches.
    pub fn get(&mut self, pid: &str, kernel: &str, device: Option<u32>, launches: u64) -> &mut Launch {
        let key = (pid.to_string(), kernel.to_string(), device);
        if !self.launches.contains_key(&key) {
            self.order.push(key.clone());
        }
        let l = self.launches.entry(key).or_insert_with(|| Launch {
            name: kernel.to_string(),
            device,
            ..Default::default()
        });
        l.summary_of = Some(l.summary_of.unwrap_or(0).max(launches));
        l
    }

    /// The summaries, in the order their kernels first appeared.
    pub fn into_launches(mut self) -> Vec<Launch> {
        self.order.iter().filter_map(|k| self.launches.remove(k)).collect()
    }
}

/// Adds the time summary's values of a kernel (all times in ms).
pub fn add_times(l: &mut Launch, total: f64, avg: f64, min: f64, max: f64, pct: Option<f64>) {
    l.add(metrics::DURATION, avg, metrics::MS);
    l.add("duration_min", min, metrics::MS);
    l.add("duration_max", max, metrics::MS);
    l.add("total_time", total, metrics::MS);
    if let Some(p) = pct {
        l.add("time_pct", p, metrics::PCT);
    }
}

/// `Tesla K20c (0)` -> (`Tesla K20c`, 0), also cut short to its column (`Quadro GP100 (0`); a name
/// without an ordinal is returned whole.
pub fn device(s: &str) -> (String, Option<u32>) {
    let s = s.trim();
    if let Some(open) = s.rfind(" (")
        && let Some(ord) = s[open + 2..].strip_suffix(')').unwrap_or(&s[open + 2..]).parse().ok()
    {
        return (s[..open].trim().to_string(), Some(ord));
    }
    (s.to_string(), None)
}

/// A `Device "NAME (N)"` line (metric tables, `--print-summary-per-gpu`): the device's name and
/// ordinal.
pub fn device_line(t: &str) -> Option<(String, u32)> {
    let inner = t.strip_prefix("Device \"")?.strip_suffix('"')?;
    let (name, ord) = device(inner);
    Some((name, ord.unwrap_or(0)))
}

/// nvprof's utilization levels: `Idle (0)` .. `Max (10)`.
fn level(s: &str) -> Option<f64> {
    let (word, n) = s.trim().split_once(" (")?;
    if !["Idle", "Low", "Mid", "High", "Max"].contains(&word) {
        return None;
    }
    n.strip_suffix(')')?.parse().ok()
}

/// Adds an nvprof metric (or, with `event`, an event count) printed as `text`, with `unit` from a
/// units row where the value has none glued on. Throughputs become GB/s (1e9 bytes/s), sizes bytes,
/// utilization levels a `level` 0-10; percentages stay %; plain numbers take the catalogue's unit where
/// it has the metric (occupancy is a ratio), else none.
pub fn add(launch: &mut Launch, name: &str, text: &str, unit: &str, event: bool) {
    if let Some(l) = level(text) {
        launch.add(name, l, "level");
        return;
    }
    let Some((v, glued)) = units::number(text) else { return };
    let unit = if glued.is_empty() { unit.trim() } else { glued.as_str() };
    if event {
        launch.add(name, v, metrics::COUNT);
    } else if let Some(gbs) = units::nvprof_gbs(v, unit) {
        launch.add(name, gbs, metrics::GBPS);
    } else if let Some(b) = units::nvprof_bytes(v, unit) {
        launch.add(name, b, "byte");
    } else if unit.is_empty() {
        launch.add(name, v, metrics::resolve(name).map_or("", |d| d.unit));
    } else {
        launch.add(name, v, unit);
    }
}

/// A time as nvprof prints it (`5.0890us`, or a bare number in `unit`) in ms.
pub fn ms(text: &str, unit: &str) -> Option<f64> {
    let (v, glued) = units::decimal(text)?;
    units::to_ms(&v, if glued.is_empty() { unit } else { &glued })
}

/// Bytes as nvprof prints them (`4.0000KB`, `0B`, or a bare number in `unit`).
pub fn bytes(text: &str, unit: &str) -> Option<f64> {
    let (v, glued) = units::number(text)?;
    units::nvprof_bytes(v, if glued.is_empty() { unit } else { &glued })
}

/// The error for a file whose only table is nvprof's API trace (`--print-api-trace`: `Start Duration
/// Name`, no grid column): host calls, among them the launches, but no kernel's time on the GPU.
pub fn api_trace_only() -> crate::error::Error {
    crate::error::Error::usage(
        "nvprof's API trace (--print-api-trace) times host API calls only, no kernel on the GPU: profile with `nvprof --print-gpu-trace` (or the summary) instead",
    )
}

/// nvprof's kernel name in a trace row, without the correlation ID it appends (`k(int) [117]`).
pub fn kernel_name(s: &str) -> &str {
    let s = s.trim();
    match s.rsplit_once(" [") {
        Some((name, id))
            if id.strip_suffix(']').is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit())) =>
        {
            name.trim_end()
        }
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_values_and_names() {
        assert_eq!(device("Tesla K20c (0)"), ("Tesla K20c".to_string(), Some(0)));
        assert_eq!(device("NVIDIA GeForce GTX 1060 6GB (0)"), ("NVIDIA GeForce GTX 1060 6GB".to_string(), Some(0)));
        assert_eq!(device("Tesla V100-SXM2"), ("Tesla V100-SXM2".to_string(), None));
        // A trace's Device column cut to its width.
        assert_eq!(device("Quadro GP100 (0"), ("Quadro GP100".to_string(), Some(0)));
        let mut l = Launch::default();
        add(&mut l, "shared_utilization", "Low (2)", "", false);
        add(&mut l, "gld_throughput", "452.628083", "MB/s", false);
        add(&mut l, "gld_efficiency", "100.00%", "", false);
        add(&mut l, "achieved_occupancy", "0.501071", "", false);
        add(&mut l, "elapsed_cycles_sm", "75451292", "", true);
        add(&mut l, "stall_sync", "n/a", "", false);
        let got: Vec<(&str, f64, &str)> =
            l.metrics.iter().map(|m| (m.name.as_str(), m.value, m.unit.as_str())).collect();
        assert_eq!(got[0], ("shared_utilization", 2.0, "level"));
        assert_eq!((got[1].0, got[1].2), ("gld_throughput", "GB/s"));
        assert!((got[1].1 - 452.628083 * 1048576.0 / 1e9).abs() < 1e-12);
        assert_eq!(got[2], ("gld_efficiency", 100.0, "%"));
        assert_eq!(got[3], ("achieved_occupancy", 0.501071, "ratio"));
        assert_eq!(got[4], ("elapsed_cycles_sm", 75451292.0, "count"));
        assert_eq!(got.len(), 5);
        assert_eq!(ms("5.0890us", ""), Some(5.089e-3));
        assert_eq!(bytes("4.0000KB", ""), Some(4096.0));
        assert_eq!(kernel_name("Kernel2(bool*, int) [118]"), "Kernel2(bool*, int)");
        assert_eq!(kernel_name("[CUDA memcpy HtoD]"), "[CUDA memcpy HtoD]");
    }
}
