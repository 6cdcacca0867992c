//! Entry points for fuzzing the parsers that read user input — block lists, experiment files, ncu and
//! nvprof CSV, result files and their header checks (resume, merge), output paths — from arbitrary bytes. The cargo-fuzz targets (fuzz/) and the stable
//! fuzz test run in CI (tests/fuzz.rs) both call these; none may panic, whatever the input.

use std::path::Path;

use crate::record::Report;
use crate::{import, merge, output, report, resume, runspec, spec};

fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// `--block`, `--bx/--by/--bz` (one per line of the input) and single shapes.
pub fn block_lists(data: &[u8]) {
    let s = text(data);
    let mut lines = s.splitn(4, '\n');
    let (block, bx, by, bz) = (lines.next(), lines.next(), lines.next(), lines.next());
    let _ = spec::blocks_from(block, None, None, None);
    let _ = spec::blocks_from(None, bx.or(block), by, bz);
    let _ = spec::parse_int_list(&s);
    let _ = s.parse::<spec::Dim3>();
}

/// Experiment files, and the command lines of those that parse.
pub fn experiment_file(data: &[u8]) {
    if let Ok(spec) = runspec::ExperimentFile::parse(&text(data)) {
        for step in &spec.steps {
            let _ = step.argv(std::path::Path::new("out"));
        }
    }
}

/// Every importer: nvprof and ncu output in each format, detected from the content.
pub fn importer(data: &[u8]) {
    let _ = import::parse(&text(data));
}

/// warpscope's own result files: JSON Lines and JSON reports.
pub fn records(data: &[u8]) {
    let s = text(data);
    let _ = report::jsonl::parse(&s);
    let _ = serde_json::from_str::<Report>(&s);
}

/// The checks a result file meets before `sweep --resume` or `merge` takes it: schema version, an empty
/// file, records of another sweep or device, missing or out-of-range indices, records measured twice.
pub fn result_headers(data: &[u8]) {
    let path = Path::new("fuzz.json");
    let Ok(r) = report::parse(&text(data)) else { return };
    if let Some(first) = r.records.first() {
        let _ = resume::check_sweep(&r, path, &first.kernel, &first.problem);
    }
    let _ = resume::check_sweep(&r, path, "sumMatrixOnGPU2D", "16384x16384");
    let _ = resume::check_device(&r, path, &crate::gpu::DeviceInfo::unknown());
    let _ = merge::check_input(path, &r);
    let _ = merge::missing(&r.records);
    if let Ok(m) = merge::merge(vec![r.clone(), r]) {
        let _ = merge::missing(&m.records);
    }
}

/// The check that no output of a run is one of its inputs or another output: the first line of the
/// input lists input paths (separated by `|`), the rest output paths. Only reads the file system.
pub fn output_paths(data: &[u8]) {
    let s = text(data);
    let mut lines = s.lines();
    let named = |p: &str| -> Vec<String> { p.split('|').map(str::to_string).collect() };
    let inputs = named(lines.next().unwrap_or(""));
    let outputs: Vec<String> = lines.map(str::to_string).collect();
    let inputs: Vec<output::Named<'_>> =
        inputs.iter().map(|p| output::Named { what: "FILE", path: Path::new(p) }).collect();
    let outputs: Vec<output::Named<'_>> =
        outputs.iter().map(|p| output::Named { what: "-o", path: Path::new(p) }).collect();
    let _ = output::check_distinct(&inputs, &outputs);
    for o in &outputs {
        let _ = output::resolve(o.path);
    }
}
