//! The model's commands end to end on the mock backend: `devices --calibrate` and its cache, a measured
//! sweep that calibrates first, `model-check` on its results, and `estimate`'s new terms.

mod common;

use common::{SMALL, mock, stdout};
use predicates::prelude::*;

/// `warpscope ARGS` on the mock with its calibration cache in `dir`.
fn cached(dir: &std::path::Path, args: &[&str]) -> assert_cmd::Command {
    let mut c = mock(args);
    c.env("WARPSCOPE_CACHE_DIR", dir);
    c
}

#[test]
fn devices_calibrate_shows_the_figures_and_caches_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = stdout(&mut cached(dir.path(), &["devices", "--calibrate"]));
    for row in
        ["calibration of", "mock (made-up figures)", "DRAM latency", "DRAM row spread", "block issue", "cached in"]
    {
        assert!(out.contains(row), "{row} missing:\n{out}");
    }
    let cache = dir.path().join("calibration");
    let files: Vec<_> = std::fs::read_dir(&cache).unwrap().collect();
    assert_eq!(files.len(), 1, "one file per device");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(files[0].as_ref().unwrap().path()).unwrap()).unwrap();
    assert_eq!(json["figures"]["source"], "mock (made-up figures)");
    assert!(json["figures"]["dram_latency_ns"].as_f64().unwrap() > 0.0);
    // JSON: the device and its calibration.
    let out = stdout(&mut cached(dir.path(), &["devices", "--calibrate", "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["calibration"]["figures"]["source"], "mock (made-up figures)");
    assert!(v[0]["device"]["name"].as_str().unwrap().contains("mock"));
}

#[test]
fn devices_device_lists_and_calibrates_only_that_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let two = |args: &[&str]| {
        let mut c = cached(dir.path(), args);
        c.env("WARPSCOPE_MOCK_DEVICES", "2");
        c
    };
    // Without --device both are listed and calibrated.
    let all: serde_json::Value =
        serde_json::from_str(&stdout(&mut two(&["devices", "--calibrate", "--format", "json"]))).unwrap();
    assert_eq!(all.as_array().map(Vec::len), Some(2), "{all}");
    // With it, only device 1: one entry, its own ordinal, its calibration.
    let one: serde_json::Value =
        serde_json::from_str(&stdout(&mut two(&["devices", "--device", "1", "--calibrate", "--format", "json"])))
            .unwrap();
    assert_eq!(one.as_array().map(Vec::len), Some(1), "{one}");
    assert_eq!(one[0]["device"]["ordinal"], 1, "{one}");
    assert_eq!(one[0]["calibration"]["figures"]["source"], "mock (made-up figures)");
    let listed: serde_json::Value =
        serde_json::from_str(&stdout(&mut two(&["devices", "--device", "0", "--format", "json"]))).unwrap();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed[0]["ordinal"], 0, "{listed}");
    // A device the host does not have: one line naming what it has, exit 2.
    two(&["devices", "--device", "2", "--calibrate"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no CUDA device 2: the mock backend has 2 (0..1)"));
}

#[test]
fn a_measured_sweep_calibrates_first_and_model_check_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    let mut args = vec!["sweep", "sum-matrix", "--block", "32x8,16x16,64x1,256x1,32x32", "--model"];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(&["--format", "json", "-o", file.to_str().unwrap(), "-q"]);
    cached(dir.path(), &args).assert().success();
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(report["baselines"]["calibration"]["source"], "mock (made-up figures)");
    assert!(report["model_fit"]["regret_pct"].as_f64().is_some());
    assert!(dir.path().join("calibration").exists(), "the sweep's calibration is cached");

    // The table: one row for the kernel, and the targets' line.
    let out = stdout(&mut mock(&["model-check", file.to_str().unwrap()]));
    assert!(out.contains("sumMatrixOnGPU2D") && out.contains("1024x512"), "{out}");
    assert!(out.contains("kernels meet the targets"), "{out}");
    // JSON: the fit's numbers and what it misses.
    let out = stdout(&mut mock(&["model-check", file.to_str().unwrap(), "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let k = &v["kernels"][0];
    assert_eq!(k["configs"], 5);
    assert!(k["median_abs_error_pct"].as_f64().is_some() && k["misses"].is_array());
    // Predicted again for a card of the database, and on the run's own device.
    mock(&["model-check", file.to_str().unwrap(), "--gpu", "H100"]).assert().success();
    mock(&["model-check", file.to_str().unwrap(), "--repredict"]).assert().success();
    // --strict fails when a kernel misses a target (the mock's made-up times do).
    let misses = k["misses"].as_array().unwrap().len();
    mock(&["model-check", file.to_str().unwrap(), "--strict"]).assert().code(if misses > 0 { 1 } else { 0 });
}

#[test]
fn model_check_refuses_what_it_cannot_judge() {
    let dir = tempfile::tempdir().unwrap();
    // A sweep without --model carries no predictions.
    let file = dir.path().join("plain.json");
    let mut args = vec!["sweep", "sum-matrix", "--block", "32x8,16x16"];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(&["--format", "json", "-o", file.to_str().unwrap(), "-q"]);
    mock(&args).assert().success();
    mock(&["model-check", file.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no configuration with both a measured time and a predicted_time"));
    // ... but can be predicted again.
    mock(&["model-check", file.to_str().unwrap(), "--repredict"]).assert().success();
    // Beside a sweep that has predictions, it is passed over with a note (a kernel the model could not
    // follow does not stop the others' check).
    let modelled = dir.path().join("modelled.json");
    let mut args = vec!["sweep", "sum-matrix", "--block", "32x8,16x16", "--model"];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(&["--format", "json", "-o", modelled.to_str().unwrap(), "-q"]);
    mock(&args).assert().success();
    mock(&["model-check", modelled.to_str().unwrap(), file.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("sumMatrixOnGPU2D"))
        .stderr(predicate::str::contains("plain.json: passed over: no configuration with both"));
    // A kernel that is not built in (a kernel file's) cannot be predicted again from its record.
    let foreign = dir.path().join("foreign.json");
    std::fs::write(&foreign, std::fs::read_to_string(&file).unwrap().replace("sumMatrixOnGPU2D", "myKernel")).unwrap();
    mock(&["model-check", foreign.to_str().unwrap(), "--repredict"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("myKernel is not a built-in kernel"));
    mock(&["model-check", "/nonexistent/x.json"]).assert().code(2);
    mock(&["model-check", file.to_str().unwrap(), "--gpu", "Voodoo 2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown card"));
}

#[test]
fn estimate_shows_bank_conflicts_and_the_fermi_lesson() {
    // transposeL's unpadded 16x16 tile: 8 passes per shared load; transposeShared's padded one: 1.
    let out =
        stdout(&mut mock(&["estimate", "transpose-l", "--block", "16x16", "--gpu", "H200", "--format", "json", "-q"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let m = v["records"][0]["metrics"].as_array().unwrap();
    let shared = m.iter().find(|m| m["name"] == "shared_load_transactions_per_request").expect("estimated");
    assert_eq!(shared["value"], 8.0);
    // Source 001 on the course's Fermi card: block.x of 16 halves gld_efficiency, and (32,32), one
    // 1024-thread block per SM of 1536 threads, is the slowest of the first four shapes.
    let out = stdout(&mut mock(&[
        "estimate",
        "sum-matrix",
        "--block",
        "32x32,32x16,16x32,16x16",
        "--gpu",
        "Tesla M2070",
        "--format",
        "json",
        "-q",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let metric = |i: usize, name: &str| {
        v["records"][i]["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap()["value"]
            .as_f64()
            .unwrap()
    };
    let eff: Vec<f64> = (0..4).map(|i| metric(i, "gld_efficiency")).collect();
    assert_eq!(eff, vec![100.0, 100.0, 50.0, 50.0]);
    let t: Vec<f64> = (0..4).map(|i| metric(i, "predicted_time")).collect();
    assert!(t[0] > t[1] && t[0] > t[2] && t[0] > t[3], "{t:?}");
}

#[test]
fn model_check_terms_name_the_bound_of_every_configuration() {
    // The H100's committed blur-rows sweep (docs/results/model-check-2026-11-26-h100): 25 configurations,
    // each with its measured time, the prediction and the terms; the bound is the largest term and the
    // prediction is at least that term plus the barriers' sync.
    let file = "docs/results/model-check-2026-11-26-h100/blur-rows.json";
    let csv = stdout(&mut mock(&["model-check", "--terms", file, "--format", "csv"]));
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap_or_else(|| panic!("{name} in {head:?}"));
    let terms = [
        ("bandwidth", "dram_ms"),
        ("l2", "l2_ms"),
        ("l1", "l1_ms"),
        ("latency", "latency_ms"),
        ("block_issue", "issue_ms"),
        ("compute", "compute_ms"),
    ];
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 25);
    for r in &rows {
        // The problem "4096x4096, sigma 5" is quoted and holds a comma: count columns from the end.
        let at = |name: &str| r[r.len() - head.len() + col(name)];
        let value = |name: &str| at(name).parse::<f64>().unwrap();
        let (bound, largest) =
            terms.iter().map(|(b, c)| (*b, value(c))).fold(("", 0.0), |a, b| if b.1 > a.1 { b } else { a });
        assert_eq!(at("bound"), bound, "{r:?}");
        assert!(value("predicted_ms") >= largest + value("sync_ms"), "{r:?}");
        let err = (value("predicted_ms") / value("measured_ms") - 1.0) * 100.0;
        assert!((err - value("error_pct")).abs() < 1e-6, "{r:?}");
    }
    // The table says what the columns add up to; --strict judges kernels, not configurations.
    let table = stdout(&mut mock(&["model-check", "--terms", file]));
    assert!(table.contains("blurRows") && table.contains("the largest of dram"), "{table}");
    mock(&["model-check", "--terms", "--strict", file]).assert().code(2);
}

#[test]
fn estimate_takes_a_kernel_file_from_its_ptx() {
    // The embedded sumMatrix as a kernel file, with ptxas's registers for sm_90 (kernels-ptx/resources.json):
    // the built-in kernel's estimates, every one.
    let resources: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("kernels-ptx/resources.json").unwrap()).unwrap();
    let regs = resources["sumMatrixOnGPU2D"]["sm_90"]["registers"].as_u64().unwrap().to_string();
    let file = "examples/kernels/sum_matrix_ptx.toml";
    let out = mock(&["estimate", "--kernel-file", file, "--gpu", "H200", "--registers", &regs, "--format", "json"])
        .assert()
        .success()
        .stderr(predicate::str::contains("from its PTX").and(predicate::str::contains("registers per thread (given)")));
    let traced: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let out =
        mock(&["estimate", "sum-matrix", "--gpu", "H200", "--block", "32x32,32x16,16x32,16x16", "--format", "json"])
            .assert()
            .success();
    let built_in: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let (a, b) = (traced["records"].as_array().unwrap(), built_in["records"].as_array().unwrap());
    assert_eq!(a.len(), 4);
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x["block"], y["block"]);
        assert_eq!(x["metrics"], y["metrics"], "{}", x["block"]);
    }
    // Without --registers the figure is assumed, and said so; with a built-in kernel it is refused.
    mock(&["estimate", "--kernel-file", file, "--gpu", "H200", "--block", "32x8"])
        .assert()
        .success()
        .stderr(predicate::str::contains("32 registers per thread (assumed: give --registers"));
    mock(&["estimate", "sum-matrix", "--gpu", "H200", "--registers", "20"]).assert().code(2);
    // A .cu kernel file needs NVRTC to give its PTX: where there is none, that is the error.
    mock(&["estimate", "--kernel-file", "examples/kernels/vector_add.toml", "--gpu", "H100"])
        .env("WARPSCOPE_NVRTC", "/nonexistent/libnvrtc.so")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("needs NVRTC"));
}

#[test]
fn model_check_predicts_a_kernel_files_sweep_again_from_the_file() {
    // The mock runs no kernel file, so the sweep is the built-in sumMatrix's (measured on the mock, with
    // its calibration), its records named as sum_matrix_ptx.toml names its configurations. Traced again
    // from the file (the same PTX; the occupancy the sweep measured), the predictions are the ones the
    // built-in kernel's sweep made.
    let dir = tempfile::tempdir().unwrap();
    let built_in = dir.path().join("b.json");
    let sweep = [
        "sweep",
        "sum-matrix",
        "--nx",
        "300",
        "--ny",
        "200",
        "--block",
        "32x8,16x16,64x1,128x2",
        "--model",
        "--format",
        "json",
        "-o",
        built_in.to_str().unwrap(),
        "-q",
    ];
    cached(dir.path(), &sweep).assert().success();
    let named = dir.path().join("kf.json");
    let text = std::fs::read_to_string(&built_in).unwrap().replace("\"300x200\"", "\"nx=300, ny=200\"");
    std::fs::write(&named, text).unwrap();
    let kf = "examples/kernels/sum_matrix_ptx.toml";
    let json = |args: &[&str]| -> serde_json::Value { serde_json::from_str(&stdout(&mut mock(args))).unwrap() };
    let stored = json(&["model-check", built_in.to_str().unwrap(), "--format", "json"]);
    let again = json(&["model-check", named.to_str().unwrap(), "--kernel-file", kf, "--format", "json"]);
    let (a, b) = (&stored["kernels"][0], &again["kernels"][0]);
    assert_eq!(a["configs"], 4);
    for field in ["configs", "median_abs_error_pct", "spearman", "regret_pct", "predicted_best", "measured_best"] {
        assert_eq!(a[field], b[field], "{field}");
    }
    assert_eq!(b["problem"], "nx=300, ny=200");
    // Every configuration's terms, from the file.
    let terms = stdout(&mut mock(&["model-check", named.to_str().unwrap(), "--kernel-file", kf, "--terms"]));
    assert_eq!(terms.matches("sumMatrixOnGPU2D").count(), 4, "{terms}");
    // Another kernel's file names no record of this sweep: said so.
    mock(&["model-check", named.to_str().unwrap(), "--kernel-file", "examples/kernels/vector_add.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("none of its records is of the file's kernel 'vector-add'"));
    // A .cu kernel file without NVRTC: the reason, said once, and no prediction.
    let cu = dir.path().join("cu.json");
    let text = std::fs::read_to_string(&named).unwrap().replace("sumMatrixOnGPU2D", "vector-add");
    std::fs::write(&cu, text.replace("nx=300, ny=200", "n=60000")).unwrap();
    mock(&["model-check", cu.to_str().unwrap(), "--kernel-file", "examples/kernels/vector_add.toml"])
        .env("WARPSCOPE_NVRTC", "/nonexistent/libnvrtc.so")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("model: compile failed:").and(predicate::str::contains("needs NVRTC")))
        .stderr(predicate::str::contains("(4 configurations)"))
        .stderr(predicate::str::contains("no configuration of its kernel file could be predicted again"));
}
