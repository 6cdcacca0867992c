//! JSON Lines: one record per line, nothing else, so a sweep can stream them as they finish and a
//! killed run leaves every finished configuration readable (`--resume` reads them back).

use std::io::Write;

use crate::error::{Error, Result};
use crate::record::{Record, Report};

/// One record as one line (with its newline).
pub fn line(record: &Record) -> Result<String> {
    let mut s = serde_json::to_string(record).map_err(|e| Error::Output(e.to_string()))?;
    s.push('\n');
    Ok(s)
}

pub(super) fn write(report: &Report, w: &mut dyn Write) -> Result<()> {
    for r in &report.records {
        w.write_all(line(r)?.as_bytes()).map_err(|e| Error::Output(e.to_string()))?;
    }
    Ok(())
}

/// Records of a JSON Lines text; blank lines are skipped, a torn last line (a run killed mid-write)
/// is dropped, any other bad line is an error naming its number.
pub fn parse(text: &str) -> Result<Vec<Record>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(l) {
            Ok(r) => out.push(r),
            Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => break,
            Err(e) => return Err(Error::usage(format!("line {}: not a warpscope record: {e}", i + 1))),
        }
    }
    Ok(out)
}
