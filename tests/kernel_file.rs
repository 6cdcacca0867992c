//! `sweep`/`run --kernel-file` end to end through the mock backend: expansion, building (NVRTC where
//! installed, else the mock's stub compiler), checks before any GPU work, the params column in every
//! format, and rows that say plainly that the mock does not run users' kernels.

mod common;

use common::mock;
use predicates::prelude::*;
use serde_json::Value;

const MOCK_REASON: &str = "not run: the mock backend does not run user kernels";

/// `sweep` of the PTX kernel file on a 64 x 64 problem; a test adds its blocks and options.
const PTX_64: [&str; 7] =
    ["sweep", "--kernel-file", "examples/kernels/sum_matrix_ptx.toml", "--size", "nx=64", "--size", "ny=64"];

fn json(args: &[&str]) -> Value {
    let out = mock(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_ptx_kernel_file_plans_every_block_and_says_the_mock_does_not_run_it() {
    let v = json(&[
        "sweep",
        "--kernel-file",
        "examples/kernels/sum_matrix_ptx.toml",
        "--size",
        "nx=300",
        "--size",
        "ny=100",
        "--block",
        "32x32,16x16,2048x1",
        "--format",
        "json",
        "-q",
    ]);
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 3);
    for r in records {
        assert_eq!(r["kernel"], "sumMatrixOnGPU2D");
        assert_eq!(r["problem"], "nx=300, ny=100");
        assert_eq!(r["status"], "invalid");
        assert!(r.get("params").is_none(), "a file without parameters has none: {r}");
    }
    // ceil(300 / 32) x ceil(100 / 32), as the file's problem_size rule says.
    assert_eq!(records[0]["grid"], serde_json::json!([10, 4, 1]));
    assert_eq!(records[0]["reason"], MOCK_REASON);
    assert_eq!(records[1]["grid"], serde_json::json!([19, 7, 1]));
    assert!(records[2]["reason"].as_str().unwrap().contains("2048"), "{}", records[2]);
    assert_eq!(records[2]["index"], 2);
}

#[test]
fn parameters_are_a_column_in_every_format() {
    let base = [
        "sweep",
        "--kernel-file",
        "examples/kernels/conv2d.toml",
        "--size",
        "w=256",
        "--size",
        "h=128",
        "--block",
        "16x8",
        "--define",
        "tile_x=1,2",
        "--define",
        "tile_y=1",
        "-q",
    ];
    let v = json(&[&base[..], &["--format", "json"]].concat());
    let params: Vec<&Value> = v["records"].as_array().unwrap().iter().map(|r| &r["params"]).collect();
    assert_eq!(
        params,
        [&serde_json::json!({"tile_x": 1, "tile_y": 1}), &serde_json::json!({"tile_x": 2, "tile_y": 1})]
    );
    // The grid divides by the tile: 256 / (16 x 2) for the second.
    assert_eq!(v["records"][1]["grid"], serde_json::json!([8, 16, 1]));

    let csv = common::stdout(&mut mock(&[&base[..], &["--format", "csv"]].concat()));
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == "params").expect("a params column");
    let cells: Vec<String> = lines.map(|l| l.split(',').nth(at + 2).unwrap_or_default().to_string()).collect();
    assert!(csv.contains("tile_x=1;tile_y=1") && csv.contains("tile_x=2;tile_y=1"), "{csv}\n{cells:?}");

    let table = common::stdout(&mut mock(&base));
    let head = table.lines().find(|l| l.contains("Kernel")).unwrap();
    let cols: Vec<&str> = head.split('|').map(str::trim).collect();
    assert_eq!(cols[..4], ["Kernel", "Grid", "Block", "Params"]);
    assert!(table.contains("tile_x=2, tile_y=1"), "{table}");

    // Written as CSV, read back with the parameters.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.csv");
    mock(&[&base[..], &["--format", "csv", "-o", file.to_str().unwrap()]].concat()).assert().success();
    let back = json(&["import", file.to_str().unwrap(), "--format", "json"]);
    assert_eq!(back["records"][1]["params"], serde_json::json!({"tile_x": 2, "tile_y": 1}));
}

/// Without NVRTC the mock's stub compiler fails on any `#error`, so only the all-fail case is checked
/// here (a compile error of some configurations only is checked on the GPU machine, with NVRTC).
#[test]
fn a_source_that_does_not_compile_is_an_error_with_the_compilers_log() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cu"),
        "#error UNROLL must be a power of two\nextern \"C\" __global__ void k(float *a, int n) { }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("k.toml"),
        "source = \"k.cu\"\nentry = \"k\"\nproblem_size = \"n\"\n[sizes]\nn = 1000\n[tune_params]\nUNROLL = [2, 3]\n[[args]]\nname = \"a\"\ntype = \"f32\"\nlen = \"n\"\noutput = true\n[[args]]\nname = \"n\"\ntype = \"i32\"\nvalue = \"n\"\n[verify]\nsame_as_first = true\n",
    )
    .unwrap();
    let toml = dir.path().join("k.toml");
    mock(&["sweep", "--kernel-file", toml.to_str().unwrap(), "--block", "128"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("k.cu").and(predicate::str::contains("UNROLL must be a power of two")));
}

#[test]
fn configs_runs_a_subset_and_streams_json_lines() {
    let out = common::stdout(&mut mock(
        &[&PTX_64[..], &["--block", "32x32,32x16,16x16", "--configs", "2,0", "--format", "jsonl", "-q"]].concat(),
    ));
    let indices: Vec<i64> =
        out.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["index"].as_i64().unwrap()).collect();
    assert_eq!(indices, [2, 0]);
}

/// `--timeout` and `--until-noise` are taken with a kernel file (that it gives up on a hung kernel needs a GPU: the mock
/// runs no user kernel; scripts/device-check.sh's `kfs-timeout` step runs examples/kernels/spin.toml).
#[test]
fn a_timeout_and_until_noise_are_taken_with_a_kernel_file() {
    let v = json(&[
        "sweep",
        "--kernel-file",
        "examples/kernels/spin.toml",
        "--timeout",
        "2",
        "--until-noise",
        "2",
        "--format",
        "json",
        "-q",
    ]);
    assert_eq!(v["timing"]["until_noise_pct"], 2.0, "{}", v["timing"]);
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 3);
    assert!(records.iter().all(|r| r["reason"] == MOCK_REASON), "{records:?}");
}

/// `--shard` slices a kernel file's configurations as it slices a built-in sweep's (configuration i in
/// slice i % N + 1, by its index in the whole expansion), `merge` joins the slices, and `--resume`
/// runs only what an earlier run's results lack; a resume file of another sweep is refused.
#[test]
fn shards_merge_and_resume_complete_a_kernel_file_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let base = [&PTX_64[..], &["--block", "32x32,32x16,16x16,16x8,8x8", "--format", "json"]].concat();
    let indices = |path: &str| -> Vec<i64> {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        v["records"].as_array().unwrap().iter().map(|r| r["index"].as_i64().unwrap()).collect()
    };
    for k in 1..=2 {
        mock(&[&base[..], &["--shard", &format!("{k}/2"), "-o", &d(&format!("s{k}.json"))]].concat())
            .assert()
            .success()
            .stderr(predicate::str::contains(format!("shard {k}/2: {} of 5 configurations", [3, 2][k - 1])));
    }
    assert_eq!(indices(&d("s1.json")), [0, 2, 4]);
    assert_eq!(indices(&d("s2.json")), [1, 3]);
    mock(&["merge", &d("s2.json"), &d("s1.json"), "--format", "json", "-o", &d("all.json")]).assert().success();
    assert_eq!(indices(&d("all.json")), [0, 1, 2, 3, 4]);
    // The first slice's results resumed: the second slice's two configurations run, the three kept.
    mock(&[&base[..], &["--resume", &d("s1.json"), "-o", &d("resumed.json")]].concat())
        .assert()
        .success()
        .stderr(predicate::str::contains("resuming: 3 of 5 configurations already done, 2 to run"));
    assert_eq!(indices(&d("resumed.json")), [0, 2, 4, 1, 3]);
    // Resumed again from the whole sweep: nothing runs, the report is the earlier records.
    mock(&[&base[..], &["--resume", &d("all.json"), "-o", &d("again.json")]].concat())
        .assert()
        .success()
        .stderr(predicate::str::contains("resuming: 5 of 5 configurations already done, 0 to run"));
    assert_eq!(indices(&d("again.json")), [0, 1, 2, 3, 4]);
    // A slice compiles only its own configurations' modules (one per block and parameter set here).
    let conv =
        ["sweep", "--kernel-file", "examples/kernels/conv2d.toml", "--block", "32x8,16x16", "--define", "tile_x=1,2"];
    mock(&[&conv[..], &["--define", "tile_y=1,2", "--shard", "2/3", "-o", &d("c.json")]].concat())
        .assert()
        .success()
        .stderr(predicate::str::contains("3 of them in this run; built 3 of the modules for compute_"));
    // Another problem size is another sweep.
    let other = [&PTX_64[..3], &["--size", "nx=128", "--size", "ny=64", "--block", "32x32"]].concat();
    mock(&[&other[..], &["--resume", &d("s1.json")]].concat())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("its records are of another sweep"));
}

/// A configuration the expansion already finds invalid (here a restriction that divides by zero at
/// tile_x = 3) is a row with its reason, and its module (one per tile value in conv2d) is not compiled;
/// the other configuration's module and the reference's are.
#[test]
fn modules_only_invalid_configurations_use_are_not_compiled() {
    let dir = tempfile::tempdir().unwrap();
    let toml = std::fs::read_to_string("examples/kernels/conv2d.toml").unwrap();
    let cu = std::fs::canonicalize("examples/kernels/conv2d.cu").unwrap();
    let toml = toml
        .replace("source = \"conv2d.cu\"", &format!("source = {:?}", cu.to_str().unwrap()))
        .replace("\"tile_x * tile_y <= 8\"]", "\"tile_x * tile_y <= 8\", \"w % (3 - tile_x) == 0\"]");
    assert!(toml.contains("3 - tile_x"), "the restriction was not added");
    let file = dir.path().join("conv2d.toml");
    std::fs::write(&file, toml).unwrap();
    let run = [
        "sweep",
        "--kernel-file",
        file.to_str().unwrap(),
        "--block",
        "32x8",
        "--define",
        "tile_x=1,3",
        "--define",
        "tile_y=1",
    ];
    let out = mock(&[&run[..], &["--format", "json"]].concat()).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("built 2 of the modules for compute_"), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(records[0]["reason"], MOCK_REASON, "{:?}", records[0]);
    assert_eq!(records[1]["status"], "invalid", "{:?}", records[1]);
    let why = records[1]["reason"].as_str().unwrap();
    assert!(why.contains("division by zero") && !why.contains("not built"), "{why}");
}

/// `--devices` spreads a kernel file's configurations over the host's GPUs (two mock devices here):
/// every configuration once, in the sweep's order, and both devices named.
#[test]
fn devices_spread_a_kernel_file_over_the_gpus() {
    let out = mock(
        &[&PTX_64[..], &["--block", "32x32,32x16,16x16,16x8,8x8", "--devices", "all", "--format", "json"]].concat(),
    )
    .env("WARPSCOPE_MOCK_DEVICES", "2")
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("on devices 0 (warpscope mock GPU"), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let indices: Vec<i64> = v["records"].as_array().unwrap().iter().map(|r| r["index"].as_i64().unwrap()).collect();
    assert_eq!(indices, [0, 1, 2, 3, 4]);
    assert_eq!(v["devices"].as_array().map(Vec::len), Some(2), "{}", v["devices"]);
}

#[test]
fn bad_use_is_one_line_and_exit_2() {
    let k = PTX_64;
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--interleave"], "--interleave is not supported with --kernel-file yet"),
        (vec!["--devices", "0,7"], "--devices: no CUDA device 7"),
        (vec!["--block", "32x8", "--configs", "7"], "--configs 7: the sweep has 1 configuration"),
        (vec!["--size", "nope=3"], "nope"),
        (vec!["--define", "tile"], "expected NAME=VALUE"),
    ];
    for (extra, says) in cases {
        mock(&[&k[..], &extra].concat()).assert().code(2).stderr(predicate::str::contains(says));
    }
    mock(&["run", "--kernel-file", "examples/kernels/sum_matrix_ptx.toml", "--block", "32x8,16x16"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("run takes exactly one configuration"));
    mock(&["sweep", "sum-matrix", "--kernel-file", "examples/kernels/sum_matrix_ptx.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be used with"));
    // A kernel file's options given with a built-in kernel are refused, not dropped.
    for args in [
        vec!["sweep", "sum-matrix", "--block", "32x8", "--size", "nx=64"],
        vec!["run", "sum-matrix", "--block", "32x8", "--define", "TILE=4"],
        vec!["sweep", "sum-matrix", "--block", "32x8", "--configs", "1"],
        vec!["estimate", "sum-matrix", "--gpu", "H200", "--block", "32x8", "--size", "nx=64"],
        vec!["kernels", "--format", "csv", "--size", "nx=64"],
        // and --until-noise's bounds given with a fixed --iters
        vec!["sweep", "sum-matrix", "--block", "32x8", "--iters", "30", "--min-iters", "5"],
    ] {
        mock(&args).assert().code(2).stderr(predicate::str::contains("cannot be used with"));
    }
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "source = \"nope.cu\"\nentry = \"k\"\n[[args]]\nname = \"n\"\ntype = \"i32\"\nvalue = \"1\"\n",
    )
    .unwrap();
    mock(&["sweep", "--kernel-file", bad.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.toml:1:").and(predicate::str::contains("nope.cu")));
}

#[test]
fn experiment_files_take_kernel_files() {
    let dir = tempfile::tempdir().unwrap();
    let kfile = std::fs::canonicalize("examples/kernels/sum_matrix_ptx.toml").unwrap();
    let spec = dir.path().join("x.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"x\"\n[[step]]\nname = \"mine\"\ncommand = \"sweep\"\nkernel_file = \"{}\"\nsize = [\"nx=64\", \"ny=32\"]\nblock = \"32x8,16x16\"\n",
            kfile.display()
        ),
    )
    .unwrap();
    let out = dir.path().join("results");
    mock(&["run-spec", spec.to_str().unwrap(), "-o", out.to_str().unwrap()]).assert().success();
    let v: Value = serde_json::from_str(&std::fs::read_to_string(out.join("mine.json")).unwrap()).unwrap();
    let r = v["records"].as_array().unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!(r[0]["problem"], "nx=64, ny=32");
    assert_eq!(r[1]["block"], serde_json::json!([16, 16, 1]));
}

#[test]
fn cold_timing_is_taken_with_a_kernel_file() {
    // `--cold` flushes L2 before each timed launch of a kernel file's configurations too (the flush
    // itself needs a GPU; the mock runs no user kernel): accepted, and said in the report.
    let v = json(&[&PTX_64[..], &["--block", "32x8", "--cold", "--format", "json", "-q"]].concat());
    assert_eq!(v["timing"]["cold"], true);
    assert_eq!(v["records"][0]["reason"], MOCK_REASON);
}

/// A kernel file in a temporary folder: `files` (name, text) beside `k.toml` (`toml`).
fn kernel_dir(files: &[(&str, &str)], toml: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    std::fs::write(dir.path().join("k.toml"), toml).unwrap();
    let path = dir.path().join("k.toml").to_str().unwrap().to_string();
    (dir, path)
}

/// A kernel file for `entry` in `source` taking one output buffer `a` of `n` floats and `n` (or, with
/// `short`, the buffer alone: one argument fewer than the kernels below take).
fn toml_for(source: &str, entry: &str, short: bool) -> String {
    let n = if short { "" } else { "[[args]]\nname = \"n\"\ntype = \"i32\"\nvalue = \"n\"\n" };
    format!(
        "source = \"{source}\"\nentry = \"{entry}\"\nproblem_size = \"n\"\n[sizes]\nn = 1000\n[[args]]\nname = \"a\"\ntype = \"f32\"\nlen = \"n\"\noutput = true\n{n}[verify]\nsame_as_first = true\n"
    )
}

#[test]
fn arguments_are_checked_against_a_definition_after_its_prototype_or_in_a_header() {
    // Kernel Tuner's zeromeanfilter.cu declares its kernels in an `extern "C"` block, then defines them.
    let proto =
        "extern \"C\" {\n__global__ void k(float *a, int n);\n}\n__global__ void k(float *a, int n) { a[0] = n; }\n";
    // The Oxford course's kernels live in a header the program includes.
    let header =
        [("k.cu", "#include \"k_kernel.h\"\n"), ("k_kernel.h", "__global__ void k(float *a, int n) { a[0] = n; }\n")];
    for files in [vec![("k.cu", proto)], header.to_vec()] {
        let (_d, toml) = kernel_dir(&files, &toml_for("k.cu", "k", true));
        mock(&["kernels", "--kernel-file", &toml]).assert().code(2).stderr(
            predicate::str::contains("entry 'k' takes 2 parameters").and(predicate::str::contains("declares 1")),
        );
        let (_d, toml) = kernel_dir(&files, &toml_for("k.cu", "k", false));
        mock(&["kernels", "--kernel-file", &toml, "--block", "128"])
            .assert()
            .success()
            // (where NVRTC is installed, against the compiled entry instead)
            .stdout(
                predicate::str::contains("the entry and its arguments against the source text")
                    .or(predicate::str::contains("against the PTX")),
            );
    }
    // A header-only kernel is a source of its own.
    let (_d, toml) = kernel_dir(&header, &toml_for("k_kernel.h", "k", false));
    mock(&["kernels", "--kernel-file", &toml]).assert().success();
}

#[test]
fn a_template_kernel_is_named_by_its_instantiation() {
    let cu = "template <int B>\n__global__ void mm(float *a, int n) { a[threadIdx.x] = B * n; }\n";
    let (_d, toml) = kernel_dir(&[("k.cu", cu)], &toml_for("k.cu", "mm<16>", false));
    // Without NVRTC only the name is checked, and the output says so.
    mock(&["kernels", "--kernel-file", &toml, "--block", "128"]).assert().success().stdout(
        predicate::str::contains("only that the source mentions the entry")
            .or(predicate::str::contains("against the PTX")),
    );
    let v = json(&["sweep", "--kernel-file", &toml, "--block", "128", "--format", "json", "-q"]);
    assert_eq!(v["records"][0]["reason"], MOCK_REASON, "{v}");
    let (_d, toml) = kernel_dir(&[("k.cu", cu)], &toml_for("k.cu", "mx<16>", false));
    mock(&["kernels", "--kernel-file", &toml]).assert().code(2).stderr(predicate::str::contains("unknown entry 'mx'"));
    // Compiled elsewhere: the PTX's mangled instantiations by their readable names.
    let entry = |name: &str| format!(".visible .entry {name}(\n.param .u64 p0,\n.param .u32 p1\n)\n{{\nret;\n}}\n");
    let one = format!(".version 8.0\n.target sm_90\n.address_size 64\n{}", entry("_Z2mmILi16EEvPfi"));
    for name in ["mm<16>", "mm < 16 >", "mm"] {
        let (_d, toml) = kernel_dir(&[("k.ptx", &one)], &toml_for("k.ptx", name, false));
        mock(&["kernels", "--kernel-file", &toml]).assert().success();
    }
    // An unsigned template argument demangles with its suffix (`reduce<256u>`): found as written.
    let unsigned = format!(".version 8.0\n.target sm_90\n.address_size 64\n{}", entry("_Z6reduceILj256ELb1EEvPfi"));
    for name in ["reduce<256, true>", "reduce<256u, true>", "reduce"] {
        let (_d, toml) = kernel_dir(&[("k.ptx", &unsigned)], &toml_for("k.ptx", name, false));
        mock(&["kernels", "--kernel-file", &toml]).assert().success();
    }
    // Where the compile recorded what NVRTC lowered an expression to, that decides: `k<64 / 2>` is not
    // how the demangler reads `k<(unsigned long)32>`.
    let lowered = format!(
        "// warpscope lowered: mw<float, 64 / 2> = _Z2mwIfLm32EEvPfi\n.version 8.0\n.target sm_90\n.address_size 64\n{}{}",
        entry("_Z2mwIfLm32EEvPfi"),
        entry("_Z2mwIfLm64EEvPfi")
    );
    let (_d, toml) = kernel_dir(&[("k.ptx", &lowered)], &toml_for("k.ptx", "mw<float, 64/2>", false));
    mock(&["kernels", "--kernel-file", &toml]).assert().success();
    let (_d, toml) = kernel_dir(&[("k.ptx", &lowered)], &toml_for("k.ptx", "mw<float, 64>", false));
    mock(&["kernels", "--kernel-file", &toml]).assert().success();
    let two = format!("{one}{}", entry("_Z2mmILi32EEvPfi"));
    let (_d, toml) = kernel_dir(&[("k.ptx", &two)], &toml_for("k.ptx", "mm", false));
    mock(&["kernels", "--kernel-file", &toml]).assert().code(2).stderr(predicate::str::contains("ambiguous"));
    let (_d, toml) = kernel_dir(&[("k.ptx", &two)], &toml_for("k.ptx", "mm<32>", false));
    mock(&["kernels", "--kernel-file", &toml]).assert().success();
}

#[test]
fn a_sweep_whose_restrictions_leave_nothing_says_so() {
    let cu = "extern \"C\" __global__ void k(float *a, int n) { a[0] = n; }\n";
    let toml = toml_for("k.cu", "k", false).replace("problem_size", "restrictions = [\"n == 4096\"]\nproblem_size");
    let (_d, toml) = kernel_dir(&[("k.cu", cu)], &toml);
    mock(&["sweep", "--kernel-file", &toml, "--block", "128,256"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nothing to run").and(predicate::str::contains("removed by restrictions")));
}

#[test]
fn kernels_prints_a_divisor_expression_in_parentheses_and_integer_outputs_as_exact() {
    // Kernel Tuner's spmv: `grid_div_x = ["block_size_x/threads_per_row"]`; pnpoly's output is int.
    let cu = "extern \"C\" __global__ void k(int *a, int n) { a[0] = n * tpr; }\n";
    let toml = "source = \"k.cu\"\nentry = \"k\"\nproblem_size = \"n\"\ngrid_div_x = [\"block_size_x/tpr\"]\n[sizes]\nn = 1024\n[tune_params]\ntpr = [1, 32]\n[[args]]\nname = \"a\"\ntype = \"i32\"\nlen = \"n\"\noutput = true\n[[args]]\nname = \"n\"\ntype = \"i32\"\nvalue = \"n\"\n";
    let (_d, toml) = kernel_dir(&[("k.cu", cu)], toml);
    mock(&["kernels", "--kernel-file", &toml]).assert().success().stdout(
        predicate::str::contains("x = ceil(n / (block_size_x/tpr))")
            .and(predicate::str::contains("integer outputs compared exactly")),
    );
}

#[test]
fn a_template_entry_takes_each_configurations_values() {
    // Kernel Tuner's spelling of the CUDA sample: `kernel_name = "MatrixMulCUDA<block_size_x>"`.
    let cu = "template <int B>\n__global__ void mm(float *a, int n) { a[threadIdx.x] = B * n; }\n";
    let (_d, toml) = kernel_dir(&[("k.cu", cu)], &toml_for("k.cu", "mm<block_size_x>", false));
    let v = json(&["sweep", "--kernel-file", &toml, "--block", "64,128", "--format", "json", "-q"]);
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 2);
    for r in records {
        assert_eq!(r["reason"], MOCK_REASON, "{r}");
    }
    // One module per instantiation.
    mock(&["kernels", "--kernel-file", &toml, "--block", "64,128,256"])
        .assert()
        .success()
        .stdout(predicate::str::contains("3 modules"));
}

#[test]
fn constant_memory_is_declared_listed_and_checked_against_the_source() {
    // Kernel Tuner's pnpoly keeps its polygon in `__constant__ float2 d_vertices[600]` (its cmem_args).
    let cu = "__constant__ float2 d_vertices[600];\nextern \"C\" __global__ void k(float *a, int n) { a[0] = d_vertices[n].x; }\n";
    let constant = |name: &str, extra: &str| {
        toml_for("k.cu", "k", false).replace(
            "[verify]",
            &format!("[[constants]]\nname = \"{name}\"\ntype = \"f32\"\nlen = \"2 * 600\"\ninit = {{ uniform = [-1, 1] }}\n{extra}[verify]"),
        )
    };
    let (_d, toml) = kernel_dir(&[("k.cu", cu)], &constant("d_vertices", ""));
    mock(&["kernels", "--kernel-file", &toml, "--block", "128"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"d_vertices \| f32 +\| __constant__ \| 2 \* 600 = 1200").unwrap());
    let (_d, toml) = kernel_dir(&[("k.cu", cu)], &constant("d_vertex", ""));
    mock(&["kernels", "--kernel-file", &toml])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("constant 'd_vertex' never appears in"));
    // A constant no host could hold is refused before any GPU work, as a buffer would be.
    let huge = constant("d_vertices", "").replace("len = \"2 * 600\"", "len = \"1_000_000_000_000_000\"");
    let (_d, toml) = kernel_dir(&[("k.cu", cu)], &huge);
    mock(&["sweep", "--kernel-file", &toml, "--block", "128"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("GB of host memory"));
    let (_d, toml) = kernel_dir(&[("k.cu", cu)], &constant("d_vertices", "output = true\n"));
    mock(&["kernels", "--kernel-file", &toml])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a __constant__ array is read"));
    // In a PTX file the variable must be declared there.
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.const .align 8 .b8 d_vertices[4800];\n.visible .entry k(\n.param .u64 p0,\n.param .u32 p1\n)\n{\nret;\n}\n";
    let ptx_toml = |name: &str| {
        toml_for("k.ptx", "k", false).replace(
            "[verify]",
            &format!("[[constants]]\nname = \"{name}\"\ntype = \"f32\"\nlen = \"1200\"\ninit = {{ uniform = [-1, 1] }}\n[verify]"),
        )
    };
    let (_d, toml) = kernel_dir(&[("k.ptx", ptx)], &ptx_toml("d_vertices"));
    mock(&["kernels", "--kernel-file", &toml]).assert().success();
    let (_d, toml) = kernel_dir(&[("k.ptx", ptx)], &ptx_toml("d_slopes"));
    mock(&["kernels", "--kernel-file", &toml]).assert().code(2).stderr(
        predicate::str::contains("constant 'd_slopes': ").and(predicate::str::contains("declares no such variable")),
    );
}

#[test]
fn partial_sums_are_verified_by_their_total() {
    // Kernel Tuner's reduction writes one partial sum per block: `sums` checks their total.
    let cu = "extern \"C\" __global__ void k(float *partial, const float *x, int n) { partial[nb - 1] = x[n - 1]; }\n";
    let toml = |sums: &str| {
        format!(
            "source = \"k.cu\"\nentry = \"k\"\nproblem_size = \"nb\"\ngrid_div_x = []\n[sizes]\nn = 4096\n[tune_params]\nnb = [8, 16]\n[[args]]\nname = \"partial\"\ntype = \"f32\"\nlen = \"nb\"\noutput = true\n[[args]]\nname = \"x\"\ntype = \"f32\"\nlen = \"n\"\n[[args]]\nname = \"n\"\ntype = \"i32\"\nvalue = \"n\"\n[verify]\nsums = {sums}\n"
        )
    };
    let (_d, ok) = kernel_dir(&[("k.cu", cu)], &toml("{ partial = \"x\" }"));
    mock(&["kernels", "--kernel-file", &ok])
        .assert()
        .success()
        .stdout(predicate::str::contains("each output's sum against an input's (sum partial = sum x)"));
    for (sums, says) in [
        ("{ x = \"x\" }", "sums: 'x' is not an output"),
        ("{ partial = \"n\" }", "sums: 'n' is not an input buffer"),
        ("{ partial = \"partial\" }", "sums: 'partial' is not an input buffer"),
    ] {
        let (_d, bad) = kernel_dir(&[("k.cu", cu)], &toml(sums));
        mock(&["kernels", "--kernel-file", &bad]).assert().code(2).stderr(predicate::str::contains(says));
    }
    let both = toml("{ partial = \"x\" }").replace("[verify]\n", "[verify]\nsame_as_first = true\n");
    let (_d, bad) = kernel_dir(&[("k.cu", cu)], &both);
    mock(&["kernels", "--kernel-file", &bad])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("takes one of reference, expected, sums or same_as_first"));
}

/// `estimate --kernel-file F --gpu H100 --format json` of a fixture of tests/fixtures/ptx/: each record's
/// block and its estimated metrics by name.
fn estimates(fixture: &str) -> Vec<(Value, std::collections::HashMap<String, f64>)> {
    let file = format!("tests/fixtures/ptx/{fixture}.toml");
    let v = json(&["estimate", "--kernel-file", &file, "--gpu", "H100", "--format", "json", "-q"]);
    v["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["status"], "ok", "{r}");
            let metrics = r["metrics"].as_array().unwrap();
            let by_name =
                metrics.iter().map(|m| (m["name"].as_str().unwrap().to_string(), m["value"].as_f64().unwrap()));
            (r["block"].clone(), by_name.collect())
        })
        .collect()
}

/// Real PTX from other compilers is traced from its own code: the sectors and requests below are worked
/// out by hand from each kernel.
#[test]
fn ptx_from_other_compilers_is_estimated_from_its_own_accesses() {
    // nvopencc 3.2 (`.entry sequence (`, an indented `} // sequence`): A[i] = i + 1 for the 1000 threads
    // i < N, 4 bytes each: 31 full warps of 4 sectors and one of 8 threads (1 sector).
    let seq = estimates("ocelot_sequence");
    assert_eq!(seq.len(), 2);
    for (block, m) in &seq {
        assert_eq!((m["gst_transactions"], m["gld_transactions"]), (125.0, 0.0), "{block}");
    }
    // rustc's LLVM output: a 64 x 8 image, pixel i = 64 y + x; each warp (32 pixels of a row, starting at
    // a multiple of 32) loads bytes 3i, 3i + 1 and 3i + 2: 96 aligned bytes, 3 sectors each load, 9 a
    // warp; and stores 32 aligned bytes: 1 sector. 16 warps whatever the block shape.
    let rgb = estimates("rust_rgb2gray");
    assert_eq!(rgb.len(), 4);
    for (block, m) in &rgb {
        assert_eq!((m["gld_transactions"], m["gst_transactions"]), (144.0, 16.0), "{block}");
        assert_eq!(m["gld_transactions_per_request"], 3.0, "{block}");
    }
    // Hand-written with plain register names: each thread stores a word at out + 4 tid.x, 4 sectors a
    // warp (blocks of 32 and 64 threads, one block).
    let shfl = estimates("zluda_shfl_sync_down_b32_pred");
    let stores: Vec<f64> = shfl.iter().map(|(_, m)| m["gst_transactions"]).collect();
    assert_eq!(stores, [4.0, 8.0]);
    // nvcc 12.4 for sm_90, a u64 size: dst[i] = src[i] for i < 1000, as the sequence's stores, both ways:
    // 125 sectors in 32 requests.
    let copy = estimates("librecuda_memcpy_sm_90");
    let m = &copy[0].1;
    assert_eq!((m["gld_transactions"], m["gst_transactions"]), (125.0, 125.0));
    assert_eq!(m["gld_transactions_per_request"], 125.0 / 32.0);
    // ZLUDA's ldmatrix test reads a module's `.global` array (`values_g`, no kernel argument) twice,
    // 32 words side by side each time: 4 sectors a load, as any buffer's.
    let ldm = estimates("zluda_ldmatrix");
    assert_eq!(ldm[0].1["gld_transactions"], 8.0);
}

/// What the model cannot follow in real PTX is one line naming it, exit 2: an address returned by a
/// called function, a texture.
#[test]
fn ptx_the_model_cannot_follow_is_one_line_naming_why() {
    let fails = |file: &str, says: &str| {
        mock(&["estimate", "--kernel-file", file, "--gpu", "H100", "-q"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(says).and(predicate::function(|e: &str| e.lines().count() == 1)));
    };
    fails(
        "tests/fixtures/ptx/rust_dependencies_debug.toml",
        "top_level_kernel: nothing to estimate: not modelled: 2 of a thread's loads and stores take addresses the \
         model cannot follow: computed from the result of a called function (`call`)",
    );
    // A texture fetch (old nvcc's `.tex` reference), and an entry whose launch bounds rule out every
    // block given (Triton's `.reqntid`): the reason, not a table of rows that say so.
    let tex = ".version 1.4\n.target sm_10, map_f64_to_f32\n.tex .u64 tex;\n\t.entry k (\n\t\t.param .u64 __cudaparm_k_out)\n\t{\n\
               \t.reg .f32 %f<6>;\n\t.reg .u64 %rd<3>;\n\tmov.f32 \t%f1, 0f00000000;     \t// 0\n\
               \ttex.2d.v4.f32.f32 {%f2,%f3,%f4,%f5},[tex,{%f1,%f1,%f1,%f1}];\n\
               \tld.param.u64 \t%rd1, [__cudaparm_k_out];\n\tst.global.f32 \t[%rd1+0], %f2;\n\texit;\n\t} // k\n";
    let toml = "source = \"k.ptx\"\nentry = \"k\"\ngrid = [\"1\"]\n[tune_params]\nblock_size_x = [32]\n[[args]]\nname = \"out\"\ntype = \"f32\"\nlen = \"1\"\noutput = true\n";
    let (_dir, path) = kernel_dir(&[("k.ptx", tex)], toml);
    fails(&path, "a texture or surface access (`tex.2d.v4.f32.f32");
    let bounded = ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k(\n\t.param .u64 .ptr .global .align 1 k_param_0\n)\n\
                   .reqntid 128\n{\n\tret;\n}\n";
    let (_dir, path) = kernel_dir(&[("k.ptx", bounded)], toml);
    mock(&["estimate", "--kernel-file", &path, "--gpu", "H100", "-q", "--block", "64,256", "--format", "json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("the entry must be launched in blocks of 128x1x1 (`.reqntid`)"));
}
