//! Output formats: every one reads the same [`Report`]; each lives in its own file and writes to any
//! `io::Write`. Files are written whole or not at all ([`crate::outfile`]).

pub mod csv;
pub mod figures;
mod json;
pub mod jsonl;
pub mod plot;
mod table;

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use crate::error::{Error, Result};
use crate::outfile::OutFile;
use crate::record::Report;

pub use crate::outfile::{check_writable, write_bytes};
pub use table::{format_value, seed_header};

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
    let io = |e: io::Error| Error::Output(e.to_string());
    match format {
        Format::Table => table::write(report, table::Flavor::Text, w),
        Format::Markdown => table::write(report, table::Flavor::Markdown, w),
        Format::Csv => csv::write(report, w),
        Format::Json => json::write(report, w),
        Format::Jsonl => jsonl::write(report, w),
    }?;
    w.flush().map_err(io)
}

/// Writes `report` to `path`, whole or not at all (see [`crate::outfile`]).
pub fn write_file(report: &Report, format: Format, path: &Path) -> Result<()> {
    let out = OutFile::new(path);
    let written = fs::File::create(out.target())
        .map_err(|source| Error::Io { path: path.display().to_string(), source })
        .and_then(|f| {
            let mut f = io::BufWriter::new(f);
            write(report, format, &mut f)?;
            f.into_inner().map_err(|e| Error::Output(e.to_string())).map(drop)
        })
        .map_err(|e| match e {
            Error::Output(why) => Error::Output(format!("{}: {why}", path.display())),
            e => e,
        });
    out.finish(written)
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

/// A JSON report or JSON Lines records from their text.
pub fn parse(text: &str) -> Result<Report> {
    if is_json_report(text) {
        return serde_json::from_str(text).map_err(|e| Error::usage(format!("not a warpscope JSON report: {e}")));
    }
    let records = jsonl::parse(text)?;
    let mut report = Report::new(crate::gpu::DeviceInfo::unknown());
    report.records = records;
    Ok(report)
}
