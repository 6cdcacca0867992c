//! `ncu --csv` (the details page, one row per metric) of every layout since 2019: with a `Kernel Time`
//! column and the launch only in the Launch Statistics section (2019-2023), with `Rule` columns and
//! rows shorter than the header (2022 on), with `Block Size`, `Grid Size`, `Device`, `CC` and
//! `Estimated Speedup` columns and a trailing comma on every metric row (2023 on); and
//! `--print-summary per-kernel` (no `ID`; `Invocations`, `Minimum`, `Maximum`, `Average`: one summary
//! record per kernel and shape, its values the averages). Rows of one launch are contiguous, so each
//! launch is finished as soon as the next begins.

use crate::error::Result;
use crate::record::Report;

use super::build::{Builder, Launch, parse_dim};
use super::csvline;
use super::ncu_map::{self, Value};
use super::units::Locale;

/// Whether `fields` is a details-page (or per-kernel summary) header.
pub fn is_header<S: AsRef<str>>(fields: &[S]) -> bool {
    let has = |n: &str| fields.iter().any(|f| f.as_ref() == n);
    has("Metric Name") && (fields.first().is_some_and(|f| f.as_ref() == "ID") || (has("Invocations") && has("Average")))
}

/// Where the columns are.
struct Cols {
    /// The launch's ID; a summary has none.
    id: Option<usize>,
    invocations: Option<usize>,
    min: Option<usize>,
    max: Option<usize>,
    pid: Option<usize>,
    kernel: usize,
    block: Option<usize>,
    grid: Option<usize>,
    device: Option<usize>,
    cc: Option<usize>,
    section: Option<usize>,
    name: usize,
    unit: Option<usize>,
    value: usize,
}

impl Cols {
    fn of<S: AsRef<str>>(h: &[S]) -> Option<Cols> {
        let at = |n: &str| h.iter().position(|f| f.as_ref() == n);
        Some(Cols {
            id: at("ID"),
            invocations: at("Invocations"),
            min: at("Minimum"),
            max: at("Maximum"),
            pid: at("Process ID"),
            kernel: at("Kernel Name")?,
            block: at("Block Size"),
            grid: at("Grid Size"),
            device: at("Device"),
            cc: at("CC"),
            section: at("Section Name"),
            name: at("Metric Name")?,
            unit: at("Metric Unit"),
            value: at("Metric Value").or_else(|| at("Average"))?,
        })
    }
}

/// The launch being read.
struct Current {
    key: Vec<String>,
    launch: Launch,
    values: Vec<Value>,
}

fn flush(cur: Option<Current>, b: &mut Builder) {
    if let Some(mut c) = cur {
        if let (Some(n), Some(d)) = (ncu_map::sms(&c.values), c.launch.device) {
            b.device(d, "", None).sms.get_or_insert(n);
        }
        // A summary's duration range, read with its rows, goes after the averages.
        let ranges = c.launch.metrics.len();
        ncu_map::add_metrics(&c.values, &mut c.launch);
        c.launch.metrics.rotate_left(ranges);
        b.push(c.launch);
    }
}

/// Reads the details page (any program output or `==PROF==` lines between rows are skipped).
pub fn read(lines: &mut dyn Iterator<Item = Result<String>>) -> Result<Report> {
    let mut b = Builder::new(crate::gpu::Origin::Ncu);
    let mut cols: Option<Cols> = None;
    let mut cur: Option<Current> = None;
    // Numbers as the file writes them (a decimal comma under some locales), from its values so far.
    let mut locale = Locale::default();
    for line in csvline::quoted(lines) {
        let line = line?;
        let f = csvline::split(&line);
        if is_header(&f) {
            // Files concatenated from several runs repeat the header.
            flush(cur.take(), &mut b);
            cols = Cols::of(&f);
            continue;
        }
        let Some(c) = &cols else { continue };
        let get = |i: Option<usize>| i.and_then(|i| f.get(i)).map(|s| &**s).unwrap_or("");
        if f.len() <= c.kernel || c.id.is_some_and(|_| get(c.id).is_empty()) || get(Some(c.kernel)).is_empty() {
            continue;
        }
        // IDs restart in every profiled process: a launch is (process, ID); a summary row's kernel is
        // its name and shape.
        let key: Vec<String> = match c.id {
            Some(_) => [c.pid, c.id].iter().map(|&i| get(i).to_string()).collect(),
            None => [c.pid, Some(c.kernel), c.block, c.grid, c.device, c.invocations]
                .iter()
                .map(|&i| get(i).to_string())
                .collect(),
        };
        if cur.as_ref().is_none_or(|x| x.key != key) {
            flush(cur.take(), &mut b);
            let device = get(c.device).trim().parse::<u32>().ok();
            if let Some(d) = device {
                b.device(d, "", Some(get(c.cc).to_string()));
            }
            cur = Some(Current {
                key,
                launch: Launch {
                    name: get(Some(c.kernel)).to_string(),
                    grid: parse_dim(get(c.grid)),
                    block: parse_dim(get(c.block)),
                    device,
                    summary_of: get(c.invocations).trim().parse().ok(),
                    ..Default::default()
                },
                values: Vec::new(),
            });
        }
        let name = get(Some(c.name));
        // Rule rows (a rule's name, type and advice) carry no metric.
        if name.is_empty() {
            continue;
        }
        let section = c.section.map(|_| get(c.section));
        let Some(cur) = cur.as_mut() else { continue };
        let text = get(Some(c.value));
        if let Some(v) = Value::parse(name, section, get(c.unit), text, locale.follow(text)) {
            cur.values.push(v);
        }
        for (i, n) in [(c.min, "duration_min"), (c.max, "duration_max")] {
            if let Some(ms) = i
                .map(|i| get(Some(i)))
                .and_then(|t| Value::parse(name, section, get(c.unit), t, locale.follow(t)))
                .as_ref()
                .and_then(ncu_map::duration_ms)
            {
                cur.launch.add(n, ms, crate::metrics::MS);
            }
        }
    }
    flush(cur, &mut b);
    b.finish("ncu CSV")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Dim3;

    #[test]
    fn per_kernel_summary_rows_make_one_summary_record_per_shape() {
        let text = r#"==PROF== Disconnected from process 1
"Process ID","Process Name","Host Name","Kernel Name","Block Size","Grid Size","Device","CC","Invocations","Section Name","Metric Name","Metric Unit","Minimum","Maximum","Average"
"7","a.out","127.0.0.1","saxpy(float, const float *, float *, unsigned long)","(256, 1, 1)","(4096, 1, 1)","0","9.0","14","GPU Speed Of Light Throughput","Duration","usecond","2.50","3.50","3.00"
"7","a.out","127.0.0.1","saxpy(float, const float *, float *, unsigned long)","(256, 1, 1)","(4096, 1, 1)","0","9.0","14","Occupancy","Achieved Occupancy","%","80.00","90.00","85.00"
"7","a.out","127.0.0.1","saxpy(float, const float *, float *, unsigned long)","(128, 1, 1)","(8192, 1, 1)","0","9.0","2","GPU Speed Of Light Throughput","Duration","usecond","4.00","4.00","4.00"
"#;
        assert!(is_header(&csvline::split(text.lines().nth(1).unwrap())));
        let mut lines = text.lines().map(|l| Ok(l.to_string()));
        let rep = read(&mut lines).unwrap();
        assert_eq!(rep.records.len(), 2, "one per shape");
        let r = &rep.records[0];
        assert_eq!((r.kernel.as_str(), r.summary_of, r.invocation), ("saxpy", Some(14), None));
        assert_eq!((r.grid, r.block), (Some(Dim3::new(4096, 1, 1)), Some(Dim3::new(256, 1, 1))));
        let m = |n: &str| r.metrics.iter().find(|m| m.name == n).map(|m| m.value);
        assert_eq!((m("duration"), m("duration_min"), m("duration_max")), (Some(0.003), Some(0.0025), Some(0.0035)));
        assert_eq!(m("achieved_occupancy"), Some(0.85));
        assert_eq!(r.metrics[0].name, "duration", "ranges after the averages");
        assert_eq!(rep.records[1].summary_of, Some(2));
        assert_eq!(rep.device.compute_capability.as_deref(), Some("9.0"));
    }
}
