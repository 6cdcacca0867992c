//! Nsight Compute's text output: the default details page and `--metrics`, old layout (`name, date,
//! Context 1, Stream 7`, tables without a header) and new (`name (g)x(b), Context 1, Stream 7, Device
//! 0, CC 8.9`, tables with `Metric Name Metric Unit Metric Value`), and `--print-summary per-kernel`
//! (`name (g)x(b), Device 0, CC 8.9, Invocations 14`, tables of `Minimum Maximum Average`: one summary
//! record per kernel and shape, its values the averages; newer versions list the kernels under a
//! `Device 0, CC 9.0` line; versions of 2021-22 print `name, Block Size 256, Grid Size 32, Device 0,
//! 1 invocations`, and with `per-gpu` repeat that line over each section, under a `Device 0` line).
//! Tables are read by the columns their dashed rules mark out (titles above or between the rules; a
//! blank line ends a table that has no closing rule); rule advice, `==PROF==` lines and program output
//! are skipped; `==ERROR==` lines before a launch mark it failed.

use std::collections::HashMap;

use crate::error::Result;
use crate::record::Report;
use crate::spec::Dim3;

use super::build::{Builder, Launch, parse_dim};
use super::ncu_map::{self, Value};
use super::units::Locale;

/// A launch's first line.
#[derive(Debug, PartialEq)]
struct Header {
    name: String,
    grid: Option<Dim3>,
    block: Option<Dim3>,
    device: Option<u32>,
    cc: Option<String>,
    /// Launches a summary line aggregates.
    invocations: Option<u64>,
    /// Threads per block and blocks in the grid, where the line gives them as numbers.
    sizes: Option<(f64, f64)>,
}

/// The launch line of either layout, or a summary's kernel line, if `line` is one.
fn header(line: &str) -> Option<Header> {
    let t = line.trim();
    if let Some(h) = sized_header(t) {
        return Some(h);
    }
    let (head, tail) = match t.rfind(", Context ") {
        Some(at) => t.split_at(at),
        // A summary's line has no context: its fields follow the block's `)`.
        None => {
            let x = t.rfind(")x(")?;
            t.split_at(x + 3 + t[x + 3..].find(')')? + 1)
        }
    };
    let field = |key: &str| tail.split(", ").find_map(|p| p.strip_prefix(key)).map(str::trim);
    let invocations = field("Invocations ").and_then(|n| n.parse().ok());
    if !tail.contains(", Stream ") && invocations.is_none() {
        return None;
    }
    let device = field("Device ").and_then(|d| d.parse().ok());
    let cc = field("CC ").map(String::from);
    let head = head.trim_end();
    // New layout: `name (gx, gy, gz)x(bx, by, bz)`.
    if head.ends_with(')')
        && let Some(x) = head.rfind(")x(")
        && let Some(open) = head[..x].rfind('(')
    {
        let name = head[..open].trim_end().to_string();
        let (grid, block) = (parse_dim(&head[open..=x]), parse_dim(&head[x + 2..]));
        return Some(Header { name, grid, block, device, cc, invocations, sizes: None });
    }
    // Old layout: `name, 2022-Jun-02 19:23:13`.
    let name = match head.rsplit_once(", ") {
        Some((n, date))
            if date.len() >= 10
                && date.get(..4).is_some_and(|y| y.chars().all(|c| c.is_ascii_digit()))
                && date.get(4..).is_some_and(|r| r.starts_with('-')) =>
        {
            n
        }
        _ => head,
    };
    Some(Header { name: name.trim().to_string(), grid: None, block: None, device, cc, invocations, sizes: None })
}

/// A summary's kernel line of 2021-22: `name, Block Size 256, Grid Size 32[, Device 0], 1 invocations`
/// (sizes as thread and block counts, not shapes).
fn sized_header(t: &str) -> Option<Header> {
    let (name, tail) = t.split_once(", Block Size ")?;
    let mut parts = tail.split(", ");
    let block: f64 = parts.next()?.trim().parse().ok()?;
    let (mut grid, mut device, mut invocations) = (None, None, None);
    for p in parts.map(str::trim) {
        if let Some(g) = p.strip_prefix("Grid Size ") {
            grid = g.trim().parse().ok();
        } else if let Some(d) = p.strip_prefix("Device ") {
            device = d.trim().parse().ok();
        } else if let Some(n) = p.strip_suffix(" invocations").or_else(|| p.strip_suffix(" invocation")) {
            invocations = n.trim().parse().ok();
        }
    }
    Some(Header {
        name: name.trim().to_string(),
        grid: None,
        block: None,
        device,
        cc: None,
        invocations: Some(invocations?),
        sizes: Some((block, grid?)),
    })
}

/// Whether `line` starts an ncu text page (a launch line).
pub fn is_start(line: &str) -> bool {
    header(line).is_some()
}

/// The runs of dashes of a table rule, as byte ranges; `None` if `line` is not a rule.
fn rule(line: &str) -> Option<Vec<(usize, usize)>> {
    let t = line.trim();
    if t.len() < 3 || !t.chars().all(|c| c == '-' || c == ' ') {
        return None;
    }
    let mut runs = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices().chain(std::iter::once((line.len(), ' '))) {
        match (c, start) {
            ('-', None) => start = Some(i),
            (' ', Some(s)) => {
                runs.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    Some(runs)
}

enum State {
    Idle,
    /// After `Section:`, before its table's first rule.
    Section(String),
    /// In a table: its section, where its columns start (name, unit, value; or name, unit, minimum,
    /// maximum, average), rows read so far.
    Table {
        section: String,
        cols: Vec<usize>,
        rows: usize,
    },
}

/// Reads ncu's text output.
pub fn read(lines: &mut dyn Iterator<Item = Result<String>>) -> Result<Report> {
    let mut b = Builder::new(crate::gpu::Origin::Ncu);
    // Launches in order of their first line; the one being read; a summary's line seen before in this
    // process (`per-gpu` repeats it over each section) continues its record.
    let mut open: Vec<(Launch, Vec<Value>)> = Vec::new();
    let mut cur: Option<usize> = None;
    let mut summaries: HashMap<String, usize> = HashMap::new();
    let mut errors: Vec<String> = Vec::new();
    let mut state = State::Idle;
    // A summary's `Device 0, CC 9.0` (or `Device 0`) line, over the kernels listed under it.
    let mut device_line: Option<(u32, Option<String>)> = None;
    // Numbers as the file writes them (a decimal comma under some locales), from its values so far.
    let mut locale = Locale::default();
    for line in lines {
        let line = line?;
        let t = line.trim();
        if let Some(e) = t.strip_prefix("==ERROR==") {
            errors.push(e.trim().to_string());
            continue;
        }
        // `[1342173] app@127.0.0.1`: another process's results; its summaries are its own.
        if t.starts_with('[') && t.contains("] ") && t.contains('@') {
            summaries.clear();
            device_line = None;
            state = State::Idle;
            continue;
        }
        if matches!(state, State::Idle | State::Section(_))
            && let Some(mut h) = header(&line)
        {
            state = State::Idle;
            if h.invocations.is_some()
                && let Some(&i) = summaries.get(t)
            {
                cur = Some(i);
                continue;
            }
            if h.device.is_none()
                && let Some((d, cc)) = &device_line
            {
                h.device = Some(*d);
                h.cc = h.cc.or_else(|| cc.clone());
            }
            if let Some(d) = h.device {
                b.device(d, "", h.cc.clone());
            }
            let failed = (!errors.is_empty()).then(|| format!("ncu reported: {}", errors.join("; ")));
            errors.clear();
            let mut l = Launch {
                name: h.name,
                grid: h.grid,
                block: h.block,
                device: h.device,
                failed,
                summary_of: h.invocations,
                ..Default::default()
            };
            if let Some((threads, blocks)) = h.sizes {
                l.add(ncu_map::BLOCK_SIZE, threads, "thread");
                l.add(ncu_map::GRID_SIZE, blocks, "block");
            }
            if h.invocations.is_some() {
                summaries.insert(t.to_string(), open.len());
            }
            cur = Some(open.len());
            open.push((l, Vec::new()));
            continue;
        }
        if matches!(state, State::Idle)
            && let Some(rest) = t.strip_prefix("Device ")
        {
            let (d, cc) = match rest.split_once(", CC ") {
                Some((d, cc)) => (d, Some(cc.trim().to_string())),
                None => (rest, None),
            };
            if let Ok(d) = d.trim().parse() {
                b.device(d, "", cc.clone());
                device_line = Some((d, cc));
                continue;
            }
        }
        if let Some(s) = t.strip_prefix("Section: ") {
            state = State::Section(s.trim().to_string());
            continue;
        }
        state = match (state, rule(&line)) {
            (State::Section(section), Some(runs)) if runs.len() == 3 || runs.len() == 5 => {
                State::Table { section, cols: runs.iter().map(|r| r.0).collect(), rows: 0 }
            }
            // Column titles above the table's one rule (2021-22 summaries).
            (State::Section(section), None) if t.starts_with("Metric Name ") => State::Section(section),
            // A two-column rule under rule advice, or a section without a table.
            (State::Section(_), _) => State::Idle,
            // A table without a closing rule ends at a blank line.
            (State::Table { .. }, None) if t.is_empty() => State::Idle,
            (State::Table { rows, section, cols }, Some(_)) => {
                if rows == 0 {
                    State::Table { section, cols, rows }
                } else {
                    State::Idle
                }
            }
            (State::Table { section, cols, rows }, None) => {
                let cell = |i: usize| {
                    let end = cols.get(i + 1).copied().unwrap_or(line.len()).min(line.len());
                    line.get(cols[i].min(end)..end).unwrap_or("").trim()
                };
                let name = cell(0);
                // The column titles of the new layout, between the two rules that open a table.
                if rows == 0 && name == "Metric Name" {
                    State::Table { section, cols, rows }
                } else {
                    if let Some((l, values)) = cur.and_then(|i| open.get_mut(i)) {
                        let mut value =
                            |i: usize| Value::parse(name, Some(&section), cell(1), cell(i), locale.follow(cell(i)));
                        // A summary's value is the average; its duration keeps its range, as nvprof's did.
                        if let Some(v) = value(cols.len() - 1) {
                            values.push(v);
                        }
                        if cols.len() == 5 {
                            for (i, n) in [(2, "duration_min"), (3, "duration_max")] {
                                if let Some(ms) = value(i).as_ref().and_then(ncu_map::duration_ms) {
                                    l.add(n, ms, crate::metrics::MS);
                                }
                            }
                        }
                    }
                    State::Table { section, cols, rows: rows + 1 }
                }
            }
            (s, _) => s,
        };
    }
    for (mut l, values) in open {
        if let (Some(n), Some(d)) = (ncu_map::sms(&values), l.device) {
            b.device(d, "", None).sms.get_or_insert(n);
        }
        // A summary's duration range and sizes, read before its rows, go after the averages.
        let ranges = l.metrics.len();
        ncu_map::add_metrics(&values, &mut l);
        l.metrics.rotate_left(ranges);
        b.push(l);
    }
    b.finish("ncu text output")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_kernels_under_a_device_line() {
        let row = |c: [&str; 5]| format!("      {:<64} {:>11} {:>7} {:>7} {:>7}\n", c[0], c[1], c[2], c[3], c[4]);
        let dashes = row(["-".repeat(64).as_str(), "-----------", "-------", "-------", "-------"]);
        let text = [
            "[11139] a.out@127.0.0.1\n".to_string(),
            "  Device 0, CC 9.0\n".into(),
            "    bitonic_merge(int *, int, int, int) (16384, 1, 1)x(512, 1, 1), Invocations 300\n".into(),
            "      Section: Command line profiler metrics\n".into(),
            dashes.clone(),
            row(["Metric Name", "Metric Unit", "Minimum", "Maximum", "Average"]),
            dashes.clone(),
            row(["sm__warps_active.avg.pct_of_peak_sustained_active", "%", "70.30", "78.18", "73.84"]),
            row(["gpu__time_duration.sum", "usecond", "1.50", "2.50", "2.00"]),
            dashes,
            "\n    fill_padding(int *, int, int, int) (52947, 1, 1)x(128, 1, 1), Invocations 1\n".into(),
        ]
        .concat();
        let mut lines = text.lines().map(|l| Ok(l.to_string()));
        let rep = read(&mut lines).unwrap();
        assert_eq!(rep.records.len(), 2);
        assert_eq!(rep.device.compute_capability.as_deref(), Some("9.0"));
        let r = &rep.records[0];
        assert_eq!(
            (r.kernel.as_str(), r.summary_of, r.block),
            ("bitonic_merge", Some(300), Some(Dim3::new(512, 1, 1)))
        );
        let m = |n: &str| r.metrics.iter().find(|m| m.name == n).map(|m| m.value);
        // The catalogue maps the counter to achieved_occupancy, a ratio.
        assert_eq!(m("achieved_occupancy"), Some(0.7384));
        assert_eq!((m("duration"), m("duration_min"), m("duration_max")), (Some(0.002), Some(0.0015), Some(0.0025)));
        assert_eq!(rep.records[1].summary_of, Some(1));
    }

    fn read_text(text: &str) -> Report {
        read(&mut text.lines().map(|l| Ok(l.to_string()))).unwrap()
    }

    fn metric(r: &crate::record::Record, name: &str) -> Option<f64> {
        r.metrics.iter().find(|m| m.name == name).map(|m| m.value)
    }

    #[test]
    fn a_details_page_under_a_decimal_comma_locale() {
        // The old layout as ncu prints it under a Spanish locale (seen in a course's notes of 2023):
        // decimals after a comma, thousands grouped by dots, in the same rows as plain numbers.
        let row = |n: &str, u: &str, v: &str| format!("    {n:<70} {u:>15} {v:>30}\n");
        let rule = format!("    {} {} {}\n", "-".repeat(70), "-".repeat(15), "-".repeat(30));
        let text = [
            "  transpose_device(float *, float *, int, int), 2023-Mar-17 14:00:06, Context 1, Stream 7\n".to_string(),
            "    Section: GPU Speed Of Light Throughput\n".into(),
            rule.clone(),
            row("DRAM Frequency", "cycle/nsecond", "6,72"),
            row("Elapsed Cycles", "cycle", "13.490.336"),
            row("Duration", "msecond", "9,97"),
            row("SM Active Cycles", "cycle", "9.420.231,80"),
            row("Registers Per Thread", "register/thread", "32"),
            row("Threads", "thread", "262.144"),
            rule,
        ]
        .concat();
        let rep = read_text(&text);
        let r = &rep.records[0];
        assert_eq!(metric(r, "duration"), Some(9.97));
        assert_eq!(metric(r, "Elapsed Cycles"), Some(13_490_336.0));
        assert_eq!(metric(r, "SM Active Cycles"), Some(9_420_231.8));
        // `262.144` alone could be either; the file's other numbers say a dot groups thousands here.
        assert_eq!(metric(r, "Threads"), Some(262_144.0));
    }

    #[test]
    fn summaries_of_2022_with_sizes_and_per_gpu_repeats() {
        let row = |c: [&str; 5]| format!("      {:<40} {:<11} {:<9} {:<9} {:<9}\n", c[0], c[1], c[2], c[3], c[4]);
        let table = |section: &str, rows: &[[&str; 5]]| {
            let mut t = format!("      Section: {section}\n");
            t += &row(["Metric Name", "Metric Unit", "Minimum", "Maximum", "Average"]);
            t += &row(["-".repeat(40).as_str(), "-----------", "---------", "---------", "---------"]);
            for r in rows {
                t += &row(*r);
            }
            t + "\n"
        };
        let kernel = "    kitsune_kernel, Block Size 256, Grid Size 1024, 3 invocations \n";
        // `--print-summary per-gpu`: the kernel's line over each of its sections, under `Device 0`.
        let text = [
            "[1342173] raytrace@127.0.0.1\n".to_string(),
            "  Device 0\n".into(),
            kernel.into(),
            table(
                "Compute Workload Analysis",
                &[["sm__inst_executed.avg.per_cycle_active", "inst/cycle", "2.5", "2.7", "2.6"]],
            ),
            kernel.into(),
            table("GPU Speed Of Light Throughput", &[["gpu__time_duration.sum", "second", "7.0", "8.0", "7.5"]]),
            // Another process's summary of a kernel of the same line is its own record.
            "[1342999] raytrace@127.0.0.1\n".into(),
            "  Device 0\n".into(),
            kernel.into(),
            table("GPU Speed Of Light Throughput", &[["gpu__time_duration.sum", "second", "1.0", "1.0", "1.0"]]),
            // 2021's per-kernel line names its device.
            "  transpose_device(float *, float *, int, int), Block Size 256, Grid Size 32, Device 0, 1 invocations \n"
                .into(),
            table(
                "GPU Speed Of Light Throughput",
                &[["gpu__time_duration.sum", "msecond", "9.989888", "9.989888", "9.989888"]],
            ),
        ]
        .concat();
        let rep = read_text(&text);
        assert_eq!(rep.records.len(), 3, "{:?}", rep.records.iter().map(|r| &r.kernel).collect::<Vec<_>>());
        let r = &rep.records[0];
        assert_eq!((r.kernel.as_str(), r.summary_of, r.device), ("kitsune_kernel", Some(3), Some(0)));
        assert_eq!(metric(r, "duration"), Some(7500.0));
        assert_eq!((metric(r, "duration_min"), metric(r, "duration_max")), (Some(7000.0), Some(8000.0)));
        // The counter is nvprof's ipc, and takes its name.
        assert_eq!(metric(r, "ipc"), Some(2.6));
        assert_eq!((metric(r, "block_size"), metric(r, "grid_size")), (Some(256.0), Some(1024.0)));
        assert_eq!((r.grid, r.block), (None, None), "sizes are counts, not shapes");
        assert_eq!(metric(&rep.records[1], "duration"), Some(1000.0));
        let t = &rep.records[2];
        assert_eq!((t.kernel.as_str(), t.summary_of), ("transpose_device", Some(1)));
        assert_eq!(metric(t, "duration"), Some(9.989888));
    }

    #[test]
    fn launch_lines_of_both_layouts() {
        let h = header(
            "  sgemm(int, int, int, float, float, const float *, const float *, float *) (32, 32, 1)x(32, 32, 1), Context 1, Stream 7, Device 0, CC 7.5",
        )
        .unwrap();
        assert_eq!(h.name, "sgemm(int, int, int, float, float, const float *, const float *, float *)");
        assert_eq!((h.grid, h.block), (Some(Dim3::new(32, 32, 1)), Some(Dim3::new(32, 32, 1))));
        assert_eq!((h.device, h.cc.as_deref()), (Some(0), Some("7.5")));
        let h = header("  vadd(float const *,float const *,float*,int), 2022-Jun-02 19:23:13, Context 1, Stream 7")
            .unwrap();
        assert_eq!(h.name, "vadd(float const *,float const *,float*,int)");
        assert_eq!((h.grid, h.device), (None, None));
        let h =
            header("  fused_gate_up_kernel (16, 76, 1)x(128, 1, 1), Context 1, Stream 7, Device 0, CC 8.6").unwrap();
        assert_eq!(h.name, "fused_gate_up_kernel");
        let h = header("  heat_kernel_1d_sim(float *, float *, BoundaryCondition) (2, 1, 1)x(512, 1, 1), Device 0, CC 8.9, Invocations 250")
            .unwrap();
        assert_eq!(
            (h.name.as_str(), h.block, h.invocations),
            ("heat_kernel_1d_sim(float *, float *, BoundaryCondition)", Some(Dim3::new(512, 1, 1)), Some(250))
        );
        assert!(header("  k (2, 1, 1)x(512, 1, 1), Device 0").is_none(), "no context and no invocations");
        assert!(header("    Section: GPU Speed Of Light Throughput").is_none());
        assert_eq!(rule("    ---- ----- --").map(|r| r.len()), Some(3));
        assert!(rule("    Metric Name").is_none());
    }
}
