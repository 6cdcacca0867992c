//! `warpscope report`: the self-contained HTML page (and figure) of one results file, or the page of a
//! folder of them (a run-spec results folder: every .json and .jsonl in it), each file a section.

use std::path::{Path, PathBuf};

use super::Visuals;
use super::html::{self, Block, Part};
use crate::Outcome;
use crate::error::{Error, Input, Names, Result};
use crate::output::{self, note};

/// Writes the page of `results` (a file or a folder) as `visuals` asks: its `html` file, and its `plot`
/// for a file; `names` is how the front end names the inputs.
pub fn results_page(results: &Path, visuals: &Visuals, names: Names) -> Result<Outcome> {
    visuals.check()?;
    if !results.is_dir() {
        visuals.emit(&crate::import::read_file(results, None)?.1)?;
        return Ok(Outcome::Ok);
    }
    if visuals.plot.is_some() {
        return Err(Error::usage(format!(
            "{} draws the figure of one results file: give a file, not a folder",
            names(Input::Plot)
        )));
    }
    let mut parts = Vec::new();
    for f in folder(results)? {
        let name = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        match crate::import::read_file(&f, None).map(|(_, r)| r) {
            Ok(r) => {
                parts.push(Part { heading: name, intro: vec![Block::Text(f.display().to_string())], report: Some(r) })
            }
            Err(e) => note(&format!("warning: {} left out: {e}", f.display())),
        }
    }
    let Some(page) = &visuals.html else { return Err(Error::internal("a results page without its file")) };
    let subtitle = format!("{} — written {}", visuals.command_line, html::utc(std::time::SystemTime::now()));
    let title = format!("warpscope: {}", results.display());
    html::write(&html::parts_page(&title, &subtitle, parts, &visuals.options)?, page)?;
    if !output::is_stdout(page) {
        note(&format!("wrote {}", page.display()));
    }
    Ok(Outcome::Ok)
}

/// The results files of a folder: its warpscope reports and JSON Lines, by name.
fn folder(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io { path: dir.display().to_string(), source })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && matches!(p.extension().and_then(|e| e.to_str()), Some("json" | "jsonl")))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Error::usage(format!("{}: no .json or .jsonl results in this folder", dir.display())));
    }
    Ok(files)
}
