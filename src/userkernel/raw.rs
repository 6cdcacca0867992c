//! The kernel file as TOML says it, with the byte span of every value that an error may have to point at
//! (`toml::Spanned`). Lists that may also be written as one value, and scalars that may be a number or an
//! expression, have visitors of their own: serde's untagged enums would buffer the value and lose its span.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use toml::Spanned;

/// A TOML scalar: a number, a boolean or a string (an expression, or a word).
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(String),
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number, a boolean or a string")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
        Ok(Scalar::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
        i64::try_from(v).map(Scalar::Int).map_err(|_| E::custom(format!("{v} does not fit in 64 bits")))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
        Ok(Scalar::Float(v))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar::Str(v.to_string()))
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

/// One value or a list of them; items keep their spans when written as a list.
#[derive(Clone, Debug, PartialEq)]
pub enum OneOrMany {
    /// `x = 4` (its span is the field's).
    One(Scalar),
    /// `x = [1, 2, 4]`.
    Many(Vec<Spanned<Scalar>>),
}

struct OneOrManyVisitor;

impl<'de> Visitor<'de> for OneOrManyVisitor {
    type Value = OneOrMany;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value or a list of values")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<OneOrMany, E> {
        ScalarVisitor.visit_i64(v).map(OneOrMany::One)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<OneOrMany, E> {
        ScalarVisitor.visit_u64(v).map(OneOrMany::One)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<OneOrMany, E> {
        Ok(OneOrMany::One(Scalar::Float(v)))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<OneOrMany, E> {
        Ok(OneOrMany::One(Scalar::Bool(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<OneOrMany, E> {
        Ok(OneOrMany::One(Scalar::Str(v.to_string())))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OneOrMany, A::Error> {
        let mut out = Vec::new();
        while let Some(x) = seq.next_element::<Spanned<Scalar>>()? {
            out.push(x);
        }
        Ok(OneOrMany::Many(out))
    }
}

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(OneOrManyVisitor)
    }
}

/// A TOML table read in file order (serde's maps would sort it), keys with their spans.
#[derive(Clone, Debug, PartialEq)]
pub struct Entries<V>(pub Vec<(Spanned<String>, V)>);

impl<V> Default for Entries<V> {
    fn default() -> Self {
        Entries(Vec::new())
    }
}

struct EntriesVisitor<V>(std::marker::PhantomData<V>);

impl<'de, V: Deserialize<'de>> Visitor<'de> for EntriesVisitor<V> {
    type Value = Entries<V>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a table")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<V>, A::Error> {
        let mut out = Vec::new();
        while let Some(entry) = map.next_entry::<Spanned<String>, V>()? {
            out.push(entry);
        }
        // The TOML reader hands tables over sorted by key: put them back in the file's order.
        out.sort_by_key(|(k, _)| k.span().start);
        Ok(Entries(out))
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Entries<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(EntriesVisitor(std::marker::PhantomData))
    }
}

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFile {
    pub name: Option<Spanned<String>>,
    #[serde(alias = "kernel_source")]
    pub source: Spanned<String>,
    #[serde(alias = "kernel_name")]
    pub entry: Spanned<String>,
    pub problem_size: Option<Spanned<OneOrMany>>,
    pub grid_div_x: Option<Spanned<OneOrMany>>,
    pub grid_div_y: Option<Spanned<OneOrMany>>,
    pub grid_div_z: Option<Spanned<OneOrMany>>,
    pub grid: Option<Spanned<OneOrMany>>,
    pub restrictions: Option<Spanned<OneOrMany>>,
    #[serde(alias = "smem_size")]
    pub shared_memory: Option<Spanned<Scalar>>,
    pub block_size_names: Option<Spanned<OneOrMany>>,
    #[serde(default)]
    pub compiler_options: Vec<String>,
    #[serde(default)]
    pub sizes: Entries<Spanned<Scalar>>,
    #[serde(default)]
    pub tune_params: Entries<Spanned<OneOrMany>>,
    /// `[defines]`: `NAME = "expression"`, passed to the compiler as `-DNAME=value` in every module.
    #[serde(default)]
    pub defines: Entries<Spanned<Scalar>>,
    #[serde(alias = "arguments")]
    pub args: Vec<Spanned<RawArg>>,
    /// `[[constants]]`: `__constant__` arrays filled before the launches (Kernel Tuner's `cmem_args`).
    #[serde(default, alias = "cmem_args")]
    pub constants: Vec<Spanned<RawArg>>,
    pub verify: Option<Spanned<RawVerify>>,
}

/// One `[[args]]` entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawArg {
    pub name: Spanned<String>,
    #[serde(rename = "type")]
    pub ty: Spanned<String>,
    pub len: Option<Spanned<Scalar>>,
    pub value: Option<Spanned<Scalar>>,
    #[serde(default)]
    pub output: bool,
    /// `verify = false`: an output that is written but not compared (scratch space, or contents no
    /// check applies to).
    pub verify: Option<Spanned<bool>>,
    pub init: Option<Spanned<RawInit>>,
}

/// `init = "zeros"`, `{ uniform = [lo, hi] }`, `{ constant = x }`, `{ sequence = [start, step] }`,
/// `{ npy = "file.npy" }`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawInit {
    Zeros,
    Uniform(Vec<Spanned<Scalar>>),
    Constant(Spanned<Scalar>),
    Sequence(Vec<Spanned<Scalar>>),
    Npy(Spanned<String>),
}

/// `[verify]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVerify {
    pub reference: Option<Spanned<RawReference>>,
    pub expected: Option<Spanned<Entries<Spanned<String>>>>,
    pub same_as_first: Option<Spanned<bool>>,
    pub sums: Option<Spanned<Entries<Spanned<String>>>>,
    pub rtol: Option<Spanned<f64>>,
    pub atol: Option<Spanned<f64>>,
}

/// `reference = { entry = "...", block = "16x16", source = "...", params = { ... } }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawReference {
    pub source: Option<Spanned<String>>,
    pub entry: Spanned<String>,
    pub block: Spanned<Scalar>,
    #[serde(default)]
    pub params: Entries<Spanned<Scalar>>,
}
