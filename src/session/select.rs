//! Which configurations a session runs where: the devices (`--devices all|0,1`), this host's slice of
//! the sweep (`--shard K/N`), and what an earlier run already did (`--resume`).

use std::io::Write;
use std::path::Path;

use crate::Outcome;
use crate::error::{Error, Input, Result};
use crate::gpu::{self, BackendKind, DeviceInfo};
use crate::output::{self, Named, note};
use crate::record::{Record, Report, Status};
use crate::report::{Destination, Visuals};
use crate::spec;

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

/// The records of an earlier run to resume from (`path`), checked to be of the same sweep (`entry` on
/// `problem`) and, where they name their devices, of the same kind of device as `devices`.
pub fn resumed(path: &Path, kind: BackendKind, entry: &str, problem: &str, devices: &[u32]) -> Result<Report> {
    if !path.exists() {
        return Err(Error::input(Input::Resume, Some(path.display().to_string()), "no such file"));
    }
    let r = crate::report::read(path)?;
    crate::resume::check_sweep(&r, path, entry, problem)?;
    if !crate::resume::measured_on(&r).is_empty() {
        for d in gpu::list(kind)?.iter().filter(|d| devices.contains(&d.ordinal)) {
            crate::resume::check_device(&r, path, d)?;
        }
    }
    Ok(r)
}

/// This run's part of a sweep: this shard's configurations (`--shard`) less those an earlier run's
/// results hold (`--resume`), each by its index in the whole sweep.
pub struct Part {
    /// The earlier run's records, kept ahead of this run's in its report.
    pub resumed: Vec<Record>,
    /// The indices to run, in order.
    pub todo: Vec<u32>,
    /// The results go to the file resumed from: JSON Lines appended, a report rewritten whole.
    pub append: bool,
}

/// What [`Part::plan`] works from.
pub struct Planned<'a> {
    /// Where the report goes.
    pub to: &'a Destination,
    /// The figures drawn from it.
    pub visuals: &'a Visuals,
    /// `--shard K/N`.
    pub shard: Option<Shard>,
    /// `--resume FILE`.
    pub resume: Option<&'a Path>,
    /// The sweep's configurations this run may take, by index (all, or those `--configs` names).
    pub candidates: Vec<u32>,
    /// How many the whole sweep has.
    pub total: usize,
}

impl Part {
    /// Checks, before any GPU work, that the results can go where asked (an input may be an output
    /// only when resuming into it); `earlier` reads the file resumed from and checks it is of this
    /// sweep. A configuration is done when a record of it that did not fail is there: `of_record` and
    /// `of_config` name a record's and configuration `i`'s configuration alike (a failed one runs again).
    pub fn plan<K: Eq + std::hash::Hash>(
        p: Planned<'_>,
        earlier: impl FnOnce(&Path) -> Result<Report>,
        of_record: impl Fn(&Record) -> K,
        of_config: impl Fn(u32) -> K,
    ) -> Result<Part> {
        let append = matches!((p.resume, p.to.file()), (Some(r), Some(o)) if output::resolve(r) == output::resolve(o));
        let resume_input: Vec<Named<'_>> =
            p.resume.iter().filter(|_| !append).map(|&path| Named { what: "--resume", path }).collect();
        let mut outputs = vec![Named { what: "-o", path: p.to.dest() }];
        outputs.extend(p.visuals.outputs());
        output::check_distinct(&resume_input, &outputs)?;
        let resumed = match p.resume {
            Some(path) => earlier(path)?.records,
            None => Vec::new(),
        };
        p.visuals.check()?;
        if !append {
            p.to.check()?;
        }
        let mine: Vec<u32> = p.candidates.into_iter().filter(|&i| p.shard.is_none_or(|s| s.holds(i))).collect();
        let done: std::collections::HashSet<K> =
            resumed.iter().filter(|r| r.status != Status::Failed).map(of_record).collect();
        let todo: Vec<u32> = mine.iter().copied().filter(|&i| !done.contains(&of_config(i))).collect();
        if let (Some(s), false) = (p.shard, p.to.quiet) {
            note(&format!("shard {}/{}: {} of {} configurations", s.k, s.of, mine.len(), p.total));
        }
        if !resumed.is_empty() && !p.to.quiet {
            note(&format!(
                "resuming: {} of {} configurations already done, {} to run",
                mine.len() - todo.len(),
                mine.len(),
                todo.len()
            ));
        }
        Ok(Part { resumed, todo, append })
    }

    /// The JSON Lines stream (`--format jsonl`), the resumed records written first unless appended to
    /// the file they came from.
    pub fn stream(&self, to: &Destination) -> Result<Option<Box<dyn Write + Send>>> {
        let mut stream = to.stream(self.append)?;
        if let Some(w) = stream.as_mut().filter(|_| !self.append) {
            for r in &self.resumed {
                w.write_all(crate::report::jsonl::line(r)?.as_bytes())
                    .map_err(|e| output::write_error(&to.dest_name(), &e))?;
            }
        }
        Ok(stream)
    }

    /// Nothing left to run: the resumed records are the report.
    pub fn already_done(self, to: &Destination, visuals: &Visuals, streamed: bool) -> Result<Outcome> {
        let report = Report { records: self.resumed, ..Report::new(DeviceInfo::unknown()) };
        if !streamed {
            to.emit(&report)?;
        }
        visuals.emit(&report)?;
        Ok(Outcome::checked(report.any_failed()))
    }
}
