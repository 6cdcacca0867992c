//! The timing options on the mock backend (whose cold L2 costs a fixed 5 % and whose samples cycle
//! through +0, +1, +2 %): `--cold`, `--until-noise`, `--interleave`, raw samples, and `compare
//! --baseline` judging changes against the noise.

mod common;

use common::{mock, stdout};
use predicates::prelude::*;
use serde_json::Value;

const BASE: &[&str] = &["sweep", "sum-matrix", "--nx", "512", "--ny", "256", "--block", "32x8,16x16", "--seed", "7"];

fn json(extra: &[&str]) -> Value {
    serde_json::from_str(&stdout(&mut mock(&[BASE, extra, &["--format", "json", "-q"]].concat()))).unwrap()
}

fn medians(v: &Value) -> Vec<f64> {
    v["records"].as_array().unwrap().iter().map(|r| r["time_ms"]["median"].as_f64().unwrap()).collect()
}

#[test]
fn cold_interleave_and_until_noise() {
    let warm = json(&["--iters", "6"]);
    let cold = json(&["--iters", "6", "--cold"]);
    assert_eq!(cold["timing"]["cold"], true);
    for (w, c) in medians(&warm).iter().zip(medians(&cold)) {
        assert!((c / w - 1.05).abs() < 1e-9, "{c} vs {w}");
    }
    let inter = json(&["--iters", "7", "--interleave"]);
    assert_eq!(inter["timing"]["interleave"], true);
    for r in inter["records"].as_array().unwrap() {
        assert_eq!(r["time_ms"]["samples"].as_array().unwrap().len(), 7);
        assert_eq!(r["status"], "ok");
    }
    // The mock's spread is 2 %: 5 % is reached with the first batch, 0.5 % never (the cap stops it).
    let easy = json(&["--until-noise", "5", "--min-iters", "4"]);
    assert_eq!(easy["timing"]["until_noise_pct"], 5.0);
    assert!(easy["records"].as_array().unwrap().iter().all(|r| r["time_ms"]["iters"] == 4));
    mock(&[BASE, &["--until-noise", "0.5", "--min-iters", "4", "--max-iters", "12"]].concat())
        .assert()
        .success()
        .stderr(predicate::str::contains("still above 0.5% after 12 timed launches"));
    for (args, msg) in [
        (vec!["--until-noise=-1"], "error: invalid value '-1' for '--until-noise <PCT>'"),
        (vec!["--until-noise", "1", "--min-iters", "2"], "error: invalid value '2' for '--min-iters <MIN_ITERS>'"),
        (vec!["--until-noise", "1", "--max-iters", "5"], "error: --max-iters 5 is under --min-iters 10"),
        (vec!["--until-noise", "1", "--iters", "5"], "cannot be used with"),
        (vec!["--until-noise", "1", "--interleave"], "cannot be used with"),
    ] {
        mock(&[BASE, args.as_slice()].concat()).assert().code(2).stderr(predicate::str::contains(msg));
    }
}

#[test]
fn baseline_comparison_flags_changes_beyond_the_noise() {
    let dir = tempfile::tempdir().unwrap();
    let (old, same, slow) = (dir.path().join("old.json"), dir.path().join("same.jsonl"), dir.path().join("slow.json"));
    let p = |f: &std::path::Path| f.to_str().unwrap().to_string();
    mock(&[BASE, &["--format", "json", "-o", &p(&old)]].concat()).assert().success();
    mock(&[BASE, &["--format", "jsonl", "-o", &p(&same)]].concat()).assert().success();
    mock(&[BASE, &["--cold", "--format", "json", "-o", &p(&slow)]].concat()).assert().success();
    mock(&["compare", "--baseline", &p(&old), &p(&same)])
        .assert()
        .success()
        .stdout(predicate::str::contains("same"))
        .stderr(predicate::str::contains("0 faster, 0 slower, 2 within the noise"));
    let out = stdout(&mut mock(&["compare", "--baseline", &p(&old), &p(&slow), "--format", "json"]));
    let v: Value = serde_json::from_str(&out).unwrap();
    for c in v.as_array().unwrap() {
        assert_eq!(c["verdict"], "slower");
        assert!((c["change_pct"].as_f64().unwrap() - 5.0).abs() < 1e-6);
    }
    mock(&["compare", "--baseline", &p(&slow), &p(&old)])
        .assert()
        .success()
        .stderr(predicate::str::contains("2 faster, 0 slower"));
    mock(&["compare", "--baseline", &p(&old), &p(&slow), "--fail-above", "3"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("2 configuration(s) slower by more than 3%"));
    mock(&["compare", "--baseline", &p(&old), &p(&slow), "--fail-above", "10"]).assert().success();
    mock(&["compare", &p(&old)]).assert().code(2).stderr(predicate::str::contains("required"));
}

#[test]
fn throttled_configs_are_marked() {
    let out = mock(&[BASE, &["--iters", "3"]].concat()).env("WARPSCOPE_MOCK_THROTTLE", "2").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let (stdout, stderr) = (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap());
    assert!(
        stderr.contains(
            "warning: sumMatrixOnGPU2D 16x16 was timed while the GPU throttled (sw_power_cap), SM clock 1410-1980 MHz"
        ),
        "{stderr}"
    );
    let rows: Vec<&str> = stdout.lines().filter(|l| l.contains("ok (verified)")).collect();
    assert_eq!(rows.len(), 2);
    assert!(!rows[0].contains("THROTTLED") && rows[1].contains("THROTTLED (sw_power_cap)"), "{rows:?}");
    let v = json(&["--iters", "3"]);
    let c = &v["records"][0]["conditions"];
    assert_eq!(c["sm_clock_mhz"], serde_json::json!([1980, 1980]));
    assert_eq!(c["throttle"], serde_json::json!([]));
}
