//! scripts/slurm-array.sh run as a Slurm array would run it, on this host with the mock backend: every
//! task's slice, the last one's merge, a re-queued task resuming, and a merge with a slice missing.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const SWEEP: &[&str] = &[
    "sum-matrix",
    "--bx",
    "32,64,128,256",
    "--by",
    "1,2,4,8",
    "--nx",
    "1024",
    "--ny",
    "512",
    "--seed",
    "42",
    "--iters",
    "3",
];

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm-array.sh")
}

/// The array task `k` of `n`, as Slurm starts it (its environment variables), on the mock backend.
fn task(out: &Path, k: u32, n: u32) -> Command {
    task_of(SWEEP, out, k, n)
}

/// As [`task`], for the sweep `sweep`.
fn task_of(sweep: &[&str], out: &Path, k: u32, n: u32) -> Command {
    let mut c = Command::new("bash");
    c.arg(script())
        .arg(out)
        .arg("--")
        .args(sweep)
        .env("WARPSCOPE_BIN", env!("CARGO_BIN_EXE_warpscope"))
        .env("WARPSCOPE_BACKEND", "mock")
        .env("SLURM_ARRAY_TASK_ID", k.to_string())
        .env("SLURM_ARRAY_TASK_COUNT", n.to_string());
    c
}

fn merge_by_hand(out: &Path) -> Output {
    Command::new("bash")
        .arg(script())
        .arg("--merge")
        .arg(out)
        .env("WARPSCOPE_BIN", env!("CARGO_BIN_EXE_warpscope"))
        .output()
        .unwrap()
}

/// (block, status) of each record, in order.
fn configs(report: &Value) -> Vec<(String, String)> {
    report["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| (r["block"].to_string(), r["status"].as_str().unwrap_or("").to_string()))
        .collect()
}

fn one_sweep(dir: &Path) -> Value {
    one_sweep_of(SWEEP, dir)
}

fn one_sweep_of(sweep: &[&str], dir: &Path) -> Value {
    let path = dir.join("one.json");
    let status = Command::new(env!("CARGO_BIN_EXE_warpscope"))
        .arg("sweep")
        .args(sweep)
        .args(["--format", "json", "-q", "-o"])
        .arg(&path)
        .env("WARPSCOPE_BACKEND", "mock")
        .status()
        .unwrap();
    assert!(status.success());
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_array_runs_every_slice_and_the_last_task_merges_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("array");
    // The three tasks at once, as the scheduler would start them.
    let children: Vec<_> = (1..=3).map(|k| task(&out, k, 3).spawn().unwrap()).collect();
    for c in children {
        assert!(c.wait_with_output().unwrap().status.success());
    }
    for k in 1..=3 {
        assert_eq!(fs::read_to_string(out.join(format!("slice-{k}-of-3.rc"))).unwrap().trim(), "0");
    }
    let merged: Value = serde_json::from_str(&fs::read_to_string(out.join("merged.json")).unwrap()).unwrap();
    // Same configurations, same outcomes, in the sweep's order, as one process sweeping them all.
    let whole = one_sweep(dir.path());
    assert_eq!(configs(&merged), configs(&whole));
    assert_eq!(configs(&merged).len(), 16);
    assert!(!out.join(".merging").exists());
}

/// A kernel file's sweep goes through the array as a built-in one does: slices, merge, and a re-queued
/// task that resumes its slice and runs nothing again.
#[test]
fn a_kernel_file_sweeps_through_the_array() {
    let sweep = [
        "--kernel-file",
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/kernels/conv2d.toml"),
        "--bx",
        "16,32",
        "--by",
        "2,4",
        "--define",
        "tile_x=1,2",
    ];
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("array");
    for k in 1..=3 {
        assert!(task_of(&sweep, &out, k, 3).output().unwrap().status.success());
    }
    let read = || -> Value { serde_json::from_str(&fs::read_to_string(out.join("merged.json")).unwrap()).unwrap() };
    let whole = one_sweep_of(&sweep, dir.path());
    assert_eq!(configs(&read()), configs(&whole));
    assert_eq!(configs(&whole).len(), 18);
    let slice2 = out.join("slice-2-of-3.jsonl");
    let before = fs::read_to_string(&slice2).unwrap();
    assert_eq!(before.lines().count(), 6);
    let again = task_of(&sweep, &out, 2, 3).output().unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(fs::read_to_string(&slice2).unwrap(), before);
    assert_eq!(configs(&read()), configs(&whole));
}

#[test]
fn a_requeued_task_resumes_its_slice_and_a_missing_slice_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("array");
    assert!(task(&out, 1, 2).output().unwrap().status.success());
    // Only slice 1 of 2 exists: no merge yet, and a merge by hand names what is missing.
    assert!(!out.join("merged.json").exists());
    let refused = merge_by_hand(&out);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.starts_with("error: merge refused the slices"), "{err}");
    assert!(fs::read_to_string(out.join("merge.log")).unwrap().contains("missing"), "merge.log names the gap");

    // Slice 1 re-queued (preempted after it finished): it resumes and runs nothing again.
    let slice1 = out.join("slice-1-of-2.jsonl");
    let before = fs::read_to_string(&slice1).unwrap().lines().count();
    assert!(task(&out, 1, 2).output().unwrap().status.success());
    assert_eq!(fs::read_to_string(&slice1).unwrap().lines().count(), before);

    // Slice 2 finishes last and merges.
    let last = task(&out, 2, 2).output().unwrap();
    assert!(last.status.success(), "{}", String::from_utf8_lossy(&last.stderr));
    assert!(String::from_utf8_lossy(&last.stdout).contains("merged 2 slices"));
    let merged: Value = serde_json::from_str(&fs::read_to_string(out.join("merged.json")).unwrap()).unwrap();
    assert_eq!(configs(&merged), configs(&one_sweep(dir.path())));
}

#[test]
fn arguments_the_script_owns_and_tasks_outside_the_array_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("array");
    let mut c = task(&out, 1, 2);
    c.arg("--shard").arg("1/2");
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--shard is set by this script"));
    let o = task(&out, 3, 2).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("outside 1..2"));
    assert!(!out.join("slice-3-of-2.jsonl").exists());
}
