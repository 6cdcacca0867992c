//! A kernel file's configuration as the time and memory models see it: its PTX, run for sample threads
//! with the configuration's arguments, says where each thread loads and stores (`kernels::Traced`), so
//! its estimates come from its own code, with no access pattern invented.

use std::sync::Arc;

use super::data::ElemType;
use super::expand::{ArgValue, Buffer, Config};
use super::expr::Value;
use super::file::Role;
use crate::kernels::{self, Arg, Launchable, Traced};
use crate::ptx::run::Program;

/// Bytes of a read-only buffer the run reads at most (larger ones are not followed).
pub const MAX_FOLLOWED_BYTES: u64 = 1 << 28;

/// Whether the run may read buffer `b`'s contents: an input (the kernel does not write it) of at most
/// [`MAX_FOLLOWED_BYTES`] — integers (offsets and indices that decide addresses and trip counts) or
/// floats (values a branch compares), the latter only where the code's branches or addresses depend
/// on floats it loads.
pub fn followed(b: &Buffer) -> bool {
    b.role == Role::Input && b.bytes() <= MAX_FOLLOWED_BYTES
}

/// Configuration `c` of a kernel whose module is `ptx`, with entry `entry` (as the PTX spells it), as
/// a kernel the models evaluate; `Err` with the reason they cannot (an argument the run cannot hold, or
/// addresses it cannot follow). `data` gives a [`followed`] buffer's initial contents, where it has
/// them.
pub fn traced(
    name: &str,
    ptx: &str,
    entry: &str,
    c: &Config,
    data: &mut dyn FnMut(&Buffer) -> Option<Arc<[u8]>>,
) -> Result<Traced, String> {
    let args = c.args.iter().map(arg).collect::<Result<Vec<_>, String>>()?;
    let buffers = c
        .buffers
        .iter()
        .map(|b| {
            let role = if b.role == Role::Input { kernels::Role::Input } else { kernels::Role::Output };
            (b.name.clone(), b.bytes(), role, b.role == Role::InOut)
        })
        .collect();
    let program = Program::read(ptx, entry).map_err(|why| format!("its PTX entry {entry} cannot be run: {why}"))?;
    let floats = program.follows_loaded_floats();
    let l = Launchable {
        name: name.into(),
        entry: entry.into(),
        module: format!("user:{}", c.module),
        ptx: ptx.into(),
        problem: c.params_label(),
        buffers,
        args,
        data: c
            .buffers
            .iter()
            .map(|b| if followed(b) && (floats || !b.ty.is_float()) { data(b) } else { None })
            .collect(),
        // The `__constant__` arrays: what the file fills them with, by the names the PTX declares; the
        // others hold their declarations' initial values (warpscope writes nothing else to them).
        constants: program
            .constants()
            .iter()
            .map(|(name, initial)| match c.constants.iter().find(|b| &b.name == name) {
                Some(b) => data(b),
                None => initial.as_deref().map(Arc::from),
            })
            .collect(),
        grid: c.grid,
        dynamic_smem: c.dynamic_smem,
    };
    Traced::with_program(l, program, c.block)
}

/// An argument as the PTX run holds it: integers in 32 bits (its integer registers are exact; a 64-bit
/// value that does not fit, or a negative one, is refused), floats as `f32` (a `double` argument
/// rounded to it: the run widens it again where the code reads it as `.f64`).
fn arg(a: &ArgValue) -> Result<Arg, String> {
    match a {
        ArgValue::Buffer(i) => Ok(Arg::Buf(*i)),
        ArgValue::Scalar { ty, value, .. } => match (ty.is_float(), value) {
            (true, Value::Float(f)) => Ok(Arg::F32(*f as f32)),
            (true, Value::Int(i)) => Ok(Arg::F32(*i as f32)),
            (false, Value::Int(i)) => match (*ty, i32::try_from(*i)) {
                // The run widens a 32-bit argument with zeros: a negative 64-bit one would change.
                (ElemType::I64 | ElemType::U64, Ok(v)) if v < 0 => Err(format!(
                    "its 64-bit argument value {i} is negative, which the model's 32-bit integers do not carry"
                )),
                (_, Ok(v)) => Ok(Arg::I32(v)),
                (ElemType::U32, Err(_)) if u32::try_from(*i).is_ok() => Ok(Arg::I32(*i as u32 as i32)),
                _ => Err(format!("its argument value {i} does not fit the model's 32-bit integers")),
            },
            (false, Value::Bool(b)) => Ok(Arg::I32(i32::from(*b))),
            _ => Err(format!("an argument of type {ty:?} with a value the model cannot hold")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{Kernel, SumMatrix};
    use crate::model::arch::{arch, find_card};
    use crate::model::time::Target;

    /// The seed's kernel given as a kernel file (the PTX warpscope embeds) is modelled as the built-in
    /// kernel is: the same accesses, instructions and times, from its PTX alone.
    #[test]
    fn a_kernel_file_is_modelled_from_its_ptx_as_the_built_in_kernel_is() {
        let sizes = [("nx".to_string(), "1000".to_string()), ("ny".to_string(), "600".to_string())];
        let file = super::super::KernelFile::load("examples/kernels/sum_matrix_ptx.toml".as_ref(), &sizes).unwrap();
        let ex = file.expand(None, &[], crate::Input::name).unwrap();
        let ptx = std::fs::read_to_string("kernels-ptx/sum_matrix.ptx").unwrap();
        let target = Target::from_card(find_card("H200").unwrap(), arch((9, 0)).unwrap());
        let built_in = SumMatrix::new(1000, 600).unwrap();
        assert_eq!(ex.configs.len(), 4);
        for c in &ex.configs {
            let k = traced("sumMatrixOnGPU2D", &ptx, "sumMatrixOnGPU2D", c, &mut |_| None).unwrap();
            assert_eq!(k.grid(c.block), built_in.grid(c.block));
            assert_eq!(k.work().bytes_read, built_in.work().bytes_read);
            assert_eq!(k.work().bytes_written, built_in.work().bytes_written);
            let launch = crate::gpu::Launch { grid: c.grid, block: c.block, dynamic_smem: 0 };
            let (a, b) = (
                crate::model::evaluate(&target, &built_in, &launch, 2, None),
                crate::model::evaluate(&target, &k, &launch, 2, None),
            );
            assert_eq!(a.prediction, b.prediction, "{}", c.block);
            assert_eq!(
                format!("{:?}", a.metrics(1.0, crate::record::Source::Estimated)),
                format!("{:?}", b.metrics(1.0, crate::record::Source::Estimated))
            );
        }
    }

    #[test]
    fn arguments_the_run_cannot_hold_are_refused() {
        let big = ArgValue::Scalar { ty: ElemType::I64, value: Value::Int(1 << 40), bytes: vec![0; 8] };
        assert!(arg(&big).unwrap_err().contains("32-bit"));
        let u = ArgValue::Scalar { ty: ElemType::U32, value: Value::Int(3_000_000_000), bytes: vec![0; 4] };
        assert_eq!(arg(&u).unwrap(), Arg::I32(3_000_000_000u32 as i32));
        let neg = ArgValue::Scalar { ty: ElemType::I64, value: Value::Int(-4), bytes: vec![0; 8] };
        assert!(arg(&neg).unwrap_err().contains("negative"));
        let small = ArgValue::Scalar { ty: ElemType::I32, value: Value::Int(-4), bytes: vec![0; 4] };
        assert_eq!(arg(&small).unwrap(), Arg::I32(-4));
        let f = ArgValue::Scalar { ty: ElemType::F64, value: Value::Float(0.5), bytes: vec![0; 8] };
        assert_eq!(arg(&f).unwrap(), Arg::F32(0.5));
    }
}
