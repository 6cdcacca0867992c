//! Typed host data for users' kernels: element types (`f32`, `i64`, `f16` ...), buffers of raw
//! little-endian bytes that the driver copies as they are, how an input is filled (uniform random, zeros,
//! a constant, a sequence, a `.npy` file), the poison written into outputs, and elements read back as
//! numbers for verification.

use std::fmt;
use std::path::Path;

use half::{bf16, f16};
use rayon::prelude::*;

/// An element type of a buffer or a scalar argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// IEEE half (`__half`).
    F16,
    /// bfloat16 (`__nv_bfloat16`).
    Bf16,
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `signed char` / `int8_t`.
    I8,
    /// `short`.
    I16,
    /// `int`.
    I32,
    /// `long long`.
    I64,
    /// `unsigned char`.
    U8,
    /// `unsigned short`.
    U16,
    /// `unsigned int`.
    U32,
    /// `unsigned long long`.
    U64,
}

/// Every type, with its name in kernel files.
pub const TYPES: &[(&str, ElemType)] = &[
    ("f16", ElemType::F16),
    ("bf16", ElemType::Bf16),
    ("f32", ElemType::F32),
    ("f64", ElemType::F64),
    ("i8", ElemType::I8),
    ("i16", ElemType::I16),
    ("i32", ElemType::I32),
    ("i64", ElemType::I64),
    ("u8", ElemType::U8),
    ("u16", ElemType::U16),
    ("u32", ElemType::U32),
    ("u64", ElemType::U64),
];

impl ElemType {
    /// The type called `name` (`f32`; C spellings `float`, `int`, `double` ... too).
    pub fn parse(name: &str) -> Option<ElemType> {
        let alias = match name {
            "half" | "__half" => "f16",
            "__nv_bfloat16" => "bf16",
            "float" => "f32",
            "double" => "f64",
            "int8_t" | "char" | "signed char" => "i8",
            "int16_t" | "short" => "i16",
            "int" | "int32_t" => "i32",
            // (LP64: `long` is 8 bytes on Linux, where the device's `long` matches the host's)
            "int64_t" | "long long" | "long" | "long int" => "i64",
            "uint8_t" | "unsigned char" => "u8",
            "uint16_t" | "unsigned short" => "u16",
            "unsigned" | "unsigned int" | "uint32_t" => "u32",
            "uint64_t" | "unsigned long long" | "unsigned long" | "size_t" => "u64",
            other => other,
        };
        TYPES.iter().find(|(n, _)| *n == alias).map(|(_, t)| *t)
    }

    /// A buffer's element as a kernel declares it: a scalar type (lanes 1), or one of CUDA's vector
    /// types of 1 to 4 scalars (`float4`, `int2`, `uchar4`, `double2`, `__half2`, `__nv_bfloat162`; the
    /// `_16a`/`_32a` alignment variants of the 4-lane 64-bit ones; also this format's `f32x4`), as
    /// (scalar type, lanes). A vector's lanes lie in memory one after the other, as the scalars of an
    /// array would (`float3` too: 12 bytes), so a buffer of n `float4` is 4n `f32`.
    pub fn parse_vector(name: &str) -> Option<(ElemType, u32)> {
        if let Some(t) = ElemType::parse(name) {
            return Some((t, 1));
        }
        let name = name.strip_suffix("_16a").or_else(|| name.strip_suffix("_32a")).unwrap_or(name);
        match name {
            "half2" | "__half2" => return Some((ElemType::F16, 2)),
            "nv_bfloat162" | "__nv_bfloat162" => return Some((ElemType::Bf16, 2)),
            _ => {}
        }
        if let Some((scalar, lanes)) = name.rsplit_once('x')
            && let (Some(t), Ok(l @ 1..=4)) = (ElemType::parse(scalar), lanes.parse::<u32>())
            && TYPES.iter().any(|(n, _)| *n == scalar)
        {
            return Some((t, l));
        }
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (base, lanes) = name.split_at(name.len() - digits);
        let lanes: u32 = lanes.parse().ok().filter(|l| (1..=4).contains(l))?;
        let t = match base {
            "char" => ElemType::I8,
            "uchar" => ElemType::U8,
            "short" => ElemType::I16,
            "ushort" => ElemType::U16,
            "int" => ElemType::I32,
            "uint" => ElemType::U32,
            "long" | "longlong" => ElemType::I64,
            "ulong" | "ulonglong" => ElemType::U64,
            "float" => ElemType::F32,
            "double" => ElemType::F64,
            _ => return None,
        };
        Some((t, lanes))
    }

    /// CUDA's name of `lanes` of this type (`float4`), or the type's own name for one lane (`f32`).
    pub fn vector_name(self, lanes: u32) -> String {
        if lanes == 1 {
            return self.to_string();
        }
        let base = match self {
            ElemType::F16 => return format!("__half{lanes}"),
            ElemType::Bf16 => return format!("__nv_bfloat16{lanes}"),
            ElemType::F32 => "float",
            ElemType::F64 => "double",
            ElemType::I8 => "char",
            ElemType::I16 => "short",
            ElemType::I32 => "int",
            ElemType::I64 => "longlong",
            ElemType::U8 => "uchar",
            ElemType::U16 => "ushort",
            ElemType::U32 => "uint",
            ElemType::U64 => "ulonglong",
        };
        format!("{base}{lanes}")
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            ElemType::I8 | ElemType::U8 => 1,
            ElemType::F16 | ElemType::Bf16 | ElemType::I16 | ElemType::U16 => 2,
            ElemType::F32 | ElemType::I32 | ElemType::U32 => 4,
            ElemType::F64 | ElemType::I64 | ElemType::U64 => 8,
        }
    }

    /// Whether it is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F16 | ElemType::Bf16 | ElemType::F32 | ElemType::F64)
    }

    /// The smallest and largest integer the type holds (integers only).
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            ElemType::I8 => (i8::MIN as i128, i8::MAX as i128),
            ElemType::I16 => (i16::MIN as i128, i16::MAX as i128),
            ElemType::I32 => (i32::MIN as i128, i32::MAX as i128),
            ElemType::I64 => (i64::MIN as i128, i64::MAX as i128),
            ElemType::U8 => (0, u8::MAX as i128),
            ElemType::U16 => (0, u16::MAX as i128),
            ElemType::U32 => (0, u32::MAX as i128),
            ElemType::U64 => (0, u64::MAX as i128),
            _ => return None,
        })
    }

    /// The little-endian bytes of `x` in this type (floats rounded to nearest; integers must be exact and
    /// in range).
    pub fn encode(self, x: Num) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; self.size()];
        self.encode_into(x, &mut out)?;
        Ok(out)
    }

    /// [`ElemType::encode`] into `out` (exactly [`ElemType::size`] bytes), without allocating: what fills
    /// a buffer of hundreds of millions of elements.
    pub fn encode_into(self, x: Num, out: &mut [u8]) -> Result<(), String> {
        match (self, x) {
            (ElemType::F16, n) => out.copy_from_slice(&f16::from_f64(n.as_f64()).to_le_bytes()),
            (ElemType::Bf16, n) => out.copy_from_slice(&bf16::from_f64(n.as_f64()).to_le_bytes()),
            (ElemType::F32, n) => out.copy_from_slice(&(n.as_f64() as f32).to_le_bytes()),
            (ElemType::F64, n) => out.copy_from_slice(&n.as_f64().to_le_bytes()),
            (t, Num::Float(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                return t.encode_into(Num::Int(f as i128), out);
            }
            (t, Num::Float(f)) => return Err(format!("{f} is not a whole number, as {t} needs")),
            (t, Num::Int(i)) => {
                let (lo, hi) = t.int_range().expect("an integer type");
                if i < lo || i > hi {
                    return Err(format!("{i} does not fit in {t} ({lo} to {hi})"));
                }
                out.copy_from_slice(&i.to_le_bytes()[..t.size()]);
            }
        }
        Ok(())
    }

    /// A reader of one element's bytes (exactly [`ElemType::size`] of them) as f64, chosen once for a
    /// whole buffer: what comparing hundreds of millions of elements needs ([`Num::as_f64`] of
    /// [`ElemType::decode`], without the per-element dispatch).
    pub fn to_f64(self) -> fn(&[u8]) -> f64 {
        fn a<const N: usize>(b: &[u8]) -> [u8; N] {
            b[..N].try_into().expect("an element's bytes")
        }
        match self {
            ElemType::F16 => |b| f16::from_le_bytes(a(b)).to_f64(),
            ElemType::Bf16 => |b| bf16::from_le_bytes(a(b)).to_f64(),
            ElemType::F32 => |b| f32::from_le_bytes(a(b)) as f64,
            ElemType::F64 => |b| f64::from_le_bytes(a(b)),
            ElemType::I8 => |b| b[0] as i8 as f64,
            ElemType::I16 => |b| i16::from_le_bytes(a(b)) as f64,
            ElemType::I32 => |b| i32::from_le_bytes(a(b)) as f64,
            ElemType::I64 => |b| i64::from_le_bytes(a(b)) as f64,
            ElemType::U8 => |b| b[0] as f64,
            ElemType::U16 => |b| u16::from_le_bytes(a(b)) as f64,
            ElemType::U32 => |b| u32::from_le_bytes(a(b)) as f64,
            ElemType::U64 => |b| u64::from_le_bytes(a(b)) as f64,
        }
    }

    /// For a float type, a writer of an f64 into one element's bytes (rounded to nearest, as
    /// [`ElemType::encode`] does), chosen once for a whole buffer; `None` for integers.
    pub fn from_f64(self) -> Option<fn(f64, &mut [u8])> {
        Some(match self {
            ElemType::F16 => |x, out| out.copy_from_slice(&f16::from_f64(x).to_le_bytes()),
            ElemType::Bf16 => |x, out| out.copy_from_slice(&bf16::from_f64(x).to_le_bytes()),
            ElemType::F32 => |x, out| out.copy_from_slice(&(x as f32).to_le_bytes()),
            ElemType::F64 => |x, out| out.copy_from_slice(&x.to_le_bytes()),
            _ => return None,
        })
    }

    /// Element `bytes` (exactly [`ElemType::size`] of them) as a number.
    pub fn decode(self, b: &[u8]) -> Num {
        let a8 = |b: &[u8]| -> [u8; 8] {
            let mut a = [0u8; 8];
            a[..b.len()].copy_from_slice(b);
            a
        };
        match self {
            ElemType::F16 => Num::Float(f16::from_le_bytes([b[0], b[1]]).to_f64()),
            ElemType::Bf16 => Num::Float(bf16::from_le_bytes([b[0], b[1]]).to_f64()),
            ElemType::F32 => Num::Float(f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64),
            ElemType::F64 => Num::Float(f64::from_le_bytes(a8(b))),
            ElemType::I8 => Num::Int(b[0] as i8 as i128),
            ElemType::I16 => Num::Int(i16::from_le_bytes([b[0], b[1]]) as i128),
            ElemType::I32 => Num::Int(i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i128),
            ElemType::I64 => Num::Int(i64::from_le_bytes(a8(b)) as i128),
            ElemType::U8 => Num::Int(b[0] as i128),
            ElemType::U16 => Num::Int(u16::from_le_bytes([b[0], b[1]]) as i128),
            ElemType::U32 => Num::Int(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i128),
            ElemType::U64 => Num::Int(u64::from_le_bytes(a8(b)) as i128),
        }
    }

    /// One element of poison for outputs before a verified launch. Floats get a quiet NaN, which never
    /// passes a comparison. Integers have no such value, so there are two patterns: the run whose outputs
    /// are the reference is poisoned with [`Poison::Reference`] and the checked runs with
    /// [`Poison::Checked`], so an element neither run writes differs and fails.
    pub fn poison(self, which: Poison) -> Vec<u8> {
        let byte = match which {
            Poison::Reference => 0xA5,
            Poison::Checked => 0x5A,
        };
        match self {
            ElemType::F16 => 0x7E00u16.to_le_bytes().to_vec(),
            ElemType::Bf16 => 0x7FC0u16.to_le_bytes().to_vec(),
            ElemType::F32 => 0x7FC0_0000u32.to_le_bytes().to_vec(),
            // A quiet NaN whose two 32-bit halves are equal: the device fills it by 32-bit words.
            ElemType::F64 => 0x7FF8_0000_7FF8_0000u64.to_le_bytes().to_vec(),
            t => vec![byte; t.size()],
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = TYPES.iter().find(|(_, t)| t == self).map_or("?", |(n, _)| n);
        f.write_str(name)
    }
}

/// Which run an output's poison is for (see [`ElemType::poison`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Poison {
    /// The run that gives the expected outputs (a reference kernel, or the first configuration).
    Reference,
    /// A run being checked.
    Checked,
}

/// A number on its way into or out of a typed buffer: integers exact, floats as f64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// Any integer of any element type.
    Int(i128),
    /// Any float.
    Float(f64),
}

impl Num {
    /// As f64 (integers beyond 2^53 rounded).
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(x) => x,
        }
    }
}

/// A buffer's contents on the host: `ty` elements as little-endian bytes, what the driver copies.
#[derive(Clone, Debug, PartialEq)]
pub struct HostData {
    /// The element type.
    pub ty: ElemType,
    /// The elements' bytes.
    pub bytes: Vec<u8>,
}

impl HostData {
    /// Elements.
    pub fn len(&self) -> usize {
        self.bytes.len() / self.ty.size()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Element `i` as a number.
    pub fn get(&self, i: usize) -> Num {
        let s = self.ty.size();
        self.ty.decode(&self.bytes[i * s..(i + 1) * s])
    }

    /// `len` elements of poison (see [`ElemType::poison`]).
    pub fn poisoned(ty: ElemType, len: usize, which: Poison) -> HostData {
        HostData { ty, bytes: ty.poison(which).repeat(len) }
    }
}

/// How an input buffer is filled.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// Uniform random in `[lo, hi)` (integers: `lo..hi`, `hi` excluded), reproducible from the seed.
    Uniform(f64, f64),
    /// All zero.
    Zeros,
    /// Every element the same value.
    Constant(Num),
    /// Element i = start + i * step.
    Sequence(Num, Num),
    /// A NumPy `.npy` file (its dtype must be the buffer's type and it must hold exactly len elements).
    Npy(std::path::PathBuf),
}

impl fmt::Display for Init {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = |x: &Num| match x {
            Num::Int(i) => i.to_string(),
            Num::Float(v) => v.to_string(),
        };
        match self {
            Init::Uniform(lo, hi) => write!(f, "uniform [{lo}, {hi})"),
            Init::Zeros => write!(f, "zeros"),
            Init::Constant(c) => write!(f, "constant {}", n(c)),
            Init::Sequence(a, s) => write!(f, "sequence {} + {} i", n(a), n(s)),
            Init::Npy(p) => write!(f, "{}", p.display()),
        }
    }
}

const CHUNK: usize = 1 << 16;

/// SplitMix64 of a counter: the random stream of element `i` of stream `stream`.
fn mix(seed: u64, stream: u32, i: u64) -> u64 {
    let base = seed ^ (stream as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
    let mut z = base.wrapping_add((i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Init {
    /// `len` elements of `ty`, generated in parallel; `stream` separates the buffers of one problem.
    pub fn generate(&self, ty: ElemType, len: usize, seed: u64, stream: u32) -> Result<HostData, String> {
        let size = ty.size();
        let element = |i: u64| -> Result<Num, String> {
            Ok(match self {
                Init::Uniform(lo, hi) if ty.is_float() => {
                    // 53 random bits in [0, 1).
                    let u = (mix(seed, stream, i) >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                    Num::Float(lo + u * (hi - lo))
                }
                Init::Uniform(lo, hi) => {
                    let (lo, hi) = (lo.ceil() as i128, hi.ceil() as i128);
                    let span = (hi - lo).max(1) as u128;
                    Num::Int(lo + ((mix(seed, stream, i) as u128 * span) >> 64) as i128)
                }
                Init::Zeros => Num::Int(0),
                Init::Constant(c) => *c,
                Init::Sequence(a, s) => match (a, s) {
                    (Num::Int(a), Num::Int(s)) => Num::Int(a + s * i as i128),
                    _ => Num::Float(a.as_f64() + s.as_f64() * i as f64),
                },
                Init::Npy(_) => unreachable!("read whole below"),
            })
        };
        if let Init::Npy(path) = self {
            return read_npy(path, ty, len);
        }
        // Check the range once with the extremes, then fill without per-element errors.
        for probe in [0, len.saturating_sub(1) as u64] {
            ty.encode(element(probe)?)?;
        }
        let mut bytes = vec![0u8; len * size];
        // Zeros are what the allocation holds; uniform floats, most inputs, are written without a number
        // or a result per element (10x faster: 1 GiB of f32 in about 0.1 s on 16 cores).
        if let Init::Zeros = self {
            return Ok(HostData { ty, bytes });
        }
        if let (Init::Uniform(lo, hi), Some(put)) = (self, ty.from_f64()) {
            let (lo, span) = (*lo, hi - lo);
            bytes.par_chunks_mut(CHUNK * size).enumerate().for_each(|(c, out)| {
                for (k, slot) in out.chunks_exact_mut(size).enumerate() {
                    let u = (mix(seed, stream, (c * CHUNK + k) as u64) >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                    put(lo + u * span, slot);
                }
            });
            return Ok(HostData { ty, bytes });
        }
        bytes.par_chunks_mut(CHUNK * size).enumerate().try_for_each(|(c, out)| -> Result<(), String> {
            for (k, slot) in out.chunks_exact_mut(size).enumerate() {
                let i = (c * CHUNK + k) as u64;
                ty.encode_into(element(i)?, slot)?;
            }
            Ok(())
        })?;
        Ok(HostData { ty, bytes })
    }
}

/// Checks a `.npy` file's header (dtype and element count) against a buffer without reading its data.
pub fn check_npy(path: &Path, ty: ElemType, len: u64) -> Result<(), String> {
    let shown = path.display();
    let f = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let npy = npyz::NpyFile::new(std::io::BufReader::new(f)).map_err(|e| format!("{shown}: not a .npy file: {e}"))?;
    let count: u64 = npy.shape().iter().product();
    if count != len {
        return Err(format!("{shown} holds {count} elements (shape {:?}), the buffer needs {len}", npy.shape()));
    }
    let descr = npy.dtype().descr().trim_matches('\'').to_string();
    let want = match ty {
        ElemType::F16 => "f2",
        ElemType::Bf16 => return Err(format!("{shown}: NumPy has no bfloat16 dtype; fill bf16 buffers otherwise")),
        ElemType::F32 => "f4",
        ElemType::F64 => "f8",
        ElemType::I8 => "i1",
        ElemType::I16 => "i2",
        ElemType::I32 => "i4",
        ElemType::I64 => "i8",
        ElemType::U8 => "u1",
        ElemType::U16 => "u2",
        ElemType::U32 => "u4",
        ElemType::U64 => "u8",
    };
    if !descr.ends_with(want) || descr.starts_with('>') {
        return Err(format!("{shown} holds {descr}, the buffer is {ty} (<{want})"));
    }
    Ok(())
}

/// A `.npy` file as a buffer of `ty` with `len` elements.
pub fn read_npy(path: &Path, ty: ElemType, len: usize) -> Result<HostData, String> {
    let shown = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    let npy = npyz::NpyFile::new(&bytes[..]).map_err(|e| format!("{shown}: not a .npy file: {e}"))?;
    let count: u64 = npy.shape().iter().product();
    if count != len as u64 {
        return Err(format!("{shown} holds {count} elements (shape {:?}), the buffer needs {len}", npy.shape()));
    }
    if npy.order() == npyz::Order::Fortran && npy.shape().iter().filter(|&&d| d > 1).count() > 1 {
        return Err(format!("{shown} is in Fortran order: save it in C order (numpy.ascontiguousarray)"));
    }
    let dtype = npy.dtype().descr();
    let wrong = |_| format!("{shown} holds {dtype}, the buffer is {ty}");
    let le = |v: Vec<u8>| HostData { ty, bytes: v };
    macro_rules! read {
        ($t:ty) => {
            le(npy.into_vec::<$t>().map_err(wrong)?.iter().flat_map(|x| x.to_le_bytes()).collect())
        };
    }
    Ok(match ty {
        ElemType::F16 => read!(f16),
        ElemType::Bf16 => return Err(format!("{shown}: NumPy has no bfloat16 dtype; fill bf16 buffers otherwise")),
        ElemType::F32 => read!(f32),
        ElemType::F64 => read!(f64),
        ElemType::I8 => read!(i8),
        ElemType::I16 => read!(i16),
        ElemType::I32 => read!(i32),
        ElemType::I64 => read!(i64),
        ElemType::U8 => read!(u8),
        ElemType::U16 => read!(u16),
        ElemType::U32 => read!(u32),
        ElemType::U64 => read!(u64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_and_sizes() {
        assert_eq!(ElemType::parse("f32"), Some(ElemType::F32));
        assert_eq!(ElemType::parse("double"), Some(ElemType::F64));
        assert_eq!(ElemType::parse("unsigned int"), Some(ElemType::U32));
        assert_eq!(ElemType::parse("f128"), None);
        assert_eq!(ElemType::F16.size(), 2);
        assert_eq!(ElemType::U64.size(), 8);
        assert_eq!(ElemType::I64.to_string(), "i64");
    }

    #[test]
    fn vector_types_are_their_scalars_in_lanes() {
        assert_eq!(ElemType::parse_vector("float4"), Some((ElemType::F32, 4)));
        assert_eq!(ElemType::parse_vector("float3"), Some((ElemType::F32, 3)));
        assert_eq!(ElemType::parse_vector("uchar4"), Some((ElemType::U8, 4)));
        assert_eq!(ElemType::parse_vector("int2"), Some((ElemType::I32, 2)));
        assert_eq!(ElemType::parse_vector("ulong2"), Some((ElemType::U64, 2)));
        assert_eq!(ElemType::parse_vector("longlong1"), Some((ElemType::I64, 1)));
        assert_eq!(ElemType::parse_vector("double4_32a"), Some((ElemType::F64, 4)));
        assert_eq!(ElemType::parse_vector("__half2"), Some((ElemType::F16, 2)));
        assert_eq!(ElemType::parse_vector("__nv_bfloat162"), Some((ElemType::Bf16, 2)));
        assert_eq!(ElemType::parse_vector("f32x4"), Some((ElemType::F32, 4)));
        assert_eq!(ElemType::parse_vector("float"), Some((ElemType::F32, 1)));
        assert_eq!(ElemType::parse_vector("long"), Some((ElemType::I64, 1)));
        for bad in ["float5", "float0", "f32x8", "floatx4", "vec4", "int16_t4", "x4", "4"] {
            assert_eq!(ElemType::parse_vector(bad), None, "{bad}");
        }
        assert_eq!(ElemType::F32.vector_name(4), "float4");
        assert_eq!(ElemType::U8.vector_name(2), "uchar2");
        assert_eq!(ElemType::F32.vector_name(1), "f32");
        for (t, l) in [(ElemType::F64, 2), (ElemType::I16, 3), (ElemType::U64, 4)] {
            assert_eq!(ElemType::parse_vector(&t.vector_name(l)), Some((t, l)));
        }
    }

    #[test]
    fn encoding_round_trips_and_checks_ranges() {
        for (t, x) in [(ElemType::I32, Num::Int(-5)), (ElemType::U8, Num::Int(255)), (ElemType::F32, Num::Float(1.5))] {
            assert_eq!(t.decode(&t.encode(x).unwrap()), x);
        }
        assert_eq!(ElemType::F16.decode(&ElemType::F16.encode(Num::Float(0.25)).unwrap()), Num::Float(0.25));
        assert_eq!(ElemType::I64.encode(Num::Float(3.0)).unwrap(), 3i64.to_le_bytes());
        assert!(ElemType::U8.encode(Num::Int(256)).unwrap_err().contains("does not fit in u8"));
        assert!(ElemType::U32.encode(Num::Int(-1)).is_err());
        assert!(ElemType::I32.encode(Num::Float(0.5)).unwrap_err().contains("not a whole number"));
    }

    #[test]
    fn fills() {
        let u = Init::Uniform(-1.0, 1.0).generate(ElemType::F32, 100_000, 7, 0).unwrap();
        assert_eq!(u, Init::Uniform(-1.0, 1.0).generate(ElemType::F32, 100_000, 7, 0).unwrap(), "reproducible");
        assert_ne!(u, Init::Uniform(-1.0, 1.0).generate(ElemType::F32, 100_000, 7, 1).unwrap(), "streams differ");
        let xs: Vec<f64> = (0..u.len()).map(|i| u.get(i).as_f64()).collect();
        assert!(xs.iter().all(|x| (-1.0..1.0).contains(x)));
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!(mean.abs() < 0.01, "{mean}");
        let d = Init::Uniform(0.0, 10.0).generate(ElemType::I32, 10_000, 1, 0).unwrap();
        let ds: Vec<i128> = (0..d.len()).map(|i| if let Num::Int(v) = d.get(i) { v } else { -1 }).collect();
        assert!(ds.iter().all(|v| (0..10).contains(v)));
        assert!(ds.contains(&0) && ds.contains(&9));
        let s = Init::Sequence(Num::Int(10), Num::Int(3)).generate(ElemType::I64, 5, 0, 0).unwrap();
        assert_eq!(s.get(4), Num::Int(22));
        let c = Init::Constant(Num::Float(2.5)).generate(ElemType::F64, 3, 0, 0).unwrap();
        assert_eq!(c.get(2), Num::Float(2.5));
        assert_eq!(Init::Zeros.generate(ElemType::U16, 4, 0, 0).unwrap().bytes, vec![0; 8]);
        let e = Init::Sequence(Num::Int(0), Num::Int(1)).generate(ElemType::U8, 1000, 0, 0).unwrap_err();
        assert!(e.contains("999 does not fit in u8"), "{e}");
    }

    /// The uniform floats written without a number per element are the ones [`ElemType::encode`] makes of
    /// the same draws: the inputs of a seed do not depend on the path.
    #[test]
    fn uniform_floats_are_the_encoded_draws() {
        for t in [ElemType::F16, ElemType::Bf16, ElemType::F32, ElemType::F64] {
            let (lo, hi, n) = (-3.0, 5.0, 2 * CHUNK + 5);
            let d = Init::Uniform(lo, hi).generate(t, n, 42, 3).unwrap();
            for i in [0, 1, CHUNK - 1, CHUNK, 2 * CHUNK + 4] {
                let u = (mix(42, 3, i as u64) >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                let want = t.encode(Num::Float(lo + u * (hi - lo))).unwrap();
                assert_eq!(&d.bytes[i * t.size()..(i + 1) * t.size()], &want[..], "{t} element {i}");
            }
        }
        assert_eq!(Init::Zeros.generate(ElemType::F64, 3, 1, 0).unwrap().bytes, vec![0; 24]);
    }

    #[test]
    fn poison_never_looks_written() {
        let p = HostData::poisoned(ElemType::F32, 3, Poison::Checked);
        assert!(p.get(1).as_f64().is_nan());
        for t in [ElemType::F16, ElemType::Bf16, ElemType::F64] {
            assert!(HostData::poisoned(t, 2, Poison::Reference).get(1).as_f64().is_nan(), "{t}");
        }
        let a = HostData::poisoned(ElemType::I32, 1, Poison::Reference);
        let b = HostData::poisoned(ElemType::I32, 1, Poison::Checked);
        assert_ne!(a.get(0), b.get(0));
    }

    /// A version-1 .npy file written by hand, as numpy.save writes it.
    fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend((header.len() as u16).to_le_bytes());
        out.extend(header.as_bytes());
        out.extend(data);
        out
    }

    #[test]
    fn npy_files_are_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.npy");
        let data: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(&p, npy("<f4", "(2, 2)", &data)).unwrap();
        let h = Init::Npy(p.clone()).generate(ElemType::F32, 4, 0, 0).unwrap();
        assert_eq!(h.get(3), Num::Float(4.0));
        assert!(read_npy(&p, ElemType::F32, 5).unwrap_err().contains("holds 4 elements"));
        check_npy(&p, ElemType::F32, 4).unwrap();
        assert!(check_npy(&p, ElemType::F32, 5).unwrap_err().contains("holds 4 elements"));
        assert!(check_npy(&p, ElemType::I32, 4).unwrap_err().contains("the buffer is i32"));
        assert!(read_npy(&p, ElemType::F64, 4).unwrap_err().contains("the buffer is f64"));
        std::fs::write(&p, b"not numpy").unwrap();
        assert!(read_npy(&p, ElemType::F32, 4).unwrap_err().contains("not a .npy file"));
        assert!(read_npy(&dir.path().join("none.npy"), ElemType::F32, 4).is_err());
    }
}
