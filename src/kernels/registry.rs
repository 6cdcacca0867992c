//! The built-in kernels as data: one [`Entry`] per kernel (its names, what it computes, the problem
//! parameters it takes with their defaults, its selftest problem, and how to build it), from which
//! `warpscope kernels`, [`lookup`], the problem options' checks and `selftest` are all derived.

use super::{Kernel, blur, frames, patterns, peak, sum_matrix, sum_matrix_mix, transpose};
use crate::error::{Error, Result};

/// Every built-in kernel, family by family in the order `warpscope kernels` lists them: a new kernel
/// file adds its `ENTRIES` here.
static FAMILIES: &[&[Entry]] = &[
    sum_matrix::ENTRIES,
    frames::ENTRIES,
    transpose::ENTRIES,
    blur::ENTRIES,
    peak::ENTRIES,
    patterns::ENTRIES,
    sum_matrix_mix::ENTRIES,
];

/// A problem parameter a kernel may take (each is a command-line option of `sweep`, `run` and
/// `estimate`, and a key of run-spec steps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// Elements (or pixels) along x: `--nx`.
    Nx,
    /// Elements (or pixels) along y: `--ny`.
    Ny,
    /// Frames per launch: `--frames`.
    Frames,
    /// The kernel's own count (`mad`: multiply-adds per element): `--n`.
    N,
    /// Gaussian sigma: `--sigma`.
    Sigma,
}

impl Param {
    /// Every parameter, in the order options are listed.
    pub const ALL: [Param; 5] = [Param::Nx, Param::Ny, Param::Frames, Param::N, Param::Sigma];

    /// The parameter's name (the option without its dashes).
    pub fn name(self) -> &'static str {
        match self {
            Param::Nx => "nx",
            Param::Ny => "ny",
            Param::Frames => "frames",
            Param::N => "n",
            Param::Sigma => "sigma",
        }
    }

    /// Its value in a request, if the request sets it.
    fn of(self, p: &Problem) -> Option<f64> {
        match self {
            Param::Nx => p.nx.map(f64::from),
            Param::Ny => p.ny.map(f64::from),
            Param::Frames => p.frames.map(f64::from),
            Param::N => p.n.map(f64::from),
            Param::Sigma => p.sigma.map(f64::from),
        }
    }

    /// Sets it in a request.
    fn set(self, p: &mut Problem, v: f64) {
        match self {
            Param::Nx => p.nx = Some(v as u32),
            Param::Ny => p.ny = Some(v as u32),
            Param::Frames => p.frames = Some(v as u32),
            Param::N => p.n = Some(v as u32),
            Param::Sigma => p.sigma = Some(v as f32),
        }
    }
}

/// Problem-size options as requested; `None` takes the kernel's default.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Problem {
    /// Elements (or pixels) along x.
    pub nx: Option<u32>,
    /// Elements (or pixels) along y.
    pub ny: Option<u32>,
    /// Frames per launch (image kernels).
    pub frames: Option<u32>,
    /// The kernel's own parameter (`mad`: multiply-adds per element).
    pub n: Option<u32>,
    /// Gaussian sigma (blur kernels).
    pub sigma: Option<f32>,
}

impl Problem {
    /// A problem of `nx` x `ny` with the default frame count.
    pub fn sized(nx: u32, ny: u32) -> Self {
        Problem { nx: Some(nx), ny: Some(ny), frames: None, n: None, sigma: None }
    }

    /// The request less the parameters `e` does not take.
    pub fn restricted(mut self, e: &Entry) -> Self {
        for q in Param::ALL.into_iter().filter(|q| !e.takes(*q)) {
            match q {
                Param::Nx => self.nx = None,
                Param::Ny => self.ny = None,
                Param::Frames => self.frames = None,
                Param::N => self.n = None,
                Param::Sigma => self.sigma = None,
            }
        }
        self
    }

    /// A request setting exactly `values`.
    pub fn of(values: &[(Param, f64)]) -> Self {
        let mut p = Problem::default();
        for &(param, v) in values {
            param.set(&mut p, v);
        }
        p
    }
}

/// The values an [`Entry`]'s builder gets: each parameter the entry declares, requested or its default.
#[derive(Clone, Debug, PartialEq)]
pub struct Sizes(Vec<(Param, f64)>);

impl Sizes {
    /// A declared parameter's value; asking for one the entry does not declare is a bug of the entry.
    pub fn get(&self, p: Param) -> Result<f64> {
        self.0.iter().find(|(q, _)| *q == p).map(|&(_, v)| v).ok_or_else(|| {
            Error::internal(format!("a kernel's builder read '{}', which it does not declare", p.name()))
        })
    }

    /// [`Sizes::get`] of an integer parameter.
    pub fn u32(&self, p: Param) -> Result<u32> {
        self.get(p).map(|v| v as u32)
    }

    /// [`Sizes::get`] of a real parameter.
    pub fn f32(&self, p: Param) -> Result<f32> {
        self.get(p).map(|v| v as f32)
    }
}

/// One built-in kernel.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Command-line name (`sum-matrix`).
    pub name: &'static str,
    /// PTX entry, also the name profilers print (`sumMatrixOnGPU2D`).
    pub entry: &'static str,
    /// What it computes (defaults are not repeated here: they are [`Entry::params`]).
    pub about: &'static str,
    /// The problem parameters it takes, with their defaults; any other is refused.
    pub params: &'static [(Param, f64)],
    /// A small, odd-sized problem for `selftest` (bounds checks and partial blocks exercised).
    pub selftest: &'static [(Param, f64)],
    /// Block shapes `selftest` runs it with.
    pub selftest_blocks: &'static str,
    /// The kernel bound to the parameters' values.
    pub build: fn(&Sizes) -> Result<Box<dyn Kernel>>,
}

impl Entry {
    /// Whether it takes `p`.
    pub fn takes(&self, p: Param) -> bool {
        self.params.iter().any(|(q, _)| *q == p)
    }

    /// The kernel bound to `p`: a parameter the kernel does not take is a usage error, one it takes
    /// and `p` leaves out is its default.
    pub fn bind(&self, p: &Problem) -> Result<Box<dyn Kernel>> {
        if let Some(extra) = Param::ALL.into_iter().find(|q| q.of(p).is_some() && !self.takes(*q)) {
            let users: Vec<&str> = all().filter(|e| e.takes(extra)).map(|e| e.name).collect();
            return Err(Error::usage(format!("--{} applies to {}, not {}", extra.name(), users.join(", "), self.name)));
        }
        let sizes = Sizes(self.params.iter().map(|&(q, default)| (q, q.of(p).unwrap_or(default))).collect());
        (self.build)(&sizes)
    }

    /// The kernel at its selftest problem.
    pub fn selftest_kernel(&self) -> Result<Box<dyn Kernel>> {
        self.bind(&Problem::of(self.selftest))
    }

    /// Its parameters and defaults in words: `nx 16384, ny 16384`.
    pub fn defaults(&self) -> String {
        let words: Vec<String> = self.params.iter().map(|(p, v)| format!("{} {v}", p.name())).collect();
        words.join(", ")
    }
}

/// Every built-in kernel, in listing order.
pub fn all() -> impl Iterator<Item = &'static Entry> {
    FAMILIES.iter().flat_map(|f| f.iter())
}

/// The kernel names.
pub fn names() -> Vec<&'static str> {
    all().map(|k| k.name).collect()
}

/// The entry called `name` (its command-line name or its PTX entry).
pub fn find(name: &str) -> Result<&'static Entry> {
    all()
        .find(|k| k.name == name)
        .or_else(|| all().find(|k| k.entry == name))
        .ok_or_else(|| Error::usage(format!("unknown kernel '{name}' (known: {})", names().join(", "))))
}

/// The kernel called `name` (or its entry name), bound to `problem`.
pub fn lookup(name: &str, problem: Problem) -> Result<Box<dyn Kernel>> {
    find(name)?.bind(&problem)
}

/// The kernel a record was measured with, from its entry and problem as [`Kernel::problem`] printed
/// them (`sumMatrixOnGPU2D`, `16384x16384`; `rgbToGray`, `480x270 x 64 frames`; `blurRows`,
/// `4096x4096, sigma 5`; `mad24`, `8192x8192, 24 MADs per element`; `divergeWarp`, `67108864
/// elements`): what `model-check` needs to predict a measured configuration again.
pub fn from_record(entry: &str, problem: &str) -> Result<Box<dyn Kernel>> {
    let bad = || Error::usage(format!("cannot tell the problem of {entry} from '{problem}'"));
    let kernel = match all().find(|k| k.entry == entry) {
        Some(k) => k,
        None if entry.starts_with("mad") && entry[3..].parse::<u32>().is_ok() => find("mad")?,
        None => return Err(find(entry).err().unwrap_or_else(bad)),
    };
    let words: Vec<&str> = problem.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let before = |word: &str| {
        words.iter().position(|w| *w == word).and_then(|i| i.checked_sub(1)).and_then(|i| words[i].parse::<u32>().ok())
    };
    let mut p = Problem::default();
    if let Some((x, y)) = words.first().and_then(|w| w.split_once('x')) {
        p.nx = Some(x.parse().map_err(|_| bad())?);
        p.ny = Some(y.parse().map_err(|_| bad())?);
    }
    p.frames = before("frames");
    p.n = before("MADs");
    p.sigma = words.iter().position(|w| *w == "sigma").and_then(|i| words.get(i + 1)).and_then(|w| w.parse().ok());
    if let Some(n) = before("elements").or_else(|| before("structs")) {
        (p.nx, p.ny) = (Some(n), Some(1));
    }
    // What the problem's words say that the kernel does not take (a square matrix's second side).
    let k = kernel.bind(&p.restricted(kernel))?;
    if k.problem() != problem || k.entry() != entry {
        return Err(bad());
    }
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_kernel_is_a_usage_error() {
        let e = lookup("nope", Problem::default()).err().unwrap();
        assert!(matches!(e, Error::Usage(_)));
        assert!(e.to_string().contains("unknown kernel 'nope'"));
        for name in names() {
            let k = lookup(name, Problem::sized(64, 64).restricted(find(name).unwrap())).unwrap();
            assert_eq!(k.name(), name);
            let Module::Embedded(module) = k.module() else { panic!("{name}: a built-in kernel's PTX is embedded") };
            assert!(crate::ptx::module(module).unwrap().contains(&format!(".entry {}(", k.entry())));
        }
        assert_eq!(lookup("sumMatrixOnGPU2D", Problem::default()).unwrap().name(), "sum-matrix");
    }

    #[test]
    fn names_are_unique_and_entries_declare_what_they_read() {
        let mut seen = std::collections::HashSet::new();
        for e in all() {
            assert!(seen.insert(e.name), "{} twice", e.name);
            // The builder reads only declared parameters (an undeclared read is an internal error),
            // and the selftest problem sets only declared ones.
            assert!(e.selftest.iter().all(|(p, _)| e.takes(*p)), "{}", e.name);
            let k = e.selftest_kernel().unwrap_or_else(|err| panic!("{}: {err}", e.name));
            assert_eq!((k.name(), k.entry()), (e.name, e.entry));
        }
    }

    #[test]
    fn options_a_kernel_does_not_take_are_refused() {
        let e = lookup("sum-matrix", Problem { frames: Some(3), ..Default::default() }).err().unwrap();
        assert_eq!(e.to_string(), "--frames applies to rgb-to-gray, resize, gaussian-smooth, not sum-matrix");
        let e = lookup("copy", Problem { sigma: Some(2.0), ..Default::default() }).err().unwrap();
        assert!(e.to_string().starts_with("--sigma applies to blur-direct, "), "{e}");
        assert!(lookup("mad", Problem { n: Some(6), ..Default::default() }).is_ok());
    }

    #[test]
    fn defaults_come_from_the_entry() {
        assert_eq!(lookup("sum-matrix", Problem::default()).unwrap().problem(), "16384x16384");
        assert_eq!(lookup("rgb-to-gray", Problem::default()).unwrap().problem(), "480x270 x 64 frames");
        assert_eq!(lookup("blur-rows", Problem::default()).unwrap().problem(), "4096x4096, sigma 5");
        assert_eq!(find("sum-matrix").unwrap().defaults(), "nx 16384, ny 16384");
    }

    #[test]
    fn kernels_come_back_from_their_records() {
        for info in all() {
            let k = info.selftest_kernel().unwrap();
            let back = from_record(k.entry(), &k.problem()).unwrap();
            assert_eq!((back.entry(), back.problem()), (k.entry(), k.problem()), "{}", info.name);
        }
        let mad = lookup("mad", Problem { n: Some(6), ..Problem::sized(64, 32) }).unwrap();
        assert_eq!(from_record("mad6", &mad.problem()).unwrap().problem(), "64x32, 6 MADs per element");
        assert!(from_record("sumMatrixOnGPU2D", "a few").is_err());
        assert!(from_record("nope", "16x16").is_err());
    }

    use super::super::Module;
}
