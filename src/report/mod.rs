//! Output formats: every one reads the same [`Report`]; each lives in its own file and writes to any
//! `io::Write`. Files are written whole or not at all ([`crate::outfile`]).

pub mod csv;
mod destination;
pub mod figures;
pub mod html;
mod json;
pub mod jsonl;
pub mod listing;
pub mod listings;
mod page;
pub mod plot;
mod table;
mod visuals;

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};
use crate::record::{Report, SCHEMA_VERSION};

pub use crate::output::check_writable;
pub use destination::{Destination, progress_bar};
pub use page::results_page;
pub use table::{format_value, seed_header};
pub use visuals::{Visuals, check_plot};

/// Output formats of `sweep`, `run`, `estimate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// nvprof-like text table.
    Table,
    /// One row per configuration, one column per value.
    Csv,
    /// The schema-versioned report.
    Json,
    /// A GitHub-flavoured Markdown table.
    Markdown,
    /// One JSON record per line (`sweep` and `run` write each as it finishes).
    Jsonl,
}

impl std::str::FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "table" => Ok(Format::Table),
            "csv" => Ok(Format::Csv),
            "json" => Ok(Format::Json),
            "markdown" | "md" => Ok(Format::Markdown),
            "jsonl" => Ok(Format::Jsonl),
            _ => Err(Error::usage(format!("unknown format '{s}' (known: table, csv, json, markdown, jsonl)"))),
        }
    }
}

/// Writes `report` in `format` to `w`.
pub fn write(report: &Report, format: Format, w: &mut dyn Write) -> Result<()> {
    let io = |e: std::io::Error| Error::Output(e.to_string());
    match format {
        Format::Table => table::write(report, table::Flavor::Text, w),
        Format::Markdown => table::write(report, table::Flavor::Markdown, w),
        Format::Csv => csv::write(report, w),
        Format::Json => json::write(report, w),
        Format::Jsonl => jsonl::write(report, w),
    }?;
    w.flush().map_err(io)
}

/// `report` in `format`, as the bytes a file or standard output receives.
pub fn render(report: &Report, format: Format) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    write(report, format, &mut bytes)?;
    Ok(bytes)
}

/// Writes `report` to `path` (`-`: standard output), a file whole or not at all (see [`crate::output`]).
pub fn write_file(report: &Report, format: Format, path: &Path) -> Result<()> {
    crate::output::emit(path, &render(report, format)?)
}

/// Just the version of a JSON report.
#[derive(serde::Deserialize)]
struct Versioned {
    schema_version: u32,
}

/// A warpscope report read back: a JSON report, or JSON Lines records (then the device is unknown).
pub fn read(path: &Path) -> Result<Report> {
    let text = fs::read_to_string(path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
    parse(&text).map_err(|e| Error::usage(format!("{}: {e}", path.display())))
}

/// Whether `text` is a whole JSON report (one pretty-printed object) rather than JSON Lines (a whole
/// record on each line).
pub fn is_json_report(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    first.trim() == "{" || first.contains("\"schema_version\"")
}

/// A warpscope report from its text: a JSON report of a schema version up to this warpscope's, or
/// JSON Lines records.
pub fn parse(text: &str) -> Result<Report> {
    if is_json_report(text) {
        // The version first: a newer warpscope's report may not parse as this one's.
        let version = serde_json::from_str::<Versioned>(text).ok().map(|v| v.schema_version);
        if let Some(v) = version.filter(|&v| v > SCHEMA_VERSION) {
            return Err(Error::usage(format!(
                "schema_version {v} is newer than this warpscope's ({SCHEMA_VERSION}): read it with a newer warpscope"
            )));
        }
        return serde_json::from_str(text).map_err(|e| Error::usage(format!("not a warpscope JSON report: {e}")));
    }
    let records = jsonl::parse(text)?;
    let mut report = Report::new(crate::gpu::DeviceInfo::unknown());
    report.records = records;
    Ok(report)
}
