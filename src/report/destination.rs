//! Where a command's report goes and how loudly it works on the way: the format, the file (or
//! standard output), `--quiet` and `--verbose`, and what follows from them (per-configuration lines on
//! standard output or standard error, JSON Lines streamed as records finish, the progress bar).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use super::Format;
use crate::error::Result;
use crate::output::{self, note};
use crate::record::Report;

/// Where the report goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Destination {
    /// The report's format.
    pub format: Format,
    /// The file (`None` or `-`: standard output).
    pub path: Option<PathBuf>,
    /// Print nothing but the report.
    pub quiet: bool,
    /// Also print how long each set-up step took.
    pub verbose: bool,
}

impl Destination {
    /// Where the report goes: a file, or `-` for standard output.
    pub fn dest(&self) -> &Path {
        self.path.as_deref().unwrap_or(Path::new(output::STDOUT))
    }

    /// Whether the report goes to standard output.
    pub fn to_stdout(&self) -> bool {
        output::is_stdout(self.dest())
    }

    /// The report's destination in words.
    pub fn dest_name(&self) -> String {
        if self.to_stdout() { "standard output".into() } else { self.dest().display().to_string() }
    }

    /// The file the report goes to (`None`: standard output).
    pub fn file(&self) -> Option<&Path> {
        self.path.as_deref().filter(|p| !output::is_stdout(p))
    }

    /// Where JSON Lines go as records finish (`--format jsonl`): the output file — appended to when
    /// `append` (resuming into the same file), else created — or standard output. `None` for the
    /// formats written once at the end.
    pub fn stream(&self, append: bool) -> Result<Option<Box<dyn Write + Send>>> {
        if self.format != Format::Jsonl {
            return Ok(None);
        }
        output::stream(self.dest(), append).map(Some)
    }

    /// Whether per-config lines may go to standard output (they go to standard error when stdout
    /// carries a machine-readable report).
    fn lines_to_stdout(&self) -> bool {
        !self.to_stdout() || self.format == Format::Table
    }

    /// Prints a per-configuration line unless quiet.
    pub fn line(&self, s: &str) {
        if self.quiet {
            return;
        }
        if self.lines_to_stdout() {
            output::progress_line(s);
        } else {
            note(s);
        }
    }

    /// A progress bar on standard error for `total` configurations (configurations done, elapsed,
    /// ETA); hidden when quiet or when standard error is not a terminal.
    pub fn progress(&self, total: usize) -> indicatif::ProgressBar {
        progress_bar(self.quiet, total)
    }

    /// Checks, before any work, that the report can be written where asked.
    pub fn check(&self) -> Result<()> {
        output::check_writable(self.dest())
    }

    /// Writes the report where asked.
    pub fn emit(&self, report: &Report) -> Result<()> {
        super::write_file(report, self.format, self.dest())?;
        if let Some(path) = self.file().filter(|_| !self.quiet) {
            note(&format!("wrote {}", path.display()));
        }
        Ok(())
    }
}

/// A progress bar on standard error for `total` steps; hidden when quiet or when standard error is
/// not a terminal.
pub fn progress_bar(quiet: bool, total: usize) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(Some(total as u64), indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} configs, {elapsed} elapsed, ETA {eta}")
    {
        bar.set_style(style);
    }
    bar
}
