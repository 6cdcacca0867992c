//! `warpscope nvprof` end to end without a GPU: the real binary runs real programs. A program that
//! does not use CUDA shows nvprof's warning and passes its exit code through; fixtures/nvprof/fake-app.sh
//! stands in for a CUDA program by writing, as the injection library would have, the messages of a run
//! recorded on an H100 (fixtures/nvprof/*.jsonl), so that everything after the program (results,
//! joining, every table and CSV, log files, exports, child processes, crashes) is exercised. The
//! expected outputs are golden files checked by hand against real nvprof outputs (fixtures/nvprof/README.md).

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nvprof").join(name)
}

/// `warpscope nvprof ARGS` with a stand-in injection library (no CUDA program loads it here).
fn nvprof(args: &[&str]) -> Command {
    let mut c = Command::cargo_bin("warpscope").expect("binary built");
    c.env_remove("WARPSCOPE_BACKEND")
        .env("WARPSCOPE_INJECTION", fixture("fake-app.sh"))
        .env_remove("WARPSCOPE_NVPROF_KEEP")
        .arg("nvprof")
        .args(args);
    c
}

/// The fake program replaying `messages`, then `extra` arguments.
fn app(messages: &str, extra: &[&str]) -> Vec<String> {
    let mut v = vec![fixture("fake-app.sh").display().to_string(), fixture(messages).display().to_string()];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// nvprof's `==1234==` with the pid replaced, so outputs compare across runs.
fn unpid(s: &str) -> String {
    let re = regex::Regex::new(r"==\d+==").unwrap();
    re.replace_all(s, "==PID==").into_owned()
}

fn golden(name: &str, actual: &str) {
    let path = fixture(name);
    if std::env::var_os("WARPSCOPE_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(expected == actual, "{name} differs from its golden file:\n--- expected\n{expected}\n--- actual\n{actual}");
}

fn run(args: &[String]) -> (i32, String, String) {
    let out = nvprof(&args.iter().map(String::as_str).collect::<Vec<_>>()).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn a_program_without_cuda_gets_nvprofs_warning_and_keeps_its_exit_code() {
    nvprof(&["echo", "hello"])
        .assert()
        .success()
        .stdout("hello\n")
        .stderr("======== Warning: No CUDA application was profiled, exiting\n");
    nvprof(&["sh", "-c", "echo oops >&2; exit 3"])
        .assert()
        .code(3)
        .stderr("oops\n======== Warning: No CUDA application was profiled, exiting\n");
}

#[test]
fn a_missing_or_unrunnable_program_is_one_line() {
    nvprof(&["./surely-not-here"]).assert().code(2).stderr("error: ./surely-not-here: program not found\n");
    nvprof(&["surely-not-a-command-anywhere"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("program not found (not a path, and not on PATH)"));
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("data.txt");
    std::fs::write(&f, "x").unwrap();
    nvprof(&[f.to_str().unwrap()]).assert().code(2).stderr(predicate::str::contains("not executable"));
    nvprof(&[]).assert().code(2).stderr(predicate::str::contains("no program given"));
}

#[test]
fn bad_options_are_one_line_errors_before_anything_runs() {
    for (args, msg) in [
        (vec!["--metrics", "nope", "echo"], "error: unknown metric 'nope'"),
        (vec!["--events", "gld_inst_32bit", "echo"], "error: event 'gld_inst_32bit' is unavailable"),
        (
            vec!["--metrics", "gld_efficiency", "--kernels", "::sum(:1", "echo"],
            "error: --kernels: bad regular expression",
        ),
        (vec!["-u", "minutes", "echo"], "error: --normalized-time-unit 'minutes'"),
        (vec!["--log-file", "x.%y", "echo"], "error: 'x.%y': unknown %y"),
        (vec!["--devices", "0,x", "echo"], "error: --devices '0,x'"),
        (vec!["--kernels", "k", "echo"], "error: --kernels, -k, -s and -c choose the launches"),
        (vec!["--replay-mode", "application", "echo"], "error: --replay-mode application"),
    ] {
        let out = nvprof(&args).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with(msg) && err.lines().count() == 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: the program ran");
    }
}

#[test]
fn a_missing_injection_library_says_where_it_looked() {
    let mut c = Command::cargo_bin("warpscope").unwrap();
    c.env("WARPSCOPE_INJECTION", "/surely/not/libwarpscope_inject.so").args(["nvprof", "echo"]);
    c.assert().code(2).stderr("error: WARPSCOPE_INJECTION=/surely/not/libwarpscope_inject.so: no such file\n");
}

#[test]
fn queries_list_nvprofs_names() {
    let out = nvprof(&["--query-metrics"]).env("WARPSCOPE_BACKEND", "mock").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("Available Metrics:\n                            Name   Description\nDevice 0 ("),
        "{text}"
    );
    assert!(text.contains(
        "\n              achieved_occupancy:  Ratio of the average active warps per active cycle to the maximum number of warps supported on a multiprocessor\n\n"
    ));
    let out = nvprof(&["--query-events"]).env("WARPSCOPE_BACKEND", "mock").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("\n                  warps_launched:  Number of warps launched (smsp__warps_launched.sum)\n")
    );
    assert!(
        text.contains(
            "\n                  gld_inst_32bit:  unavailable: Nsight Compute does not count loads by width\n"
        )
    );
}
