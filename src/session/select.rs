//! Which configurations a session runs where: the devices (`--devices all|0,1`), this host's slice of
//! the sweep (`--shard K/N`), and what an earlier run already did (`--resume`).

use std::path::Path;

use crate::error::{Error, Input, Result};
use crate::gpu::{self, BackendKind};
use crate::kernels::Kernel;
use crate::record::{Record, Report, Status};
use crate::spec::{self, Dim3};

/// The GPUs of this host a session spreads its configurations over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Devices {
    /// One device, by ordinal.
    One(u32),
    /// `all`, or a comma-separated list of ordinals.
    Listed(String),
}

impl Devices {
    /// The ordinals, checked against the devices `kind` has.
    pub fn resolve(&self, kind: BackendKind) -> Result<Vec<u32>> {
        let list = match self {
            Devices::One(d) => return Ok(vec![*d]),
            Devices::Listed(list) => list,
        };
        let usage = |m: &dyn std::fmt::Display| Error::input(Input::Devices, None, m.to_string());
        let count = gpu::device_count(kind)?;
        let devices: Vec<u32> =
            if list == "all" { (0..count).collect() } else { spec::parse_int_list(list).map_err(|e| usage(&e))? };
        if devices.is_empty() {
            return Err(usage(&"no device"));
        }
        if let Some(d) = devices.iter().find(|&&d| d >= count) {
            return Err(usage(&format!("no CUDA device {d}: this machine has {count} (0..{})", count.max(1) - 1)));
        }
        if let Some(d) = devices.iter().enumerate().find(|(i, d)| devices[..*i].contains(d)).map(|(_, d)| d) {
            return Err(usage(&format!("device {d} is listed twice")));
        }
        Ok(devices)
    }
}

/// The Kth of N deterministic slices of a sweep (1-based): configuration i belongs to slice i % N + 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This slice, 1 to `of`.
    pub k: u32,
    /// Slices.
    pub of: u32,
}

impl std::str::FromStr for Shard {
    type Err = Error;

    /// `K/N`, 1 <= K <= N.
    fn from_str(text: &str) -> Result<Self> {
        let bad = || Error::input(Input::Shard, Some(text.to_string()), "K/N with 1 <= K <= N, e.g. 2/4");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (k, of): (u32, u32) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if k == 0 || of == 0 || k > of {
            return Err(bad());
        }
        Ok(Shard { k, of })
    }
}

impl Shard {
    /// Whether configuration `i` of the whole list is this slice's.
    pub fn holds(&self, i: u32) -> bool {
        i % self.of == self.k - 1
    }
}

/// The records of an earlier run to resume from (`path`), checked to be of the same sweep and, where
/// they name their devices, of the same kind of device as `devices`.
pub fn resumed(path: &Path, kind: BackendKind, kernel: &dyn Kernel, devices: &[u32]) -> Result<Report> {
    if !path.exists() {
        return Err(Error::input(Input::Resume, Some(path.display().to_string()), "no such file"));
    }
    let r = crate::report::read(path)?;
    crate::resume::check_sweep(&r, path, kernel.entry(), &kernel.problem())?;
    if !crate::resume::measured_on(&r).is_empty() {
        for d in gpu::list(kind)?.iter().filter(|d| devices.contains(&d.ordinal)) {
            crate::resume::check_device(&r, path, d)?;
        }
    }
    Ok(r)
}

/// The same configuration: kernel entry, problem and block, and not failed (a failed one runs again).
pub fn done_before(r: &Record, kernel: &dyn Kernel, block: Dim3) -> bool {
    r.kernel == kernel.entry() && r.problem == kernel.problem() && r.block == Some(block) && r.status != Status::Failed
}
