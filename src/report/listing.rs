//! The tables of every command but the sweep's (archs, metrics, occupancy, compare, ...): each command's
//! rows serialize, and one writer prints them as a text table, CSV or JSON, so a format is added here once.

use serde::Serialize;
use tabled::builder::Builder;
use tabled::settings::Style;

use crate::error::{Error, Result};

/// How a listing is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListingFormat {
    /// Text tables (psql style) with their notes.
    Table,
    /// One CSV table, a header and a line per row.
    Csv,
    /// The rows as pretty-printed JSON.
    Json,
    /// Text tables as GitHub-flavoured Markdown, with their notes.
    Markdown,
}

/// A table of text cells: a header and rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cells {
    /// Column names.
    pub header: Vec<String>,
    /// One entry per column in each row.
    pub rows: Vec<Vec<String>>,
}

impl Cells {
    /// An empty table with these column names.
    pub fn new(header: &[&str]) -> Self {
        Cells { header: header.iter().map(|h| h.to_string()).collect(), rows: Vec::new() }
    }

    /// Adds a row.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }
}

/// One piece of a text listing, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// A line of text (a title or a note).
    Line(String),
    /// A table.
    Table(Cells),
}

/// What a command prints: rows that serialize, shown as text tables, CSV and JSON.
pub trait Listing {
    /// The rows as pretty-printed JSON (fields in their declared order).
    fn json(&self) -> Result<String>;
    /// The text form: tables with their titles and notes.
    fn text(&self) -> Vec<Part>;
    /// The CSV form; `None` where the command has none.
    fn csv(&self) -> Option<Cells> {
        None
    }
}

/// Text that is only text (a description, not rows): its parts as they are; no CSV, and its JSON is the
/// lines and tables as arrays.
impl Listing for &[Part] {
    fn json(&self) -> Result<String> {
        let value: Vec<serde_json::Value> = self
            .iter()
            .map(|p| match p {
                Part::Line(l) => serde_json::Value::from(l.as_str()),
                Part::Table(c) => serde_json::json!({ "header": c.header, "rows": c.rows }),
            })
            .collect();
        to_json(&value)
    }

    fn text(&self) -> Vec<Part> {
        self.to_vec()
    }
}

/// `value` as the JSON a listing writes.
pub fn to_json(value: &(impl Serialize + ?Sized)) -> Result<String> {
    serde_json::to_string_pretty(value).map_err(|e| Error::Output(e.to_string()))
}

/// `listing` in `format`, as the text standard output receives.
pub fn render(listing: &dyn Listing, format: ListingFormat) -> Result<String> {
    let out = |e: &dyn std::fmt::Display| Error::Output(e.to_string());
    match format {
        ListingFormat::Json => Ok(listing.json()? + "\n"),
        ListingFormat::Csv => {
            let cells = listing.csv().ok_or_else(|| Error::usage("this command has no CSV form"))?;
            let mut w = csv::Writer::from_writer(Vec::new());
            for row in std::iter::once(&cells.header).chain(&cells.rows) {
                w.write_record(row).map_err(|e| out(&e))?;
            }
            let bytes = w.into_inner().map_err(|e| out(&e))?;
            String::from_utf8(bytes).map_err(|e| out(&e))
        }
        ListingFormat::Table | ListingFormat::Markdown => Ok(listing
            .text()
            .into_iter()
            .map(|part| match part {
                Part::Line(line) => line + "\n",
                Part::Table(cells) => {
                    let mut b = Builder::default();
                    b.push_record(cells.header);
                    for row in cells.rows {
                        b.push_record(row);
                    }
                    let mut t = b.build();
                    if format == ListingFormat::Markdown {
                        t.with(Style::markdown());
                    } else {
                        t.with(Style::psql());
                    }
                    format!("{t}\n")
                }
            })
            .collect()),
    }
}

/// Prints `listing` in `format` to standard output.
pub fn print(listing: &dyn Listing, format: ListingFormat) -> Result<()> {
    crate::output::print(&render(listing, format)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Two;

    impl Listing for Two {
        fn json(&self) -> Result<String> {
            to_json(&vec![("a", 1), ("b,c", 2)])
        }
        fn text(&self) -> Vec<Part> {
            let mut t = Cells::new(&["name", "n"]);
            t.push(vec!["a".into(), "1".into()]);
            vec![Part::Line("title".into()), Part::Table(t), Part::Line("note".into())]
        }
        fn csv(&self) -> Option<Cells> {
            let mut t = Cells::new(&["name", "n"]);
            t.push(vec!["b,c".into(), "2".into()]);
            Some(t)
        }
    }

    #[test]
    fn each_format_is_written_by_its_own_writer() {
        assert_eq!(render(&Two, ListingFormat::Csv).unwrap(), "name,n\n\"b,c\",2\n");
        let json: serde_json::Value = serde_json::from_str(&render(&Two, ListingFormat::Json).unwrap()).unwrap();
        assert_eq!(json, serde_json::json!([["a", 1], ["b,c", 2]]));
        let text = render(&Two, ListingFormat::Table).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines, ["title", " name | n ", "------+---", " a    | 1 ", "note"]);
    }
}
