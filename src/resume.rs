//! Resuming a sweep from an earlier run's result file (`sweep --resume FILE`): only a file of the same
//! sweep is taken — records of the same kernel and problem, measured on the same kind of device — so
//! that one report never mixes two sweeps. Each check is one function, refusing with a one-line reason.

use std::path::Path;

use crate::error::{Error, Input, Result};
use crate::gpu::DeviceInfo;
use crate::record::Report;

/// The records of `report` (read from `path`) are of kernel `entry` on `problem`, and there are some.
pub fn check_sweep(report: &Report, path: &Path, entry: &str, problem: &str) -> Result<()> {
    let bad = |why: String| Err(Error::input(Input::Resume, Some(path.display().to_string()), why));
    if report.records.is_empty() {
        return bad("no records to resume from (start the sweep without --resume)".into());
    }
    match report.records.iter().find(|r| r.kernel != entry || r.problem != problem) {
        Some(r) => bad(format!(
            "its records are of another sweep ({} {}, this one is {entry} {problem}): resume a sweep with its own results",
            r.kernel, r.problem
        )),
        None => Ok(()),
    }
}

/// The device names a report's records were measured on; empty when the file does not say (JSON Lines).
pub fn measured_on(report: &Report) -> Vec<&str> {
    if report.device.backend == DeviceInfo::unknown().backend {
        return Vec::new();
    }
    std::iter::once(&report.device).chain(&report.devices).map(|d| d.name.as_str()).collect()
}

/// The device about to run the rest of the sweep is of the kind the report's records were measured on
/// (where the report names its devices).
pub fn check_device(report: &Report, path: &Path, device: &DeviceInfo) -> Result<()> {
    let names = measured_on(report);
    if names.is_empty() || names.contains(&device.name.as_str()) {
        return Ok(());
    }
    Err(Error::usage(format!(
        "--resume {}: measured on {}, this sweep runs on {}: resume on the same kind of device",
        path.display(),
        names.join(", "),
        device.name
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;
    use crate::spec::Dim3;

    fn report(kernel: &str, problem: &str, device: &str) -> Report {
        let mut d = DeviceInfo::unknown();
        if !device.is_empty() {
            d.name = device.into();
            d.backend = crate::gpu::Origin::Cuda;
        }
        let mut r = Report::new(d);
        r.records.push(Record::invalid(kernel, problem, Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), String::new()));
        r
    }

    #[test]
    fn only_the_same_sweep_on_the_same_kind_of_device_resumes() {
        let p = Path::new("r.json");
        let r = report("sumMatrixOnGPU2D", "1024x512", "NVIDIA H200");
        assert!(check_sweep(&r, p, "sumMatrixOnGPU2D", "1024x512").is_ok());
        let e = check_sweep(&r, p, "sumMatrixOnGPU2D", "512x512").unwrap_err().to_string();
        assert!(
            e.contains("results to resume r.json: its records are of another sweep (sumMatrixOnGPU2D 1024x512"),
            "{e}"
        );
        assert!(check_sweep(&r, p, "rgbToGray", "1024x512").is_err());
        let e = check_sweep(&Report::new(DeviceInfo::unknown()), p, "k", "p").unwrap_err().to_string();
        assert!(e.contains("no records to resume from"), "{e}");
        let mut h200 = DeviceInfo::unknown();
        h200.name = "NVIDIA H200".into();
        assert!(check_device(&r, p, &h200).is_ok());
        h200.name = "NVIDIA H100".into();
        let e = check_device(&r, p, &h200).unwrap_err().to_string();
        assert!(e.contains("measured on NVIDIA H200, this sweep runs on NVIDIA H100"), "{e}");
        // JSON Lines name no device: any will do.
        assert!(check_device(&report("k", "p", ""), p, &h200).is_ok());
    }
}
