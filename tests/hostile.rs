//! Hostile input and hostile conditions (issue 9): every report of the issue as it was run, and the walk
//! over every numeric option of every command. Nothing may panic, hang, lose finished work or write
//! where it was not asked to; bad input is one `error:` line and exit 2.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use common::{cuda, has_driver, mock, stdout};
use predicates::prelude::*;

/// The binary under test.
fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_warpscope"))
}

/// A fixture's path.
fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name).display().to_string()
}

/// Asserts exit 2 and exactly one `error:` line on standard error containing `msg`.
fn refused(c: &mut assert_cmd::Command, msg: &str) -> String {
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("error: ") && err.lines().count() == 1, "one error line: {err}");
    assert!(err.contains(msg), "{msg:?} not in {err}");
    err
}

const SMALL_SWEEP: &[&str] =
    &["sweep", "sum-matrix", "--block", "32x8,16x16", "--nx", "128", "--ny", "64", "--iters", "2"];

#[test]
fn a_huge_sigma_is_refused_before_any_work() {
    for args in [
        &["sweep", "blur-direct", "--block", "32x8", "--nx", "64", "--ny", "64", "--sigma", "1e9"][..],
        &["estimate", "blur-direct", "--block", "32x8", "--gpu", "H200", "--sigma", "1e9"],
        &["blur", "--bench", "--sigma", "1e9"],
        &["blur", "--image", "x.png", "--sigma", "1e9"],
        &["blur", "--estimate", "--copy-mps", "14200", "--sigma", "1e9"],
    ] {
        refused(&mut mock(args), "invalid value '1e9' for '--sigma <SIGMA>': expected a number from 0.5 to 42.33");
    }
}

/// Standard output on /dev/full, where the system has it.
fn full() -> Option<fs::File> {
    fs::OpenOptions::new().write(true).open("/dev/full").ok()
}

#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    if full().is_none() {
        return;
    }
    for args in [
        &["archs"][..],
        &["kernels"],
        &["metrics"],
        &["metrics", "--format", "json"],
        &["occupancy", "--arch", "sm_80", "--block-size", "128"],
        &["occupancy", "--arch", "sm_80", "--block-size", "128", "--format", "csv"],
        &["blur", "--estimate", "--copy-mps", "14200"],
        &["completions", "bash"],
        &["man"],
        &["man", "sweep"],
        &["estimate", "sum-matrix", "--block", "32x8", "--gpu", "H200", "--nx", "64", "--ny", "64"],
        &["sweep", "sum-matrix", "--block", "32x8", "--nx", "64", "--ny", "64", "--format", "json"],
        &["sweep", "sum-matrix", "--block", "32x8", "--nx", "64", "--ny", "64", "--format", "jsonl"],
        &["import", &fixture("ncu-h200-seed-default.csv")],
        &["--help"],
    ] {
        let out =
            Process::new(bin()).args(args).env("WARPSCOPE_BACKEND", "mock").stdout(full().unwrap()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.ends_with("error: cannot write output: standard output: No space left on device (os error 28)\n"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_closed_pipe_ends_the_command_quietly_with_141() {
    // More than a pipe holds (64 KiB), so the write waits for a reader that has gone away.
    for args in [
        &["estimate", "sum-matrix", "--bx", "1..1024", "--gpu", "H200", "--nx", "64", "--ny", "64", "--format", "csv"]
            [..],
        &["sweep", "sum-matrix", "--bx", "1..1024", "--nx", "64", "--ny", "64", "--iters", "1", "--format", "jsonl"],
        &["archs", "--format", "json"],
    ] {
        let mut child = Process::new(bin())
            .args(args)
            .env("WARPSCOPE_BACKEND", "mock")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {err}");
        assert!(!err.contains("error") && !err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn iterations_have_an_upper_bound() {
    refused(
        &mut mock(&["sweep", "sum-matrix", "--block", "32x8", "--iters", "4294967295"]),
        "invalid value '4294967295' for '--iters <ITERS>': expected a number from 1 to 100000",
    );
    refused(&mut mock(&["sweep", "sum-matrix", "--warmup", "4294967295"]), "from 0 to 100000");
}

/// A PNG header of `w` x `h` pixels and nothing else: what a 389 KB file of 20000 x 20000 says about
/// itself before a byte is decoded.
fn png_header(path: &Path, w: u32, h: u32) {
    fn crc(bytes: &[u8]) -> u32 {
        let mut c = 0xffff_ffffu32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 == 1 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
            }
        }
        !c
    }
    let chunk = |kind: &[u8], data: &[u8]| {
        let body = [kind, data].concat();
        [&(data.len() as u32).to_be_bytes()[..], &body, &crc(&body).to_be_bytes()].concat()
    };
    let ihdr = [&w.to_be_bytes()[..], &h.to_be_bytes(), &[8, 2, 0, 0, 0]].concat();
    let png =
        [&b"\x89PNG\r\n\x1a\n"[..], &chunk(b"IHDR", &ihdr), &chunk(b"IDAT", &[0; 16]), &chunk(b"IEND", &[])].concat();
    fs::write(path, png).unwrap();
}

#[test]
fn large_images_meet_the_memory_check_first() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.png");
    png_header(&big, 20_000, 20_000);
    refused(
        mock(&["blur", "--image", big.to_str().unwrap()]).env("WARPSCOPE_MOCK_HOST_MEMORY", "1000000000"),
        "blurring a 20000x20000 image needs 25.60 GB of host memory (its planes, the blurred ones, the CPU twin and the float64 Gaussian), 1.00 GB available: blur a smaller image",
    );
    refused(
        mock(&["blur", "--image", big.to_str().unwrap()]).env("WARPSCOPE_MOCK_MEMORY", "1000000000"),
        "blurring a 20000x20000 image needs 3.20 GB of device memory, 1.00 GB free",
    );
    refused(
        mock(&["blur", "--bench", "--width", "20000", "--height", "20000"])
            .env("WARPSCOPE_MOCK_HOST_MEMORY", "1000000000"),
        "the blur benchmark at 20000x20000 needs 25.60 GB of host memory",
    );
    // The transpose benchmark's hint names its own options.
    refused(
        mock(&["transpose", "--bench", "--sizes", "4096", "--iters", "1"]).env("WARPSCOPE_MOCK_MEMORY", "1000000"),
        "choose smaller --sizes (and --width)",
    );
    refused(
        mock(&["peak", "--iters", "1"]).env("WARPSCOPE_MOCK_MEMORY", "1000000"),
        "choose a smaller image (--nx/--ny)",
    );
}

#[test]
fn an_output_that_is_an_input_or_another_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name).display().to_string();
    let csv = d("in.csv");
    fs::copy(fixture("ncu-h200-seed-default.csv"), &csv).unwrap();
    let before = fs::read(&csv).unwrap();
    refused(&mut mock(&["import", &csv, "-o", &csv]), "is the same file as the input FILE");
    std::os::unix::fs::symlink(&csv, d("link.csv")).unwrap();
    refused(&mut mock(&["import", &csv, "-o", &d("link.csv")]), "is the same file as the input FILE");
    assert_eq!(fs::read(&csv).unwrap(), before, "the input is untouched");
    let png = d("a.png");
    fs::copy(fixture("astronaut-192.png"), &png).unwrap();
    refused(&mut mock(&["blur", "--image", &png, "-o", &png]), "-o");
    refused(&mut mock(&["blur", "--image", &png, "-o", &format!("{}/./a.png", dir.path().display())]), "--image");
    let svg = d("same.svg");
    let mut args = SMALL_SWEEP.to_vec();
    args.extend(["--plot", &svg, "-o", &svg]);
    refused(&mut mock(&args[..]), "--plot");
    refused(
        &mut mock(&["estimate", "sum-matrix", "--gpu", "H200", "--block", "32x8", "--plot", &svg, "-o", &svg]),
        "is the same file as the output",
    );
    refused(&mut mock(&["merge", &fixture("ws-h200-seed.json"), "-o", &fixture("ws-h200-seed.json")]), "FILE");
    assert!(!Path::new(&svg).exists(), "refused before anything was written");
}

#[test]
fn resume_files_of_another_sweep_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name).display().to_string();
    let gray = d("gray.jsonl");
    mock(&["sweep", "rgb-to-gray", "--block", "32x8", "--nx", "64", "--ny", "32", "--frames", "2", "--iters", "1"])
        .args(["--format", "jsonl", "-o", &gray])
        .assert()
        .success();
    let sweep = ["sweep", "sum-matrix", "--block", "32x8", "--nx", "512", "--ny", "512", "--iters", "1"];
    refused(
        mock(&sweep).args(["--resume", &gray]),
        "its records are of another sweep (rgbToGray 64x32 x 2 frames, this one is sumMatrixOnGPU2D 512x512)",
    );
    let smaller = d("smaller.jsonl");
    let mut sweep256 = sweep.to_vec();
    sweep256[5] = "256";
    mock(&sweep256).args(["--format", "jsonl", "-o", &smaller]).assert().success();
    refused(
        mock(&sweep).args(["--resume", &smaller]),
        "(sumMatrixOnGPU2D 256x512, this one is sumMatrixOnGPU2D 512x512)",
    );
    fs::write(d("empty.json"), "").unwrap();
    refused(mock(&sweep).args(["--resume", &d("empty.json")]), "no records to resume from");
    // A JSON report names its device: another kind of GPU does not resume it.
    let report = d("r.json");
    mock(&sweep).args(["--format", "json", "-o", &report]).assert().success();
    let text = fs::read_to_string(&report).unwrap().replace("warpscope mock GPU (sm_90 limits)", "NVIDIA H100");
    fs::write(&report, text).unwrap();
    let mut more = sweep.to_vec();
    more[3] = "32x8,16x16";
    refused(mock(&more).args(["--resume", &report]), "measured on NVIDIA H100, this sweep runs on warpscope mock GPU");
}

#[test]
fn merge_names_missing_slices_and_refuses_empty_files_and_newer_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name).display().to_string();
    let sweep = ["sweep", "sum-matrix", "--bx", "32,64,128,256,512", "--nx", "256", "--ny", "64", "--iters", "1"];
    for k in 1..=2 {
        mock(&sweep)
            .args(["--shard", &format!("{k}/2"), "--format", "json", "-o", &d(&format!("part{k}.json"))])
            .assert()
            .success();
    }
    refused(
        &mut mock(&["merge", &d("part1.json")]),
        "sumMatrixOnGPU2D 256x64: 2 of 5 configurations missing (index 1, 3): give every slice, or --allow-partial",
    );
    refused(&mut mock(&["merge", &d("part2.json")]), "3 of 5 configurations missing (index 0, 2, 4)");
    mock(&["merge", &d("part1.json"), "--allow-partial", "--format", "json"]).assert().success().stderr(
        predicate::str::contains("warning: sumMatrixOnGPU2D 256x64: 2 of 5 configurations missing (index 1, 3)"),
    );
    let whole = stdout(&mut mock(&["merge", &d("part2.json"), &d("part1.json"), "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&whole).unwrap();
    assert_eq!(v["records"].as_array().unwrap().len(), 5);
    fs::write(d("empty.json"), "").unwrap();
    refused(&mut mock(&["merge", &d("empty.json")]), "empty.json: no records to merge");
    let newer =
        fs::read_to_string(d("part1.json")).unwrap().replace("\"schema_version\": 1", "\"schema_version\": 999");
    assert!(newer.contains("999"));
    fs::write(d("newer.json"), newer).unwrap();
    refused(
        &mut mock(&["merge", &d("newer.json"), &d("part2.json")]),
        "schema_version 999 is newer than this warpscope's (1)",
    );
    refused(&mut mock(&["compare", "--baseline", &d("newer.json"), &d("part2.json")]), "schema_version 999");
}

#[test]
fn a_replaced_output_keeps_its_mode() {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("priv.json");
    fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&p).unwrap();
    let mut args = SMALL_SWEEP.to_vec();
    args.extend(["--format", "json", "-o", p.to_str().unwrap()]);
    mock(&args[..]).assert().success();
    assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
    assert!(fs::read_to_string(&p).unwrap().contains("\"records\""));
}

/// `warpscope ARGS` on the mock, every timing taking 300 ms, standard error piped.
fn slow_mock(args: &[&str], stdout: Stdio) -> std::process::Child {
    Process::new(bin())
        .args(args)
        .env("WARPSCOPE_BACKEND", "mock")
        .env("WARPSCOPE_MOCK_SLEEP_MS", "300")
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Starts a slowed-down mock sweep (`--format json` on standard output, a line on standard error per
/// configuration), sends `signal` once the first configuration has finished, and returns the exit code
/// and the report printed.
fn stopped_by(signal: i32) -> (Option<i32>, serde_json::Value, String) {
    use std::io::{BufRead, BufReader, Read};
    let sweep = ["sweep", "sum-matrix", "--bx", "32,64,128,256,512,1024", "--nx", "256", "--ny", "64", "--iters", "2"];
    let mut child = slow_mock(&[&sweep[..], &["--format", "json"]].concat(), Stdio::piped());
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("elapsed") {
        let mut line = String::new();
        assert!(err.read_line(&mut line).unwrap() > 0, "no configuration finished: {seen}");
        seen += &line;
    }
    // SAFETY: kill(2) on our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    err.read_to_string(&mut seen).unwrap();
    let out = child.wait_with_output().unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code(), report, seen)
}

#[test]
fn sigterm_and_sighup_keep_what_finished() {
    for (signal, code, name) in [(libc::SIGTERM, 143, "terminated (SIGTERM)"), (libc::SIGHUP, 129, "hung up (SIGHUP)")]
    {
        let (got, report, err) = stopped_by(signal);
        assert_eq!(got, Some(code), "{err}");
        assert!(err.contains(&format!("{name}: finishing the configuration in progress")), "{err}");
        let n = report["records"].as_array().map_or(0, Vec::len);
        assert!((1..6).contains(&n), "the finished configurations are written: {n}\n{err}");
        assert!(err.contains(&format!("interrupted: {n} of 6 configurations finished and kept")), "{err}");
    }
}

#[test]
fn sigterm_reaches_the_run_spec_step_in_progress() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("x.toml");
    let step = |name: &str| {
        format!(
            "[[step]]\nname = \"{name}\"\ncommand = \"sweep\"\nkernel = \"sum-matrix\"\nbx = \"32,64,128,256\"\nnx = 256\nny = 64\niters = 2\n"
        )
    };
    fs::write(&spec, format!("name = \"x\"\n{}{}", step("first"), step("second"))).unwrap();
    let o = dir.path().join("r");
    let mut child = slow_mock(&["run-spec", spec.to_str().unwrap(), "-o", o.to_str().unwrap()], Stdio::null());
    // The step's own log shows its first configuration finished.
    let t = Instant::now();
    while !fs::read_to_string(o.join("first.log")).unwrap_or_default().contains("elapsed") {
        assert!(t.elapsed() < Duration::from_secs(30), "the first step never finished a configuration");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    let first = warpscope::report::read(&o.join("first.json")).unwrap();
    assert!((1..4).contains(&first.records.len()), "what finished is kept: {}", first.records.len());
    assert!(!o.join("second.json").exists(), "the remaining steps are not run");
    assert!(fs::read_to_string(o.join("summary.md")).unwrap().contains("## first"));
}

#[test]
fn run_spec_without_a_gpu_is_an_environment_error_with_its_reason_in_the_summary() {
    if has_driver() {
        eprintln!("skipped: this machine has an NVIDIA driver");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("x.toml");
    fs::write(
        &spec,
        "name = \"x\"\n[[step]]\nname = \"s\"\ncommand = \"sweep\"\nkernel = \"sum-matrix\"\nblock = \"32x8\"\nnx = 64\nny = 64\n",
    )
    .unwrap();
    let o = dir.path().join("r");
    cuda(&["run-spec", spec.to_str().unwrap(), "-o", o.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("1 of 1 steps failed"));
    let summary = fs::read_to_string(o.join("summary.md")).unwrap();
    assert!(summary.contains("**error: no NVIDIA driver found (libcuda.so.1)"), "{summary}");
}

#[test]
fn dash_means_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = SMALL_SWEEP.to_vec();
    args.extend(["--format", "json", "-o", "-"]);
    let out = stdout(mock(&args[..]).current_dir(dir.path()));
    let v: serde_json::Value = serde_json::from_str(&out).expect("the report on standard output");
    assert_eq!(v["records"].as_array().unwrap().len(), 2);
    let out = stdout(
        mock(&["import", &fixture("ncu-h200-seed-default.csv"), "-o", "-", "--format", "csv"]).current_dir(dir.path()),
    );
    assert!(out.starts_with("kernel,"), "{out}");
    let png = mock(&["blur", "--image", &fixture("astronaut-192.png"), "--sigma", "2", "-o", "-", "-q"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(png.status.success() && png.stdout.starts_with(b"\x89PNG"), "{}", String::from_utf8_lossy(&png.stderr));
    refused(mock(&["run-spec", "x.toml", "-o", "-"]).current_dir(dir.path()), "not standard output");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "no file named '-'");
}

#[test]
fn output_paths_are_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let bmp = dir.path().join("out.bmp");
    refused(
        &mut mock(&["blur", "--image", &fixture("astronaut-192.png"), "-o", bmp.to_str().unwrap()]),
        "out.bmp: cannot write an image of this type: use a .png, .jpg, .pgm or .ppm file name",
    );
    // No progress line, no configuration run: the one error line is all there is.
    let mut args = SMALL_SWEEP.to_vec();
    args.extend(["-o", dir.path().to_str().unwrap()]);
    refused(&mut mock(&args[..]), "is a folder, not a file name");
    refused(
        &mut mock(&["estimate", "sum-matrix", "--gpu", "H200", "--block", "32x8", "-o", dir.path().to_str().unwrap()]),
        "is a folder",
    );
}

#[test]
fn man_pages_exist_for_every_command_listed() {
    let main = stdout(&mut mock(&["man"]));
    let listed: Vec<String> = main
        .split("warpscope\\-")
        .skip(1)
        .filter_map(|s| s.split_once("(1)").map(|(name, _)| name.replace("\\-", "-")))
        .collect();
    assert!(listed.len() > 10 && listed.contains(&"sweep".to_string()), "{listed:?}");
    for name in &listed {
        let page = stdout(&mut mock(&["man", name]));
        assert!(page.contains(&format!(".TH warpscope-{name} 1")), "{name}: {page}");
        assert!(page.contains(".SH NAME") && page.lines().count() > 5, "{name}: {page}");
    }
    refused(&mut mock(&["man", "nope"]), "man: no command 'nope'");
}

#[test]
fn device_is_an_option_of_the_gpu_commands_only() {
    for args in [
        &["archs"][..],
        &["man"],
        &["completions", "bash"],
        &["metrics"],
        &["kernels"],
        &["estimate", "sum-matrix", "--gpu", "H200"],
    ] {
        let mut a = args.to_vec();
        a.extend(["--device", "0"]);
        refused(&mut mock(&a[..]), "unexpected argument '--device' found");
    }
    let mut args = SMALL_SWEEP.to_vec();
    args.extend(["--device", "0", "-q"]);
    mock(&args[..]).assert().success();
    refused(
        &mut mock(&["occupancy", "--arch", "sm_80", "--block-size", "128", "--device", "0"]),
        "--device applies to --against-driver",
    );
}

#[test]
fn reproduce_seeds_says_what_it_lacks() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/reproduce-seeds.sh");
    let dir = tempfile::tempdir().unwrap();
    let out = Process::new("bash")
        .arg(&script)
        .arg(dir.path().join("results"))
        .env("WARPSCOPE_BIN", "/no/such/warpscope")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("error: /no/such/warpscope is not an executable warpscope"), "{err}");
}

#[test]
fn estimate_shows_progress_on_a_terminal() {
    let cmd = format!(
        "{} estimate sum-matrix --bx 1..1024 --gpu H200 --nx 256 --ny 256 --format json -o /dev/null",
        bin().display()
    );
    let Ok(out) = Process::new("script").args(["-qec", &cmd, "/dev/null"]).output() else { return };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("/1024 configs, "), "{text}");
    let quiet = Process::new("script").args(["-qec", &format!("{cmd} -q"), "/dev/null"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&quiet.stdout).contains(" configs, "));
}

/// A minimal run of each command, fast on the mock: the base the option walk varies one option of.
fn base(dir: &Path, command: &str) -> Vec<String> {
    let spec = dir.join("x.toml");
    fs::write(&spec, "name = \"x\"\n[[step]]\nname = \"s\"\ncommand = \"peak\"\n").unwrap();
    let v: &[&str] = match command {
        "sweep" | "run" => &["sum-matrix", "--block", "32x8", "--nx", "64", "--ny", "32", "--iters", "1", "-q"],
        "estimate" => &["sum-matrix", "--block", "32x8", "--nx", "64", "--ny", "32", "--gpu", "H200", "-q"],
        "occupancy" => &["--arch", "sm_80", "--block-size", "128"],
        "peak" => &["--nx", "64", "--ny", "32", "--iters", "1", "-q"],
        "transpose" => &["--bench", "--sizes", "64", "--iters", "1", "-q"],
        "blur" => &["--bench", "--width", "64", "--height", "32", "--iters", "1", "-q"],
        "compare" => return vec![fixture("ws-h200-seed.json"), fixture("ncu-h200-seed-default.csv")],
        "import" => return vec![fixture("ncu-h200-seed-default.csv"), "-q".into()],
        "merge" => return vec![fixture("ws-h200-seed.json"), "-q".into()],
        "report" => return vec![fixture("ws-h200-seed.json"), "-o".into(), dir.join("r.html").display().to_string()],
        "model-check" => return vec![fixture("ws-h200-seed.json")],
        "run-spec" => return vec![spec.display().to_string(), "--dry-run".into()],
        "completions" => &["bash"],
        // A folder for its report: a clean refusal before the full self-test would run.
        "selftest" => return vec!["-o".into(), dir.display().to_string()],
        // No program: what follows one would be the program's own arguments, and a refusal is fast.
        "devices" | "archs" | "kernels" | "metrics" | "man" | "nvprof" => &[],
        other => panic!("no minimal run of `{other}`: add one here"),
    };
    v.iter().map(|s| s.to_string()).collect()
}

/// Runs `warpscope COMMAND BASE... --OPTION=VALUE` (the base's own `--OPTION` taken out): exit code,
/// standard error and how long it took.
fn try_option(dir: &Path, command: &str, option: &str, value: &str) -> (Option<i32>, String, Duration) {
    let mut args = base(dir, command);
    if let Some(i) = args.iter().position(|a| *a == format!("--{option}")) {
        args.drain(i..i + 2);
    }
    let t = Instant::now();
    let out = Process::new(bin())
        .arg(command)
        .args(&args)
        .arg(format!("--{option}={value}"))
        .current_dir(dir)
        .env("WARPSCOPE_BACKEND", "mock")
        .stdout(Stdio::null())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), t.elapsed())
}

/// Every option that takes a value, per command, as `--help` lists it: (command, option, help text).
fn options_with_values() -> Vec<(String, String, String)> {
    let help = |args: &[&str]| String::from_utf8(mock(args).output().unwrap().stdout).unwrap();
    let top = help(&["--help"]);
    let commands: Vec<String> = top
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() > 15, "{commands:?}");
    let option = regex_lite_option();
    let mut out = Vec::new();
    for c in commands {
        let text = help(&[&c, "--help"]);
        // An option's entry: its line and the indented lines that continue its help.
        let mut entries: Vec<(String, String)> = Vec::new();
        for line in text.lines() {
            match option(line) {
                Some(name) => entries.push((name, line.to_string())),
                None if line.starts_with("          ") => {
                    if let Some(e) = entries.last_mut() {
                        e.1.push(' ');
                        e.1 += line.trim();
                    }
                }
                None => {}
            }
        }
        out.extend(entries.into_iter().map(|(name, help)| (c.clone(), name, help)));
    }
    out
}

/// `  -o, --output <FILE>  ...` -> `output`; options without a value and `--help` -> None.
fn regex_lite_option() -> impl Fn(&str) -> Option<String> {
    |line: &str| {
        let t = line.trim_start();
        let t = t.strip_prefix("-").filter(|_| t.chars().nth(2) == Some(',')).map_or(t, |_| t[4..].trim_start());
        let rest = t.strip_prefix("--")?;
        let (name, after) = rest.split_once(' ')?;
        after.trim_start().starts_with('<').then(|| name.to_string())
    }
}

#[test]
fn every_numeric_option_has_a_documented_range_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let all = options_with_values();
    // Numeric: clap refuses a word at parse time (and it is not a list of possible values).
    let numeric: Vec<&(String, String, String)> = all
        .iter()
        .filter(|(c, o, help)| {
            let (_, err, _) = try_option(dir.path(), c, o, "abc");
            err.contains(&format!("invalid value 'abc' for '--{o}")) && !help.contains("[possible values:")
        })
        .collect();
    let names: Vec<String> = numeric.iter().map(|(c, o, _)| format!("{c} --{o}")).collect();
    for must in [
        "sweep --iters",
        "sweep --sigma",
        "blur --sigma",
        "peak --block",
        "occupancy --regs",
        "compare --fail-above",
        "sweep --device",
    ] {
        assert!(names.contains(&must.to_string()), "{must} not found among {names:?}");
    }
    let hostile = ["0", "-1", "NaN", "1e30", "18446744073709551616"];
    let failures: Vec<String> = std::thread::scope(|s| {
        let work: Vec<_> = numeric
            .chunks(numeric.len().div_ceil(2))
            .map(|chunk| {
                let dir = dir.path();
                s.spawn(move || {
                    let mut bad = Vec::new();
                    for (c, o, help) in chunk {
                        let range = help.split("[range: ").nth(1).and_then(|r| r.split(']').next());
                        let Some((lo, hi)) = range.and_then(|r| r.split_once(" to ")) else {
                            bad.push(format!("{c} --{o}: no documented range in its help: {help}"));
                            continue;
                        };
                        let zero_valid = lo.parse::<f64>().is_ok_and(|lo| lo <= 0.0);
                        let above = match hi.parse::<u64>() {
                            Ok(h) => (u128::from(h) + 1).to_string(),
                            Err(_) => format!("{}", hi.parse::<f64>().unwrap() * 1.01),
                        };
                        for v in hostile.iter().copied().chain([above.as_str()]) {
                            let (code, err, took) = try_option(dir, c, o, v);
                            let at = format!("{c} --{o}={v}");
                            // A refusal takes milliseconds; the bound only catches one that runs a sweep or
                            // waits first, with room for a machine whose cores are busy with other tests (a
                            // refusal once took over 2 s while two re-prediction jobs loaded both cores).
                            if took > Duration::from_secs(10) {
                                bad.push(format!("{at}: took {took:?}"));
                            }
                            if err.contains("panicked") || !matches!(code, Some(0..=2)) {
                                bad.push(format!("{at}: exit {code:?}: {err}"));
                            } else if v == "0" && zero_valid {
                                // In range: it runs, or fails for a real reason (not its range), in one line.
                                if err.contains("invalid value") {
                                    bad.push(format!(
                                        "{at}: 0 is in the documented range [{lo}, {hi}] but refused: {err}"
                                    ));
                                } else if code == Some(2) && err.lines().count() != 1 {
                                    bad.push(format!("{at}: want one error line: {err}"));
                                }
                            } else if code != Some(2) || err.lines().count() != 1 || !err.starts_with("error: ") {
                                bad.push(format!("{at}: want exit 2 and one error line, got {code:?}: {err}"));
                            } else if !err.contains(&format!("for '--{o}")) {
                                bad.push(format!("{at}: the error does not name the option: {err}"));
                            }
                        }
                        // The low end itself is accepted.
                        let (_, err, _) = try_option(dir, c, o, lo);
                        if err.contains("invalid value") {
                            bad.push(format!("{c} --{o}={lo}: the documented low end is refused: {err}"));
                        }
                    }
                    bad
                })
            })
            .collect();
        work.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}
