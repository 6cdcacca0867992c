//! `warpscope nvprof`: nvprof's command line (plus Nsight Compute's `-k`, `-c`, `-s`) for any CUDA
//! program. Parses the options into the library's [`Options`], runs the program through the library's
//! runner and writes nvprof's output to standard error or the `--log-file`, the program's own output
//! passing through untouched; the exit code is the program's.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use warpscope::nvprof::filter::FilterSpec;
use warpscope::nvprof::options::{self, Options, Show};
use warpscope::nvprof::process::Process;
use warpscope::nvprof::protocol::ReplayMode;
use warpscope::nvprof::render::{self, View};
use warpscope::nvprof::runner::{self, Outcome};
use warpscope::output;
use warpscope::record::Report;
use warpscope::report::html;
use warpscope::{Error, Result};

use super::{Context, ranges};

/// Arguments of `nvprof`: nvprof's own names and meanings.
#[derive(Args, Debug)]
pub struct NvprofArgs {
    /// Metrics for each profiled launch: nvprof names (`achieved_occupancy,gld_throughput`), Nsight
    /// Compute metrics (`sm__warps_active.avg.pct_of_peak_sustained_active`), or `all`.
    #[arg(short = 'm', long = "metrics", value_name = "LIST")]
    metrics: Vec<String>,
    /// Hardware events for each profiled launch: nvprof names (`warps_launched`), Nsight Compute counters,
    /// or `all`.
    #[arg(short = 'e', long = "events", value_name = "LIST")]
    events: Vec<String>,
    /// List the metrics --metrics takes, with nvprof's descriptions.
    #[arg(long)]
    query_metrics: bool,
    /// List nvprof's events and the counter behind each (or why there is none).
    #[arg(long)]
    query_events: bool,
    /// Launches that get --metrics/--events: a kernel name or regular expression, or
    /// `context:stream:kernel:invocation` (each field a regular expression, empty or `*` for any).
    #[arg(long, value_name = "FILTER")]
    kernels: Option<String>,
    /// Nsight Compute's kernel filter: the exact function name, or `regex:EXPR`.
    #[arg(short = 'k', long = "kernel-name", value_name = "NAME")]
    kernel_name: Option<String>,
    #[arg(short = 'c', long = "launch-count", value_name = "N", value_parser = ranges::LAUNCH_COUNT.parser(),
        help = ranges::LAUNCH_COUNT.help("Nsight Compute's launch count: profile at most N launches that pass the filters"))]
    launch_count: Option<u64>,
    #[arg(short = 's', long = "launch-skip", value_name = "N", default_value_t = 0, value_parser = ranges::LAUNCH_SKIP.parser(),
        help = ranges::LAUNCH_SKIP.help("Nsight Compute's launch skip: let N launches that pass the filters go unprofiled first"))]
    launch_skip: u64,
    /// One line per kernel, copy and set, in time order.
    #[arg(long)]
    print_gpu_trace: bool,
    /// The summary's GPU activities.
    #[arg(long)]
    print_gpu_summary: bool,
    /// The summary's API calls.
    #[arg(long)]
    print_api_summary: bool,
    /// The whole summary (the default when nothing else is asked).
    #[arg(long)]
    print_summary: bool,
    /// Comma-separated values, as nvprof wrote them.
    #[arg(long)]
    csv: bool,
    /// Write the output to FILE instead of standard error; `%p` is the process id, `%h` the host name,
    /// `%q{VAR}` an environment variable, `%%` a percent sign.
    #[arg(long, value_name = "FILE")]
    log_file: Option<String>,
    /// Time unit: s, ms, us, ns, col (one per column) or auto (per value; CSV uses col).
    #[arg(short = 'u', long = "normalized-time-unit", value_name = "UNIT", default_value = "auto")]
    normalized_time_unit: String,
    /// Devices whose launches get --metrics/--events: `all` or ordinals such as `0,1`.
    #[arg(long, value_name = "LIST")]
    devices: Option<String>,
    /// Profile the processes the program starts, too.
    #[arg(long)]
    profile_child_processes: bool,
    /// Also write the results as a warpscope JSON report (`%p` as for --log-file).
    #[arg(short = 'o', long = "export-profile", value_name = "FILE")]
    export_profile: Option<String>,
    /// Overwrite an existing --export-profile file.
    #[arg(short = 'f', long = "force-overwrite")]
    force_overwrite: bool,
    /// Also write a self-contained HTML report of every profiled process's records to FILE: the
    /// device, the figures, a sortable, filterable table with each value's provenance.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// How metrics needing several passes are collected: each kernel replayed (memory saved and
    /// restored), or the whole program run once per group of metrics.
    #[arg(long, value_enum, default_value = "kernel")]
    replay_mode: ReplayArg,
    /// The program and its arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "PROGRAM [ARGS]")]
    command: Vec<String>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ReplayArg {
    Kernel,
    Application,
}

impl NvprofArgs {
    fn options(&self) -> Result<Options> {
        let join = |v: &[String]| (!v.is_empty()).then(|| v.join(","));
        let (metric_spec, event_spec) = (join(&self.metrics), join(&self.events));
        let counters = metric_spec.is_some() || event_spec.is_some();
        Ok(Options {
            program: self.command.first().cloned().unwrap_or_default(),
            args: self.command.iter().skip(1).cloned().collect(),
            show: Show::from_flags(
                self.print_summary,
                self.print_gpu_summary,
                self.print_api_summary,
                self.print_gpu_trace,
                counters,
            ),
            metric_spec,
            event_spec,
            filter: FilterSpec {
                kernels: self.kernels.clone(),
                kernel_name: self.kernel_name.clone(),
                launch_skip: self.launch_skip,
                launch_count: self.launch_count,
            },
            csv: self.csv,
            log_file: self.log_file.clone(),
            times: options::parse_times(&self.normalized_time_unit)?,
            devices: self.devices.as_deref().map(options::parse_devices).transpose()?.flatten(),
            children: self.profile_child_processes,
            export: self.export_profile.clone(),
            force: self.force_overwrite,
            replay: match self.replay_mode {
                ReplayArg::Kernel => ReplayMode::Kernel,
                ReplayArg::Application => ReplayMode::Application,
            },
        })
    }
}

pub fn run(ctx: &Context, a: &NvprofArgs) -> Result<warpscope::Outcome> {
    if a.query_metrics || a.query_events {
        let devices = query_devices(ctx);
        let text = if a.query_metrics { render::query_metrics(&devices) } else { render::query_events(&devices) };
        output::print(&text)?;
        if a.query_metrics && a.query_events {
            output::print(&render::query_events(&devices))?;
        }
        return Ok(warpscope::Outcome::Ok);
    }
    let opts = a.options()?;
    let counters = opts.validate()?;
    check_files(&opts, a.html.as_deref())?;
    let injection = runner::injection_library()?;
    let live = opts.log_file.is_none();
    let outcome = runner::run(&opts, &counters, &injection, live, &warpscope::signals::forward_to)?;
    let view = View { opts: &opts, counters: &counters };
    let host = options::hostname();
    let mut blocks: Vec<(u32, String)> =
        outcome.processes.iter().map(|p| (p.pid, render::process(p, view, live))).collect();
    if outcome.processes.is_empty() {
        blocks.push((outcome.root, render::NO_APPLICATION.to_string()));
    }
    for w in &outcome.warnings {
        blocks.push((outcome.root, render::notice(outcome.root, w)));
    }
    let exported = export(&opts, &outcome, &host)?;
    for (pid, line) in exported {
        blocks.push((pid, line));
    }
    if let Some(path) = &a.html {
        let page = html::report_page(&gather(&outcome.processes), &Default::default(), &super::report::command_line())?;
        html::write(&page, path)?;
        let shown = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        blocks.push((outcome.root, format!("=={}== Generated HTML report: {}\n", outcome.root, shown.display())));
    }
    write_out(&opts, &host, &blocks)?;
    let errors: Vec<&String> = outcome.processes.iter().flat_map(|p| &p.errors).collect();
    let code = outcome.exit.code();
    if code == 0
        && let Some(e) = errors.first()
    {
        return Err(Error::Driver(format!("nothing could be profiled: {e}")));
    }
    Ok(warpscope::Outcome::Program(code))
}

/// Devices to list for the queries; without a driver, one line saying the list holds for any GPU.
fn query_devices(ctx: &Context) -> Vec<(u32, String)> {
    match warpscope::gpu::list(ctx.backend) {
        Ok(list) if !list.is_empty() => list.into_iter().map(|d| (d.ordinal, d.name)).collect(),
        Ok(_) | Err(_) => vec![(0, "any GPU of compute capability 7.5 or newer; no GPU found here".into())],
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
    warpscope::output::check_writable(path)
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
        warpscope::report::write_file(&report, warpscope::report::Format::Json, &path)?;
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
            Report::new(p.devices.first().cloned().unwrap_or_else(warpscope::gpu::DeviceInfo::unknown))
        });
        for d in &p.devices {
            if !r.devices.iter().any(|x| x.ordinal == d.ordinal && x.name == d.name) {
                r.devices.push(d.clone());
            }
        }
        r.records.extend(p.records.iter().cloned());
    }
    let mut report = report.unwrap_or_else(|| Report::new(warpscope::gpu::DeviceInfo::unknown()));
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
        warpscope::output::emit(&path, text.as_bytes())?;
    }
    Ok(())
}
