//! Expansion: block shapes x compile-time parameter values (the file's `tune_params`, or `--define`),
//! filtered by the restrictions, each configuration evaluated into everything a launch needs: its module
//! (one per distinct set of `#define`s), grid, dynamic shared memory, typed buffers with their lengths and
//! how to fill them, and the scalar arguments' bytes. A configuration that cannot be evaluated (a division
//! by zero for its values, a length that overflows, more memory than the host has) is kept with its
//! reason, as a row; when no configuration can run, the first reason is the error.

use super::data::{ElemType, Init, Num};
use super::expr::Value;
use super::file::{ArgKind, Expected, GRID_NAMES, GridRule, Image, KERNEL_TUNER, KernelFile, LExpr, Role};
use super::prepro::LOOP_UNROLL;
use crate::error::{Error, Input, Names, Result};
use crate::spec::{self, Dim3};

/// One module to build: a source file compiled with one set of `#define`s (or loaded as it is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleSpec {
    /// Index into [`KernelFile::sources`].
    pub source: usize,
    /// `(name, value)` passed to NVRTC as `-Dname=value` (empty for PTX, cubin and fatbin files).
    pub defines: Vec<(String, String)>,
    /// Template instantiations its configurations name (`MatrixMulCUDA<16>`), for NVRTC to make (CUDA
    /// sources only).
    pub instantiate: Vec<String>,
    /// Kernel Tuner's loop-unroll parameters (names containing `loop_unroll_factor`) and their values:
    /// given to the source as `constexpr int`s, as `#pragma unroll` needs, and 0 removing the pragma
    /// that names it (see [`super::prepro::unrolled`]); not among `defines`.
    pub unroll: Vec<(String, i64)>,
}

/// `entry` with the parameters in its template arguments replaced by their values
/// (`MatrixMulCUDA<block_size_x>` -> `MatrixMulCUDA<16>`, as Kernel Tuner's kernel names); an entry
/// without template arguments as it is.
pub fn instantiate(entry: &str, values: &[(String, String)]) -> String {
    let Some(open) = entry.find('<') else { return entry.to_string() };
    let (name, args) = entry.split_at(open);
    let mut out = name.to_string();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let w = std::mem::take(word);
        out.push_str(values.iter().find(|(n, _)| *n == w).map_or(w.as_str(), |(_, v)| v.as_str()));
    };
    for c in args.chars() {
        // An identifier (not a number's digits or suffix) may be a parameter.
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A device buffer of one configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// The argument's name.
    pub name: String,
    /// Index of the argument in [`KernelFile::args`].
    pub arg: usize,
    /// Element type.
    pub ty: ElemType,
    /// Elements.
    pub len: u64,
    /// Input, output or both.
    pub role: Role,
    /// How it is filled (inputs and in-out buffers).
    pub init: Option<Init>,
    /// Whether it is compared (an output without `verify = false`).
    pub check: bool,
}

impl Buffer {
    /// Whether the buffer is copied back and compared after a verified launch.
    pub fn compared(&self) -> bool {
        self.role != Role::Input && self.check
    }

    /// Bytes on the device.
    pub fn bytes(&self) -> u64 {
        self.len * self.ty.size() as u64
    }
}

/// One launch argument.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// The device pointer of buffer `i` of [`Config::buffers`].
    Buffer(usize),
    /// A value, as the bytes the kernel receives.
    Scalar {
        /// Its type.
        ty: ElemType,
        /// The evaluated value.
        value: Value,
        /// Little-endian bytes, `ty.size()` of them.
        bytes: Vec<u8>,
    },
}

/// One configuration: everything the pipeline needs to build, fill, launch and verify it.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The block.
    pub block: Dim3,
    /// Compile-time parameter values (the block's defines not included).
    pub params: Vec<(String, Value)>,
    /// Index into [`Expansion::modules`].
    pub module: usize,
    /// The entry to launch.
    pub entry: String,
    /// The grid.
    pub grid: Dim3,
    /// Dynamic shared memory per block, bytes.
    pub dynamic_smem: u32,
    /// Buffers, in argument order.
    pub buffers: Vec<Buffer>,
    /// Arguments in parameter order.
    pub args: Vec<ArgValue>,
    /// The module's `__constant__` arrays to fill ([`Buffer::arg`] counts on after the arguments).
    pub constants: Vec<Buffer>,
    /// Why it cannot run (a row with this reason), if it cannot.
    pub invalid: Option<String>,
}

impl Config {
    /// `tile_x=2, tile_y=4` (empty without parameters).
    pub fn params_label(&self) -> String {
        self.params.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(", ")
    }

    /// Host memory the problem needs: each input and constant once, each output three times (its initial contents or
    /// poison, the copy back, the expected values).
    pub fn host_bytes(&self) -> u64 {
        self.buffers
            .iter()
            .chain(&self.constants)
            .map(|b| if b.role == Role::Input { b.bytes() } else { b.bytes().saturating_mul(3) })
            .fold(0, u64::saturating_add)
    }

    /// Device memory its buffers take.
    pub fn device_bytes(&self) -> u64 {
        self.buffers.iter().map(Buffer::bytes).fold(0, u64::saturating_add)
    }
}

/// What a kernel file and the command line expand to.
#[derive(Clone, Debug, PartialEq)]
pub struct Expansion {
    /// Block shapes.
    pub blocks: usize,
    /// Parameter combinations per block.
    pub param_sets: usize,
    /// Combinations removed by the restrictions.
    pub restricted: usize,
    /// The configurations that remain, in sweep order (blocks outermost, x slowest; then the parameters
    /// in file order, the first slowest).
    pub configs: Vec<Config>,
    /// The distinct modules the configurations use.
    pub modules: Vec<ModuleSpec>,
    /// The reference kernel's run, when `[verify]` names one.
    pub reference: Option<Config>,
}

impl Expansion {
    /// `48 configurations (4 blocks x 12 parameter sets), 12 removed by restrictions, 2 invalid, 9 modules`.
    pub fn summary(&self) -> String {
        let invalid = self.configs.iter().filter(|c| c.invalid.is_some()).count();
        let total = self.blocks * self.param_sets;
        let mut s = format!(
            "{total} configuration{} ({} block{} x {} parameter set{})",
            if total == 1 { "" } else { "s" },
            self.blocks,
            if self.blocks == 1 { "" } else { "s" },
            self.param_sets,
            if self.param_sets == 1 { "" } else { "s" }
        );
        if self.restricted > 0 {
            s += &format!(", {} removed by restrictions", self.restricted);
        }
        s += &format!(", {} to run", self.configs.len() - invalid);
        if invalid > 0 {
            s += &format!(", {invalid} invalid");
        }
        s += &format!(", {} module{}", self.modules.len(), if self.modules.len() == 1 { "" } else { "s" });
        s
    }
}

/// Parses a problem size of a kernel file, `NAME=VALUE` (both trimmed).
pub fn parse_size(s: &str) -> Result<(String, String)> {
    s.split_once('=')
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| Error::input(Input::Size, Some(format!("'{s}'")), "expected NAME=VALUE"))
}

/// Parses `--define name=v1,v2,...`: integers, ranges as in block lists (`1..8`, `32..256:32`), floats,
/// `true`/`false`, or words (a type name).
pub fn parse_define(s: &str) -> Result<(String, Vec<Value>)> {
    let Some((name, list)) = s.split_once('=') else {
        return Err(Error::input(
            Input::Define,
            Some(format!("'{s}'")),
            "expected NAME=VALUE[,VALUE...] (e.g. tile_x=1,2,4)",
        ));
    };
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(Error::input(Input::Define, Some(format!("'{s}'")), format!("'{name}' is not a name")));
    }
    let mut values = Vec::new();
    for item in list.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        if item.contains("..") {
            values.extend(spec::parse_int_list(item)?.into_iter().map(|v| Value::Int(v as i64)));
        } else {
            values.push(Value::parse_word(item));
        }
        if values.len() as u64 > spec::MAX_LIST {
            return Err(Error::input(
                Input::Define,
                Some(name.to_string()),
                format!("more than {} values", spec::MAX_LIST),
            ));
        }
    }
    if values.is_empty() {
        return Err(Error::input(Input::Define, Some(format!("'{s}'")), "no value"));
    }
    Ok((name.to_string(), values))
}

impl KernelFile {
    /// `n=4096, m=512`: the problem as reports show it.
    pub fn problem_label(&self) -> String {
        self.sizes.iter().map(|s| format!("{}={}", s.name, s.value)).collect::<Vec<_>>().join(", ")
    }

    /// The block shapes the file proposes (`tune_params.block_size_x = [...]`), when it does.
    pub fn default_blocks(&self) -> Option<Vec<Dim3>> {
        if self.block_axes.iter().all(Option::is_none) {
            return None;
        }
        let axis = |i: usize| self.block_axes[i].clone().unwrap_or_else(|| vec![1]);
        Some(spec::cartesian(&axis(0), &axis(1), &axis(2)))
    }

    /// Expands `blocks` (or the file's own block lists) x the parameter values (`defines` replacing the
    /// file's lists) into configurations; `names` says the inputs in the front end's words.
    pub fn expand(&self, blocks: Option<&[Dim3]>, defines: &[(String, Vec<Value>)], names: Names) -> Result<Expansion> {
        let blocks = match blocks {
            Some(b) => b.to_vec(),
            None => self.default_blocks().ok_or_else(|| {
                Error::usage(format!(
                    "{}: no block shapes: give {}, or list {} in [tune_params]",
                    self.path.display(),
                    names(Input::Blocks),
                    self.block_names[0]
                ))
            })?,
        };
        let mut lists: Vec<(String, Vec<Value>)> =
            self.params.iter().map(|p| (p.name.clone(), p.values.clone())).collect();
        for (name, values) in defines {
            if self.block_names.contains(name) {
                return Err(Error::usage(format!(
                    "{} {name}: the block shape comes from {}",
                    names(Input::Define),
                    names(Input::Blocks)
                )));
            }
            match lists.iter_mut().find(|(n, _)| n == name) {
                Some(slot) => slot.1 = values.clone(),
                None => {
                    let known: Vec<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
                    return Err(Error::usage(format!(
                        "{} {name}: {} has no parameter '{name}' in [tune_params] (parameters: {})",
                        names(Input::Define),
                        self.path.display(),
                        if known.is_empty() { "none".to_string() } else { known.join(", ") }
                    )));
                }
            }
        }
        let param_sets = lists.iter().map(|(_, v)| v.len() as u64).product::<u64>();
        let total = blocks.len() as u64 * param_sets;
        if total > spec::MAX_LIST {
            return Err(Error::usage(format!(
                "{}: {} blocks x {param_sets} parameter sets = {total} configurations (more than {}): narrow the lists",
                self.path.display(),
                blocks.len(),
                spec::MAX_LIST
            )));
        }
        let mut ex = Expansion {
            blocks: blocks.len(),
            param_sets: param_sets as usize,
            restricted: 0,
            configs: Vec::new(),
            modules: Vec::new(),
            reference: None,
        };
        for &block in &blocks {
            for combo in 0..param_sets {
                // Odometer over the lists, the last parameter fastest.
                let mut rest = combo;
                let mut params: Vec<(String, Value)> = Vec::with_capacity(lists.len());
                for (name, values) in lists.iter().rev() {
                    params.push((name.clone(), values[(rest % values.len() as u64) as usize].clone()));
                    rest /= values.len() as u64;
                }
                params.reverse();
                match self.restricted_out(block, &params) {
                    Ok(true) => {
                        ex.restricted += 1;
                        continue;
                    }
                    Ok(false) => {}
                    Err(why) => {
                        let module = self.module_for(&mut ex.modules, 0, block, &params, None, &self.entry);
                        ex.configs.push(self.invalid_config(block, params, module, why));
                        continue;
                    }
                }
                let config = self.config(&mut ex.modules, 0, &self.entry, block, params);
                ex.configs.push(config);
            }
        }
        // Nothing can run: the file or the sizes are wrong, not one configuration.
        if let Some(first) = ex.configs.first().and_then(|c| c.invalid.clone())
            && ex.configs.iter().all(|c| c.invalid.is_some())
        {
            return Err(Error::usage(first));
        }
        if let Expected::Reference(r) = &self.verify.expected {
            let mut params: Vec<(String, Value)> = lists.iter().map(|(n, v)| (n.clone(), v[0].clone())).collect();
            for (n, v) in &r.params {
                if let Some(slot) = params.iter_mut().find(|(p, _)| p == n) {
                    slot.1 = v.clone();
                }
            }
            let reference = self.config(&mut ex.modules, r.source, &r.entry, r.block, params);
            if let Some(why) = &reference.invalid {
                return Err(self.error(r.entry_at, format!("reference kernel at block {}: {why}", r.block)));
            }
            ex.reference = Some(reference);
        }
        Ok(ex)
    }

    /// The names every configuration's expressions read: sizes, parameters, the block.
    fn vars(&self, block: Dim3, params: &[(String, Value)]) -> Vec<(String, Value)> {
        let mut v: Vec<(String, Value)> = self.sizes.iter().map(|s| (s.name.clone(), s.value.clone())).collect();
        v.extend(params.iter().cloned());
        v.extend(self.block_names.iter().zip(block.to_array()).map(|(n, x)| (n.clone(), Value::Int(x as i64))));
        v
    }

    /// The file's `[defines]` at a configuration.
    fn define_values(
        &self,
        block: Dim3,
        params: &[(String, Value)],
    ) -> std::result::Result<Vec<(String, Value)>, String> {
        let vars = self.vars(block, params);
        let lookup = |n: &str| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        self.defines.iter().map(|(n, e)| Ok((n.clone(), self.eval(e, &lookup).map_err(|x| x.to_string())?))).collect()
    }

    /// Whether a restriction removes the configuration; `Err` when one does not evaluate.
    fn restricted_out(&self, block: Dim3, params: &[(String, Value)]) -> std::result::Result<bool, String> {
        let vars = self.vars(block, params);
        let lookup = |n: &str| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        for r in &self.restrictions {
            match self.eval(r, &lookup).map_err(|e| e.to_string())? {
                Value::Bool(true) => {}
                Value::Bool(false) => return Ok(true),
                v => {
                    return Err(self
                        .expr_error(r, 0, format!("a restriction must be true or false, not {v}"))
                        .to_string());
                }
            }
        }
        Ok(false)
    }

    /// The module of a configuration: its source with the parameters and, where the source uses them,
    /// the block and grid extents as `#define`s.
    fn module_for(
        &self,
        modules: &mut Vec<ModuleSpec>,
        source: usize,
        block: Dim3,
        params: &[(String, Value)],
        grid: Option<Dim3>,
        entry: &str,
    ) -> usize {
        let mut unroll = Vec::new();
        let defines = match &self.sources[source].image {
            Image::Cuda(_) => {
                let ids = &self.sources[source].ids;
                let mut d: Vec<(String, String)> = Vec::new();
                for (n, v) in params {
                    match v {
                        Value::Int(i) if n.contains(LOOP_UNROLL) => unroll.push((n.clone(), *i)),
                        _ => d.push((n.clone(), v.to_string())),
                    }
                }
                if ids.contains(KERNEL_TUNER) {
                    d.push((KERNEL_TUNER.to_string(), "1".to_string()));
                }
                for (n, x) in self.block_names.iter().zip(block.to_array()) {
                    if ids.contains(n) {
                        d.push((n.clone(), x.to_string()));
                    }
                }
                if let Some(g) = grid {
                    for (n, x) in GRID_NAMES.iter().zip(g.to_array()) {
                        if ids.contains(*n) {
                            d.push((n.to_string(), x.to_string()));
                        }
                    }
                }
                d
            }
            _ => Vec::new(),
        };
        let instantiate = match &self.sources[source].image {
            Image::Cuda(_) if entry.contains('<') => vec![entry.to_string()],
            _ => Vec::new(),
        };
        let spec = ModuleSpec { source, defines, instantiate, unroll };
        match modules.iter().position(|m| *m == spec) {
            Some(i) => i,
            None => {
                modules.push(spec);
                modules.len() - 1
            }
        }
    }

    fn invalid_config(&self, block: Dim3, params: Vec<(String, Value)>, module: usize, why: String) -> Config {
        Config {
            block,
            params,
            module,
            entry: self.entry.clone(),
            grid: Dim3::new(0, 0, 0),
            dynamic_smem: 0,
            buffers: Vec::new(),
            args: Vec::new(),
            constants: Vec::new(),
            invalid: Some(why),
        }
    }

    fn config(
        &self,
        modules: &mut Vec<ModuleSpec>,
        source: usize,
        entry: &str,
        block: Dim3,
        params: Vec<(String, Value)>,
    ) -> Config {
        // The entry's template arguments may name sizes, parameters, the block's sizes and the grid's:
        // the names expressions see.
        let values = |grid: Option<Dim3>| -> Vec<(String, String)> {
            let mut v: Vec<(String, String)> =
                self.vars(block, &params).into_iter().map(|(n, x)| (n, x.to_string())).collect();
            if let Some(g) = grid {
                v.extend(GRID_NAMES.iter().zip(g.to_array()).map(|(n, x)| (n.to_string(), x.to_string())));
            }
            v
        };
        // The file's [defines] join the parameters in the module's defines (not in the record's).
        let defined = self.define_values(block, &params);
        let mut compiled = params.clone();
        compiled.extend(defined.clone().unwrap_or_default());
        let mut c = match (self.evaluate(block, &params), defined) {
            (Ok((grid, dynamic_smem, (buffers, constants), args)), Ok(_)) => {
                let entry = instantiate(entry, &values(Some(grid)));
                let module = self.module_for(modules, source, block, &compiled, Some(grid), &entry);
                Config { block, params, module, entry, grid, dynamic_smem, buffers, args, constants, invalid: None }
            }
            (Err(why), _) | (_, Err(why)) => {
                let entry = instantiate(entry, &values(None));
                let module = self.module_for(modules, source, block, &compiled, None, &entry);
                let mut c = self.invalid_config(block, params, module, why);
                c.entry = entry;
                c
            }
        };
        // A define the source fixes at another value would not reach the kernel.
        if c.invalid.is_none() {
            c.invalid = modules[c.module].defines.iter().find_map(|(n, v)| {
                let fixed = self.fixed.get(source)?.iter().find(|f| f.name == *n)?;
                fixed
                    .contradicts(&Value::parse_word(v))
                    .then(|| format!("{}: {n} = {v} here would not reach the kernel", fixed.describe()))
            });
        }
        if c.invalid.is_none() {
            c.invalid = c.buffers.iter().chain(&c.constants).find_map(|b| match &b.init {
                Some(Init::Npy(p)) => super::data::check_npy(p, b.ty, b.len).err().map(|e| {
                    // A vector buffer's file holds its scalars: say how many vectors that is.
                    let spec = self.args.iter().chain(&self.constants).nth(b.arg);
                    match spec.filter(|a| a.lanes > 1) {
                        Some(a) => format!(
                            "init of {}: {e} ({} {} of {} {} each)",
                            b.name,
                            b.len / a.lanes as u64,
                            a.type_name(),
                            a.lanes,
                            a.ty
                        ),
                        None => format!("init of {}: {e}", b.name),
                    }
                }),
                _ => None,
            });
        }
        if c.invalid.is_none()
            && let Some(avail) = crate::capacity::host_available()
            && c.host_bytes() > avail
        {
            c.invalid = Some(format!(
                "needs {:.2} GB of host memory (inputs, outputs, expected values), {:.2} GB available: choose smaller sizes",
                c.host_bytes() as f64 / 1e9,
                avail as f64 / 1e9
            ));
        }
        c
    }

    #[allow(clippy::type_complexity)]
    fn evaluate(
        &self,
        block: Dim3,
        params: &[(String, Value)],
    ) -> std::result::Result<(Dim3, u32, (Vec<Buffer>, Vec<Buffer>), Vec<ArgValue>), String> {
        let mut vars = self.vars(block, params);
        let grid = self.grid_of(&vars)?;
        vars.extend(GRID_NAMES.iter().zip(grid.to_array()).map(|(n, x)| (n.to_string(), Value::Int(x as i64))));
        let lookup = |n: &str| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        let eval = |e: &LExpr| self.eval(e, &lookup).map_err(|x| x.to_string());
        let dynamic_smem = match &self.shared_memory {
            Some(e) => self.to_u32(e, &eval(e)?, "shared memory")?,
            None => 0,
        };
        let (mut buffers, mut args, mut constants) = (Vec::new(), Vec::new(), Vec::new());
        for (i, a) in self.args.iter().chain(&self.constants).enumerate() {
            match &a.kind {
                ArgKind::Buffer { len, role, init } => {
                    let n = self.whole(len, &eval(len)?)?;
                    if n < 1 {
                        return Err(self
                            .expr_error(len, 0, format!("{n} elements: a buffer needs at least one"))
                            .to_string());
                    }
                    // A vector type's buffer holds `lanes` scalars per element.
                    let overflow = || {
                        self.expr_error(
                            len,
                            0,
                            format!("{n} elements of {} overflow 64-bit byte counts", a.type_name()),
                        )
                    };
                    let n = (n as u64).checked_mul(a.lanes as u64).ok_or_else(|| overflow().to_string())?;
                    if n.checked_mul(a.ty.size() as u64).is_none_or(|b| b > isize::MAX as u64) {
                        return Err(overflow().to_string());
                    }
                    let b = Buffer {
                        name: a.name.clone(),
                        arg: i,
                        ty: a.ty,
                        len: n,
                        role: *role,
                        init: init.clone(),
                        check: a.check,
                    };
                    if i >= self.args.len() {
                        constants.push(b);
                        continue;
                    }
                    args.push(ArgValue::Buffer(buffers.len()));
                    buffers.push(b);
                }
                ArgKind::Scalar { value } => {
                    let v = eval(value)?;
                    let num = match &v {
                        Value::Int(x) => Num::Int(*x as i128),
                        Value::Float(x) => Num::Float(*x),
                        Value::Bool(b) => Num::Int(*b as i128),
                        Value::Str(s) => {
                            return Err(self.expr_error(value, 0, format!("'{s}' is not a number")).to_string());
                        }
                    };
                    let bytes = a.ty.encode(num).map_err(|e| self.expr_error(value, 0, e).to_string())?;
                    args.push(ArgValue::Scalar { ty: a.ty, value: v, bytes });
                }
            }
        }
        Ok((grid, dynamic_smem, (buffers, constants), args))
    }

    fn grid_of(&self, vars: &[(String, Value)]) -> std::result::Result<Dim3, String> {
        let lookup = |n: &str| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        let eval = |e: &LExpr| self.eval(e, &lookup).map_err(|x| x.to_string());
        let mut g = [1u32; 3];
        match &self.grid {
            GridRule::Explicit(axes) => {
                for (slot, e) in g.iter_mut().zip(axes) {
                    *slot = self.to_u32(e, &eval(e)?, "the grid")?;
                }
            }
            GridRule::Divided { sizes, divisors } => {
                for (axis, size) in sizes.iter().enumerate() {
                    let n = eval(size)?;
                    let mut prod = Value::Int(1);
                    for d in &divisors[axis] {
                        prod = match (prod, eval(d)?) {
                            (Value::Int(a), Value::Int(b)) => Value::Int(a.checked_mul(b).ok_or_else(|| {
                                self.expr_error(d, 0, "the divisors' product overflows 64 bits").to_string()
                            })?),
                            (a, b) => match (num(&a), num(&b)) {
                                (Some(a), Some(b)) => Value::Float(a * b),
                                _ => {
                                    return Err(self
                                        .expr_error(d, 0, format!("a grid divisor must be a number, not {b}"))
                                        .to_string());
                                }
                            },
                        };
                    }
                    let last = divisors[axis].last().unwrap_or(size);
                    let q = match (&n, &prod) {
                        (_, p) if num(p).is_some_and(|p| p <= 0.0) => {
                            return Err(self
                                .expr_error(
                                    last,
                                    0,
                                    format!(
                                        "the divisors of axis {} multiply to {p}, not a positive number",
                                        ["x", "y", "z"][axis]
                                    ),
                                )
                                .to_string());
                        }
                        (Value::Int(a), Value::Int(b)) => {
                            Value::Int(a.div_euclid(*b) + i64::from(a.rem_euclid(*b) != 0))
                        }
                        (a, b) => match (num(a), num(b)) {
                            (Some(a), Some(b)) => Value::Float((a / b).ceil()),
                            _ => {
                                return Err(self
                                    .expr_error(size, 0, format!("problem_size must be a number, not {n}"))
                                    .to_string());
                            }
                        },
                    };
                    g[axis] = self.to_u32(size, &q, "the grid")?;
                }
            }
        }
        Ok(Dim3::from(g))
    }

    /// A value as a whole number (an integral float is accepted).
    fn whole(&self, e: &LExpr, v: &Value) -> std::result::Result<i64, String> {
        match v {
            Value::Int(i) => Ok(*i),
            Value::Float(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Ok(*x as i64),
            other => Err(self
                .expr_error(e, 0, format!("{other} is not a whole number (use // or ceil() for integer division)"))
                .to_string()),
        }
    }

    fn to_u32(&self, e: &LExpr, v: &Value, what: &str) -> std::result::Result<u32, String> {
        let i = self.whole(e, v)?;
        u32::try_from(i)
            .map_err(|_| self.expr_error(e, 0, format!("{what} = {i} does not fit in 0..{}", u32::MAX)).to_string())
    }
}

fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(x) => Some(*x),
        _ => None,
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn template_arguments_take_the_parameters_values() {
        let v = |pairs: &[(&str, &str)]| pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
        let vals = v(&[("block_size_x", "16"), ("T", "float"), ("tile", "4")]);
        assert_eq!(instantiate("MatrixMulCUDA<block_size_x>", &vals), "MatrixMulCUDA<16>");
        assert_eq!(instantiate("k<T, tile * 2, block_size_xx>", &vals), "k<float, 4 * 2, block_size_xx>");
        // Only the template's arguments: the name stays, numbers' suffixes stay.
        assert_eq!(instantiate("tile<8u>", &vals), "tile<8u>");
        assert_eq!(instantiate("block_size_x", &vals), "block_size_x");
    }
    use super::*;

    /// A kernel file over `cu` with `extra` appended (blocks of 64 and 128, UNROLL 1 and 2).
    fn expanded(cu: &str, extra: &str, sizes: &[(&str, &str)]) -> Result<Expansion> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("k.cu"), cu).unwrap();
        let toml = format!(
            "source = \"k.cu\"\nentry = \"k\"\nproblem_size = \"n\"\n[sizes]\nn = 1024\n[tune_params]\nblock_size_x = [64, 128]\nUNROLL = [1, 2]\n{extra}\n[[args]]\nname = \"a\"\ntype = \"f32\"\nlen = \"n\"\noutput = true\n"
        );
        std::fs::write(dir.path().join("k.toml"), toml).unwrap();
        let sizes: Vec<(String, String)> = sizes.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        KernelFile::load(&dir.path().join("k.toml"), &sizes)?.expand(None, &[], crate::error::Input::name)
    }

    fn invalid(ex: &Expansion) -> Vec<String> {
        ex.configs.iter().filter_map(|c| c.invalid.clone()).collect()
    }

    #[test]
    fn defines_the_source_fixes_make_other_values_invalid() {
        // Kernel Tuner's matmul.cu: `#define WIDTH 4096`, no #ifndef: only n = 4096 reaches the kernel.
        let cu = "#define WIDTH 4096\n__global__ void k(float *a) { a[0] = WIDTH * UNROLL; }\n";
        let ex = expanded(cu, "[defines]\nWIDTH = \"n\"", &[("n", "4096")]).unwrap();
        assert!(invalid(&ex).is_empty(), "{:?}", invalid(&ex));
        assert!(ex.modules.iter().all(|m| m.defines.contains(&("WIDTH".into(), "4096".into()))), "{:?}", ex.modules);
        // Every configuration invalid: the reason is the error.
        let e = expanded(cu, "[defines]\nWIDTH = \"n\"", &[]).unwrap_err().to_string();
        assert!(
            e.ends_with("k.cu:1 fixes WIDTH at 4096 (a #define outside #ifndef WIDTH): WIDTH = 1024 here would not reach the kernel"),
            "{e}"
        );
        // A parameter the source fixes: its other values are invalid rows, the fixed one runs.
        let cu = "#define UNROLL 2\n__global__ void k(float *a) { a[0] = UNROLL; }\n";
        let ex = expanded(cu, "", &[]).unwrap();
        assert_eq!(ex.configs.iter().filter(|c| c.invalid.is_none()).count(), 2);
        assert!(invalid(&ex).iter().all(|w| w.contains("fixes UNROLL at 2") && w.contains("UNROLL = 1 here")));
        // Guarded, it yields: every configuration runs.
        let cu = "#ifndef UNROLL\n#define UNROLL 2\n#endif\n__global__ void k(float *a) { a[0] = UNROLL; }\n";
        assert!(invalid(&expanded(cu, "", &[]).unwrap()).is_empty());
        // A block extent the source fixes: the other blocks would run a kernel written for 128.
        let cu = "#define block_size_x 128\n__global__ void k(float *a) { a[0] = UNROLL * block_size_x; }\n";
        let ex = expanded(cu, "", &[]).unwrap();
        assert!(invalid(&ex).iter().all(|w| w.contains("fixes block_size_x at 128") && w.contains("= 64 here")));
        assert_eq!(invalid(&ex).len(), 2);
        // A value the text cannot judge (the launch's own extent) invalidates nothing.
        let cu = "#define block_size_x blockDim.x\n__global__ void k(float *a) { a[0] = UNROLL * block_size_x; }\n";
        assert!(invalid(&expanded(cu, "", &[]).unwrap()).is_empty());
    }

    #[test]
    fn kernel_tuner_is_defined_where_the_source_asks() {
        // Kernel Tuner defines `kernel_tuner`; sources keep their stand-alone defaults behind it.
        let cu = "#ifndef kernel_tuner\n#define block_size_x 256\n#endif\n__global__ void k(float *a) { a[0] = UNROLL * block_size_x; }\n";
        let ex = expanded(cu, "", &[]).unwrap();
        assert!(invalid(&ex).is_empty(), "{:?}", invalid(&ex));
        assert!(ex.modules.iter().all(|m| m.defines.contains(&("kernel_tuner".into(), "1".into()))));
        let plain = expanded("__global__ void k(float *a) { a[0] = UNROLL; }\n", "", &[]).unwrap();
        assert!(plain.modules.iter().all(|m| m.defines.iter().all(|(n, _)| n != "kernel_tuner")));
    }

    #[test]
    fn file_defines_are_checked() {
        let cu = "__global__ void k(float *a) { a[0] = UNROLL * W; }\n";
        let e = expanded(cu, "[defines]\nV = \"n\"", &[]).unwrap_err().to_string();
        assert!(e.contains("V never appears in"), "{e}");
        let e = expanded(cu, "[defines]\nW = \"m\"", &[]).unwrap_err().to_string();
        assert!(e.contains("unknown name 'm'"), "{e}");
        let e = expanded(cu, "[defines]\nUNROLL = \"n\"", &[]).unwrap_err().to_string();
        assert!(e.contains("already a parameter"), "{e}");
        // From parameters and the block too; the record's parameters stay the swept ones.
        let ex = expanded(cu, "[defines]\nW = \"2 * UNROLL * block_size_x\"", &[]).unwrap();
        assert_eq!(ex.configs[1].params, vec![("UNROLL".to_string(), Value::Int(2))]);
        assert!(ex.modules[ex.configs[1].module].defines.contains(&("W".into(), "256".into())));
    }

    #[test]
    fn defines_from_the_command_line() {
        let (n, v) = parse_define("tile_x=1,2,8..10").unwrap();
        assert_eq!(n, "tile_x");
        assert_eq!(v, vec![Value::Int(1), Value::Int(2), Value::Int(8), Value::Int(9), Value::Int(10)]);
        let (_, v) = parse_define("T=float,double").unwrap();
        assert_eq!(v, vec![Value::Str("float".into()), Value::Str("double".into())]);
        assert!(parse_define("tile").unwrap_err().to_string().contains("NAME=VALUE"));
        assert!(parse_define("a b=1").is_err());
        assert!(parse_define("t=").unwrap_err().to_string().contains("no value"));
        assert!(parse_define("t=9..1").is_err());
    }
}
