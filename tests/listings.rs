//! Every listing command's table, CSV and JSON, end to end through the binary (insta snapshots, each
//! checked by hand when it was first written: see the comments), so a change of any writer shows.

mod common;

use common::{mock, stdout};

fn out(args: &[&str]) -> String {
    let mut c = mock(args);
    c.env("COLUMNS", "400");
    let o = c.output().expect("runs");
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("utf-8")
}

#[test]
fn archs() {
    // Checked: sm_90 is 1024 threads/block, 64 warps/SM, 32 blocks/SM, 65536 registers, 228 KiB per SM,
    // 227 KiB opt-in per block; sm_20 (Fermi) 1536 threads (48 warps) and 8 blocks per SM.
    insta::assert_snapshot!("archs_table", out(&["archs"]));
    insta::assert_snapshot!("archs_json", out(&["archs", "--format", "json"]));
}

#[test]
fn metrics() {
    // Checked: achieved_occupancy is sm__warps_active.avg.pct_of_peak_sustained_active, a ratio;
    // gld_efficiency is requested over transferred global load bytes, %.
    for format in ["table", "csv", "json"] {
        insta::assert_snapshot!(format!("metrics_{format}"), out(&["metrics", "--format", format]));
    }
}

#[test]
fn occupancy() {
    // Checked by hand (sm_90: 64 warps, 32 blocks, 65536 registers in units of 256 per warp, 228 KiB
    // of shared memory with 1 KiB reserved per block): 64 registers/thread and 8 KiB static shared
    // memory per block. 32 threads: shared memory allows 228 / (8 + 1) = 25 blocks = 25 warps, 39.1 %.
    // 256 threads: registers allow 65536 / (64 x 256) = 4 blocks, 32 warps, 50 %. 1024 threads: 1 block
    // by registers, 32 warps, 50 %. 1056 threads: over the 1024 limit, not launchable.
    let args = ["occupancy", "--arch", "sm_90", "--block-size", "32,256,1024,1056", "--regs", "64", "--smem", "8192"];
    for format in ["table", "csv", "json"] {
        let mut a = args.to_vec();
        a.extend(["--format", format]);
        insta::assert_snapshot!(format!("occupancy_{format}"), out(&a));
    }
    // One block size: one JSON object, not an array.
    let one: serde_json::Value =
        serde_json::from_str(&out(&["occupancy", "--arch", "sm_90", "--block-size", "256", "--format", "json"]))
            .unwrap();
    assert_eq!(one["block_size"], 256);
}

#[test]
fn compare_with_ncu() {
    // A warpscope H200 sweep against ncu's metrics of the same shapes (tests/fixtures/README.md).
    let (ours, theirs) = ("tests/fixtures/ws-h200-cupti-metrics.json", "tests/fixtures/ncu-h200-per-shape-metrics.csv");
    for format in ["table", "csv", "json"] {
        insta::assert_snapshot!(format!("compare_{format}"), out(&["compare", ours, theirs, "--format", format]));
    }
}

#[test]
fn compare_against_a_baseline() {
    // A run against itself: every change 0 % and `same`.
    let run = "tests/fixtures/ws-h200-seed.json";
    for format in ["table", "csv", "json"] {
        let text = out(&["compare", run, "--baseline", run, "--format", format]);
        insta::assert_snapshot!(format!("baseline_{format}"), text);
    }
    let text = stdout(&mut mock(&["compare", run, "--baseline", run, "--format", "csv"]));
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert!(!rows.is_empty());
    for r in rows {
        assert_eq!((r[5], r[7]), ("0", "same"), "{r:?}");
    }
}

#[test]
fn kernels() {
    // Checked: sum-matrix is sumMatrixOnGPU2D on 16384 x 16384 by default; every kernel of the registry
    // is listed once, with its sm_90 registers from kernels-ptx/resources.json.
    for format in ["table", "csv", "json"] {
        insta::assert_snapshot!(format!("kernels_{format}"), out(&["kernels", "--format", format]));
    }
    let json: serde_json::Value = serde_json::from_str(&out(&["kernels", "--format", "json"])).unwrap();
    let names: Vec<&str> = json.as_array().unwrap().iter().map(|k| k["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), warpscope::kernels::all().count());
    assert!(names.contains(&"sum-matrix"));
}

#[test]
fn devices() {
    // The mock's device (sm_90 limits, 132 SMs at 1980 MHz, marked `mock` as its backend and driver).
    for format in ["table", "csv", "json"] {
        insta::assert_snapshot!(format!("devices_{format}"), out(&["devices", "--format", format]));
    }
    // Every device of the host is listed (the mock with two).
    let mut c = mock(&["devices", "--format", "csv"]);
    c.env("WARPSCOPE_MOCK_DEVICES", "2");
    let text = stdout(&mut c);
    let ordinals: Vec<&str> = text.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(ordinals, ["0", "1"]);
}

#[test]
fn model_check() {
    // The H100's committed sweeps of two kernels (docs/results/model-check-2026-11-23/h100): as MODEL.md
    // section 8 records them, sumMatrixOnGPU2D 4.8 % median error, Spearman 0.721, regret 9.0 %;
    // transposeNaive 31.4 %, 0.464, 53.8 %.
    let files = [
        "docs/results/model-check-2026-11-23/h100/sum-matrix.json",
        "docs/results/model-check-2026-11-23/h100/transpose-naive.json",
    ];
    for format in ["table", "csv", "json", "markdown"] {
        let mut args = vec!["model-check"];
        args.extend(files);
        args.extend(["--format", format]);
        insta::assert_snapshot!(format!("model_check_{format}"), out(&args));
    }
}

#[test]
fn blur_estimates() {
    // Checked: estimate = 14,200 MP/s x 2 / (I/O per pixel); the copy (2 I/O per pixel) is 14,200.
    for format in ["table", "csv", "json"] {
        let text = out(&["blur", "--estimate", "--copy-mps", "14200", "--format", format]);
        insta::assert_snapshot!(format!("blur_estimate_{format}"), text);
    }
}

#[test]
fn case_study_tables() {
    // `peak` and `transpose --bench` print warpscope records through the report writer: small problems
    // on the mock, whose times come from the model (every value marked mock). Checked: the copy kernels
    // come first, each transpose has its pct_of_copy against the fastest copy of its size, and every
    // configuration is verified.
    for format in ["table", "csv"] {
        let peak = out(&["peak", "--nx", "512", "--ny", "512", "--iters", "3", "--format", format, "-q"]);
        insta::assert_snapshot!(format!("peak_{format}"), peak);
        let t = out(&["transpose", "--bench", "--sizes", "256,512", "--iters", "3", "--format", format, "-q"]);
        insta::assert_snapshot!(format!("transpose_bench_{format}"), t);
    }
}
