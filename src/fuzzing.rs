//! Entry points for fuzzing the parsers that read user input — block lists, experiment files, ncu and
//! nvprof CSV, result files — from arbitrary bytes. The cargo-fuzz targets (fuzz/) and the stable
//! fuzz test run in CI (tests/fuzz.rs) both call these; none may panic, whatever the input.

use crate::record::Report;
use crate::{import, report, runspec, spec};

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
    if let Ok(spec) = runspec::Spec::parse(&text(data)) {
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
