//! Loading a kernel file: TOML into checked values, every mistake a one-line error that names the file,
//! line and column (`conv.toml:14:22: unknown name 'tile_x' in grid_div_x ...`). What can be checked
//! without a GPU and without compiling is checked here: names in expressions, types, sizes that do not
//! evaluate, a parameter the source never mentions, the entry and its parameters against PTX (for
//! `.ptx` files) or against the source text (for `.cu`, until NVRTC has compiled it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use toml::Spanned;

use super::data::{ElemType, Init, Num};
use super::expr::{Expr, RESERVED, Value};
use super::prepro::{self, FixedDefine};
use super::raw::{OneOrMany, RawArg, RawFile, RawInit, RawReference, Scalar};
use super::source::{self, CudaSource};
use crate::error::{Error, Result};
use crate::spec::Dim3;

/// Where a value sits in the kernel file: a byte offset.
pub type Offset = usize;

/// The default names of the block-shape defines (Kernel Tuner's).
pub const BLOCK_NAMES: [&str; 3] = ["block_size_x", "block_size_y", "block_size_z"];
/// The grid-shape defines (Kernel Tuner's), known once the grid is computed.
pub const GRID_NAMES: [&str; 3] = ["grid_size_x", "grid_size_y", "grid_size_z"];
/// Defined as 1 for sources that mention it, as Kernel Tuner defines it for every kernel it compiles
/// (sources test `#ifdef kernel_tuner` to leave their stand-alone defaults out).
pub const KERNEL_TUNER: &str = "kernel_tuner";

/// Kernel Tuner's default tolerance: `numpy.allclose(answer, result, atol=1e-6)` (rtol 1e-5).
pub const DEFAULT_RTOL: f64 = 1e-5;
/// See [`DEFAULT_RTOL`].
pub const DEFAULT_ATOL: f64 = 1e-6;

/// A kernel's code as warpscope hands it to the driver.
#[derive(Clone, Debug, PartialEq)]
pub enum Image {
    /// CUDA C++ for NVRTC, with the local headers it includes.
    Cuda(CudaSource),
    /// PTX text.
    Ptx(String),
    /// A cubin (ELF for one architecture).
    Cubin(Vec<u8>),
    /// A fatbinary.
    Fatbin(Vec<u8>),
}

impl Image {
    /// `cu`, `ptx`, `cubin`, `fatbin`.
    pub fn kind(&self) -> &'static str {
        match self {
            Image::Cuda(_) => "cu",
            Image::Ptx(_) => "ptx",
            Image::Cubin(_) => "cubin",
            Image::Fatbin(_) => "fatbin",
        }
    }
}

/// A source file of the kernel file (the kernel's, or a reference kernel's other file).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceFile {
    /// The file.
    pub path: PathBuf,
    /// Its contents.
    pub image: Image,
    /// The identifiers a `.cu` source (and its local headers) uses, found once: every configuration asks
    /// which parameters and block names it mentions. Empty for compiled code.
    pub ids: std::collections::BTreeSet<String>,
}

/// An expression of the kernel file, with where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct LExpr {
    /// The parsed expression.
    pub expr: Expr,
    /// Offset of the value in the file (its opening quote for a string).
    pub at: Offset,
    /// Offset of the expression's first character when the string has no escapes (columns inside it
    /// are then exact).
    base: Option<Offset>,
    /// What it is, for messages (`grid_div_x`, `len of A`).
    pub what: String,
}

impl LExpr {
    /// The file offset of a byte offset inside the expression.
    pub fn offset(&self, inner: usize) -> Offset {
        self.base.map_or(self.at, |b| b + inner)
    }
}

/// A named value of the file (a size).
#[derive(Clone, Debug, PartialEq)]
pub struct Named {
    /// Name.
    pub name: String,
    /// Value.
    pub value: Value,
    /// Where it is declared.
    pub at: Offset,
}

/// A compile-time parameter and the values it takes.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Name (the `#define`).
    pub name: String,
    /// Its values, in order.
    pub values: Vec<Value>,
    /// Where it is declared.
    pub at: Offset,
}

/// How the grid follows from the block.
#[derive(Clone, Debug, PartialEq)]
pub enum GridRule {
    /// Kernel Tuner's rule: per axis `ceil(problem_size / product(divisors))`; a missing axis is 1.
    Divided {
        /// `problem_size`, one expression per axis (1 to 3).
        sizes: Vec<LExpr>,
        /// `grid_div_x/y/z`: the divisors of each axis.
        divisors: [Vec<LExpr>; 3],
    },
    /// `grid = ["expr_x", "expr_y", "expr_z"]`: each axis as an expression (missing axes are 1).
    Explicit(Vec<LExpr>),
}

/// Whether a buffer is read, written and checked, or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Filled once per problem from its `init`.
    Input,
    /// Poisoned before each verified launch, copied back and verified.
    Output,
    /// An output with initial contents (`output = true` with `init`): restored before each verified
    /// launch, then copied back and verified.
    InOut,
}

/// What an argument is.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgKind {
    /// A device pointer to `len` elements.
    Buffer {
        /// Elements, an expression.
        len: LExpr,
        /// Input, output or both.
        role: Role,
        /// How inputs are filled (`None` for pure outputs).
        init: Option<Init>,
    },
    /// A value passed by value.
    Scalar {
        /// Its value, an expression.
        value: LExpr,
    },
}

/// One kernel argument, in parameter order.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgSpec {
    /// The name (as in the kernel's signature, for messages and reports).
    pub name: String,
    /// Element type (of the buffer, or of the scalar); a vector type's scalar.
    pub ty: ElemType,
    /// Whether an output is compared (`verify = false` leaves one unchecked); true for the others.
    pub check: bool,
    /// Scalars per element: 1, or a vector type's lanes (`float4`: 4). A buffer's `len` counts
    /// elements, so it holds `len x lanes` scalars of `ty`.
    pub lanes: u32,
    /// Buffer or scalar.
    pub kind: ArgKind,
    /// Where the argument is declared.
    pub at: Offset,
    /// Where its type is.
    pub ty_at: Offset,
}

impl ArgSpec {
    /// The type as the kernel declares it: `f32`, or a vector's CUDA name (`float4`).
    pub fn type_name(&self) -> String {
        self.ty.vector_name(self.lanes)
    }
}

/// A reference kernel: the expected outputs come from it, run once with the same arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceSpec {
    /// Index into [`KernelFile::sources`].
    pub source: usize,
    /// Its entry.
    pub entry: String,
    /// Where the entry is named.
    pub entry_at: Offset,
    /// The block it runs with (its grid follows the file's grid rule).
    pub block: Dim3,
    /// Compile-time parameter values for it (the others take their first value).
    pub params: Vec<(String, Value)>,
}

/// Where expected outputs come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Expected {
    /// A reference kernel.
    Reference(ReferenceSpec),
    /// `.npy` files, one per output (argument index, file).
    Npy(Vec<(usize, PathBuf)>),
    /// The first valid configuration of the sweep: every other must agree with it.
    SameAsFirst,
    /// Each output's sum against an input's (output argument, input argument): partial sums per block,
    /// whose elements depend on the configuration but whose total does not (Kernel Tuner's reduction).
    Sums(Vec<(usize, usize)>),
}

/// `[verify]`: expected outputs and the tolerance, `|got - want| <= atol + rtol * |want|` (integers exact
/// unless a tolerance is given).
#[derive(Clone, Debug, PartialEq)]
pub struct VerifySpec {
    /// Where the expected outputs come from.
    pub expected: Expected,
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// Whether the tolerance was given (integers are compared exactly otherwise).
    pub tolerance_given: bool,
}

/// A checked kernel file.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelFile {
    /// The kernel file.
    pub path: PathBuf,
    text: String,
    /// The kernel's name in reports (`name`, else the entry).
    pub name: String,
    /// The source files: the kernel's first, then a reference kernel's if it has its own.
    pub sources: Vec<Arc<SourceFile>>,
    /// The entry point.
    pub entry: String,
    /// Where the entry is named.
    pub entry_at: Offset,
    /// Problem sizes with their values (defaults, or as overridden).
    pub sizes: Vec<Named>,
    /// Compile-time parameters other than the block shape.
    pub params: Vec<Param>,
    /// `[defines]`: macros set from expressions of the sizes, parameters and block, in every module.
    pub defines: Vec<(String, LExpr)>,
    /// Per source (as [`KernelFile::sources`]), the `#define`s it makes whatever the command line says
    /// (`.cu` sources; empty for the others).
    pub fixed: Vec<Vec<FixedDefine>>,
    /// The names of the block-shape defines.
    pub block_names: [String; 3],
    /// Default block extents per axis, from `tune_params` entries named like the block.
    pub block_axes: [Option<Vec<u32>>; 3],
    /// Boolean expressions every configuration must satisfy.
    pub restrictions: Vec<LExpr>,
    /// The grid rule.
    pub grid: GridRule,
    /// Dynamic shared memory per block, bytes.
    pub shared_memory: Option<LExpr>,
    /// NVRTC options (`.cu` only).
    pub compiler_options: Vec<String>,
    /// The arguments in order.
    pub args: Vec<ArgSpec>,
    /// `__constant__` arrays of the module, filled before the launches (each a buffer of role input).
    pub constants: Vec<ArgSpec>,
    /// How to verify.
    pub verify: VerifySpec,
}

/// Which names an expression may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// Problem sizes only (inits).
    Sizes,
    /// Sizes, parameters and the block (grid, restrictions).
    Config,
    /// All of that and the grid (lengths, scalars, shared memory).
    Launch,
}

/// Line and column (both from 1, columns in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

impl KernelFile {
    /// `file:line:col: message`, as a usage error.
    pub fn error(&self, at: Offset, message: impl std::fmt::Display) -> Error {
        error_at(&self.path, &self.text, at, message)
    }

    /// The error of an expression at its inner offset.
    pub fn expr_error(&self, e: &LExpr, inner: usize, message: impl std::fmt::Display) -> Error {
        self.error(e.offset(inner), format!("{}: {message}", e.what))
    }

    /// Reads and checks a kernel file; `sizes` overrides problem sizes (`n=4096`).
    pub fn load(path: &Path, sizes: &[(String, String)]) -> Result<KernelFile> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::usage(format!("cannot read kernel file {}: {e}", path.display())))?;
        Self::parse(path, text, sizes)
    }

    /// Checks kernel-file text (`path` names it in messages and anchors relative file names).
    pub fn parse(path: &Path, text: String, size_overrides: &[(String, String)]) -> Result<KernelFile> {
        let raw: RawFile = match toml::from_str(&text) {
            Ok(r) => r,
            Err(e) => {
                let at = e.span().map_or(0, |s| s.start);
                let msg = e.message().lines().next().unwrap_or("not a kernel file").to_string();
                return Err(error_at(path, &text, at, msg));
            }
        };
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut k = KernelFile {
            path: path.to_path_buf(),
            text,
            name: String::new(),
            sources: Vec::new(),
            entry: raw.entry.get_ref().clone(),
            entry_at: raw.entry.span().start,
            sizes: Vec::new(),
            params: Vec::new(),
            defines: Vec::new(),
            fixed: Vec::new(),
            block_names: BLOCK_NAMES.map(String::from),
            block_axes: [None, None, None],
            restrictions: Vec::new(),
            grid: GridRule::Explicit(Vec::new()),
            shared_memory: None,
            compiler_options: raw.compiler_options.clone(),
            args: Vec::new(),
            constants: Vec::new(),
            verify: VerifySpec {
                expected: Expected::SameAsFirst,
                rtol: DEFAULT_RTOL,
                atol: DEFAULT_ATOL,
                tolerance_given: false,
            },
        };
        k.name = raw.name.as_ref().map_or_else(|| k.entry.clone(), |n| n.get_ref().clone());
        if k.entry.trim().is_empty() {
            return Err(k.error(k.entry_at, "entry is empty"));
        }
        let main = k.read_source(&dir, &raw.source)?;
        k.sources.push(Arc::new(main));
        k.block_names(&raw)?;
        k.sizes(&raw, size_overrides)?;
        k.tune_params(&raw)?;
        k.grid_rule(&raw)?;
        for (key, value) in &raw.defines.0 {
            let (name, at) = (key.get_ref().clone(), key.span().start);
            k.check_identifier(&name, at)?;
            if k.params.iter().any(|p| p.name == name) || k.block_names.contains(&name) {
                return Err(k.error(at, format!("defines.{name}: already a parameter or a block name")));
            }
            let e = k.expr(value, &format!("defines.{name}"), Scope::Config)?;
            k.defines.push((name, e));
        }
        if let Some(r) = &raw.restrictions {
            k.restrictions = k.expr_list(r, "restrictions", Scope::Config)?;
        }
        if let Some(s) = &raw.shared_memory {
            k.shared_memory = Some(k.expr(s, "shared_memory", Scope::Launch)?);
        }
        if raw.args.is_empty() {
            return Err(k.error(0, "no [[args]]: declare the kernel's arguments in order"));
        }
        for a in &raw.args {
            let arg = k.arg(a, &dir)?;
            if let Some(prev) = k.args.iter().find(|p| p.name == arg.name) {
                let (line, _) = line_col(&k.text, prev.at);
                return Err(k.error(arg.at, format!("argument '{}' is declared twice (also on line {line})", arg.name)));
            }
            k.args.push(arg);
        }
        for c in &raw.constants {
            let constant = k.arg(c, &dir)?;
            if !matches!(constant.kind, ArgKind::Buffer { role: Role::Input, .. }) {
                return Err(k.error(
                    constant.at,
                    format!(
                        "constant '{}': give len and init (a __constant__ array is read, not written or passed)",
                        constant.name
                    ),
                ));
            }
            if let Some(prev) = k.args.iter().chain(&k.constants).find(|p| p.name == constant.name) {
                let (line, _) = line_col(&k.text, prev.at);
                return Err(
                    k.error(constant.at, format!("'{}' is declared twice (also on line {line})", constant.name))
                );
            }
            k.constants.push(constant);
        }
        k.verify(&raw, &dir)?;
        k.check_source()?;
        k.fixed = k.sources.iter().map(|s| k.fixed_in(s)).collect();
        Ok(k)
    }

    fn read_source(&self, dir: &Path, name: &Spanned<String>) -> Result<SourceFile> {
        let at = name.span().start;
        let path = dir.join(name.get_ref());
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        let bytes = || std::fs::read(&path).map_err(|e| self.error(at, format!("cannot read {}: {e}", path.display())));
        let image = match ext.as_str() {
            // Header-only kernels (`.h`, `.hpp`) compile as they are: NVRTC reads any extension.
            "cu" | "cuh" | "cpp" | "cc" | "cxx" | "h" | "hpp" => {
                let includes: Vec<PathBuf> = include_dirs(&self.compiler_options, dir);
                Image::Cuda(CudaSource::read(&path, &includes).map_err(|e| self.error(at, format!("cannot read {e}")))?)
            }
            "ptx" => Image::Ptx(
                String::from_utf8(bytes()?).map_err(|_| self.error(at, format!("{} is not text", path.display())))?,
            ),
            "cubin" => Image::Cubin(bytes()?),
            "fatbin" => Image::Fatbin(bytes()?),
            _ => {
                return Err(self.error(
                    at,
                    format!(
                        "source '{}': expected CUDA C++ (.cu, .cuh, .cpp, .cc, .h, .hpp: compiled with NVRTC), .ptx, .cubin or .fatbin",
                        name.get_ref()
                    ),
                ));
            }
        };
        let ids = match &image {
            Image::Cuda(src) => src.identifiers(),
            _ => Default::default(),
        };
        Ok(SourceFile { path, image, ids })
    }

    fn sizes(&mut self, raw: &RawFile, overrides: &[(String, String)]) -> Result<()> {
        for (key, value) in &raw.sizes.0 {
            let name = key.get_ref().clone();
            self.check_new_name(&name, key.span().start)?;
            let v = match value.get_ref() {
                Scalar::Int(i) => Value::Int(*i),
                Scalar::Float(x) => Value::Float(*x),
                _ => return Err(self.error(value.span().start, format!("size '{name}' must be a number"))),
            };
            self.sizes.push(Named { name, value: v, at: key.span().start });
        }
        for (name, text) in overrides {
            let Some(s) = self.sizes.iter_mut().find(|s| s.name == *name) else {
                let known: Vec<&str> = self.sizes.iter().map(|s| s.name.as_str()).collect();
                return Err(Error::usage(format!(
                    "{}: no size '{name}' to set (sizes: {})",
                    self.path.display(),
                    if known.is_empty() { "none".to_string() } else { known.join(", ") }
                )));
            };
            s.value = match Value::parse_word(text) {
                v @ (Value::Int(_) | Value::Float(_)) => v,
                _ => return Err(Error::usage(format!("size {name}={text}: not a number"))),
            };
        }
        Ok(())
    }

    fn block_names(&mut self, raw: &RawFile) -> Result<()> {
        let Some(names) = &raw.block_size_names else { return Ok(()) };
        let items = self.words(names, "block_size_names")?;
        if items.is_empty() || items.len() > 3 {
            return Err(self.error(names.span().start, "block_size_names lists 1 to 3 names (x, y, z)"));
        }
        for (i, (name, at)) in items.into_iter().enumerate() {
            self.check_identifier(&name, at)?;
            self.block_names[i] = name;
        }
        Ok(())
    }

    fn tune_params(&mut self, raw: &RawFile) -> Result<()> {
        for (key, values) in &raw.tune_params.0 {
            let (name, at) = (key.get_ref().clone(), key.span().start);
            let vals: Vec<Value> = match values.get_ref() {
                OneOrMany::One(s) => vec![scalar_value(s)],
                OneOrMany::Many(xs) => xs.iter().map(|x| scalar_value(x.get_ref())).collect(),
            };
            if vals.is_empty() {
                return Err(self.error(values.span().start, format!("tune_params.{name} lists no value")));
            }
            if let Some(axis) = self.block_names.iter().position(|b| *b == name) {
                let mut extents = Vec::new();
                for v in &vals {
                    match v {
                        Value::Int(i) if (1..=u32::MAX as i64).contains(i) => extents.push(*i as u32),
                        _ => {
                            return Err(self.error(
                                values.span().start,
                                format!("{name}: block extents are whole numbers from 1, not {v}"),
                            ));
                        }
                    }
                }
                self.block_axes[axis] = Some(extents);
                continue;
            }
            self.check_new_name(&name, at)?;
            self.params.push(Param { name, values: vals, at });
        }
        Ok(())
    }

    fn grid_rule(&mut self, raw: &RawFile) -> Result<()> {
        let divs = [&raw.grid_div_x, &raw.grid_div_y, &raw.grid_div_z];
        match (&raw.problem_size, &raw.grid) {
            (Some(_), Some(g)) => {
                Err(self.error(g.span().start, "give either problem_size (with grid_div_x/y/z) or grid, not both"))
            }
            (None, None) => {
                Err(self
                    .error(0, "no grid rule: give problem_size (with grid_div_x/y/z) or grid = [\"x\", \"y\", \"z\"]"))
            }
            (None, Some(g)) => {
                if let Some(d) = divs.iter().find_map(|d| d.as_ref()) {
                    return Err(self.error(d.span().start, "grid_div_x/y/z go with problem_size, not with grid"));
                }
                let axes = self.expr_list(g, "grid", Scope::Config)?;
                if axes.is_empty() || axes.len() > 3 {
                    return Err(self.error(g.span().start, "grid lists 1 to 3 expressions (x, y, z)"));
                }
                self.grid = GridRule::Explicit(axes);
                Ok(())
            }
            (Some(p), None) => {
                let sizes = self.expr_list(p, "problem_size", Scope::Config)?;
                if sizes.is_empty() || sizes.len() > 3 {
                    return Err(self.error(p.span().start, "problem_size lists 1 to 3 sizes (x, y, z)"));
                }
                let mut divisors: [Vec<LExpr>; 3] = Default::default();
                for (axis, d) in divs.iter().enumerate() {
                    let what = ["grid_div_x", "grid_div_y", "grid_div_z"][axis];
                    divisors[axis] = match d {
                        Some(d) => self.expr_list(d, what, Scope::Config)?,
                        None => vec![self.synthetic(&self.block_names[axis].clone(), what)?],
                    };
                }
                self.grid = GridRule::Divided { sizes, divisors };
                Ok(())
            }
        }
    }

    /// An expression that the file implies but does not spell (the default divisor `block_size_x`).
    fn synthetic(&self, text: &str, what: &str) -> Result<LExpr> {
        let expr = Expr::parse(text).map_err(|e| self.error(0, format!("{what}: {}", e.message)))?;
        Ok(LExpr { expr, at: 0, base: None, what: what.to_string() })
    }

    fn arg(&self, a: &Spanned<RawArg>, dir: &Path) -> Result<ArgSpec> {
        let r = a.get_ref();
        let name = r.name.get_ref().clone();
        let at = r.name.span().start;
        let (ty, lanes) = ElemType::parse_vector(r.ty.get_ref()).ok_or_else(|| {
            let known: Vec<&str> = super::data::TYPES.iter().map(|t| t.0).collect();
            self.error(
                r.ty.span().start,
                format!(
                    "argument '{name}': unknown type '{}' (known: {}, and CUDA's vectors of them such as float4, int2, uchar4)",
                    r.ty.get_ref(),
                    known.join(", ")
                ),
            )
        })?;
        if lanes > 1 && r.value.is_some() {
            return Err(self.error(
                r.ty.span().start,
                format!("argument '{name}': a vector type ({}) is for buffers, not scalars", r.ty.get_ref()),
            ));
        }
        let kind = match (&r.len, &r.value) {
            (Some(_), Some(v)) => {
                return Err(self.error(
                    v.span().start,
                    format!("argument '{name}': a buffer has len, a scalar has value: not both"),
                ));
            }
            (None, None) => {
                return Err(self.error(
                    a.span().start,
                    format!("argument '{name}': give len (a buffer of {ty}) or value (a {ty} scalar)"),
                ));
            }
            (None, Some(v)) => {
                if r.output || r.init.is_some() {
                    return Err(self.error(at, format!("argument '{name}': a scalar has no output or init")));
                }
                ArgKind::Scalar { value: self.expr(v, &format!("value of {name}"), Scope::Launch)? }
            }
            (Some(len), None) => {
                let init = match &r.init {
                    Some(i) => Some(self.init(i, ty, &name, dir)?),
                    None if r.output => None,
                    None if ty.is_float() => Some(Init::Uniform(-1.0, 1.0)),
                    None => {
                        return Err(self.error(a.span().start, format!(
                            "argument '{name}': an {ty} input needs init (zeros, uniform, constant, sequence or npy): integers have no safe default"
                        )));
                    }
                };
                let role = match (r.output, r.init.is_some()) {
                    (true, true) => Role::InOut,
                    (true, false) => Role::Output,
                    _ => Role::Input,
                };
                ArgKind::Buffer { len: self.expr(len, &format!("len of {name}"), Scope::Launch)?, role, init }
            }
        };
        if let Some(v) = &r.verify
            && !r.output
        {
            return Err(
                self.error(v.span().start, format!("argument '{name}': verify applies to outputs (output = true)"))
            );
        }
        let check = r.verify.as_ref().is_none_or(|v| *v.get_ref());
        Ok(ArgSpec { name, ty, lanes, check, kind, at, ty_at: r.ty.span().start })
    }

    fn init(&self, i: &Spanned<RawInit>, ty: ElemType, arg: &str, dir: &Path) -> Result<Init> {
        let at = i.span().start;
        let num = |s: &Spanned<Scalar>| -> Result<Num> {
            let e = self.expr(s, &format!("init of {arg}"), Scope::Sizes)?;
            match self.eval(&e, &|n| self.size(n))? {
                Value::Int(v) => Ok(Num::Int(v as i128)),
                Value::Float(v) => Ok(Num::Float(v)),
                v => Err(self.error(s.span().start, format!("init of {arg}: expected a number, found {v}"))),
            }
        };
        let pair = |xs: &Vec<Spanned<Scalar>>, what: &str| -> Result<(Num, Num)> {
            match xs.as_slice() {
                [a, b] => Ok((num(a)?, num(b)?)),
                _ => Err(self.error(
                    at,
                    format!(
                        "init of {arg}: {what} takes two numbers, [{}]",
                        if what == "uniform" { "low, high" } else { "start, step" }
                    ),
                )),
            }
        };
        let init = match i.get_ref() {
            RawInit::Zeros => Init::Zeros,
            RawInit::Constant(c) => Init::Constant(num(c)?),
            RawInit::Uniform(xs) => {
                let (lo, hi) = pair(xs, "uniform")?;
                if lo.as_f64() >= hi.as_f64() {
                    return Err(self.error(at, format!("init of {arg}: uniform needs low < high")));
                }
                Init::Uniform(lo.as_f64(), hi.as_f64())
            }
            RawInit::Sequence(xs) => {
                let (a, s) = pair(xs, "sequence")?;
                Init::Sequence(a, s)
            }
            RawInit::Npy(p) => {
                let path = dir.join(p.get_ref());
                if !path.is_file() {
                    return Err(self.error(p.span().start, format!("init of {arg}: no file {}", path.display())));
                }
                Init::Npy(path)
            }
        };
        // A constant or the ends of a range that the type cannot hold is an error now, not on the GPU.
        let probes: Vec<Num> = match &init {
            Init::Constant(c) => vec![*c],
            Init::Sequence(a, _) => vec![*a],
            _ => Vec::new(),
        };
        for p in probes {
            ty.encode(p).map_err(|e| self.error(at, format!("init of {arg}: {e}")))?;
        }
        Ok(init)
    }

    fn verify(&mut self, raw: &RawFile, dir: &Path) -> Result<()> {
        let Some(v) = &raw.verify else { return Ok(()) };
        let v = v.get_ref();
        if let Some(r) = &v.rtol {
            self.verify.rtol = *r.get_ref();
        }
        if let Some(a) = &v.atol {
            self.verify.atol = *a.get_ref();
        }
        for t in [&v.rtol, &v.atol].into_iter().flatten() {
            if !(t.get_ref().is_finite() && *t.get_ref() >= 0.0) {
                return Err(self.error(t.span().start, "a tolerance is a number >= 0"));
            }
        }
        self.verify.tolerance_given = v.rtol.is_some() || v.atol.is_some();
        let given: Vec<usize> = [
            v.reference.as_ref().map(|r| r.span().start),
            v.expected.as_ref().map(|e| e.span().start),
            v.same_as_first.as_ref().filter(|s| *s.get_ref()).map(|s| s.span().start),
            v.sums.as_ref().map(|s| s.span().start),
        ]
        .into_iter()
        .flatten()
        .collect();
        if given.len() > 1 {
            return Err(self.error(given[1], "[verify] takes one of reference, expected, sums or same_as_first"));
        }
        if let Some(r) = &v.reference {
            let spec = self.reference(r.get_ref(), dir)?;
            self.verify.expected = Expected::Reference(spec);
        } else if let Some(e) = &v.expected {
            let mut files = Vec::new();
            for (key, file) in &e.get_ref().0 {
                let i = self.compared_output(key, "expected")?;
                let path = dir.join(file.get_ref());
                if !path.is_file() {
                    return Err(self.error(file.span().start, format!("expected: no file {}", path.display())));
                }
                files.push((i, path));
            }
            if let Some(missing) = self.outputs().find(|i| !files.iter().any(|(j, _)| j == i)) {
                return Err(
                    self.error(e.span().start, format!("expected: no .npy for output '{}'", self.args[missing].name))
                );
            }
            self.verify.expected = Expected::Npy(files);
        } else if let Some(sums) = &v.sums {
            let mut pairs = Vec::new();
            for (key, input) in &sums.get_ref().0 {
                let o = self.compared_output(key, "sums")?;
                let Some(i) = self
                    .args
                    .iter()
                    .position(|a| a.name == *input.get_ref())
                    .filter(|&i| matches!(self.args[i].kind, ArgKind::Buffer { role: Role::Input, .. }))
                else {
                    return Err(self.error(
                        input.span().start,
                        format!("sums: '{}' is not an input buffer of the kernel", input.get_ref()),
                    ));
                };
                pairs.push((o, i));
            }
            if let Some(missing) = self.outputs().find(|o| !pairs.iter().any(|(p, _)| p == o)) {
                return Err(self.error(
                    sums.span().start,
                    format!("sums: no input named for output '{}'", self.args[missing].name),
                ));
            }
            self.verify.expected = Expected::Sums(pairs);
        }
        Ok(())
    }

    /// The argument a `[verify]` table names (`what`: its key) as one of the outputs it compares: an
    /// argument, an output, and not left unchecked by `verify = false`.
    fn compared_output(&self, key: &Spanned<String>, what: &str) -> Result<usize> {
        let (name, at) = (key.get_ref(), key.span().start);
        let Some(i) = self.args.iter().position(|a| a.name == *name) else {
            return Err(self.error(at, format!("{what}: no argument '{name}'")));
        };
        if !matches!(self.args[i].kind, ArgKind::Buffer { role: Role::Output | Role::InOut, .. }) {
            return Err(self.error(at, format!("{what}: '{name}' is not an output (output = true)")));
        }
        if !self.args[i].check {
            return Err(self.error(at, format!("{what}: output '{name}' has verify = false: nothing compares it")));
        }
        Ok(i)
    }

    fn reference(&mut self, r: &RawReference, dir: &Path) -> Result<ReferenceSpec> {
        let source = match &r.source {
            Some(s) => {
                let file = self.read_source(dir, s)?;
                if file.path == self.sources[0].path {
                    0
                } else {
                    self.sources.push(Arc::new(file));
                    self.sources.len() - 1
                }
            }
            None => 0,
        };
        let block_text = match r.block.get_ref() {
            Scalar::Int(i) => i.to_string(),
            Scalar::Str(s) => s.clone(),
            _ => String::new(),
        };
        let block: Dim3 =
            block_text.parse().map_err(|e: Error| self.error(r.block.span().start, format!("reference block: {e}")))?;
        let mut params = Vec::new();
        for (key, value) in &r.params.0 {
            if !self.params.iter().any(|p| p.name == *key.get_ref()) {
                return Err(self.error(
                    key.span().start,
                    format!("reference params: no parameter '{}' in tune_params", key.get_ref()),
                ));
            }
            params.push((key.get_ref().clone(), scalar_value(value.get_ref())));
        }
        Ok(ReferenceSpec { source, entry: r.entry.get_ref().clone(), entry_at: r.entry.span().start, block, params })
    }

    /// Indices of the arguments that are outputs.
    pub fn outputs(&self) -> impl Iterator<Item = usize> + '_ {
        self.args
            .iter()
            .enumerate()
            .filter(|(_, a)| a.check && matches!(a.kind, ArgKind::Buffer { role: Role::Output | Role::InOut, .. }))
            .map(|(i, _)| i)
    }

    /// The value of size `name`.
    pub fn size(&self, name: &str) -> Option<Value> {
        self.sizes.iter().find(|s| s.name == name).map(|s| s.value.clone())
    }

    /// Evaluates `e`; an error names the file, line and column.
    pub fn eval(&self, e: &LExpr, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<Value> {
        e.expr.eval(lookup).map_err(|x| self.expr_error(e, x.offset, x.message))
    }

    fn words(&self, v: &Spanned<OneOrMany>, what: &str) -> Result<Vec<(String, Offset)>> {
        let items: Vec<(Scalar, Offset)> = match v.get_ref() {
            OneOrMany::One(s) => vec![(s.clone(), v.span().start)],
            OneOrMany::Many(xs) => xs.iter().map(|x| (x.get_ref().clone(), x.span().start)).collect(),
        };
        items
            .into_iter()
            .map(|(s, at)| match s {
                Scalar::Str(w) => Ok((w, at)),
                _ => Err(self.error(at, format!("{what}: expected a name in quotes"))),
            })
            .collect()
    }

    fn expr_list(&self, v: &Spanned<OneOrMany>, what: &str, scope: Scope) -> Result<Vec<LExpr>> {
        match v.get_ref() {
            OneOrMany::One(s) => Ok(vec![self.expr_of(s, v.span().start, v.span().end, what, scope)?]),
            OneOrMany::Many(xs) => xs
                .iter()
                .enumerate()
                .map(|(i, x)| self.expr_of(x.get_ref(), x.span().start, x.span().end, &format!("{what}[{i}]"), scope))
                .collect(),
        }
    }

    fn expr(&self, s: &Spanned<Scalar>, what: &str, scope: Scope) -> Result<LExpr> {
        self.expr_of(s.get_ref(), s.span().start, s.span().end, what, scope)
    }

    /// Parses a scalar as an expression and checks that every name it reads exists in `scope`.
    fn expr_of(&self, s: &Scalar, start: Offset, end: Offset, what: &str, scope: Scope) -> Result<LExpr> {
        let (text, base) = match s {
            Scalar::Int(i) => (i.to_string(), None),
            Scalar::Float(x) => (x.to_string(), None),
            Scalar::Bool(b) => (b.to_string(), None),
            Scalar::Str(t) => {
                let raw = self.text.get(start + 1..end.saturating_sub(1)).unwrap_or("");
                (t.clone(), (raw == t).then_some(start + 1))
            }
        };
        let expr = Expr::parse(&text)
            .map_err(|e| self.error(base.map_or(start, |b| b + e.offset), format!("{what}: {}", e.message)))?;
        let e = LExpr { expr, at: start, base, what: what.to_string() };
        for (name, inner) in e.expr.names() {
            if !self.known(name, scope) {
                return Err(self.expr_error(&e, inner, self.unknown_name(name, scope)));
            }
        }
        Ok(e)
    }

    fn known(&self, name: &str, scope: Scope) -> bool {
        self.sizes.iter().any(|s| s.name == name)
            || (scope >= Scope::Config
                && (self.params.iter().any(|p| p.name == name) || self.block_names.iter().any(|b| b == name)))
            || (scope >= Scope::Launch && GRID_NAMES.contains(&name))
    }

    fn unknown_name(&self, name: &str, scope: Scope) -> String {
        let mut known: Vec<&str> = self.sizes.iter().map(|s| s.name.as_str()).collect();
        if scope >= Scope::Config {
            known.extend(self.params.iter().map(|p| p.name.as_str()));
            known.extend(self.block_names.iter().map(String::as_str));
        }
        if scope >= Scope::Launch {
            known.extend(GRID_NAMES);
        }
        let hint = match scope {
            Scope::Sizes if self.params.iter().any(|p| p.name == name) => {
                " (a parameter cannot set an input's contents)"
            }
            Scope::Config if GRID_NAMES.contains(&name) => " (the grid is not known yet here)",
            _ => "",
        };
        format!("unknown name '{name}'{hint} (known: {})", known.join(", "))
    }

    fn check_identifier(&self, name: &str, at: Offset) -> Result<()> {
        let ok = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok || RESERVED.contains(&name) {
            return Err(self.error(at, format!("'{name}' is not a usable name (letters, digits and _, not a keyword)")));
        }
        Ok(())
    }

    /// A size or parameter name must be an identifier, new, and not one warpscope defines itself.
    fn check_new_name(&self, name: &str, at: Offset) -> Result<()> {
        self.check_identifier(name, at)?;
        if self.block_names.iter().any(|b| b == name) {
            return Err(self.error(at, format!("'{name}' names the block shape (from the sweep's block list)")));
        }
        if GRID_NAMES.contains(&name) {
            return Err(self.error(at, format!("'{name}' is defined by warpscope from the grid")));
        }
        if let Some(prev) = self
            .sizes
            .iter()
            .map(|s| (&s.name, s.at))
            .chain(self.params.iter().map(|p| (&p.name, p.at)))
            .find(|(n, _)| *n == name)
        {
            let (line, _) = line_col(&self.text, prev.1);
            return Err(self.error(at, format!("'{name}' is declared twice (also on line {line})")));
        }
        Ok(())
    }

    /// The entry's parameters as a CUDA source (or a header it includes) declares them, where one
    /// `__global__` function of that name is there to read; `None` for a template, overloads, or an
    /// entry the text does not define (the compiled PTX is checked instead).
    pub fn source_signature(&self) -> Option<Vec<source::SourceParam>> {
        let Image::Cuda(src) = &self.sources[0].image else { return None };
        if template_name(&self.entry) != self.entry {
            return None;
        }
        src.files.iter().find_map(|(_, text)| source::signature(text, &self.entry))
    }

    /// Checks the entry and the arguments against what can be read without compiling: the PTX of a `.ptx`
    /// file, the kernel names of a cubin, or the source text of a `.cu` (whose parameters must appear in it).
    fn check_source(&self) -> Result<()> {
        let main = &self.sources[0];
        match &main.image {
            Image::Cuda(_) => {
                let ids = &main.ids;
                if let Some(p) = self.params.iter().find(|p| !ids.contains(&p.name)) {
                    return Err(self.error(p.at, format!("parameter '{}' never appears in {} (or the headers it includes): its #define would change nothing", p.name, main.path.display())));
                }
                if let Some((name, e)) = self.defines.iter().find(|(n, _)| !ids.contains(n)) {
                    return Err(self.expr_error(
                        e,
                        0,
                        format!("{name} never appears in {} (or the headers it includes)", main.path.display()),
                    ));
                }
                if let Some(c) = self.constants.iter().find(|c| !ids.contains(&c.name)) {
                    return Err(self.error(
                        c.at,
                        format!(
                            "constant '{}' never appears in {} (or the headers it includes)",
                            c.name,
                            main.path.display()
                        ),
                    ));
                }
                // A template's instantiation (`MatrixMulCUDA<16>`) is looked for by its name.
                let name = template_name(&self.entry);
                if !ids.iter().any(|i| i == name) {
                    return Err(self.error(
                        self.entry_at,
                        format!("unknown entry '{name}': {} never mentions it", main.path.display()),
                    ));
                }
                if let Some(sig) = self.source_signature() {
                    self.check_signature(&sig)?;
                }
            }
            Image::Ptx(ptx) => {
                if let Some((name, e)) = self.defines.first() {
                    return Err(self.expr_error(
                        e,
                        0,
                        format!(
                            "{name}: a .ptx file is compiled already, so #defines cannot change it (use a .cu source)"
                        ),
                    ));
                }
                if let Some(p) = self.params.first() {
                    return Err(self.error(p.at, format!("parameter '{}': a .ptx file is compiled already, so #defines cannot change it (use a .cu source)", p.name)));
                }
                self.check_ptx(ptx, &self.entry, self.entry_at)?;
                if let Some(c) = self.constants.iter().find(|c| !ptx_declares(ptx, &c.name)) {
                    return Err(self.error(
                        c.at,
                        format!("constant '{}': {} declares no such variable", c.name, main.path.display()),
                    ));
                }
            }
            Image::Cubin(bytes) => {
                self.no_params(&main.path)?;
                let names =
                    source::cubin_kernels(bytes).map_err(|e| self.error(0, format!("{}: {e}", main.path.display())))?;
                if !names.iter().any(|n| *n == self.entry || source::demangle(n).is_some_and(|(b, _)| b == self.entry))
                {
                    return Err(self.error(
                        self.entry_at,
                        format!("unknown entry '{}': {} has {}", self.entry, main.path.display(), list_or_none(&names)),
                    ));
                }
            }
            Image::Fatbin(bytes) => {
                self.no_params(&main.path)?;
                if !source::is_fatbin(bytes) {
                    return Err(self.error(0, format!("{} is not a fatbinary", main.path.display())));
                }
            }
        }
        if let Expected::Reference(r) = &self.verify.expected
            && let Image::Ptx(ptx) = &self.sources[r.source].image
        {
            self.check_ptx(ptx, &r.entry, r.entry_at)?;
        }
        Ok(())
    }

    /// Whether warpscope passes `name` with `-D` (a parameter, a `[defines]` entry or a block extent).
    pub fn passes(&self, name: &str) -> bool {
        self.params.iter().any(|p| p.name == name)
            || self.defines.iter().any(|(n, _)| n == name)
            || self.block_names.iter().any(|n| n == name)
            || GRID_NAMES.contains(&name)
    }

    /// The `#define`s `source` fixes among the names warpscope may pass with `-D` (the parameters, the
    /// `[defines]`, the block's and grid's names, `kernel_tuner`) and those of `compiler_options`.
    fn fixed_in(&self, source: &SourceFile) -> Vec<FixedDefine> {
        let Image::Cuda(src) = &source.image else { return Vec::new() };
        let mut given: BTreeSet<String> = self.params.iter().map(|p| p.name.clone()).collect();
        given.extend(self.defines.iter().map(|(n, _)| n.clone()));
        given.extend(self.block_names.iter().cloned());
        given.extend(GRID_NAMES.iter().map(|n| n.to_string()));
        given.insert(KERNEL_TUNER.to_string());
        given.extend(self.compiler_options.iter().filter_map(|o| {
            let d = o.strip_prefix("-D").or_else(|| o.strip_prefix("--define-macro="))?;
            Some(d.split('=').next().unwrap_or(d).to_string())
        }));
        given.retain(|n| source.ids.contains(n));
        prepro::fixed_defines(src, &given)
    }

    fn no_params(&self, path: &Path) -> Result<()> {
        if let Some((name, e)) = self.defines.first() {
            return Err(self.expr_error(
                e,
                0,
                format!("{name}: {} is compiled already, so #defines cannot change it", path.display()),
            ));
        }
        match self.params.first() {
            Some(p) => Err(self.error(
                p.at,
                format!("parameter '{}': {} is compiled already, so #defines cannot change it", p.name, path.display()),
            )),
            None => Ok(()),
        }
    }

    /// The `.entry` of `entry` in `ptx` (by its name, or the readable name of a mangled one).
    pub fn find_entry<'p>(
        &self,
        entries: &'p [source::PtxEntry],
        entry: &str,
        at: Offset,
    ) -> Result<&'p source::PtxEntry> {
        // Readable names compared without spaces (`k<float, 4>` as `k<float,4>`) and with integers plain
        // (an `unsigned` template argument demangles as `(unsigned int)256`, a user may write `256u`); a
        // template's instantiation also by its bare name where the PTX has only one.
        let squash = |s: &str| plain_integers(&s.split_whitespace().collect::<String>());
        let want = squash(entry);
        if let Some(e) = entries.iter().find(|e| e.name == entry || e.name == want) {
            return Ok(e);
        }
        // What NVRTC lowered the instantiation to, where it said.
        if let Some(e) = entries.iter().find(|e| e.expressions.iter().any(|x| squash(x) == want)) {
            return Ok(e);
        }
        let readable = |e: &source::PtxEntry| source::demangle(&e.name).map(|(b, _)| squash(&b));
        let named = |f: &dyn Fn(&str) -> bool| -> Vec<&'p source::PtxEntry> {
            entries.iter().filter(|e| readable(e).is_some_and(|b| f(&b))).collect()
        };
        let mut matches = named(&|b| b == want || b.rsplit("::").next() == Some(&want));
        if matches.is_empty() {
            matches = named(&|b| {
                let t = template_name(b);
                t != b && (t == want || t.rsplit("::").next() == Some(&want))
            });
        }
        match matches.as_slice() {
            [one] => Ok(one),
            [] => {
                let names: Vec<String> = entries
                    .iter()
                    .map(|e| source::demangle(&e.name).map_or_else(|| e.name.clone(), |(b, _)| b))
                    .collect();
                Err(self.error(at, format!("unknown entry '{entry}': the PTX has {}", list_or_none(&names))))
            }
            many => {
                let names: Vec<String> = many.iter().map(|e| e.name.clone()).collect();
                Err(self.error(at, format!("entry '{entry}' is ambiguous: name one of {}", names.join(", "))))
            }
        }
    }

    /// Checks the arguments against the PTX `.entry` of `entry`: count, pointer or value, sizes, and for a
    /// mangled (C++) name the element types its signature spells. Run on `.ptx` files at load and by the
    /// pipeline on what NVRTC produced.
    pub fn check_ptx(&self, ptx: &str, entry: &str, at: Offset) -> Result<()> {
        let entries = source::ptx_entries(ptx);
        let e = self.find_entry(&entries, entry, at)?;
        if e.params.len() != self.args.len() {
            return Err(self.error(
                at,
                format!(
                    "entry '{entry}' takes {} parameters (PTX), the file declares {} arguments",
                    e.params.len(),
                    self.args.len()
                ),
            ));
        }
        let c_types: Vec<String> = source::demangle(&e.name).map(|(_, p)| split_c_params(&p)).unwrap_or_default();
        for (i, (arg, p)) in self.args.iter().zip(&e.params).enumerate() {
            let is_buf = matches!(arg.kind, ArgKind::Buffer { .. });
            let want = if is_buf { 8 } else { arg.ty.size() as u64 };
            if p.size != want {
                let what =
                    if is_buf { "a pointer (8 bytes)".to_string() } else { format!("a {} ({want} bytes)", arg.ty) };
                // A 4-byte pointer: 32-bit code, which no 64-bit driver (CUDA 12 has no other) loads.
                let why = if is_buf && p.size == 4 {
                    ": 32-bit PTX (`.address_size 32`, or PTX 1.x from a 32-bit nvcc), which the 64-bit CUDA driver \
                     does not load; recompile it for 64-bit addresses"
                } else {
                    ""
                };
                return Err(self.error(
                    arg.at,
                    format!(
                        "argument '{}' is {what}, but parameter {} of '{entry}' is {} bytes ({}){why}",
                        arg.name,
                        i + 1,
                        p.size,
                        p.ty
                    ),
                ));
            }
            if !is_buf && p.ty.starts_with(".f") != arg.ty.is_float() && !p.ty.starts_with(".b") {
                return Err(self.error(
                    arg.ty_at,
                    format!("argument '{}' is {}, but parameter {} of '{entry}' is {}", arg.name, arg.ty, i + 1, p.ty),
                ));
            }
            if let Some(c) = c_types.get(i) {
                self.check_c_type(arg, c, i, entry)?;
            }
        }
        Ok(())
    }

    fn check_c_type(&self, arg: &ArgSpec, c: &str, i: usize, entry: &str) -> Result<()> {
        let pointer = c.contains('*') || c.contains('[');
        let is_buf = matches!(arg.kind, ArgKind::Buffer { .. });
        if pointer != is_buf {
            let (want, got) = if is_buf { ("a buffer", "a value") } else { ("a scalar", "a pointer") };
            return Err(self.error(
                arg.at,
                format!("argument '{}' is {want}, but parameter {} of '{entry}' is {got} ({c})", arg.name, i + 1),
            ));
        }
        let base: String = c
            .replace(['*', '&'], " ")
            .split_whitespace()
            .filter(|w| !matches!(*w, "const" | "volatile" | "__restrict__" | "__restrict" | "restrict"))
            .collect::<Vec<_>>()
            .join(" ");
        // Integers of one size pass for each other (signedness is the kernel's business); a buffer of
        // a vector's scalars (`f32` for `float2 *`, its length in floats) is the same memory.
        if let Some((t, lanes)) = ElemType::parse_vector(&base) {
            let scalar = t == arg.ty || (t.size() == arg.ty.size() && !t.is_float() && !arg.ty.is_float());
            let lanes_ok = lanes == arg.lanes || (is_buf && arg.lanes == 1);
            if !(scalar && lanes_ok) {
                return Err(self.error(
                    arg.ty_at,
                    format!(
                        "argument '{}' is {}, but parameter {} of '{entry}' is {c}",
                        arg.name,
                        arg.type_name(),
                        i + 1
                    ),
                ));
            }
        }
        Ok(())
    }

    fn check_signature(&self, sig: &[source::SourceParam]) -> Result<()> {
        if sig.len() != self.args.len() {
            return Err(self.error(
                self.entry_at,
                format!(
                    "entry '{}' takes {} parameters in {}, the file declares {} arguments",
                    self.entry,
                    sig.len(),
                    self.sources[0].path.display(),
                    self.args.len()
                ),
            ));
        }
        for (i, (arg, p)) in self.args.iter().zip(sig).enumerate() {
            let is_buf = matches!(arg.kind, ArgKind::Buffer { .. });
            if p.pointer != is_buf {
                let (want, got) = if is_buf { ("a buffer", "not a pointer") } else { ("a scalar", "a pointer") };
                return Err(self.error(
                    arg.at,
                    format!(
                        "argument '{}' is {want}, but parameter {} of '{}' is {got} ({})",
                        arg.name,
                        i + 1,
                        self.entry,
                        p.text
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The text of the kernel file.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// Whether `ptx` declares a module-scope variable `name` (`.const .align 4 .b8 name[16];`).
pub(super) fn ptx_declares(ptx: &str, name: &str) -> bool {
    ptx.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with(".const") || l.starts_with(".global") || l.starts_with(".visible"))
        .any(|l| l.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).any(|w| w == name))
}

/// Integer template arguments as plain numbers, spaces already removed: the demangler's casts of integer
/// types (`(unsignedint)256`, `(long)-1`, `(char)65`) and C's suffixes (`256u`) dropped.
fn plain_integers(s: &str) -> String {
    const INTEGERS: &[&str] = &[
        "unsignedint",
        "unsigned",
        "int",
        "unsignedlong",
        "long",
        "unsignedlonglong",
        "longlong",
        "unsignedshort",
        "short",
        "unsignedchar",
        "signedchar",
        "char",
        "bool",
    ];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find('(') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find(')') {
            Some(close)
                if INTEGERS.contains(&&after[..close])
                    && after[close + 1..].starts_with(|c: char| c.is_ascii_digit() || c == '-') =>
            {
                rest = &after[close + 1..];
            }
            _ => {
                out.push('(');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    prepro::integer_suffixes_removed(&out)
}

/// The function name of an entry that names a template's instantiation (`MatrixMulCUDA` of
/// `MatrixMulCUDA<16>`); any other entry as it is.
pub fn template_name(entry: &str) -> &str {
    entry.split_once('<').map_or(entry, |(name, _)| name.trim_end())
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() { "no kernel".to_string() } else { format!("only {}", names.join(", ")) }
}

/// A demangled parameter list split at its top-level commas.
fn split_c_params(list: &str) -> Vec<String> {
    let (mut out, mut depth, mut cur) = (Vec::new(), 0i32, String::new());
    for c in list.chars() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn scalar_value(s: &Scalar) -> Value {
    match s {
        Scalar::Int(i) => Value::Int(*i),
        Scalar::Float(x) => Value::Float(*x),
        Scalar::Bool(b) => Value::Bool(*b),
        Scalar::Str(t) => Value::Str(t.clone()),
    }
}

/// `-I` folders of the compiler options, relative to the kernel file's folder.
pub fn include_dirs(options: &[String], dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut it = options.iter();
    while let Some(o) = it.next() {
        let d = if o == "-I" || o == "--include-path" {
            it.next().cloned()
        } else {
            o.strip_prefix("-I").or_else(|| o.strip_prefix("--include-path=")).map(String::from)
        };
        if let Some(d) = d {
            out.push(dir.join(d));
        }
    }
    out
}

fn error_at(path: &Path, text: &str, at: Offset, message: impl std::fmt::Display) -> Error {
    let (line, col) = line_col(text, at);
    Error::usage(format!("{}:{line}:{col}: {message}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::plain_integers;

    #[test]
    fn template_arguments_compare_as_plain_integers() {
        assert_eq!(plain_integers("reduce6<float,(unsignedint)256,true>"), "reduce6<float,256,true>");
        assert_eq!(plain_integers("k<(long)-1,(char)65,256ul,4>"), "k<-1,65,256,4>");
        // Only integer casts before a number; other parentheses stay.
        assert_eq!(plain_integers("k<(Color)1,f(x),float4>"), "k<(Color)1,f(x),float4>");
        assert_eq!(plain_integers("k<(unsignedint)"), "k<(unsignedint)");
    }
}
