//! `warpscope compare` once its arguments are checked: two files side by side (or a run against its
//! baseline), printed as a listing, drawn, written as a page, and judged against `--fail-above`.

use std::path::Path;

use super::{Pick, compare, label};
use crate::Outcome;
use crate::baseline::{self, Verdict};
use crate::error::{Error, Input, Names, Result};
use crate::import::{self, Format};
use crate::output::note;
use crate::report::listing::{ListingFormat, print};
use crate::report::listings::{Changes, ComparisonListing};
use crate::report::{self, figures, html};

/// What to compare and how to show it.
pub struct Request<'a> {
    /// The first file (warpscope's results, or any file `import` reads).
    pub results: &'a Path,
    /// The second file, to compare with side by side.
    pub other: Option<&'a Path>,
    /// An earlier warpscope run of the same configurations, to compare times with instead.
    pub baseline: Option<&'a Path>,
    /// The second file's format, instead of detecting it.
    pub from: Option<Format>,
    /// Which of warpscope's values to compare.
    pub pick: Pick,
    /// The largest delta that passes (percentage points for percentages, else %); with a baseline, the
    /// largest slowdown in %.
    pub fail_above: Option<f64>,
    /// Kernels by their full signatures in the text table.
    pub full_names: bool,
    /// How the rows are printed.
    pub format: ListingFormat,
    /// Where to draw the deltas.
    pub plot: Option<&'a Path>,
    /// Where to write the page.
    pub html: Option<&'a Path>,
    /// The command line, for the page's footer.
    pub command_line: &'a str,
    /// The front end's names of the inputs, for the page that names the threshold.
    pub names: Names,
}

impl Request<'_> {
    /// Compares, prints, draws and writes; `CheckFailed` when a delta is past `fail_above`.
    pub fn run(&self) -> Result<Outcome> {
        match (self.baseline, self.other) {
            (Some(old), _) => self.against_baseline(old),
            (None, Some(other)) => self.side_by_side(other),
            (None, None) => Err(Error::internal("compare without a second file or a baseline")),
        }
    }

    /// A run against its baseline: each configuration's change of median time, judged against the noise.
    fn against_baseline(&self, old: &Path) -> Result<Outcome> {
        let limit = self.fail_above;
        let (old_report, new_report) = (report::read(old)?, report::read(self.results)?);
        let (changes, unmatched) = baseline::diff(&old_report, &new_report);
        for u in &unmatched {
            note(&format!("unmatched: {u} (not timed in {})", old.display()));
        }
        if changes.is_empty() {
            return Err(Error::usage(format!(
                "nothing to compare: no timed configuration of {} is timed in {}",
                self.results.display(),
                old.display()
            )));
        }
        print(&Changes(&changes), self.format)?;
        let count = |v: Verdict| changes.iter().filter(|c| c.verdict == v).count();
        note(&format!(
            "{} faster, {} slower, {} within the noise",
            count(Verdict::Faster),
            count(Verdict::Slower),
            count(Verdict::Same)
        ));
        if let Some(path) = self.plot {
            figures::baseline(&changes, limit).draw(path)?;
            note(&format!("wrote {}", path.display()));
        }
        if let Some(path) = self.html {
            html::write(&html::baseline_page(&old_report, &new_report, &changes, limit, self.command_line)?, path)?;
            note(&format!("wrote {}", path.display()));
        }
        let regressed =
            limit.map_or(0, |l| changes.iter().filter(|c| c.verdict == Verdict::Slower && c.change_pct > l).count());
        Ok(if regressed > 0 {
            note(&format!("{regressed} configuration(s) slower by more than {}%", limit.unwrap_or_default()));
            Outcome::CheckFailed
        } else {
            Outcome::Ok
        })
    }

    /// Two files side by side, kernel by kernel.
    fn side_by_side(&self, other: &Path) -> Result<Outcome> {
        let (_, ours) = import::read_file(self.results, None)?;
        let (_, theirs) = import::read_file(other, self.from)?;
        let cmp = compare(&ours, &theirs, self.pick);
        for u in &cmp.unmatched {
            note(&format!("unmatched: {u}"));
        }
        if let Some(h) = &cmp.hint {
            note(&format!("hint: {h}"));
        }
        if cmp.rows.is_empty() {
            return Err(Error::usage(format!(
                "nothing to compare: no configuration of {} pairs with one of {} with a common metric",
                other.display(),
                self.results.display()
            )));
        }
        let (mut ta, mut tb) = (label(&ours).to_string(), label(&theirs).to_string());
        if ta == tb {
            (ta, tb) = (format!("{ta} (1)"), format!("{tb} (2)"));
        }
        print(&ComparisonListing { cmp: &cmp, labels: [&ta, &tb], full_names: self.full_names }, self.format)?;
        if let Some(path) = self.plot {
            figures::comparison(&cmp, self.fail_above, [&ta, &tb]).draw(path)?;
            note(&format!("wrote {}", path.display()));
        }
        if let Some(path) = self.html {
            html::write(
                &html::comparison_page(
                    &ours,
                    &theirs,
                    &cmp,
                    (self.fail_above, (self.names)(Input::FailAbove)),
                    [&ta, &tb],
                    self.command_line,
                )?,
                path,
            )?;
            note(&format!("wrote {}", path.display()));
        }
        Ok(match self.fail_above {
            Some(limit) => {
                let bad = cmp.above(limit);
                if bad.is_empty() {
                    note(&format!("all {} deltas within {limit}", cmp.rows.len()));
                    Outcome::Ok
                } else {
                    note(&format!("{} of {} deltas above {limit}", bad.len(), cmp.rows.len()));
                    Outcome::CheckFailed
                }
            }
            None => Outcome::Ok,
        })
    }
}
