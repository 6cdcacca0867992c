//! Joining result files: the slices of one sweep run on several GPUs (`--devices`) or hosts (`--shard`)
//! back into one report in the sweep's order, refusing a configuration measured twice.

use crate::error::{Error, Result};
use crate::record::{ModelFit, Report};

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
        if (&w[0].kernel, &w[0].problem, w[0].block) == (&w[1].kernel, &w[1].problem, w[1].block) {
            return Err(Error::usage(format!(
                "{} {} block {} is in the results twice: merge slices of a sweep, not repeats",
                w[0].kernel,
                w[0].problem,
                crate::record::dims(w[0].block)
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
}
