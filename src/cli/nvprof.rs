//! `warpscope nvprof`: nvprof's command line (plus Nsight Compute's `-k`, `-c`, `-s`) for any CUDA
//! program. Parses the options into the library's [`Options`], runs the program through the library's
//! runner and writes nvprof's output to standard error or the `--log-file`, the program's own output
//! passing through untouched; the exit code is the program's.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use warpscope::Result;
use warpscope::nvprof::filter::FilterSpec;
use warpscope::nvprof::options::{self, Options, Show};
use warpscope::nvprof::protocol::ReplayMode;
use warpscope::nvprof::session;

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
    /// One line per runtime and driver API call, in time order (a launch's line names its kernel).
    #[arg(long)]
    print_api_trace: bool,
    /// The summary's GPU activities.
    #[arg(long)]
    print_gpu_summary: bool,
    /// The summary's GPU activities one device at a time (each after its `Device "NAME (N)"` line).
    #[arg(long)]
    print_summary_per_gpu: bool,
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
    /// Profile from the program's start (on), or only between its `cudaProfilerStart()` and
    /// `cudaProfilerStop()` calls (off): the summary, the trace and the metrics alike.
    #[arg(long, value_enum, value_name = "on|off", default_value = "on")]
    profile_from_start: Switch,
    /// Kernels run as the program issues them, several at once (on), or one at a time (off: CUPTI
    /// serializes them, as nvprof did).
    #[arg(long, value_enum, value_name = "on|off", default_value = "on")]
    concurrent_kernels: Switch,
    /// Kernel names demangled (on) or as the compiler mangled them (off).
    #[arg(long, value_enum, value_name = "on|off", default_value = "on")]
    demangling: Switch,
    /// Print none of nvprof's own output (the program's passes through; -o still writes its report).
    #[arg(long)]
    quiet: bool,
    #[arg(long, value_name = "SECONDS", value_parser = ranges::TIMEOUT.parser(),
        help = ranges::TIMEOUT.help("Stop the program and every process it started once it has run this many seconds (SIGTERM, SIGKILL 5 s later); what was collected until then is reported"))]
    timeout: Option<f64>,
    /// Accepted for nvprof's scripts: warpscope records no unified-memory activity either way.
    #[arg(long, value_name = "per-process-device|off", default_value = "per-process-device",
        value_parser = ["per-process-device", "off"])]
    unified_memory_profiling: String,
    /// How metrics needing several passes are collected: each kernel replayed (memory saved and
    /// restored), or the whole program run once per group of metrics.
    #[arg(long, value_enum, default_value = "kernel")]
    replay_mode: ReplayArg,
    /// The program and its arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "PROGRAM [ARGS]")]
    command: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, ValueEnum)]
enum Switch {
    On,
    Off,
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
            show: Show {
                per_gpu: self.print_summary_per_gpu,
                ..Show::from_flags(
                    self.print_summary,
                    self.print_gpu_summary,
                    self.print_api_summary,
                    (self.print_gpu_trace, self.print_api_trace),
                    counters,
                )
            },
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
            from_start: self.profile_from_start == Switch::On,
            concurrent_kernels: self.concurrent_kernels == Switch::On,
            demangle: self.demangling == Switch::On,
            quiet: self.quiet,
            timeout: self.timeout,
        })
    }
}

pub fn run(ctx: &Context, a: &NvprofArgs) -> Result<warpscope::Outcome> {
    if a.query_metrics || a.query_events {
        return session::query(ctx.backend, a.query_metrics, a.query_events);
    }
    session::profile(&a.options()?, a.html.as_deref(), &super::report::command_line())
}
