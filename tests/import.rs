//! The importers on real profiler output (Nsight Compute files from the H200 runs of
//! scripts/ncu-crosscheck.sh, nvprof files in nvprof's CSV format) and `compare` on top of them.

mod common;

use std::path::Path;

use common::stdout;
use predicates::prelude::*;
use warpscope::compare::{self, Pick};
use warpscope::import::{self, Kind};
use warpscope::record::{Report, Source};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn value(r: &warpscope::record::Record, name: &str) -> Option<f64> {
    r.metrics.iter().find(|m| m.name == name).map(|m| m.value)
}

#[test]
fn ncu_default_page_from_the_h200() {
    let (kind, rep) = import::read_file(&fixture("ncu-h200-seed-default.csv")).unwrap();
    assert_eq!(kind, Kind::NcuLong);
    // 15 seed shapes, each profiled twice (the verified launch and one timed launch).
    assert_eq!(rep.records.len(), 30);
    assert_eq!(rep.device.compute_capability, "9.0");
    let r = &rep.records[0];
    assert_eq!(r.kernel, "sumMatrixOnGPU2D");
    assert_eq!((r.grid.to_array(), r.block.to_array()), ([512, 512, 1], [32, 32, 1]));
    assert!(r.metrics.iter().all(|m| m.source == Source::Imported));
    // Converted to nvprof names and units; counts exact; thousands separators read.
    assert_eq!(value(r, "gld_efficiency"), Some(100.0));
    assert_eq!(value(r, "gld_transactions"), Some(67_108_864.0));
    let occ = value(r, "achieved_occupancy").unwrap();
    assert!(occ > 0.5 && occ < 0.8, "{occ}");
    let ms = value(r, "duration").unwrap();
    assert!(ms > 1.0 && ms < 1.5, "{ms}");
    assert_eq!(value(r, "theoretical_occupancy"), Some(1.0));
    // Counters with no nvprof name keep their own.
    assert!(value(r, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum").is_some());
}

#[test]
fn ncu_raw_page_with_its_units_row() {
    let (kind, rep) = import::read_file(&fixture("ncu-h200-32x16-raw.csv")).unwrap();
    assert_eq!(kind, Kind::NcuRaw);
    assert_eq!(rep.records.len(), 2);
    assert_eq!(rep.device.name, "NVIDIA H200");
    let r = &rep.records[0];
    assert_eq!(value(r, "duration"), Some(1.091488));
    assert!((value(r, "gld_throughput").unwrap() - 1967.4826).abs() < 1e-3);
    // Device attributes and profiler bookkeeping are not metrics.
    assert!(r.metrics.iter().all(|m| !m.name.starts_with("device__") && !m.name.starts_with("profiler__")));
}

#[test]
fn odd_ncu_output_units_gaps_and_strangers() {
    let (_, rep) = import::read_file(&fixture("ncu-odd-units.csv")).unwrap();
    assert_eq!(rep.records.len(), 2);
    let r = &rep.records[0];
    assert!((value(r, "duration").unwrap() - 1.09149).abs() < 1e-9, "usecond with a thousands separator");
    assert!((value(r, "gld_throughput").unwrap() - 1970.0).abs() < 1e-6, "Tbyte/second");
    assert_eq!(value(r, "gld_transactions"), Some(67_108_864.0), "Msector");
    assert_eq!(value(r, "gld_efficiency"), None, "n/a is a missing value, not 0");
    assert_eq!(rep.records[1].kernel, "other_kernel<float>");
}

#[test]
fn nvprof_metric_summary_and_gpu_trace() {
    let (kind, rep) = import::read_file(&fixture("nvprof-m2070-32x32-metrics.csv")).unwrap();
    assert_eq!(kind, Kind::NvprofSummary);
    assert_eq!(rep.device.name, "Tesla M2070 (0)");
    let r = &rep.records[0];
    assert_eq!(r.kernel, "sumMatrixOnGPU2D");
    assert_eq!(r.block.volume(), 0, "nvprof's metric summary has no launch shape");
    assert_eq!(value(r, "achieved_occupancy"), Some(0.501071));
    assert_eq!(value(r, "gld_throughput"), Some(35.908));
    assert_eq!(value(r, "gld_efficiency"), Some(100.0));
    assert!((value(r, "gst_throughput").unwrap() - 17.954123).abs() < 1e-9, "MB/s to GB/s");

    let (kind, rep) = import::read_file(&fixture("nvprof-m2070-16x16-trace.csv")).unwrap();
    assert_eq!(kind, Kind::NvprofTrace);
    assert_eq!(rep.records.len(), 1, "the memcpy row is not a kernel");
    assert_eq!(rep.records[0].block.to_array(), [16, 16, 1]);
    assert_eq!(value(&rep.records[0], "duration"), Some(45.984));
}

fn ours() -> Report {
    serde_json::from_str(&std::fs::read_to_string(fixture("ws-h200-seed.json")).unwrap()).unwrap()
}

#[test]
fn compare_matches_by_kernel_grid_and_block() {
    let (_, ncu) = import::read_file(&fixture("ncu-h200-seed-default.csv")).unwrap();
    let cmp = compare::compare(&ours(), &ncu, Pick::Measured);
    assert!(cmp.unmatched.is_empty(), "{:?}", cmp.unmatched);
    // The warpscope run measured times only (no counters): `duration` is compared with its event median,
    // in the same session as ncu.
    let durations: Vec<_> = cmp.rows.iter().filter(|r| r.metric == "duration").collect();
    assert_eq!(durations.len(), 15);
    assert!(durations.iter().all(|r| r.ours_source == "events" && r.launches == 2));
    assert!(durations.iter().all(|r| r.delta.abs() < 3.0), "events within 3 % of gpu__time_duration");
    // Estimates stand in where nothing was measured: gld_efficiency is exact.
    let eff: Vec<_> = cmp.rows.iter().filter(|r| r.metric == "gld_efficiency").collect();
    assert!(eff.iter().all(|r| r.ours_source == "estimated" && r.delta == 0.0));
    assert!(cmp.above(0.0).iter().any(|r| r.metric == "achieved_occupancy"));
}

#[test]
fn compare_against_nvprof_and_strangers() {
    let (_, nvprof) = import::read_file(&fixture("nvprof-m2070-32x32-metrics.csv")).unwrap();
    // Fifteen warpscope records of the same kernel: nvprof's summary cannot say which one it was.
    let cmp = compare::compare(&ours(), &nvprof, Pick::Estimated);
    assert!(cmp.rows.is_empty());
    assert!(cmp.unmatched[0].contains("no launch shape"), "{:?}", cmp.unmatched);
    // One record: it matches, and the Fermi figures are far from the H200's.
    let mut one = ours();
    one.records.retain(|r| r.block.to_array() == [32, 32, 1]);
    let cmp = compare::compare(&one, &nvprof, Pick::Estimated);
    assert!(cmp.rows.iter().any(|r| r.metric == "gld_efficiency" && r.delta == 0.0));
    let (_, odd) = import::read_file(&fixture("ncu-odd-units.csv")).unwrap();
    let cmp = compare::compare(&ours(), &odd, Pick::Measured);
    assert!(cmp.unmatched.iter().any(|u| u.starts_with("other_kernel<float>")));
}

#[test]
fn compare_on_the_command_line() {
    let ws = fixture("ws-h200-seed.json");
    let ncu = fixture("ncu-h200-seed-default.csv");
    let (ws, ncu) = (ws.to_str().unwrap(), ncu.to_str().unwrap());
    common::cuda(&["compare", ws, ncu, "--fail-above", "3"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("duration (ms)").and(predicate::str::contains("sumMatrixOnGPU2D")))
        .stderr(predicate::str::contains("deltas above 3"));
    let json = stdout(&mut common::cuda(&["compare", ws, ncu, "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v["rows"].as_array().unwrap().len() >= 60);
    common::cuda(&["compare", ws, ncu, "--fail-above=-1"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: invalid value '-1' for '--fail-above <PCT>'"));
    common::cuda(&["compare", ws, "/no/such.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: /no/such.csv"));
    common::cuda(&["import", ncu, "--format", "json", "--quiet"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"source\": \"imported\""));
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.csv");
    std::fs::write(&junk, "hello\n\"a\",\"b\"\n").unwrap();
    common::cuda(&["import", junk.to_str().unwrap()]).assert().code(2).stderr(predicate::str::contains("no ncu --csv"));
}

#[test]
fn concatenated_ncu_files_keep_their_launches_apart() {
    let one = std::fs::read_to_string(fixture("ncu-odd-units.csv")).unwrap();
    let two = one.replace("\"2048\"", "\"4096\"");
    let (_, rep) = import::parse(&format!("{one}\n{two}")).unwrap();
    assert_eq!(rep.records.len(), 4, "same IDs, different processes: four launches");
}

#[test]
fn cupti_against_ncu_on_the_h200_meets_the_bar() {
    // scripts/ncu-crosscheck.sh on an H200 (2026-11-22): warpscope's CUPTI values for the 15 seed shapes,
    // and ncu profiling `warpscope run` once per shape (files concatenated), both --clock-control none.
    let ours: Report =
        serde_json::from_str(&std::fs::read_to_string(fixture("ws-h200-cupti-metrics.json")).unwrap()).unwrap();
    let (_, ncu) = import::read_file(&fixture("ncu-h200-per-shape-metrics.csv")).unwrap();
    let cmp = compare::compare(&ours, &ncu, Pick::Measured);
    assert!(cmp.unmatched.is_empty(), "{:?}", cmp.unmatched);
    let worst = |metric: &str| {
        let rows: Vec<_> = cmp.rows.iter().filter(|r| r.metric == metric).collect();
        assert_eq!(rows.len(), 15, "{metric}");
        assert!(rows.iter().all(|r| r.ours_source == "measured"), "{metric}");
        rows.iter().map(|r| r.delta.abs()).fold(0.0, f64::max)
    };
    assert!(worst("achieved_occupancy") <= 1.0, "points");
    assert!(worst("gld_efficiency") <= 1.0, "points");
    assert!(worst("gld_throughput") <= 3.0, "%");
    assert!(worst("dram_read_throughput") <= 3.0, "%");
    assert!(worst("dram_write_throughput") <= 3.0, "%");
    assert_eq!(worst("gld_transactions"), 0.0, "exact");
    assert!(cmp.above(3.0).is_empty());
}
