//! A kernel file estimated without a GPU (`estimate --kernel-file`): its modules built for the modelled
//! arch (PTX as given, or NVRTC's where it is installed), each configuration traced from its PTX and
//! evaluated as a built-in kernel is, with the registers per thread the user gives (ptxas's figure,
//! which nothing here can compute) or, said so, 32.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::compile::{Built, Cache, Code, Compiler, Nvrtc};
use super::expand::Config;
use super::expr::Value;
use super::file::KernelFile;
use crate::error::{Error, Names, Result};
use crate::gpu::{DeviceLimits, KernelAttrs, Launch};
use crate::model::time::Target;
use crate::plan::Planned;
use crate::record::{Record, Report, Status};
use crate::spec::Dim3;

/// Registers per thread assumed where none are given.
pub const ASSUMED_REGISTERS: u32 = 32;

/// The estimates of `file` over `blocks` (or its own lists) and `defines` on `target`, and a line saying
/// what was modelled and how.
pub fn estimate(
    file: &KernelFile,
    blocks: Option<&[Dim3]>,
    defines: &[(String, Vec<Value>)],
    target: &Target,
    registers: Option<u32>,
    names: Names,
) -> Result<(Report, String)> {
    let ex = file.expand(blocks, defines, names)?;
    if ex.configs.is_empty() {
        return Err(Error::usage(format!(
            "nothing to estimate: {} (the restrictions of {} remove every one)",
            ex.summary(),
            file.path.display()
        )));
    }
    let nvrtc = Nvrtc::load();
    let compiler = nvrtc.as_ref().ok().map(|n| n as &dyn Compiler);
    let compile_for = super::compile::Target { cc: target.arch.cc, driver: "none".into() };
    let built = super::compile::build_used(file, &ex.modules, &ex.configs, &compile_for, compiler, &Cache::user());
    super::describe::check_built(file, &ex, &built)?;
    let limits = DeviceLimits::from_arch(target.arch);
    let regs = registers.unwrap_or(ASSUMED_REGISTERS);
    let data = Inputs::new(SEED);
    let mut report = Report::new(crate::estimate::device(target));
    report.records = ex
        .configs
        .par_iter()
        .enumerate()
        .map(|(index, c)| {
            let mut r = one(file, c, built.get(c.module), target, &limits, regs, &data);
            r.index = Some(index as u32);
            r.sweep_size = Some(ex.configs.len() as u32);
            r
        })
        .collect();
    // A kernel the model cannot follow at all is the error, not a table of rows that say so.
    let unmodelled = |r: &Record| {
        r.reason.as_deref().is_some_and(|why| why.starts_with("not modelled: ") || why.starts_with("compile failed: "))
    };
    if report.records.iter().all(unmodelled) {
        let mut reasons: Vec<&str> = Vec::new();
        for why in report.records.iter().filter_map(|r| r.reason.as_deref()) {
            if !reasons.contains(&why) {
                reasons.push(why);
            }
        }
        let more = match reasons.len() {
            1 => String::new(),
            n => format!(" (and {} other reasons; `warpscope kernels --kernel-file` checks the file)", n - 1),
        };
        return Err(Error::usage(format!("{}: nothing to estimate: {}{more}", file.name, reasons[0])));
    }
    let how = match registers {
        Some(n) => format!("{n} registers per thread (given)"),
        None => format!("{ASSUMED_REGISTERS} registers per thread (assumed: give --registers, ptxas's figure)"),
    };
    let line = format!(
        "{} {}: {}; modelled on {} ({}, {} SMs) from its PTX, {how}",
        file.name,
        file.problem_label(),
        ex.summary(),
        target.name,
        target.arch.sm_name(),
        target.sms
    );
    Ok((report, line))
}

/// The seed of the inputs an estimate's run reads (a sweep draws its own, `--seed`).
pub const SEED: u64 = 1;

/// The initial contents of the buffers the run follows (read-only inputs: `model::followed`), drawn
/// from `seed` as a sweep draws them (a `.npy` file read), once per argument and length, when a
/// configuration's run first asks for one (configurations ask side by side); one that cannot be made (a
/// missing file) is left out, and what depends on it is not followed.
pub struct Inputs {
    seed: u64,
    drawn: std::sync::Mutex<HashMap<(usize, u64), Drawn>>,
}

/// A buffer's contents as drawn, `None` where they could not be made.
type Drawn = Option<Arc<[u8]>>;

impl Inputs {
    /// Nothing drawn yet; buffers drawn from `seed`.
    pub fn new(seed: u64) -> Inputs {
        Inputs { seed, drawn: Default::default() }
    }

    /// Buffer `b`'s initial contents.
    pub fn get(&self, b: &super::expand::Buffer) -> Option<Arc<[u8]>> {
        let mut drawn = self.drawn.lock().unwrap_or_else(|e| e.into_inner());
        drawn
            .entry((b.arg, b.len))
            .or_insert_with(|| {
                let init = b.init.clone().unwrap_or(super::data::Init::Zeros);
                init.generate(b.ty, b.len as usize, self.seed, b.arg as u32).ok().map(|d| Arc::from(d.bytes))
            })
            .clone()
    }
}

/// One configuration: its row with the models' metrics, or with the reason it has none.
fn one(
    file: &KernelFile,
    c: &Config,
    built: Option<&std::result::Result<Built, super::compile::CompileError>>,
    target: &Target,
    limits: &DeviceLimits,
    registers: u32,
    data: &Inputs,
) -> Record {
    let row = |reason: String| {
        let mut r = super::sweep::record_of(file, c, Status::Invalid);
        r.reason = Some(reason);
        r
    };
    if let Some(why) = &c.invalid {
        return row(why.clone());
    }
    let (k, attrs) = match modelled(file, c, built, target.arch.max_threads_per_block, registers, data) {
        Ok(k) => k,
        Err(why) => return row(why),
    };
    let launch = Launch { grid: c.grid, block: c.block, dynamic_smem: c.dynamic_smem };
    let planned = Planned { invalid: crate::plan::validate(limits, &attrs, &launch).err(), launch };
    // The model's row, named as the sweep names the file's configurations (its name, problem, parameters).
    let named = super::sweep::record_of(file, c, Status::Ok);
    Record {
        kernel: named.kernel,
        problem: named.problem,
        params: named.params,
        ..crate::estimate::estimate_one(&k, target, &attrs, &planned)
    }
}

/// Configuration `c` as the models see it, traced from its built module's PTX, with its attributes
/// (`registers` per thread, its PTX's static shared memory, the arch's `max_threads_per_block`); `Err`
/// with the reason it is not modelled ("compile failed: ..." or "not modelled: ...").
pub fn modelled(
    file: &KernelFile,
    c: &Config,
    built: Option<&std::result::Result<Built, super::compile::CompileError>>,
    max_threads_per_block: u32,
    registers: u32,
    data: &Inputs,
) -> std::result::Result<(crate::kernels::Traced, KernelAttrs), String> {
    let ptx = match built {
        Some(Ok(Built { code: Code::Ptx(ptx), .. })) => ptx,
        Some(Ok(_)) => {
            return Err("not modelled: its module is a cubin or fatbinary, whose code the model does not read".into());
        }
        Some(Err(e)) => return Err(format!("compile failed: {}", e.summary)),
        None => return Err("compile failed: no module".into()),
    };
    let entries = super::source::ptx_entries(ptx);
    let entry =
        file.find_entry(&entries, &c.entry, file.entry_at).map_err(|e| format!("not modelled: {e}"))?.name.clone();
    // A block the entry's launch bounds rule out is one the driver refuses.
    if let Some(e) = crate::ptx::entry_in(&crate::ptx::strip_comments(ptx), &entry)
        && let Some(why) = crate::ptx::refuses(e.maxntid, e.reqntid, c.block)
    {
        return Err(why);
    }
    let k = super::model::traced(&file.entry, ptx, &entry, c, &mut |b| data.get(b))
        .map_err(|why| format!("not modelled: {why}"))?;
    let attrs = KernelAttrs {
        registers,
        static_smem: k.static_shared_bytes().min(u32::MAX as u64) as u32,
        local_bytes: 0,
        max_threads_per_block,
    };
    Ok((k, attrs))
}
