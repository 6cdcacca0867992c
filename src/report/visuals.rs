//! The figure and the HTML page a command asks for beside its report (`--plot`, `--html`): checked before
//! any work, written from the finished report, so a sweep session and every command draw them alike.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::output::{self, Named};
use crate::record::{Report, Status};
use crate::report::{figures, html};

/// What to draw beside a report, and where.
#[derive(Clone, Debug, Default)]
pub struct Visuals {
    /// The figure (.svg or .png).
    pub plot: Option<PathBuf>,
    /// The self-contained HTML report.
    pub html: Option<PathBuf>,
    /// How the figures arrange the configurations.
    pub options: figures::Options,
    /// The command line the page names as its origin.
    pub command_line: String,
}

impl Visuals {
    /// The files asked for, named by their flag (for the check that outputs are distinct).
    pub fn outputs(&self) -> Vec<Named<'_>> {
        let named = [("--plot", self.plot.as_deref()), ("--html", self.html.as_deref())];
        named.into_iter().filter_map(|(what, path)| Some(Named { what, path: path? })).collect()
    }

    /// Fails now, before any work, if the figure or the page could not be written later.
    pub fn check(&self) -> Result<()> {
        check_plot(self.plot.as_deref())?;
        if let Some(p) = &self.html {
            output::check_writable(p)?;
        }
        Ok(())
    }

    /// Draws the figure and writes the page of `report`, as asked.
    pub fn emit(&self, report: &Report) -> Result<()> {
        if self.plot.is_none() && self.html.is_none() {
            return Ok(());
        }
        let known = figures::heatmap_names(report);
        for h in self.options.heatmaps.iter().filter(|h| !known.contains(h)) {
            output::note(&format!("warning: no heatmap of {h}: no record has it (there are: {})", known.join(", ")));
        }
        if let Some(path) = &self.plot {
            if report.records.iter().any(|r| r.status == Status::Ok) {
                figures::report(report, &self.options).draw(path)?;
                output::note(&format!("wrote {}", path.display()));
            } else {
                // Nothing verified, nothing to draw: the report says why, and the exit code stays the report's.
                output::note(&format!("warning: no figure drawn to {}: no configuration verified", path.display()));
            }
        }
        if let Some(path) = &self.html {
            html::write(&html::report_page(report, &self.options, &self.command_line)?, path)?;
            if !output::is_stdout(path) {
                output::note(&format!("wrote {}", path.display()));
            }
        }
        Ok(())
    }
}

/// Fails now, before any measuring, if a figure could not be drawn to `path` later (extension, folder).
pub fn check_plot(path: Option<&Path>) -> Result<()> {
    let Some(path) = path else { return Ok(()) };
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("svg" | "png") => output::check_writable(path),
        _ => Err(Error::usage(format!("cannot plot to {}: use a .svg or .png file name", path.display()))),
    }
}
