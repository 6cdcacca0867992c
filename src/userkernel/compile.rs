//! Turning a kernel file's modules into what the driver loads: PTX and binaries pass through; `.cu`
//! sources are compiled by NVRTC (found like libcupti: `WARPSCOPE_NVRTC`, CUDA's folders, the
//! `nvidia-cuda-nvrtc` pip wheel; probed first, so a missing library is an error, never cudarc's panic),
//! with the parameters as `-D` defines and `-arch=compute_XY` of the device, in parallel across modules,
//! and cached on disk keyed by the source (with its local headers), options, arch, NVRTC and driver.
//! The compiler sits behind a small trait so that the cache is tested without NVRTC.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::expand::{Config, ModuleSpec};
use super::file::{Image, KernelFile, include_dirs};
use super::host_headers;
use super::prepro;
use super::source::{self, CudaSource};

/// What stands for a module no configuration of a run uses (it is not compiled).
pub const NOT_BUILT: &str = "not built: no configuration of this run uses it";

/// Whether `b` stands for a module that was not compiled ([`NOT_BUILT`]): it neither fails nor passes.
pub fn not_built(b: &Result<Built, CompileError>) -> bool {
    matches!(b, Err(e) if e.summary == NOT_BUILT)
}

/// A compile that failed: the first error line, and NVRTC's whole log.
#[derive(Clone, Debug, PartialEq)]
pub struct CompileError {
    /// One line for a table row or an error message.
    pub summary: String,
    /// The compiler's full log.
    pub log: String,
}

/// One compilation: a CUDA source and the options it is compiled with.
#[derive(Clone, Debug)]
pub struct Job<'a> {
    /// The source and its local headers.
    pub source: &'a CudaSource,
    /// Every option, in order: `-arch=compute_90`, `-Dtile=4`, `-I...`, the file's own.
    pub options: Vec<String>,
    /// Template instantiations the file names as entries (`MatrixMulCUDA<16>`): NVRTC instantiates
    /// each (a name expression), so the PTX has it whether or not the source does.
    pub instantiate: Vec<String>,
}

/// Something that compiles CUDA C++ to PTX (NVRTC; a fake one in tests).
pub trait Compiler: Sync {
    /// What it is and its version (`NVRTC 13.0`): part of the cache key.
    fn version(&self) -> String;
    /// PTX text, or the log of a failed compile.
    fn compile(&self, job: &Job<'_>) -> Result<String, CompileError>;
}

/// What a module becomes.
#[derive(Clone, Debug, PartialEq)]
pub enum Code {
    /// PTX, JIT-compiled by the driver at load.
    Ptx(String),
    /// A cubin or fatbinary, loaded as it is.
    Binary(Vec<u8>),
}

/// A built module and how it was obtained.
#[derive(Clone, Debug, PartialEq)]
pub struct Built {
    /// The code.
    pub code: Code,
    /// Taken from the on-disk cache.
    pub cached: bool,
    /// Seconds spent compiling (0 for the cache and for files loaded as they are).
    pub compile_secs: f64,
}

/// The device a module is built for.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// Compute capability (9, 0).
    pub cc: (u32, u32),
    /// The driver's version, as it goes into the cache key (`none` without a driver).
    pub driver: String,
}

/// The on-disk cache of compiled modules: `<dir>/<sha256>.ptx`, written through a temporary name.
#[derive(Clone, Debug, PartialEq)]
pub struct Cache {
    dir: Option<PathBuf>,
}

impl Cache {
    /// The user's cache (`$WARPSCOPE_CACHE_DIR`, else the platform's, e.g. `~/.cache/warpscope`), a
    /// `nvrtc` folder inside.
    pub fn user() -> Cache {
        Cache { dir: crate::gpu::calibrate::cache_dir().map(|b| b.join("nvrtc")) }
    }

    /// A cache in `dir`.
    pub fn at(dir: &Path) -> Cache {
        Cache { dir: Some(dir.to_path_buf()) }
    }

    /// No cache: every module is compiled.
    pub fn none() -> Cache {
        Cache { dir: None }
    }

    /// The folder, if any.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The key of a compilation: SHA-256 over the source and its local headers (names and texts), the
    /// options in order, the host headers NVRTC is given, the compiler's version and the driver's.
    pub fn key(job: &Job<'_>, compiler: &str, driver: &str) -> String {
        let mut h = Sha256::new();
        let mut field = |tag: &str, data: &[u8]| {
            h.update(tag.as_bytes());
            h.update((data.len() as u64).to_le_bytes());
            h.update(data);
        };
        for (i, (path, text)) in job.source.files.iter().enumerate() {
            // The main file's name does not matter; a header's name does (it is what #include says).
            let name = if i == 0 {
                String::new()
            } else {
                path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
            };
            field("file", name.as_bytes());
            field("text", text.as_bytes());
        }
        for o in &job.options {
            field("option", o.as_bytes());
        }
        for n in &job.instantiate {
            field("instantiate", n.as_bytes());
        }
        for (name, text) in host_headers::all() {
            field("host header", format!("{name}\n{text}").as_bytes());
        }
        field("compiler", compiler.as_bytes());
        field("driver", driver.as_bytes());
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The cached PTX of `key`.
    pub fn get(&self, key: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.as_ref()?.join(format!("{key}.ptx"))).ok()
    }

    /// Stores `ptx` under `key` (a temporary file renamed into place, so readers never see half a file).
    pub fn put(&self, key: &str, ptx: &str) -> std::io::Result<()> {
        let Some(dir) = &self.dir else { return Ok(()) };
        std::fs::create_dir_all(dir)?;
        let tmp = dir.join(format!(".{key}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, ptx)?;
        std::fs::rename(&tmp, dir.join(format!("{key}.ptx")))
    }
}

/// The options a module is compiled with: the arch, the defines, `-I` the source's folder, the line
/// table (so compute-sanitizer names source lines), then the file's own options.
pub fn options(file: &KernelFile, spec: &ModuleSpec, target: &Target) -> Vec<String> {
    let src = &file.sources[spec.source];
    let dir = src.path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut o = vec![format!("-arch=compute_{}{}", target.cc.0, target.cc.1)];
    o.extend(spec.defines.iter().map(|(n, v)| format!("-D{n}={v}")));
    o.push(format!("-I{}", dir.display()));
    o.push("-lineinfo".into());
    let kernel_dir = file.path.parent().map(Path::to_path_buf).unwrap_or_default();
    let include = include_dirs(&file.compiler_options, &kernel_dir);
    let mut it = file.compiler_options.iter();
    while let Some(opt) = it.next() {
        // -I folders are relative to the kernel file: pass them resolved.
        if opt == "-I" || opt == "--include-path" {
            it.next();
        } else if !(opt.starts_with("-I") || opt.starts_with("--include-path=")) {
            o.push(opt.clone());
        }
    }
    o.extend(include.iter().map(|d| format!("-I{}", d.display())));
    o
}

/// Builds the modules that `used`'s valid configurations name ([`build`]), and stands [`NOT_BUILT`]
/// for the rest: what a run or an estimate compiles, where a module only rows with their reasons (or
/// other shards' configurations) name costs nothing. One result per module of `modules`.
pub fn build_used<'a>(
    file: &KernelFile,
    modules: &[ModuleSpec],
    used: impl IntoIterator<Item = &'a Config>,
    target: &Target,
    compiler: Option<&dyn Compiler>,
    cache: &Cache,
) -> Vec<Result<Built, CompileError>> {
    let mut wanted = vec![false; modules.len()];
    for c in used.into_iter().filter(|c| c.invalid.is_none()) {
        if let Some(w) = wanted.get_mut(c.module) {
            *w = true;
        }
    }
    let specs: Vec<ModuleSpec> = modules.iter().zip(&wanted).filter(|(_, w)| **w).map(|(m, _)| m.clone()).collect();
    let mut some = build(file, &specs, target, compiler, cache).into_iter();
    wanted
        .iter()
        .map(|&w| match w.then(|| some.next()).flatten() {
            Some(b) => b,
            None => Err(CompileError { summary: NOT_BUILT.into(), log: String::new() }),
        })
        .collect()
}

/// Builds every module (in parallel): files loaded as they are pass through, CUDA sources come from the
/// cache or `compiler`. A module that cannot be built carries its error; configurations using it become
/// rows with that reason.
pub fn build(
    file: &KernelFile,
    modules: &[ModuleSpec],
    target: &Target,
    compiler: Option<&dyn Compiler>,
    cache: &Cache,
) -> Vec<Result<Built, CompileError>> {
    modules
        .par_iter()
        .map(|spec| {
            let src = &file.sources[spec.source];
            let pass = |code| Ok(Built { code, cached: false, compile_secs: 0.0 });
            match &src.image {
                Image::Ptx(text) => pass(Code::Ptx(text.clone())),
                Image::Cubin(b) | Image::Fatbin(b) => pass(Code::Binary(b.clone())),
                Image::Cuda(source) => {
                    let Some(compiler) = compiler else {
                        return Err(CompileError { summary: no_nvrtc(&src.path), log: String::new() });
                    };
                    let rewritten;
                    let source = if spec.unroll.is_empty() {
                        source
                    } else {
                        let mut files = source.files.clone();
                        files[0].1 = prepro::unrolled(&files[0].1, &spec.unroll);
                        rewritten = CudaSource { files };
                        &rewritten
                    };
                    let job =
                        Job { source, options: options(file, spec, target), instantiate: spec.instantiate.clone() };
                    let key = Cache::key(&job, &compiler.version(), &target.driver);
                    if let Some(ptx) = cache.get(&key) {
                        return Ok(Built { code: Code::Ptx(ptx), cached: true, compile_secs: 0.0 });
                    }
                    let t = Instant::now();
                    let ptx = compiler.compile(&job).map_err(|e| {
                        let defines: Vec<&str> =
                            job.options.iter().filter(|o| o.starts_with("-D")).map(String::as_str).collect();
                        // The module's defines, where it has any: what tells one module from another.
                        let with = if defines.is_empty() { String::new() } else { format!(" ({})", defines.join(" ")) };
                        CompileError {
                            summary: format!(
                                "{}: NVRTC failed{with}: {}{}",
                                src.path.display(),
                                e.summary,
                                host_code_hint(job.source)
                            ),
                            log: e.log,
                        }
                    })?;
                    let secs = t.elapsed().as_secs_f64();
                    // A cache that cannot be written only costs the next run a compile.
                    let _ = cache.put(&key, &ptx);
                    Ok(Built { code: Code::Ptx(ptx), cached: false, compile_secs: secs })
                }
            }
        })
        .collect()
}

/// What the mock backend compiles with where NVRTC is absent (CI): PTX with only the `.entry` the file
/// declares (a parameter per argument, of its size) and no code, so expansion, building, checking and
/// the report path run end to end; a source containing `#error` fails like a compile error. The mock
/// never runs what it builds.
pub struct Stub<'a> {
    /// The kernel file whose arguments the entries take.
    pub file: &'a KernelFile,
}

impl Compiler for Stub<'_> {
    fn version(&self) -> String {
        "stub (mock backend)".into()
    }

    fn compile(&self, job: &Job<'_>) -> Result<String, CompileError> {
        if let Some(line) = job.source.main().lines().find(|l| l.trim_start().starts_with("#error")) {
            let summary = format!("error: {}", line.trim_start().trim_start_matches("#error").trim());
            return Err(CompileError { summary: summary.clone(), log: format!("{summary}\n1 error detected") });
        }
        let params: Vec<String> = self
            .file
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let ty = match (&a.kind, a.ty.size(), a.ty.is_float()) {
                    (super::ArgKind::Buffer { .. }, _, _) => ".u64",
                    (_, 8, true) => ".f64",
                    (_, 8, false) => ".u64",
                    (_, 4, true) => ".f32",
                    (_, 4, false) => ".u32",
                    (_, 2, _) => ".b16",
                    _ => ".b8",
                };
                format!(".param {ty} p{i}")
            })
            .collect();
        // The file's entries, a template's as the module's configurations instantiate it.
        let mut entries: Vec<String> = job.instantiate.clone();
        entries.push(self.file.entry.clone());
        if let super::Expected::Reference(r) = &self.file.verify.expected {
            entries.push(r.entry.clone());
        }
        entries.retain(|e| !e.contains('<') || job.instantiate.contains(e));
        entries.dedup();
        // A template's instantiation (`scale<float, 4>`) as one word, as its mangled name would be.
        let body: String = entries
            .iter()
            .map(|e| e.split_whitespace().collect::<String>())
            .map(|e| format!(".visible .entry {e}(\n{}\n)\n{{\nret;\n}}\n", params.join(",\n")))
            .collect();
        Ok(format!(".version 8.0\n.target sm_90\n.address_size 64\n// {}\n{body}", job.options.join(" ")))
    }
}

/// The message for a `.cu` kernel file on a machine without NVRTC.
pub fn no_nvrtc(path: &Path) -> String {
    format!(
        "{} needs NVRTC (libnvrtc) to compile, and none was found: install the CUDA toolkit or `pip install nvidia-cuda-nvrtc`, or set WARPSCOPE_NVRTC to libnvrtc.so (a .ptx kernel needs only the driver)",
        path.display()
    )
}

type CreateProgram = unsafe extern "C" fn(
    *mut *mut c_void,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type CompileProgram = unsafe extern "C" fn(*mut c_void, c_int, *const *const c_char) -> c_int;
type SizeOf = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
type CopyOut = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int;

/// libnvrtc, loaded at run time with every entry point checked.
pub struct Nvrtc {
    path: PathBuf,
    /// The toolkit's header folders, passed last (see [`toolkit_includes`]).
    includes: Vec<PathBuf>,
    version: (i32, i32),
    create: CreateProgram,
    compile: CompileProgram,
    add_name: unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int,
    lowered_name: unsafe extern "C" fn(*mut c_void, *const c_char, *mut *const c_char) -> c_int,
    destroy: unsafe extern "C" fn(*mut *mut c_void) -> c_int,
    log_size: SizeOf,
    log: CopyOut,
    ptx_size: SizeOf,
    ptx: CopyOut,
    error_string: unsafe extern "C" fn(c_int) -> *const c_char,
    _lib: libloading::Library,
    /// libnvrtc-builtins from libnvrtc's folder, loaded first: NVRTC opens it by its bare name, which the
    /// loader does not find beside a pip wheel's libnvrtc.
    _builtins: Option<libloading::Library>,
}

/// Where to look for libnvrtc (see [`crate::gpu::probe::library_candidates`]).
pub fn nvrtc_candidates() -> Vec<PathBuf> {
    crate::gpu::probe::library_candidates(
        "WARPSCOPE_NVRTC",
        &["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"],
        &["lib64", "targets/*/lib"],
    )
}

/// Loads `libnvrtc-builtins.so.*` of `dir` with global symbols, so that NVRTC's own `dlopen` of it by
/// name finds it already loaded.
fn preload_builtins(dir: &Path) -> Option<libloading::Library> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("libnvrtc-builtins.so")))
        .collect();
    found.sort();
    let path = found.pop()?;
    let flags = libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_GLOBAL;
    // SAFETY: NVRTC's builtins library has no initialisers with side effects beyond registering itself.
    unsafe { libloading::os::unix::Library::open(Some(&path), flags) }.ok().map(Into::into)
}

impl Nvrtc {
    /// The first libnvrtc of [`nvrtc_candidates`] that opens and has every entry point; `Err` says what
    /// was tried.
    pub fn load() -> Result<Nvrtc, String> {
        let mut tried = Vec::new();
        for path in nvrtc_candidates() {
            let builtins = path.parent().and_then(preload_builtins);
            // SAFETY: loading NVIDIA's runtime compiler, a self-contained library.
            match unsafe { libloading::Library::new(&path) } {
                Ok(lib) => match Nvrtc::resolve(lib, &path, builtins) {
                    Ok(n) => return Ok(n),
                    Err(e) => tried.push(e),
                },
                Err(_) => tried.push(path.display().to_string()),
            }
        }
        Err(format!("no usable libnvrtc (tried {})", tried.join(", ")))
    }

    fn resolve(lib: libloading::Library, path: &Path, builtins: Option<libloading::Library>) -> Result<Nvrtc, String> {
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the type is NVRTC's documented signature of this entry point.
                *unsafe { lib.get($name.as_bytes()) }.map_err(|_| format!("{} has no {}", path.display(), $name))?
            };
        }
        let version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int = sym!("nvrtcVersion");
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two out-parameters.
        if unsafe { version(&mut major, &mut minor) } != 0 {
            return Err(format!("{}: nvrtcVersion failed", path.display()));
        }
        Ok(Nvrtc {
            path: path.to_path_buf(),
            includes: toolkit_includes(&loaded_path(path)),
            version: (major, minor),
            create: sym!("nvrtcCreateProgram"),
            compile: sym!("nvrtcCompileProgram"),
            add_name: sym!("nvrtcAddNameExpression"),
            lowered_name: sym!("nvrtcGetLoweredName"),
            destroy: sym!("nvrtcDestroyProgram"),
            log_size: sym!("nvrtcGetProgramLogSize"),
            log: sym!("nvrtcGetProgramLog"),
            ptx_size: sym!("nvrtcGetPTXSize"),
            ptx: sym!("nvrtcGetPTX"),
            error_string: sym!("nvrtcGetErrorString"),
            _lib: lib,
            _builtins: builtins,
        })
    }

    /// The library that was loaded.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, call: &str, rc: c_int) -> CompileError {
        // SAFETY: nvrtcGetErrorString returns a static string for any code.
        let text = unsafe { CStr::from_ptr((self.error_string)(rc)) }.to_string_lossy().into_owned();
        CompileError { summary: format!("{call}: {text}"), log: String::new() }
    }

    /// Copies out a program's log or PTX.
    fn read(&self, prog: *mut c_void, size: SizeOf, copy: CopyOut) -> String {
        let mut n = 0usize;
        // SAFETY: prog is a live program; size writes one usize.
        if unsafe { size(prog, &mut n) } != 0 || n == 0 {
            return String::new();
        }
        let mut buf = vec![0u8; n];
        // SAFETY: buf holds the n bytes NVRTC said it needs.
        if unsafe { copy(prog, buf.as_mut_ptr().cast()) } != 0 {
            return String::new();
        }
        CStr::from_bytes_until_nul(&buf).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
    }
}

/// Destroys an NVRTC program when dropped.
struct Program<'a>(&'a Nvrtc, *mut c_void);

impl Drop for Program<'_> {
    fn drop(&mut self) {
        // SAFETY: the program was created by nvrtcCreateProgram and is destroyed once.
        unsafe { (self.0.destroy)(&mut self.1) };
    }
}

/// The CUDA headers nvcc finds without being told, for the libnvrtc at `lib`: its toolkit's `include`
/// (`cooperative_groups.h`, `cuda_fp16.h`, `mma.h` ...) and `include/cccl` (CUB, Thrust and libcu++ since
/// CUDA 13), beside `<root>/lib64` or `<root>/targets/<arch>/lib`; for a pip wheel
/// (`site-packages/nvidia/cuda_nvrtc/lib`) every `nvidia/*/include` of the wheels beside it. Only folders
/// that exist; passed after every other option, so a kernel's own `-I` folders come first. Their
/// contents belong to the toolkit whose NVRTC is in the cache key (never another toolkit's: a library
/// without a folder gives none).
pub fn toolkit_includes(lib: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    let up = lib.parent().and_then(Path::parent).filter(|p| !p.as_os_str().is_empty());
    if let Some(up) = up {
        roots.push(up.to_path_buf());
        let parent = up.parent();
        match parent.and_then(Path::file_name).and_then(|n| n.to_str()) {
            Some("targets") => roots.extend(parent.and_then(Path::parent).map(Path::to_path_buf)),
            Some("nvidia") => {
                if let Some(Ok(entries)) = parent.map(std::fs::read_dir) {
                    let mut wheels: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                    wheels.sort();
                    roots.extend(wheels);
                }
            }
            _ => {}
        }
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for r in roots {
        for d in [r.join("include"), r.join("include").join("cccl")] {
            if d.is_dir() && !out.contains(&d) {
                out.push(d);
            }
        }
    }
    out
}

/// Where a library opened by its bare name (`libnvrtc.so.13`, found by the system's loader) lies: the
/// file this process mapped for it (`/proc/self/maps`), else the name as given.
fn loaded_path(path: &Path) -> PathBuf {
    if path.parent().is_some_and(|p| !p.as_os_str().is_empty()) {
        return path.to_path_buf();
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let stem = name.split(".so").next().unwrap_or(name);
    std::fs::read_to_string("/proc/self/maps")
        .ok()
        .and_then(|maps| {
            maps.lines()
                .filter_map(|l| l.split_whitespace().nth(5))
                .find(|p| {
                    Path::new(p)
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(&format!("{stem}.so")))
                })
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| path.to_path_buf())
}

/// What to add to a failed compile's message when the source launches a kernel (`<<<`): most often from
/// host code, which NVRTC does not compile (a device-side launch is the exception): where, and what to do.
fn host_code_hint(src: &CudaSource) -> String {
    src.files
        .iter()
        .find_map(|(path, text)| {
            let line = source::strip_comments(text).lines().position(|l| l.contains("<<<"))?;
            Some(format!(
                " (the source launches a kernel with <<<...>>> at {}:{}: if that is host code, NVRTC does not compile it, as it compiles device code only; keep the kernels in a file of their own)",
                path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned()),
                line + 1
            ))
        })
        .unwrap_or_default()
}

impl Compiler for Nvrtc {
    fn version(&self) -> String {
        format!("NVRTC {}.{}", self.version.0, self.version.1)
    }

    fn compile(&self, job: &Job<'_>) -> Result<String, CompileError> {
        let nul = |s: &str| {
            CString::new(s)
                .map_err(|_| CompileError { summary: "a NUL byte in the source or options".into(), log: String::new() })
        };
        let (main_path, main_text) = &job.source.files[0];
        let src = nul(main_text)?;
        let name = nul(&main_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "kernel.cu".into()))?;
        // The toolkit's headers last, as nvcc finds them without an -I (see toolkit_includes).
        // The names nvcc's implicit host headers give a source are pre-included (host_headers).
        let opts: Vec<CString> = job
            .options
            .iter()
            .cloned()
            .chain([format!("--pre-include={}", host_headers::PRELUDE_NAME)])
            .chain(self.includes.iter().map(|d| format!("-I{}", d.display())))
            .map(|o| nul(&o))
            .collect::<Result<_, _>>()?;
        let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let mut prog = std::ptr::null_mut();
        // Host C headers that kernels written for nvcc include (Kernel Tuner's examples open with
        // `#include <stdio.h>`, others with <math.h> or <stdint.h>) do not exist under NVRTC: they are
        // given by name (host_headers). Local headers are read through -I.
        let (names, texts): (Vec<CString>, Vec<CString>) = host_headers::all()
            .map(|(n, t)| Ok((nul(n)?, nul(t)?)))
            .collect::<Result<Vec<_>, CompileError>>()?
            .into_iter()
            .unzip();
        let contents: Vec<*const c_char> = texts.iter().map(|t| t.as_ptr()).collect();
        let name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        // SAFETY: valid NUL-terminated strings, one content per include name, outliving the call.
        let rc = unsafe {
            (self.create)(
                &mut prog,
                src.as_ptr(),
                name.as_ptr(),
                names.len() as c_int,
                contents.as_ptr(),
                name_ptrs.as_ptr(),
            )
        };
        if rc != 0 {
            return Err(self.err("nvrtcCreateProgram", rc));
        }
        let prog = Program(self, prog);
        for n in &job.instantiate {
            let expr = nul(n)?;
            // SAFETY: a live program and a NUL-terminated expression (NVRTC copies it).
            let rc = unsafe { (self.add_name)(prog.1, expr.as_ptr()) };
            if rc != 0 {
                return Err(self.err(&format!("nvrtcAddNameExpression({n})"), rc));
            }
        }
        // SAFETY: ptrs holds opts.len() valid strings that outlive the call.
        let rc = unsafe { (self.compile)(prog.1, ptrs.len() as c_int, ptrs.as_ptr()) };
        let log = self.read(prog.1, self.log_size, self.log);
        if rc != 0 {
            let summary = log.lines().find(|l| l.contains("error")).unwrap_or("compilation failed").trim().to_string();
            return Err(CompileError { summary, log });
        }
        let mut ptx = self.read(prog.1, self.ptx_size, self.ptx);
        // Which entry each instantiation became, as NVRTC mangled it: a kernel file's expression
        // (`k<float, 64 / 2>`) need not read like its demangled name (`k<float, (unsigned long)32>`).
        let mut lowered = String::new();
        for n in &job.instantiate {
            let expr = nul(n)?;
            let mut name: *const c_char = std::ptr::null();
            // SAFETY: a compiled program, an expression added before the compile; NVRTC owns the
            // returned string until the program is destroyed (below, after it is copied).
            let rc = unsafe { (self.lowered_name)(prog.1, expr.as_ptr(), &mut name) };
            if rc == 0 && !name.is_null() {
                // SAFETY: NUL-terminated, valid while the program lives.
                let mangled = unsafe { CStr::from_ptr(name) }.to_string_lossy();
                lowered.push_str(&format!("{}{n} = {mangled}\n", source::LOWERED));
            }
        }
        if ptx.is_empty() {
            return Err(CompileError { summary: "NVRTC produced no PTX".into(), log });
        }
        ptx.insert_str(0, &lowered);
        Ok(ptx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts its compiles; fails on a source containing `#error`.
    struct Fake(AtomicUsize);

    impl Compiler for Fake {
        fn version(&self) -> String {
            "fake 1.0".into()
        }
        fn compile(&self, job: &Job<'_>) -> Result<String, CompileError> {
            self.0.fetch_add(1, Ordering::SeqCst);
            if job.source.main().contains("#error") {
                return Err(CompileError {
                    summary: "k.cu(2): error: boom".into(),
                    log: "k.cu(2): error: boom\n1 error".into(),
                });
            }
            Ok(format!(
                ".version 9.0\n// {}\n.visible .entry k(\n.param .u64 k_param_0\n)\n{{\n}}\n",
                job.options.join(" ")
            ))
        }
    }

    fn kernel_file(dir: &Path, cu: &str) -> KernelFile {
        std::fs::write(dir.join("k.cu"), cu).unwrap();
        std::fs::write(dir.join("k.h"), "#define HALF 2\n").unwrap();
        let toml = "source = \"k.cu\"\nentry = \"k\"\ngrid = [\"n / block_size_x\"]\n[sizes]\nn = 1024\n[tune_params]\ntile = [1, 2, 4]\n[[args]]\nname = \"a\"\ntype = \"f32\"\nlen = \"n\"\noutput = true\n";
        std::fs::write(dir.join("k.toml"), toml).unwrap();
        KernelFile::load(&dir.join("k.toml"), &[]).unwrap()
    }

    const CU: &str = "#include \"k.h\"\n__global__ void k(float *a) { a[0] = tile * HALF; }\n";

    #[test]
    fn a_failed_compile_of_a_source_with_host_launches_says_so() {
        let src = |t: &str| CudaSource { files: vec![(PathBuf::from("dir/app.cu"), t.to_string())] };
        let app =
            "__global__ void k(float *a) {}\n// k<<<1, 1>>>(a) in a comment\nint main() {\n  k<<<1, 32>>>(0);\n}\n";
        let hint = host_code_hint(&src(app));
        assert!(hint.contains("<<<...>>> at app.cu:4: if that is host code, NVRTC does not compile it"), "{hint}");
        assert_eq!(host_code_hint(&src("__global__ void k(float *a) { a[0] = 1 << 3; }\n")), "");
    }

    #[test]
    fn the_toolkits_headers_are_found_beside_its_libnvrtc() {
        let dir = tempfile::tempdir().unwrap();
        let mk = |p: &str| std::fs::create_dir_all(dir.path().join(p)).unwrap();
        // A toolkit: lib64 and targets/<arch>/lib, include with cccl.
        for p in
            ["cuda/lib64", "cuda/include/cccl", "cuda/targets/x86_64-linux/lib", "cuda/targets/x86_64-linux/include"]
        {
            mk(p);
        }
        let root = dir.path().join("cuda");
        assert_eq!(
            toolkit_includes(&root.join("lib64/libnvrtc.so")),
            vec![root.join("include"), root.join("include/cccl")]
        );
        assert_eq!(
            toolkit_includes(&root.join("targets/x86_64-linux/lib/libnvrtc.so.13")),
            vec![root.join("targets/x86_64-linux/include"), root.join("include"), root.join("include/cccl")]
        );
        // pip wheels: every nvidia/*/include.
        for p in [
            "site/nvidia/cuda_nvrtc/lib",
            "site/nvidia/cuda_nvrtc/include",
            "site/nvidia/cuda_runtime/include",
            "site/nvidia/cublas/lib",
        ] {
            mk(p);
        }
        let nv = dir.path().join("site/nvidia");
        assert_eq!(
            toolkit_includes(&nv.join("cuda_nvrtc/lib/libnvrtc.so.13")),
            vec![nv.join("cuda_nvrtc/include"), nv.join("cuda_runtime/include")]
        );
        // Nothing that does not exist, nor for a library without a folder.
        assert!(toolkit_includes(&dir.path().join("none/lib/libnvrtc.so")).is_empty());
        assert!(toolkit_includes(Path::new("libnvrtc.so")).is_empty());
        // A library opened by its bare name is found where this process mapped it.
        let libc = loaded_path(Path::new("libc.so.6"));
        assert!(libc.is_absolute() && libc.exists(), "{}", libc.display());
        assert_eq!(loaded_path(Path::new("/x/lib64/libnvrtc.so")), PathBuf::from("/x/lib64/libnvrtc.so"));
    }

    /// Gives back the text it was handed as the PTX's comment.
    struct Echo;

    impl Compiler for Echo {
        fn version(&self) -> String {
            "echo 1.0".into()
        }
        fn compile(&self, job: &Job<'_>) -> Result<String, CompileError> {
            Ok(format!("{}\n{}", job.source.main(), job.options.join(" ")))
        }
    }

    #[test]
    fn kernel_tuners_loop_unroll_factors_reach_the_pragma() {
        let dir = tempfile::tempdir().unwrap();
        let cu = "__global__ void k(float *a) {\n  #pragma unroll loop_unroll_factor_0\n  for (int i = 0; i < 8; i++) a[i] = i * tile;\n}\n";
        std::fs::write(dir.path().join("k.cu"), cu).unwrap();
        let toml = "source = \"k.cu\"\nentry = \"k\"\ngrid = [\"1\"]\n[tune_params]\ntile = [1]\nloop_unroll_factor_0 = [0, 4]\n[[args]]\nname = \"a\"\ntype = \"f32\"\nlen = \"8\"\noutput = true\n";
        std::fs::write(dir.path().join("k.toml"), toml).unwrap();
        let k = KernelFile::load(&dir.path().join("k.toml"), &[]).unwrap();
        let ex = k.expand(Some(&[crate::spec::Dim3::new(32, 1, 1)]), &[], crate::error::Input::name).unwrap();
        assert_eq!(ex.modules.len(), 2);
        assert_eq!(ex.modules[1].unroll, vec![("loop_unroll_factor_0".to_string(), 4)]);
        assert!(ex.modules.iter().all(|m| m.defines.iter().all(|(n, _)| n != "loop_unroll_factor_0")));
        let cache = Cache::at(&dir.path().join("cache"));
        let built = build(&k, &ex.modules, &Target { cc: (9, 0), driver: "13.0".into() }, Some(&Echo), &cache);
        let text = |i: usize| match &built[i].as_ref().unwrap().code {
            Code::Ptx(t) => t.clone(),
            Code::Binary(_) => panic!("PTX expected"),
        };
        assert!(!text(0).contains("#pragma unroll") && !text(0).contains("constexpr"), "0: no pragma: {}", text(0));
        assert!(text(1).starts_with("constexpr int loop_unroll_factor_0 = 4;\n#line 1\n"), "{}", text(1));
        assert!(text(1).contains("#pragma unroll loop_unroll_factor_0") && !text(1).contains("-Dloop_unroll"));
        assert!(text(0).contains("-Dtile=1"), "other parameters stay defines");
    }

    #[test]
    fn only_the_modules_valid_configurations_use_are_built() {
        let dir = tempfile::tempdir().unwrap();
        let k = kernel_file(dir.path(), CU);
        let mut ex = k.expand(Some(&[crate::spec::Dim3::new(128, 1, 1)]), &[], crate::error::Input::name).unwrap();
        assert_eq!((ex.configs.len(), ex.modules.len()), (3, 3), "one configuration and module per tile value");
        // tile = 2's only configuration is a row with its reason: its module is not compiled.
        ex.configs[1].invalid = Some("too many threads".into());
        let fake = Fake(AtomicUsize::new(0));
        let target = Target { cc: (9, 0), driver: "13.0".into() };
        let built = build_used(&k, &ex.modules, &ex.configs, &target, Some(&fake), &Cache::none());
        assert_eq!(fake.0.load(Ordering::SeqCst), 2);
        assert_eq!(built.len(), 3);
        assert!(built[0].is_ok() && built[2].is_ok());
        assert!(not_built(&built[1]), "{:?}", built[1]);
        let Code::Ptx(ptx) = &built[2].as_ref().unwrap().code else { panic!("PTX expected") };
        assert!(ptx.contains("-Dtile=4"), "the results stay in module order: {ptx}");
        // A subset of the configurations (a shard): only theirs.
        let fake = Fake(AtomicUsize::new(0));
        let built = build_used(&k, &ex.modules, &ex.configs[2..], &target, Some(&fake), &Cache::none());
        assert_eq!(fake.0.load(Ordering::SeqCst), 1);
        assert!(built[0].is_err() && built[1].is_err() && built[2].is_ok());
    }

    #[test]
    fn modules_are_compiled_once_then_come_from_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let k = kernel_file(dir.path(), CU);
        let ex = k
            .expand(
                Some(&[crate::spec::Dim3::new(128, 1, 1), crate::spec::Dim3::new(256, 1, 1)]),
                &[],
                crate::error::Input::name,
            )
            .unwrap();
        assert_eq!(ex.configs.len(), 6);
        assert_eq!(ex.modules.len(), 3, "block_size_x is not in the source: one module per tile value");
        let cache = Cache::at(&dir.path().join("cache"));
        let fake = Fake(AtomicUsize::new(0));
        let target = Target { cc: (9, 0), driver: "13.0".into() };
        let first = build(&k, &ex.modules, &target, Some(&fake), &cache);
        assert!(first.iter().all(|b| b.as_ref().is_ok_and(|b| !b.cached)));
        assert_eq!(fake.0.load(Ordering::SeqCst), 3);
        let Code::Ptx(ptx) = &first[1].as_ref().unwrap().code else { panic!("PTX expected") };
        assert!(ptx.contains("-arch=compute_90") && ptx.contains("-Dtile=2") && ptx.contains("-lineinfo"), "{ptx}");
        let second = build(&k, &ex.modules, &target, Some(&fake), &cache);
        assert!(second.iter().all(|b| b.as_ref().is_ok_and(|b| b.cached)));
        assert_eq!(fake.0.load(Ordering::SeqCst), 3, "no compile the second time");
        assert_eq!(first[1].as_ref().unwrap().code, second[1].as_ref().unwrap().code);
        // Another driver, arch or compiler: compiled again.
        build(&k, &ex.modules[..1], &Target { cc: (9, 0), driver: "13.1".into() }, Some(&fake), &cache);
        build(&k, &ex.modules[..1], &Target { cc: (8, 0), driver: "13.0".into() }, Some(&fake), &cache);
        assert_eq!(fake.0.load(Ordering::SeqCst), 5);
    }

    #[test]
    fn the_key_covers_the_source_its_headers_and_the_options() {
        let dir = tempfile::tempdir().unwrap();
        let k = kernel_file(dir.path(), CU);
        let Image::Cuda(src) = &k.sources[0].image else { panic!("a .cu source") };
        assert_eq!(src.files.len(), 2, "k.h is read with k.cu");
        let job = |s: &CudaSource, o: &[&str]| {
            Cache::key(
                &Job { source: s, options: o.iter().map(|x| x.to_string()).collect(), instantiate: Vec::new() },
                "NVRTC 13.0",
                "13.0",
            )
        };
        let base = job(src, &["-Dtile=1"]);
        assert_eq!(base, job(src, &["-Dtile=1"]), "stable");
        assert_eq!(base.len(), 64);
        assert_ne!(base, job(src, &["-Dtile=2"]));
        let mut edited = src.clone();
        edited.files[1].1.push_str("// a changed header\n");
        assert_ne!(base, job(&edited, &["-Dtile=1"]), "a header edit recompiles");
        assert_ne!(
            base,
            Cache::key(
                &Job { source: src, options: vec!["-Dtile=1".into()], instantiate: Vec::new() },
                "NVRTC 13.1",
                "13.0"
            )
        );
    }

    #[test]
    fn a_failed_compile_carries_the_log_and_no_nvrtc_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let k = kernel_file(dir.path(), "#error boom\n__global__ void k(float *a) { a[0] = tile; }\n");
        let ex = k.expand(Some(&[crate::spec::Dim3::new(128, 1, 1)]), &[], crate::error::Input::name).unwrap();
        let fake = Fake(AtomicUsize::new(0));
        let target = Target { cc: (7, 5), driver: "none".into() };
        let r = build(&k, &ex.modules, &target, Some(&fake), &Cache::none());
        let e = r[0].as_ref().unwrap_err();
        assert!(e.summary.contains("NVRTC failed (-Dtile=1): k.cu(2): error: boom"), "{}", e.summary);
        assert!(e.log.contains("1 error"));
        let r = build(&k, &ex.modules, &target, None, &Cache::none());
        assert!(r[0].as_ref().unwrap_err().summary.contains("needs NVRTC"));
    }

    #[test]
    fn the_user_cache_follows_xdg() {
        // Only reads the environment; nothing is written.
        let c = Cache::user();
        if std::env::var_os("WARPSCOPE_CACHE_DIR").is_none()
            && std::env::var_os("XDG_CACHE_HOME").is_none()
            && let Some(home) = std::env::var_os("HOME")
        {
            assert_eq!(c.dir(), Some(PathBuf::from(home).join(".cache/warpscope/nvrtc").as_path()));
        }
    }

    /// The real NVRTC, when this machine has one (`pip install nvidia-cuda-nvrtc`, or WARPSCOPE_NVRTC).
    #[test]
    fn real_nvrtc_when_present() {
        let Ok(nvrtc) = Nvrtc::load() else {
            eprintln!("no libnvrtc here: the real compile path is checked where NVRTC is installed");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let target = Target { cc: (7, 5), driver: "none".into() };
        // The first module of a kernel file of source `cu`, at blocks of 128.
        let first = |cu: &str| {
            let k = kernel_file(dir.path(), cu);
            let ex = k.expand(Some(&[crate::spec::Dim3::new(128, 1, 1)]), &[], crate::error::Input::name).unwrap();
            (build(&k, &ex.modules, &target, Some(&nvrtc), &Cache::none()).remove(0), k)
        };
        let (built, k) = first(CU);
        let Ok(Built { code: Code::Ptx(ptx), .. }) = &built else { panic!("{built:?}") };
        assert!(ptx.contains(".target sm_75"), "{ptx}");
        // C++ linkage: the entry is mangled and still found, its parameter list checked.
        k.check_ptx(ptx, "k", k.entry_at).unwrap();
        let (r, _) = first("__global__ void k(float *a) { a[0] = tile + ; }\n");
        let e = r.as_ref().unwrap_err();
        assert!(e.log.contains("error"), "{e:?}");
        // A source written for nvcc: host headers NVRTC lacks, and names nvcc's own includes give.
        let nvcc = "#include <stdio.h>\n#include <math.h>\n#include <assert.h>\n#include <stdint.h>\n\
                    #include <cfloat>\n#include <climits>\n\
                    __global__ void k(float *a) { uint u = 1; uint8_t b = 2; int64_t w = 3; assert(u == 1);\n\
                    a[0] = M_PI * tile + u + b + w + FLT_MAX + INT_MAX + UINT32_MAX + (a[1] == INFINITY); }\n";
        let (r, _) = first(nvcc);
        assert!(r.is_ok(), "{r:?}");
        // With CCCL's declarations under NVRTC (<cuda/std/cstdint>, which cooperative_groups includes)
        // beside ours: the same types, so no redeclaration error.
        let cccl = "using int8_t = signed char; using int16_t = signed short; using int32_t = signed int;\n\
                    using int64_t = signed long long; using uint8_t = unsigned char;\n\
                    using uint16_t = unsigned short; using uint32_t = unsigned int;\n\
                    using uint64_t = unsigned long long; using intptr_t = signed long long;\n\
                    using intmax_t = signed long long; using uintmax_t = unsigned long long;\n";
        let (r, _) = first(&format!("{cccl}{nvcc}"));
        assert!(r.is_ok(), "{r:?}");
    }
}
