//! What every reader hands over: launches (or a tool's summary rows) and the devices it names. The
//! builder turns them into records marked imported — short name, full signature, which invocation of
//! its kernel each is — and the report's device, stating only what the file stated.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::gpu::DeviceInfo;
use crate::gpu::Origin;
use crate::record::{Metric, Record, Report, Source, Status};
use crate::spec::Dim3;

use super::names;

/// One kernel launch, or a summary row of several, as a reader found it.
#[derive(Debug, Default)]
pub struct Launch {
    /// Kernel name as printed (demangled or not, with or without its signature).
    pub name: String,
    /// Grid, where the file states it.
    pub grid: Option<Dim3>,
    /// Block, where the file states it.
    pub block: Option<Dim3>,
    /// Values, names and units already converted.
    pub metrics: Vec<Metric>,
    /// Launches a summary row aggregates.
    pub summary_of: Option<u64>,
    /// Device ordinal, where stated.
    pub device: Option<u32>,
    /// Why the profiler could not measure it (the launch failed under the profiler).
    pub failed: Option<String>,
}

impl Launch {
    /// Adds a metric (NaN and infinities are no value). Of two of one name (a value reached by two
    /// routes, e.g. a section's `Duration` and `gpu__time_duration.sum`), the first stands.
    pub fn add(&mut self, name: &str, value: f64, unit: &str) {
        if value.is_finite() {
            self.metrics.push(Metric {
                name: name.to_string(),
                value,
                unit: unit.to_string(),
                source: Source::Imported,
            });
        }
    }
}

/// A launch dimension as a file states it; a zero extent (a failed launch's `(0, 0, 0)`) is unknown.
pub fn dim(x: u32, y: u32, z: u32) -> Option<Dim3> {
    (x > 0 && y > 0 && z > 0).then(|| Dim3::new(x, y, z))
}

/// `(32, 16, 1)` or `(8 1 1)` (nvprof's text trace).
pub fn parse_dim(s: &str) -> Option<Dim3> {
    let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
    let v: Vec<u32> =
        inner.split([',', ' ']).filter(|p| !p.is_empty()).map(|p| p.trim().parse().ok()).collect::<Option<_>>()?;
    match v.as_slice() {
        [x, y, z] => dim(*x, *y, *z),
        _ => None,
    }
}

/// Collects a file's launches into a report.
pub struct Builder {
    tool: Origin,
    devices: Vec<DeviceInfo>,
    records: Vec<Record>,
    invocations: HashMap<String, u32>,
    /// Metric names in order of first appearance in the file.
    names: HashMap<String, usize>,
}

impl Builder {
    /// For a file written by `tool` (`ncu`, `nvprof`).
    pub fn new(tool: Origin) -> Self {
        Builder { tool, devices: Vec::new(), records: Vec::new(), invocations: HashMap::new(), names: HashMap::new() }
    }

    /// A device the file names: its ordinal, and what else it says (`name` empty when it gives none).
    /// The first description of an ordinal stands; later ones fill in what it lacked.
    pub fn device(&mut self, ordinal: u32, name: &str, cc: Option<String>) -> &mut DeviceInfo {
        let i = match self.devices.iter().position(|d| d.ordinal == ordinal) {
            Some(i) => i,
            None => {
                self.devices.push(DeviceInfo { ordinal, ..DeviceInfo::described(String::new(), self.tool) });
                self.devices.len() - 1
            }
        };
        let d = &mut self.devices[i];
        if d.name.is_empty() {
            d.name = name.trim().to_string();
        }
        if d.compute_capability.is_none() {
            d.compute_capability = cc.filter(|c| !c.trim().is_empty());
        }
        d
    }

    /// Adds one launch or summary row. Its metrics are put in the order of their first appearance in
    /// the file, which every record then agrees with (CSV columns follow it: a written file reads
    /// back the same).
    pub fn push(&mut self, mut l: Launch) {
        // Each metric's first appearance in the file, found with one lookup.
        let order: Vec<usize> = l
            .metrics
            .iter()
            .map(|m| match self.names.get(&m.name) {
                Some(&i) => i,
                None => {
                    self.names.insert(m.name.clone(), self.names.len());
                    self.names.len() - 1
                }
            })
            .collect();
        // Of two values of one name, the first stands.
        let mut seen = vec![false; self.names.len()];
        let mut keyed: Vec<(usize, crate::record::Metric)> = order
            .into_iter()
            .zip(std::mem::take(&mut l.metrics))
            .filter(|(i, _)| !std::mem::replace(&mut seen[*i], true))
            .collect();
        if !keyed.is_sorted_by_key(|(i, _)| *i) {
            keyed.sort_by_key(|(i, _)| *i);
        }
        l.metrics = keyed.into_iter().map(|(_, m)| m).collect();
        let (short, signature) = names::split(&l.name);
        let invocation = l.summary_of.is_none().then(|| {
            let n = self.invocations.entry(signature.clone().unwrap_or_else(|| short.clone())).or_insert(0);
            *n += 1;
            *n - 1
        });
        let status = if l.failed.is_some() { Status::Failed } else { Status::Ok };
        self.records.push(Record {
            grid: l.grid,
            block: l.block,
            reason: l.failed,
            metrics: l.metrics,
            device: l.device,
            signature,
            invocation,
            summary_of: l.summary_of,
            ..Record::unshaped(&short, "", status)
        });
    }

    /// Whether no launch or summary row has been added yet.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The report; an error when the file named no kernel.
    pub fn finish(self, what: &str) -> Result<Report> {
        if self.records.is_empty() {
            return Err(Error::usage(format!("{what}: the file has its header but no kernel rows")));
        }
        let mut devices = self.devices;
        let device = devices.first().cloned().unwrap_or_else(|| DeviceInfo::described(String::new(), self.tool));
        let mut report = Report::new(device);
        report.records = self.records;
        if devices.len() > 1 {
            report.devices = std::mem::take(&mut devices);
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_as_files_write_them() {
        assert_eq!(parse_dim("(384, 1, 1)"), Some(Dim3::new(384, 1, 1)));
        assert_eq!(parse_dim("(8 1 1)"), Some(Dim3::new(8, 1, 1)));
        assert_eq!(parse_dim("(0, 0, 0)"), None);
        assert_eq!(parse_dim("-"), None);
        assert_eq!(parse_dim("(1, 2)"), None);
    }

    #[test]
    fn invocations_count_per_signature_and_summaries_have_none() {
        let mut b = Builder::new(Origin::Ncu);
        for name in ["k(int)", "k(int)", "void k<2>(int)", "k(int)"] {
            b.push(Launch { name: name.into(), ..Default::default() });
        }
        b.push(Launch { name: "k(int)".into(), summary_of: Some(10), ..Default::default() });
        let r = b.finish("x").unwrap();
        let inv: Vec<_> = r.records.iter().map(|r| r.invocation).collect();
        assert_eq!(inv, [Some(0), Some(1), Some(0), Some(2), None]);
        assert!(r.records.iter().all(|r| r.kernel == "k"));
        assert_eq!(r.device.compute_capability, None);
        assert!(Builder::new(Origin::Ncu).finish("x").is_err());
    }
}
