//! Readers for the profiler output people keep — nvprof (text and `--csv`: summary, `--metrics`,
//! `--events`, `--print-gpu-trace`) and Nsight Compute (`--csv` details page of every layout since 2019,
//! `--page raw`, text details and `--metrics`, `--print-summary per-kernel` as text or CSV) — and for
//! warpscope's own JSON, JSON Lines and CSV.
//! The format is detected from the first line that only it writes (or forced, `--from`); files are
//! read a line at a time, so memory holds the records, not the file. Every value is marked imported.

mod build;
mod csvline;
mod names;
mod ncu_csv;
mod ncu_map;
mod ncu_raw;
mod ncu_text;
mod nvprof_csv;
mod nvprof_text;
mod nvprof_values;
mod units;

use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::record::Report;
use crate::report;

pub use names::{demangle, short_name};
pub use ncu_map::{BLOCK_SIZE, GRID_SIZE};

/// A format warpscope reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `nvprof --csv` (summary, `--metrics`, `--events`, `--print-gpu-trace`).
    NvprofCsv,
    /// nvprof's text output (the same pages as printed).
    NvprofText,
    /// `ncu --csv` (the details page, any layout).
    NcuCsv,
    /// `ncu --csv --page raw`.
    NcuRaw,
    /// ncu's text output (details page or `--metrics`).
    NcuText,
    /// A warpscope JSON report.
    WarpscopeJson,
    /// warpscope JSON Lines.
    WarpscopeJsonl,
    /// A warpscope CSV report.
    WarpscopeCsv,
}

impl Format {
    /// Every format, in `--from`'s order.
    pub const ALL: [Format; 8] = [
        Format::NvprofCsv,
        Format::NvprofText,
        Format::NcuCsv,
        Format::NcuRaw,
        Format::NcuText,
        Format::WarpscopeJson,
        Format::WarpscopeJsonl,
        Format::WarpscopeCsv,
    ];

    /// The name `--from` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::NvprofCsv => "nvprof-csv",
            Format::NvprofText => "nvprof-text",
            Format::NcuCsv => "ncu-csv",
            Format::NcuRaw => "ncu-raw",
            Format::NcuText => "ncu-text",
            Format::WarpscopeJson => "json",
            Format::WarpscopeJsonl => "jsonl",
            Format::WarpscopeCsv => "warpscope-csv",
        }
    }

    /// The tool that writes it.
    pub fn tool(self) -> &'static str {
        match self {
            Format::NvprofCsv | Format::NvprofText => "nvprof",
            Format::NcuCsv | Format::NcuRaw | Format::NcuText => "ncu",
            _ => "warpscope",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Format::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            Error::usage(format!("unknown format '{s}' (known: {})", names.join(", ")))
        })
    }
}

/// The format whose header (or first line only it writes) `line` is.
/// `first`: whether it is the first line with text (only there does a JSON document start).
fn classify(line: &str, first: bool) -> Option<Format> {
    let t = line.trim();
    if first && t.starts_with('{') {
        let jsonl = t.ends_with('}') && t.contains("\"kernel\"");
        return Some(if jsonl { Format::WarpscopeJsonl } else { Format::WarpscopeJson });
    }
    if t.starts_with('"') || t.starts_with("kernel,") {
        let f = csvline::fields(t);
        if ncu_csv::is_header(&f) {
            return Some(Format::NcuCsv);
        }
        if ncu_raw::is_header(&f) {
            return Some(Format::NcuRaw);
        }
        if nvprof_csv::is_header(&f) {
            return Some(Format::NvprofCsv);
        }
        if report::csv::is_header(&f) {
            return Some(Format::WarpscopeCsv);
        }
        return None;
    }
    // nvprof's headers without their quotes (a summary saved as plain CSV, units glued to the values).
    if t.contains(',') && nvprof_csv::is_header(&csvline::fields(t)) {
        return Some(Format::NvprofCsv);
    }
    if nvprof_text::is_header(line) {
        return Some(Format::NvprofText);
    }
    if ncu_text::is_start(line) {
        return Some(Format::NcuText);
    }
    None
}

/// A file's lines, read one at a time, invalid UTF-8 replaced, line ends dropped.
struct Lines<R> {
    input: R,
    buf: Vec<u8>,
    /// The whole input decoded, where it was UTF-16 (a Windows shell's redirect writes it so).
    decoded: Option<std::vec::IntoIter<String>>,
    started: bool,
}

impl<R: BufRead> Lines<R> {
    fn new(input: R) -> Self {
        Lines { input, buf: Vec::new(), decoded: None, started: false }
    }

    /// At the start: a UTF-8 byte-order mark is skipped; a UTF-16 one (little or big endian) has the
    /// whole input decoded into lines at once.
    fn start(&mut self) -> Result<()> {
        self.started = true;
        let io = |source| Error::Io { path: "input".into(), source };
        let head = self.input.fill_buf().map_err(io)?;
        let utf16 = match head {
            [0xEF, 0xBB, 0xBF, ..] => {
                self.input.consume(3);
                return Ok(());
            }
            [0xFF, 0xFE, ..] => u16::from_le_bytes,
            [0xFE, 0xFF, ..] => u16::from_be_bytes,
            _ => return Ok(()),
        };
        self.input.consume(2);
        let mut bytes = Vec::new();
        self.input.read_to_end(&mut bytes).map_err(io)?;
        let units: Vec<u16> = bytes.chunks_exact(2).map(|c| utf16([c[0], c[1]])).collect();
        let text = String::from_utf16_lossy(&units);
        let lines: Vec<String> = text.lines().map(|l| l.trim_end_matches('\r').to_string()).collect();
        self.decoded = Some(lines.into_iter());
        Ok(())
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = Result<String>;

    fn next(&mut self) -> Option<Result<String>> {
        if !self.started
            && let Err(e) = self.start()
        {
            return Some(Err(e));
        }
        if let Some(lines) = &mut self.decoded {
            return lines.next().map(Ok);
        }
        self.buf.clear();
        match self.input.read_until(b'\n', &mut self.buf) {
            Ok(0) => None,
            Ok(_) => {
                while self.buf.last().is_some_and(|&c| c == b'\n' || c == b'\r') {
                    self.buf.pop();
                }
                Some(Ok(String::from_utf8_lossy(&self.buf).into_owned()))
            }
            Err(source) => Some(Err(Error::Io { path: "input".into(), source })),
        }
    }
}

/// What the lines before any recognised one were, for the message when none is.
#[derive(Default)]
struct Seen {
    lines: usize,
    first: Option<String>,
    first_error: Option<String>,
    error_lines: usize,
    binary: bool,
    /// nvprof's line saying it profiled no kernel (`No kernels were profiled.`, `No CUDA application
    /// was profiled, exiting`).
    no_kernels: Option<String>,
    /// nvprof's `--cpu-profiling` result, which holds no GPU work.
    cpu_profile: bool,
    /// The report ncu wrote its results to instead (`==PROF== Report: out.ncu-rep`, with `-o`).
    report_file: Option<String>,
    /// Nsight Systems' output (`nsys profile --stats=true`, `nsys stats`): its own summaries, no
    /// per-kernel counters.
    nsys: bool,
    /// A list of what the profiler can collect (`nvprof --query-metrics`, `ncu --query-metrics`):
    /// the command that writes it.
    query: Option<&'static str>,
    /// nvprof's warning that it skipped a GPU of compute capability 7.5 or later (Turing on), which
    /// it cannot profile.
    too_new: Option<String>,
}

impl Seen {
    fn note(&mut self, line: &str) {
        self.lines += 1;
        let t = line.trim();
        if t.contains('\0') {
            self.binary = true;
        }
        if t == "No kernels were profiled."
            || t.ends_with("No CUDA application was profiled, exiting")
            || t.ends_with("Warning: No profile data collected.")
        {
            self.no_kernels.get_or_insert_with(|| t.to_string());
        }
        self.cpu_profile |= t.starts_with("======== CPU profiling result");
        if let Some(r) = t.strip_prefix("==PROF== Report:") {
            self.report_file.get_or_insert_with(|| r.trim().to_string());
        }
        self.nsys |= (t.starts_with("Generating '") && t.contains("nsys-report"))
            || (t.contains("] Executing '") && t.ends_with("stats report"));
        if self.query.is_none() {
            self.query = query_listing(t);
        }
        if t.contains("profiling is not supported on devices with compute capability 7.5 and higher") {
            self.too_new.get_or_insert_with(|| t.trim_start_matches('=').trim().to_string());
        }
        let is_error = t.starts_with("==ERROR==")
            || t.starts_with("======== Error")
            || (t.starts_with("==") && t.contains("== Error:"));
        if is_error {
            self.error_lines += 1;
            self.first_error.get_or_insert_with(|| t.to_string());
        } else if self.first.is_none() && !t.is_empty() {
            self.first = Some(t.chars().take(80).collect());
        }
    }

    fn error(&self, from: Option<Format>) -> Error {
        const HOW: &str = "write one with `ncu --csv --page details --log-file out.csv ...` or `nvprof --csv --log-file out.csv ...` (their text output as printed reads too)";
        let msg = if self.lines == 0 {
            "empty file".to_string()
        } else if self.binary {
            "a binary file (an .ncu-rep or .nvvp report?): export it as text first, e.g. `ncu --import FILE --csv --page details > out.csv` or `nvprof -i FILE --csv --log-file out.csv`".to_string()
        } else if let Some(first) = &self.first_error {
            format!(
                "no results, only the profiler's error lines ({}; the first: \"{first}\"): the profiled run failed or never started; fix what they report, then {HOW}",
                self.error_lines
            )
        } else if let Some(why) = self.empty_run() {
            why
        } else if let Some(f) = from {
            format!("no {f} table found (first line: \"{}\"); {HOW}", self.first.as_deref().unwrap_or(""))
        } else {
            format!(
                "not a profiler output warpscope reads (first line: \"{}\"); {HOW}",
                self.first.as_deref().unwrap_or("")
            )
        };
        Error::usage(msg)
    }
}

impl Seen {
    /// Why a file with a profiler's lines holds no kernel's results, where the file says (a run that
    /// profiled none, a report written elsewhere, a GPU nvprof cannot profile, another tool's output,
    /// a list of metrics).
    fn empty_run(&self) -> Option<String> {
        if let Some(line) = &self.too_new {
            Some(format!(
                "nvprof cannot profile GPUs of compute capability 7.5 and later (the file says \"{line}\"): profile them with `ncu --csv --page details --log-file out.csv ...`"
            ))
        } else if let Some(line) = &self.no_kernels {
            Some(format!("nvprof profiled no kernel (the file says \"{line}\"): profile a run that launches one"))
        } else if let Some(report) = &self.report_file {
            Some(format!(
                "ncu wrote its results to the report {report}, not to this text (it was run with -o): export them with `ncu --import {report} --csv --page details > out.csv`"
            ))
        } else if self.cpu_profile {
            Some("nvprof's CPU profiling result (--cpu-profiling) has no GPU kernels; profile without it, e.g. `nvprof --csv --log-file out.csv ...`".into())
        } else if self.nsys {
            Some("Nsight Systems (nsys) output: its summaries are of a timeline, not the per-kernel results warpscope reads; profile the kernels with `ncu --csv --page details --log-file out.csv ...` or `nvprof --csv --log-file out.csv ...`".into())
        } else {
            self.query.map(|command| format!(
                "a list of what the profiler can collect ({command}), not the results of a run: profile one, e.g. `ncu --csv --page details --log-file out.csv ...` or `nvprof --csv --log-file out.csv ...`"
            ))
        }
    }
}

/// The command whose listing `t` is a line of, if it is one: nvprof's `Available Metrics:` /
/// `Available Events:` heading, or a row of ncu's metric list (`dram__bytes.sum  Counter  byte
/// description`, with `--query-metrics-mode suffix`), or that list's header.
fn query_listing(t: &str) -> Option<&'static str> {
    match t {
        "Available Metrics:" => return Some("nvprof --query-metrics"),
        "Available Events:" => return Some("nvprof --query-events"),
        _ => {}
    }
    let tok: Vec<&str> = t.split_whitespace().collect();
    let header = tok.starts_with(&["Metric", "Name", "Metric", "Type"]) && tok.contains(&"Description");
    let row = tok.len() >= 3 && tok[0].contains("__") && ["Counter", "Ratio", "Throughput"].contains(&tok[1]);
    (header || row).then_some("ncu --query-metrics")
}

/// Lines read before the format is known are handed to its reader too (a process's banner, ncu's
/// `==ERROR==` lines before a launch); past this many, the oldest are dropped.
const REPLAY: usize = 100_000;

/// Reads any supported output from `input`: detected from its content, or as `from` says.
pub fn read<R: BufRead>(input: R, from: Option<Format>) -> Result<(Format, Report)> {
    let mut lines = Lines::new(input);
    let mut seen = Seen::default();
    let mut before: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    let (format, first) = loop {
        let Some(line) = lines.next() else { return Err(seen.error(from)) };
        let line = line?;
        let first = seen.first.is_none() && seen.error_lines == 0;
        match classify(&line, first) {
            // A forced format starts at its own header; ncu's and nvprof's tables start where they do.
            Some(f) if from.is_none_or(|want| want == f) => break (f, line),
            _ if from.is_some_and(|f| matches!(f, Format::WarpscopeJson | Format::WarpscopeJsonl))
                && !line.trim().is_empty() =>
            {
                break (from.expect("checked"), line);
            }
            _ => {
                seen.note(&line);
                if before.len() == REPLAY {
                    before.pop_front();
                }
                before.push_back(line);
            }
        }
    };
    let before = before.into_iter().chain(std::iter::once(first)).map(Ok);
    let mut rest = before.chain(lines);
    let profiler = |read: fn(&mut dyn Iterator<Item = Result<String>>) -> Result<Report>,
                    rest: &mut dyn Iterator<Item = Result<String>>| {
        // A table of API calls alone, after nvprof said it profiled no kernel.
        read(rest).map_err(|e| match (e, seen.empty_run()) {
            (Error::Usage(_), Some(why)) => Error::usage(why),
            (e, _) => e,
        })
    };
    let report = match format {
        Format::NvprofCsv => profiler(nvprof_csv::read, &mut rest)?,
        Format::NvprofText => profiler(nvprof_text::read, &mut rest)?,
        Format::NcuCsv => profiler(ncu_csv::read, &mut rest)?,
        Format::NcuRaw => profiler(ncu_raw::read, &mut rest)?,
        Format::NcuText => profiler(ncu_text::read, &mut rest)?,
        Format::WarpscopeJson | Format::WarpscopeJsonl => report::parse(&whole(rest)?)?,
        Format::WarpscopeCsv => {
            let mut r = Report::new(crate::gpu::DeviceInfo::described(String::new(), crate::gpu::Origin::WarpscopeCsv));
            r.records = report::csv::parse(&whole(rest)?)?;
            r
        }
    };
    Ok((format, report))
}

fn whole(lines: impl Iterator<Item = Result<String>>) -> Result<String> {
    let mut s = String::new();
    for l in lines {
        s.push_str(&l?);
        s.push('\n');
    }
    Ok(s)
}

/// Reads `text` (see [`read`]).
pub fn parse(text: &str) -> Result<(Format, Report)> {
    read(text.as_bytes(), None)
}

/// `warpscope import` once its arguments are checked: `file` read (as `from`, else as detected), what it
/// held said unless quiet, and its records written to `to`; `full_names` puts kernels' full signatures
/// in a table or markdown.
pub fn import(file: &Path, from: Option<Format>, full_names: bool, to: &report::Destination) -> Result<crate::Outcome> {
    to.check()?;
    let (format, mut report) = read_file(file, from)?;
    if !to.quiet {
        let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        let summaries = report.records.iter().filter(|r| r.summary_of.is_some()).count();
        let of = if summaries > 0 { format!(" ({})", count(summaries, "summary row")) } else { String::new() };
        crate::output::note(&format!("{}: {format}, {}{of}", file.display(), count(report.records.len(), "record")));
    }
    if full_names && matches!(to.format, report::Format::Table | report::Format::Markdown) {
        for r in &mut report.records {
            if let Some(s) = r.signature.take() {
                r.kernel = s;
            }
        }
    }
    to.emit(&report)?;
    Ok(crate::Outcome::Ok)
}

/// Reads a file (see [`read`]); errors name it.
pub fn read_file(path: &Path, from: Option<Format>) -> Result<(Format, Report)> {
    let f = std::fs::File::open(path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
    read(BufReader::with_capacity(1 << 16, f), from).map_err(|e| match e {
        Error::Io { source, .. } => Error::Io { path: path.display().to_string(), source },
        Error::Usage(m) => Error::usage(format!("{}: {m}", path.display())),
        e => e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_is_an_error_or_a_report_never_a_panic() {
        let cases = [
            "  k(int), 2022-Jün-02 19:23:13, Context 1, Stream 7\n    Section: S\n    -- -- --\n    ä   b   1\n",
            "   Start  Duration  Grid Size  Block Size  Name\nüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüü\n",
            "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n GPU activities:   1.0%  1ms  1  1ms  1ms  1ms  ké(int)\n",
            "\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n\"0\",\"1\",\"k\",\"x\",\"1,2,3\"\n",
            "==ERROR== a\n==ERROR== b\n",
            "\u{0}\u{1}binary",
        ];
        for text in cases {
            let _ = parse(text);
        }
        assert!(parse("").unwrap_err().to_string().contains("empty file"));
        let (format, rep) = parse(cases[2]).unwrap();
        assert_eq!((format, rep.records[0].kernel.as_str()), (Format::NvprofText, "ké"));
    }

    #[test]
    fn an_api_trace_alone_says_so_in_csv_too() {
        // `nvprof --csv --print-api-trace`: no grid column, no kernel's GPU time.
        let text = "==1== Profiling result:\n\"Start\",\"Duration\",\"Name\",\"Correlation_ID\"\nms,us,,\n1.5,29.4,\"cudaLaunchKernel (k(int) [129])\",129\n";
        let err = parse(text).unwrap_err().to_string();
        assert!(err.contains("API trace"), "{err}");
    }

    #[test]
    fn runs_without_results_say_why() {
        // nvprof on a GPU of compute capability 7.5 or later (the lines as a 2024 note quotes them).
        let text = "======== Warning: Skipping profiling on device 0 since profiling is not supported on devices with compute capability 7.5 and higher.\n                  Use NVIDIA Nsight Compute for GPU profiling and NVIDIA Nsight Systems for GPU tracing and CPU sampling.\n======== Warning: No profile data collected.\n";
        let err = parse(text).unwrap_err().to_string();
        assert!(err.contains("nvprof cannot profile GPUs of compute capability 7.5 and later"), "{err}");
        assert!(err.contains("ncu --csv"), "{err}");
        let err =
            parse("==1== Profiling application: ./a\n======== Warning: No profile data collected.\n").unwrap_err();
        assert!(err.to_string().contains("nvprof profiled no kernel"), "{err}");
        // `nvprof --query-metrics`.
        let text = "Available Metrics:\n                            Name   Description\nDevice 0 (GeForce GTX 1080):\n        inst_per_warp:  Ratio of the average number of instructions executed per warp.\n";
        let err = parse(text).unwrap_err().to_string();
        assert!(err.contains("(nvprof --query-metrics)"), "{err}");
        assert_eq!(
            query_listing("Metric Name    Metric Type    Metric Unit    Metric Description"),
            Some("ncu --query-metrics")
        );
        assert_eq!(
            query_listing("dram__bytes.sum                  Counter   byte   # of bytes"),
            Some("ncu --query-metrics")
        );
        assert_eq!(query_listing("dram__bytes.sum                  Mbyte     1.08"), None);
    }

    #[test]
    fn formats_by_name() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
        }
        assert!("xml".parse::<Format>().unwrap_err().to_string().contains("nvprof-csv"));
    }
}
