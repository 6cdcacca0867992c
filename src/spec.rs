//! What to run: block shapes from the command line (`32x16,64x2`, cartesian `--bx/--by` lists,
//! ranges like `1..16` or `32..1024:32`), parsed into plain values with one-line errors.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Input, Result};

/// A CUDA `dim3`: block or grid extents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "[u32; 3]", into = "[u32; 3]")]
pub struct Dim3 {
    /// Extent along x (the fastest-varying index).
    pub x: u32,
    /// Extent along y.
    pub y: u32,
    /// Extent along z.
    pub z: u32,
}

impl Dim3 {
    /// A dim3 from its three extents.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }

    /// x * y * z, widened so that no product overflows.
    pub fn volume(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    /// The three extents as an array (JSON's `[x, y, z]`).
    pub fn to_array(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }

    /// The seed's notation, `(32,16)`, with z shown only when it is not 1.
    pub fn paren(&self) -> String {
        if self.z == 1 { format!("({},{})", self.x, self.y) } else { format!("({},{},{})", self.x, self.y, self.z) }
    }
}

impl From<[u32; 3]> for Dim3 {
    fn from(a: [u32; 3]) -> Self {
        Dim3::new(a[0], a[1], a[2])
    }
}

impl From<Dim3> for [u32; 3] {
    fn from(d: Dim3) -> Self {
        d.to_array()
    }
}

/// `32x16` or `32x16x2`; z is left out when it is 1.
impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.z == 1 { write!(f, "{}x{}", self.x, self.y) } else { write!(f, "{}x{}x{}", self.x, self.y, self.z) }
    }
}

/// Parses `BX`, `BXxBY` or `BXxBYxBZ` (missing extents are 1).
impl FromStr for Dim3 {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        let parts: Vec<&str> = t.split(['x', 'X']).collect();
        if t.is_empty() || parts.len() > 3 {
            return Err(Error::usage(format!("invalid block '{s}': expected BX, BXxBY or BXxBYxBZ (e.g. 32x16)")));
        }
        let mut v = [1u32; 3];
        for (slot, p) in v.iter_mut().zip(&parts) {
            *slot = parse_u32(p).map_err(|why| Error::usage(format!("invalid block '{s}': {why}")))?;
        }
        Ok(Dim3::from(v))
    }
}

fn parse_u32(p: &str) -> std::result::Result<u32, String> {
    let p = p.trim();
    if p.is_empty() {
        return Err("empty extent".into());
    }
    p.parse::<u32>().map_err(|_| format!("'{p}' is not a whole number from 0 to {}", u32::MAX))
}

/// Parses a comma-separated block list: `32x32,32x16,16x32`.
pub fn parse_block_list(s: &str) -> Result<Vec<Dim3>> {
    let items: Vec<&str> = s.split(',').filter(|p| !p.trim().is_empty()).collect();
    if items.is_empty() {
        return Err(Error::usage(format!("invalid block list '{s}': it names no block")));
    }
    items.into_iter().map(str::parse).collect()
}

/// Parses an integer list: `64,128,256`, ranges `1..16` (inclusive) and stepped ranges `32..1024:32`.
pub fn parse_int_list(s: &str) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    for item in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = |why: String| Error::usage(format!("invalid list '{s}': {why}"));
        if let Some((lo, rest)) = item.split_once("..") {
            let (hi, step) = match rest.split_once(':') {
                Some((hi, step)) => (hi, parse_u32(step).map_err(bad)?),
                None => (rest, 1),
            };
            let (lo, hi) = (parse_u32(lo).map_err(bad)?, parse_u32(hi).map_err(bad)?);
            if step == 0 {
                return Err(bad(format!("step 0 in '{item}'")));
            }
            if lo > hi {
                return Err(bad(format!("range '{item}' is empty (start > end)")));
            }
            let count = (hi - lo) / step + 1;
            if out.len() as u64 + count as u64 > MAX_LIST {
                return Err(bad(format!("more than {MAX_LIST} values")));
            }
            out.extend((0..count).map(|i| lo + i * step));
        } else {
            out.push(parse_u32(item).map_err(bad)?);
        }
    }
    if out.is_empty() {
        return Err(Error::usage(format!("invalid list '{s}': it names no value")));
    }
    Ok(out)
}

/// The most values one list may expand to; a typo like `1..4000000000` fails fast.
pub const MAX_LIST: u64 = 65_536;

/// The cartesian product of per-axis lists, x varying slowest (the seed's order: 64x2, 64x4, ... 128x2).
pub fn cartesian(bx: &[u32], by: &[u32], bz: &[u32]) -> Vec<Dim3> {
    let mut out = Vec::with_capacity(bx.len() * by.len() * bz.len());
    for &x in bx {
        for &y in by {
            for &z in bz {
                out.push(Dim3::new(x, y, z));
            }
        }
    }
    out
}

/// Blocks from either form: an explicit list, or `--bx/--by/--bz` lists (a missing axis is `1`).
/// The two forms together append the cartesian product after the explicit list; duplicates are dropped.
pub fn blocks_from(block: Option<&str>, bx: Option<&str>, by: Option<&str>, bz: Option<&str>) -> Result<Vec<Dim3>> {
    let mut blocks = match block {
        Some(b) => parse_block_list(b)?,
        None => Vec::new(),
    };
    if bx.is_some() || by.is_some() || bz.is_some() {
        let axis = |a: Option<&str>| a.map(parse_int_list).unwrap_or_else(|| Ok(vec![1]));
        let (x, y, z) = (axis(bx)?, axis(by)?, axis(bz)?);
        let total = x.len() as u64 * y.len() as u64 * z.len() as u64;
        if total > MAX_LIST {
            return Err(Error::input(
                Input::Blocks,
                None,
                format!("the lists expand to {total} configs (more than {MAX_LIST})"),
            ));
        }
        blocks.extend(cartesian(&x, &y, &z));
    }
    if blocks.is_empty() {
        return Err(Error::usage("no block given: a list of shapes (32x16,16x16) or lists of x, y and z extents"));
    }
    let mut seen = std::collections::HashSet::new();
    blocks.retain(|b| seen.insert(*b));
    Ok(blocks)
}

/// Block shapes as a front end takes them: a list (`32x16,16x16`) and per-dimension lists (`64,128`,
/// `32..1024:32`) whose cartesian product follows it.
#[derive(Clone, Debug, Default)]
pub struct BlockLists {
    /// An explicit list of shapes.
    pub block: Option<String>,
    /// block.x values.
    pub bx: Option<String>,
    /// block.y values.
    pub by: Option<String>,
    /// block.z values.
    pub bz: Option<String>,
}

impl BlockLists {
    /// The shapes ([`blocks_from`]): at least one.
    pub fn shapes(&self) -> Result<Vec<Dim3>> {
        blocks_from(self.block.as_deref(), self.bx.as_deref(), self.by.as_deref(), self.bz.as_deref())
    }

    /// The shapes when any list is given; `None` when none is (a kernel file's own lists then apply).
    pub fn given(&self) -> Result<Option<Vec<Dim3>>> {
        match (&self.block, &self.bx, &self.by, &self.bz) {
            (None, None, None, None) => Ok(None),
            _ => self.shapes().map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dim3_forms() {
        assert_eq!("32x16".parse::<Dim3>().unwrap(), Dim3::new(32, 16, 1));
        assert_eq!("256".parse::<Dim3>().unwrap(), Dim3::new(256, 1, 1));
        assert_eq!(" 8X8x4 ".parse::<Dim3>().unwrap(), Dim3::new(8, 8, 4));
        assert_eq!(Dim3::new(32, 16, 1).to_string(), "32x16");
        assert_eq!(Dim3::new(8, 8, 4).to_string(), "8x8x4");
        assert_eq!(Dim3::new(512, 1024, 1).paren(), "(512,1024)");
    }

    #[test]
    fn dim3_errors_are_one_line() {
        for bad in ["", "32x", "x16", "32x16x2x1", "-1x4", "abc", "99999999999x1"] {
            let e = bad.parse::<Dim3>().unwrap_err().to_string();
            assert!(e.starts_with("invalid block"), "{bad}: {e}");
            assert!(!e.contains('\n'));
        }
    }

    #[test]
    fn block_lists() {
        let b = parse_block_list("32x32,32x16,16x32,16x16").unwrap();
        assert_eq!(b.len(), 4);
        assert_eq!(b[2], Dim3::new(16, 32, 1));
        assert!(parse_block_list(",").is_err());
    }

    #[test]
    fn int_lists_and_ranges() {
        assert_eq!(parse_int_list("64,128,256").unwrap(), vec![64, 128, 256]);
        assert_eq!(parse_int_list("1..4").unwrap(), vec![1, 2, 3, 4]);
        assert_eq!(parse_int_list("32..128:32").unwrap(), vec![32, 64, 96, 128]);
        assert_eq!(parse_int_list("1,4..5").unwrap(), vec![1, 4, 5]);
        assert!(parse_int_list("5..1").is_err());
        assert!(parse_int_list("1..9:0").is_err());
        assert!(parse_int_list("1..4000000000").unwrap_err().to_string().contains("more than"));
    }

    #[test]
    fn cartesian_order_matches_the_seed() {
        let blocks = blocks_from(None, Some("64,128,256"), Some("2,4,8"), None).unwrap();
        assert_eq!(blocks.len(), 9);
        assert_eq!(blocks[0], Dim3::new(64, 2, 1));
        assert_eq!(blocks[1], Dim3::new(64, 4, 1));
        assert_eq!(blocks[8], Dim3::new(256, 8, 1));
    }

    #[test]
    fn both_forms_and_duplicates() {
        let blocks = blocks_from(Some("32x1,64x1"), Some("64"), None, None).unwrap();
        assert_eq!(blocks, vec![Dim3::new(32, 1, 1), Dim3::new(64, 1, 1)]);
        assert!(blocks_from(None, None, None, None).is_err());
    }

    #[test]
    fn dim3_json_is_an_array() {
        let j = serde_json::to_string(&Dim3::new(32, 16, 1)).unwrap();
        assert_eq!(j, "[32,16,1]");
        let d: Dim3 = serde_json::from_str("[4,2,1]").unwrap();
        assert_eq!(d, Dim3::new(4, 2, 1));
    }
}
