//! Kernel files end to end through the CLI (`warpscope kernels --kernel-file`): every example passes the
//! checker, and every mistake the checker knows is one `error:` line naming the file, line and column.

mod common;

use std::path::{Path, PathBuf};

use common::mock;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kernels")
}

/// Runs `kernels --kernel-file FILE ARGS`; returns (success, stdout, stderr).
fn check(file: &Path, args: &[&str]) -> (bool, String, String) {
    let path = file.to_str().unwrap();
    let mut all = vec!["kernels", "--kernel-file", path];
    all.extend(args);
    // Where NVRTC is installed the .cu files are compiled: into a cache of the tests' own.
    let cache = std::env::temp_dir().join("warpscope-test-nvrtc-cache");
    let out = mock(&all).env("WARPSCOPE_CACHE_DIR", cache).output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn every_example_passes_the_checker() {
    let mut seen = 0;
    for entry in std::fs::read_dir(examples()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        seen += 1;
        let (ok, out, err) = check(&path, &[]);
        assert!(ok, "{}: {err}", path.display());
        assert!(out.contains("expands to"), "{}: {out}", path.display());
        assert!(out.contains("checked:"), "{}: {out}", path.display());
    }
    assert!(seen >= 6, "vector add, conv2d, matmul, sum_matrix (.cu and .ptx), oob: found {seen}");
}

#[test]
fn restrictions_that_leave_nothing_are_an_error() {
    // matmul's blocks must be TILE x TILE: 8x8 blocks with TILE 16 leave no configuration to check.
    let (ok, out, err) = check(&examples().join("matmul.toml"), &["--block", "8x8", "--define", "TILE=16"]);
    assert!(!ok, "{out}");
    assert!(
        err.contains("nothing to check: 1 configuration (1 block x 1 parameter set), 1 removed by restrictions"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn the_ptx_example_is_checked_against_its_entry_without_nvrtc() {
    let (ok, out, err) = check(&examples().join("sum_matrix_ptx.toml"), &["--size", "nx=1000", "--size", "ny=777"]);
    assert!(ok, "{err}");
    assert!(out.contains("checked: the entry and its 5 arguments against the PTX"), "{out}");
    assert!(out.contains("nx * ny = 777000"), "sizes from the command line: {out}");
    assert!(out.contains("4 configurations (4 blocks x 1 parameter set)"), "{out}");
}

#[test]
fn expansion_counts_restrictions_and_defines() {
    let m = examples().join("matmul.toml");
    let (ok, out, err) = check(&m, &["--bx", "8,16", "--by", "8,16", "--define", "TILE=8,16"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("8 configurations (4 blocks x 2 parameter sets), 6 removed by restrictions, 2 to run, 2 modules"),
        "{out}"
    );
    let (ok, out, _) = check(&m, &["--block", "16x16", "--define", "TILE=16"]);
    assert!(ok);
    assert!(out.contains("1 configuration (1 block x 1 parameter set), 1 to run"), "{out}");
    let (ok, out, _) = check(
        &examples().join("conv2d.toml"),
        &["--bx", "32", "--by", "2,4", "--define", "tile_x=1..4", "--define", "tile_y=2"],
    );
    assert!(ok);
    // 32x2 x tile_x 1..4: 32*2 = 64 threads passes; tile_x * tile_y <= 8 removes tile_x = 5.. none, keeps all 4.
    assert!(out.contains("8 configurations (2 blocks x 4 parameter sets), 8 to run"), "{out}");
}

/// Writes `files` into a fresh folder and checks `k.toml` there.
fn with_files(files: &[(&str, &str)], args: &[&str]) -> (bool, String, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let (ok, out, err) = check(&dir.path().join("k.toml"), args);
    (ok, out, err, dir)
}

const CU: &str = "__global__ void scale(float *y, const float *x, float a, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = a * x[i] * UNROLL;\n}\n";

fn toml(replace: &[(&str, &str)]) -> String {
    let mut t = String::from(
        "source = \"k.cu\"\nentry = \"scale\"\nproblem_size = \"n\"\n\n[sizes]\nn = 1000\n\n[tune_params]\nblock_size_x = [128, 256]\nUNROLL = [1, 2]\n\n[[args]]\nname = \"y\"\ntype = \"f32\"\nlen = \"n\"\noutput = true\n\n[[args]]\nname = \"x\"\ntype = \"f32\"\nlen = \"n\"\n\n[[args]]\nname = \"a\"\ntype = \"f32\"\nvalue = 2.5\n\n[[args]]\nname = \"n\"\ntype = \"i32\"\nvalue = \"n\"\n",
    );
    for (from, to) in replace {
        assert!(t.contains(from), "{from}");
        t = t.replacen(from, to, 1);
    }
    t
}

/// A bad file: exit 2, one `error:` line naming k.toml at `line:col`, containing `what`.
fn fails(replace: &[(&str, &str)], args: &[&str], at: &str, what: &str) {
    let (ok, _, err, _dir) = with_files(&[("k.cu", CU), ("k.toml", &toml(replace))], args);
    assert!(!ok, "{replace:?} should fail");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    assert!(lines[0].starts_with("error: "), "{err}");
    if !at.is_empty() {
        assert!(lines[0].contains(&format!("k.toml:{at}: ")), "expected k.toml:{at}: in {err}");
    }
    assert!(lines[0].contains(what), "expected '{what}' in {err}");
}

#[test]
fn a_good_file_and_its_summary() {
    let (ok, out, err, _dir) = with_files(&[("k.cu", CU), ("k.toml", &toml(&[]))], &[]);
    assert!(ok, "{err}");
    assert!(out.contains("4 configurations (2 blocks x 2 parameter sets), 4 to run, 2 modules"), "{out}");
    assert!(out.contains("every configuration against the first one"), "{out}");
}

#[test]
fn unknown_entry() {
    fails(&[("entry = \"scale\"", "entry = \"scal\"")], &[], "2:9", "unknown entry 'scal'");
}

#[test]
fn argument_count_against_the_source() {
    let drop_a = "[[args]]\nname = \"a\"\ntype = \"f32\"\nvalue = 2.5\n\n";
    fails(&[(drop_a, "")], &[], "2:9", "takes 4 parameters in");
}

#[test]
fn buffer_or_scalar_against_the_source() {
    fails(
        &[("type = \"f32\"\nvalue = 2.5", "type = \"f32\"\nlen = \"n\"")],
        &[],
        "24:8",
        "argument 'a' is a buffer, but parameter 3 of 'scale' is not a pointer",
    );
}

#[test]
fn expressions_that_do_not_parse_point_at_the_column() {
    fails(&[("len = \"n\"\noutput", "len = \"n * (2\"\noutput")], &[], "15:14", "len of y: expected ')' at the end");
    fails(&[("problem_size = \"n\"", "problem_size = \"n / / 2\"")], &[], "3:21", "unexpected '/'");
}

#[test]
fn unknown_names() {
    fails(&[("len = \"n\"\noutput", "len = \"m\"\noutput")], &[], "15:8", "unknown name 'm'");
    fails(
        &[("problem_size = \"n\"", "problem_size = \"n\"\nrestrictions = [\"tile > 2\"]")],
        &[],
        "4:18",
        "unknown name 'tile'",
    );
}

#[test]
fn sizes_that_overflow_or_exceed_memory() {
    fails(
        &[("n = 1000", "n = 4294967296"), ("len = \"n\"\noutput", "len = \"n * n\"\noutput")],
        &[],
        "15:10",
        "integer overflow",
    );
    fails(&[("len = \"n\"\noutput", "len = \"n * 2 ** 40\"\noutput")], &[], "", "of host memory");
    fails(
        &[("value = \"n\"", "value = \"n * 10_000_000\"")],
        &[],
        "31:10",
        "value of n: 10000000000 does not fit in i32",
    );
    fails(&[("n = 1000", "n = 1099511627776")], &[], "3:17", "the grid = 8589934592 does not fit");
}

#[test]
fn a_parameter_the_source_never_uses() {
    fails(&[("UNROLL = [1, 2]", "UNROLL = [1, 2]\nTILE = [4]")], &[], "11:1", "parameter 'TILE' never appears");
}

#[test]
fn toml_mistakes_name_their_line() {
    fails(&[("n = 1000", "n = = 1000")], &[], "6:5", "");
    fails(&[("entry = \"scale\"", "entry = \"scale\"\nblocks = 4")], &[], "3:1", "unknown field `blocks`");
    fails(
        &[("type = \"f32\"\nlen = \"n\"\noutput", "type = \"float5\"\nlen = \"n\"\noutput")],
        &[],
        "14:8",
        "unknown type 'float5'",
    );
    fails(&[("type = \"i32\"\nvalue", "type = \"i32\"\nlen = \"n\"\nvalue")], &[], "32:9", "not both");
}

#[test]
fn command_line_mistakes() {
    fails(&[], &["--define", "TILE=4"], "", "no parameter 'TILE'");
    fails(&[], &["--size", "m=4"], "", "no size 'm'");
    fails(&[], &["--define", "block_size_x=64"], "", "--block");
    fails(&[], &["--define", "UNROLL"], "", "NAME=VALUE");
}

#[test]
fn ptx_files_are_checked_against_their_entry() {
    let ptx =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels-ptx/sum_matrix.ptx")).unwrap();
    let base = "source = \"k.ptx\"\nentry = \"sumMatrixOnGPU2D\"\nproblem_size = [\"n\", \"n\"]\n[sizes]\nn = 64\n[tune_params]\nblock_size_x = [32]\n[[args]]\nname = \"A\"\ntype = \"f32\"\nlen = \"n * n\"\n[[args]]\nname = \"B\"\ntype = \"f32\"\nlen = \"n * n\"\n[[args]]\nname = \"C\"\ntype = \"f32\"\nlen = \"n * n\"\noutput = true\n[[args]]\nname = \"NX\"\ntype = \"i32\"\nvalue = \"n\"\n[[args]]\nname = \"NY\"\ntype = \"i32\"\nvalue = \"n\"\n";
    let run = |t: &str| {
        let (ok, out, err, _d) = with_files(&[("k.ptx", &ptx), ("k.toml", t)], &[]);
        (ok, out, err)
    };
    let (ok, out, err) = run(base);
    assert!(ok, "{err}");
    assert!(out.contains("against the PTX"), "{out}");
    let (ok, _, err) = run(&base.replace("entry = \"sumMatrixOnGPU2D\"", "entry = \"sumMatrix\""));
    assert!(!ok && err.contains("k.toml:2:9: unknown entry 'sumMatrix': the PTX has only sumMatrixOnGPU2D"), "{err}");
    let (ok, _, err) = run(&base.replace("[[args]]\nname = \"NY\"\ntype = \"i32\"\nvalue = \"n\"\n", ""));
    assert!(!ok && err.contains("takes 5 parameters (PTX), the file declares 4 arguments"), "{err}");
    let (ok, _, err) = run(&base.replace("name = \"NY\"\ntype = \"i32\"", "name = \"NY\"\ntype = \"i64\""));
    assert!(
        !ok && err
            .contains("argument 'NY' is a i64 (8 bytes), but parameter 5 of 'sumMatrixOnGPU2D' is 4 bytes (.u32)"),
        "{err}"
    );
    let (ok, _, err) = run(&base.replace("name = \"NY\"\ntype = \"i32\"", "name = \"NY\"\ntype = \"f32\""));
    assert!(!ok && err.contains("argument 'NY' is f32, but parameter 5"), "{err}");
    let (ok, _, err) = run(&base.replace("[tune_params]\n", "[tune_params]\nTILE = [1, 2]\n"));
    assert!(!ok && err.contains("a .ptx file is compiled already"), "{err}");
}

#[test]
fn npy_inputs_and_expected_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let xs: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    npyz::to_file_1d(dir.path().join("x.npy"), xs.iter().copied()).unwrap();
    npyz::to_file_1d(dir.path().join("y.npy"), xs.iter().map(|x| 2.5 * x)).unwrap();
    std::fs::write(dir.path().join("k.cu"), CU).unwrap();
    let t = toml(&[("len = \"n\"\n\n", "len = \"n\"\ninit = { npy = \"x.npy\" }\n\n")])
        + "[verify]\nexpected = { y = \"y.npy\" }\n";
    std::fs::write(dir.path().join("k.toml"), &t).unwrap();
    let (ok, out, err) = check(&dir.path().join("k.toml"), &[]);
    assert!(ok, "{err}");
    assert!(out.contains("x.npy") && out.contains("against y = "), "{out}");
    let (ok, _, err) = check(&dir.path().join("k.toml"), &["--size", "n=999"]);
    assert!(!ok && err.contains("x.npy holds 1000 elements (shape [1000]), the buffer needs 999"), "{err}");
    std::fs::write(dir.path().join("k.toml"), t.replace("y = \"y.npy\"", "x = \"y.npy\"")).unwrap();
    let (ok, _, err) = check(&dir.path().join("k.toml"), &[]);
    assert!(!ok && err.contains("'x' is not an output"), "{err}");
}

#[test]
fn the_builtin_list_points_at_kernel_files() {
    let out = common::stdout(&mut mock(&["kernels"]));
    assert!(out.contains("sum-matrix") && out.contains("--kernel-file"), "{out}");
}

#[test]
fn the_readme_example_passes_the_checker() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let section = &readme[readme.find("## Your own kernel").unwrap()..];
    let block = |lang: &str| {
        let start = section.find(&format!("```{lang}\n")).unwrap() + lang.len() + 4;
        section[start..start + section[start..].find("```").unwrap()].to_string()
    };
    let (ok, out, err, _dir) =
        with_files(&[("k.toml", &block("toml").replace("scale.cu", "k.cu")), ("k.cu", &block("cuda"))], &[]);
    assert!(ok, "{err}");
    assert!(out.contains("9 configurations (3 blocks x 3 parameter sets)"), "{out}");
}

#[test]
fn vector_buffers_count_their_lanes() {
    // A C++ kernel `scale(float4 *, int)` as NVRTC or nvcc would emit it.
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry _Z5scaleP6float4i(\n\t.param .u64 _Z5scaleP6float4i_param_0,\n\t.param .u32 _Z5scaleP6float4i_param_1\n)\n{\n\tret;\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let xs: Vec<f32> = (0..4000).map(|i| i as f32).collect();
    npyz::to_file_1d(dir.path().join("x4000.npy"), xs.iter().copied()).unwrap();
    npyz::to_file_1d(dir.path().join("x1000.npy"), xs[..1000].iter().copied()).unwrap();
    std::fs::write(dir.path().join("k.ptx"), ptx).unwrap();
    let file = |ty: &str, init: &str| {
        format!(
            "source = \"k.ptx\"\nentry = \"scale\"\nproblem_size = \"n\"\n[sizes]\nn = 1000\n[tune_params]\nblock_size_x = [128]\n[[args]]\nname = \"x\"\ntype = \"{ty}\"\nlen = \"n\"\noutput = true\n{init}\n[[args]]\nname = \"n\"\ntype = \"i32\"\nvalue = \"n\"\n"
        )
    };
    let run = |text: String| {
        std::fs::write(dir.path().join("k.toml"), text).unwrap();
        check(&dir.path().join("k.toml"), &[])
    };
    let (ok, out, err) = run(file("float4", ""));
    assert!(ok, "{err}");
    assert!(out.contains("| x        | float4 | output | n = 1000"), "the length counts float4s: {out}");
    // 1000 float4 are 4000 floats: a .npy of 4000 f32 fills them, one of 1000 does not.
    let (ok, _, err) = run(file("float4", "init = { npy = \"x4000.npy\" }"));
    assert!(ok, "{err}");
    let (ok, _, err) = run(file("float4", "init = { npy = \"x1000.npy\" }"));
    assert!(
        !ok && err.contains("holds 1000 elements (shape [1000]), the buffer needs 4000 (1000 float4 of 4 f32 each)"),
        "{err}"
    );
    // The buffer as the vector's scalars, its length in floats, is the same memory: accepted.
    let (ok, _, err) = run(file("f32", "").replace("len = \"n\"", "len = \"4 * n\""));
    assert!(ok, "{err}");
    let (ok, _, err) = run(file("float2", ""));
    assert!(!ok && err.contains("argument 'x' is float2, but parameter 1 of 'scale' is float4*"), "{err}");
    let (ok, _, err) = run(file("int4", ""));
    assert!(!ok && err.contains("argument 'x' is int4, but parameter 1"), "{err}");
    // A vector is for buffers.
    let (ok, _, err) = run(file("float4", "").replace("type = \"i32\"\nvalue", "type = \"int2\"\nvalue"));
    assert!(!ok && err.contains("argument 'n': a vector type (int2) is for buffers, not scalars"), "{err}");
}

#[test]
fn an_output_may_be_left_unverified() {
    // A scratch output (Kernel Tuner verifies only what `answer` names): written, poisoned, not compared.
    let scratch = toml(&[("len = \"n\"\noutput = true", "len = \"n\"\noutput = true\nverify = false")]);
    let (ok, out, err, _d) = with_files(&[("k.cu", CU), ("k.toml", &scratch)], &[]);
    assert!(ok, "{err}");
    assert!(out.contains("poisoned, not verified (verify = false)"), "{out}");
    assert!(out.contains("no output buffer is compared (none declared, or each has verify = false)"), "{out}");
    // An unchecked output named by a check is a mistake.
    let summed = format!("{scratch}\n[verify]\nsums = {{ y = \"x\" }}\n");
    let (ok, _, err, _d) = with_files(&[("k.cu", CU), ("k.toml", &summed)], &[]);
    assert!(!ok && err.contains("sums: output 'y' has verify = false: nothing compares it"), "{err}");
    // Only outputs are verified or not.
    fails(
        &[("name = \"x\"\ntype = \"f32\"\nlen = \"n\"", "name = \"x\"\ntype = \"f32\"\nlen = \"n\"\nverify = true")],
        &[],
        "22:10",
        "verify applies to outputs",
    );
}
