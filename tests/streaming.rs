//! Nothing lost: JSON Lines streamed as configurations finish, Ctrl-C (a real SIGINT, sent by the mock
//! backend mid-sweep) keeping what finished with exit 130, and `--resume` completing the same sweep.

mod common;

use common::{mock, stdout};
use predicates::prelude::*;
use serde_json::Value;

const SWEEP: &[&str] =
    &["sweep", "sum-matrix", "--nx", "512", "--ny", "256", "--bx", "32,64,128,2048", "--by", "1,2", "--iters", "3"];

fn lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn configs(records: &[Value]) -> Vec<String> {
    let mut v: Vec<String> =
        records.iter().map(|r| format!("{} {} {}", r["block"], r["status"], r["kernel"])).collect();
    v.sort();
    v
}

#[test]
fn ctrl_c_keeps_what_finished_and_resume_completes_the_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r.jsonl");
    let fs = f.to_str().unwrap();
    let args = [SWEEP, &["--format", "jsonl", "-o", fs]].concat();
    mock(&args)
        .env("WARPSCOPE_MOCK_SIGINT_AFTER", "3")
        .assert()
        .code(130)
        .stderr(predicate::str::contains("interrupted: 3 of 8 configurations finished and kept in"));
    let first = lines(&f);
    assert_eq!(first.len(), 3);
    assert!(first.iter().all(|r| r["status"] == "ok" && r["time_ms"]["samples"].as_array().unwrap().len() == 3));

    let resume = [args.as_slice(), &["--resume", fs]].concat();
    mock(&resume)
        .assert()
        .success()
        .stderr(predicate::str::contains("resuming: 3 of 8 configurations already done, 5 to run"));
    let all = lines(&f);
    assert_eq!(all.len(), 8);
    assert_eq!(&all[..3], &first[..], "the first run's lines are kept as they were");

    // The same configurations, with the same outcomes, as one uninterrupted run.
    let g = dir.path().join("whole.jsonl");
    mock(&[SWEEP, &["--format", "jsonl", "-o", g.to_str().unwrap()]].concat()).assert().success();
    assert_eq!(configs(&all), configs(&lines(&g)));
    assert_eq!(all.iter().filter(|r| r["status"] == "invalid").count(), 2);

    // Resuming a finished sweep runs nothing; into another format it reports every record.
    let out =
        stdout(mock(&[SWEEP, &["--resume", fs, "--format", "json"]].concat()).env("WARPSCOPE_MOCK_SIGINT_AFTER", "1"));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["records"].as_array().unwrap().len(), 8);
}

#[test]
fn jsonl_streams_to_stdout_on_every_record_command() {
    let out = stdout(&mut mock(&[SWEEP, &["--format", "jsonl"]].concat()));
    assert_eq!(out.lines().count(), 8);
    let r: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    for k in ["kernel", "grid", "block", "status", "time_ms", "metrics", "verification"] {
        assert!(r.get(k).is_some(), "{k}");
    }
    let t = &r["time_ms"];
    for k in ["median", "min", "max", "mean", "stdev", "q1", "q3", "iters", "samples"] {
        assert!(t.get(k).is_some(), "time_ms.{k}");
    }
    assert!(t["q1"].as_f64().unwrap() <= t["median"].as_f64().unwrap());
    let est = stdout(&mut mock(&[
        "estimate",
        "sum-matrix",
        "--arch",
        "sm_20",
        "--block",
        "32x32,16x16",
        "--format",
        "jsonl",
    ]));
    assert_eq!(est.lines().count(), 2);
    assert!(est.lines().all(|l| serde_json::from_str::<Value>(l).unwrap()["status"] == "ok"));
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ncu-h200-seed-default.csv");
    let imp = stdout(&mut mock(&["import", fixture, "--format", "jsonl"]));
    let json: Value = serde_json::from_str(&stdout(&mut mock(&["import", fixture, "--format", "json"]))).unwrap();
    assert_eq!(imp.lines().count(), json["records"].as_array().unwrap().len());
    assert!(imp.lines().all(|l| serde_json::from_str::<Value>(l).unwrap()["kernel"] == "sumMatrixOnGPU2D"));
}

#[test]
fn resume_files_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"kernel\": 1}\n{}\n").unwrap();
    mock(&[SWEEP, &["--resume", bad.to_str().unwrap()]].concat())
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: ").and(predicate::str::contains("line 1: not a warpscope record")));
    mock(&[SWEEP, &["--resume", "/no/such.jsonl"]].concat())
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: --resume /no/such.jsonl: no such file"));
    // A torn last line (a run killed mid-write) is dropped, not an error.
    let good = dir.path().join("torn.jsonl");
    mock(&[SWEEP, &["--format", "jsonl", "-o", good.to_str().unwrap()]].concat()).assert().success();
    let mut text = std::fs::read_to_string(&good).unwrap();
    text.truncate(text.len() - 20);
    std::fs::write(&good, &text).unwrap();
    mock(&[SWEEP, &["--resume", good.to_str().unwrap(), "-q"]].concat())
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
}

#[test]
fn the_progress_bar_shows_on_a_terminal_only() {
    let plain = mock(SWEEP).output().unwrap();
    assert!(!String::from_utf8_lossy(&plain.stderr).contains(" configs, "));
    // On a pseudo-terminal (util-linux `script`, where installed) the bar is drawn on stderr.
    let bin = assert_cmd::cargo::cargo_bin("warpscope");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let cmd = format!("{} {} -o {} --format json", bin.display(), SWEEP.join(" "), out.display());
    let Ok(out) = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("WARPSCOPE_BACKEND", "mock")
        .output()
    else {
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("/8 configs, "), "{text}");
    let quiet = std::process::Command::new("script")
        .args(["-qec", &format!("{cmd} -q"), "/dev/null"])
        .env("WARPSCOPE_BACKEND", "mock")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&quiet.stdout).contains(" configs, "));
    // The benchmarks' bars count every configuration they measure: the total is the records' count.
    let on_terminal = |cmd: &str| {
        let out = std::process::Command::new("script")
            .args(["-qec", cmd, "/dev/null"])
            .env("WARPSCOPE_BACKEND", "mock")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for (name, args) in
        [("peak", "peak --nx 256 --ny 64 --iters 2"), ("transpose", "transpose --bench --sizes 64,128 --iters 2")]
    {
        let file = dir.path().join(format!("{name}.json"));
        let text = on_terminal(&format!("{} {args} -o {} --format json", bin.display(), file.display()));
        let records = warpscope::report::read(&file).unwrap().records.len();
        assert!(records > 2 && text.contains(&format!("/{records} configs, ")), "{name}: {records} records\n{text}");
    }
    // blur --bench: the copy and every stage of every algorithm, each a configuration line.
    let blur = format!("{} blur --bench --width 128 --height 96 --iters 2", bin.display());
    let text = on_terminal(&blur);
    let stages = text.lines().filter(|l| l.contains(">>> elapsed")).count();
    assert!(stages > 7 && text.contains(&format!("/{stages} configs, ")), "{stages} stages\n{text}");
    let quiet = on_terminal(&format!("{blur} -q"));
    assert!(!quiet.contains(" configs, ") && !quiet.contains(">>> elapsed") && quiet.contains("MP/s"), "{quiet}");
}

#[test]
fn timeouts_and_memory_are_checked_before_harm_is_done() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t.jsonl");
    // Each timing takes 300 ms; the limit is 150 ms: the first configuration is given up on.
    mock(&[SWEEP, &["--format", "jsonl", "-o", f.to_str().unwrap(), "--timeout", "0.15"]].concat())
        .env("WARPSCOPE_MOCK_SLEEP_MS", "300")
        .assert()
        .code(124)
        .stderr(predicate::str::contains(
            "a configuration ran past --timeout 0.15 s; the 0 finished configurations are kept in",
        ));
    // The third configuration hangs: the two finished before it are written, in the chosen format,
    // with the device and the copy baseline, and the process ends with 124.
    let json = dir.path().join("t.json");
    mock(&[SWEEP, &["--format", "json", "-o", json.to_str().unwrap(), "--timeout", "0.5"]].concat())
        .env("WARPSCOPE_MOCK_HANG_AT", "3")
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(124)
        .stderr(predicate::str::contains(format!(
            "a configuration ran past --timeout 0.5 s; the 2 finished configurations are written to {}",
            json.display()
        )));
    let kept = warpscope::report::read(&json).unwrap();
    assert_eq!(kept.records.len(), 2);
    assert!(kept.records.iter().all(|r| r.status == warpscope::record::Status::Ok));
    assert!(kept.device.name.contains("mock") && kept.baselines.memcpy_dtod_gbs.is_some());
    mock(&[SWEEP, &["--timeout", "0.5", "-q"]].concat())
        .env("WARPSCOPE_MOCK_HANG_AT", "2")
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(124)
        .stdout(predicate::str::contains("| ok (verified)").count(1))
        .stderr(predicate::str::contains("the 1 finished configuration is printed above"));
    // A limit the configurations keep: they all finish.
    mock(&[SWEEP, &["--timeout", "5"]].concat()).env("WARPSCOPE_MOCK_SLEEP_MS", "10").assert().success();
    // The limit is on the GPU's busy time, not the wall clock: each configuration's timing takes
    // 250 ms of its 400 ms, and its counters, its models (about 0.3 s in a test build) and the
    // records coming out after them are the host's time, not counted. Every configuration finishes.
    let healthy = dir.path().join("healthy.jsonl");
    let with_counters = ["--metrics", "achieved_occupancy", "--model", "--format", "jsonl", "-o"];
    mock(&[SWEEP, &with_counters, &[healthy.to_str().unwrap(), "--timeout", "0.4"]].concat())
        .env("WARPSCOPE_MOCK_SLEEP_MS", "250")
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success();
    assert_eq!(lines(&healthy).len(), 8);
    mock(&[SWEEP, &["--timeout", "0"]].concat())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value '0' for '--timeout <SECS>'"));
    // A problem larger than the device's memory is refused before anything is allocated.
    mock(SWEEP)
        .env("WARPSCOPE_MOCK_MEMORY", "1000000")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("sumMatrixOnGPU2D 512x256 needs 1.6 MB of device memory, 1.0 MB free"));
}
