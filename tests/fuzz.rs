//! The fuzz targets on stable Rust, for CI: every parser of user input gets its seed corpus (the test
//! fixtures, the experiment files, typical block lists) and tens of thousands of deterministic
//! mutations of it (bytes flipped, inserted, deleted, spliced from other seeds, lines duplicated), and
//! must not panic. `cargo +nightly fuzz run <target>` (fuzz/) explores further with coverage.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use warpscope::fuzzing;

/// xorshift64*: a fixed-seed generator, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes that matter to the parsers.
const INTERESTING: &[&[u8]] = &[
    b",",
    b"x",
    b"..",
    b":",
    b"\n",
    b"\"",
    b"=",
    b"[[step]]\n",
    b"0",
    b"-1",
    b"4294967296",
    b"1e309",
    b"NaN",
    b"{",
    b"}",
    b"\r\n",
    b"==PROF==",
    b"\"ID\",\"Kernel Name\"",
    b"\xff\xfe",
    b"%",
    b"(",
    b")",
];

fn mutate(rng: &mut Rng, seed: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(6) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 => {
                let bytes = INTERESTING[rng.below(INTERESTING.len())];
                v.splice(at..at, bytes.iter().copied());
            }
            2 if !v.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(v.len());
                v.drain(at.min(end)..end);
            }
            3 => {
                let other = &corpus[rng.below(corpus.len())];
                let from = rng.below(other.len() + 1);
                let to = (from + rng.below(64)).min(other.len());
                v.splice(at..at, other[from..to].iter().copied());
            }
            4 if !v.is_empty() => {
                let end = (at + rng.below(80)).min(v.len());
                let copy: Vec<u8> = v[at.min(end)..end].to_vec();
                v.splice(at..at, copy);
            }
            _ => v.truncate(at),
        }
    }
    v
}

fn files(dir: &str, ext: &str) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut out: Vec<Vec<u8>> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    out.sort();
    out
}

fn fuzz(name: &str, target: fn(&[u8]), corpus: Vec<Vec<u8>>, runs: usize) {
    assert!(!corpus.is_empty(), "{name}: no seeds");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
    for seed in &corpus {
        assert!(catch_unwind(AssertUnwindSafe(|| target(seed))).is_ok(), "{name} panicked on a seed");
    }
    for i in 0..runs {
        let input = mutate(&mut rng, &corpus[i % corpus.len()], &corpus);
        if catch_unwind(AssertUnwindSafe(|| target(&input))).is_err() {
            panic!("{name} panicked on input {:?}", String::from_utf8_lossy(&input));
        }
    }
}

#[test]
fn block_lists() {
    let seeds = [
        "32x32,32x16,16x32,16x16",
        "64,128,256\n1,2,4,8",
        "32..1024:32\n1..16\n1",
        "1x1x64",
        "0x0",
        "7..3",
        "1..65536",
    ];
    fuzz("block_lists", fuzzing::block_lists, seeds.iter().map(|s| s.as_bytes().to_vec()).collect(), 40_000);
}

#[test]
fn experiment_files() {
    fuzz("experiment_file", fuzzing::experiment_file, files("experiments", "toml"), 20_000);
}

#[test]
fn importers() {
    let mut seeds = files("tests/fixtures", "csv");
    // Real profiler output of every format the importers read.
    for ext in ["csv", "txt", "log"] {
        seeds.extend(files("tests/fixtures/profilers", ext));
    }
    fuzz("importer", fuzzing::importer, seeds, 8_000);
}

#[test]
fn result_files() {
    let mut seeds = files("tests/fixtures", "json");
    let line = br#"{"kernel":"k","problem":"p","grid":[1,1,1],"block":[32,1,1],"status":"ok","reason":null,"time_ms":{"median":1.0,"min":1.0,"max":1.0,"iters":1},"metrics":[]}"#;
    seeds.push([line.as_slice(), b"\n", line.as_slice(), b"\n"].concat());
    fuzz("records", fuzzing::records, seeds, 3_000);
}

#[test]
fn result_headers() {
    let mut seeds = files("tests/fixtures", "json");
    let line = br#"{"kernel":"k","problem":"p","grid":[1,1,1],"block":[32,1,1],"status":"ok","reason":null,"time_ms":null,"metrics":[],"index":1,"sweep_size":4}"#;
    seeds.push([line.as_slice(), b"\n", line.as_slice(), b"\n"].concat());
    seeds.push(b"{\"schema_version\": 999, \"records\": []}".to_vec());
    seeds.push(Vec::new());
    fuzz("result_headers", fuzzing::result_headers, seeds, 3_000);
}

#[test]
fn output_paths() {
    let seeds = [
        "in.csv\nin.csv",
        "a.png|b.png\n./a.png\nout.svg",
        "-\n-\n-",
        "/dev/null\n/dev/null\n/tmp/../tmp/x.json",
        "x/../y.json\ny.json",
        "\n/\n.\n..",
    ];
    fuzz("output_paths", fuzzing::output_paths, seeds.iter().map(|s| s.as_bytes().to_vec()).collect(), 10_000);
}

#[test]
fn kernel_sources() {
    let mut seeds = files("examples/kernels", "cu");
    seeds.extend(files("kernels", "cu"));
    seeds.extend(files("kernels-ptx", "ptx").into_iter().map(|p| p[..p.len().min(20_000)].to_vec()));
    fuzz("kernel_source", fuzzing::kernel_source, seeds, 4_000);
}

#[test]
fn kernel_files() {
    // The examples, their source names pointed at the fuzz folder's k.cu and k.ptx.
    let own = [
        "source = \"k.cu\"\nentry = \"k\"\nproblem_size = \"n\"\nrestrictions = [\"tile <= block_size_x\"]\n[sizes]\nn = 1000\n[defines]\nW = \"64\"\n[tune_params]\ntile = [1, 2]\nloop_unroll_factor_0 = [0, 4]\n[[args]]\nname = \"a\"\ntype = \"float2\"\nlen = \"n\"\noutput = true\n[[args]]\nname = \"n\"\ntype = \"i32\"\nvalue = \"n\"\n[verify]\nsame_as_first = true\n",
        "source = \"k.ptx\"\nentry = \"k\"\ngrid = [\"n // block_size_x\", 1]\n[sizes]\nn = 4096\n[[args]]\nname = \"a\"\ntype = \"f32\"\nlen = \"n\"\noutput = true\nverify = false\n[[args]]\nname = \"n\"\ntype = \"u32\"\nvalue = \"n\"\n",
    ];
    // Both load: the mutations start from files that reach the expansion.
    for seed in own {
        let dir = std::env::temp_dir().join(format!("warpscope-fuzz-kernel-file-{}", std::process::id()));
        fuzzing::kernel_file(b"");
        let k = warpscope::userkernel::KernelFile::parse(&dir.join("k.toml"), seed.to_string(), &[]);
        assert!(k.is_ok(), "{seed}: {:?}", k.err());
    }
    let seeds = own
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .chain(files("examples/kernels", "toml"))
        .map(|t| {
            let t = String::from_utf8_lossy(&t).into_owned();
            let source = t.lines().find(|l| l.starts_with("source")).unwrap_or("").to_string();
            let k = if source.contains(".ptx") { "source = \"k.ptx\"" } else { "source = \"k.cu\"" };
            t.replace(&source, k).into_bytes()
        })
        .collect();
    fuzz("kernel_file", fuzzing::kernel_file, seeds, 4_000);
}
