//! `warpscope nvprof`'s options as a validated value: what to show (summary, trace, metrics, events),
//! for which launches and devices, where the output goes (`--log-file` with `%p`, `%h`, `%q{ENV}`,
//! `%%`), and nvprof's time units. The CLI fills an [`Options`]; [`Options::validate`] turns every bad
//! value into one usage error before the program runs.

use super::events::{self, RequestedEvent};
use super::filter::{Filter, FilterSpec};
use super::format::{TimeUnit, Times};
use super::protocol::ReplayMode;
use crate::error::{Error, Result};
use crate::metrics::{self, Requested};

/// Which tables are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Show {
    /// "GPU activities" of the summary.
    pub gpu_summary: bool,
    /// "API calls" of the summary.
    pub api_summary: bool,
    /// One line per GPU activity (`--print-gpu-trace`).
    pub gpu_trace: bool,
    /// One line per API call (`--print-api-trace`).
    pub api_trace: bool,
    /// The summary's GPU activities per device (`--print-summary-per-gpu`).
    pub per_gpu: bool,
}

impl Show {
    /// nvprof's rules: the summary (both halves) unless a trace or metrics/events were asked for; the
    /// `--print-*-summary` flags print their half whatever else is asked.
    pub fn from_flags(
        summary: bool,
        gpu_summary: bool,
        api_summary: bool,
        traces: (bool, bool),
        counters: bool,
    ) -> Self {
        let (gpu_trace, api_trace) = traces;
        let explicit = summary || gpu_summary || api_summary;
        let default = !explicit && !gpu_trace && !api_trace && !counters;
        Show {
            gpu_summary: summary || gpu_summary || default,
            api_summary: summary || api_summary || default,
            gpu_trace,
            api_trace,
            per_gpu: false,
        }
    }
}

/// Everything `warpscope nvprof` was asked to do.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The program, as typed (its `argv[0]`).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Tables to print.
    pub show: Show,
    /// `--metrics`, as given.
    pub metric_spec: Option<String>,
    /// `--events`, as given.
    pub event_spec: Option<String>,
    /// Launch filter.
    pub filter: FilterSpec,
    /// `--csv`.
    pub csv: bool,
    /// `--log-file` template.
    pub log_file: Option<String>,
    /// `-u`.
    pub times: Times,
    /// `--devices`; `None`: all.
    pub devices: Option<Vec<u32>>,
    /// `--profile-child-processes`.
    pub children: bool,
    /// `-o/--export-profile` template.
    pub export: Option<String>,
    /// `-f/--force-overwrite`.
    pub force: bool,
    /// `--replay-mode`.
    pub replay: ReplayMode,
    /// Profile from the program's start (`--profile-from-start on`, the default), or only between its
    /// `cudaProfilerStart` and `cudaProfilerStop` calls (`off`).
    pub from_start: bool,
    /// Kernels may run at once (`--concurrent-kernels on`), or CUPTI serializes them (`off`).
    pub concurrent_kernels: bool,
    /// Kernel names demangled (`--demangling on`) or mangled (`off`).
    pub demangle: bool,
    /// None of nvprof's own output (`--quiet`).
    pub quiet: bool,
    /// Stop the program once it has run this many seconds (`--timeout`).
    pub timeout: Option<f64>,
}

/// What [`Options::validate`] found in the metric and event lists.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    /// Metrics, in the order asked.
    pub metrics: Vec<Requested>,
    /// Events, in the order asked.
    pub events: Vec<RequestedEvent>,
}

impl Counters {
    /// The distinct Nsight Compute counters to collect, metrics' first.
    pub fn names(&self) -> Vec<String> {
        let mut out = metrics::counters_of(&self.metrics);
        for e in &self.events {
            if !out.contains(&e.counter) {
                out.push(e.counter.clone());
            }
        }
        out
    }

    /// Whether anything is to be collected with counters.
    pub fn any(&self) -> bool {
        !self.metrics.is_empty() || !self.events.is_empty()
    }
}

/// Parses `--metrics` and `--events` (either may be absent).
pub fn counters(metric_spec: Option<&str>, event_spec: Option<&str>) -> Result<Counters> {
    Ok(Counters {
        metrics: metric_spec.map(metrics::parse_requested).transpose()?.unwrap_or_default(),
        events: event_spec.map(events::parse).transpose()?.unwrap_or_default(),
    })
}

impl Options {
    /// Checks every option; returns the parsed counters.
    pub fn validate(&self) -> Result<Counters> {
        if self.program.is_empty() {
            return Err(Error::usage("no program given: warpscope nvprof [options] PROGRAM [ARGS...]"));
        }
        if self.program.starts_with('-') {
            return Err(Error::usage(unknown_option(&self.program)));
        }
        let c = counters(self.metric_spec.as_deref(), self.event_spec.as_deref())?;
        if !c.any() && (self.filter != FilterSpec::default()) {
            return Err(Error::usage(
                "--kernels, -k, -s and -c choose the launches that get --metrics or --events: give one of those too",
            ));
        }
        if self.replay == ReplayMode::Application && !c.any() {
            return Err(Error::usage("--replay-mode application replays the program for --metrics or --events only"));
        }
        Filter::new(&self.filter)?;
        for t in self.log_file.iter().chain(&self.export) {
            expand(t, 1, "host")?;
        }
        Ok(c)
    }
}

/// nvprof options warpscope does not take, with what to use instead.
const NOT_TAKEN: &[(&str, &str)] = &[
    ("--analysis-metrics", "there is no Visual Profiler import: use --metrics all, with -o for a report file"),
    ("--source-level-analysis", "no source-level analysis: use Nsight Compute's source page"),
    ("--cpu-profiling", "no CPU sampling"),
    ("--openacc-profiling", "no OpenACC records"),
    ("--system-profiling", "no power, clock or thermal samples: `warpscope devices` shows the clocks"),
    ("--track-memory-allocations", "no allocation records"),
    ("--aggregate-mode", "metrics are the kernel's, aggregated over its SMs"),
    ("--event-collection-mode", "events are collected per kernel launch"),
    ("--dependency-analysis", "no dependency analysis"),
    ("--print-dependency-analysis-trace", "no dependency analysis"),
    ("--print-nvlink-topology", "no NVLink topology: nvidia-smi topo -m"),
    ("--print-pci-topology", "no PCI topology: nvidia-smi topo -m"),
    ("--import-profile", "`warpscope import` reads nvprof's text and CSV outputs, not its .nvvp files"),
];

/// The error for a program name that is an option warpscope does not take: nvprof's options put
/// before the program are parsed, so the first unknown one ends up where the program should be.
fn unknown_option(opt: &str) -> String {
    let name = opt.split('=').next().unwrap_or(opt);
    match NOT_TAKEN.iter().find(|(o, _)| *o == name) {
        Some((_, why)) => format!("nvprof option {name} is not supported by warpscope nvprof: {why}"),
        None => format!("unknown option {name}: `warpscope nvprof --help` lists the options it takes"),
    }
}

/// `-u`: `s`, `ms`, `us`, `ns`, `col` or `auto`.
pub fn parse_times(s: &str) -> Result<Times> {
    Ok(match s {
        "auto" => Times::Auto,
        "col" => Times::Column,
        "s" => Times::Fixed(TimeUnit::S),
        "ms" => Times::Fixed(TimeUnit::Ms),
        "us" => Times::Fixed(TimeUnit::Us),
        "ns" => Times::Fixed(TimeUnit::Ns),
        _ => return Err(Error::usage(format!("--normalized-time-unit '{s}': use s, ms, us, ns, col or auto"))),
    })
}

/// `--devices`: `all` or a comma-separated list of ordinals.
pub fn parse_devices(s: &str) -> Result<Option<Vec<u32>>> {
    if s.trim() == "all" {
        return Ok(None);
    }
    let v: Vec<u32> = s
        .split(',')
        .map(|d| {
            d.trim().parse().map_err(|_| Error::usage(format!("--devices '{s}': use all or ordinals such as 0,1")))
        })
        .collect::<Result<_>>()?;
    Ok(Some(v))
}

/// A file name template with nvprof's `%p` (pid), `%h` (host name), `%q{VAR}` (an environment
/// variable) and `%%`.
pub fn expand(template: &str, pid: u32, host: &str) -> Result<String> {
    let mut out = String::new();
    let mut it = template.chars().peekable();
    while let Some(ch) = it.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        match it.next() {
            Some('p') => out.push_str(&pid.to_string()),
            Some('h') => out.push_str(host),
            Some('%') => out.push('%'),
            Some('q') if it.peek() == Some(&'{') => {
                it.next();
                let var: String = it.by_ref().take_while(|&c| c != '}').collect();
                out.push_str(&std::env::var(&var).map_err(|_| {
                    Error::usage(format!("'{template}': %q{{{var}}} names an environment variable that is not set"))
                })?);
            }
            other => {
                return Err(Error::usage(format!(
                    "'{template}': unknown %{} (use %p for the process id, %h for the host name, %q{{VAR}}, %%)",
                    other.map(String::from).unwrap_or_default()
                )));
            }
        }
    }
    Ok(out)
}

/// This machine's name, for `%h`.
pub fn hostname() -> String {
    nix::unistd::gethostname().ok().and_then(|h| h.into_string().ok()).unwrap_or_else(|| "localhost".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_expand_like_nvprof() {
        assert_eq!(expand("out.%p.csv", 9143, "gpu1").unwrap(), "out.9143.csv");
        assert_eq!(expand("%h-%p-100%%", 7, "gpu1").unwrap(), "gpu1-7-100%");
        // SAFETY: the variable name is unique to this test.
        unsafe { std::env::set_var("WS_TEST_RUN_ID", "r42") };
        assert_eq!(expand("log.%q{WS_TEST_RUN_ID}", 1, "h").unwrap(), "log.r42");
        for bad in ["a%x", "a%", "%q{WS_TEST_SURELY_UNSET_VAR}"] {
            assert!(expand(bad, 1, "h").is_err(), "{bad}");
        }
    }

    #[test]
    fn what_is_shown_follows_nvprof() {
        let s = |a, b, c, gpu, api, e| Show::from_flags(a, b, c, (gpu, api), e);
        let show = |gpu_summary, api_summary, gpu_trace, api_trace| Show {
            gpu_summary,
            api_summary,
            gpu_trace,
            api_trace,
            per_gpu: false,
        };
        assert_eq!(s(false, false, false, false, false, false), show(true, true, false, false));
        assert_eq!(s(false, false, false, true, false, false), show(false, false, true, false));
        assert_eq!(s(false, false, false, false, true, false), show(false, false, false, true));
        assert_eq!(s(false, false, false, false, false, true), Show::default());
        assert_eq!(s(false, true, false, false, false, true), Show { gpu_summary: true, ..Show::default() });
        assert_eq!(s(true, false, false, true, true, false), show(true, true, true, true));
    }

    #[test]
    fn units_and_devices_parse() {
        assert_eq!(parse_times("ms").unwrap(), Times::Fixed(TimeUnit::Ms));
        assert_eq!(parse_times("col").unwrap(), Times::Column);
        assert!(parse_times("min").unwrap_err().to_string().contains("use s, ms, us, ns, col or auto"));
        assert_eq!(parse_devices("all").unwrap(), None);
        assert_eq!(parse_devices("0, 2").unwrap(), Some(vec![0, 2]));
        assert!(parse_devices("0,x").is_err());
    }

    #[test]
    fn validation_catches_bad_combinations() {
        let base = Options { program: "./a".into(), ..Options::default() };
        assert!(base.validate().is_ok());
        let o = Options { filter: FilterSpec { kernels: Some("k".into()), ..FilterSpec::default() }, ..base.clone() };
        assert!(o.validate().unwrap_err().to_string().contains("--metrics or --events"));
        let o = Options { metric_spec: Some("nope".into()), ..base.clone() };
        assert!(o.validate().unwrap_err().to_string().contains("unknown metric 'nope'"));
        let o = Options { replay: ReplayMode::Application, ..base.clone() };
        assert!(o.validate().is_err());
        let o = Options { log_file: Some("x.%y".into()), ..base.clone() };
        assert!(o.validate().unwrap_err().to_string().contains("unknown %y"));
        let o = Options { program: String::new(), ..base };
        assert!(o.validate().is_err());
        // gld_throughput's five SASS counters (LDG's and LDGSTS's), achieved_occupancy's one, the event's one.
        let c = counters(Some("gld_throughput,achieved_occupancy"), Some("warps_launched")).unwrap();
        assert_eq!(c.names().len(), 7);
    }
}
