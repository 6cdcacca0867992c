//! Output formats: every one reads the same [`Report`]; each lives in its own file and writes to any
//! `io::Write`. Files are written to a temporary name and renamed, so a reader never sees half a file.

mod csv;
pub mod figures;
mod json;
pub mod jsonl;
pub mod plot;
mod table;

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use crate::error::{Error, Result};
use crate::record::Report;

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

/// `.NAME.tmpPID.EXT` beside `path` (the extension kept, for writers that choose a format by it).
pub(crate) fn temp_name(path: &Path) -> std::path::PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp{}{ext}", std::process::id()))
}

/// Writes `bytes` to `path` through a temporary file in the same directory.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_name(path);
    let io_err = |source| Error::Io { path: path.display().to_string(), source };
    if let Err(e) = fs::write(&tmp, bytes) {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(e));
    }
    fs::rename(&tmp, path).map_err(io_err)
}

/// Fails now, before any measuring, if `path` could not be written later.
pub fn check_writable(path: &Path) -> Result<()> {
    let tmp = temp_name(path);
    fs::File::create(&tmp).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
    let _ = fs::remove_file(&tmp);
    Ok(())
}

/// Writes `report` to `path` through a temporary file in the same directory.
pub fn write_file(report: &Report, format: Format, path: &Path) -> Result<()> {
    let tmp = temp_name(path);
    let io_err = |source| Error::Io { path: path.display().to_string(), source };
    let mut f = io::BufWriter::new(fs::File::create(&tmp).map_err(io_err)?);
    let result =
        write(report, format, &mut f).and_then(|_| f.into_inner().map_err(|e| Error::Output(e.to_string())).map(drop));
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fs::rename(&tmp, path).map_err(io_err)
}

/// A warpscope report read back: a JSON report, or JSON Lines records (then the device is unknown).
pub fn read(path: &Path) -> Result<Report> {
    let text = fs::read_to_string(path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
    let bad = |e: String| Error::usage(format!("{}: {e}", path.display()));
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    // A report is one pretty-printed object; a JSON Lines file has a whole record on its first line.
    if first.trim() == "{" || first.contains("\"schema_version\"") {
        return serde_json::from_str(&text).map_err(|e| bad(format!("not a warpscope JSON report: {e}")));
    }
    let records = jsonl::parse(&text).map_err(|e| bad(e.to_string()))?;
    let mut report = Report::new(crate::gpu::DeviceInfo::unknown());
    report.records = records;
    Ok(report)
}
