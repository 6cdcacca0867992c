//! Where a PTX instruction loads or stores — its state space, width and address expression — and the
//! block's shared-memory layout, so that a run of the code lists each thread's accesses for the memory
//! model (a kernel nobody described by hand: a user's kernel file).

use std::collections::HashMap;
use std::sync::Arc;

/// The state space an access names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// `.global` (or a generic address that the run finds inside a global buffer).
    Global,
    /// `.shared` (`.shared::cta`): a byte offset in the block's shared memory.
    Shared,
    /// `.const`: a `__constant__` array's run address ([`const_address`]); its values are read where
    /// the launch gives them, but it is not traffic the memory model counts (the constant cache's).
    Const,
    /// No space named: a generic address.
    Generic,
}

/// A load or store's address and width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mem {
    /// A store (`st`, or an atomic: `atom`, `red`), else a load (`ld`, `ldu`).
    pub store: bool,
    /// An atomic (`atom`, `red`): a store to the memory model, told apart in the metrics.
    pub atomic: bool,
    /// An atomic that ptxas folds across a warp's lanes on one address: `add`, `and`, `or`, `xor`,
    /// `min` or `max` on 32-bit integers, the operations `REDUX` performs (docs/MODEL.md section 37).
    pub folds: bool,
    /// The space it names.
    pub space: Space,
    /// The register holding the base address, or `None` for a symbol's or an absolute address.
    pub base: Option<usize>,
    /// Bytes added to the base (a symbol's offset included).
    pub offset: i64,
    /// Bytes one thread moves (vector width x element size).
    pub bytes: u8,
    /// A load whose values the run reads (integers `.u32`, `.s64`, `.b32`, ...; floats `.f32`, `.f64`
    /// as their bits): whether they are signed integers (sign-extended); `None` for a store.
    pub reads: Option<bool>,
    /// Whether the run knows where its address's symbol is: `false` for a variable it gives no address
    /// (a module's `.global` array, `[table+8]`), whose access it cannot place.
    pub placed: bool,
    /// The lanes of a warp that take part (lane ids below it): 32, but for `ldmatrix` / `stmatrix`,
    /// whose `.x1`, `.x2` and `.x4` forms take the row addresses of the first 8, 16 or 32 lanes.
    pub lanes: u8,
    /// A `cp.async`'s global read that a register decides: its src-size (nothing is read where it is
    /// 0: a masked-off copy fills shared memory with zeros), or (`true`) its ignore-src predicate.
    pub unless: Option<(usize, bool)>,
}

impl Mem {
    /// Element `k` of the `n` registers a load writes, from `memory`, the access's base register
    /// holding `base`.
    pub fn load(&self, memory: &Memory, base: u64, k: usize, n: usize) -> Option<u64> {
        if !self.placed {
            return None;
        }
        let element = self.bytes as u64 / n.max(1) as u64;
        let addr = base.wrapping_add(self.offset as u64).wrapping_add(k as u64 * element);
        memory.read(addr, element, self.reads?)
    }
}

/// What a launch's buffers hold when it starts, for the buffers it only reads (by buffer index; `None`
/// for the others), so that a run follows what the code does with the values it loads from them: a
/// CSR matrix's row offsets bound a loop, its column indices place a gather, a point's coordinates
/// decide a branch; and its `__constant__` arrays (a polygon's vertices).
#[derive(Clone, Debug, Default)]
pub struct Memory {
    buffers: Vec<Option<Arc<[u8]>>>,
    constants: Vec<Option<Arc<[u8]>>>,
}

/// Run addresses of `__constant__` arrays start here: array `j` of the module's at `(j + 1) << 48`,
/// above every buffer's (`(index + 1) << 40`, at most 255 of them).
const CONST_SHIFT: u32 = 48;

/// The run address of the module's `j`-th `__constant__` array ([`const_arrays`] order).
pub fn const_address(j: usize) -> u64 {
    (j as u64 + 1) << CONST_SHIFT
}

impl Memory {
    /// Buffer `i`'s bytes at `buffers[i]`.
    pub fn new(buffers: Vec<Option<Arc<[u8]>>>) -> Memory {
        Memory { buffers, constants: Vec::new() }
    }

    /// The module's `__constant__` arrays' contents, in [`const_arrays`] order (`None`: not known).
    pub fn with_constants(self, constants: Vec<Option<Arc<[u8]>>>) -> Memory {
        Memory { constants, ..self }
    }

    /// Whether the contents of all `n` of the module's `__constant__` arrays are held.
    pub fn holds_constants(&self, n: usize) -> bool {
        self.constants.len() == n && self.constants.iter().all(Option::is_some)
    }

    /// The integer of `bytes` bytes (little-endian) at run address `addr` (a buffer's pointer is
    /// `(index + 1) << 40`, a constant array's [`const_address`]), as the run's registers hold it: in
    /// 32 bits (a signed one narrower than that sign-extended to them) or 64; `None` outside the
    /// buffers and arrays it holds.
    pub fn read(&self, addr: u64, bytes: u64, signed: bool) -> Option<u64> {
        let (region, shift) =
            if addr >> CONST_SHIFT != 0 { (&self.constants, CONST_SHIFT) } else { (&self.buffers, 40) };
        let index = usize::try_from((addr >> shift).checked_sub(1)?).ok()?;
        let at = usize::try_from(addr & ((1 << shift) - 1)).ok()?;
        let data = region.get(index)?.as_ref()?.get(at..at.checked_add(bytes as usize)?)?;
        if bytes == 0 || bytes > 8 {
            return None;
        }
        let raw = data.iter().rev().fold(0u64, |v, &b| v << 8 | b as u64);
        let bits = 8 * bytes as u32;
        Some(if signed && bits < 64 {
            let wide = ((raw << (64 - bits)) as i64 >> (64 - bits)) as u64;
            if bits <= 32 { wide & 0xffff_ffff } else { wide }
        } else {
            raw
        })
    }
}

/// Byte offsets of the shared-memory symbols `body` (an entry's lines) uses, laid out as ptxas lays a
/// block's shared memory out: the entry's own arrays in order, then the module's static ones it uses,
/// each at its alignment; every `extern` (dynamic) array starts where the static ones end (at 16 bytes).
/// Also the static arrays' bytes (what ptxas reports as the entry's static shared memory).
pub fn shared_layout(text: &str, body: &[&str]) -> (HashMap<String, u64>, u64) {
    let decls = |lines: &mut dyn Iterator<Item = &str>| -> Vec<(String, u64, u64, bool)> {
        lines.filter_map(|l| decl(l, ".shared")).collect()
    };
    let own = decls(&mut body.iter().copied());
    let used = |name: &str| body.iter().any(|l| !l.starts_with('.') && mentions(l, name));
    let global: Vec<_> = decls(&mut module_lines(text)).into_iter().filter(|d| used(&d.0)).collect();
    let mut at = 0u64;
    let mut out = HashMap::new();
    let (dynamic, fixed): (Vec<_>, Vec<_>) = own.into_iter().chain(global).partition(|d| d.3);
    for (name, size, align, _) in fixed {
        at = at.next_multiple_of(align.max(1));
        out.insert(name, at);
        at += size;
    }
    let start = at.next_multiple_of(16);
    for (name, _, _, _) in dynamic {
        out.insert(name, start);
    }
    (out, at)
}

/// Run addresses `LOCAL_REGION << 48` and up are thread-local memory: the entry's `.local` arrays
/// (a debug build's stack frame, `__local_depot0`), above every buffer's and constant array's.
pub const LOCAL_REGION: u64 = 0xFFFF;

/// Run addresses of the `.local` arrays `body` (an entry's lines) declares, laid out one after another
/// at their alignments from `LOCAL_REGION << 48`.
pub fn local_layout(body: &[&str]) -> HashMap<String, u64> {
    let mut at = 0u64;
    let mut out = HashMap::new();
    for (name, size, align, _) in body.iter().filter_map(|l| decl(l, ".local")) {
        at = at.next_multiple_of(align.max(1));
        out.insert(name, (LOCAL_REGION << 48) + at);
        at += size;
    }
    out
}

/// The module's `__constant__` arrays (`.const` declarations outside every entry), in order (what
/// [`const_address`] numbers), each with what a launch finds in it where the host writes nothing: its
/// initialiser's values (`= {0, 0, 128, 63}`, `= {0f3F800000}`), zeros past them or without one; `None`
/// where the initialiser is not plain numbers.
pub fn const_arrays(text: &str) -> Vec<(String, Option<Vec<u8>>)> {
    module_lines(text)
        .filter_map(|l| decl(l, ".const").map(|d| (l, d)))
        .map(|(line, (name, size, _, _))| (name, initial_bytes(line, size)))
        .collect()
}

/// The buffer index of the module's `j`-th `.global` array (a `__device__` variable): counted down
/// from 254, above any kernel's arguments, so that its accesses are global ones of a buffer of its own.
pub fn module_global_buffer(j: usize) -> Option<u8> {
    u8::try_from(254usize.checked_sub(j)?).ok().filter(|&b| b >= 192)
}

/// Run addresses of the module's `.global` arrays (`__device__` variables, declared outside every
/// entry): each at the start of its own buffer ([`module_global_buffer`]; the 63 first).
pub fn module_globals(text: &str) -> HashMap<String, u64> {
    module_lines(text)
        .filter_map(|l| decl(l, ".global"))
        .enumerate()
        .filter_map(|(j, (name, ..))| Some((name, (u64::from(module_global_buffer(j)?) + 1) << 40)))
        .collect()
}

/// The bytes a `.const` declaration `line` of `size` bytes initialises its array to.
fn initial_bytes(line: &str, size: u64) -> Option<Vec<u8>> {
    // Constant memory is 64 KiB a bank: a larger declaration is not one a launch runs with.
    if size > 1 << 16 {
        return None;
    }
    let mut out = vec![0u8; size as usize];
    let Some((head, values)) = line.split_once('=') else { return Some(out) };
    let elem = head.split_whitespace().find_map(|w| w.strip_prefix('.').and_then(type_bytes)).filter(|&b| b > 0)?;
    let values = values.trim().trim_end_matches(';');
    let words = values.split([',', '{', '}']).map(str::trim).filter(|w| !w.is_empty());
    for (k, w) in words.enumerate() {
        let v = super::run::immediate(w)?;
        let at = usize::try_from(k as u64 * elem).ok()?;
        let bytes = out.get_mut(at..at + elem as usize)?;
        bytes.copy_from_slice(&v.to_le_bytes()[..elem as usize]);
    }
    Some(out)
}

/// The module's lines outside every entry's braces (its declarations).
fn module_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0i32;
    text.lines().map(str::trim).filter(move |line| {
        let outside = depth == 0;
        depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
        outside
    })
}

/// Whether `line` names the symbol `name` (not as part of a longer identifier).
fn mentions(line: &str, name: &str) -> bool {
    line.match_indices(name).any(|(i, _)| {
        let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
        let before = line[..i].chars().next_back().is_none_or(|c| !ident(c) && c != '%');
        let after = line[i + name.len()..].chars().next().is_none_or(|c| !ident(c));
        before && after
    })
}

/// A declaration in `space` (`.shared`, `.const`): (name, bytes, alignment, extern).
fn decl(line: &str, space: &str) -> Option<(String, u64, u64, bool)> {
    let line = line.trim().trim_end_matches(';');
    // An initialiser (`= {...}`) is not part of the name.
    let line = line.split_once('=').map_or(line, |(d, _)| d.trim());
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == space || w.strip_prefix(space).is_some_and(|r| r.starts_with("::")))?;
    let dynamic = words[..at].contains(&".extern");
    if words[..at].iter().any(|w| !matches!(*w, ".extern" | ".visible" | ".weak")) {
        return None;
    }
    let mut align = 1;
    let mut elem = 1;
    let mut rest = words[at + 1..].iter();
    let mut decl = None;
    while let Some(w) = rest.next() {
        if *w == ".align" {
            align = rest.next()?.parse().ok()?;
        } else if let Some(ty) = w.strip_prefix('.') {
            elem = type_bytes(ty).unwrap_or(1);
        } else {
            decl = Some(*w);
            break;
        }
    }
    let decl = decl?;
    let (name, dims) = decl.split_once('[').unwrap_or((decl, ""));
    let mut size = elem;
    for d in dims.split('[').map(|d| d.trim_end_matches(']')) {
        if !d.is_empty() {
            size *= d.parse::<u64>().ok()?;
        }
    }
    Some((name.to_string(), size, align.max(elem), dynamic))
}

/// Bytes of a PTX scalar type (`f32`, `b64`, `u8`, `b128`, ...; the half-precision types atomics
/// take, `bf16` and the pairs `f16x2`, `bf16x2`).
fn type_bytes(ty: &str) -> Option<u64> {
    match ty {
        "bf16" => return Some(2),
        "f16x2" | "bf16x2" => return Some(4),
        _ => {}
    }
    let bits: u64 = ty.get(1..)?.parse().ok()?;
    matches!(&ty[..1], "b" | "u" | "s" | "f").then_some(bits / 8)
}

/// The accesses of an instruction with opcode `op` and operand texts `texts`: an `ld`/`ldu`/`st` or an
/// atomic (`atom`/`red`, as a store; none for the spaces the memory model does not count: local,
/// constant, parameters), or a `cp.async`'s
/// global load and shared store (sm_80's copy straight to shared memory, SASS LDGSTS); none for other
/// instructions. `symbols` gives the shared arrays' offsets and the constant arrays' run addresses;
/// `reg` numbers a register.
pub fn parse<'t>(
    op: &str,
    texts: &[&'t str],
    symbols: &HashMap<String, u64>,
    is_reg: &dyn Fn(&str) -> bool,
    is_pred: &dyn Fn(&str) -> bool,
    mut reg: impl FnMut(&'t str) -> usize,
) -> Vec<Mem> {
    if let Some(rest) = op.strip_prefix("cp.async.")
        && (rest.starts_with("ca.") || rest.starts_with("cg."))
    {
        // cp.async.ca.shared.global [dst], [src], cp-size{, src-size | , ignore-src}{, cache-policy}:
        // the bytes each thread copies, and what may leave the global side unread.
        let bytes = texts.get(2).and_then(|t| super::run::immediate(t)).and_then(|b| u8::try_from(b).ok());
        let (Some(bytes), Some(dst), Some(src)) = (bytes, texts.first(), texts.get(1)) else { return Vec::new() };
        let fourth = texts.get(3).copied().filter(|_| !(op.contains("cache_hint") && texts.len() == 4));
        if fourth.and_then(super::run::immediate) == Some(0) {
            // A src-size of 0: a copy of zeros, no read.
            return address(dst, symbols, is_reg, &mut reg)
                .map(|(base, offset, placed)| Mem {
                    store: true,
                    atomic: false,
                    folds: false,
                    space: Space::Shared,
                    base,
                    offset,
                    bytes,
                    reads: None,
                    placed,
                    lanes: 32,
                    unless: None,
                })
                .into_iter()
                .collect();
        }
        let unless = fourth.filter(|t| is_reg(t)).map(|t| (reg(t), is_pred(t)));
        let load = address(src, symbols, is_reg, &mut reg).map(|(base, offset, placed)| Mem {
            store: false,
            atomic: false,
            folds: false,
            space: Space::Global,
            base,
            offset,
            bytes,
            reads: None,
            placed,
            lanes: 32,
            unless,
        });
        let store = address(dst, symbols, is_reg, &mut reg).map(|(base, offset, placed)| Mem {
            store: true,
            atomic: false,
            folds: false,
            space: Space::Shared,
            base,
            offset,
            bytes,
            reads: None,
            placed,
            lanes: 32,
            unless: None,
        });
        return load.into_iter().chain(store).collect();
    }
    if let Some(m) = matrix(op, texts, symbols, is_reg, &mut reg) {
        return vec![m];
    }
    single(op, texts, symbols, is_reg, reg).into_iter().collect()
}

/// An `ldmatrix` / `stmatrix` (sm_75's and sm_90's warp-wide moves of 8x8 matrices between shared
/// memory and registers): each of the first 8, 16 or 32 lanes (`.x1`, `.x2`, `.x4`) gives the address
/// of one 16-byte row (8 `.b16` elements; `.trans` changes only which register gets which element).
fn matrix<'t>(
    op: &str,
    texts: &[&'t str],
    symbols: &HashMap<String, u64>,
    is_reg: &dyn Fn(&str) -> bool,
    reg: &mut impl FnMut(&'t str) -> usize,
) -> Option<Mem> {
    let mut parts = op.split('.');
    let store = match parts.next()? {
        "ldmatrix" => false,
        "stmatrix" => true,
        _ => return None,
    };
    let (mut space, mut lanes) = (Space::Generic, 0u8);
    for p in parts {
        match p {
            "shared" | "shared::cta" => space = Space::Shared,
            "x1" => lanes = 8,
            "x2" => lanes = 16,
            "x4" => lanes = 32,
            _ => {}
        }
    }
    if lanes == 0 {
        return None;
    }
    let (base, offset, placed) = address(texts.get(usize::from(!store))?, symbols, is_reg, reg)?;
    Some(Mem {
        store,
        atomic: false,
        folds: false,
        space,
        base,
        offset,
        bytes: 16,
        reads: None,
        placed,
        lanes,
        unless: None,
    })
}

/// An `ld`/`ldu`/`st`'s access, or an atomic's (`atom`, `red`): a read-modify-write that the memory
/// performs where the data lives (L2 for global memory, the SM's shared memory for shared), so that it
/// moves like a store, a request per line and its sectors, whether or not it returns the old value.
fn single<'t>(
    op: &str,
    texts: &[&'t str],
    symbols: &HashMap<String, u64>,
    is_reg: &dyn Fn(&str) -> bool,
    mut reg: impl FnMut(&'t str) -> usize,
) -> Option<Mem> {
    let mut parts = op.split('.');
    let head = parts.next()?;
    // Which operand is the address: a load's and `atom`'s second (after the register written), a
    // store's and `red`'s first.
    let (store, at) = match head {
        "ld" | "ldu" => (false, 1),
        "st" | "red" => (true, 0),
        "atom" => (true, 1),
        _ => return None,
    };
    let (mut space, mut vector, mut elem, mut reads) = (Space::Generic, 1u64, None, None);
    for p in parts {
        match p {
            "global" => space = Space::Global,
            "shared" | "shared::cta" => space = Space::Shared,
            "const" => space = Space::Const,
            "local" | "param" | "shared::cluster" => return None,
            "v2" => vector = 2,
            "v4" => vector = 4,
            "v8" => vector = 8,
            _ => {
                if let Some(b) = type_bytes(p) {
                    elem = Some(b);
                    reads = Some(p.starts_with('s'));
                }
            }
        }
    }
    let bytes = u8::try_from(vector * elem?).ok()?;
    let (base, offset, placed) = address(texts.get(at)?, symbols, is_reg, &mut reg)?;
    let atomic = matches!(head, "atom" | "red");
    let folds = atomic
        && op.split('.').any(|p| matches!(p, "add" | "and" | "or" | "xor" | "min" | "max"))
        && op.split('.').any(|p| matches!(p, "u32" | "s32" | "b32"));
    let reads = reads.filter(|_| !store);
    Some(Mem { store, atomic, folds, space, base, offset, bytes, reads, placed, lanes: 32, unless: None })
}

/// An address operand `[...]`: its base register (`None`: a symbol's or an absolute address), the
/// bytes added to it and whether the run knows where it is (not for a symbol it gives no address: a
/// module's `.global` variable); `None` for an operand that is no address.
fn address<'t>(
    text: &'t str,
    symbols: &HashMap<String, u64>,
    is_reg: &dyn Fn(&str) -> bool,
    reg: &mut impl FnMut(&'t str) -> usize,
) -> Option<(Option<usize>, i64, bool)> {
    let address = text.strip_prefix('[')?.strip_suffix(']')?.trim();
    // An address the run cannot read is one access it cannot place, not one that is not there.
    let Some((base_text, offset)) = split_offset(address) else { return Some((None, 0, false)) };
    if is_reg(base_text) {
        Some((Some(reg(base_text)), offset, true))
    } else if let Some(&at) = symbols.get(base_text) {
        Some((None, offset + at as i64, true))
    } else if base_text.is_empty() {
        Some((None, offset, true))
    } else if base_text.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.')) {
        Some((None, offset, false))
    } else {
        None
    }
}

/// `%rd4+8` -> ("%rd4", 8); `%rd4+-8` -> ("%rd4", -8); `%rd4+0x10` -> ("%rd4", 16); `sym` -> ("sym",
/// 0); `16` -> ("", 16).
fn split_offset(address: &str) -> Option<(&str, i64)> {
    let number = |t: &str| super::run::immediate(t.trim()).map(|v| v as i64);
    match address.find('+') {
        Some(i) => Some((address[..i].trim(), number(&address[i + 1..])?)),
        None if address.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '-') => Some(("", number(address)?)),
        None => Some((address, 0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Registers as compilers name them.
    fn pct(t: &str) -> bool {
        t.starts_with('%')
    }

    fn no_pred(_: &str) -> bool {
        false
    }

    #[test]
    fn constant_arrays_start_as_their_declarations_say() {
        let text = ".const .align 4 .b8 kTaps[8] = {0, 0, 128, 61, 0, 0, 128, 62};\n\
                    .const .align 4 .u32 pair[4] = {7, 0xFFFFFFFF};\n\
                    .const .align 8 .f64 one[1] = {0d3FF0000000000000};\n\
                    .const .align 4 .f32 later[2];\n\
                    .const .align 4 .f32 decimal[1] = {1.5};\n\
                    .visible .entry k()\n{\n.const .u32 not_module[1];\nret;\n}\n";
        let arrays = const_arrays(text);
        let names: Vec<&str> = arrays.iter().map(|a| a.0.as_str()).collect();
        assert_eq!(names, ["kTaps", "pair", "one", "later", "decimal"]);
        // Bytes as given; 32-bit words little-endian, the rest of the array zeros; a double's bits.
        assert_eq!(arrays[0].1.as_deref(), Some(&[0u8, 0, 128, 61, 0, 0, 128, 62][..]));
        let pair: Vec<u8> = [7u32, u32::MAX, 0, 0].iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(arrays[1].1.as_deref(), Some(&pair[..]));
        assert_eq!(arrays[2].1.as_deref(), Some(&1.0f64.to_le_bytes()[..]));
        // No initialiser: zeros. A value the run does not read as a number: not known.
        assert_eq!(arrays[3].1.as_deref(), Some(&[0u8; 8][..]));
        assert_eq!(arrays[4].1, None);
    }

    #[test]
    fn memory_reads_little_endian_integers_sign_extended_inside_its_buffers_only() {
        let b: Arc<[u8]> = vec![0xfe, 0xff, 0xff, 0xff, 0x80, 0x01, 0, 0, 0x2a].into();
        let m = Memory::new(vec![None, Some(b)]);
        let at = |off: u64| (2u64 << 40) + off;
        assert_eq!(m.read(at(0), 4, true), Some(0xffff_fffe)); // -2 as s32
        assert_eq!(m.read(at(0), 4, false), Some(0xffff_fffe));
        assert_eq!(m.read(at(4), 1, true), Some(0xffff_ff80)); // -128 as s8, in 32 bits
        assert_eq!(m.read(at(4), 1, false), Some(0x80));
        assert_eq!(m.read(at(4), 2, false), Some(0x0180));
        assert_eq!(m.read(at(0), 8, true), Some(0x0000_0180_ffff_fffe));
        assert_eq!(m.read(at(8), 1, false), Some(42));
        assert_eq!(m.read(at(8), 4, false), None, "past the buffer's end");
        assert_eq!(m.read(1u64 << 40, 4, false), None, "a buffer it does not hold");
        assert_eq!(m.read(64, 4, false), None, "a shared address");
        let ld = single("ld.global.nc.v2.s32", &["{%r1, %r2}", "[%rd1+4]"], &HashMap::new(), &pct, |_| 0).unwrap();
        assert_eq!((ld.reads, ld.bytes), (Some(true), 8));
        assert_eq!(ld.load(&m, at(0), 0, 2), Some(0x180)); // bytes 4..8
        assert_eq!(ld.load(&m, at(0), 1, 2), None); // bytes 8..12: past the end
        let f = single("ld.global.f32", &["%f1", "[%rd1]"], &HashMap::new(), &pct, |_| 0).unwrap();
        assert_eq!((f.reads, f.load(&m, at(0), 0, 1)), (Some(false), Some(0xffff_fffe)), "a float's bits");
    }

    #[test]
    fn shared_arrays_are_laid_out_static_first_then_the_dynamic_one() {
        let text = ".shared .align 16 .b8 gtile[64];\n.visible .entry k(\n)\n{\n\
                    .shared .align 4 .b8 _ZZ1kE1w[1020];\n.extern .shared .align 16 .b8 tile[];\n\
                    mov.u32 %r1, tile;\nmov.u32 %r2, _ZZ1kE1w;\nmov.u32 %r3, gtile;\n}\n";
        let body: Vec<&str> = text.lines().skip(2).map(str::trim).collect();
        let (l, bytes) = shared_layout(text, &body);
        assert_eq!(bytes, 1088);
        assert_eq!(l["_ZZ1kE1w"], 0);
        assert_eq!(l["gtile"], 1024, "the module's array after the entry's, at its 16-byte alignment");
        assert_eq!(l["tile"], 1088, "the dynamic array after every static one");
    }

    #[test]
    fn loads_and_stores_name_their_space_width_and_address() {
        let shared: HashMap<String, u64> = [("tile".to_string(), 256)].into();
        let mut names: HashMap<&str, usize> = HashMap::new();
        let mut reg = |r: &'static str| {
            let n = names.len();
            *names.entry(r).or_insert(n)
        };
        let one = |v: Vec<Mem>| {
            assert_eq!(v.len(), 1);
            v[0]
        };
        let m = one(parse(
            "ld.global.nc.v4.f32",
            &["{%f1, %f2, %f3, %f4}", "[%rd4+-16]"],
            &shared,
            &pct,
            &no_pred,
            &mut reg,
        ));
        assert_eq!((m.store, m.space, m.base, m.offset, m.bytes), (false, Space::Global, Some(0), -16, 16));
        let m = one(parse("st.shared.f32", &["[tile+8]", "%f1"], &shared, &pct, &no_pred, &mut reg));
        assert_eq!((m.store, m.atomic, m.space, m.base, m.offset, m.bytes), (true, false, Space::Shared, None, 264, 4));
        let m = one(parse("ld.global.u32", &["%r1", "[%rd2+0x10]"], &shared, &pct, &no_pred, &mut reg));
        assert_eq!((m.offset, m.placed), (16, true));
        // An address the run cannot read (not PTX it knows) is an access it cannot place, not none.
        let m = one(parse("ld.global.u32", &["%r1", "[%rd2+%rd3]"], &shared, &pct, &no_pred, &mut reg));
        assert_eq!((m.base, m.placed), (None, false));
        let m = one(parse("ld.u8", &["%rs1", "[%rd2]"], &shared, &pct, &no_pred, &mut reg));
        assert_eq!((m.space, m.bytes), (Space::Generic, 1));
        // A copy straight to shared memory: a global load and a shared store of its size.
        let c = parse("cp.async.cg.shared.global", &["[%r7]", "[%rd3+16]", "16"], &shared, &pct, &no_pred, &mut reg);
        assert_eq!(c.len(), 2);
        assert_eq!((c[0].store, c[0].space, c[0].offset, c[0].bytes), (false, Space::Global, 16, 16));
        assert_eq!((c[1].store, c[1].space, c[1].offset, c[1].bytes), (true, Space::Shared, 0, 16));
        assert!(parse("cp.async.commit_group", &[], &shared, &pct, &no_pred, &mut reg).is_empty());
        assert!(parse("ld.param.u64", &["%rd1", "[k_param_0]"], &shared, &pct, &no_pred, &mut reg).is_empty());
        assert!(parse("ld.local.f32", &["%f1", "[%rd9]"], &shared, &pct, &no_pred, &mut reg).is_empty());
        assert!(parse("add.s32", &["%r1", "%r2", "%r3"], &shared, &pct, &no_pred, &mut reg).is_empty());
        // Atomics move as stores: `atom`'s address follows the register it returns, `red`'s comes first.
        let m = one(parse("atom.global.add.f32", &["%f2", "[%rd4+8]", "%f1"], &shared, &pct, &no_pred, &mut reg));
        assert_eq!((m.store, m.atomic, m.space, m.offset, m.bytes, m.reads), (true, true, Space::Global, 8, 4, None));
        let m = one(parse("red.global.add.u64", &["[%rd4]", "%rd5"], &shared, &pct, &no_pred, &mut reg));
        assert_eq!((m.store, m.atomic, m.space, m.offset, m.bytes), (true, true, Space::Global, 0, 8));
        let m =
            one(parse("atom.shared.cas.b32", &["%r1", "[tile+4]", "%r2", "%r3"], &shared, &pct, &no_pred, &mut reg));
        assert_eq!((m.store, m.space, m.base, m.offset, m.bytes), (true, Space::Shared, None, 260, 4));
        let m =
            one(parse("red.relaxed.gpu.global.add.noftz.f16x2", &["[%rd4]", "%r9"], &shared, &pct, &no_pred, &mut reg));
        assert_eq!((m.store, m.bytes), (true, 4));
        let m = one(parse("atom.add.u32", &["%r1", "[%rd2]", "1"], &shared, &pct, &no_pred, &mut reg));
        assert_eq!((m.store, m.space, m.bytes), (true, Space::Generic, 4));
    }
}
