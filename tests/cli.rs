//! The whole command line end to end on the mock backend: every command, every output format, every
//! error path with its message and exit code.

mod common;

use common::{SMALL, cuda, has_driver, mock, stdout};
use predicates::prelude::*;

fn with_small<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut v = args.to_vec();
    v.extend_from_slice(SMALL);
    v
}

#[test]
fn no_driver_is_a_clear_exit_2() {
    if has_driver() {
        eprintln!("skipped: this machine has an NVIDIA driver");
        return;
    }
    for args in [&["devices"][..], &["sweep", "sum-matrix", "--block", "32x16"], &["selftest"]] {
        cuda(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::starts_with("error: no NVIDIA driver found (libcuda.so.1): "))
            .stderr(predicate::str::contains("hint: install the NVIDIA driver, or run `warpscope estimate`"));
    }
}

#[test]
fn seed_sweep_1_table() {
    let out =
        stdout(mock(&with_small(&["sweep", "sum-matrix", "--block", "32x32,32x16,16x32,16x16"])).env("COLUMNS", "400"));
    insta::assert_snapshot!("sweep1_table", out);
}

#[test]
fn seed_sweep_2_keeps_going_past_the_invalid_config() {
    let assert = mock(&with_small(&["sweep", "sum-matrix", "--bx", "64,128,256", "--by", "2,4,8"]))
        .assert()
        .success()
        .stderr(predicate::str::contains("9 configs (1 invalid)"));
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(out.contains(
        "sumMatrixOnGPU2D <<<(4,64), (256,8)>>> invalid configuration: 2048 threads per block > 1024 (device limit)"
    ));
    assert_eq!(out.matches("ok (verified)").count(), 8);
    // (256,8) is the last config of the seed's order and the table still follows it.
    let row = out.lines().find(|l| l.contains("(256,8)") && l.contains('|')).expect("invalid row in the table");
    assert!(row.contains("invalid configuration: 2048 threads per block > 1024 (device limit)"));
}

#[test]
fn run_prints_the_seeds_line() {
    mock(&with_small(&["run", "sum-matrix", "--block", "32x16"])).assert().success().stdout(
        predicate::str::is_match(r"(?m)^sumMatrixOnGPU2D <<<\(32,32\), \(32,16\)>>> elapsed \d+\.\d{3} ms$").unwrap(),
    );
}

#[test]
fn every_format() {
    for format in ["csv", "json", "markdown"] {
        let out = stdout(&mut mock(&with_small(&[
            "sweep",
            "sum-matrix",
            "--block",
            "32x16,16x16,2048x1",
            "--format",
            format,
        ])));
        insta::assert_snapshot!(format!("sweep_{format}"), out);
    }
}

#[test]
fn json_has_the_documented_shape() {
    let out = stdout(&mut mock(&with_small(&["sweep", "sum-matrix", "--block", "32x16,2048x1", "--format", "json"])));
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["device"]["compute_capability"], "9.0");
    let r = &v["records"][0];
    for key in ["kernel", "grid", "block", "status", "reason", "time_ms", "metrics"] {
        assert!(r.get(key).is_some(), "record lacks {key}");
    }
    assert_eq!(r["grid"], serde_json::json!([32, 32, 1]));
    assert_eq!(r["status"], "ok");
    for key in ["median", "min", "max"] {
        assert!(r["time_ms"][key].is_number());
    }
    for m in r["metrics"].as_array().unwrap() {
        // Every value of a mock run is marked `mock`, the models' as well as the stand-in measurements.
        assert_eq!(m["source"], "mock", "{m}");
        assert!(m["name"].is_string() && m["unit"].is_string() && m["value"].is_number());
    }
    let bad = &v["records"][1];
    assert_eq!(bad["status"], "invalid");
    assert!(bad["time_ms"].is_null());
}

#[test]
fn csv_columns_carry_unit_and_source() {
    let out = stdout(&mut mock(&with_small(&["sweep", "sum-matrix", "--block", "32x16", "--format", "csv"])));
    let mut rdr = csv::Reader::from_reader(out.as_bytes());
    let headers = rdr.headers().unwrap().clone();
    for h in [
        "grid_x",
        "block_y",
        "time_median_ms",
        "achieved_occupancy",
        "achieved_occupancy_unit",
        "gld_efficiency_source",
    ] {
        assert!(headers.iter().any(|x| x == h), "missing {h}");
    }
    let row = rdr.records().next().unwrap().unwrap();
    let col = |name: &str| row.get(headers.iter().position(|h| h == name).unwrap()).unwrap().to_string();
    assert_eq!(col("status"), "ok");
    assert_eq!(col("achieved_occupancy_unit"), "ratio");
    assert_eq!(col("gld_efficiency_source"), "mock");
    assert_eq!(col("eff_bandwidth_source"), "mock");
}

#[test]
fn output_file_is_written_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    let p = path.to_str().unwrap();
    mock(&with_small(&["sweep", "sum-matrix", "--block", "32x16", "--format", "json", "-o", p])).assert().success();
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["records"].as_array().unwrap().len(), 1);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left behind");
    let missing = dir.path().join("no/such/dir/r.json");
    mock(&with_small(&["sweep", "sum-matrix", "--block", "32x16", "-o", missing.to_str().unwrap()]))
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: ").and(predicate::str::contains("No such file")))
        .stdout("");
}

#[test]
fn a_wrong_result_is_a_loud_failed_row_and_exit_1() {
    mock(&with_small(&["sweep", "sum-matrix", "--block", "32x16,16x16"]))
        .env("WARPSCOPE_MOCK_FAULT", "777")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAILED: verification failed: 1 of 524288 elements differ; first C[777]"));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["sweep", "sum-matrix", "--block", "32xx16"], "error: invalid block '32xx16': empty extent"),
        (&["sweep", "sum-matrix", "--block", "32x16,abc"], "error: invalid block 'abc'"),
        (&["sweep", "sum-matrix", "--bx", "9..1"], "error: invalid list '9..1': range '9..1' is empty"),
        (&["sweep", "sum-matrix"], "error: no block given"),
        (
            &["sweep", "nope", "--block", "32x16"],
            "error: unknown kernel 'nope' (known: sum-matrix, rgb-to-gray, resize, gaussian-smooth, transpose-naive,",
        ),
        (
            &["sweep", "sum-matrix", "--block", "32x16", "--frames", "4"],
            "error: --frames applies to rgb-to-gray, resize, gaussian-smooth, not sum-matrix",
        ),
        (
            &["sweep", "resize", "--block", "32x16", "--frames", "0"],
            "error: invalid value '0' for '--frames <FRAMES>': expected a number from 1 to 65535",
        ),
        (&["run", "sum-matrix", "--block", "32x16,16x16"], "error: run takes exactly one block (got 2)"),
        (
            &["sweep", "sum-matrix", "--block", "32x16", "--iters", "0"],
            "error: invalid value '0' for '--iters <ITERS>': expected a number from 1 to 100000",
        ),
        (
            &["sweep", "sum-matrix", "--block", "32x16", "--nx", "65536", "--ny", "65536"],
            "error: invalid matrix 65536x65536",
        ),
        (&["sweep", "sum-matrix", "--block", "32x16", "--device", "3"], "error: no CUDA device 3"),
        (
            &["sweep", "sum-matrix", "--block", "32x16", "-q", "-o", "/no/such/dir/r.json"],
            "error: /no/such/dir/r.json: No such file or directory",
        ),
    ];
    for (args, msg) in cases {
        let out = mock(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with(msg), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    // A device is written in place, and a failed write names it (where the system has /dev/full).
    use std::os::unix::fs::FileTypeExt;
    if std::fs::metadata("/dev/full").is_ok_and(|m| m.file_type().is_char_device()) {
        mock(&["sweep", "sum-matrix", "--block", "32x16", "--nx", "256", "--ny", "256", "-q", "-o", "/dev/full"])
            .assert()
            .code(2)
            .stderr("error: cannot write output: /dev/full: No space left on device (os error 28)\n");
    }
}

#[test]
fn zero_sized_blocks_are_rows_not_errors() {
    mock(&with_small(&["sweep", "sum-matrix", "--block", "0x16,32x16"]))
        .assert()
        .success()
        .stdout(predicate::str::contains("invalid configuration: block.x = 0"));
}

#[test]
fn machine_formats_keep_stdout_clean() {
    let out = mock(&with_small(&["sweep", "sum-matrix", "--block", "32x16", "--format", "json"])).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.trim_start().starts_with('{'));
    assert!(String::from_utf8(out.stderr).unwrap().contains("sumMatrixOnGPU2D <<<(32,32), (32,16)>>> elapsed"));
    let quiet = mock(&with_small(&["sweep", "sum-matrix", "--block", "32x16", "--quiet"])).output().unwrap();
    assert!(quiet.stderr.is_empty());
}

#[test]
fn devices_and_selftest_on_the_mock() {
    mock(&["devices"])
        .assert()
        .success()
        .stdout(predicate::str::contains("threads per block").and(predicate::str::contains("1024")));
    let out = stdout(&mut mock(&["devices", "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["limits"]["max_threads_per_block"], 1024);
    mock(&["selftest"])
        .assert()
        .success()
        .stderr(predicate::str::contains("selftest: 85 of 85 configurations verified"));
}

#[test]
fn estimate_reproduces_the_seeds_gld_efficiency_offline() {
    let out = stdout(&mut common::cuda(&[
        "estimate",
        "sum-matrix",
        "--arch",
        "sm_20",
        "--block",
        "32x32,32x16,16x32,16x16",
        "--format",
        "json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let eff: Vec<f64> = v["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["metrics"].as_array().unwrap().iter().find(|m| m["name"] == "gld_efficiency").unwrap()["value"]
                .as_f64()
                .unwrap()
        })
        .collect();
    assert_eq!(eff, vec![100.0, 100.0, 50.0, 50.0]);
    assert_eq!(v["device"]["backend"], "model");
    for r in v["records"].as_array().unwrap() {
        assert!(r["time_ms"].is_null());
        assert!(r["metrics"].as_array().unwrap().iter().all(|m| m["source"] == "estimated"));
    }
    let out = stdout(&mut common::cuda(&[
        "estimate",
        "sum-matrix",
        "--arch",
        "sm_90",
        "--block",
        "32x32,32x16,16x32,16x16",
        "--format",
        "csv",
    ]));
    let mut rdr = csv::Reader::from_reader(out.as_bytes());
    let h = rdr.headers().unwrap().clone();
    let col = h.iter().position(|x| x == "gld_efficiency").unwrap();
    assert!(rdr.records().all(|r| r.unwrap().get(col) == Some("100")));
}

#[test]
fn estimate_needs_no_gpu_and_names_bad_targets() {
    common::cuda(&["estimate", "sum-matrix", "--gpu", "GTX 480", "--bx", "64,128,256", "--by", "1,2,4,8"])
        .assert()
        .success()
        .stdout(predicate::str::contains("invalid configuration: 2048 threads per block > 1024 (device limit)"))
        .stdout(predicate::str::contains("estimated, "));
    let cases: &[(&[&str], &str)] = &[
        (&["estimate", "sum-matrix", "--block", "32x16"], "error: say what to model: --arch sm_90 or --gpu H200"),
        (&["estimate", "sum-matrix", "--block", "32x16", "--arch", "sm_99"], "error: unknown arch 'sm_99'"),
        (&["estimate", "sum-matrix", "--block", "32x16", "--gpu", "Voodoo"], "error: unknown card 'Voodoo'"),
        (
            &["estimate", "sum-matrix", "--block", "32x16", "--gpu", "H200", "--arch", "sm_80"],
            "error: --gpu H200 is sm_90, not sm_80",
        ),
        (&["occupancy", "--arch", "sm_90", "--block-size", "x"], "error: invalid list 'x'"),
        (&["occupancy", "--arch", "banana", "--block-size", "32"], "error: invalid arch 'banana'"),
    ];
    for (args, msg) in cases {
        let out = common::cuda(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with(msg), "{args:?}: {err}");
    }
}

#[test]
fn occupancy_json_has_the_documented_fields() {
    let out = stdout(&mut common::cuda(&[
        "occupancy",
        "--arch",
        "sm_80",
        "--block-size",
        "256",
        "--regs",
        "32",
        "--smem",
        "4096",
        "--dynamic-smem",
        "0",
        "--format",
        "json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in [
        "arch",
        "block_size",
        "regs_per_thread",
        "static_smem",
        "dynamic_smem",
        "active_blocks_per_sm",
        "active_warps_per_sm",
        "max_warps_per_sm",
        "occupancy_pct",
        "limiter",
        "limits",
        "launchable",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    for key in ["warps", "registers", "shared_memory", "blocks"] {
        assert!(v["limits"].get(key).is_some(), "missing limits.{key}");
    }
    assert_eq!(v["active_blocks_per_sm"], 8);
    assert_eq!(v["limiter"], "warps");
    assert_eq!(v["launchable"], true);
    let big = stdout(&mut common::cuda(&[
        "occupancy",
        "--arch",
        "sm_90",
        "--block-size",
        "1024",
        "--regs",
        "128",
        "--format",
        "json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&big).unwrap();
    assert_eq!(v["launchable"], false);
    assert!(v["reason"].as_str().unwrap().contains("registers"));
}

#[test]
fn occupancy_sweep_plots_a_curve() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("occ.svg");
    let out = stdout(&mut common::cuda(&[
        "occupancy",
        "--arch",
        "sm_90",
        "--regs",
        "40",
        "--smem",
        "0",
        "--block-size",
        "32..1024:32",
        "--format",
        "csv",
        "--plot",
        svg.to_str().unwrap(),
    ]));
    assert_eq!(out.lines().count(), 33);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg") && text.contains("threads per block"));
}

#[test]
fn archs_lists_the_database() {
    common::cuda(&["archs"]).assert().success().stdout(
        predicate::str::contains("sm_20")
            .and(predicate::str::contains("sm_120"))
            .and(predicate::str::contains("GTX 480"))
            .and(predicate::str::contains("H200")),
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&mut common::cuda(&["archs", "--format", "json"]))).unwrap();
    assert!(v["archs"].as_array().unwrap().len() >= 18);
    assert!(v["cards"].as_array().unwrap().len() >= 12);
}

#[test]
fn the_ske_experiment_sweeps_32xk_blocks() {
    for kernel in ["resize", "rgb-to-gray", "gaussian-smooth"] {
        let out = stdout(&mut mock(&[
            "sweep", kernel, "--bx", "32", "--by", "1..16", "--nx", "64", "--ny", "40", "--frames", "1", "--seed", "1",
            "--iters", "2", "--model", "--format", "json",
        ]));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let recs = v["records"].as_array().unwrap();
        assert_eq!(recs.len(), 16, "{kernel}");
        assert!(recs.iter().all(|r| r["status"] == "ok"), "{kernel}");
        assert_eq!(recs[3]["block"], serde_json::json!([32, 4, 1]));
        assert!(recs.iter().all(|r| r["metrics"].as_array().unwrap().iter().any(|m| m["name"] == "model_error")));
        assert_eq!(v["model_fit"]["configs"], 16);
    }
    mock(&["kernels"]).assert().success().stdout(predicate::str::contains("gaussianSmooth"));
}

#[test]
fn metrics_are_measured_beside_the_estimates() {
    let out = stdout(&mut mock(&with_small(&[
        "sweep",
        "sum-matrix",
        "--block",
        "32x32,32x16,16x32,16x16",
        "--metrics",
        "achieved_occupancy,gld_throughput,gld_efficiency",
        "--format",
        "json",
    ])));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for r in v["records"].as_array().unwrap() {
        for name in ["achieved_occupancy", "gld_throughput", "gld_efficiency"] {
            let sources: Vec<&str> = r["metrics"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["name"] == name)
                .map(|m| m["source"].as_str().unwrap())
                .collect();
            // On the mock every value is `mock`: one per name (the counters' stand-in), never a
            // second one that could pass for a model estimate. How a real run puts measured beside
            // estimated is tested in sweep.rs (`measured_counters_stand_beside_the_models_estimates`).
            assert_eq!(sources, vec!["mock"], "{name}");
        }
    }
    let table =
        stdout(&mut mock(&with_small(&["sweep", "sum-matrix", "--block", "32x16", "--metrics", "achieved_occupancy"])));
    assert!(table.contains("(%, mock)") && !table.contains("(%, est)"), "{table}");
}

#[test]
fn without_cupti_the_sweep_falls_back_to_estimates() {
    mock(&with_small(&["sweep", "sum-matrix", "--block", "32x16", "--metrics", "all"]))
        .env("WARPSCOPE_MOCK_CUPTI", "missing")
        .assert()
        .success()
        .stderr(
            predicate::str::contains("warning: measured metrics unavailable: CUPTI not found")
                .and(predicate::str::contains("showing estimates")),
        )
        // The model's values only (marked `mock` on the mock backend): no counter-only metric.
        .stdout(predicate::str::contains("(%, mock)").and(predicate::str::contains("dram_read").not()));
}

#[test]
fn metric_lists_are_checked() {
    mock(&with_small(&["sweep", "sum-matrix", "--block", "32x16", "--metrics", "gld_efficency"]))
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: unknown metric 'gld_efficency'"));
    let raw = stdout(&mut mock(&with_small(&[
        "sweep",
        "sum-matrix",
        "--block",
        "32x16",
        "--metrics",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "--format",
        "csv",
    ])));
    assert!(raw.contains(
        "sm__warps_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active_unit"
    ));
    common::cuda(&["metrics"]).assert().success().stdout(
        predicate::str::contains("achieved_occupancy")
            .and(predicate::str::contains("sm__warps_active.avg.pct_of_peak_sustained_active")),
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&mut common::cuda(&["metrics", "--format", "json"]))).unwrap();
    assert!(v.as_array().unwrap().iter().any(|m| m["name"] == "gld_efficiency" && m["unit"] == "%"));
}

#[test]
fn peak_and_transpose_benchmarks_on_the_mock() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("peak.svg");
    mock(&["peak", "--nx", "512", "--ny", "256", "--iters", "2", "--plot", svg.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("copyFloat4x4").and(predicate::str::contains("mad96")))
        .stderr(predicate::str::contains("fastest copy kernel:").and(predicate::str::contains("MAD curve:")));
    assert!(std::fs::read_to_string(&svg).unwrap().contains("multiply-adds per pixel"));
    let out = stdout(&mut mock(&["transpose", "--bench", "--sizes", "128,256", "--iters", "2", "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let recs = v["records"].as_array().unwrap();
    assert_eq!(recs.len(), 16);
    assert!(recs.iter().all(|r| r["metrics"].as_array().unwrap().iter().any(|m| m["name"] == "pct_of_copy")));
    mock(&["transpose"]).assert().code(2).stderr(predicate::str::starts_with("error: transpose needs --bench"));
    // A fixed width and growing heights: the naive transpose's series is stated either way.
    mock(&["transpose", "--bench", "--width", "256", "--sizes", "64,128,256", "--iters", "2"])
        .assert()
        .success()
        .stderr(predicate::str::contains("256x128: fastest transpose"))
        .stderr(predicate::str::contains("naive transpose, GB/s: ").and(predicate::str::contains("(256x64), ")));
    mock(&["transpose", "--bench", "--width", "0", "--sizes", "64"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: invalid value '0' for '--width <WIDTH>'"));
    mock(&[
        "sweep",
        "transpose-shared",
        "--block",
        "16x16,32x8,32x32,32x12",
        "--nx",
        "256",
        "--ny",
        "192",
        "--iters",
        "2",
    ])
    .assert()
    .success()
    .stdout(predicate::str::contains("needs block.x a multiple of block.y"));
    mock(&["sweep", "mad", "--n", "5", "--block", "256"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("mad takes --n"));
}

#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = stdout(&mut mock(&["completions", shell]));
        assert!(out.contains("sweep") && out.contains("until-noise"), "{shell}");
    }
    let man = stdout(&mut mock(&["man"]));
    assert!(man.contains(".TH warpscope 1") && man.contains("sweep") && man.contains("completions"));
    mock(&["completions", "tcsh"]).assert().code(2).stderr(predicate::str::contains("invalid value 'tcsh'"));
}

#[test]
fn every_plotting_command_draws_svg_and_png() {
    let dir = tempfile::tempdir().unwrap();
    let f = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            [
                "sweep",
                "sum-matrix",
                "--nx",
                "512",
                "--ny",
                "256",
                "--bx",
                "32,64",
                "--by",
                "1,2",
                "--iters",
                "2",
                "--model",
            ]
            .map(String::from)
            .to_vec(),
            "over block.x x block.y",
        ),
        (
            ["estimate", "sum-matrix", "--arch", "sm_20", "--block", "32x32,16x16"].map(String::from).to_vec(),
            "occupancy against block size",
        ),
        (
            ["transpose", "--bench", "--sizes", "64,128", "--iters", "2"].map(String::from).to_vec(),
            "% of the fastest copy",
        ),
        (
            ["blur", "--bench", "--width", "128", "--height", "64", "--iters", "2"].map(String::from).to_vec(),
            "of the seed",
        ),
        (["peak", "--nx", "256", "--ny", "128", "--iters", "2"].map(String::from).to_vec(), "multiply-adds per pixel"),
        (
            ["occupancy", "--arch", "sm_90", "--regs", "32", "--block-size", "32..1024:32"].map(String::from).to_vec(),
            "threads per block",
        ),
    ];
    for (i, (args, title)) in cases.iter().enumerate() {
        let (svg, png) = (f(&format!("{i}.svg")), f(&format!("{i}.png")));
        for path in [&svg, &png] {
            let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
            a.extend(["--plot", path.as_str()]);
            mock(&a).assert().success().stderr(predicate::str::contains(format!("wrote {path}")));
        }
        assert!(std::fs::read_to_string(&svg).unwrap().contains(title), "{args:?}: {title}");
        let img = image::open(&png).unwrap();
        // One chart alone is 900 x 540; several make a grid of two or three columns.
        assert!(img.width() >= 900 && img.height() >= 460, "{args:?}: {}x{}", img.width(), img.height());
    }
    mock(&["sweep", "sum-matrix", "--block", "32x8", "--plot", "/tmp/x.gif"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: cannot plot to /tmp/x.gif: use a .svg or .png file name"));
    mock(&["sweep", "sum-matrix", "--block", "32x8", "--plot", "/no/such/dir/p.svg"]).assert().code(2);
}

#[test]
fn verbose_says_where_each_configuration_spends_its_time() {
    for cmd in [&["sweep", "sum-matrix", "--block", "32x16,16x16,64x4"][..], &["run", "sum-matrix", "--block", "32x16"]]
    {
        let mut args = cmd.to_vec();
        args.extend(["--metrics", "achieved_occupancy,gld_efficiency", "-v"]);
        let out = mock(&with_small(&args)).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        let n = if cmd[0] == "run" { 1 } else { 3 };
        for step in [
            "set-up: kernel module: ",
            "set-up: hardware counters (CUPTI): ",
            "set-up: inputs and CPU reference (host, in parallel): ",
            "set-up: device buffers and inputs (GPU, in parallel): ",
            "set-up: inputs checked, reference handed over: ",
            "set-up: memcpy baseline: ",
        ] {
            assert!(err.lines().any(|l| l.starts_with(step) && l.ends_with(" s")), "{step}\n{err}");
        }
        for step in [
            "per config: poison and verified launch",
            "per config: compare every element (GPU)",
            "per config: copy back the tally",
            "per config: warm-up and timed launches",
            "per config: hardware counters",
            "per config: models",
        ] {
            let line = err.lines().find(|l| l.starts_with(step)).unwrap_or_else(|| panic!("{step}\n{err}"));
            let per = format!(" s for {n} config{}, ", if n == 1 { "" } else { "s" });
            assert!(line.contains(&per) && line.ends_with(" ms per config"), "{line}");
        }
    }
    // Without -v, none of it.
    let out = mock(&with_small(&["run", "sum-matrix", "--block", "32x16"])).output().unwrap();
    assert!(!String::from_utf8(out.stderr).unwrap().contains("per config"));
}
