//! A run-spec's results folder, written after its steps ran: `summary.md` (what ran where, each step's
//! table and figure) and the `--html` page (each step's command line, figures and records).

use std::fs;
use std::path::Path;
use std::time::SystemTime;

use super::{ExperimentFile, StepRun, shell_line};
use crate::error::Result;
use crate::gpu::Origin;
use crate::record::Report;
use crate::report::html::{self, Block, Part, utc};
use crate::report::{self, Format};

/// The `error:` line a failed step left in its log (its last), if any.
fn error_line(log: &Path) -> Option<String> {
    let text = fs::read_to_string(log).ok()?;
    text.lines().rev().find(|l| l.starts_with("error: ")).map(str::to_string)
}

/// The report each step wrote, if it writes one.
pub fn step_reports(dir: &Path, outcomes: &[StepRun<'_>]) -> Result<Vec<Option<Report>>> {
    outcomes
        .iter()
        .map(|o| {
            let p = dir.join(format!("{}.json", o.step.name));
            (o.step.reports() && p.exists()).then(|| report::read(&p)).transpose()
        })
        .collect()
}

/// The GPU the steps ran on, with its driver.
fn device_line(reports: &[Option<Report>]) -> String {
    reports
        .iter()
        .flatten()
        .find(|r| r.device.backend != Origin::Model)
        .map(|r| format!("{} ({})", r.device.name, r.device.driver.as_deref().unwrap_or("driver unknown")))
        .unwrap_or_else(|| "no GPU step".into())
}

/// The `--html` page: a section per step, with what it is, its command line and its records (or its
/// printed output).
pub fn page(
    spec: &ExperimentFile,
    file: &Path,
    dir: &Path,
    outcomes: &[StepRun<'_>],
    reports: Vec<Option<Report>>,
    started: SystemTime,
) -> Result<html::Page> {
    let subtitle = format!(
        "{} — `warpscope run-spec {}` on {}, {}",
        spec.about,
        file.display(),
        device_line(&reports),
        utc(started)
    );
    let parts = outcomes
        .iter()
        .zip(reports)
        .map(|(o, report)| {
            let mut intro = Vec::new();
            if !o.step.about.is_empty() {
                intro.push(Block::Text(o.step.about.clone()));
            }
            intro.push(Block::Pre(format!(
                "{}
exit {}, {:.1} s",
                shell_line(&o.argv),
                o.code,
                o.secs
            )));
            if o.code != 0
                && let Some(line) = error_line(&dir.join(format!("{}.log", o.step.name)))
            {
                intro.push(Block::Text(line));
            }
            if report.is_none() {
                let text = fs::read_to_string(dir.join(format!("{}.txt", o.step.name))).unwrap_or_default();
                if !text.trim().is_empty() {
                    intro.push(Block::Pre(text.trim_end().to_string()));
                }
            }
            Part { heading: o.step.name.clone(), intro, report }
        })
        .collect();
    html::parts_page(&format!("warpscope: {}", spec.name), &subtitle, parts, &Default::default())
}

/// The results folder's summary.md: what ran where, and each step's table and figure.
pub fn summary(
    spec: &ExperimentFile,
    file: &Path,
    dir: &Path,
    outcomes: &[StepRun<'_>],
    started: SystemTime,
) -> Result<String> {
    let reports = step_reports(dir, outcomes)?;
    let device = device_line(&reports);
    let mut md = format!(
        "# {}\n\n{}\n\n`warpscope run-spec {}` on {device}, {}, {}.\n",
        spec.name,
        spec.about,
        file.display(),
        utc(started),
        concat!("warpscope ", env!("CARGO_PKG_VERSION"))
    );
    for (o, r) in outcomes.iter().zip(&reports) {
        md += &format!("\n## {}\n\n", o.step.name);
        if !o.step.about.is_empty() {
            md += &format!("{}\n\n", o.step.about);
        }
        md += &format!("`{}` — exit {}, {:.1} s\n\n", shell_line(&o.argv), o.code, o.secs);
        if o.code != 0
            && let Some(line) = error_line(&dir.join(format!("{}.log", o.step.name)))
        {
            md += &format!("**{line}**\n\n");
        }
        match r {
            Some(r) => {
                let mut table = Vec::new();
                report::write(r, Format::Markdown, &mut table)?;
                md += &String::from_utf8_lossy(&table);
            }
            None => {
                let text = fs::read_to_string(dir.join(format!("{}.txt", o.step.name))).unwrap_or_default();
                md += &format!("```text\n{}\n```\n", text.trim_end());
            }
        }
        if o.step.plot && dir.join(format!("{}.svg", o.step.name)).exists() {
            md += &format!("\n![{0}]({0}.svg)\n", o.step.name);
        }
    }
    Ok(md)
}
