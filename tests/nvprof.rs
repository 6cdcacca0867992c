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
        (vec!["--log-file", "same.txt", "-o", "same.txt", "echo"], "error: --export-profile same.txt is the same file"),
        (vec!["--log-file", "/", "echo"], "error: /: is a folder"),
        (vec!["--profile-from-start", "maybe", "echo"], "error: invalid value 'maybe' for '--profile-from-start"),
        // nvprof's options warpscope does not take, and any other option, before the program.
        (
            vec!["--analysis-metrics", "echo"],
            "error: nvprof option --analysis-metrics is not supported by warpscope nvprof: there is no Visual Profiler import",
        ),
        (vec!["--system-profiling", "on", "echo"], "error: nvprof option --system-profiling is not supported"),
        (vec!["--aggregate-mode=off", "echo"], "error: nvprof option --aggregate-mode is not supported"),
        (vec!["--bogus", "echo"], "error: unknown option --bogus: `warpscope nvprof --help` lists"),
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

/// Runs the stand-in program with recorded messages and returns (exit code, stdout, stderr with pids
/// replaced).
fn replay(args: &[&str], messages: &str, extra: &[&str]) -> (i32, String, String) {
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.extend(app(messages, extra));
    let (code, out, err) = run(&all);
    (code, out, unpid(&err))
}

#[test]
fn the_summary_reads_like_nvprofs() {
    let (code, out, err) = replay(&[], "h100-sumMatrix-32x16-summary.jsonl", &["say"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "program output on stdout\n", "the program's stdout passes through untouched");
    assert!(err.starts_with("program output on stderr\n"), "{err}");
    golden("summary.txt", err.trim_start_matches("program output on stderr\n"));
}

#[test]
fn the_summary_in_csv_takes_one_unit_per_column() {
    let (_, _, err) = replay(&["--csv"], "h100-sumMatrix-32x16-summary.jsonl", &[]);
    golden("summary.csv", &err);
    let (_, _, err) = replay(&["--csv", "-u", "us", "--print-gpu-summary"], "h100-sumMatrix-32x16-summary.jsonl", &[]);
    golden("summary-gpu-us.csv", &err);
}

#[test]
fn the_gpu_trace_reads_like_nvprofs() {
    let (_, _, err) = replay(&["--print-gpu-trace"], "h100-sumMatrix-32x16-summary.jsonl", &[]);
    golden("trace.txt", &err);
    let (_, _, err) = replay(&["--print-gpu-trace", "--csv"], "h100-sumMatrix-32x16-summary.jsonl", &[]);
    golden("trace.csv", &err);
}

#[test]
fn metric_and_event_results_read_like_nvprofs() {
    let m = "achieved_occupancy,gld_throughput,gld_efficiency";
    let (_, _, err) = replay(&["--metrics", m], "h100-sumMatrix-32x16-metrics.jsonl", &[]);
    golden("metrics.txt", &err);
    let (_, _, err) = replay(&["--csv", "--metrics", m], "h100-sumMatrix-32x16-metrics.jsonl", &[]);
    golden("metrics.csv", &err);
    let e = "warps_launched,active_cycles,global_load";
    let (_, _, err) =
        replay(&["--events", e, "--metrics", "achieved_occupancy"], "h100-sumMatrix-32x16-events.jsonl", &[]);
    golden("events.txt", &err);
    let (_, _, err) =
        replay(&["--csv", "--events", e, "--metrics", "achieved_occupancy"], "h100-sumMatrix-32x16-events.jsonl", &[]);
    golden("events.csv", &err);
    // Metrics asked for but none recorded: nvprof's line.
    let (_, _, err) = replay(&["--metrics", "gst_efficiency"], "h100-sumMatrix-32x16-summary.jsonl", &[]);
    assert!(err.ends_with("==PID== Profiling result:\nNo events/metrics were profiled.\n"), "{err}");
}

/// nvprof's own metric lines for a V100 (a Summit run of nvprof's metrics, published in
/// github.com/sarats/xgc, GPU_Kernels.md; see fixtures/nvprof/README.md), each with its whitespace
/// collapsed: warpscope given the same values (v100-values-metrics.jsonl, written by hand from those
/// lines) must print the same descriptions, levels, byte counts and percentages.
#[test]
fn levels_bytes_and_stall_reasons_read_like_nvprofs() {
    let m = "warp_nonpred_execution_efficiency,dram_read_bytes,sysmem_write_bytes,l2_read_throughput,inst_fp_64,\
             dram_utilization,shared_utilization,stall_inst_fetch,issue_slot_utilization,achieved_occupancy";
    let (code, _, err) = replay(&["--metrics", m], "v100-values-metrics.jsonl", &[]);
    assert_eq!(code, 0, "{err}");
    let collapsed: Vec<String> = err.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    for nvprof in [
        "1 warp_nonpred_execution_efficiency Warp Non-Predicated Execution Efficiency 86.72% 86.72% 86.72%",
        "1 dram_read_bytes Total bytes read from DRAM to L2 cache 5.8717e+11 5.8717e+11 5.8717e+11",
        "1 sysmem_write_bytes System Memory Write Bytes 160 160 160",
        "1 l2_read_throughput L2 Throughput (Reads) 281.16GB/s 281.16GB/s 281.16GB/s",
        "1 inst_fp_64 FP Instructions(Double) 1.5991e+12 1.5991e+12 1.5991e+12",
        "1 dram_utilization Device Memory Utilization High (8) High (8) High (8)",
        "1 shared_utilization Shared Memory Utilization Idle (0) Idle (0) Idle (0)",
        "1 stall_inst_fetch Issue Stall Reasons (Instructions Fetch) 47.62% 47.62% 47.62%",
        "1 issue_slot_utilization Issue Slot Utilization 13.16% 13.16% 13.16%",
        "1 achieved_occupancy Achieved Occupancy 0.123716 0.123716 0.123716",
    ] {
        assert!(collapsed.iter().any(|l| l == nvprof), "no line {nvprof:?} in\n{err}");
    }
    // In CSV a level is quoted, as a GTX 1080 Ti's nvprof wrote it (`"Low (1)"`), and reads back.
    let (_, _, csv) =
        replay(&["--csv", "--metrics", "dram_utilization,sysmem_write_bytes"], "v100-values-metrics.jsonl", &[]);
    assert!(
        csv.contains(r#""dram_utilization","Device Memory Utilization","High (8)","High (8)","High (8)""#),
        "{csv}"
    );
    assert!(csv.contains(r#""sysmem_write_bytes","System Memory Write Bytes",160,160,160"#), "{csv}");
    let (_, back) = warpscope::import::parse(&csv).unwrap();
    let level = back.records[0].metrics.iter().find(|m| m.name == "dram_utilization").unwrap();
    assert_eq!((level.value, level.unit.as_str()), (8.0, "level"));
}

/// `--print-api-trace` given the calls of a real V100's API trace (v100-values-api-trace.jsonl, written
/// by hand from tests/fixtures/profilers/nvprof-api-trace-v100-vectoradd.txt): the same lines, a launch
/// naming its kernel and correlation id; with `--csv`, what `warpscope import` knows as an API trace.
#[test]
fn the_api_trace_reads_like_nvprofs() {
    let (code, _, err) = replay(&["--print-api-trace"], "v100-values-api-trace.jsonl", &[]);
    assert_eq!(code, 0, "{err}");
    let real = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/profilers/nvprof-api-trace-v100-vectoradd.txt"),
    )
    .unwrap();
    for line in [
        "   Start  Duration  Name",
        "     0ns  4.1870us  cuDeviceGetPCIBusId",
        "211.02ms     465ns  cuDeviceGetCount",
        "1.51458s  6.4730ms  cudaMallocAsync",
        "1.52110s  29.396us  cudaLaunchKernel (vector_add_kernel(float const *, float const *, float*, int) [129])",
    ] {
        assert!(real.lines().any(|l| l == line), "not nvprof's: {line}");
        assert!(err.lines().any(|l| l == line), "no line {line:?} in\n{err}");
    }
    assert!(!err.contains("GPU activities"), "a trace alone: no summary\n{err}");
    let (_, _, csv) = replay(&["--csv", "--print-api-trace"], "v100-values-api-trace.jsonl", &[]);
    assert!(
        csv.contains(
            "\"Start\",\"Duration\",\"Name\",\"Correlation_ID\"\ns,ms,,\n0.000000,0.004187,\"cuDeviceGetPCIBusId\",1\n"
        ),
        "{csv}"
    );
    let err = warpscope::import::parse(&csv).unwrap_err().to_string();
    assert!(err.contains("API trace"), "{err}");
}

/// `--print-summary-per-gpu` (HPC job scripts pass it even with one GPU): one table of GPU activities
/// per device, each after its `Device "NAME (N)"` line, the API calls on their own; `import` reads each
/// device's rows as that device's, in text and CSV (two-devices-summary.jsonl: the summary run with its
/// kernel also on a device 1, written by hand).
#[test]
fn the_summary_per_gpu_has_a_table_per_device() {
    let (code, _, err) = replay(&["--print-summary-per-gpu"], "two-devices-summary.jsonl", &[]);
    assert_eq!(code, 0, "{err}");
    let d0 = err.find("Device \"NVIDIA H100 80GB HBM3 (0)\"\n").expect("device 0's line");
    let d1 = err.find("Device \"NVIDIA H100 80GB HBM3 (1)\"\n").expect("device 1's line");
    let api = err.find("API calls:").expect("the API calls");
    assert!(d0 < d1 && d1 < api, "{err}");
    assert!(err[d1..api].contains(" GPU activities:  100.00%  2.6317ms"), "{err}");
    assert!(!err[d0..d1].contains("2.6317ms"), "{err}");
    for csv in [false, true] {
        let args: &[&str] = if csv { &["--csv", "--print-summary-per-gpu"] } else { &["--print-summary-per-gpu"] };
        let (_, _, out) = replay(args, "two-devices-summary.jsonl", &[]);
        let (_, rep) = warpscope::import::parse(&out).unwrap();
        let kernels: Vec<(Option<u32>, f64)> = rep
            .records
            .iter()
            .map(|r| (r.device, r.metrics.iter().find(|m| m.name == "duration").unwrap().value))
            .collect();
        assert_eq!(kernels.len(), 2, "csv {csv}: {kernels:?}");
        assert_eq!((kernels[0].0, kernels[1].0), (Some(0), Some(1)), "csv {csv}");
        assert!((kernels[1].1 - 2.6317).abs() < 1e-3, "csv {csv}: {kernels:?}");
    }
}

#[test]
fn child_processes_are_profiled_only_when_asked() {
    let args = ["--print-gpu-summary"];
    let (code, _, err) =
        replay(&args, "h100-multi-parent.jsonl", &["child", &fixture("h100-multi-child.jsonl").display().to_string()]);
    assert_eq!(code, 0);
    assert_eq!(err.matches("Profiling application:").count(), 1, "{err}");
    let mut with = vec!["--profile-child-processes"];
    with.extend(args);
    let (_, _, err) =
        replay(&with, "h100-multi-parent.jsonl", &["child", &fixture("h100-multi-child.jsonl").display().to_string()]);
    golden("multi-children.txt", &err);
}

#[test]
fn exit_codes_crashes_and_log_files() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("out.%p.log");
    let (code, _, err) =
        replay(&["--log-file", log.to_str().unwrap()], "h100-sumMatrix-32x16-summary.jsonl", &["exit", "7"]);
    assert_eq!(code, 7);
    assert_eq!(err, "", "with --log-file nothing of nvprof's goes to stderr");
    let logs: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert_eq!(logs.len(), 1);
    let name = logs[0].file_name().into_string().unwrap();
    assert!(
        name.starts_with("out.") && name.ends_with(".log") && name[4..name.len() - 4].parse::<u32>().is_ok(),
        "{name}"
    );
    let text = unpid(&std::fs::read_to_string(logs[0].path()).unwrap());
    assert!(text.starts_with("==PID== NVPROF is profiling process "), "{text}");
    assert!(text.contains(
        "==PID== Profiling application: ./sumMatrix 32 16\n==PID== Profiling result:\n            Type  Time(%)"
    ));
    // A crash: the program's signal becomes the exit code; what it reported is kept.
    let (code, _, err) = replay(&[], "h100-sumMatrix-32x16-summary.jsonl", &["crash"]);
    assert_eq!(code, 139);
    assert!(err.contains("sumMatrixOnGPU2D(float*, float*, float*, int, int)"), "{err}");
}

/// Starts `warpscope nvprof` on the fake program that sleeps 5 s once its results are written, sends
/// warpscope alone `signal`, and returns how it ended: exit code, standard error, seconds taken.
fn signalled(signal: nix::sys::signal::Signal) -> (i32, String, f64) {
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    let args = app("h100-sumMatrix-32x16-summary.jsonl", &["ready", ready.to_str().unwrap(), "sleep", "5"]);
    let start = std::time::Instant::now();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("warpscope"))
        .env_remove("WARPSCOPE_BACKEND")
        .env("WARPSCOPE_INJECTION", fixture("fake-app.sh"))
        .arg("nvprof")
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    while !ready.exists() {
        assert!(start.elapsed().as_secs() < 30, "the program never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stderr).unwrap(), start.elapsed().as_secs_f64())
}

#[test]
fn stop_signals_are_the_programs_and_warpscope_stays_to_report() {
    use nix::sys::signal::Signal;
    // SIGTERM to warpscope alone reaches the program, which ends by it; what it reported is shown.
    let (code, err, _) = signalled(Signal::SIGTERM);
    assert_eq!(code, 143, "{err}");
    assert!(err.contains("sumMatrixOnGPU2D(float*, float*, float*, int, int)"), "{err}");
    // SIGINT is Ctrl-C's, which reaches the program from the terminal itself: not passed on a second
    // time, and warpscope waits for the program to end on its own.
    let (code, err, took) = signalled(Signal::SIGINT);
    assert_eq!(code, 0, "{err}");
    assert!(took >= 5.0, "{took}");
    assert!(err.contains("sumMatrixOnGPU2D(float*, float*, float*, int, int)"), "{err}");
}

#[test]
fn the_export_is_a_warpscope_report_that_compare_reads() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("ws.json");
    let m = "achieved_occupancy,gld_throughput,gld_efficiency";
    let (code, _, err) = replay(&["-o", json.to_str().unwrap(), "--metrics", m], "h100-seed-32x16-ws.jsonl", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("==PID== Generated result file: "), "{err}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["device"]["name"], "NVIDIA H100 80GB HBM3");
    assert_eq!(report["records"][0]["kernel"], "sumMatrixOnGPU2D");
    assert_eq!(report["records"][0]["block"], serde_json::json!([32, 16, 1]));
    // An existing export is kept unless -f.
    let (code, _, err) = replay(&["-o", json.to_str().unwrap(), "--metrics", m], "h100-seed-32x16-ws.jsonl", &[]);
    assert_eq!(code, 2);
    assert!(err.contains("file exists (-f/--force-overwrite replaces it)"), "{err}");
    // warpscope compare against ncu's CSV of the same H100 session: the seed metrics agree.
    let out = Command::cargo_bin("warpscope")
        .unwrap()
        .args([
            "compare",
            json.to_str().unwrap(),
            fixture("h100-seed-32x16-ncu.csv").to_str().unwrap(),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let cmp: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    let rows = cmp["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{cmp}");
    for r in rows {
        let limit = if r["metric"] == "gld_throughput" { 3.0 } else { 1.0 };
        assert!(r["delta"].as_f64().unwrap().abs() <= limit, "{r}");
    }
}

#[test]
fn nvprof_csv_is_what_warpscope_import_reads() {
    let m = "achieved_occupancy,gld_throughput,gld_efficiency";
    let (_, _, err) = replay(&["--csv", "--metrics", m], "h100-sumMatrix-32x16-metrics.jsonl", &[]);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("nvprof.csv");
    std::fs::write(&f, &err).unwrap();
    let out = Command::cargo_bin("warpscope")
        .unwrap()
        .args(["import", f.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let metrics = report["records"][0]["metrics"].as_array().unwrap();
    let names: Vec<&str> = metrics.iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["achieved_occupancy", "gld_throughput", "gld_efficiency"]);
}

#[test]
fn a_filtered_runs_launches_are_counted_per_kernel() {
    let (_, _, err) = replay(
        &["--kernels", "::busy:2|4", "--metrics", "achieved_occupancy,sm_efficiency"],
        "h100-multi-kernels.jsonl",
        &[],
    );
    assert!(
        err.contains("    Kernel: busy(float*, int, int)\n          2                        achieved_occupancy"),
        "{err}"
    );
}

#[test]
fn no_permission_is_the_one_line_hint_and_exit_2_unless_the_program_failed() {
    // What the injection library reports when CUPTI refuses (ERR_NVGPUCTRPERM), as src/profile says it.
    let m = "achieved_occupancy";
    let (code, _, err) = replay(&["--metrics", m], "no-permission.jsonl", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("==PID== Profiling result:\nNo events/metrics were profiled.\n"), "{err}");
    assert!(
        err.ends_with("error: nothing could be profiled: profiling not permitted (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, ncu's ERR_NVGPUCTRPERM): run as root, or set the driver option NVreg_RestrictProfilingToAdminUsers=0\n"),
        "{err}"
    );
    // In a log file, the error sits where nvprof printed it.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.txt");
    let (code, _, _) = replay(&["--log-file", log.to_str().unwrap(), "--metrics", m], "no-permission.jsonl", &[]);
    assert_eq!(code, 2);
    let text = unpid(&std::fs::read_to_string(&log).unwrap());
    assert!(
        text.contains("==PID== NVPROF is profiling process ")
            && text.contains("\n==PID== Error: profiling not permitted"),
        "{text}"
    );
    // The program's own failure wins.
    let (code, _, _) = replay(&["--metrics", m], "no-permission.jsonl", &["exit", "4"]);
    assert_eq!(code, 4);
}

/// A kernel launch of a recorded run, as the injection library reported it.
struct Recorded {
    name: String,
    kernel: String,
    correlation: u64,
    grid: serde_json::Value,
    block: serde_json::Value,
    duration_ms: Option<f64>,
    metrics: Vec<(String, f64)>,
}

/// The kernel launches of a recorded run (fixtures/nvprof/*.jsonl), in launch (correlation) order.
fn recorded(messages: &str) -> Vec<Recorded> {
    let text = std::fs::read_to_string(fixture(messages)).unwrap();
    let mut out: Vec<Recorded> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|m| m.get("record").cloned())
        .filter(|r| r["trace"]["kind"] == "kernel")
        .map(|r| Recorded {
            name: r["signature"].as_str().or(r["kernel"].as_str()).unwrap().to_string(),
            kernel: r["kernel"].as_str().unwrap().to_string(),
            correlation: r["trace"]["correlation"].as_u64().unwrap(),
            grid: r["grid"].clone(),
            block: r["block"].clone(),
            duration_ms: r["trace"]["duration_ns"].as_f64().map(|ns| ns / 1e6),
            metrics: r["metrics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| (m["name"].as_str().unwrap().to_string(), m["value"].as_f64().unwrap()))
                .collect(),
        })
        .collect();
    out.sort_by_key(|r| r.correlation);
    out
}

/// `warpscope import` of an output of `warpscope nvprof`: its records.
fn imported(output: &str) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("nvprof.out");
    std::fs::write(&f, output).unwrap();
    let out = Command::cargo_bin("warpscope")
        .unwrap()
        .args(["import", f.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "import failed: {}\n{output}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    report["records"].as_array().unwrap().clone()
}

fn metric(r: &serde_json::Value, name: &str) -> Option<f64> {
    r["metrics"].as_array()?.iter().find(|m| m["name"] == name)?["value"].as_f64()
}

/// Equal within what nvprof's formats print: five significant digits in text (three under `-u`,
/// whose `%.2e` takes over from 1000 on: `1.83e+03`), `%f` in CSV columns of the largest value's unit,
/// two decimals of a percentage.
fn printed_as(got: f64, want: f64, what: &str) {
    let rel = if what.contains("\"-u\"") && !what.contains("--csv") { 5e-3 } else { 6e-4 };
    let tol = rel * got.abs().max(want.abs()) + 5e-3 * f64::from(u8::from(what.ends_with('%'))) + 1e-6;
    assert!((got - want).abs() <= tol, "{what}: imported {got}, recorded {want}");
}

/// A record's name as the importer keys it.
fn name_of(r: &serde_json::Value) -> String {
    r["signature"].as_str().or(r["kernel"].as_str()).unwrap().to_string()
}

#[test]
fn every_layout_imports_back_to_the_recorded_launches() {
    let m = "achieved_occupancy,gld_throughput,gld_efficiency";
    let e = "warps_launched,active_cycles,global_load";
    // Summary (text and CSV, each time unit): one record per kernel, its launches and times.
    let launches = recorded("h100-multi-parent.jsonl");
    let names: std::collections::BTreeSet<&str> = launches.iter().map(|l| l.name.as_str()).collect();
    for args in [&[][..], &["--csv"], &["-u", "us"], &["--csv", "-u", "ms"]] {
        let (_, _, err) = replay(args, "h100-multi-parent.jsonl", &[]);
        let recs = imported(&err);
        let got: std::collections::BTreeSet<String> = recs.iter().map(name_of).collect();
        assert_eq!(got.iter().map(String::as_str).collect::<std::collections::BTreeSet<_>>(), names, "{args:?}");
        for r in &recs {
            let mine: Vec<&Recorded> = launches.iter().filter(|l| l.name == name_of(r)).collect();
            assert_eq!(r["kernel"], mine[0].kernel.as_str(), "{args:?}");
            assert_eq!(r["summary_of"].as_u64(), Some(mine.len() as u64), "{args:?} {}", name_of(r));
            let d: Vec<f64> = mine.iter().map(|l| l.duration_ms.unwrap()).collect();
            let total: f64 = d.iter().sum();
            let what = |s: &str| format!("{args:?} {} {s}", name_of(r));
            printed_as(metric(r, "total_time").unwrap(), total, &what("total"));
            printed_as(metric(r, "duration").unwrap(), total / d.len() as f64, &what("avg"));
            printed_as(metric(r, "duration_min").unwrap(), d.iter().copied().fold(f64::MAX, f64::min), &what("min"));
            printed_as(metric(r, "duration_max").unwrap(), d.iter().copied().fold(0.0, f64::max), &what("max"));
        }
    }
    // GPU trace (text and CSV): one record per launch, numbered per kernel from 0 in launch order.
    for args in [&["--print-gpu-trace"][..], &["--print-gpu-trace", "--csv"]] {
        let (_, _, err) = replay(args, "h100-multi-parent.jsonl", &[]);
        let recs = imported(&err);
        assert_eq!(recs.len(), launches.len(), "{args:?}");
        for (i, l) in launches.iter().enumerate() {
            let inv = launches[..i].iter().filter(|x| x.name == l.name).count() as u64;
            let r = recs
                .iter()
                .find(|r| name_of(r) == l.name && r["invocation"].as_u64() == Some(inv))
                .unwrap_or_else(|| panic!("{args:?}: no launch {inv} of {}", l.name));
            assert_eq!((&r["kernel"], &r["grid"], &r["block"]), (&l.kernel.as_str().into(), &l.grid, &l.block));
            printed_as(metric(r, "duration").unwrap(), l.duration_ms.unwrap(), &format!("{args:?} {} {inv}", l.name));
        }
    }
    // Metric and event results (text and CSV) and the metric trace (CSV): every counter of every
    // profiled launch.
    for (args, messages, per_launch) in [
        (vec!["--metrics", m], "h100-sumMatrix-32x16-metrics.jsonl", false),
        (vec!["--csv", "--metrics", m], "h100-sumMatrix-32x16-metrics.jsonl", false),
        (vec!["--print-gpu-trace", "--csv", "--metrics", m], "h100-sumMatrix-32x16-metrics.jsonl", true),
        (vec!["--events", e, "--metrics", "achieved_occupancy"], "h100-sumMatrix-32x16-events.jsonl", false),
        (vec!["--csv", "--events", e, "--metrics", "achieved_occupancy"], "h100-sumMatrix-32x16-events.jsonl", false),
    ] {
        let (_, _, err) = replay(&args, messages, &[]);
        let recs = imported(&err);
        let launches = recorded(messages);
        assert_eq!(recs.len(), launches.len(), "{args:?}");
        for (r, l) in recs.iter().zip(&launches) {
            assert_eq!((name_of(r), &r["kernel"]), (l.name.clone(), &l.kernel.as_str().into()), "{args:?}");
            if per_launch {
                assert_eq!(r["invocation"].as_u64(), Some(0), "{args:?}");
            } else {
                assert_eq!(r["summary_of"].as_u64(), Some(1), "{args:?}");
            }
            assert!(!l.metrics.is_empty());
            for (name, value) in &l.metrics {
                let got = metric(r, name).unwrap_or_else(|| panic!("{args:?}: {name} not imported: {r}"));
                let unit =
                    r["metrics"].as_array().unwrap().iter().find(|x| x["name"] == *name).unwrap()["unit"].clone();
                // The importer keeps achieved occupancy as nvprof's ratio, like the records.
                printed_as(got, *value, &format!("{args:?} {name} {}", unit.as_str().unwrap_or("")));
            }
        }
    }
}

/// nvprof's metric trace CSV names a kernel by its symbol, mangled for C++ (a GTX 1080's file:
/// `"_Z6vecAddIfEvPT_S1_S1_i"`); the summary tables demangle it.
#[test]
fn the_metric_trace_names_kernels_by_their_symbol() {
    let text = std::fs::read_to_string(fixture("h100-sumMatrix-32x16-metrics.jsonl")).unwrap();
    let symbol = "_Z16sumMatrixOnGPU2DPfS_S_ii";
    let with_symbol: String = text
        .lines()
        .map(|l| {
            l.replace(
                "\"trace\":{\"kind\":\"kernel\",",
                &format!("\"trace\":{{\"kind\":\"kernel\",\"symbol\":\"{symbol}\","),
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(with_symbol.trim_end(), text.trim_end(), "the fixture's kernel traces were given a symbol");
    let dir = tempfile::tempdir().unwrap();
    let messages = dir.path().join("m.jsonl");
    std::fs::write(&messages, with_symbol + "\n").unwrap();
    let m = messages.to_str().unwrap();
    let (_, _, err) = replay(&["--print-gpu-trace", "--csv", "--metrics", "achieved_occupancy"], m, &[]);
    let row = err.lines().find(|l| l.starts_with("\"NVIDIA")).unwrap_or_else(|| panic!("{err}"));
    assert!(row.contains(&format!("\"{symbol}\"")), "{row}");
    let recs = imported(&err);
    assert_eq!(recs[0]["kernel"], "sumMatrixOnGPU2D");
    let (_, _, err) = replay(&["--csv", "--metrics", "achieved_occupancy"], m, &[]);
    assert!(!err.contains(symbol) && err.contains("sumMatrixOnGPU2D(float*, float*, float*, int, int)"), "{err}");
}

#[test]
fn nvprofs_switches_for_names_quiet_runs_and_the_rest_are_honoured() {
    // The recorded run with the kernel's mangled symbol, as the injection library reports a C++ kernel.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("h100-sumMatrix-32x16-summary.jsonl")).unwrap();
    let mangled = text.replace(r#""kind":"kernel","#, r#""kind":"kernel","symbol":"_Z16sumMatrixOnGPU2DPfS_S_ii","#);
    assert_ne!(mangled, text);
    let messages = dir.path().join("mangled.jsonl");
    std::fs::write(&messages, mangled).unwrap();
    let with = |args: &[&str]| {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.extend([fixture("fake-app.sh").display().to_string(), messages.display().to_string(), "say".into()]);
        run(&all)
    };
    let (code, _, err) = with(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("sumMatrixOnGPU2D(float*, float*, float*, int, int)") && !err.contains("_Z16"), "{err}");
    let (code, _, err) = with(&["--demangling", "off"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("_Z16sumMatrixOnGPU2DPfS_S_ii") && !err.contains("sumMatrixOnGPU2D(float*"), "{err}");
    // --quiet: the program's output only.
    let (code, out, err) = with(&["--quiet"]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "program output on stdout\n", "program output on stderr\n"));
    // Accepted with nvprof's values; a wrong value is one line.
    for args in [
        &["--concurrent-kernels", "off"][..],
        &["--unified-memory-profiling", "off"],
        &["--unified-memory-profiling", "per-process-device"],
    ] {
        let (code, _, err) = with(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(err.contains("Profiling result:"), "{args:?}: {err}");
    }
    for args in [
        &["--concurrent-kernels", "maybe", "echo"][..],
        &["--unified-memory-profiling", "on", "echo"],
        &["--demangling", "no", "echo"],
    ] {
        let out = nvprof(args).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: invalid value") && err.lines().count() == 1, "{args:?}: {err}");
    }
}

/// `warpscope nvprof ARGS` on the stand-in program, its output to files (the stand-in's own `sleep`
/// may outlive it and would hold pipes open): exit code, wall seconds and stderr.
fn stopped(args: &[String]) -> (Option<i32>, f64, String) {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let t0 = std::time::Instant::now();
    let status = std::process::Command::new(assert_cmd::cargo::cargo_bin("warpscope"))
        .env_remove("WARPSCOPE_BACKEND")
        .env("WARPSCOPE_INJECTION", fixture("fake-app.sh"))
        .env_remove("WARPSCOPE_NVPROF_KEEP")
        .arg("nvprof")
        .args(args)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .status()
        .unwrap();
    (status.code(), t0.elapsed().as_secs_f64(), std::fs::read_to_string(&err).unwrap())
}

#[test]
fn a_program_past_its_timeout_is_stopped_and_what_it_reported_is_kept() {
    let mut args = vec!["--timeout".to_string(), "0.5".into()];
    args.extend(app("h100-sumMatrix-32x16-summary.jsonl", &["sleep", "6"]));
    let (code, took, err) = stopped(&args);
    assert!(took < 4.0, "took {took:.1} s: {err}");
    assert_eq!(code, Some(128 + 15), "{err}");
    assert!(err.contains("Warning: the program ran past --timeout 0.5 s and was stopped"), "{err}");
    assert!(err.contains("sumMatrixOnGPU2D"), "the summary of what was recorded: {err}");
    // With child processes followed, warpscope waits for every one: the stand-in's `sleep` (its child)
    // is stopped with it, not waited for until it ends by itself.
    let mut args = vec!["--timeout".to_string(), "0.5".into(), "--profile-child-processes".into()];
    args.extend(app("h100-sumMatrix-32x16-summary.jsonl", &["sleep", "7.31"]));
    let (code, took, err) = stopped(&args);
    assert!(took < 4.0, "took {took:.1} s: {err}");
    assert_eq!(code, Some(128 + 15), "{err}");
    let left = std::fs::read_dir("/proc").unwrap().filter_map(|e| {
        let cmd = std::fs::read(e.ok()?.path().join("cmdline")).ok()?;
        String::from_utf8_lossy(&cmd).contains("7.31").then_some(())
    });
    assert_eq!(left.count(), 0, "the program's child was left running");
    // A program that ends in time is not touched.
    let (code, _, err) = replay(&["--timeout", "20"], "h100-sumMatrix-32x16-summary.jsonl", &["exit", "3"]);
    assert_eq!(code, 3, "{err}");
    assert!(!err.contains("--timeout"), "{err}");
}
