//! Side by side: any two result files — warpscope's, Nsight Compute's, nvprof's — kernel by kernel.
//! Launches group by short kernel name and launch shape; a group of one file pairs with the group of
//! the other that has the same name and shape, else (two runs of one program at two problem sizes)
//! with the next unpaired group of that name in file order, both shapes shown. Every metric both sides
//! have becomes a row with the difference of their medians; what stays unpaired says why.

pub mod run;

use serde::Serialize;

use crate::gpu::Origin;
use crate::import::{BLOCK_SIZE, GRID_SIZE};
use crate::metrics;
use crate::record::{Record, Report, Source, Status, dims};
use crate::spec::Dim3;
use crate::stats::median;

/// Which of warpscope's values to hold against the other file's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Measured values (CUPTI counters, CUDA events; imported ones); the model's where nothing was
    /// measured.
    Measured,
    /// The model's estimates (imported values on a side that has no estimates).
    Estimated,
}

/// How two groups were paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Matched {
    /// Same kernel, same launch shape (or neither file gives one).
    Shape,
    /// Same kernel and threads per block / blocks, one file giving only those counts.
    Volume,
    /// Same kernel, paired in file order: the shapes differ.
    Order,
}

/// One metric of one paired configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// Kernel (short name).
    pub kernel: String,
    /// Its full signature, where a file gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Grid in the first file.
    pub grid: Option<Dim3>,
    /// Block in the first file.
    pub block: Option<Dim3>,
    /// Grid in the second file, where it differs from the first's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_grid: Option<Dim3>,
    /// Block in the second file, where it differs from the first's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_block: Option<Dim3>,
    /// How the configurations were paired.
    pub matched_by: Matched,
    /// Metric (nvprof name where one exists).
    pub metric: String,
    /// Unit of both values.
    pub unit: String,
    /// The first file's value (median over its launches of this configuration).
    pub ours: f64,
    /// Where it came from (`measured`, `estimated`, `imported`, `events` for the event-timed median).
    pub ours_source: String,
    /// Launches of this configuration in the first file.
    pub ours_launches: u64,
    /// The second file's value (median over its launches of this configuration).
    pub theirs: f64,
    /// Launches of this configuration in the second file.
    pub launches: u64,
    /// ours - theirs, in the unit (percentage points for % and occupancy).
    pub abs_delta: f64,
    /// 100 * (ours - theirs) / |theirs|; `None` when theirs is 0.
    pub rel_delta_pct: Option<f64>,
    /// What `--fail-above` judges: percentage points for percentages and occupancy, else the relative %.
    pub delta: f64,
}

/// The whole comparison.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Comparison {
    /// Paired metrics.
    pub rows: Vec<Row>,
    /// Configurations left unpaired, and why.
    pub unmatched: Vec<String>,
    /// Advice when the differences have a known cause (ncu's locked base clocks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Comparison {
    /// The rows whose delta exceeds `limit`.
    pub fn above(&self, limit: f64) -> Vec<&Row> {
        self.rows.iter().filter(|r| r.delta.is_nan() || r.delta.abs() > limit).collect()
    }
}

fn is_points(name: &str, unit: &str) -> bool {
    unit == metrics::PCT || (unit == metrics::RATIO && name.ends_with("occupancy"))
}

/// A value in percentage points when it is a ratio of occupancy, else as it is.
fn display(name: &str, unit: &str, v: f64) -> f64 {
    if unit == metrics::RATIO && name.ends_with("occupancy") { 100.0 * v } else { v }
}

/// The name a metric is compared under: an older GPU's nvprof name (`l1_cache_global_hit_rate`, a
/// Kepler file's) is the metric it became (`global_hit_rate`), so files of the two generations pair.
fn canonical(name: &str) -> &str {
    metrics::ALIASES.iter().find(|(old, _)| *old == name).map_or(name, |(_, new)| new)
}

/// The value of `name` in `r` as `pick` asks, with its unit and source.
fn value_of<'a>(r: &'a Record, name: &str, pick: Pick) -> Option<(f64, &'a str, &'static str)> {
    let find = |s: Source| r.metrics.iter().find(|m| canonical(&m.name) == name && m.source == s);
    let m = match pick {
        Pick::Measured => find(Source::Measured)
            .or_else(|| find(Source::Mock))
            .or_else(|| find(Source::Imported))
            .or_else(|| find(Source::Estimated)),
        Pick::Estimated => find(Source::Estimated).or_else(|| find(Source::Imported)),
    };
    match m {
        Some(m) => Some((m.value, m.unit.as_str(), m.source.as_str())),
        // The kernel duration: CUDA events' median when no `duration` metric was collected.
        None if name == metrics::DURATION && pick == Pick::Measured => {
            r.time_ms.as_ref().map(|t| (t.median, metrics::MS, "events"))
        }
        None => None,
    }
}

/// Whether `qualified` is `plain` with a section after it (`SM Frequency (GPU Speed Of Light
/// Throughput)` of `SM Frequency`), as import names a metric printed in more than one section.
fn sectioned(qualified: &str, plain: &str) -> bool {
    qualified.strip_prefix(plain).is_some_and(|r| r.starts_with(" (") && r.ends_with(')'))
}

/// Launches of one kernel with one shape in one file.
struct Group<'a> {
    kernel: &'a str,
    /// Kernels of one short name with different signatures (templates, overloads) are different.
    signature: Option<&'a str>,
    grid: Option<Dim3>,
    block: Option<Dim3>,
    /// Blocks and threads per block where the file gives counts but no shape.
    counts: (Option<u64>, Option<u64>),
    records: Vec<&'a Record>,
    paired: bool,
}

/// The counts of a record without a shape (ncu's Launch Statistics).
fn counts(r: &Record) -> (Option<u64>, Option<u64>) {
    if r.grid.is_some() || r.block.is_some() {
        return (None, None);
    }
    let c = |n: &str| r.metric(n).map(|m| m.value as u64);
    (c(GRID_SIZE), c(BLOCK_SIZE))
}

impl Group<'_> {
    fn shape(&self) -> String {
        match (self.grid, self.block) {
            (None, None) => match self.counts {
                (Some(g), Some(b)) => format!("{g} blocks x {b} threads"),
                _ => "(no launch shape)".into(),
            },
            (g, b) => format!("grid {} block {}", dims(g), dims(b)),
        }
    }

    /// Blocks or threads per block as a count: from the shape, else from the launch-size metrics.
    fn volume(&self, which: &str) -> Option<u64> {
        let (d, c) = if which == GRID_SIZE { (self.grid, self.counts.0) } else { (self.block, self.counts.1) };
        d.map(|d| d.volume()).or(c)
    }

    /// Whether both give a signature and it is the same (spaces aside: tools space them differently).
    fn same_signature(&self, other: &Group) -> bool {
        let bare = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        matches!((self.signature, other.signature), (Some(a), Some(b)) if bare(a) == bare(b))
    }

    fn same_launch(&self, other: &Group) -> bool {
        self.kernel == other.kernel
            && self.grid == other.grid
            && self.block == other.block
            && self.counts == other.counts
    }

    fn launches(&self) -> u64 {
        self.records.iter().map(|r| r.summary_of.unwrap_or(1)).sum()
    }

    fn names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for r in &self.records {
            if r.time_ms.is_some() && !out.contains(&metrics::DURATION) {
                out.push(metrics::DURATION);
            }
            for m in &r.metrics {
                let name = canonical(&m.name);
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        out
    }
}

/// The file's launches grouped by kernel and shape, in order of first appearance (configurations
/// rejected before launch have nothing to compare).
fn groups(report: &Report) -> Vec<Group<'_>> {
    let mut out: Vec<Group> = Vec::new();
    for r in report.records.iter().filter(|r| r.status != Status::Invalid) {
        let c = counts(r);
        let signature = r.signature.as_deref();
        let same = |g: &&mut Group| {
            g.kernel == r.kernel && g.signature == signature && g.grid == r.grid && g.block == r.block && g.counts == c
        };
        match out.iter_mut().find(same) {
            Some(g) => g.records.push(r),
            None => out.push(Group {
                kernel: &r.kernel,
                signature,
                grid: r.grid,
                block: r.block,
                counts: c,
                records: vec![r],
                paired: false,
            }),
        }
    }
    out
}

/// The name a file goes by in messages and table headers: `warpscope` for warpscope's own results,
/// else the tool's.
pub fn label(report: &Report) -> &'static str {
    if report.device.backend.is_warpscope() { "warpscope" } else { report.device.backend.as_str() }
}

/// Compares two files. `ours` is the first; its values and shapes lead each row.
pub fn compare(ours: &Report, theirs: &Report, pick: Pick) -> Comparison {
    let (la, lb) = match (label(ours), label(theirs)) {
        (a, b) if a == b => (format!("the first {a} file"), format!("the second {b} file")),
        (a, b) => (a.to_string(), b.to_string()),
    };
    let mut a = groups(ours);
    let mut b = groups(theirs);
    let mut pairs: Vec<(usize, usize, Matched)> = Vec::new();
    // Same kernel and shape (and signature, where one of several is).
    for (j, gb) in b.iter_mut().enumerate() {
        let free = |ga: &&Group| !ga.paired && ga.same_launch(gb);
        let found =
            a.iter().position(|ga| free(&ga) && ga.same_signature(gb)).or_else(|| a.iter().position(|ga| free(&ga)));
        if let Some(i) = found {
            a[i].paired = true;
            gb.paired = true;
            pairs.push((i, j, Matched::Shape));
        }
    }
    // One side gives only counts (ncu's old Launch Statistics): same kernel and counts, if unambiguous.
    for (j, gb) in b.iter_mut().enumerate().filter(|(_, g)| !g.paired) {
        let cand: Vec<usize> = (0..a.len())
            .filter(|&i| !a[i].paired && a[i].kernel == gb.kernel && a[i].grid.is_none() != gb.grid.is_none())
            .filter(|&i| {
                let same = |w: &str| matches!((a[i].volume(w), gb.volume(w)), (Some(x), Some(y)) if x == y);
                same(GRID_SIZE) && same(BLOCK_SIZE)
            })
            .collect();
        let same_sig: Vec<usize> = cand.iter().copied().filter(|&i| a[i].same_signature(gb)).collect();
        if let [i] = if cand.len() > 1 { &same_sig[..] } else { &cand[..] } {
            let i = *i;
            a[i].paired = true;
            gb.paired = true;
            pairs.push((i, j, Matched::Volume));
        }
    }
    // The rest in file order, per kernel; a summary without a shape pairs only with a lone group.
    let mut unmatched = Vec::new();
    for (j, gb) in b.iter_mut().enumerate().filter(|(_, g)| !g.paired) {
        let left: Vec<usize> = (0..a.len()).filter(|&i| !a[i].paired && a[i].kernel == gb.kernel).collect();
        let of_name = a.iter().filter(|g| g.kernel == gb.kernel).count();
        let shapeless = gb.grid.is_none() || left.first().is_some_and(|&i| a[i].grid.is_none());
        let (kernel, shape) = (gb.kernel, gb.shape());
        if let Some(&i) = left.iter().find(|&&i| a[i].same_signature(gb)) {
            a[i].paired = true;
            gb.paired = true;
            pairs.push((i, j, Matched::Order));
            continue;
        }
        match left.first() {
            Some(&i) if !shapeless || left.len() == 1 => {
                a[i].paired = true;
                gb.paired = true;
                pairs.push((i, j, Matched::Order));
            }
            Some(_) => unmatched.push(format!(
                "{kernel} ({shape}) in {lb}: no launch shape to tell which of {la}'s {} configurations of it to compare with",
                left.len()
            )),
            None if of_name == 0 => unmatched.push(format!("{kernel} ({shape}) in {lb}: {la} has no kernel of that name")),
            None => unmatched.push(format!(
                "{kernel} ({shape}) in {lb}: each of {la}'s {of_name} configuration(s) of it is already paired"
            )),
        }
    }
    for g in a.iter().filter(|g| !g.paired) {
        let why = if b.iter().any(|x| x.kernel == g.kernel) {
            format!("each of {lb}'s configurations of it is already paired")
        } else {
            format!("{lb} has no kernel of that name")
        };
        unmatched.push(format!("{} ({}) in {la}: {why}", g.kernel, g.shape()));
    }
    pairs.sort_by_key(|p| (p.0, p.1));
    let mut rows = Vec::new();
    for &(i, j, how) in &pairs {
        let (ga, gb) = (&a[i], &b[j]);
        let before = rows.len();
        let ours_names = ga.names();
        for name in gb.names() {
            let theirs_v: Vec<(f64, &str, &str)> = gb.records.iter().filter_map(|r| value_of(r, name, pick)).collect();
            let mut ours_v: Vec<(f64, &str, &str)> =
                ga.records.iter().filter_map(|r| value_of(r, name, pick)).collect();
            // A counter ncu prints in several sections is named with its section only in a file that
            // has more than one of them: `SM Frequency` in one file is `SM Frequency (GPU Speed Of
            // Light Throughput)` in another. One measurement either way.
            if ours_v.is_empty()
                && let Some(alt) = ours_names.iter().find(|n| sectioned(n, name) || sectioned(name, n))
            {
                ours_v = ga.records.iter().filter_map(|r| value_of(r, alt, pick)).collect();
            }
            let (Some(&(_, unit, _)), Some(&(_, ours_unit, src))) = (theirs_v.first(), ours_v.first()) else {
                continue;
            };
            if unit != ours_unit {
                continue; // same name, another unit: not comparable
            }
            let med = |v: &[(f64, &str, &str)]| median(&v.iter().map(|x| x.0).collect::<Vec<_>>());
            let (Some(o), Some(t)) = (med(&ours_v), med(&theirs_v)) else { continue };
            let (o, t) = (display(name, unit, o), display(name, unit, t));
            let abs_delta = o - t;
            let rel = (t != 0.0).then(|| 100.0 * abs_delta / t.abs());
            let delta = if is_points(name, unit) {
                abs_delta
            } else {
                rel.unwrap_or(if abs_delta == 0.0 { 0.0 } else { f64::INFINITY })
            };
            let differs = ga.grid != gb.grid || ga.block != gb.block;
            rows.push(Row {
                kernel: ga.kernel.to_string(),
                signature: ga.records.iter().chain(&gb.records).find_map(|r| r.signature.clone()),
                grid: ga.grid,
                block: ga.block,
                other_grid: gb.grid.filter(|_| differs),
                other_block: gb.block.filter(|_| differs),
                matched_by: how,
                metric: name.to_string(),
                unit: if unit == metrics::RATIO && name.ends_with("occupancy") { "%".into() } else { unit.to_string() },
                ours: o,
                ours_source: src.to_string(),
                ours_launches: ga.launches(),
                theirs: t,
                launches: gb.launches(),
                abs_delta,
                rel_delta_pct: rel,
                delta,
            });
        }
        if rows.len() == before {
            let list = |g: &Group| {
                let n = g.names();
                let mut s = n.iter().take(6).copied().collect::<Vec<_>>().join(", ");
                if n.len() > 6 {
                    s.push_str(&format!(" and {} more", n.len() - 6));
                }
                if s.is_empty() { "none".to_string() } else { s }
            };
            unmatched.push(format!(
                "{} ({}): paired, but no metric in common with the same unit ({la} has {}; {lb} has {})",
                ga.kernel,
                ga.shape(),
                list(ga),
                list(gb)
            ));
        }
    }
    let hint = clock_hint(ours, theirs, &rows);
    Comparison { rows, unmatched, hint }
}

/// ncu locks the clocks to base by default; warpscope times at whatever the GPU boosts to. When one
/// file is ncu's, the other warpscope's measurements, and every kernel is slower under ncu by more
/// than timing noise, say so.
fn clock_hint(ours: &Report, theirs: &Report, rows: &[Row]) -> Option<String> {
    let ncu_first = match (ours.device.backend, theirs.device.backend) {
        (Origin::Ncu, Origin::Cuda) => true,
        (Origin::Cuda, Origin::Ncu) => false,
        _ => return None,
    };
    // Relative difference of ncu's time against the other's, percent.
    let slower: Vec<f64> = rows
        .iter()
        .filter(|r| r.metric == metrics::DURATION && r.ours > 0.0 && r.theirs > 0.0)
        .map(|r| if ncu_first { 100.0 * (r.ours / r.theirs - 1.0) } else { 100.0 * (r.theirs / r.ours - 1.0) })
        .collect();
    const NOISE_PCT: f64 = 5.0;
    if slower.len() < 2 || !slower.iter().all(|&s| s > NOISE_PCT) {
        return None;
    }
    let med = median(&slower)?;
    Some(format!(
        "every kernel duration ({}) is longer under ncu than warpscope measured, by a median {med:.0}%: ncu locks the GPU to its base clocks unless told otherwise, while warpscope times at the clocks the GPU boosts to; profile with `ncu --clock-control none` to compare like with like",
        slower.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::DeviceInfo;
    use crate::record::{Metric, TimeStats};

    fn report(backend: Origin, times: &[(u32, f64)], as_metric: bool) -> Report {
        let mut rep = Report::new(DeviceInfo::described(String::new(), backend));
        for &(bx, ms) in times {
            let mut r = Record::new("k", "", Dim3::new(64, 1, 1), Dim3::new(bx, 1, 1), Status::Ok);
            if as_metric {
                r.metrics.push(Metric {
                    name: "duration".into(),
                    value: ms,
                    unit: "ms".into(),
                    source: Source::Imported,
                });
            } else {
                r.time_ms = TimeStats::from_samples(&[ms]);
            }
            rep.records.push(r);
        }
        rep
    }

    #[test]
    fn an_older_cards_name_pairs_with_the_metric_it_became() {
        // A K40c's nvprof file says l1_cache_global_hit_rate; warpscope nvprof on a new card, asked for
        // global_hit_rate, says that: one row, under the current name.
        let file = |name: &str, value: f64| {
            let mut rep = report(Origin::Ncu, &[(256, 1.0)], true);
            rep.records[0].metrics.push(Metric {
                name: name.into(),
                value,
                unit: "%".into(),
                source: Source::Imported,
            });
            rep
        };
        let (old, new) = (file("l1_cache_global_hit_rate", 12.5), file("global_hit_rate", 40.0));
        let rows = compare(&new, &old, Pick::Measured).rows;
        let hit: Vec<_> = rows.iter().filter(|r| r.metric.contains("hit_rate")).collect();
        assert_eq!(hit.len(), 1, "{rows:?}");
        assert_eq!((hit[0].metric.as_str(), hit[0].ours, hit[0].theirs), ("global_hit_rate", 40.0, 12.5));
    }

    #[test]
    fn a_counter_named_with_its_section_in_one_file_pairs_with_its_plain_name() {
        // Two ncu CSV files of one program (2025): one has only the Roofline section, so import
        // names `SM Frequency` plainly; the other also has the Throughput section, which prints it too.
        let file = |metrics: &[(&str, f64)]| {
            let mut rep = report(Origin::Ncu, &[(256, 1.0)], true);
            for &(name, value) in metrics {
                let m = Metric { name: name.into(), value, unit: "hz".into(), source: Source::Imported };
                rep.records[0].metrics.push(m);
            }
            rep
        };
        let plain = file(&[("SM Frequency", 2.40e9)]);
        let both = file(&[
            ("SM Frequency (GPU Speed Of Light Throughput)", 2.40e9),
            ("SM Frequency (GPU Speed Of Light Roofline Chart)", 2.41e9),
        ]);
        let rows = |a: &Report, b: &Report| {
            compare(a, b, Pick::Measured).rows.into_iter().map(|r| (r.metric, r.ours, r.theirs)).collect::<Vec<_>>()
        };
        let got = rows(&plain, &both);
        assert!(got.contains(&("SM Frequency (GPU Speed Of Light Throughput)".into(), 2.40e9, 2.40e9)), "{got:?}");
        assert!(got.contains(&("SM Frequency (GPU Speed Of Light Roofline Chart)".into(), 2.40e9, 2.41e9)), "{got:?}");
        // The other way round the plain name pairs with the first of its sections.
        assert!(rows(&both, &plain).contains(&("SM Frequency".into(), 2.40e9, 2.40e9)));
        assert!(sectioned("SM Frequency (Roofline)", "SM Frequency"));
        assert!(!sectioned("SM Frequency", "SM Frequency") && !sectioned("SM Frequency Max", "SM Frequency"));
    }

    #[test]
    fn kernels_of_one_short_name_pair_by_signature() {
        // nvprof summaries of two thrust kernels both shortened to `launch_by_value`, no shapes.
        let file = |order: [(&str, f64); 2]| {
            let mut rep = Report::new(DeviceInfo::described(String::new(), Origin::Nvprof));
            for (sig, ms) in order {
                let mut r = Record::unshaped("launch_by_value", "", Status::Ok);
                r.signature = Some(sig.into());
                r.summary_of = Some(10);
                r.metrics.push(Metric {
                    name: "duration".into(),
                    value: ms,
                    unit: "ms".into(),
                    source: Source::Imported,
                });
                rep.records.push(r);
            }
            rep
        };
        let a = file([("void launch_by_value<f>(int)", 1.0), ("void launch_by_value<g>(int)", 2.0)]);
        let b = file([("void launch_by_value<g>(int )", 2.5), ("void launch_by_value<f>(int)", 1.5)]);
        let cmp = compare(&a, &b, Pick::Measured);
        assert!(cmp.unmatched.is_empty(), "{:?}", cmp.unmatched);
        let got: Vec<(f64, f64)> = cmp.rows.iter().map(|r| (r.ours, r.theirs)).collect();
        assert_eq!(got, [(1.0, 1.5), (2.0, 2.5)], "each with its own, not one group of both");
    }

    #[test]
    fn ncu_at_base_clocks_gets_the_clock_control_hint() {
        let ws = report(Origin::Cuda, &[(32, 1.0), (64, 2.0), (128, 4.0)], false);
        let slow = report(Origin::Ncu, &[(32, 1.25), (64, 2.4), (128, 5.0)], true);
        let cmp = compare(&ws, &slow, Pick::Measured);
        assert_eq!(cmp.rows.len(), 3);
        let hint = cmp.hint.expect("systematically slower under ncu");
        assert!(hint.contains("--clock-control none") && hint.contains("median 25%"), "{hint}");
        // Either order, the same advice.
        assert!(compare(&slow, &ws, Pick::Measured).hint.is_some());
        // Within the noise, or not every kernel slower: no advice.
        let close = report(Origin::Ncu, &[(32, 1.02), (64, 2.0), (128, 4.1)], true);
        assert_eq!(compare(&ws, &close, Pick::Measured).hint, None);
        let mixed = report(Origin::Ncu, &[(32, 1.5), (64, 1.5), (128, 6.0)], true);
        assert_eq!(compare(&ws, &mixed, Pick::Measured).hint, None);
        // Two nvprof files: ncu's clocks are not the question.
        let nv = report(Origin::Nvprof, &[(32, 1.25), (64, 2.4), (128, 5.0)], true);
        assert_eq!(compare(&ws, &nv, Pick::Measured).hint, None);
    }

    #[test]
    fn unpaired_groups_say_why() {
        let a = report(Origin::Cuda, &[(32, 1.0), (64, 2.0)], false);
        let mut b = report(Origin::Ncu, &[(32, 1.0)], true);
        let mut other = Record::new("other", "", Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), Status::Ok);
        other.metrics.push(Metric { name: "duration".into(), value: 1.0, unit: "ms".into(), source: Source::Imported });
        b.records.push(other);
        let cmp = compare(&a, &b, Pick::Measured);
        assert_eq!(cmp.rows.len(), 1);
        assert!(
            cmp.unmatched.iter().any(|u| u.starts_with("other") && u.contains("warpscope has no kernel of that name"))
        );
        assert!(
            cmp.unmatched.iter().any(|u| u.starts_with("k (grid 64x1 block 64x1) in warpscope")),
            "{:?}",
            cmp.unmatched
        );
        // A pair with nothing in common is not silently dropped.
        let mut c = report(Origin::Ncu, &[(32, 1.0)], true);
        c.records[0].metrics[0].name = "SM Frequency".into();
        let cmp = compare(&a, &c, Pick::Measured);
        assert!(cmp.rows.is_empty());
        assert!(cmp.unmatched.iter().any(|u| u.contains("no metric in common")), "{:?}", cmp.unmatched);
    }
}
