//! Several GPUs and several hosts, on two mock devices: `--devices` hands a sweep's configurations to
//! whichever device is free and `--shard K/N` runs slices that `merge` joins — both give the same
//! configurations, outcomes and (on the deterministic mock) times as a one-GPU run, in the same order.

mod common;

use common::mock;
use predicates::prelude::*;
use serde_json::Value;

const SWEEP: &[&str] = &[
    "sweep",
    "sum-matrix",
    "--nx",
    "512",
    "--ny",
    "256",
    "--bx",
    "32,64,128,2048",
    "--by",
    "1,2",
    "--iters",
    "3",
    "--seed",
    "5",
    "--format",
    "json",
    "-q",
];

fn run(dir: &std::path::Path, name: &str, extra: &[&str]) -> Value {
    let path = dir.join(name);
    mock(&[SWEEP, extra, &["-o", path.to_str().unwrap()]].concat())
        .env("WARPSCOPE_MOCK_DEVICES", "2")
        .assert()
        .success();
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// What must not depend on how the sweep was spread: per record, everything but the device.
fn outcome(v: &Value) -> Vec<Value> {
    v["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.as_object_mut().unwrap().remove("device");
            r
        })
        .collect()
}

#[test]
fn two_gpus_and_two_shards_match_one_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let one = run(dir.path(), "one.json", &[]);
    let two = run(dir.path(), "two.json", &["--devices", "all"]);
    assert_eq!(outcome(&one), outcome(&two));
    // Each record run names the device that ran it; which one depends on which was free.
    let ran: Vec<&Value> = two["records"].as_array().unwrap().iter().filter(|r| r["status"] != "invalid").collect();
    assert_eq!(ran.len(), 6);
    assert!(ran.iter().all(|r| r["device"] == 0 || r["device"] == 1), "{ran:?}");
    assert_eq!(two["devices"].as_array().unwrap().len(), 2);
    assert!(
        two["records"].as_array().unwrap().iter().filter(|r| r["status"] != "invalid").all(|r| r["status"] == "ok")
    );

    run(dir.path(), "s1.json", &["--shard", "1/2"]);
    run(dir.path(), "s2.json", &["--shard", "2/2", "--device", "1"]);
    let merged = dir.path().join("merged.json");
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    mock(&["merge", &p("s2.json"), &p("s1.json"), "--format", "json", "-o", merged.to_str().unwrap()])
        .assert()
        .success()
        .stderr(predicate::str::contains("merged 8 records from 2 files"));
    let merged: Value = serde_json::from_str(&std::fs::read_to_string(merged).unwrap()).unwrap();
    assert_eq!(outcome(&one), outcome(&merged));
    // A repeat is not a slice.
    mock(&["merge", &p("s1.json"), &p("s1.json")])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is in the results twice"));
}

#[test]
fn device_and_shard_lists_are_checked() {
    let m = |args: &[&str]| {
        let mut c = mock(&[&["sweep", "sum-matrix", "--block", "32x8"], args].concat());
        c.env("WARPSCOPE_MOCK_DEVICES", "2");
        c
    };
    m(&["--devices", "0,5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no CUDA device 5: this machine has 2 (0..1)"));
    m(&["--devices", "1,1"]).assert().code(2).stderr(predicate::str::contains("device 1 is listed twice"));
    m(&["--shard", "0/2"]).assert().code(2).stderr(predicate::str::contains("--shard 0/2: K/N with 1 <= K <= N"));
    m(&["--shard", "2"]).assert().code(2);
    m(&["--devices", "all", "--device", "1"]).assert().code(2).stderr(predicate::str::contains("cannot be used with"));
    mock(&["merge"]).assert().code(2);
}

/// A slow device does not hold the sweep back: configurations go to whichever device is free, so the
/// fast one runs most of them, and the records are those of a one-GPU run.
#[test]
fn a_slow_device_takes_fewer_configurations() {
    let dir = tempfile::tempdir().unwrap();
    let one = run(dir.path(), "one.json", &[]);
    let path = dir.path().join("slow.json");
    let started = std::time::Instant::now();
    mock(&[SWEEP, &["--devices", "all", "-o", path.to_str().unwrap()]].concat())
        .env("WARPSCOPE_MOCK_DEVICES", "2")
        .env("WARPSCOPE_MOCK_SLEEP_MS", "400")
        .env("WARPSCOPE_MOCK_SLEEP_DEVICE", "1")
        .assert()
        .success();
    let secs = started.elapsed().as_secs_f64();
    let slow: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(outcome(&one), outcome(&slow));
    let ran =
        |d: i64| slow["records"].as_array().unwrap().iter().filter(|r| r["status"] == "ok" && r["device"] == d).count();
    // Six valid configurations: round-robin would give the slow device three (1.2 s of sleeping).
    assert_eq!(ran(0) + ran(1), 6);
    assert!(ran(1) <= 2 && ran(0) >= 4, "fast device ran {}, slow device {}", ran(0), ran(1));
    assert!(secs < 10.0, "{secs} s");
}
