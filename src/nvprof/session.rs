//! `warpscope nvprof` end to end once its options are parsed: check the output files, run the program
//! under the injection library, and write nvprof's output, the exported reports and the HTML page.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::options::{self, Options};
use super::process::Process;
use super::render::{self, View};
use super::runner::{self, Outcome};
use crate::error::{Error, Result};
use crate::output;
use crate::record::Report;
use crate::report::html;

/// `--query-metrics` and `--query-events`: the metrics (then the events) nvprof would take, for this
/// machine's devices; without a driver, one line saying the list holds for any GPU.
pub fn query(backend: crate::gpu::BackendKind, metrics: bool, events: bool) -> Result<crate::Outcome> {
    let devices = match crate::gpu::list(backend) {
        Ok(list) if !list.is_empty() => list.into_iter().map(|d| (d.ordinal, d.name)).collect(),
        Ok(_) | Err(_) => vec![(0, "any GPU of compute capability 7.5 or newer; no GPU found here".into())],
    };
    let text = if metrics { render::query_metrics(&devices) } else { render::query_events(&devices) };
    output::print(&text)?;
    if metrics && events {
        output::print(&render::query_events(&devices))?;
    }
    Ok(crate::Outcome::Ok)
}

/// Profiles `opts.program` as nvprof would, writes nvprof's output (standard error or the log files), the
/// exported reports and the `html` page (its footer naming `command_line`), and returns the program's exit
/// code as the outcome.
pub fn profile(opts: &Options, html: Option<&Path>, command_line: &str) -> Result<crate::Outcome> {
    let counters = opts.validate()?;
    check_files(opts, html)?;
    let injection = runner::injection_library()?;
    let live = opts.log_file.is_none();
    let mut outcome = runner::run(opts, &counters, &injection, live, &crate::signals::forward_to)?;
    if !opts.demangle {
        mangled_names(&mut outcome.processes);
    }
    let view = View { opts, counters: &counters };
    let host = options::hostname();
    let mut blocks: Vec<(u32, String)> =
        outcome.processes.iter().map(|p| (p.pid, render::process(p, view, live))).collect();
    if outcome.processes.is_empty() {
        blocks.push((outcome.root, render::NO_APPLICATION.to_string()));
    }
    for w in &outcome.warnings {
        blocks.push((outcome.root, render::notice(outcome.root, w)));
    }
    let exported = export(opts, &outcome, &host)?;
    for (pid, line) in exported {
        blocks.push((pid, line));
    }
    if let Some(path) = html {
        let page = html::report_page(&gather(&outcome.processes), &Default::default(), command_line)?;
        html::write(&page, path)?;
        let shown = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        blocks.push((outcome.root, format!("=={}== Generated HTML report: {}\n", outcome.root, shown.display())));
    }
    if !opts.quiet {
        write_out(opts, &host, &blocks)?;
    }
    let errors: Vec<&String> = outcome.processes.iter().flat_map(|p| &p.errors).collect();
    let code = outcome.exit.code();
    if code == 0
        && let Some(e) = errors.first()
    {
        return Err(Error::Driver(format!("nothing could be profiled: {e}")));
    }
    Ok(crate::Outcome::Program(code))
}

/// `--demangling off`: each kernel named by its symbol as the compiler mangled it (where it has one that
/// differs from the demangled name).
fn mangled_names(processes: &mut [Process]) {
    for r in processes.iter_mut().flat_map(|p| p.records.iter_mut()) {
        if let Some(symbol) = r.trace.as_ref().and_then(|t| t.symbol.clone()) {
            r.signature = Some(symbol);
        }
    }
}

/// Refuses, before the program runs, output files that cannot be written or that would overwrite the
/// program or each other (templates compared as expanded for one process).
fn check_files(opts: &Options, html: Option<&Path>) -> Result<()> {
    let host = options::hostname();
    let program = runner::resolve_program(&opts.program)?;
    let expand = |t: &Option<String>| t.as_deref().map(|t| options::expand(t, 0, &host).map(PathBuf::from)).transpose();
    let (log, export) = (expand(&opts.log_file)?, expand(&opts.export)?);
    let mut outputs = Vec::new();
    if let Some(path) = &log {
        output::check_writable(path)?;
        outputs.push(output::Named { what: "--log-file", path });
    }
    if let Some(path) = &export {
        if opts.export.as_deref().is_some_and(|t| !t.contains("%p")) {
            check_export(path, opts.force)?;
        }
        outputs.push(output::Named { what: "--export-profile", path });
    }
    if let Some(path) = html {
        output::check_writable(path)?;
        outputs.push(output::Named { what: "--html", path });
    }
    output::check_distinct(&[output::Named { what: "program", path: &program }], &outputs)
}

fn check_export(path: &Path, force: bool) -> Result<()> {
    if path.exists() && !force {
        return Err(Error::usage(format!("{}: file exists (-f/--force-overwrite replaces it)", path.display())));
    }
    output::check_writable(path)
}

/// Writes the `-o` reports; returns the "Generated result file" lines, by process.
fn export(opts: &Options, outcome: &Outcome, host: &str) -> Result<Vec<(u32, String)>> {
    let Some(template) = &opts.export else { return Ok(Vec::new()) };
    let mut files: BTreeMap<PathBuf, Vec<&Process>> = BTreeMap::new();
    for p in &outcome.processes {
        files.entry(PathBuf::from(options::expand(template, p.pid, host)?)).or_default().push(p);
    }
    let mut lines = Vec::new();
    for (path, processes) in files {
        let (pid, report) = (processes[0].pid, gather(processes));
        if template.contains("%p") {
            check_export(&path, opts.force)?;
        }
        crate::report::write_file(&report, crate::report::Format::Json, &path)?;
        let shown = std::fs::canonicalize(&path).unwrap_or(path);
        lines.push((pid, format!("=={pid}== Generated result file: {}\n", shown.display())));
    }
    Ok(lines)
}

/// The records of `processes` in one report: the first one's device, and every device they used
/// where there are several.
fn gather<'a>(processes: impl IntoIterator<Item = &'a Process>) -> Report {
    let mut report: Option<Report> = None;
    for p in processes {
        let r = report.get_or_insert_with(|| {
            Report::new(p.devices.first().cloned().unwrap_or_else(crate::gpu::DeviceInfo::unknown))
        });
        for d in &p.devices {
            if !r.devices.iter().any(|x| x.ordinal == d.ordinal && x.name == d.name) {
                r.devices.push(d.clone());
            }
        }
        r.records.extend(p.records.iter().cloned());
    }
    let mut report = report.unwrap_or_else(|| Report::new(crate::gpu::DeviceInfo::unknown()));
    if report.devices.len() < 2 {
        report.devices.clear();
    }
    report
}

/// nvprof's output: to each process's log file, or standard error.
fn write_out(opts: &Options, host: &str, blocks: &[(u32, String)]) -> Result<()> {
    let Some(template) = &opts.log_file else {
        // Like the program's own diagnostics: a closed standard error loses them and nothing else.
        let mut err = std::io::stderr().lock();
        for (_, text) in blocks {
            let _ = err.write_all(text.as_bytes());
        }
        return Ok(());
    };
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for (pid, text) in blocks {
        let path = PathBuf::from(options::expand(template, *pid, host)?);
        match files.iter_mut().find(|(p, _)| *p == path) {
            Some((_, t)) => t.push_str(text),
            None => files.push((path, text.clone())),
        }
    }
    for (path, text) in files {
        output::emit(&path, text.as_bytes())?;
    }
    Ok(())
}
