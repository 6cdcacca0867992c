//! `run-spec` end to end on the mock backend: every step's outputs in one folder, a summary with the
//! tables and figures, a failing step that does not stop the others, Ctrl-C, and the shipped
//! experiment files checked against the real parser.

mod common;

use common::{mock, stdout};
use predicates::prelude::*;

const SPEC: &str = r#"
name = "small"
about = "A small experiment."

[[step]]
name = "sweep"
about = "Two shapes."
command = "sweep"
kernel = "sum-matrix"
nx = 512
ny = 256
bx = "32,64"
by = "1,2"
iters = 3
model = true
plot = true

[[step]]
name = "fermi"
command = "estimate"
kernel = "sum-matrix"
arch = "sm_20"
block = "32x32,16x16"

[[step]]
name = "occ"
command = "occupancy"
arch = "sm_90"
regs = 32
block_size = "128,256"
"#;

fn spec(dir: &std::path::Path, text: &str) -> String {
    let p = dir.join("e.toml");
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn an_experiment_runs_into_one_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let o = out.to_str().unwrap();
    let s = spec(dir.path(), SPEC);
    mock(&["run-spec", &s, "-o", o]).assert().success().stdout(predicate::str::contains("results in"));
    for f in [
        "sweep.json",
        "sweep.csv",
        "sweep.md",
        "sweep.txt",
        "sweep.svg",
        "sweep.log",
        "fermi.json",
        "occ.txt",
        "summary.md",
    ] {
        assert!(out.join(f).exists(), "{f}");
    }
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.starts_with("# small\n\nA small experiment."));
    assert!(summary.contains("## sweep\n\nTwo shapes.") && summary.contains("![sweep](sweep.svg)"));
    assert!(summary.contains("| sumMatrixOnGPU2D |") && summary.contains("warpscope mock GPU"));
    assert!(summary.contains("```text") && summary.contains("regs"), "the occupancy table is kept");
    let csv = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5);
    // --only and --dry-run.
    let dry = stdout(&mut mock(&["run-spec", &s, "-o", o, "--only", "fermi", "--dry-run"]));
    assert_eq!(
        dry.trim(),
        format!(
            "warpscope estimate sum-matrix --arch sm_20 --block 32x32,16x16 --format json -o {o}/fermi.json --backend mock"
        )
    );
}

#[test]
fn a_failing_step_does_not_stop_the_others_and_ctrl_c_does() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("r");
    let s = spec(dir.path(), SPEC);
    mock(&["run-spec", &s, "-o", o.to_str().unwrap()])
        .env("WARPSCOPE_MOCK_FAULT", "3")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("1 of 3 steps failed"));
    assert!(o.join("fermi.json").exists() && o.join("occ.txt").exists());
    let o2 = dir.path().join("r2");
    mock(&["run-spec", &s, "-o", o2.to_str().unwrap()])
        .env("WARPSCOPE_MOCK_SIGINT_AFTER", "2")
        .assert()
        .code(130)
        .stderr(predicate::str::contains("interrupted: the remaining steps were not run"));
    assert!(!o2.join("fermi.json").exists());
    let sweep = std::fs::read_to_string(o2.join("sweep.json")).unwrap();
    assert!(sweep.contains("\"records\""), "what finished is kept");
}

#[test]
fn bad_experiment_files_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad = spec(
        dir.path(),
        "name = \"x\"\n[[step]]\nname = \"s\"\ncommand = \"sweep\"\nkernel = \"sum-matrix\"\nblok = \"32x8\"\n",
    );
    mock(&["run-spec", &bad, "--dry-run"]).assert().code(2).stderr(
        predicate::str::starts_with("error: ").and(predicate::str::contains("step 's': unexpected argument '--blok'")),
    );
    mock(&["run-spec", "/no/such.toml"]).assert().code(2).stderr(predicate::str::starts_with("error: /no/such.toml"));
    let s = spec(dir.path(), SPEC);
    mock(&["run-spec", &s, "--only", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no step 'nope' (steps: sweep, fermi, occ)"));
}

#[test]
fn the_shipped_experiments_parse() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            mock(&["run-spec", p.to_str().unwrap(), "--dry-run"]).assert().success();
            n += 1;
        }
    }
    assert!(n >= 5, "one experiment file per seed");
}
