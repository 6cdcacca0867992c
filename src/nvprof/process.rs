//! One profiled process as `warpscope nvprof` assembles it from the messages of its file: its devices,
//! records (GPU activities, with the metrics of the launches that were profiled joined in by correlation
//! id), API calls and notices, in the order the report prints them.

use std::collections::HashMap;

use super::protocol::{ApiCall, ApiEvent, Message};
use crate::gpu::DeviceInfo;
use crate::record::{ActivityKind, Record};

/// Everything one process reported.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Process {
    /// Its pid.
    pub pid: u32,
    /// Its parent's pid.
    pub ppid: u32,
    /// Its command line.
    pub command: String,
    /// Devices it used, in the order it first used them.
    pub devices: Vec<DeviceInfo>,
    /// GPU activities and profiled launches, by start time.
    pub records: Vec<Record>,
    /// Runtime and driver API calls, by function.
    pub api: Vec<ApiCall>,
    /// Each API call (`--print-api-trace`), by start time.
    pub api_calls: Vec<ApiEvent>,
    /// nvprof-style warnings.
    pub notices: Vec<String>,
    /// What could not be profiled, and why.
    pub errors: Vec<String>,
    /// Application replay: runs the metrics need (1 otherwise).
    pub groups: usize,
    /// Whether it exited through `exit` (its last data flushed).
    pub ended: bool,
    /// Activity records CUPTI dropped.
    pub dropped: u64,
    /// Lines of its file that could not be read.
    pub bad_lines: usize,
}

impl Process {
    /// The process of a file's messages; `None` when it never started profiling.
    pub fn from_messages(messages: Vec<Message>, bad_lines: usize) -> Option<Self> {
        let mut p = Process { groups: 1, bad_lines, ..Process::default() };
        let mut started = false;
        for m in messages {
            match m {
                Message::Start { pid, ppid, command } => {
                    (p.pid, p.ppid, p.command) = (pid, ppid, command);
                    started = true;
                }
                Message::Device(d) => {
                    if !p.devices.iter().any(|x| x.ordinal == d.ordinal) {
                        p.devices.push(*d);
                    }
                }
                Message::Record(r) => p.records.push(*r),
                Message::Api(a) => merge_api(&mut p.api, a),
                Message::ApiCall(a) => p.api_calls.push(a),
                Message::Groups(n) => p.groups = p.groups.max(n),
                Message::Notice(n) => p.notices.push(n),
                Message::Error(e) => {
                    if !p.errors.contains(&e) {
                        p.errors.push(e)
                    }
                }
                Message::End { dropped } => {
                    p.ended = true;
                    p.dropped += dropped;
                }
            }
        }
        if !started {
            return None;
        }
        p.api_calls.sort_by_key(|a| (a.start_ns, a.correlation));
        p.join();
        Some(p)
    }

    /// Moves the metrics of profiled launches into their kernel's activity record (same correlation
    /// id), keeps one activity record per launch, orders everything by start time and numbers each
    /// kernel's launches.
    fn join(&mut self) {
        let records = std::mem::take(&mut self.records);
        let (profiled, mut activity): (Vec<Record>, Vec<Record>) =
            records.into_iter().partition(|r| !r.metrics.is_empty() && is_kernel(r));
        if !profiled.is_empty() {
            // Kernel replay may report a launch once per pass: keep its first record (the kernels of one
            // graph launch share its correlation id, and differ by graph node).
            let mut seen = std::collections::HashSet::new();
            activity.retain(|r| match &r.trace {
                Some(t) if t.kind == ActivityKind::Kernel => seen.insert((t.correlation, t.graph_node)),
                _ => true,
            });
        }
        activity.sort_by_key(|r| r.trace.as_ref().and_then(|t| t.start_ns).unwrap_or(u64::MAX));
        let mut by_corr: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, r) in activity.iter().enumerate() {
            if let Some(t) = r.trace.as_ref().filter(|t| t.kind == ActivityKind::Kernel) {
                by_corr.entry(t.correlation).or_default().push(i);
            }
        }
        for p in profiled {
            // The launch's activity record: the first not yet joined of its correlation id that is the
            // same kernel with the same shape (a graph launch's kernels), or the only one.
            let slot = p.trace.as_ref().and_then(|t| by_corr.get_mut(&t.correlation)).and_then(|list| {
                let same = |i: &usize| {
                    let a = &activity[*i];
                    a.full_name() == p.full_name() && a.grid == p.grid && a.block == p.block
                };
                let at = list.iter().position(same).or((list.len() == 1).then_some(0))?;
                Some(list.remove(at))
            });
            match slot {
                Some(i) => {
                    let a = &mut activity[i];
                    a.metrics.extend(p.metrics);
                    if let (Some(t), Some(pt)) = (a.trace.as_mut(), p.trace.as_ref()) {
                        // CUPTI leaves a replayed kernel's activity untimed: the profiler's timing stands in.
                        if t.duration_ns.unwrap_or(0) == 0 && pt.duration_ns.is_some() {
                            (t.start_ns, t.duration_ns) = (pt.start_ns, pt.duration_ns);
                            a.time_ms = p.time_ms;
                        }
                    }
                }
                None => activity.push(p),
            }
        }
        // Stable: records without a start keep their launch order, after the timed ones.
        activity.sort_by_key(|r| r.trace.as_ref().and_then(|t| t.start_ns).unwrap_or(u64::MAX));
        number_launches(&mut activity);
        self.records = activity;
    }

    /// How nvprof named a device: `NVIDIA H200 (0)`.
    pub fn device_name(&self, ordinal: Option<u32>) -> String {
        let o = ordinal.unwrap_or(0);
        match self.devices.iter().find(|d| d.ordinal == o) {
            Some(d) => format!("{} ({o})", d.name),
            None => format!("Device {o} ({o})"),
        }
    }

    /// Records with a GPU time (the summary's and trace's rows).
    pub fn timed(&self) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(|r| r.time_ms.is_some())
    }

    /// Kernel records that carry measured metrics or events.
    pub fn profiled(&self) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(|r| !r.metrics.is_empty())
    }

    /// Merges another run's metrics of the same launches (application replay): the n-th profiled launch
    /// here takes the metrics of the n-th there when both are the same kernel; returns the launches
    /// that did not match.
    pub fn merge_run(&mut self, other: &Process) -> usize {
        let mut theirs = other.profiled();
        let mut mismatched = 0;
        for mine in self.records.iter_mut().filter(|r| !r.metrics.is_empty()) {
            let Some(t) = theirs.next() else { break };
            if t.full_name() == mine.full_name() {
                for m in &t.metrics {
                    if !mine.metrics.iter().any(|x| x.name == m.name) {
                        mine.metrics.push(m.clone());
                    }
                }
            } else {
                mismatched += 1;
            }
        }
        mismatched + theirs.count()
    }
}

fn is_kernel(r: &Record) -> bool {
    r.trace.as_ref().is_some_and(|t| t.kind == ActivityKind::Kernel)
}

/// Sets each kernel record's `invocation`: its place among the launches of the same kernel (same full
/// name) in launch order, which the API calls' correlation ids give (the start times of kernels on
/// different streams need not follow it), from 0.
fn number_launches(records: &mut [Record]) {
    let mut kernels: Vec<(u32, usize)> = records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.trace.as_ref().filter(|_| is_kernel(r)).map(|t| (t.correlation, i)))
        .collect();
    kernels.sort_unstable();
    let mut seen: HashMap<String, u32> = HashMap::new();
    for (_, i) in kernels {
        let n = seen.entry(records[i].full_name().to_string()).or_insert(0);
        records[i].invocation = Some(*n);
        *n += 1;
    }
}

fn merge_api(all: &mut Vec<ApiCall>, a: ApiCall) {
    match all.iter_mut().find(|x| x.name == a.name) {
        Some(x) => {
            x.min_ns = if x.calls == 0 { a.min_ns } else { x.min_ns.min(a.min_ns) };
            x.max_ns = x.max_ns.max(a.max_ns);
            x.calls += a.calls;
            x.total_ns += a.total_ns;
        }
        None => all.push(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Metric, Source, Status, TimeStats, Trace};
    use crate::spec::Dim3;

    fn kernel(corr: u32, start: Option<u64>, metrics: Vec<Metric>) -> Record {
        Record {
            time_ms: start.and_then(|_| TimeStats::from_samples(&[1.0])),
            metrics,
            signature: Some("k(void)".into()),
            trace: Some(Trace {
                correlation: corr,
                start_ns: start,
                duration_ns: start.map(|_| 1_000_000),
                ..Trace::default()
            }),
            ..Record::new("k", "", Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), Status::Ok)
        }
    }

    fn occ(v: f64) -> Metric {
        Metric { name: "achieved_occupancy".into(), value: v, unit: "ratio".into(), source: Source::Measured }
    }

    #[test]
    fn metrics_join_their_launch_and_replays_collapse() {
        let msgs = vec![
            Message::Start { pid: 5, ppid: 1, command: "./a".into() },
            Message::Record(Box::new(kernel(9, None, vec![occ(0.5)]))),
            Message::Record(Box::new(kernel(9, Some(200), vec![]))),
            Message::Record(Box::new(kernel(9, Some(300), vec![]))),
            Message::Record(Box::new(kernel(4, Some(100), vec![]))),
            Message::Api(ApiCall { name: "cudaMalloc".into(), calls: 1, total_ns: 5, min_ns: 5, max_ns: 5 }),
            Message::Api(ApiCall { name: "cudaMalloc".into(), calls: 2, total_ns: 9, min_ns: 3, max_ns: 6 }),
            Message::End { dropped: 0 },
        ];
        let p = Process::from_messages(msgs, 0).unwrap();
        assert!(p.ended);
        assert_eq!(p.records.len(), 2);
        assert_eq!(p.records[0].trace.as_ref().unwrap().correlation, 4);
        assert_eq!(p.records[1].metrics, vec![occ(0.5)]);
        // Launches numbered from 0 by correlation id (launch order), whatever their start times.
        let inv: Vec<_> = p.records.iter().map(|r| (r.trace.as_ref().unwrap().correlation, r.invocation)).collect();
        assert_eq!(inv, [(4, Some(0)), (9, Some(1))]);
        assert_eq!(p.api, vec![ApiCall { name: "cudaMalloc".into(), calls: 3, total_ns: 14, min_ns: 3, max_ns: 6 }]);
        assert!(Process::from_messages(vec![Message::End { dropped: 0 }], 0).is_none());
    }

    #[test]
    fn application_replay_runs_merge_by_launch_order() {
        let start = Message::Start { pid: 5, ppid: 1, command: "./a".into() };
        let gld = |v| Metric { name: "gld_efficiency".into(), value: v, unit: "%".into(), source: Source::Measured };
        let mut a = Process::from_messages(
            vec![
                start.clone(),
                Message::Record(Box::new(kernel(1, None, vec![occ(0.5)]))),
                Message::Record(Box::new(kernel(2, None, vec![occ(0.7)]))),
            ],
            0,
        )
        .unwrap();
        let b = Process::from_messages(
            vec![
                start,
                Message::Record(Box::new(kernel(11, None, vec![gld(100.0)]))),
                Message::Record(Box::new(kernel(12, None, vec![gld(50.0)]))),
            ],
            0,
        )
        .unwrap();
        assert_eq!(a.merge_run(&b), 0);
        assert_eq!(a.records[1].metrics, vec![occ(0.7), gld(50.0)]);
    }

    #[test]
    fn a_graph_launchs_kernels_each_take_their_own_metrics() {
        // One graph launch (correlation 7) ran inc, scale2, inc of another shape; kernel replay reported
        // each node twice (once per pass, untimed), and the profiler named the ranges in run order.
        let node = |name: &str, grid: u32, id: u64, start: Option<u64>, metrics: Vec<Metric>| {
            let mut r = kernel(7, start, metrics);
            r.kernel = name.into();
            r.signature = Some(format!("{name}(float*, int)"));
            r.grid = Some(Dim3::new(grid, 1, 1));
            if let Some(t) = r.trace.as_mut() {
                t.graph_node = (start.is_some()).then_some(id);
                t.duration_ns = start.map(|_| 0);
            }
            r
        };
        let mut msgs = vec![Message::Start { pid: 5, ppid: 1, command: "./graph".into() }];
        for pass in 0..2 {
            msgs.push(Message::Record(Box::new(node("inc", 4096, 1, Some(100 + pass), vec![]))));
            msgs.push(Message::Record(Box::new(node("scale2", 8192, 2, Some(200 + pass), vec![]))));
            msgs.push(Message::Record(Box::new(node("inc", 2048, 3, Some(300 + pass), vec![]))));
        }
        for (name, grid, v) in [("inc", 4096, 0.1), ("scale2", 8192, 0.2), ("inc", 2048, 0.3)] {
            let mut p = node(name, grid, 0, None, vec![occ(v)]);
            if let Some(t) = p.trace.as_mut() {
                (t.start_ns, t.duration_ns) = (Some(1000), Some(2000));
            }
            msgs.push(Message::Record(Box::new(p)));
        }
        let p = Process::from_messages(msgs, 0).unwrap();
        let got: Vec<_> = p
            .records
            .iter()
            .map(|r| (r.kernel.as_str(), r.grid.unwrap().x, r.metrics.first().map(|m| m.value), r.invocation))
            .collect();
        assert_eq!(
            got,
            [
                ("inc", 4096, Some(0.1), Some(0)),
                ("scale2", 8192, Some(0.2), Some(0)),
                ("inc", 2048, Some(0.3), Some(1))
            ]
        );
    }
}
