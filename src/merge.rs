//! Joining result files: the slices of one sweep run on several GPUs (`--devices`) or hosts (`--shard`)
//! back into one report in the sweep's order, refusing a configuration measured twice, a file with no
//! records, and saying which configurations of a sweep none of the files hold (a missing slice).

use std::path::Path;

use crate::error::{Error, Result};
use crate::record::{ModelFit, Record, Report};

/// Refuses a file given to `merge` that holds no records (an empty or truncated result file).
pub fn check_input(path: &Path, report: &Report) -> Result<()> {
    if report.records.is_empty() {
        return Err(Error::usage(format!("{}: no records to merge", path.display())));
    }
    Ok(())
}

/// The configurations of one sweep that no record holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    /// Kernel entry.
    pub kernel: String,
    /// Problem.
    pub problem: String,
    /// Configurations in the whole sweep.
    pub sweep_size: u32,
    /// Their positions in the sweep's block list (`index`), ascending.
    pub indices: Vec<u32>,
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (n, of) = (self.indices.len(), self.sweep_size);
        write!(
            f,
            "{} {}: {n} of {of} configurations missing (index {})",
            self.kernel,
            self.problem,
            spans(&self.indices)
        )
    }
}

/// Ascending numbers as spans: `1, 3, 5-9`.
fn spans(v: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j { v[i].to_string() } else { format!("{}-{}", v[i], v[j]) });
        i = j + 1;
    }
    out.join(", ")
}

/// For every sweep among `records` (kernel and problem) whose records say its size, the indices none
/// of them holds; an error when records of one sweep disagree on its size or hold an index outside it.
pub fn missing(records: &[Record]) -> Result<Vec<Missing>> {
    let mut out: Vec<Missing> = Vec::new();
    let mut present: Vec<Vec<bool>> = Vec::new();
    for r in records {
        let (Some(size), Some(index)) = (r.sweep_size, r.index) else { continue };
        let at = match out.iter().position(|m| m.kernel == r.kernel && m.problem == r.problem) {
            Some(at) => at,
            None => {
                out.push(Missing {
                    kernel: r.kernel.clone(),
                    problem: r.problem.clone(),
                    sweep_size: size,
                    indices: Vec::new(),
                });
                // At most 65536 configurations per sweep (block lists are capped); more is a corrupt file.
                present.push(vec![false; size.min(1 << 20) as usize]);
                out.len() - 1
            }
        };
        if out[at].sweep_size != size || index >= size || index as usize >= present[at].len() {
            return Err(Error::usage(format!(
                "{} {}: records of different sweeps (a sweep of {} configurations, and index {index} of {size})",
                r.kernel, r.problem, out[at].sweep_size
            )));
        }
        present[at][index as usize] = true;
    }
    for (m, seen) in out.iter_mut().zip(&present) {
        m.indices = (0u32..).zip(seen).filter(|(_, s)| !**s).map(|(i, _)| i).collect();
    }
    out.retain(|m| !m.indices.is_empty());
    Ok(out)
}

/// One report of `reports`' records: grouped by kernel and problem in order of first appearance, each
/// group in its sweep's order (`index`); the first report's device, baselines and timing, and every
/// distinct device in `devices` when there are several.
pub fn merge(reports: Vec<Report>) -> Result<Report> {
    let mut it = reports.into_iter();
    let mut out = it.next().ok_or_else(|| Error::usage("nothing to merge"))?;
    let mut devices = vec![out.device.clone()];
    devices.append(&mut out.devices);
    for r in it {
        for d in std::iter::once(r.device).chain(r.devices) {
            if !devices.iter().any(|x| x.ordinal == d.ordinal && x.name == d.name && x.pci_bus_id == d.pci_bus_id) {
                devices.push(d);
            }
        }
        out.records.extend(r.records);
    }
    let mut groups: Vec<(String, String)> = Vec::new();
    for r in &out.records {
        if !groups.iter().any(|(k, p)| *k == r.kernel && *p == r.problem) {
            groups.push((r.kernel.clone(), r.problem.clone()));
        }
    }
    let group = |k: &str, p: &str| groups.iter().position(|(gk, gp)| gk == k && gp == p).unwrap_or(usize::MAX);
    out.records.sort_by_key(|r| (group(&r.kernel, &r.problem), r.index.unwrap_or(u32::MAX)));
    for w in out.records.windows(2) {
        // A kernel file's configuration is its block and its parameters.
        if (&w[0].kernel, &w[0].problem, w[0].block, &w[0].params)
            == (&w[1].kernel, &w[1].problem, w[1].block, &w[1].params)
        {
            let params = w[0].params_label();
            return Err(Error::usage(format!(
                "{} {} block {}{} is in the results twice: merge slices of a sweep, not repeats",
                w[0].kernel,
                w[0].problem,
                crate::record::dims(w[0].block),
                if params.is_empty() { params } else { format!(" ({params})") }
            )));
        }
    }
    out.devices = if devices.len() > 1 { devices } else { Vec::new() };
    if out.model_fit.is_some() {
        out.model_fit = ModelFit::of(&out.records);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::DeviceInfo;
    use crate::record::Record;
    use crate::spec::Dim3;

    fn sized(mut r: Report, size: u32) -> Report {
        for rec in &mut r.records {
            rec.sweep_size = Some(size);
        }
        r
    }

    #[test]
    fn missing_slices_are_named_by_index() {
        let half = sized(report(0, &[(0, 32), (2, 128), (4, 512)]), 6);
        let gaps = missing(&half.records).unwrap();
        assert_eq!(gaps.len(), 1);
        assert_eq!(gaps[0].indices, [1, 3, 5]);
        assert_eq!(gaps[0].to_string(), "k p: 3 of 6 configurations missing (index 1, 3, 5)");
        let first = sized(report(0, &[(0, 32), (1, 64)]), 7);
        assert_eq!(missing(&first.records).unwrap()[0].to_string(), "k p: 5 of 7 configurations missing (index 2-6)");
        let whole = merge(vec![half, sized(report(1, &[(1, 64), (3, 256), (5, 1024)]), 6)]).unwrap();
        assert!(missing(&whole.records).unwrap().is_empty());
        // Records without a sweep size (older files, imports) cannot be checked, and are not refused.
        assert!(missing(&report(0, &[(3, 32)]).records).unwrap().is_empty());
        let odd = [sized(report(0, &[(0, 32)]), 4).records, sized(report(0, &[(1, 32)]), 5).records].concat();
        assert!(missing(&odd).unwrap_err().to_string().contains("records of different sweeps"));
        assert!(missing(&sized(report(0, &[(9, 32)]), 4).records).is_err());
        let e = check_input(Path::new("empty.json"), &Report::new(DeviceInfo::unknown())).unwrap_err();
        assert_eq!(e.to_string(), "empty.json: no records to merge");
    }

    fn report(ordinal: u32, blocks: &[(u32, u32)]) -> Report {
        let mut d = DeviceInfo::unknown();
        d.ordinal = ordinal;
        let mut r = Report::new(d);
        for &(i, bx) in blocks {
            let mut rec = Record::invalid("k", "p", Dim3::new(1, 1, 1), Dim3::new(bx, 1, 1), String::new());
            rec.index = Some(i);
            r.records.push(rec);
        }
        r
    }

    #[test]
    fn slices_merge_in_sweep_order() {
        let m = merge(vec![report(0, &[(0, 32), (2, 128)]), report(1, &[(1, 64), (3, 256)])]).unwrap();
        let bx: Vec<u32> = m.records.iter().filter_map(|r| r.block).map(|b| b.x).collect();
        assert_eq!(bx, [32, 64, 128, 256]);
        assert_eq!(m.devices.len(), 2);
        let e = merge(vec![report(0, &[(0, 32)]), report(0, &[(0, 32)])]).unwrap_err().to_string();
        assert!(e.contains("k p block 32x1 is in the results twice"), "{e}");
        assert!(merge(Vec::new()).is_err());
        assert!(merge(vec![report(0, &[(0, 32)])]).unwrap().devices.is_empty());
    }

    #[test]
    fn a_kernel_files_configurations_are_told_apart_by_their_parameters() {
        let with = |r: Report, tile: i64| {
            let mut r = r;
            for rec in &mut r.records {
                rec.params = Some([("tile".to_string(), serde_json::json!(tile))].into_iter().collect());
            }
            r
        };
        // The same block with tile 1 and tile 2: two configurations of one sweep, in index order.
        let m = merge(vec![with(report(1, &[(1, 32)]), 2), with(report(0, &[(0, 32)]), 1)]).unwrap();
        let labels: Vec<String> = m.records.iter().map(Record::params_label).collect();
        assert_eq!(labels, ["tile=1", "tile=2"]);
        let e = merge(vec![with(report(0, &[(0, 32)]), 2), with(report(1, &[(0, 32)]), 2)]).unwrap_err().to_string();
        assert!(e.contains("k p block 32x1 (tile=2) is in the results twice"), "{e}");
    }
}
