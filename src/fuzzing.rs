//! Entry points for fuzzing the parsers that read user input — block lists, experiment files, ncu and
//! nvprof CSV, result files and their header checks (resume, merge), output paths, kernel files and the
//! CUDA and PTX text they name — from arbitrary bytes. The cargo-fuzz targets (fuzz/) and the stable
//! fuzz test run in CI (tests/fuzz.rs) both call these; none may panic, whatever the input.

use std::path::Path;

use crate::record::Report;
use crate::{import, merge, output, report, resume, runspec, spec};

fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// `--block`, `--bx/--by/--bz` (one per line of the input) and single shapes.
pub fn block_lists(data: &[u8]) {
    let s = text(data);
    let mut lines = s.splitn(4, '\n');
    let (block, bx, by, bz) = (lines.next(), lines.next(), lines.next(), lines.next());
    let _ = spec::blocks_from(block, None, None, None);
    let _ = spec::blocks_from(None, bx.or(block), by, bz);
    let _ = spec::parse_int_list(&s);
    let _ = s.parse::<spec::Dim3>();
}

/// Experiment files, and the command lines of those that parse.
pub fn experiment_file(data: &[u8]) {
    if let Ok(spec) = runspec::ExperimentFile::parse(&text(data)) {
        for step in &spec.steps {
            let _ = step.argv(std::path::Path::new("out"));
        }
    }
}

/// Every importer: nvprof and ncu output in each format, detected from the content.
pub fn importer(data: &[u8]) {
    let _ = import::parse(&text(data));
}

/// warpscope's own result files: JSON Lines and JSON reports.
pub fn records(data: &[u8]) {
    let s = text(data);
    let _ = report::jsonl::parse(&s);
    let _ = serde_json::from_str::<Report>(&s);
}

/// The checks a result file meets before `sweep --resume` or `merge` takes it: schema version, an empty
/// file, records of another sweep or device, missing or out-of-range indices, records measured twice.
pub fn result_headers(data: &[u8]) {
    let path = Path::new("fuzz.json");
    let Ok(r) = report::parse(&text(data)) else { return };
    if let Some(first) = r.records.first() {
        let _ = resume::check_sweep(&r, path, &first.kernel, &first.problem);
    }
    let _ = resume::check_sweep(&r, path, "sumMatrixOnGPU2D", "16384x16384");
    let _ = resume::check_device(&r, path, &crate::gpu::DeviceInfo::unknown());
    let _ = merge::check_input(path, &r);
    let _ = merge::missing(&r.records);
    if let Ok(m) = merge::merge(vec![r.clone(), r]) {
        let _ = merge::missing(&m.records);
    }
}

/// The check that no output of a run is one of its inputs or another output: the first line of the
/// input lists input paths (separated by `|`), the rest output paths. Only reads the file system.
pub fn output_paths(data: &[u8]) {
    let s = text(data);
    let mut lines = s.lines();
    let named = |p: &str| -> Vec<String> { p.split('|').map(str::to_string).collect() };
    let inputs = named(lines.next().unwrap_or(""));
    let outputs: Vec<String> = lines.map(str::to_string).collect();
    let inputs: Vec<output::Named<'_>> =
        inputs.iter().map(|p| output::Named { what: "FILE", path: Path::new(p) }).collect();
    let outputs: Vec<output::Named<'_>> =
        outputs.iter().map(|p| output::Named { what: "-o", path: Path::new(p) }).collect();
    let _ = output::check_distinct(&inputs, &outputs);
    for o in &outputs {
        let _ = output::resolve(o.path);
    }
}

/// What is read from a kernel's CUDA or PTX text without compiling it: identifiers, a `__global__`
/// signature, the `#define`s the text fixes, Kernel Tuner's unroll rewrite, PTX entries, demangling.
pub fn kernel_source(data: &[u8]) {
    use crate::userkernel::{prepro, source};
    let t = text(data);
    let src = source::CudaSource { files: vec![(Path::new("k.cu").to_path_buf(), t.to_string())] };
    let _ = src.identifiers();
    let _ = source::signature(&t, "k");
    let given = ["block_size_x", "tile", "WIDTH", "kernel_tuner"].iter().map(|s| s.to_string()).collect();
    for d in prepro::fixed_defines(&src, &given) {
        let _ = d.contradicts(&crate::userkernel::expr::Value::Int(4096));
    }
    let _ = prepro::unrolled(&t, &[("loop_unroll_factor_0".into(), 0), ("loop_unroll_factor_1".into(), 4)]);
    for e in source::ptx_entries(&t) {
        let _ = source::demangle(&e.name);
    }
}

/// A kernel file's text (beside a small kernel `k.cu` and `k.ptx`), and its expansion when it loads.
pub fn kernel_file(data: &[u8]) {
    use std::sync::OnceLock;
    static DIR: OnceLock<Option<std::path::PathBuf>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("warpscope-fuzz-kernel-file-{}", std::process::id()));
        std::fs::create_dir_all(&d).ok()?;
        let cu = "#define W 64\n#ifndef tile\n#define tile 1\n#endif\n__global__ void k(float *a, int n) {\n#pragma unroll loop_unroll_factor_0\n  for (int i = 0; i < tile; i++) a[i] = n * W;\n}\n";
        std::fs::write(d.join("k.cu"), cu).ok()?;
        let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(\n.param .u64 p0,\n.param .u32 p1\n)\n{\nret;\n}\n";
        std::fs::write(d.join("k.ptx"), ptx).ok()?;
        Some(d)
    });
    let Some(dir) = dir else { return };
    if let Ok(k) = crate::userkernel::KernelFile::parse(&dir.join("k.toml"), text(data).into_owned(), &[]) {
        let blocks = [spec::Dim3::new(32, 1, 1), spec::Dim3::new(64, 2, 1)];
        let _ = k.expand(Some(&blocks), &[], crate::Input::name);
    }
}
