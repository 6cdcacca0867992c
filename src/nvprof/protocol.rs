//! What `warpscope nvprof` and its injection library tell each other. Out: a [`Config`] as JSON in one
//! environment variable, inherited by the program (and its children). Back: one JSON Lines file per
//! profiled process, `<dir>/<pid>.jsonl`, of [`Message`]s, whose results are warpscope's own
//! [`Record`]s. Lines are written whole as they happen, so a crashed program leaves all it finished.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::filter::FilterSpec;
use crate::gpu::DeviceInfo;
use crate::record::Record;

/// The environment variable carrying the [`Config`].
pub const CONFIG_VAR: &str = "WARPSCOPE_NVPROF_CONFIG";

/// How metrics that need several passes are collected (nvprof's `--replay-mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplayMode {
    /// CUPTI saves device memory, replays each kernel once per pass and restores it.
    #[default]
    Kernel,
    /// The program runs once per group of metrics that fits one pass; kernels run once per run.
    Application,
}

/// What the injection library is asked to do.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Where each process writes `<pid>.jsonl`.
    pub dir: PathBuf,
    /// `warpscope`'s pid: the profiled program is its child.
    pub parent: u32,
    /// Profile the program's child processes too (`--profile-child-processes`).
    pub children: bool,
    /// Record GPU activities: kernels, copies, sets (summary and GPU trace).
    pub gpu: bool,
    /// Record runtime and driver API calls (the summary's "API calls").
    pub api: bool,
    /// Also write each API call (`--print-api-trace`), not only each function's totals.
    #[serde(default)]
    pub api_trace: bool,
    /// `--metrics` as given (nvprof names, raw Nsight Compute metrics, `all`).
    #[serde(default)]
    pub metrics: Option<String>,
    /// `--events` as given.
    #[serde(default)]
    pub events: Option<String>,
    /// Which launches get metrics and events.
    #[serde(default)]
    pub filter: FilterSpec,
    /// Devices that get metrics and events (`--devices`); `None`: all.
    #[serde(default)]
    pub devices: Option<Vec<u32>>,
    /// Kernel or application replay.
    #[serde(default)]
    pub replay: ReplayMode,
    /// Application replay: which group of metrics this run collects (0-based).
    #[serde(default)]
    pub group: usize,
    /// When `warpscope` launched the program, ns since the Unix epoch: the trace's time zero.
    pub origin_unix_ns: u64,
    /// Print nvprof's `==PID==` notices to the program's standard error as they happen (no `--log-file`).
    pub banner: bool,
    /// Kernels profiled between two decodes of the counters.
    pub ranges: usize,
    /// Record from the start (`--profile-from-start on`), or only between `cudaProfilerStart` and
    /// `cudaProfilerStop`.
    #[serde(default = "from_start")]
    pub from_start: bool,
    /// Kernels one at a time (`--concurrent-kernels off`).
    #[serde(default)]
    pub serial_kernels: bool,
}

fn from_start() -> bool {
    true
}

/// A runtime or driver API function's calls in one process.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ApiCall {
    /// The function, as nvprof named it (`cudaMalloc`, `cuDeviceGetAttribute`).
    pub name: String,
    /// Calls.
    pub calls: u64,
    /// Total time, ns.
    pub total_ns: u64,
    /// Shortest call.
    pub min_ns: u64,
    /// Longest call.
    pub max_ns: u64,
}

/// One runtime or driver API call (`--print-api-trace`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ApiEvent {
    /// The function, as nvprof named it.
    pub name: String,
    /// When it was called, ns since the program was launched (the GPU trace's clock).
    pub start_ns: u64,
    /// How long it took, ns.
    pub duration_ns: u64,
    /// Correlation id: a launch's kernel record has the same.
    pub correlation: u32,
}

/// One line of a process's file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Message {
    /// The process is profiled.
    Start {
        /// Its pid.
        pid: u32,
        /// Its parent's.
        ppid: u32,
        /// Its command line, as nvprof printed it.
        command: String,
    },
    /// A device the process used.
    Device(Box<DeviceInfo>),
    /// A kernel launch, copy or set, with what was measured of it.
    Record(Box<Record>),
    /// One API function's calls (written at exit).
    Api(ApiCall),
    /// One API call (`--print-api-trace`), as it ended.
    ApiCall(ApiEvent),
    /// Application replay: the program must run this many times for all metrics.
    Groups(usize),
    /// A notice nvprof printed as `==PID== Warning: ...`.
    Notice(String),
    /// Why something could not be profiled (one line, with the fix where there is one).
    Error(String),
    /// The process finished cleanly; activity records CUPTI had to drop.
    End {
        /// Dropped activity records.
        dropped: u64,
    },
}

/// The file process `pid` writes in `dir`.
pub fn file_for(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}.jsonl"))
}

/// The messages of one file. A torn last line (the process was killed mid-write) is dropped; any other
/// unreadable line is skipped and counted.
pub fn parse(text: &str) -> (Vec<Message>, usize) {
    let mut out = Vec::new();
    let mut bad = 0;
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(l) {
            Ok(m) => out.push(m),
            Err(_) if i + 1 == lines.len() && !complete => {}
            Err(_) => bad += 1,
        }
    }
    (out, bad)
}

/// One message as its line (with the newline).
pub fn line(m: &Message) -> String {
    let mut s = serde_json::to_string(m).unwrap_or_else(|e| {
        serde_json::to_string(&Message::Error(format!("unserializable message: {e}"))).unwrap_or_default()
    });
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;
    use crate::spec::Dim3;

    #[test]
    fn messages_round_trip_and_torn_lines_drop() {
        let r = Record::new("k", "", Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), Status::Ok);
        let msgs = vec![
            Message::Start { pid: 7, ppid: 1, command: "./a b".into() },
            Message::Record(Box::new(r)),
            Message::Api(ApiCall { name: "cudaMalloc".into(), calls: 2, total_ns: 10, min_ns: 4, max_ns: 6 }),
            Message::End { dropped: 0 },
        ];
        let text: String = msgs.iter().map(line).collect();
        assert_eq!(parse(&text), (msgs.clone(), 0));
        let torn = &text[..text.len() - 5];
        assert_eq!(parse(torn), (msgs[..3].to_vec(), 0));
        let garbage = format!("{}not json\n{}", line(&msgs[0]), line(&msgs[3]));
        assert_eq!(parse(&garbage).1, 1);
    }
}
