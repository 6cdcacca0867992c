//! `ncu --csv` (the details page, one row per metric) of every layout since 2019: with a `Kernel Time`
//! column and the launch only in the Launch Statistics section (2019-2023), with `Rule` columns and
//! rows shorter than the header (2022 on), with `Block Size`, `Grid Size`, `Device`, `CC` and
//! `Estimated Speedup` columns and a trailing comma on every metric row (2023 on). Rows of one launch
//! are contiguous, so each launch is finished as soon as the next begins.

use crate::error::Result;
use crate::record::Report;

use super::build::{Builder, Launch, parse_dim};
use super::csvline;
use super::ncu_map::{self, Value};

/// Whether `fields` is a details-page header.
pub fn is_header<S: AsRef<str>>(fields: &[S]) -> bool {
    fields.first().is_some_and(|f| f.as_ref() == "ID") && fields.iter().any(|f| f.as_ref() == "Metric Name")
}

/// Where the columns are.
struct Cols {
    id: usize,
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
            id: at("ID")?,
            pid: at("Process ID"),
            kernel: at("Kernel Name")?,
            block: at("Block Size"),
            grid: at("Grid Size"),
            device: at("Device"),
            cc: at("CC"),
            section: at("Section Name"),
            name: at("Metric Name")?,
            unit: at("Metric Unit"),
            value: at("Metric Value")?,
        })
    }
}

/// The launch being read.
struct Current {
    key: (String, String),
    launch: Launch,
    values: Vec<Value>,
}

fn flush(cur: Option<Current>, b: &mut Builder) {
    if let Some(mut c) = cur {
        if let (Some(n), Some(d)) = (ncu_map::sms(&c.values), c.launch.device) {
            b.device(d, "", None).sms.get_or_insert(n);
        }
        ncu_map::add_metrics(&c.values, &mut c.launch);
        b.push(c.launch);
    }
}

/// Reads the details page (any program output or `==PROF==` lines between rows are skipped).
pub fn read(lines: &mut dyn Iterator<Item = Result<String>>) -> Result<Report> {
    let mut b = Builder::new("ncu");
    let mut cols: Option<Cols> = None;
    let mut cur: Option<Current> = None;
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
        if f.len() <= c.kernel || get(Some(c.id)).is_empty() {
            continue;
        }
        // IDs restart in every profiled process: a launch is (process, ID).
        let key = (get(c.pid).to_string(), get(Some(c.id)).to_string());
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
        if let (Some(v), Some(cur)) = (Value::parse(name, section, get(c.unit), get(Some(c.value))), cur.as_mut()) {
            cur.values.push(v);
        }
    }
    flush(cur, &mut b);
    b.finish("ncu CSV")
}
