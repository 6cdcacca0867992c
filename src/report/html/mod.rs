//! The self-contained HTML report (`--html FILE`, `warpscope report`): one file with no external
//! resources — the run's device and settings, its figures inline as SVG, a table of every record with
//! the provenance of each value (measured, estimated, imported, mock), each invalid or failed
//! configuration with its reason, and the raw timing samples of each configuration on demand
//! (`<details>`). It reads whole without JavaScript; a small inline script sorts and filters the
//! tables. The markup is also well-formed XML, so that tests read it back with an XML parser.

mod markup;
mod pages;

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::Result;
use crate::record::Source;

pub use pages::{Part, baseline_page, comparison_page, parts_page, records_table, report_page, report_sections};

/// One value of a table cell: what is shown, the number it stands for (sorting, reading back), the
/// source it comes from, and what opens under it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    /// Text shown.
    pub text: String,
    /// The exact value (`data-value`), for sorting and for reading the page back.
    pub value: Option<f64>,
    /// Where the value comes from (`src-...` class).
    pub source: Option<Source>,
    /// A `<details>` block: summary and body.
    pub details: Option<(String, String)>,
}

impl Cell {
    pub(super) fn text(t: impl Into<String>) -> Self {
        Cell { text: t.into(), ..Cell::default() }
    }

    pub(super) fn num(v: f64, text: String, source: Option<Source>) -> Self {
        Cell { text, value: Some(v), source, details: None }
    }

    /// A block shape (`32x16`), sorted by its threads; `-` where the source does not say.
    pub(super) fn block(b: Option<crate::spec::Dim3>) -> Self {
        match b {
            Some(b) => Cell::num(b.volume() as f64, b.to_string(), None),
            None => Cell::text("-"),
        }
    }
}

/// A table column.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Header.
    pub label: String,
    /// A second header line (unit and source).
    pub sub: String,
    /// Numbers, right-aligned.
    pub numeric: bool,
}

pub(super) fn col(label: &str, sub: &str, numeric: bool) -> Column {
    Column { label: label.into(), sub: sub.into(), numeric }
}

/// A row: its status and provenance (for the filters), and its cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// `ok`, `invalid`, `failed` (or a comparison's own words).
    pub status: String,
    /// The sources of its values, space-separated.
    pub provenance: String,
    /// One cell per column.
    pub cells: Vec<Cell>,
}

/// A sortable, filterable table.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Columns.
    pub columns: Vec<Column>,
    /// Rows.
    pub rows: Vec<Row>,
}

/// A part of a section.
pub enum Block {
    /// Name-value pairs (device, settings).
    Facts(Vec<(String, String)>),
    /// A paragraph.
    Text(String),
    /// Preformatted text (a command's printed output).
    Pre(String),
    /// Figures: (caption, SVG).
    Figures(Vec<(String, String)>),
    /// A table of records.
    Table(Table),
    /// Configurations that did not run or did not verify: (configuration, status, reason).
    Problems(Vec<(String, String, String)>),
}

/// A titled part of the page, with its own parts nested under it.
pub struct Section {
    /// Heading.
    pub heading: String,
    /// Contents.
    pub blocks: Vec<Block>,
    /// Subsections.
    pub sub: Vec<Section>,
}

/// A whole page.
pub struct Page {
    /// Title (and first heading).
    pub title: String,
    /// The line under it.
    pub subtitle: String,
    /// Sections.
    pub sections: Vec<Section>,
}

/// `YYYY-MM-DD HH:MM UTC` of a time (the civil calendar from days since 1970, proleptic Gregorian).
pub fn utc(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02} UTC", rem / 3600, rem % 3600 / 60)
}
/// The page as HTML (also well-formed XML).
pub fn render(page: &Page) -> String {
    markup::render(page)
}

/// Writes the page to `path` (`-`: standard output), whole or not at all.
pub fn write(page: &Page, path: &Path) -> Result<()> {
    crate::output::emit(path, render(page).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(UNIX_EPOCH), "1970-01-01 00:00 UTC");
        assert_eq!(utc(UNIX_EPOCH + std::time::Duration::from_secs(1_795_312_800)), "2026-11-22 02:00 UTC");
        assert_eq!(utc(UNIX_EPOCH + std::time::Duration::from_secs(951_782_400)), "2000-02-29 00:00 UTC");
    }
}
