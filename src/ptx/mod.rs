//! The PTX embedded at build time (see build.rs): one module per kernels/*.cu.

use std::collections::HashMap;

pub mod mem;
pub mod run;

mod index {
    include!(concat!(env!("OUT_DIR"), "/ptx_index.rs"));
}

/// Where the embedded PTX came from (nvcc at build time, or the committed kernels-ptx/).
pub const ORIGIN: &str = index::ORIGIN;

/// The PTX text of a module (kernels/NAME.cu).
pub fn module(name: &str) -> Option<&'static str> {
    index::MODULES.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

/// Names of the embedded modules.
pub fn modules() -> impl Iterator<Item = &'static str> {
    index::MODULES.iter().map(|(n, _)| *n)
}

/// The highest PTX ISA version (`.version X.Y`) among the embedded modules: what the driver must accept.
pub fn isa_version() -> Option<(u32, u32)> {
    index::MODULES.iter().filter_map(|(_, text)| parse_version(text)).max()
}

fn parse_version(text: &str) -> Option<(u32, u32)> {
    let line = text.lines().find(|l| l.trim_start().starts_with(".version"))?;
    let (maj, min) = line.split_whitespace().nth(1)?.split_once('.')?;
    Some((maj.parse().ok()?, min.parse().ok()?))
}

/// The entry points of module `name`, in file order.
pub fn entries(name: &str) -> Vec<&'static str> {
    let Some(text) = module(name) else { return Vec::new() };
    text.lines()
        .filter_map(|l| l.split_once(".entry ").map(|(_, rest)| rest))
        .filter_map(|rest| rest.split(['(', ' ']).next())
        .collect()
}

/// Instructions in the body of `entry` of module `name` (directives, labels and braces left out): the
/// per-thread instruction count of SKE's computation term for straight-line kernels.
pub fn instruction_count(name: &str, entry: &str) -> Option<u32> {
    let text = module(name)?;
    let start = text.find(&format!(".entry {entry}("))?;
    let body = &text[start..];
    let open = body.find("\n{")?;
    let close = body[open..].find("\n}")? + open;
    let count = body[open + 2..close]
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with('.') && !l.starts_with("//") && !l.ends_with(':') && l.ends_with(';')
        })
        .count();
    Some(count as u32)
}

/// Whether a PTX line is an instruction the hardware executes: `mov` of an immediate folds into its
/// user in SASS, and directives, labels and braces are not instructions.
fn executes(line: &str) -> bool {
    let l = line.trim();
    if l.is_empty() || l.starts_with('.') || l.starts_with("//") || l.ends_with(':') || !l.ends_with(';') {
        return false;
    }
    let folds = l.starts_with("mov.") && l.rsplit(',').next().is_some_and(|src| !src.trim().starts_with('%'));
    !folds
}

/// The execution pipe an instruction issues to: what its throughput is counted against (CUDA C++
/// Programming Guide, "Arithmetic Instructions": results per clock cycle per multiprocessor).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipe {
    /// FP32 add, multiply, multiply-add, compare, min/max.
    Fp32,
    /// 32-bit integer add, logic, shift, compare, select (64-bit ones count twice).
    Int,
    /// 32-bit integer multiply and multiply-add (`mul.lo`, `mad.lo`, `mul.wide`).
    Imul,
    /// Special functions and conversions (`ex2`, `rcp`, `sqrt`, `cvt`).
    Sfu,
    /// Loads and stores (their cost is the memory model's; here they take an issue slot).
    Mem,
    /// Branches, barriers, register moves and the rest: an issue slot each.
    Other,
}

/// Warp instructions of a piece of code, per pipe.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mix {
    /// FP32 instructions.
    pub fp32: f64,
    /// Integer instructions.
    pub int: f64,
    /// Integer multiplies.
    pub imul: f64,
    /// Special-function and conversion instructions.
    pub sfu: f64,
    /// Memory instructions.
    pub mem: f64,
    /// Everything else.
    pub other: f64,
}

impl Mix {
    /// `n` instructions on `pipe`.
    pub fn of(pipe: Pipe, n: f64) -> Mix {
        let mut m = Mix::default();
        m.add(pipe, n);
        m
    }

    /// Instructions in all.
    pub fn total(&self) -> f64 {
        self.fp32 + self.int + self.imul + self.sfu + self.mem + self.other
    }

    /// `self + k * other`.
    pub fn add_scaled(&self, other: &Mix, k: f64) -> Mix {
        Mix {
            fp32: self.fp32 + k * other.fp32,
            int: self.int + k * other.int,
            imul: self.imul + k * other.imul,
            sfu: self.sfu + k * other.sfu,
            mem: self.mem + k * other.mem,
            other: self.other + k * other.other,
        }
    }

    fn add(&mut self, pipe: Pipe, n: f64) {
        match pipe {
            Pipe::Fp32 => self.fp32 += n,
            Pipe::Int => self.int += n,
            Pipe::Imul => self.imul += n,
            Pipe::Sfu => self.sfu += n,
            Pipe::Mem => self.mem += n,
            Pipe::Other => self.other += n,
        }
    }
}

/// An instruction without its guard predicate (`@%p1 bra ...` -> `bra ...`).
fn unguarded(line: &str) -> &str {
    let l = line.trim();
    if l.starts_with('@') { l.split_once(char::is_whitespace).map_or(l, |(_, rest)| rest.trim()) } else { l }
}

/// The pipe of one executed PTX line and how many SASS instructions it stands for, about.
pub fn classify(line: &str) -> Option<(Pipe, f64)> {
    if !executes(line) {
        return None;
    }
    // A guard predicate (`@%p1 bra ...`) does not change the pipe.
    let l = unguarded(line);
    let op = l.split(|c: char| c.is_whitespace()).next().unwrap_or("").trim_end_matches(';');
    let head = op.split('.').next().unwrap_or("");
    let wide = [".s64", ".u64", ".b64"].iter().any(|t| op.ends_with(t));
    let float = op.contains(".f32") || op.contains(".f64") || op.contains(".f16");
    Some(match head {
        // Kernel parameters live in the constant bank, and so does a `__constant__` read at a fixed
        // address: SASS reads them as operands (a register address takes an LDC).
        "ld" if op.starts_with("ld.param") => return None,
        "ld" if op.starts_with("ld.const") && !l.split_once('[').is_some_and(|(_, a)| a.contains('%')) => return None,
        // A generic address is the global one (SASS emits nothing), and the launch's dimensions are
        // constant-bank operands (only %tid and %ctaid take an S2R).
        "cvta" if op.starts_with("cvta.to.global") => return None,
        "mov" if l.contains("%ntid") || l.contains("%nctaid") => return None,
        "ld" | "st" | "atom" | "red" | "ldu" | "prefetch" | "ldmatrix" | "stmatrix" => (Pipe::Mem, 1.0),
        // sm_80's copy to shared memory (LDGSTS); its group bookkeeping is no memory instruction.
        "cp" if op.starts_with("cp.async.ca") || op.starts_with("cp.async.cg") => (Pipe::Mem, 1.0),
        "bra" | "bar" | "ret" | "exit" | "call" | "membar" | "fence" => (Pipe::Other, 1.0),
        "mov" => (Pipe::Other, 1.0),
        // A conversion between integer types is a sign extension or a move: the integer ALU.
        "cvt" if !float => (Pipe::Int, 1.0),
        "cvt" | "ex2" | "lg2" | "rcp" | "rsqrt" | "sqrt" | "sin" | "cos" | "tanh" => (Pipe::Sfu, 1.0),
        // Division: a float's MUFU (its routine: [`routine`]), or an integer routine of ~20 instructions.
        "div" | "rem" if float => (Pipe::Sfu, 1.0),
        "div" | "rem" => (Pipe::Imul, 20.0),
        "mul" | "mad" if !float => (Pipe::Imul, if op.contains(".wide") || wide { 2.0 } else { 1.0 }),
        "mul24" | "mad24" => (Pipe::Imul, 1.0),
        _ if float => (Pipe::Fp32, 1.0),
        // cvta (address space conversion) and the integer ALU.
        _ => (Pipe::Int, if wide { 2.0 } else { 1.0 }),
    })
}

/// What one executed PTX line costs in SASS: instructions per pipe ([`classify`], or the routine a
/// special function expands into, [`routine`]).
pub fn sass(line: &str) -> Option<Mix> {
    let op = unguarded(line).split(|c: char| c.is_whitespace()).next().unwrap_or("").trim_end_matches(';');
    match routine(op) {
        Some((mix, _)) if executes(line) => Some(mix),
        _ => classify(line).map(|(pipe, n)| Mix::of(pipe, n)),
    }
}

/// The routine ptxas expands a division, reciprocal or root into where it is not one MUFU instruction,
/// as its fast path runs (ptxas 13.0 for sm_90, `cuobjdump -sass`; the slow path, called for operands
/// the hardware's approximation cannot take, is not counted): its instructions per pipe, and the
/// dependent steps from its operands to its result. An IEEE-rounded `div.rn.f32` (C's `a / b` without
/// fast math) is MUFU.RCP and FCHK, five dependent FFMAs and a branch around the slow path's call (ncu
/// on Kernel Tuner's pnpoly: 9.3 warp instructions more per division, 2 of them on the XU pipe). The
/// `.approx` forms without `.ftz` scale a denormal operand around the MUFU; with `.ftz` they are the
/// MUFU alone (`None`: [`classify`]'s one instruction). Doubles' ops count as FP32 ones, as elsewhere.
pub fn routine(op: &str) -> Option<(Mix, f64)> {
    let parts: Vec<&str> = op.split('.').collect();
    let has = |p: &str| parts.contains(&p);
    let f64_ = has("f64");
    if !(f64_ || has("f32")) {
        return None;
    }
    let approx = has("approx");
    let ftz = has("ftz");
    let m = |sfu: f64, fp32: f64, int: f64, other: f64| Mix { sfu, fp32, int, other, ..Default::default() };
    Some(match (parts[0], f64_, approx || has("full"), ftz) {
        ("div", false, false, _) => (m(2.0, 5.0, 0.0, 2.0), 6.0),
        ("div", false, true, true) if approx => (m(1.0, 1.0, 0.0, 0.0), 2.0),
        ("div", false, true, false) if approx => (m(1.0, 4.0, 0.0, 0.0), 3.0),
        ("div", false, true, true) => (m(1.0, 4.0, 0.0, 0.0), 3.0),
        ("div", false, true, false) => (m(1.0, 7.0, 0.0, 0.0), 3.0),
        ("rcp", false, false, _) => (m(1.0, 3.0, 3.0, 2.0), 4.0),
        ("rcp", false, true, false) => (m(1.0, 6.0, 0.0, 0.0), 3.0),
        ("sqrt", false, false, _) => (m(1.0, 4.0, 2.0, 2.0), 4.0),
        ("sqrt" | "rsqrt" | "ex2" | "lg2", false, true, false) => (m(1.0, 3.0, 0.0, 0.0), 3.0),
        ("sin" | "cos", false, true, _) => (m(1.0, 1.0, 0.0, 0.0), 2.0),
        ("div", true, _, _) => (m(1.0, 12.0, 0.0, 2.0), 9.0),
        ("sqrt", true, false, _) => (m(1.0, 8.0, 3.0, 2.0), 8.0),
        ("rcp", true, false, _) => (m(1.0, 6.0, 3.0, 1.0), 6.0),
        ("rsqrt", true, true, _) => (m(1.0, 6.0, 2.0, 2.0), 6.0),
        _ => return None,
    })
}

/// The PTX lines of `entry`'s body.
fn body(name: &str, entry: &str) -> Option<Vec<&'static str>> {
    body_in(module(name)?, entry)
}

/// The lines of `entry`'s body in the module `text`, from its `.entry` line to its closing brace.
fn body_in<'a>(text: &'a str, entry: &str) -> Option<Vec<&'a str>> {
    let start = text.find(&format!(".entry {entry}("))?;
    let body = &text[start..];
    Some(body[..body.find("\n}")?].lines().map(str::trim).collect())
}

/// An entry of a PTX module as the run reads it ([`entry_in`]).
#[derive(Clone, Debug, PartialEq)]
pub struct EntryText {
    /// Its parameters' names, in order.
    pub params: Vec<String>,
    /// Its body's statements, in order, comments removed: each instruction whole (`call.uni (r), f,
    /// (a, b);` however many lines the compiler spread it over), each label (`$L__BB0_2:`), each
    /// directive (`.reg .b32 %r<5>;`, `.loc 1 9 0`) and each brace of a nested block on its own.
    pub lines: Vec<String>,
    /// `.maxntid X[, Y[, Z]]`: the most threads a block of it may have, per axis (missing ones 1).
    pub maxntid: Option<[u32; 3]>,
    /// `.reqntid X[, Y[, Z]]`: the block shape it must be launched with.
    pub reqntid: Option<[u32; 3]>,
}

/// `text` without its comments (`// ...` to the end of the line, `/* ... */`), outside quoted strings
/// (a `.file` directive's path), line breaks kept.
pub fn strip_comments(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("//") && !text.contains("/*") {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let (mut chars, mut quoted) = (text.chars().peekable(), false);
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                out.push(c);
            }
            '\n' => {
                quoted = false;
                out.push(c);
            }
            '/' if !quoted && chars.peek() == Some(&'/') => {
                while chars.peek().is_some_and(|&n| n != '\n') {
                    chars.next();
                }
            }
            '/' if !quoted && chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                    }
                    if last == '*' && n == '/' {
                        break;
                    }
                    last = n;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out.into()
}

/// The index in `text` just past the bracket that closes the one `text[open..]` starts with (`(` or
/// `{`), brackets of the same kind nested inside counted.
fn closing(text: &str, open: usize) -> Option<usize> {
    let (o, c) = match text.as_bytes().get(open)? {
        b'(' => (b'(', b')'),
        b'{' => (b'{', b'}'),
        _ => return None,
    };
    let mut depth = 0usize;
    for (i, &b) in text.as_bytes().iter().enumerate().skip(open) {
        if b == o {
            depth += 1;
        } else if b == c {
            depth -= 1;
            if depth == 0 {
                return Some(i + 1);
            }
        }
    }
    None
}

/// Entry `entry` of the module `text` (comments already removed, [`strip_comments`]), however the
/// compiler laid it out: `.entry k(` or old nvcc's `.entry k (`, its parameters on one line or many,
/// performance directives (`.maxntid 128, 1, 1`) before its body, the body's closing brace indented
/// or not; a declaration without a body (`.entry k(...);`) is not it. `None` when the module has no
/// such entry with a body.
pub fn entry_in(text: &str, entry: &str) -> Option<EntryText> {
    let ident = |c: char| c.is_alphanumeric() || matches!(c, '_' | '$' | '.');
    for (at, _) in text.match_indices(".entry") {
        if text[..at].chars().next_back().is_some_and(|c| !c.is_whitespace()) {
            continue;
        }
        let rest = &text[at + ".entry".len()..];
        if !rest.starts_with(char::is_whitespace) {
            continue;
        }
        let name_at = at + ".entry".len() + (rest.len() - rest.trim_start().len());
        let name_len = text[name_at..].find(|c: char| !ident(c)).unwrap_or(text.len() - name_at);
        if &text[name_at..name_at + name_len] != entry {
            continue;
        }
        let mut pos = name_at + name_len;
        pos += text[pos..].len() - text[pos..].trim_start().len();
        let mut params = Vec::new();
        if text[pos..].starts_with('(') {
            let end = closing(text, pos)?;
            params = text[pos + 1..end - 1]
                .split(',')
                .filter_map(|p| {
                    let p = p.trim();
                    p.starts_with(".param").then(|| p.split_whitespace().last())?
                })
                .map(|name| name.split('[').next().unwrap_or(name).to_string())
                .collect();
            pos = end;
        }
        // Performance directives up to the body; a `;` first is a declaration.
        let open = pos + text[pos..].find(['{', ';'])?;
        if text.as_bytes()[open] == b';' {
            continue;
        }
        let end = closing(text, open)?;
        let directives = &text[pos..open];
        let dims = |name: &str| -> Option<[u32; 3]> {
            let (_, rest) = directives.split_once(name)?;
            let rest = rest.split('.').next().unwrap_or(rest);
            let mut d = [1u32; 3];
            for (k, v) in rest.split(',').map(str::trim).take(3).enumerate() {
                d[k] = v.parse().ok()?;
            }
            Some(d)
        };
        let (maxntid, reqntid) = (dims(".maxntid"), dims(".reqntid"));
        return Some(EntryText { params, lines: statements(&text[open + 1..end - 1]), maxntid, reqntid });
    }
    None
}

/// Why a launch in blocks of `block` is not one an entry with these `.maxntid` and `.reqntid` allows,
/// or `None`: the driver refuses such a launch (a `.maxntid` bounds the block's threads, the product of
/// its extents; a `.reqntid` fixes its shape).
pub fn refuses(maxntid: Option<[u32; 3]>, reqntid: Option<[u32; 3]>, block: crate::spec::Dim3) -> Option<String> {
    let b = [block.x, block.y, block.z];
    let shape = |d: [u32; 3]| format!("{}x{}x{}", d[0], d[1], d[2]);
    if let Some(r) = reqntid.filter(|&r| r != b) {
        return Some(format!("the entry must be launched in blocks of {} (`.reqntid`)", shape(r)));
    }
    let m = maxntid?;
    let most = m.iter().map(|&v| v as u64).product::<u64>();
    (block.volume() > most).then(|| format!("the entry takes at most {most} threads a block (`.maxntid {}`)", shape(m)))
}

/// The statements of a body's text (comments removed): instructions up to their `;` (across lines),
/// labels, directives (to their `;` or the end of their line) and block braces, each trimmed.
fn statements(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    // Brackets open inside the statement being read (a vector operand's braces, an address).
    let mut depth = 0i32;
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        let s = cur.trim();
        if !s.is_empty() {
            out.push(s.to_string());
        }
        cur.clear();
    };
    for line in body.lines() {
        // An instruction's next line joins it after one space.
        let line = if cur.trim().is_empty() { line } else { line.trim_start() };
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            let blank = cur.trim().is_empty();
            match c {
                '{' | '}' if blank && depth == 0 => {
                    cur.clear();
                    out.push(c.to_string());
                }
                '{' | '[' | '(' => {
                    depth += 1;
                    cur.push(c);
                }
                '}' | ']' | ')' => {
                    depth -= 1;
                    cur.push(c);
                }
                ';' if depth <= 0 => {
                    cur.push(c);
                    depth = 0;
                    flush(&mut cur, &mut out);
                }
                // A label: a plain name and a colon (not `::`, as in `.shared::cta`).
                ':' if depth == 0
                    && chars.peek() != Some(&':')
                    && !cur.ends_with(':')
                    && !cur.trim().is_empty()
                    && cur.trim().chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$') =>
                {
                    cur.push(c);
                    flush(&mut cur, &mut out);
                }
                _ => cur.push(c),
            }
        }
        // A directive ends with its line (`.loc 1 9 0`); an instruction goes on to its `;`.
        if cur.trim_start().starts_with('.') {
            depth = 0;
            flush(&mut cur, &mut out);
        } else if !cur.trim().is_empty() {
            cur.truncate(cur.trim_end().len());
            cur.push(' ');
        }
    }
    flush(&mut cur, &mut out);
    out
}

/// What each of `lines` costs when it runs: its SASS instructions per pipe ([`sass`]), `None` for a
/// line that is not an instruction, or that folds into the next instruction that executes.
fn costs(lines: &[&str]) -> Vec<Option<Mix>> {
    let executed: Vec<usize> = (0..lines.len()).filter(|&i| executes(lines[i])).collect();
    let mut out = vec![None; lines.len()];
    let mut uses = None;
    for (k, &i) in executed.iter().enumerate() {
        // The executed line before, where no label lies between them (nothing else jumps in).
        let before = k
            .checked_sub(1)
            .map(|p| executed[p])
            .filter(|&p| !lines[p + 1..i].iter().any(|l| l.trim().ends_with(':')))
            .map(|p| lines[p]);
        let next = executed.get(k + 1).map(|&j| lines[j]);
        if !folds_into_next(lines[i], next)
            && !branch_inverted(before, lines, i)
            && !contracts(lines, i, next, &mut uses)
        {
            out[i] = sass(lines[i]);
        }
    }
    out
}

/// Whether the FP32 multiply at `lines[i]` and the add or subtract after it, its only user, are one
/// `FFMA` in SASS: a `mul` and an `add`/`sub` without a rounding modifier may be contracted into a
/// fused multiply-add (PTX ISA, `mul` and `add` for floating point: "may be optimized aggressively by
/// the code generator"), and ptxas does (rgV's `mul.f32; sub.f32` pairs are `FFMA R19, -R10, UR16,
/// R17` on sm_90). The add counts the pair. Not where a label lies between them (something jumps in)
/// or the product is used elsewhere in `lines` (`uses`: each register's appearances there, counted at the
/// first multiply seen).
fn contracts<'a>(lines: &[&'a str], i: usize, next: Option<&str>, uses: &mut Option<HashMap<&'a str, usize>>) -> bool {
    let plain = |op: &str, base: &str| op.strip_prefix(base).is_some_and(|rest| rest == ".f32" || rest == ".ftz.f32");
    let Some(next) = next else { return false };
    let (mut w, mut n) = (operands(lines[i]), operands(next));
    let (Some(op), Some(dst)) = (w.next(), w.next()) else { return false };
    if lines[i].starts_with('@') || !plain(op, "mul") {
        return false;
    }
    if next.starts_with('@') || !n.next().is_some_and(|o| plain(o, "add") || plain(o, "sub")) {
        return false;
    }
    if !n.skip(1).any(|x| x == dst) {
        return false;
    }
    let label_between = lines[i + 1..].iter().take_while(|l| l.trim() != next.trim()).any(|l| l.trim().ends_with(':'));
    // Every appearance of the product: its definition and the add, no other.
    let uses = uses.get_or_insert_with(|| {
        let mut m = HashMap::new();
        for l in lines {
            for r in operands(l).skip(1).filter(|x| x.starts_with('%')) {
                *m.entry(r).or_insert(0) += 1;
            }
        }
        m
    });
    !label_between && uses.get(dst) == Some(&2)
}

/// The opcode and operands of a PTX line, without its guard: `mul.f32`, `%f88`, `%f214`, `%f77`.
fn operands(line: &str) -> impl Iterator<Item = &str> {
    unguarded(line)
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == '[' || c == ']')
        .filter(|w| !w.is_empty())
}

/// Whether the unconditional branch at `lines[i]` costs nothing: right after a conditional branch to
/// the label that follows it (`@p bra L; bra.uni M; L:`), ptxas emits one branch, `@!p bra M`, which
/// the conditional branch already counts (a loop whose exit test jumps out: divergeWarp's second path
/// runs 4 SASS instructions a trip, as its first).
fn branch_inverted(before: Option<&str>, lines: &[&str], i: usize) -> bool {
    let target = |l: &str| l.trim_end_matches(';').split_whitespace().last().map(str::to_string);
    let Some(before) = before else { return false };
    let (op, prev) = (lines[i].split_whitespace().next().unwrap_or(""), unguarded(before));
    if !(op == "bra" || op == "bra.uni") || !before.starts_with('@') || !prev.starts_with("bra") {
        return false;
    }
    let next_label = lines[i + 1..].iter().map(|l| l.trim()).find(|l| !l.is_empty() && !l.starts_with("//"));
    match (target(prev), next_label) {
        (Some(t), Some(l)) => l.strip_suffix(':') == Some(t.as_str()),
        _ => false,
    }
}

fn mix_of(lines: &[&str]) -> Mix {
    let mut m = Mix::default();
    for c in costs(lines).into_iter().flatten() {
        m = m.add_scaled(&c, 1.0);
    }
    m
}

/// Whether `line` costs no SASS instruction of its own because the instruction after it absorbs it
/// (sm_50+ instruction selection, as `cuobjdump -sass` shows it): a 64-bit shift by a constant feeding
/// a 64-bit add is one `LEA` / `LEA.HI.X` pair, which the add already counts; a sign or zero extension
/// of a 32-bit integer feeding a 64-bit operation is the `.SX32` / `.WIDE` form of that operation,
/// except a full 64-bit multiply (`mul.lo.s64`), which takes the high word from an `SHF` (blurCols'
/// taps: `cvt.s64.s32; mul.lo.s64; add.s64` is SHF, IMAD, IMAD.WIDE.U32, IMAD, IADD3 on sm_90).
fn folds_into_next(line: &str, next: Option<&str>) -> bool {
    let Some(next) = next else { return false };
    let mut words = line.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty());
    let (Some(op), Some(dst)) = (words.next(), words.next()) else { return false };
    let next_op = next.split_whitespace().next().unwrap_or("");
    let uses = |n: &str| operands(n).skip(2).any(|w| w == dst);
    let wide_int = |o: &str| [".s64", ".u64", ".b64"].iter().any(|t| o.ends_with(t)) && !o.starts_with("cvt");
    match op {
        "shl.b64" => matches!(next_op, "add.s64" | "add.u64") && uses(next),
        // ... but not into a full 64-bit multiply, which needs the high word: an SHF makes it.
        "cvt.s64.s32" | "cvt.u64.u32" => wide_int(next_op) && !next_op.starts_with("mul.lo") && uses(next),
        _ => false,
    }
}

/// The instruction mix of `entry`, each instruction counted once (loops once too).
pub fn straight_mix(name: &str, entry: &str) -> Option<Mix> {
    Some(mix_of(&body(name, entry)?))
}

/// The instruction mix of `entry`'s code up to and including its `n`-th barrier (`bar.sync` /
/// `barrier.sync`), each instruction counted once: a block's set-up when the kernel says the first `n`
/// barriers close it ([`crate::kernels::Kernel::setup_barriers`]). `None` when the entry has fewer.
pub fn setup_mix(name: &str, entry: &str, n: usize) -> Option<Mix> {
    let lines = body(name, entry)?;
    let is_barrier = |l: &&str| l.starts_with("bar.sync") || l.starts_with("barrier.sync");
    let end = lines.iter().enumerate().filter(|(_, l)| is_barrier(l)).nth(n.checked_sub(1)?)?.0;
    Some(mix_of(&lines[..=end]))
}

/// Whether `entry` has a barrier after which, in program order, it loads nothing from global memory:
/// its warps then leave a block together (what follows is the same short tail for every warp), not
/// one memory round trip apart. `None` for an entry that is not in the module.
pub fn leaves_together(name: &str, entry: &str) -> Option<bool> {
    let lines = body(name, entry)?;
    let ops: Vec<&str> = lines.iter().map(|l| unguarded(l)).collect();
    let last = ops.iter().rposition(|l| l.starts_with("bar.sync") || l.starts_with("barrier.sync"));
    Some(last.is_some_and(|b| !ops[b..].iter().any(|l| l.starts_with("ld.global"))))
}

/// The instruction mix per multiply-add of `entry`'s hot loop: of the innermost loops (a label, a
/// later branch back to it, no loop inside) with multiply-adds, the one that also loads (from global
/// or shared memory) with the most multiply-adds, or else the one with the most. `None` without such
/// a loop.
pub fn loop_mix_per_fma(name: &str, entry: &str) -> Option<Mix> {
    let lines = body(name, entry)?;
    let mut loops: Vec<(usize, usize)> = Vec::new(); // (head, end)
    for (end, line) in lines.iter().enumerate() {
        let Some(target) =
            line.strip_suffix(';').and_then(|l| l.split("bra").nth(1)).map(|t| t.trim_start_matches(".uni").trim())
        else {
            continue;
        };
        if let Some(head) = lines[..end].iter().position(|l| l.strip_suffix(':') == Some(target)) {
            loops.push((head, end));
        }
    }
    let innermost = |&(h, e): &(usize, usize)| !loops.iter().any(|&(h2, e2)| (h2, e2) != (h, e) && h <= h2 && e2 <= e);
    let mut best: Option<(bool, usize, Mix)> = None;
    for &(h, e) in loops.iter().filter(|l| innermost(l)) {
        let body = &lines[h..=e];
        let fmas = body.iter().filter(|l| l.starts_with("fma.") || l.starts_with("mad.")).count();
        let loads = body.iter().any(|l| l.starts_with("ld.global") || l.starts_with("ld.shared"));
        if fmas > 0 && best.as_ref().is_none_or(|(bl, bf, _)| (loads, fmas) > (*bl, *bf)) {
            let per = Mix::default().add_scaled(&mix_of(body), 1.0 / fmas as f64);
            best = Some((loads, fmas, per));
        }
    }
    best.map(|(_, _, m)| m)
}

/// Instructions per multiply-add in `entry`'s hot loop (see [`loop_mix_per_fma`]).
pub fn loop_insns_per_fma(name: &str, entry: &str) -> Option<f64> {
    loop_mix_per_fma(name, entry).map(|m| m.total())
}

/// Compiled register/shared-memory use per kernel and arch, from `ptxas -v` (kernels-ptx/resources.json).
pub const RESOURCES_JSON: &str = include_str!("../../kernels-ptx/resources.json");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blocks_setup_is_the_code_up_to_its_barrier() {
        // blurRows: `taps` (2R + 1 expf into shared memory, a barrier, thread 0's sum and its
        // reciprocal, a barrier), then each thread's taps loop, its global loads and its store.
        let all = straight_mix("blur", "blurRows").unwrap();
        let setup = setup_mix("blur", "blurRows", 2).unwrap();
        let first = setup_mix("blur", "blurRows", 1).unwrap();
        // Every special-function instruction (the expf's ex2, the sum's reciprocal) is set-up; the
        // reciprocal comes after the first barrier.
        assert_eq!(setup.sfu, all.sfu);
        assert_eq!(first.sfu + 1.0, setup.sfu);
        // The taps loop's global loads and the store are not: setup's memory instructions are the
        // expf loops' shared stores, the sum loops' shared loads and the reciprocal's store.
        assert!(setup.mem < all.mem && setup.total() < all.total());
        assert!(setup_mix("blur", "blurRows", 3).is_none(), "blurRows has two barriers");
        assert!(setup_mix("sum_matrix", "sumMatrixOnGPU2D", 1).is_none());
    }

    #[test]
    fn warps_leave_together_after_a_last_barrier_with_no_global_load() {
        // A tile through shared memory: loads, barrier, stores (kernels/transpose.cu, kernels/blur.cu).
        assert_eq!(leaves_together("transpose", "transposeShared"), Some(true));
        assert_eq!(leaves_together("blur", "blurRowsTiled"), Some(true));
        // The blurs' set-up barrier comes before the taps loop's global loads; sumMatrix has no barrier.
        assert_eq!(leaves_together("blur", "blurDirect"), Some(false));
        assert_eq!(leaves_together("sum_matrix", "sumMatrixOnGPU2D"), Some(false));
        assert_eq!(leaves_together("sum_matrix", "noSuchEntry"), None);
    }

    #[test]
    fn what_sass_reads_as_operands_costs_nothing() {
        // A kernel parameter, a __constant__ word at a fixed address, blockDim and gridDim (constant
        // bank), a generic-to-global conversion (the same address): no instruction of their own.
        for line in [
            "ld.param.u64 \t%rd1, [k_param_0];",
            "ld.const.f32 \t%f1, [kTaps+4];",
            "mov.u32 \t%r5, %ntid.x;",
            "mov.u32 \t%r8, %nctaid.y;",
            "cvta.to.global.u64 \t%rd4, %rd1;",
        ] {
            assert_eq!(classify(line), None, "{line}");
        }
        // threadIdx and blockIdx take an S2R; a constant at a register address an LDC; ret an EXIT.
        assert_eq!(classify("mov.u32 \t%r6, %tid.x;"), Some((Pipe::Other, 1.0)));
        assert_eq!(classify("ld.const.f32 \t%f15, [%rd42];"), Some((Pipe::Mem, 1.0)));
        assert_eq!(classify("ret;"), Some((Pipe::Other, 1.0)));
    }

    #[test]
    fn address_arithmetic_is_counted_as_sass_runs_it() {
        // blurCols's tap address: clamp (max, min), widen, row x W + x (64-bit multiply and add), x 4,
        // plus the base. SASS (ptxas 13.0, sm_90, cuobjdump of kernels-ptx/blur.ptx): VIMNMX, VIMNMX,
        // SHF (the row's high word for the full 64-bit multiply), IMAD, IMAD.WIDE.U32 (the add folded
        // in), IMAD, IADD3, LEA + LEA.HI.X (the shift folded into the add): 9 instructions, where a
        // line-by-line count gives 11.
        let tap = [
            "max.s32 \t%r123, %r152, 0;",
            "min.s32 \t%r124, %r123, %r48;",
            "cvt.s64.s32 \t%rd11, %r124;",
            "mul.lo.s64 \t%rd12, %rd11, %rd2;",
            "add.s64 \t%rd13, %rd12, %rd3;",
            "shl.b64 \t%rd14, %rd13, 2;",
            "add.s64 \t%rd15, %rd1, %rd14;",
        ];
        let m = mix_of(&tap);
        assert_eq!((m.int, m.imul, m.total()), (7.0, 2.0, 9.0), "{m:?}");
        // Nothing folds when the next instruction does not use the result.
        let apart = ["shl.b64 \t%rd14, %rd13, 2;", "add.s64 \t%rd15, %rd1, %rd9;"];
        assert_eq!(mix_of(&apart).int, 4.0);
    }

    #[test]
    fn a_multiply_and_its_only_add_are_one_ffma() {
        // rgV's recursion (kernels-ptx/blur.ptx): each `mul.f32; sub.f32` pair is one FFMA with a negated
        // operand on sm_90 (`FFMA R19, -R10, UR16, R17`); the multiply feeding an fma stays an FMUL.
        let step = [
            "mul.f32 \t%f84, %f83, %f69;",
            "fma.rn.f32 \t%f85, %f217, %f70, %f84;",
            "mul.f32 \t%f88, %f214, %f77;",
            "sub.f32 \t%f89, %f85, %f88;",
            "mul.f32 \t%f90, %f213, %f78;",
            "sub.f32 \t%f91, %f89, %f90;",
        ];
        assert_eq!(mix_of(&step).fp32, 4.0);
        // Not with a rounding modifier (no contraction), nor where the product has another user, nor
        // where a label lets other code reach the add.
        let rounded = ["mul.rn.f32 \t%f88, %f214, %f77;", "sub.f32 \t%f89, %f85, %f88;"];
        assert_eq!(mix_of(&rounded).fp32, 2.0);
        let shared = ["mul.f32 \t%f88, %f214, %f77;", "sub.f32 \t%f89, %f85, %f88;", "st.global.f32 \t[%rd1], %f88;"];
        assert_eq!(mix_of(&shared).fp32, 2.0);
        let entered = ["mul.f32 \t%f88, %f214, %f77;", "$L__BB5_3:", "add.f32 \t%f89, %f85, %f88;"];
        assert_eq!(mix_of(&entered).fp32, 2.0);
    }

    #[test]
    fn a_branch_over_a_branch_is_one_branch() {
        // `@p bra L; bra.uni M; L:` is `@!p bra M` in SASS: the unconditional branch costs nothing.
        let inverted = ["@%p6 bra \t$L__BB3_6;", "bra.uni \t$L__BB3_3;", "", "$L__BB3_6:", "add.s32 \t%r1, %r1, 1;"];
        let c = costs(&inverted);
        assert!(c[0].is_some() && c[1].is_none(), "{c:?}");
        // Not when the conditional branch goes elsewhere, nor when a label lets others jump to it.
        let elsewhere = ["@%p7 bra \t$L__BB3_5;", "bra.uni \t$L__BB3_6;", "$L__BB3_2:", "add.s32 \t%r1, %r1, 1;"];
        assert!(costs(&elsewhere)[1].is_some());
        let entered = ["@%p6 bra \t$L__BB3_6;", "$L__BB3_9:", "bra.uni \t$L__BB3_3;", "$L__BB3_6:", "ret;"];
        assert!(costs(&entered)[2].is_some());
    }

    #[test]
    fn loop_bodies_are_priced_per_multiply_add() {
        // divergeWarp's loop: fma, add, setp, bra (the constants' movs fold into the FFMA).
        assert_eq!(loop_insns_per_fma("patterns", "divergeWarp"), Some(4.0));
        // The matmul loop is unrolled by nvcc: several multiply-adds per trip, a few instructions each.
        let m = loop_insns_per_fma("patterns", "matmulCoalesced").unwrap();
        assert!((3.0..8.0).contains(&m), "{m}");
        // The blur's hot loop is the taps loop that loads (one weight from shared memory, one pixel from
        // global, one FMA, the clamps), not the unrolled expf loop that fills the weights (4 FMAs and an
        // ex2 per tap, no load).
        let b = loop_mix_per_fma("blur", "blurRows").unwrap();
        assert!(b.mem >= 2.0 && b.sfu == 0.0, "{b:?}");
        let t = loop_mix_per_fma("blur", "blurRowsTiled").unwrap();
        assert_eq!((t.mem, t.fp32), (2.0, 1.0), "{t:?}");
        // No loop at all.
        assert_eq!(loop_insns_per_fma("sum_matrix", "sumMatrixOnGPU2D"), None);
    }

    #[test]
    fn instructions_go_to_their_pipes() {
        assert_eq!(classify("fma.rn.f32 \t%f1, %f2, %f3, %f4;"), Some((Pipe::Fp32, 1.0)));
        assert_eq!(classify("@%p1 bra \t$L__BB0_2;"), Some((Pipe::Other, 1.0)));
        assert_eq!(classify("mad.lo.s32 \t%r1, %r2, %r3, %r4;"), Some((Pipe::Imul, 1.0)));
        assert_eq!(classify("mul.wide.s32 \t%rd1, %r2, 4;"), Some((Pipe::Imul, 2.0)));
        assert_eq!(classify("add.s64 \t%rd1, %rd2, %rd3;"), Some((Pipe::Int, 2.0)));
        assert_eq!(classify("setp.ge.s32 \t%p1, %r1, %r2;"), Some((Pipe::Int, 1.0)));
        assert_eq!(classify("ex2.approx.ftz.f32 \t%f1, %f2;"), Some((Pipe::Sfu, 1.0)));
        assert_eq!(classify("ld.global.f32 \t%f1, [%rd1];"), Some((Pipe::Mem, 1.0)));
        assert_eq!(classify("cvt.s64.s32 \t%rd5, %r117;"), Some((Pipe::Int, 1.0)));
        assert_eq!(classify("cvt.rn.f32.s32 \t%f1, %r1;"), Some((Pipe::Sfu, 1.0)));
        assert_eq!(classify("ld.param.u64 \t%rd1, [k_param_0];"), None);
        assert_eq!(classify("mov.f32 \t%f1, 0f3F800000;"), None);
        let m = straight_mix("sum_matrix", "sumMatrixOnGPU2D").unwrap();
        assert_eq!(m.mem, 3.0, "two loads and a store: {m:?}");
        assert_eq!(m.fp32, 1.0, "one add: {m:?}");
    }

    #[test]
    fn divisions_and_roots_cost_the_routine_ptxas_expands_them_into() {
        // `a / b` without fast math: MUFU.RCP, FCHK, five FFMAs and a branch with its move, 9 in all,
        // 2 on the special-function pipe (ncu on pnpoly: 9.3 more warp instructions a division, 2 of
        // them XU), its result six dependent steps after its operands.
        let div = sass("div.rn.f32 \t%f6, %f4, %f5;").unwrap();
        assert_eq!((div.total(), div.sfu, div.fp32), (9.0, 2.0, 5.0));
        assert_eq!(routine("div.rn.f32").map(|r| r.1), Some(6.0));
        // --use_fast_math's division is MUFU.RCP and FMUL; without .ftz, a denormal's scaling too.
        assert_eq!(sass("div.approx.ftz.f32 \t%f1, %f2, %f3;").unwrap().total(), 2.0);
        assert_eq!(sass("div.approx.f32 \t%f1, %f2, %f3;").unwrap().total(), 5.0);
        assert_eq!(sass("div.full.f32 \t%f1, %f2, %f3;").unwrap().total(), 8.0);
        // sqrtf: MUFU.RSQ, two FMULs and two FFMAs, a range check and the branch around the slow path.
        assert_eq!(sass("sqrt.rn.f32 \t%f1, %f2;").unwrap().total(), 9.0);
        assert_eq!(sass("rcp.rn.f32 \t%f1, %f2;").unwrap().total(), 9.0);
        // A double division: MUFU.RCP64H and the DFMA refinement.
        assert_eq!(sass("div.rn.f64 \t%fd1, %fd2, %fd3;").unwrap().total(), 15.0);
        // One MUFU where ptxas emits one: .ftz approximations, tanh; integer division is not a routine.
        for line in
            ["ex2.approx.ftz.f32 \t%f1, %f2;", "rsqrt.approx.ftz.f32 \t%f1, %f2;", "tanh.approx.f32 \t%f1, %f2;"]
        {
            assert_eq!(sass(line), Some(Mix::of(Pipe::Sfu, 1.0)), "{line}");
        }
        assert_eq!(routine("div.s32"), None);
        assert_eq!(sass("div.s32 \t%r1, %r2, %r3;"), Some(Mix::of(Pipe::Imul, 20.0)));
        // A folded or non-executing line costs nothing, routine or not.
        assert_eq!(sass("// div.rn.f32 %f1, %f2, %f3;"), None);
    }

    /// Entries as compilers other than today's nvcc lay them out: old nvopencc's `.entry k (` with its
    /// closing brace indented and commented, trailing comments on instructions, LLVM's calls spread over
    /// lines in `{ // callseq }` blocks, launch bounds before the body, a declaration without a body,
    /// an entry whose name another's begins with.
    #[test]
    fn entries_are_read_however_their_compiler_laid_them_out() {
        let text = "\t.version 2.2\n\t.target sm_20\n\
                    .entry k (.param .u64 a);\n\
                    .visible .entry k2(\n\t.param .u64 k2_param_0\n)\n{\n\tret;\n}\n\
                    \t.entry k (\n\t\t.param .u64 __cudaparm_k_a,\n\t\t.param .s32 __cudaparm_k_n)\n\
                    .maxntid 256, 1, 1\n.reqntid 128\n\t{\n\
                    \t.reg .u32 %r<9>;\n\t.loc\t28\t6\t0\n$LDWbegin_k:\n\
                    \tmov.u32 \t%r1, %tid.x;   \t// id:70 __cudaparm_k_a+0x0\n\
                    \t{ // callseq 21, 0\n\t.param .b64 param0;\n\tcall.uni (retval0), \n\tf, \n\t(\n\tparam0\n\t);\n\t} // callseq 21\n\
                    \tmov.u32 %r2, 0; mov.u32 %r3, /* one */ 1;\n\
                    \tld.shared::cta.u32 %r4, [%r1];\n\
                    \texit;\n$LDWend_k:\n\t} // k\n\n.entry k3() {\n}\n";
        let clean = strip_comments(text);
        let e = entry_in(&clean, "k").unwrap();
        assert_eq!(e.params, ["__cudaparm_k_a", "__cudaparm_k_n"]);
        assert_eq!(
            e.lines,
            [
                ".reg .u32 %r<9>;",
                ".loc\t28\t6\t0",
                "$LDWbegin_k:",
                "mov.u32 \t%r1, %tid.x;",
                "{",
                ".param .b64 param0;",
                "call.uni (retval0), f, ( param0 );",
                "}",
                "mov.u32 %r2, 0;",
                "mov.u32 %r3,   1;",
                "ld.shared::cta.u32 %r4, [%r1];",
                "exit;",
                "$LDWend_k:",
            ]
        );
        assert_eq!((e.maxntid, e.reqntid), (Some([256, 1, 1]), Some([128, 1, 1])));
        let k2 = entry_in(&clean, "k2").unwrap();
        assert_eq!((k2.params, k2.lines, k2.maxntid), (vec!["k2_param_0".to_string()], vec!["ret;".to_string()], None));
        assert_eq!(entry_in(&clean, "k3").map(|e| e.lines.len()), Some(0));
        assert!(entry_in(&clean, "nope").is_none());
        // A declaration alone is no entry.
        assert!(entry_in(".entry d(.param .u64 a);\n", "d").is_none());
    }

    #[test]
    fn comments_go_but_quoted_paths_and_line_breaks_stay() {
        let text = "\t.file\t1 \"//server/share/k.cu\" // the source\nadd.s32 %r1, /* a\nb */ %r2, 1;\n";
        assert_eq!(strip_comments(text), "\t.file\t1 \"//server/share/k.cu\" \nadd.s32 %r1, \n  %r2, 1;\n");
        assert!(matches!(strip_comments("ret;\n"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn launch_bounds_refuse_the_blocks_the_driver_refuses() {
        let d = crate::spec::Dim3::new;
        assert_eq!(refuses(None, Some([128, 1, 1]), d(128, 1, 1)), None);
        assert_eq!(
            refuses(None, Some([128, 1, 1]), d(64, 2, 1)).as_deref(),
            Some("the entry must be launched in blocks of 128x1x1 (`.reqntid`)")
        );
        // .maxntid bounds the product of the extents: 16 x 16 x 1 = 256 threads.
        assert_eq!(refuses(Some([16, 16, 1]), None, d(256, 1, 1)), None);
        assert_eq!(
            refuses(Some([16, 16, 1]), None, d(32, 16, 1)).as_deref(),
            Some("the entry takes at most 256 threads a block (`.maxntid 16x16x1`)")
        );
        assert_eq!(refuses(None, None, d(1024, 1, 1)), None);
    }

    #[test]
    fn every_kernel_module_is_embedded() {
        assert!(module("sum_matrix").unwrap().contains(".entry sumMatrixOnGPU2D"));
        assert!(module("nope").is_none());
        assert!(modules().count() >= 1);
    }

    #[test]
    fn instructions_are_counted_per_entry() {
        let n = instruction_count("sum_matrix", "sumMatrixOnGPU2D").unwrap();
        assert!((10..40).contains(&n), "{n}");
        assert!(instruction_count("sum_matrix", "nope").is_none());
        assert_eq!(entries("sum_matrix"), vec!["sumMatrixOnGPU2D"]);
        assert_eq!(entries("occupancy_probe").len(), 12);
    }

    #[test]
    fn the_committed_ptx_loads_on_a_cuda_13_0_driver() {
        // PTX ISA 9.0 is what CUDA 13.0 (R580, the GPU machine's driver) accepts; nvvm 13.5 would write 9.5.
        assert_eq!(isa_version(), Some((9, 0)));
        assert_eq!(parse_version("//\n.version 8.7\n.target sm_75"), Some((8, 7)));
        for m in modules() {
            assert!(module(m).unwrap().contains(".target sm_75"), "{m} must target compute_75");
        }
    }
}
