//! A kernel file's stored sweep predicted again (`model-check --kernel-file F`): each record's
//! configuration rebuilt from the file — its problem from the record's sizes, its parameters from the
//! record's — and traced from its PTX as `sweep --model` traces it, so that this binary's model judges
//! measurements made before it, without a GPU.

use std::collections::BTreeMap;
use std::path::Path;

use super::compile::{self, Cache, Compiler, Nvrtc};
use super::estimate::{ASSUMED_REGISTERS, Inputs, SEED, modelled};
use super::expr::Value;
use super::file::KernelFile;
use crate::error::{Error, Names, Result};
use crate::model::check::Rebuilt;
use crate::record::{Record, Report, Status};
use crate::spec::Dim3;

/// Record i's kernel at `[i]` for each record of `report` (read from `report_path`) that names the kernel
/// of the file at `path`
/// (`None` for the others): traced (its occupancy is the one the sweep measured, where the record has
/// it; else that of 32 registers per thread), or why not (a configuration the file no longer expands to, a module that does not build, code the run
/// cannot follow). The inputs the run reads are drawn again from the seed the report keeps (`estimate`'s
/// where it keeps none: reports from before it did).
pub fn rebuild(path: &Path, report_path: &Path, report: &Report, names: Names) -> Result<Vec<Option<Rebuilt>>> {
    let name = KernelFile::load(path, &[])?.name;
    let mut out: Vec<Option<Rebuilt>> = report.records.iter().map(|_| None).collect();
    // The file's records by problem, in order of first appearance.
    let mut problems: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, r) in report.records.iter().enumerate().filter(|(_, r)| r.kernel == name && r.block.is_some()) {
        match problems.iter_mut().find(|(p, _)| *p == r.problem) {
            Some((_, v)) => v.push(i),
            None => problems.push((&r.problem, vec![i])),
        }
    }
    if problems.is_empty() {
        let mut theirs: Vec<&str> = report.records.iter().map(|r| r.kernel.as_str()).collect();
        theirs.dedup();
        return Err(Error::usage(format!(
            "{}: none of its records is of the file's kernel '{name}' ({} names it; the records' kernels: {})",
            report_path.display(),
            path.display(),
            theirs.join(", ")
        )));
    }
    let arch = crate::model::arch::nearest(report.device.cc());
    let nvrtc = Nvrtc::load();
    let compiler = nvrtc.as_ref().ok().map(|n| n as &dyn Compiler);
    let target = compile::Target { cc: arch.cc, driver: "none".into() };
    let seed = report.timing.as_ref().and_then(|t| t.seed).unwrap_or(SEED);
    for (problem, records) in problems {
        let file = KernelFile::load(path, &sizes(problem)?)?;
        let rs: Vec<&Record> = records.iter().map(|&i| &report.records[i]).collect();
        let mut blocks: Vec<Dim3> = Vec::new();
        for b in rs.iter().filter_map(|r| r.block) {
            if !blocks.contains(&b) {
                blocks.push(b);
            }
        }
        let ex = file.expand(Some(&blocks), &defines(&rs), names)?;
        let built = compile::build_used(&file, &ex.modules, &ex.configs, &target, compiler, &Cache::user());
        let data = Inputs::new(seed);
        let named: Vec<Record> = ex.configs.iter().map(|c| super::sweep::record_of(&file, c, Status::Ok)).collect();
        for (&i, r) in records.iter().zip(&rs) {
            let at = ex.configs.iter().zip(&named).position(|(c, n)| Some(c.block) == r.block && n.params == r.params);
            out[i] = Some(match at {
                None => Err(format!("{} no longer expands to its configuration", path.display())),
                Some(k) => {
                    let c = &ex.configs[k];
                    modelled(&file, c, built.get(c.module), arch.max_threads_per_block, ASSUMED_REGISTERS, &data)
                        .map(|(k, a)| (Box::new(k) as Box<dyn crate::kernels::Kernel>, a))
                }
            });
        }
    }
    Ok(out)
}

/// A kernel file's record's problem (`nx=4096, ny=2048`) as the sizes that make it again.
fn sizes(problem: &str) -> Result<Vec<(String, String)>> {
    if problem.is_empty() {
        return Ok(Vec::new());
    }
    problem
        .split(", ")
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => Ok((k.to_string(), v.to_string())),
            None => Err(Error::usage(format!("problem '{problem}' is not a kernel file's sizes (name=value, ...)"))),
        })
        .collect()
}

/// Every parameter's values among `records`, as `--define` would give them.
fn defines(records: &[&Record]) -> Vec<(String, Vec<Value>)> {
    let mut by: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (k, v) in records.iter().filter_map(|r| r.params.as_ref()).flatten() {
        let value = match v {
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(0.0)),
            },
            serde_json::Value::String(s) => Value::Str(s.clone()),
            other => Value::Str(other.to_string()),
        };
        let vs = by.entry(k.clone()).or_default();
        if !vs.contains(&value) {
            vs.push(value);
        }
    }
    by.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_records_problem_and_parameters_give_the_sizes_and_defines_again() {
        assert_eq!(sizes("nx=4096, ny=2048").unwrap(), [("nx".into(), "4096".into()), ("ny".into(), "2048".into())]);
        assert!(sizes("4096x2048").is_err());
        let mut a = Record::new("k", "n=8", Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), Status::Ok);
        let mut b = a.clone();
        a.params = Some([("T".to_string(), serde_json::json!(1)), ("ty".into(), serde_json::json!("float"))].into());
        b.params = Some([("T".to_string(), serde_json::json!(32)), ("ty".into(), serde_json::json!("float"))].into());
        assert_eq!(
            defines(&[&a, &b, &a]),
            [
                ("T".to_string(), vec![Value::Int(1), Value::Int(32)]),
                ("ty".to_string(), vec![Value::Str("float".into())])
            ]
        );
    }
}
