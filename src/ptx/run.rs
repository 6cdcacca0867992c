//! Runs an entry's PTX for a few threads of one block, integers, floats and control flow, to count how
//! many times each instruction executes per warp: loops by their real trip counts (constant, or set by
//! the block shape and the kernel's arguments), a divergent branch's both sides, a block's set-up done
//! by one warp — and how long each warp takes alone (its chain of dependent instructions). The time
//! model prices the counts and takes the chain as a floor; the counts are the estimate of nvprof's
//! `inst_executed`.

use std::collections::{HashMap, HashSet};

use super::Mix;
use super::mem::{self, Memory, Space};
use crate::kernels::{Access, Arg};
use crate::spec::Dim3;

/// Steps one sampled thread may take before the run gives up (the model then falls back to the
/// instruction mix counted once per line).
const MAX_STEPS: u64 = 4_000_000;
/// Steps all sampled threads of one launch may take together: fewer threads are sampled past it.
const BUDGET: u64 = 8_000_000;
/// Warps of the block run at most (evenly spaced, the first and the last included).
const SAMPLED: u64 = 8;
/// Blocks of each class run where guards depend on floats (one, in the middle, otherwise), as many as
/// [`SPREAD_BUDGET`] steps allow by the first one's.
const SPREAD: u64 = 64;
/// Steps the spread blocks of one class may take together.
const SPREAD_BUDGET: u64 = 4 * BUDGET;
/// The R3 sequence's steps: 1 / p, 1 / p^2, 1 / p^3 for p the real root of x^4 = x + 1.
const R3: [f64; 3] = [0.819_172_513_396_164_4, 0.671_043_606_703_789, 0.549_700_477_901_970_1];

/// An operand, resolved once.
#[derive(Clone, Debug, PartialEq)]
enum Operand {
    /// A register, by its index in the program's register table.
    Reg(usize),
    /// A special register: `%tid`, `%ntid`, `%ctaid`, `%nctaid` (axis 0-2), `%laneid`, `%warpid`.
    Special(Sreg, usize),
    /// An integer immediate (or a float's bits).
    Imm(u64),
    /// A kernel parameter's address (`[name]`), by its position.
    Param(usize),
    /// Anything else (a symbol, an address in memory).
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Sreg {
    Tid,
    Ntid,
    Ctaid,
    Nctaid,
    Lane,
    Warp,
}

/// One parsed instruction.
#[derive(Clone, Debug)]
struct Insn {
    /// `@%p` / `@!%p`: the predicate register and whether it is negated.
    guard: Option<(usize, bool)>,
    /// What it computes, where the run tracks it.
    op: Option<Op>,
    /// `ret`, `exit` or `trap`: the thread ends.
    ends: bool,
    /// Its operands.
    args: Vec<Operand>,
    /// Registers it writes.
    dests: Vec<usize>,
    /// Registers it reads (its guard, operands, addresses).
    srcs: Vec<usize>,
    /// How long its result takes.
    wait: Wait,
    /// A branch's target, an instruction index.
    target: Option<usize>,
    /// What one execution costs: its SASS instructions per pipe (`None`: folds into another).
    cost: Option<Mix>,
    /// Where it loads or stores, for a load or store the memory model counts (a `cp.async`: both).
    mem: Vec<mem::Mem>,
    /// An `ld` of integers or floats: its access, whose values the run reads where the launch's memory
    /// holds them.
    loads: Option<mem::Mem>,
}

/// Drops what ptxas drops: a load of bytes the thread loaded before in the same basic block (`starts`:
/// the instructions a label names), from the same base register and offset, with no store, atomic,
/// barrier, fence or call between and the base register unchanged, is the first load's value and no
/// instruction of its own (NVVM writes a `uchar4` copy as `ld.global.v4.u8` and `ld.global.u32` of one
/// address; ptxas keeps one LDG: CUPTI's gld_transactions on an H100 are one load's, docs/MODEL.md
/// section 38). Loads with a memory order (`.volatile`, `.relaxed`, `.acquire`) are left alone, and
/// only an unguarded load makes its bytes available.
fn drop_repeated_loads(insns: &mut [Insn], text_of: &[&str], starts: &HashSet<usize>) {
    let ordered = |line: &str| {
        let op = opcode(line);
        [".volatile", ".relaxed", ".acquire", ".mmio"].iter().any(|q| op.contains(q))
    };
    // Whether `b`'s bytes lie within `a`'s.
    let within = |a: &mem::Mem, b: &mem::Mem| {
        a.space == b.space
            && a.base == b.base
            && a.offset <= b.offset
            && b.offset + i64::from(b.bytes) <= a.offset + i64::from(a.bytes)
    };
    let mut held: Vec<mem::Mem> = Vec::new();
    for (k, (insn, &line)) in insns.iter_mut().zip(text_of).enumerate() {
        if starts.contains(&k) {
            held.clear();
        }
        let head = opcode(line).split('.').next().unwrap_or("");
        let load = match insn.mem.as_slice() {
            [m] if !m.store && matches!(head, "ld" | "ldu") && !ordered(line) => Some(*m),
            _ => None,
        };
        if let Some(m) = load
            && held.iter().any(|h| within(h, &m))
        {
            insn.mem.clear();
            insn.cost = None;
        } else if insn.mem.iter().any(|m| m.store)
            || matches!(head, "bar" | "barrier" | "membar" | "fence" | "call" | "atom" | "red")
        {
            held.clear();
        } else if let Some(m) = load.filter(|_| insn.guard.is_none()) {
            held.push(m);
        }
        held.retain(|h| h.base.is_none_or(|b| !insn.dests.contains(&b)));
        if insn.target.is_some() || insn.ends {
            held.clear();
        }
    }
}

/// Keeps [`mem::Mem::folds`] only on the atomics whose address ptxas can prove the same across a
/// warp: free of the registers that can differ between its lanes (from the thread's or lane's index,
/// from memory: a load of anything but a kernel argument, an atomic's old value, a shuffle, a vote;
/// or computed from one, a guard's predicate included). ptxas folds those (VOTEU + REDUX + one lane's
/// REDG: `atomicAdd(out, x[i])`, `&count[blockIdx.x]`) and leaves the others to L2 lane by lane, even
/// where the lanes happen to share a word (atoms.cu's `gid / 32`: 32 requests a warp; docs/MODEL.md
/// section 37).
fn fold_uniform_atomics(insns: &mut [Insn], text_of: &[&str], registers: usize) {
    let source = |i: &Insn, line: &str| {
        let op = opcode(line);
        let from_memory = matches!(
            op.split('.').next().unwrap_or(""),
            "ld" | "ldu" | "atom" | "shfl" | "vote" | "match" | "activemask" | "tex" | "tld4" | "suld" | "ldmatrix"
        ) && !(op.starts_with("ld.param") && matches!(i.args.get(1), Some(Operand::Param(_))));
        from_memory || i.args.iter().any(|a| matches!(a, Operand::Special(Sreg::Tid | Sreg::Lane | Sreg::Warp, _)))
    };
    let mut varying = vec![false; registers];
    let mut changed = true;
    while changed {
        changed = false;
        for (i, line) in insns.iter().zip(text_of) {
            if source(i, line) || i.srcs.iter().any(|&r| varying[r]) {
                for &d in &i.dests {
                    changed |= !varying[d];
                    varying[d] = true;
                }
            }
        }
    }
    for m in insns.iter_mut().flat_map(|i| i.mem.iter_mut()).filter(|m| m.folds) {
        m.folds = m.base.is_none_or(|b| !varying[b]);
    }
}

/// An entry ready to run: its instructions, with registers, parameters and branch targets resolved.
#[derive(Clone, Debug)]
pub struct Program {
    insns: Vec<Insn>,
    /// Registers in all.
    registers: usize,
    /// Index of the first instruction after each barrier (`bar.sync`, `barrier.sync`), in order.
    barriers: Vec<usize>,
    /// Whether each instruction opens a basic block as the compiled code schedules it: a branch's
    /// target, or the first instruction after a barrier.
    opens: Vec<bool>,
    /// Each load or store's number among them (in program order), for the ids of its accesses.
    mem_ordinal: Vec<u32>,
    /// Loads and stores in the program.
    mems: u32,
    /// Bytes of the entry's static shared arrays.
    static_shared: u64,
    /// Whether a branch, a guard or an address depends on a float the code loads.
    loaded_floats: bool,
    /// Whether a guard (a branch's, a store's) depends on a float, loaded or computed, that the run can
    /// compute: then threads' work differs with their data, and the run samples more of them. The
    /// first where the module's `__constant__` arrays are not held, the second where they are.
    float_guards: [bool; 2],
    /// The module's `__constant__` arrays, in [`mem::const_address`] order, each with what its
    /// declaration initialises it to ([`mem::const_arrays`]).
    constants: Vec<(String, Option<Vec<u8>>)>,
    /// What some load's or store's address comes from that the run does not follow (a called
    /// function's result, a module variable it gives no address), in words, for the reason a trace
    /// fails.
    unfollowed: Vec<String>,
    /// The entry's `.maxntid` and `.reqntid` ([`super::EntryText`]).
    maxntid: Option<[u32; 3]>,
    reqntid: Option<[u32; 3]>,
}

/// What a block's warps execute, per warp, and the part of it that is the block's set-up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Executed {
    /// Warp instructions per warp, averaged over the block's warps.
    pub per_warp: Mix,
    /// Cycles a warp takes alone, averaged like `per_warp`: its instructions issued one a cycle at
    /// most, each when its operands are ready, in the order the compiler schedules a basic block
    /// (`Program::thread`).
    pub chain_cycles: f64,
    /// The first warp's instructions up to the set-up's last barrier (`None` without one).
    pub setup: Option<Mix>,
}

impl Program {
    /// Parses `entry` of the PTX module `text`; `None` when the entry is not there or the run cannot
    /// read it ([`Program::read`] says why).
    pub fn parse(text: &str, entry: &str) -> Option<Program> {
        Program::read(text, entry).ok()
    }

    /// Parses `entry` of the PTX module `text`, or says in a few words why the run cannot: no such
    /// entry with a body, or an instruction it cannot place in the program (a branch to a label that
    /// is not there, an indirect branch).
    pub fn read(text: &str, entry: &str) -> Result<Program, String> {
        let clean = super::strip_comments(text);
        let text: &str = &clean;
        let e = super::entry_in(text, entry).ok_or_else(|| format!("the PTX has no entry {entry} with a body"))?;
        let lines: Vec<&str> = e.lines.iter().map(String::as_str).collect();
        let params: Vec<&str> = e.params.iter().map(String::as_str).collect();
        // Registers declared with plain names (`.reg .u64 out_addr;`, hand-written PTX's habit), beside
        // the `%`-named ones compilers write.
        // A parameterized name (`.reg .u32 x<2>;`) declares x0 and x1.
        let plain_names: HashSet<String> = lines
            .iter()
            .filter_map(|l| l.strip_prefix(".reg"))
            .flat_map(|l| l.trim_end_matches(';').split([',', ' ', '\t']))
            .map(str::trim)
            .filter(|w| !w.is_empty() && !w.starts_with('.') && !w.starts_with('%'))
            .flat_map(|w| match w.split_once('<') {
                Some((base, n)) => {
                    let n = n.trim_end_matches('>').parse::<usize>().unwrap_or(0).min(1 << 16);
                    (0..n).map(|i| format!("{base}{i}")).collect::<Vec<_>>()
                }
                None => vec![w.to_string()],
            })
            .collect();
        let plain: HashSet<&str> = plain_names.iter().map(String::as_str).collect();
        // Predicate registers, by name (`%p<93>` declares %p0 to %p92).
        let preds: HashSet<String> = lines
            .iter()
            .filter_map(|l| l.strip_prefix(".reg"))
            .filter(|l| l.split_whitespace().any(|w| w == ".pred"))
            .flat_map(|l| l.trim_end_matches(';').split([',', ' ', '\t']))
            .map(str::trim)
            .filter(|w| !w.is_empty() && !w.starts_with('.'))
            .flat_map(|w| match w.split_once('<') {
                Some((base, n)) => {
                    let n = n.trim_end_matches('>').parse::<usize>().unwrap_or(0).min(1 << 16);
                    (0..n).map(|i| format!("{base}{i}")).collect::<Vec<_>>()
                }
                None => vec![w.to_string()],
            })
            .collect();
        let mut labels = HashMap::new();
        let (mut text_of, mut with_labels) = (Vec::new(), Vec::new());
        for line in lines.iter().map(|l| l.trim()) {
            if let Some(label) = line.strip_suffix(':') {
                labels.insert(label, text_of.len());
                with_labels.push(line);
            } else if !(line.is_empty() || line.starts_with('.') || line.starts_with("//") || !line.ends_with(';')) {
                text_of.push(line);
                with_labels.push(line);
            }
        }
        let mut names = HashMap::new();
        // Symbols as the run addresses them: shared arrays at their offsets, constant arrays above the
        // buffers.
        let (mut symbols, static_shared) = mem::shared_layout(text, &lines);
        let constants = mem::const_arrays(text);
        for (j, (name, _)) in constants.iter().enumerate() {
            symbols.insert(name.clone(), mem::const_address(j));
        }
        symbols.extend(mem::local_layout(&lines));
        symbols.extend(mem::module_globals(text));
        let mut insns: Vec<Insn> = text_of
            .iter()
            .map(|l| parse_insn(l, &params, &plain, &preds, &labels, &symbols, &mut names))
            .collect::<Result<_, String>>()?;
        keep_values_that_matter(&mut insns, names.len());
        let float_load =
            |i: &Insn, line: &str| i.loads.is_some() && [".f32", ".f64"].iter().any(|t| opcode(line).ends_with(t));
        let loaded_floats = insns.iter().zip(&text_of).any(|(i, line)| float_load(i, line));
        // Registers holding a float's value or one computed from a float (a comparison, a conversion),
        // and those the run cannot know (written by what it does not compute: a load from shared memory,
        // or from constant memory where the launch does not give it, a shuffle), each with what is
        // computed from them.
        let taint = |source: &dyn Fn(&Insn, &str) -> bool| {
            let mut set = vec![false; names.len()];
            let mut changed = true;
            while changed {
                changed = false;
                for (i, line) in insns.iter().zip(&text_of) {
                    let from = source(i, line)
                        || (i.op.is_some() && i.args.iter().skip(1).any(|a| matches!(a, Operand::Reg(r) if set[*r])));
                    for &d in i.dests.iter().filter(|_| from) {
                        changed |= !set[d];
                        set[d] = true;
                    }
                }
            }
            set
        };
        let floats = taint(&|i, line| i.op.is_some_and(|o| o.float) || float_load(i, line));
        // Addresses from what the run does not follow: a called function's results (read back from the
        // call's `.param` space), a module variable's address (`mov.u64 %rd1, table`) or contents.
        let symbol_arg = |i: &Insn, line: &str| {
            let head = opcode(line).split('.').next().unwrap_or("");
            matches!(head, "mov" | "cvta") && i.args.get(1) == Some(&Operand::Other)
        };
        let call_result =
            |i: &Insn, line: &str| opcode(line).starts_with("ld.param") && i.args.get(1) == Some(&Operand::Other);
        let addressed =
            |set: &[bool]| insns.iter().any(|i| i.mem.iter().chain(&i.loads).any(|m| m.base.is_some_and(|b| set[b])));
        let mut unfollowed = Vec::new();
        if addressed(&taint(&call_result)) {
            unfollowed.push("the result of a called function (`call`), which the run does not follow".to_string());
        }
        let symbol_taint = taint(&symbol_arg);
        // The variables: those an address names (`[table+8]`), and those moved into a register that
        // places an access (`mov.u64 %rd1, table`).
        let moved: Vec<&str> = (0..insns.len())
            .filter(|&k| symbol_arg(&insns[k], text_of[k]))
            .filter(|&k| addressed(&taint(&|i, _| std::ptr::eq(i, &insns[k]))))
            .filter_map(|k| super::operands(text_of[k]).nth(2))
            .collect();
        let unnamed: Vec<&str> = insns
            .iter()
            .zip(&text_of)
            .filter(|(i, _)| i.mem.iter().any(|m| !m.placed))
            .flat_map(|(_, l)| l.split('[').skip(1).filter_map(|a| a.split([']', '+']).next().map(str::trim)))
            .filter(|a| {
                !(a.is_empty()
                    || a.starts_with('%')
                    || plain.contains(a)
                    || symbols.contains_key(*a)
                    || params.contains(a))
            })
            .chain(moved)
            .fold(Vec::new(), |mut v, n| {
                if !v.contains(&n) {
                    v.push(n);
                }
                v
            });
        if !unnamed.is_empty() || addressed(&symbol_taint) {
            let names = if unnamed.is_empty() { String::new() } else { format!(", {}", unnamed.join(", ")) };
            unfollowed.push(format!(
                "the address of a module variable{names} (`.global`: no kernel argument, so the run has no buffer for it)"
            ));
        }
        // Work decided by floats the run can compute (not where they come from memory it does not hold,
        // where sampling more threads would only repeat the same unknowns).
        let float_guards = [false, true].map(|constants_held| {
            let unknown = taint(&|i, _| {
                let unknown_load =
                    |m: mem::Mem| m.space == Space::Shared || (m.space == Space::Const && !constants_held);
                !i.dests.is_empty() && ((i.op.is_none() && i.loads.is_none()) || i.loads.is_some_and(unknown_load))
            });
            insns.iter().any(|i| i.guard.is_some_and(|(g, _)| floats[g] && !unknown[g]))
        });
        fold_uniform_atomics(&mut insns, &text_of, names.len());
        // Costs as the static count gives them (which reads the labels too).
        let costs = super::costs(&with_labels);
        let priced = with_labels.iter().zip(costs).filter(|(l, _)| !l.ends_with(':')).map(|(_, c)| c);
        for (insn, cost) in insns.iter_mut().zip(priced) {
            insn.cost = cost;
        }
        let starts: HashSet<usize> = labels.values().copied().collect();
        drop_repeated_loads(&mut insns, &text_of, &starts);
        let barriers: Vec<usize> = (0..insns.len()).filter(|&i| is_barrier(text_of[i])).map(|i| i + 1).collect();
        let mut opens = vec![false; insns.len() + 1];
        for &i in insns.iter().filter_map(|i| i.target.as_ref()).chain(&barriers) {
            opens[i] = true;
        }
        opens.truncate(insns.len());
        let mut next = 0;
        let mem_ordinal = insns
            .iter()
            .map(|i| {
                if i.mem.is_empty() {
                    u32::MAX
                } else {
                    next += 1;
                    next - 1
                }
            })
            .collect();
        Ok(Program {
            insns,
            registers: names.len(),
            barriers,
            opens,
            mem_ordinal,
            mems: next,
            static_shared,
            loaded_floats,
            float_guards,
            constants,
            unfollowed,
            maxntid: e.maxntid,
            reqntid: e.reqntid,
        })
    }

    /// Runs sample threads (lanes 0, 1 and 31 of up to 8 warps, evenly spaced) of one block
    /// of each kind `grid` has: a middle block, and the last along each dimension with more than one
    /// (where a problem that does not divide by the block leaves threads idle), each weighed by how many
    /// blocks it stands for. Where guards depend on floats the run computes, every lane of the sampled
    /// warps, and up to 64 blocks of each kind spread over the grid. The first `setup_barriers`
    /// barriers close the block's set-up; `lat` times the warps' chains. `None` when a thread runs past
    /// its step limit (4 M).
    pub fn execute(
        &self,
        args: &[Arg],
        memory: &Memory,
        grid: Dim3,
        block: Dim3,
        setup_barriers: u32,
        lat: &Latencies,
    ) -> Option<Executed> {
        if block.volume() == 0 || grid.volume() == 0 {
            return None;
        }
        let dims = [grid.x, grid.y, grid.z];
        let mut per_warp = Mix::default();
        let mut chain_cycles = 0.0;
        let mut setup = None;
        let follows_data = self.spreads(memory);
        for class in 0..8u32 {
            // Bit d set: the last block along dimension d, else one in the middle.
            let last = |d: usize| class & (1 << d) != 0;
            if (0..3).any(|d| last(d) && dims[d] < 2) {
                continue;
            }
            // The class's blocks along each axis: the last, or those before it.
            let span = |d: usize| if last(d) { 1 } else { dims[d] as u64 - (dims[d] as u64).min(2) + 1 };
            let weight: f64 = (0..3).map(|d| span(d) as f64).product();
            // A block in the middle; where guards depend on floats (threads' work differs with their
            // data), SPREAD blocks over the class, on an R3 sequence (Roberts' low-discrepancy points:
            // well spread over the grid's rows and columns alike).
            let count = (0..3).map(span).product::<u64>();
            let spread = if follows_data { SPREAD.min(count) } else { 1 };
            let at = |k: u64| {
                let pick = |d: usize| {
                    if last(d) {
                        dims[d] - 1
                    } else if spread == 1 {
                        (dims[d] - 1) / 2
                    } else {
                        let u = (0.5 + k as f64 * R3[d]).fract();
                        ((u * span(d) as f64) as u64).min(span(d) - 1) as u32
                    }
                };
                Dim3::new(pick(0), pick(1), pick(2))
            };
            let run = |k: u64| {
                self.block(&Context { args, memory, grid, block, at: at(k), lat, follows_data }, BUDGET / spread)
            };
            // The first block's cost sets how many the class's budget allows (long loops: fewer).
            let first = run(0)?;
            let samples = if spread > 1 { (SPREAD_BUDGET / first.steps.max(1)).clamp(1, spread) } else { 1 };
            let mut blocks = vec![first];
            for k in 1..samples {
                blocks.push(run(k)?);
            }
            for (k, b) in blocks.iter().enumerate() {
                let share = weight / samples as f64 / grid.volume() as f64;
                per_warp = per_warp.add_scaled(&b.mix, share);
                chain_cycles += b.chain * weight / samples as f64 / grid.volume() as f64;
                if class == 0 && k == 0 {
                    setup = (setup_barriers as usize)
                        .checked_sub(1)
                        .and_then(|i| self.barriers.get(i))
                        .map(|&end| self.mix(&b.first, 0..end));
                }
            }
        }
        Some(Executed { per_warp, chain_cycles, setup })
    }

    /// One block's mix and chain per warp (warp 0, which may do the block's set-up, weighs one warp;
    /// the others sampled share the rest) and warp 0's counts; its sampled threads take about `budget`
    /// steps at most together (warps beyond the first two are left out past it).
    fn block(&self, c: &Context, budget: u64) -> Option<Block> {
        let threads = c.block.volume();
        let warps = threads.div_ceil(32);
        // Lanes 0, 1 and 31 of a warp (a thread's work is its index's), or all 32 where guards depend
        // on floats (a warp runs until its slowest lane).
        let lanes = |w: u64| {
            let mut v: Vec<u64> = if c.follows_data {
                (0..32).map(|l| w * 32 + l).filter(|&t| t < threads).collect()
            } else {
                [0u64, 1, 31].iter().map(|l| w * 32 + l).filter(|&t| t < threads).collect()
            };
            v.dedup();
            v
        };
        // Warp 0 first: its cost sets how many more warps the budget allows.
        let first = self.warp(c, &lanes(0))?;
        let affordable = (budget / (first.steps.max(1) * lanes(0).len() as u64)).clamp(2, SAMPLED);
        let n = (warps - 1).min(affordable - 1);
        let all = 0..self.insns.len();
        let mut mix = Mix::default().add_scaled(&self.mix(&first.counts, all.clone()), 1.0 / warps as f64);
        let mut chain = first.chain / warps as f64;
        let mut steps = first.steps * lanes(0).len() as u64;
        for k in 1..=n {
            let these = lanes(k * (warps - 1) / n);
            let w = self.warp(c, &these)?;
            let share = (warps - 1) as f64 / warps as f64 / n as f64;
            mix = mix.add_scaled(&self.mix(&w.counts, all.clone()), share);
            chain += w.chain * share;
            steps += w.steps * these.len() as u64;
        }
        Some(Block { mix, chain, first: first.counts, steps })
    }

    /// One warp: per instruction the most any sampled lane ran it (a divergent branch's both sides, a
    /// loop's longest trip), its longest lane's chain and steps. Where work follows data (every lane
    /// sampled, [`Program::spreads`]), the counts are the warp's own as it runs its lanes in lockstep:
    /// an instruction once for every step any lane takes it, so a branch inside a loop that different
    /// lanes take on different trips costs every such trip, not the busiest lane's.
    fn warp(&self, c: &Context, lanes: &[u64]) -> Option<Run> {
        let mut all = Run { counts: vec![0u32; self.insns.len()], steps: 0, chain: 0.0 };
        let b = c.block;
        let tid = |t: u64| {
            Dim3::new(
                (t % b.x as u64) as u32,
                (t / b.x as u64 % b.y as u64) as u32,
                (t / (b.x as u64 * b.y as u64)) as u32,
            )
        };
        for &t in lanes {
            let run = self.thread(c, tid(t), (t % 32) as u32, (t / 32) as u32, None)?;
            for (a, b) in all.counts.iter_mut().zip(run.counts) {
                *a = (*a).max(b);
            }
            all.steps = all.steps.max(run.steps);
            all.chain = all.chain.max(run.chain);
        }
        if c.follows_data && lanes.len() > 1 {
            let tids: Vec<Dim3> = lanes.iter().map(|&t| tid(t)).collect();
            let mut simt = vec![0u32; self.insns.len()];
            self.lockstep_accesses(c.args, c.memory, c.grid, c.block, c.at, &tids, Some(&mut simt))?;
            all.counts = simt;
        }
        Some(all)
    }

    /// Bytes of the entry's static shared arrays, laid out as ptxas lays them.
    pub fn static_shared_bytes(&self) -> u64 {
        self.static_shared
    }

    /// Whether a branch, a guard or an address depends on a float the code loads (so that the run
    /// needs its float inputs' contents).
    pub fn follows_loaded_floats(&self) -> bool {
        self.loaded_floats
    }

    /// The module's `__constant__` arrays, in the order [`Memory::with_constants`] takes their contents,
    /// each with what its declaration initialises it to (what a launch finds where the host writes
    /// nothing; `None` where the run cannot read the initialiser).
    pub fn constants(&self) -> &[(String, Option<Vec<u8>>)] {
        &self.constants
    }

    /// Why a launch in blocks of `block` is not one the entry allows (its `.reqntid`, its `.maxntid`),
    /// or `None`: the driver refuses such a launch.
    pub fn refuses(&self, block: Dim3) -> Option<String> {
        super::refuses(self.maxntid, self.reqntid, block)
    }

    /// What some load's or store's address comes from that the run does not follow, in words (empty
    /// where nothing is known to be): what a trace that cannot place an access says.
    pub fn unfollowed(&self) -> &[String] {
        &self.unfollowed
    }

    /// Whether the run samples every lane and blocks spread over the grid: a guard depends on floats it
    /// can compute, given what `memory` holds of the constant arrays.
    fn spreads(&self, memory: &Memory) -> bool {
        let held = !self.constants.is_empty() && memory.holds_constants(self.constants.len());
        self.float_guards[usize::from(held)]
    }

    /// Barrier instructions in the code (each counted once, in a loop or not).
    pub fn barrier_count(&self) -> u32 {
        self.barriers.len() as u32
    }

    /// Appends the global and shared loads and stores of thread `tid` of block `at` to `out`, in
    /// program order, each n-th execution of one instruction with its own id; returns how many it could
    /// not place (an address loaded from memory, a float, or outside every buffer), `None` when the
    /// thread runs past its step limit. A branch on a value the run does not know is not taken.
    #[allow(clippy::too_many_arguments)]
    pub fn accesses(
        &self,
        args: &[Arg],
        memory: &Memory,
        grid: Dim3,
        block: Dim3,
        at: Dim3,
        tid: Dim3,
        out: &mut Vec<Access>,
    ) -> Option<u32> {
        let lat = Latencies { pipe: 0.0, global: 0.0, shared: 0.0 };
        let linear = tid.x as u64 + block.x as u64 * (tid.y as u64 + block.y as u64 * tid.z as u64);
        let mut rec = Recorder { out, unplaced: 0 };
        let c = Context { args, memory, grid, block, at, lat: &lat, follows_data: false };
        self.thread(&c, tid, (linear % 32) as u32, (linear / 32) as u32, Some(&mut rec))?;
        Some(rec.unplaced)
    }

    /// [`Program::accesses`] of up to 32 threads of one block at once, as a warp runs them: each
    /// instruction is decoded once for every thread at it, so a long loop costs one pass rather than one
    /// per thread. Where the threads part ways at a branch, the ones with the earliest instruction run
    /// first and the others wait, so that they run together again where the paths meet (the end of an
    /// `if`, a loop's exit); the threads share nothing, so the order changes no thread's list. Each
    /// thread's list and unplaced count are exactly what `accesses` gives it; `None` past the step limit
    /// (run the threads one by one to see which). `counts`, where given, gets each instruction's
    /// executions by the warp: once for every step any of the threads takes it.
    #[allow(clippy::too_many_arguments)]
    pub fn lockstep_accesses(
        &self,
        args: &[Arg],
        memory: &Memory,
        grid: Dim3,
        block: Dim3,
        at: Dim3,
        tids: &[Dim3],
        mut counts: Option<&mut [u32]>,
    ) -> Option<Vec<(Vec<Access>, u32)>> {
        let n = tids.len();
        if n == 0 || n > 32 {
            return None;
        }
        let full: u32 = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        // Register r of lane l at r * n + l, with a bit per lane where its value is known.
        let mut regs = vec![0u64; self.registers * n];
        let mut known = vec![0u32; self.registers];
        // Executions of each load or store by each lane, for its accesses' ids.
        let mut executed = vec![0u32; self.mems as usize * n];
        let mut out: Vec<(Vec<Access>, u32)> = (0..n).map(|_| (Vec::new(), 0)).collect();
        let linear: Vec<u64> =
            tids.iter().map(|t| t.x as u64 + block.x as u64 * (t.y as u64 + block.y as u64 * t.z as u64)).collect();
        let axis = |d: Dim3, a: usize| [d.x, d.y, d.z][a] as u64;
        let special = |r: Sreg, a: usize, l: usize| match r {
            Sreg::Tid => axis(tids[l], a),
            Sreg::Ntid => axis(block, a),
            Sreg::Ctaid => axis(at, a),
            Sreg::Nctaid => axis(grid, a),
            Sreg::Lane => linear[l] % 32,
            Sreg::Warp => linear[l] / 32,
        };
        let lanes = |m: u32| (0..n).filter(move |l| m >> l & 1 != 0);
        // Each live lane's next instruction; while they agree (`together`), `pc` is theirs and `pcs` is
        // not kept.
        let (mut pcs, mut pc, mut together) = ([0usize; 32], 0usize, true);
        let (mut steps, mut live) = (0u64, full);
        loop {
            let here = if together {
                live
            } else {
                pc = lanes(live).map(|l| pcs[l]).min()?;
                lanes(live).filter(|&l| pcs[l] == pc).fold(0, |m, l| m | 1 << l)
            };
            if pc >= self.insns.len() {
                break;
            }
            steps += 1;
            if steps > MAX_STEPS {
                return None;
            }
            if let Some(c) = counts.as_deref_mut() {
                c[pc] += 1;
            }
            let insn = &self.insns[pc];
            // Lanes here whose guard is known true, known false; the rest do not know it.
            let (yes, no) = match insn.guard {
                None => (here, 0),
                Some((p, neg)) => {
                    let set =
                        lanes(here & known[p]).filter(|&l| (regs[p * n + l] != 0) != neg).fold(0u32, |m, l| m | 1 << l);
                    (set, here & known[p] & !set)
                }
            };
            // Where each lane here goes next: `jump` to the target, the others on.
            let (jump, target) = match insn.target {
                // A branch on what a lane does not know is not taken (as `thread` does).
                Some(t) => (yes, t),
                None if insn.ends => {
                    live &= !yes;
                    if live == 0 {
                        break;
                    }
                    (0, 0)
                }
                None => {
                    self.step_lanes(
                        insn,
                        pc,
                        here,
                        yes,
                        no,
                        n,
                        &mut regs,
                        &mut known,
                        &mut executed,
                        &mut out,
                        memory,
                        &|o, l| match o {
                            Operand::Special(r, a) => Some(special(*r, *a, l)),
                            Operand::Param(i) => param(args, *i),
                            _ => None,
                        },
                    );
                    (0, 0)
                }
            };
            let moved = here & live;
            if together && (jump == 0 || jump == moved) && moved == live {
                pc = if jump == 0 { pc + 1 } else { target };
                continue;
            }
            if together {
                for l in lanes(live) {
                    pcs[l] = pc;
                }
            }
            for l in lanes(moved) {
                pcs[l] = if jump >> l & 1 != 0 { target } else { pc + 1 };
            }
            let first = lanes(live).next().map_or(0, |l| pcs[l]);
            together = lanes(live).all(|l| pcs[l] == first);
            pc = first;
        }
        Some(out)
    }

    /// One instruction that is not a branch or an exit, for the lanes `here` of a lockstep run (`yes`:
    /// its guard known true, `no`: known false): their loads and stores recorded, their results written.
    #[allow(clippy::too_many_arguments)]
    fn step_lanes(
        &self,
        insn: &Insn,
        pc: usize,
        here: u32,
        yes: u32,
        no: u32,
        n: usize,
        regs: &mut [u64],
        known: &mut [u32],
        executed: &mut [u32],
        out: &mut [(Vec<Access>, u32)],
        memory: &Memory,
        other: &dyn Fn(&Operand, usize) -> Option<u64>,
    ) {
        let lanes = |m: u32| (0..n).filter(move |l| m >> l & 1 != 0);
        if !insn.mem.is_empty() {
            let ordinal = self.mem_ordinal[pc] as usize;
            for l in lanes(here) {
                let count = &mut executed[ordinal * n + l];
                *count += 1;
                if no >> l & 1 != 0 {
                    continue;
                }
                // The n-th execution of one load or store by each lane of a warp is one request.
                let id = (*count - 1).wrapping_mul(self.mems).wrapping_add(ordinal as u32);
                let (acc, unplaced) = &mut out[l];
                let mut rec = Recorder { out: acc, unplaced: 0 };
                let lane = other(&Operand::Special(Sreg::Lane, 0), l).unwrap_or(0) as u32;
                for m in &insn.mem {
                    let value = |r: usize| (known[r] >> l & 1 != 0).then(|| regs[r * n + l]);
                    if skipped(m, value) {
                        continue;
                    }
                    let base = match m.base {
                        None => Some(0),
                        Some(b) => value(b),
                    };
                    rec.record(*m, base, id, lane);
                }
                *unplaced += rec.unplaced;
            }
        }
        if insn.dests.is_empty() {
            return;
        }
        let runs = here & !no;
        if let Some(m) = insn.loads {
            // Each lane's address first (a vector load may write its own base register).
            let (mut placed, mut bases) = (0u32, [0u64; 32]);
            for l in lanes(yes) {
                let base = match m.base {
                    None => Some(0),
                    Some(b) => (known[b] >> l & 1 != 0).then(|| regs[b * n + l]),
                };
                if let Some(b) = base {
                    (bases[l], placed) = (b, placed | 1 << l);
                }
            }
            for (k, &d) in insn.dests.iter().enumerate() {
                let mut set = 0u32;
                for l in lanes(placed) {
                    if let Some(v) = m.load(memory, bases[l], k, insn.dests.len()) {
                        regs[d * n + l] = v;
                        set |= 1 << l;
                    }
                }
                known[d] = (known[d] & !runs) | set;
            }
            return;
        }
        // Lanes whose guard is unknown write an unknown value; those whose guard is false, nothing.
        let (mut set, mut values) = (0u32, [0u64; 32]);
        if let Some(op) = insn.op {
            for l in lanes(yes) {
                let get = |k: usize| -> Option<u64> {
                    match insn.args.get(k)? {
                        Operand::Reg(r) => (known[*r] >> l & 1 != 0).then(|| regs[*r * n + l]),
                        Operand::Imm(v) => Some(*v),
                        o => other(o, l),
                    }
                };
                if let Some(v) = apply(op, get) {
                    values[l] = v;
                    set |= 1 << l;
                }
            }
        }
        for &d in &insn.dests {
            for l in lanes(set) {
                regs[d * n + l] = values[l];
            }
            known[d] = (known[d] & !runs) | set;
        }
    }

    /// The mix of `counts` over instructions `range`.
    fn mix(&self, counts: &[u32], range: std::ops::Range<usize>) -> Mix {
        let mut m = Mix::default();
        for i in range {
            if let Some(c) = self.insns[i].cost {
                m = m.add_scaled(&c, counts[i] as f64);
            }
        }
        m
    }

    /// Runs one thread: per-instruction counts, steps, and its chain, as the compiled code schedules a
    /// basic block: ptxas moves an instruction ahead of others that it does not need (a loop body's
    /// loads go out together before the multiply-adds that use them, as `cuobjdump -sass` shows), so
    /// within a block each instruction issues when its operands are ready and no earlier than its
    /// turn (the block's start plus one cycle per instruction before it); loads and stores keep
    /// their order among themselves (the compiler cannot tell that they do not alias); a branch, the
    /// block's last instruction, issues after all the others, and the next block starts after it. A
    /// result is ready its latency after its issue. A branch on a value the run does not know (one
    /// loaded from memory, a float) is taken as not taken.
    fn thread(&self, c: &Context, tid: Dim3, lane: u32, warp: u32, mut rec: Option<&mut Recorder>) -> Option<Run> {
        let mut regs: Vec<Option<u64>> = vec![None; self.registers];
        let mut ready = vec![0.0f64; self.registers];
        let mut counts = vec![0u32; self.insns.len()];
        let (mut pc, mut steps, mut clock) = (0, 0u64, 0.0f64);
        // The basic block's start, the turns taken in it, and the last memory instruction's issue.
        let (mut front, mut turn, mut memory) = (0.0f64, 0.0f64, f64::NEG_INFINITY);
        let axis = |d: Dim3, a: usize| [d.x, d.y, d.z][a] as u64;
        let special = |r: Sreg, a: usize| match r {
            Sreg::Tid => axis(tid, a),
            Sreg::Ntid => axis(c.block, a),
            Sreg::Ctaid => axis(c.at, a),
            Sreg::Nctaid => axis(c.grid, a),
            Sreg::Lane => lane as u64,
            Sreg::Warp => warp as u64,
        };
        while pc < self.insns.len() {
            steps += 1;
            if steps > MAX_STEPS {
                return None;
            }
            counts[pc] += 1;
            let insn = &self.insns[pc];
            if self.opens[pc] && turn > 0.0 {
                (front, turn) = (clock, 0.0);
            }
            let operands = insn.srcs.iter().map(|&r| ready[r]).fold(0.0, f64::max);
            let closes = insn.target.is_some() || insn.ends;
            let issue = match insn.cost {
                Some(cost) => {
                    turn += 1.0;
                    let mut at = operands.max(front + turn);
                    if cost.mem > 0.0 {
                        at = at.max(memory + 1.0);
                        memory = at;
                    }
                    if closes { at.max(clock + 1.0) } else { at }
                }
                None => operands,
            };
            clock = clock.max(issue);
            if closes {
                (front, turn) = (clock, 0.0);
            }
            let done = issue
                + match insn.wait {
                    _ if insn.cost.is_none() => 0.0,
                    Wait::Free => 0.0,
                    Wait::Pipe => c.lat.pipe,
                    Wait::Steps(n) => n * c.lat.pipe,
                    Wait::Global => c.lat.global,
                    Wait::Shared => c.lat.shared,
                };
            let guard = insn.guard.map(|(p, neg)| regs[p].map(|v| (v != 0) != neg));
            if let Some(target) = insn.target {
                pc = if matches!(guard, None | Some(Some(true))) { target } else { pc + 1 };
                continue;
            }
            if insn.ends {
                if matches!(guard, None | Some(Some(true))) {
                    break;
                }
                pc += 1;
                continue;
            }
            if let Some(r) = rec.as_deref_mut()
                && guard != Some(Some(false))
            {
                // The n-th execution of one load or store by each lane of a warp is one request.
                let id = (counts[pc] - 1).wrapping_mul(self.mems).wrapping_add(self.mem_ordinal[pc]);
                for m in &insn.mem {
                    if skipped(m, |r| regs[r]) {
                        continue;
                    }
                    r.record(*m, m.base.map_or(Some(0), |b| regs[b]), id, lane);
                }
            }
            let value = match guard {
                Some(Some(false)) => {
                    pc += 1;
                    continue;
                }
                Some(None) => None,
                None | Some(Some(true)) => {
                    let get = |k: usize| -> Option<u64> {
                        match insn.args.get(k)? {
                            Operand::Reg(r) => regs[*r],
                            Operand::Special(r, a) => Some(special(*r, *a)),
                            Operand::Imm(v) => Some(*v),
                            Operand::Param(i) => param(c.args, *i),
                            Operand::Other => None,
                        }
                    };
                    insn.op.and_then(|op| apply(op, get))
                }
            };
            // A load of integers from a buffer the launch only reads: what the buffer holds there.
            let loaded = insn
                .loads
                .filter(|_| guard != Some(None))
                .and_then(|m| Some((m, m.base.map_or(Some(0), |b| regs[b])?)));
            for (k, &d) in insn.dests.iter().enumerate() {
                regs[d] = match loaded {
                    Some((m, base)) => m.load(c.memory, base, k, insn.dests.len()),
                    None => value,
                };
                ready[d] = done;
            }
            pc += 1;
        }
        Some(Run { counts, steps, chain: clock })
    }
}

/// A launch as one run sees it: the kernel's arguments, the grid and block, the block run, the
/// latencies, and how its warps are sampled.
struct Context<'a> {
    args: &'a [Arg],
    memory: &'a Memory,
    grid: Dim3,
    block: Dim3,
    at: Dim3,
    lat: &'a Latencies,
    /// Whether work follows data here ([`Program::spreads`]): every lane sampled, the warp counted in
    /// lockstep.
    follows_data: bool,
}

/// Whether access `m` does not happen for a thread whose registers hold `value`: a `cp.async` whose
/// src-size is known to be 0, or whose ignore-src predicate is known to be true.
fn skipped(m: &mem::Mem, value: impl Fn(usize) -> Option<u64>) -> bool {
    m.unless.is_some_and(|(r, pred)| value(r) == Some(u64::from(pred)))
}

/// A thread's accesses as its run records them, and how many it could not place.
struct Recorder<'r> {
    out: &'r mut Vec<Access>,
    unplaced: u32,
}

impl Recorder<'_> {
    /// Records access `m` with base address `base` (a buffer's argument is `(index + 1) << 40`, a shared
    /// array its offset in the block's shared memory) as the access numbered `id`, made by the thread in
    /// lane `lane` of its warp (one past the lanes `m` takes part with: nothing).
    fn record(&mut self, m: mem::Mem, base: Option<u64>, id: u32, lane: u32) {
        if lane >= u32::from(m.lanes) {
            return;
        }
        let Some(addr) = base.filter(|_| m.placed).map(|b| b.wrapping_add(m.offset as u64)) else {
            self.unplaced += 1;
            return;
        };
        // Local memory (a `.local` array's generic address, a debug build's stack frame) is not
        // traffic the memory model counts, as `ld.local` is not.
        if addr >> 48 == mem::LOCAL_REGION {
            return;
        }
        let id = id as usize;
        // A generic address below every buffer's came from a shared array's offset (`cvta.shared`):
        // the run gives nothing else such an address.
        let shared = m.space == Space::Shared || (m.space == Space::Generic && addr < 1 << 32);
        match m.space {
            _ if shared => self.out.push(if m.store {
                Access::shared_store(id, addr / 4, m.bytes)
            } else {
                Access::shared_load(id, addr / 4, m.bytes)
            }),
            _ => match u8::try_from((addr >> 40).wrapping_sub(1)) {
                Ok(b) if b < u8::MAX => {
                    let word = (addr & ((1 << 40) - 1)) / 4;
                    let access = match (m.store, m.atomic) {
                        (true, true) if m.folds => Access::atomic_fold(id, b, word, m.bytes),
                        (true, true) => Access::atomic(id, b, word, m.bytes),
                        (true, false) => Access::store(id, b, word, m.bytes),
                        _ => Access::load(id, b, word, m.bytes),
                    };
                    self.out.push(access.at_byte(addr));
                }
                _ => self.unplaced += 1,
            },
        }
    }
}

/// One thread's or warp's run: executions per instruction, steps, the chain's cycles.
struct Run {
    counts: Vec<u32>,
    steps: u64,
    chain: f64,
}

/// One block's mix and chain per warp, and warp 0's counts.
struct Block {
    mix: Mix,
    chain: f64,
    first: Vec<u32>,
    /// Steps its sampled threads took in all.
    steps: u64,
}

/// What an instruction's result waits for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Wait {
    /// Nothing: it folds into its user (or writes nothing).
    Free,
    /// A pipe's dependent latency.
    Pipe,
    /// That of a routine of this many dependent steps (a division, a root: [`super::routine`]).
    Steps(f64),
    /// A load from global (or local, or generic) memory.
    Global,
    /// A load from shared memory (or the constant cache).
    Shared,
}

/// Cycles a result takes to feed a dependent instruction: an arithmetic pipe's, a global load's, a
/// shared load's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Latencies {
    /// Arithmetic, conversions, moves, branches.
    pub pipe: f64,
    /// A global load.
    pub global: f64,
    /// A shared-memory load.
    pub shared: f64,
}

/// An integer, predicate or floating-point operation, decoded once from its opcode.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Op {
    head: Head,
    /// Operand width in bits (1 for predicates) and signedness, from the type suffix.
    bits: u32,
    signed: bool,
    /// Its operands are floats of `bits` bits (`.f32`, `.f64`), held as their bits.
    float: bool,
    /// `.sat`: a float result clamped to [0, 1].
    sat: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Head {
    /// ld.param, mov, cvta: the operand's value.
    Move,
    /// cvt between integer types: from `bits`/`signed` of the source to a destination width.
    Cvt(u32),
    Add,
    Sub,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Div,
    Rem,
    Not,
    Neg,
    /// bfe: a bit field of operand 1 at position operand 2 (its low 8 bits), operand 3 bits long,
    /// zero- or (`.s32`, `.s64`) sign-extended.
    Bfe,
    /// mul/mad (`mad`: an addend), low half, wide (double width) or high half.
    Mul {
        mad: bool,
        half: Half,
    },
    /// mul24/mad24: the operands' low 24 bits multiplied, the product's low (`hi` false) or high 32
    /// of its 48 bits.
    Mul24 {
        mad: bool,
        hi: bool,
    },
    Selp,
    /// setp.CMP[.and/.or/.xor]: the comparison and how it combines with a predicate operand.
    Setp(Cmp, Option<Combine>),
    Abs,
    /// Floats only: `rcp`, `sqrt`, `rsqrt`, `ex2`, `lg2`, `sin`, `cos` (their `.approx` forms computed
    /// exactly).
    Unary(Fn1),
    /// cvt to a float of this many bits, from an integer (`bits`/`signed`) or a float (`float`), or a
    /// float rounded to a whole number (`.rni`, `.rzi`, `.rmi`, `.rpi`).
    ToFloat(u32, Round),
    /// cvt from a float to an integer of this many bits and signedness, rounded as said.
    ToInt(u32, bool, Round),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fn1 {
    Rcp,
    Sqrt,
    Rsqrt,
    Ex2,
    Lg2,
    Sin,
    Cos,
}

/// A conversion's rounding to a whole number (`Keep`: none asked, the nearest representable value).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Round {
    Keep,
    Nearest,
    Zero,
    Down,
    Up,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Combine {
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Half {
    Lo,
    Wide,
    Hi,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Floats: neither is NaN (`num`), either is (`nan`).
    Num,
    Nan,
    /// Floats: the (ordered) comparison, or either is NaN (`equ`, `ltu`, ...).
    Unordered(&'static Cmp),
}

/// A `setp`'s comparison by its name: integers' (`lo`/`ls`/`hi`/`hs` for the unsigned ones) and
/// floats' (`num`, `nan`, and the unordered `equ` ... `geu`).
fn cmp_of(name: &str) -> Option<Cmp> {
    Some(match name {
        "eq" => Cmp::Eq,
        "ne" => Cmp::Ne,
        "lt" | "lo" => Cmp::Lt,
        "le" | "ls" => Cmp::Le,
        "gt" | "hi" => Cmp::Gt,
        "ge" | "hs" => Cmp::Ge,
        "num" => Cmp::Num,
        "nan" => Cmp::Nan,
        "equ" => Cmp::Unordered(&Cmp::Eq),
        "neu" => Cmp::Unordered(&Cmp::Ne),
        "ltu" => Cmp::Unordered(&Cmp::Lt),
        "leu" => Cmp::Unordered(&Cmp::Le),
        "gtu" => Cmp::Unordered(&Cmp::Gt),
        "geu" => Cmp::Unordered(&Cmp::Ge),
        _ => return None,
    })
}

/// Floats `a` and `b` compared as `cmp` says (an ordered comparison is false where either is NaN).
fn float_compare(cmp: Cmp, a: f64, b: f64) -> bool {
    let nan = a.is_nan() || b.is_nan();
    match cmp {
        Cmp::Eq => a == b,
        Cmp::Ne => a != b && !nan,
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
        Cmp::Num => !nan,
        Cmp::Nan => nan,
        Cmp::Unordered(o) => nan || float_compare(*o, a, b),
    }
}

/// Kernel parameter `i`'s value as the run holds it: a buffer's pointer `(index + 1) << 40` (so that an
/// address names its buffer and offset), an integer zero-extended from 32 bits, a float's bits.
fn param(args: &[Arg], i: usize) -> Option<u64> {
    Some(match args.get(i)? {
        Arg::Buf(b) => (*b as u64 + 1) << 40,
        Arg::I32(v) => *v as u32 as u64,
        Arg::F32(f) => f.to_bits() as u64,
    })
}

/// Decodes an opcode whose result the run tracks: integer and predicate operations (`None` for the
/// rest: floating point, memory other than parameters, anything not listed).
fn decode(op: &str) -> Option<Op> {
    let parts: Vec<&str> = op.split('.').collect();
    let ty = *parts.last()?;
    if let Some(bits) = float_bits(ty) {
        return decode_float(&parts, bits);
    }
    let (bits, signed) = type_of(ty)?;
    let at = |i: usize| parts.get(i).copied().unwrap_or("");
    let head = match parts[0] {
        "ld" if at(1) == "param" => Head::Move,
        "mov" | "cvta" => Head::Move,
        "cvt" => {
            // cvt[.rnd][.sat].dst.src: the source's type is the op's.
            let dst = at(parts.len().checked_sub(2)?);
            if let Some(to) = float_bits(dst) {
                Head::ToFloat(to, Round::Keep)
            } else if parts.iter().any(|p| p.starts_with("rn") || p.starts_with("rz")) {
                return None;
            } else {
                Head::Cvt(type_of(dst)?.0)
            }
        }
        "abs" => Head::Abs,
        "add" => Head::Add,
        "sub" => Head::Sub,
        "min" => Head::Min,
        "max" => Head::Max,
        "and" => Head::And,
        "or" => Head::Or,
        "xor" => Head::Xor,
        "shl" => Head::Shl,
        "shr" => Head::Shr,
        "div" => Head::Div,
        "rem" => Head::Rem,
        "not" => Head::Not,
        "bfe" => Head::Bfe,
        "neg" => Head::Neg,
        h @ ("mul" | "mad") => Head::Mul {
            mad: h == "mad",
            half: match at(1) {
                "wide" => Half::Wide,
                "hi" => Half::Hi,
                _ => Half::Lo,
            },
        },
        // The low 24 bits of each operand multiplied (sign-extended for .s32): the low or the high 32 bits
        // of the 48-bit product.
        h @ ("mul24" | "mad24") => Head::Mul24 { mad: h == "mad24", hi: at(1) == "hi" },
        "selp" => Head::Selp,
        "setp" => Head::Setp(cmp_of(at(1))?, combine_of(at(2))),
        _ => return None,
    };
    Some(Op { head, bits, signed, float: false, sat: false })
}

/// A `setp`'s way of combining with a predicate operand (`.and`, `.or`, `.xor`: the opcode's part after
/// the comparison).
fn combine_of(part: &str) -> Option<Combine> {
    match part {
        "and" => Some(Combine::And),
        "or" => Some(Combine::Or),
        "xor" => Some(Combine::Xor),
        _ => None,
    }
}

/// A comparison's result `r` combined as `combine` says with the predicate operand 3
/// (`setp.CMP.and.TYPE p, a, b, q`).
fn combined(r: bool, combine: Option<Combine>, get: &impl Fn(usize) -> Option<u64>) -> Option<u64> {
    let q = || get(3).map(|q| q != 0);
    Some(
        (match combine {
            Some(Combine::And) => r && q()?,
            Some(Combine::Or) => r || q()?,
            Some(Combine::Xor) => r ^ q()?,
            None => r,
        }) as u64,
    )
}

/// Width of a float type suffix (`f32`, `f64`; half precision is not followed).
fn float_bits(ty: &str) -> Option<u32> {
    match ty {
        "f32" => Some(32),
        "f64" => Some(64),
        _ => None,
    }
}

/// A rounding modifier to a whole number (`rni`, `rzi`, `rmi`, `rpi`) among an opcode's parts.
fn round_of(parts: &[&str]) -> Round {
    let found = parts.iter().find_map(|p| match *p {
        "rni" => Some(Round::Nearest),
        "rzi" => Some(Round::Zero),
        "rmi" => Some(Round::Down),
        "rpi" => Some(Round::Up),
        _ => None,
    });
    found.unwrap_or(Round::Keep)
}

/// Decodes an opcode on floats of `bits` bits (the last type suffix), where the run can compute it.
fn decode_float(parts: &[&str], bits: u32) -> Option<Op> {
    let at = |i: usize| parts.get(i).copied().unwrap_or("");
    let sat = parts.contains(&"sat");
    let head = match parts[0] {
        // A parameter: the run holds float arguments as f32 (`param`), so a double one is widened.
        "ld" if at(1) == "param" && bits == 64 => {
            return Some(Op { head: Head::ToFloat(64, Round::Keep), bits: 32, signed: false, float: true, sat });
        }
        // Bits moved or selected as they are: the integer operations at the width.
        "ld" if at(1) == "param" => return Some(Op { head: Head::Move, bits, signed: false, float: false, sat }),
        "mov" => return Some(Op { head: Head::Move, bits, signed: false, float: false, sat }),
        "selp" => return Some(Op { head: Head::Selp, bits, signed: false, float: false, sat }),
        "add" => Head::Add,
        "sub" => Head::Sub,
        "mul" => Head::Mul { mad: false, half: Half::Lo },
        "fma" | "mad" => Head::Mul { mad: true, half: Half::Lo },
        "div" => Head::Div,
        "min" => Head::Min,
        "max" => Head::Max,
        "neg" => Head::Neg,
        "abs" => Head::Abs,
        "rcp" => Head::Unary(Fn1::Rcp),
        "sqrt" => Head::Unary(Fn1::Sqrt),
        "rsqrt" => Head::Unary(Fn1::Rsqrt),
        "ex2" => Head::Unary(Fn1::Ex2),
        "lg2" => Head::Unary(Fn1::Lg2),
        "sin" => Head::Unary(Fn1::Sin),
        "cos" => Head::Unary(Fn1::Cos),
        "cvt" => {
            // cvt[.rnd][.sat].dst.f32/f64: to a float, or to an integer.
            let dst = at(parts.len().checked_sub(2)?);
            match float_bits(dst) {
                Some(to) => Head::ToFloat(to, round_of(parts)),
                None => {
                    let (to, signed) = type_of(dst)?;
                    Head::ToInt(to, signed, round_of(parts))
                }
            }
        }
        "setp" => Head::Setp(cmp_of(at(1))?, combine_of(at(2))),
        _ => return None,
    };
    Some(Op { head, bits, signed: false, float: true, sat })
}

/// A float of `bits` bits from the bits a register holds, widened to f64 (exactly).
fn to_f64(v: u64, bits: u32) -> f64 {
    if bits == 32 { f32::from_bits(v as u32) as f64 } else { f64::from_bits(v) }
}

/// The bits of `x` as a float of `bits` bits (an f32 rounded to nearest).
fn from_f64(x: f64, bits: u32) -> u64 {
    if bits == 32 { (x as f32).to_bits() as u64 } else { x.to_bits() }
}

/// `x` rounded to a whole number as `r` says.
fn round(x: f64, r: Round) -> f64 {
    match r {
        Round::Keep => x,
        Round::Nearest => x.round_ties_even(),
        Round::Zero => x.trunc(),
        Round::Down => x.floor(),
        Round::Up => x.ceil(),
    }
}

/// The value a float operation writes, from its operands' values, when they are known. Each is
/// computed in its own precision (f32 arithmetic in f32, a fused multiply-add fused), as IEEE and PTX's
/// `.rn` give it; `.approx` functions exactly, and subnormals are not flushed (`.ftz`).
fn apply_float(op: Op, get: impl Fn(usize) -> Option<u64>) -> Option<u64> {
    let bits = op.bits;
    let f = |k: usize| Some(to_f64(get(k)?, bits));
    // Binary operations in the operands' own precision.
    let two = |g: fn(f64, f64) -> f64, h: fn(f32, f32) -> f32| -> Option<f64> {
        let (a, b) = (f(1)?, f(2)?);
        Some(if bits == 32 { h(a as f32, b as f32) as f64 } else { g(a, b) })
    };
    let value = match op.head {
        Head::Add => two(|a, b| a + b, |a, b| a + b)?,
        Head::Sub => two(|a, b| a - b, |a, b| a - b)?,
        Head::Div => two(|a, b| a / b, |a, b| a / b)?,
        Head::Min => two(f64::min, f32::min)?,
        Head::Max => two(f64::max, f32::max)?,
        Head::Mul { mad: false, .. } => two(|a, b| a * b, |a, b| a * b)?,
        Head::Mul { mad: true, .. } => {
            let (a, b, c) = (f(1)?, f(2)?, f(3)?);
            if bits == 32 { (a as f32).mul_add(b as f32, c as f32) as f64 } else { a.mul_add(b, c) }
        }
        Head::Neg => -f(1)?,
        Head::Abs => f(1)?.abs(),
        Head::Unary(g) => {
            let x = f(1)?;
            match g {
                Fn1::Rcp => 1.0 / x,
                Fn1::Sqrt => x.sqrt(),
                Fn1::Rsqrt => 1.0 / x.sqrt(),
                Fn1::Ex2 => x.exp2(),
                Fn1::Lg2 => x.log2(),
                Fn1::Sin => x.sin(),
                Fn1::Cos => x.cos(),
            }
        }
        Head::ToFloat(to, r) => {
            // The source: a float of `bits` (op.float), here always (integers decode elsewhere).
            return Some(from_f64(clamp_sat(round(f(1)?, r), op.sat), to));
        }
        Head::ToInt(to, signed, r) => {
            let x = round(f(1)?, r);
            // Saturating, NaN to 0, as PTX converts.
            let v = if x.is_nan() {
                0
            } else if signed {
                let lim = (1i128 << (to - 1)) as f64;
                (x.clamp(-lim, lim - 1.0) as i64) as u64
            } else {
                x.clamp(0.0, ((1u128 << to) - 1) as f64) as u64
            };
            return Some(mask(v, to));
        }
        Head::Setp(cmp, combine) => {
            return combined(float_compare(cmp, f(1)?, f(2)?), combine, &get);
        }
        _ => return None,
    };
    Some(from_f64(clamp_sat(value, op.sat), bits))
}

/// A `.sat` result: clamped to [0, 1], NaN to 0.
fn clamp_sat(x: f64, sat: bool) -> f64 {
    if !sat {
        x
    } else if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// The value `op` writes, from its operands' values (`get(k)`: operand k), when they are known.
fn apply(op: Op, get: impl Fn(usize) -> Option<u64>) -> Option<u64> {
    if op.float {
        return apply_float(op, get);
    }
    let Op { head, bits, signed, .. } = op;
    let s = |v: u64| sign_extend(v, bits);
    let wrap = |v: u64| mask(v, bits);
    let pair = || Some((get(1)?, get(2)?));
    Some(match head {
        Head::Move => wrap(get(1)?),
        Head::Cvt(to) => mask(if signed { s(get(1)?) as u64 } else { wrap(get(1)?) }, to),
        Head::Add => wrap(get(1)?.wrapping_add(get(2)?)),
        Head::Sub => wrap(get(1)?.wrapping_sub(get(2)?)),
        Head::Min | Head::Max => {
            let (a, b) = pair()?;
            let less = if signed { s(a) < s(b) } else { wrap(a) < wrap(b) };
            wrap(if less == (head == Head::Min) { a } else { b })
        }
        Head::And => get(1)? & get(2)?,
        Head::Or => get(1)? | get(2)?,
        Head::Xor => get(1)? ^ get(2)?,
        Head::Shl => wrap(wrap(get(1)?).checked_shl(u32::try_from(get(2)?).ok()?).unwrap_or(0)),
        Head::Shr if signed => wrap((s(get(1)?) >> get(2)?.min(63)) as u64),
        Head::Shr => wrap(get(1)?).checked_shr(u32::try_from(get(2)?).ok()?).unwrap_or(0),
        Head::Div | Head::Rem => {
            let (a, b) = pair()?;
            let r = match (signed, head == Head::Div) {
                (true, true) => s(a).checked_div(s(b))? as u64,
                (true, false) => s(a).checked_rem(s(b))? as u64,
                (false, true) => wrap(a).checked_div(wrap(b))?,
                (false, false) => wrap(a).checked_rem(wrap(b))?,
            };
            wrap(r)
        }
        Head::Not => wrap(if bits == 1 { (get(1)? == 0) as u64 } else { !get(1)? }),
        Head::Bfe => {
            let (a, pos, len) = (wrap(get(1)?), get(2)? & 0xff, get(3)? & 0xff);
            let msb = bits as u64 - 1;
            // The sign: the field's top bit (the operand's top one where the field runs past it).
            let sign = signed && len > 0 && a >> (pos + len - 1).min(msb) & 1 == 1;
            let mut d = 0u64;
            for i in 0..bits as u64 {
                let bit = if i < len && pos + i <= msb { a >> (pos + i) & 1 == 1 } else { sign };
                d |= u64::from(bit) << i;
            }
            d
        }
        Head::Neg => wrap(get(1)?.wrapping_neg()),
        Head::Abs => wrap(if signed { s(get(1)?).unsigned_abs() } else { get(1)? }),
        // An integer to a float: its value, rounded to the float's precision.
        Head::ToFloat(to, _) => {
            let x = if signed { s(get(1)?) as f64 } else { wrap(get(1)?) as f64 };
            from_f64(x, to)
        }
        Head::ToInt(..) | Head::Unary(_) => return None,
        Head::Mul { mad, half } => {
            let (a, b) = pair()?;
            let c = if mad { get(3)? } else { 0 };
            let p = if signed { s(a) as i128 * s(b) as i128 } else { wrap(a) as i128 * wrap(b) as i128 };
            match half {
                Half::Wide => mask((p as u64).wrapping_add(c), 2 * bits),
                Half::Hi => wrap(((p >> bits) as u64).wrapping_add(c)),
                Half::Lo => wrap((p as u64).wrapping_add(c)),
            }
        }
        Head::Mul24 { mad, hi } => {
            let (a, b) = pair()?;
            let c = if mad { get(3)? } else { 0 };
            let low = |v: u64| if signed { sign_extend(v, 24) as i128 } else { mask(v, 24) as i128 };
            let p = low(a) * low(b);
            wrap((if hi { p >> 16 } else { p }) as u64).wrapping_add(c) & mask(u64::MAX, bits)
        }
        Head::Selp => wrap(if get(3)? != 0 { get(1)? } else { get(2)? }),
        Head::Setp(cmp, combine) => {
            let (a, b) = pair()?;
            let ord = if signed { s(a).cmp(&s(b)) } else { wrap(a).cmp(&wrap(b)) };
            let r = match cmp {
                Cmp::Eq => ord.is_eq(),
                Cmp::Ne => ord.is_ne(),
                Cmp::Lt => ord.is_lt(),
                Cmp::Le => ord.is_le(),
                Cmp::Gt => ord.is_gt(),
                Cmp::Ge => ord.is_ge(),
                Cmp::Num | Cmp::Nan | Cmp::Unordered(_) => return None,
            };
            combined(r, combine, &get)?
        }
    })
}

/// Parses one instruction line, resolving registers (into `names`), parameters and labels.
fn parse_insn<'a>(
    line: &'a str,
    params: &[&str],
    plain: &HashSet<&str>,
    preds: &HashSet<String>,
    labels: &HashMap<&str, usize>,
    symbols: &HashMap<String, u64>,
    names: &mut HashMap<&'a str, usize>,
) -> Result<Insn, String> {
    let is_reg = |t: &str| (t.starts_with('%') && !is_special(t)) || plain.contains(t);
    let line = line.trim_end_matches(';').trim();
    let mut reg = |r: &'a str| {
        let n = names.len();
        *names.entry(r).or_insert(n)
    };
    let (guard, rest) = match line.strip_prefix('@') {
        Some(g) => {
            let (p, rest) =
                g.split_once(char::is_whitespace).ok_or_else(|| format!("a guard without an instruction: `{line}`"))?;
            let neg = p.starts_with('!');
            (Some((reg(p.trim_start_matches('!')), neg)), rest.trim())
        }
        None => (None, line),
    };
    let (op, operands) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let mut texts = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    for (i, c) in operands.char_indices() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                texts.push(operands[from..i].trim());
                from = i + 1;
            }
            _ => {}
        }
    }
    if !operands[from..].trim().is_empty() {
        texts.push(operands[from..].trim());
    }
    let head = op.split('.').next().unwrap_or("");
    if matches!(head, "tex" | "tld4" | "suld" | "sust" | "sured") {
        return Err(format!("a texture or surface access (`{line}`), whose memory the model does not follow"));
    }
    if head == "brx" {
        return Err(format!("an indirect branch (`{line}`), whose targets the run does not follow"));
    }
    if head == "bra" {
        let label = texts.first().copied().unwrap_or("");
        let target = Some(
            *labels.get(label).ok_or_else(|| format!("a branch to `{label}`, which is not a label of the entry"))?,
        );
        let srcs = guard.map(|(p, _)| p).into_iter().collect();
        return Ok(Insn {
            guard,
            op: None,
            ends: false,
            args: Vec::new(),
            dests: Vec::new(),
            srcs,
            wait: Wait::Free,
            target,
            cost: None,
            mem: Vec::new(),
            loads: None,
        });
    }
    let writes = !matches!(
        head,
        "st" | "bar" | "barrier" | "red" | "prefetch" | "membar" | "fence" | "call" | "cp" | "stmatrix"
    );
    let dests = match texts.first() {
        Some(first) if writes => first
            .trim_matches(|c| c == '{' || c == '}')
            .split([',', '|'])
            .map(str::trim)
            .filter(|r| is_reg(r))
            .map(&mut reg)
            .collect(),
        _ => Vec::new(),
    };
    let args = texts
        .iter()
        .map(|t| {
            if let Some(inner) = t.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
                return params.iter().position(|p| *p == inner).map_or(Operand::Other, Operand::Param);
            }
            if let Some(name) = t.strip_prefix('%') {
                let (base, ax) = name.split_once('.').unwrap_or((name, ""));
                let a = match ax {
                    "x" => Some(0),
                    "y" => Some(1),
                    "z" => Some(2),
                    _ => None,
                };
                let sreg = match base {
                    "tid" => Some(Sreg::Tid),
                    "ntid" => Some(Sreg::Ntid),
                    "ctaid" => Some(Sreg::Ctaid),
                    "nctaid" => Some(Sreg::Nctaid),
                    "laneid" => return Operand::Special(Sreg::Lane, 0),
                    "warpid" => return Operand::Special(Sreg::Warp, 0),
                    _ => None,
                };
                return match (sreg, a) {
                    (Some(s), Some(a)) => Operand::Special(s, a),
                    _ => Operand::Reg(reg(t)),
                };
            }
            if plain.contains(t) {
                return Operand::Reg(reg(t));
            }
            // A shared array's name (`mov.u32 %r, tile`) is its offset in the block's shared memory, a
            // constant array's its run address.
            match symbols.get(*t) {
                Some(&at) => Operand::Imm(at),
                None => immediate(t).map_or(Operand::Other, Operand::Imm),
            }
        })
        .collect();
    let all = mem::parse(op, &texts, symbols, &is_reg, &|t| preds.contains(t), &mut reg);
    let loads = match all.as_slice() {
        [m] if m.reads.is_some() && !dests.is_empty() => Some(*m),
        _ => None,
    };
    // A constant array's loads give values, not traffic the memory model counts.
    let mem = all.into_iter().filter(|m| m.space != Space::Const).collect();
    let ends = matches!(head, "ret" | "exit" | "trap");
    // Registers read: the guard, every operand after the destination (all of a store's), and those
    // inside addresses and vectors.
    let mut srcs: Vec<usize> = guard.map(|(p, _)| p).into_iter().collect();
    for t in texts.iter().skip(usize::from(writes)) {
        for r in t.split(|c: char| !(c.is_alphanumeric() || c == '%' || c == '_' || c == '.' || c == '$')) {
            if is_reg(r) {
                srcs.push(reg(r));
            }
        }
    }
    let wait = match head {
        // The constant cache answers on the SM, about as soon as L1 does.
        "ld" | "ldu" | "atom" if op.contains(".shared") || op.contains(".const") => Wait::Shared,
        "ld" | "ldu" | "atom" => Wait::Global,
        _ if writes => super::routine(op).map_or(Wait::Pipe, |(_, steps)| Wait::Steps(steps)),
        _ => Wait::Free,
    };
    Ok(Insn { guard, op: decode(op), ends, args, dests, srcs, wait, target: None, cost: None, mem, loads })
}

/// Drops the computations whose results can decide nothing the run reports: a value matters where it
/// guards an instruction (a branch, a store, an exit), places a load or store, or feeds (through any
/// chain of instructions) a value that does. The rest (a matmul's products, a filter's sums) are not
/// computed, so that following floats costs nothing where no branch or address depends on them.
/// Flow-insensitive, so it keeps more than it needs, never less.
fn keep_values_that_matter(insns: &mut [Insn], registers: usize) {
    let mut matters = vec![false; registers];
    for insn in insns.iter() {
        // Guards, and addresses: of the loads and stores the memory model counts, and of the loads
        // whose values the run reads (a constant array's, which are not traffic).
        let bases = insn.mem.iter().chain(&insn.loads).flat_map(|m| m.base.into_iter().chain(m.unless.map(|u| u.0)));
        for r in insn.guard.map(|g| g.0).into_iter().chain(bases) {
            matters[r] = true;
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for insn in insns.iter() {
            if (insn.op.is_some() || insn.loads.is_some()) && insn.dests.iter().any(|&d| matters[d]) {
                for a in &insn.args {
                    if let Operand::Reg(r) = a
                        && !matters[*r]
                    {
                        matters[*r] = true;
                        changed = true;
                    }
                }
            }
        }
    }
    for insn in insns.iter_mut() {
        if !insn.dests.iter().any(|&d| matters[d]) {
            insn.op = None;
            insn.loads = None;
        }
    }
}

/// An instruction line's opcode (`@%p ld.global.f32 ...` -> `ld.global.f32`).
fn opcode(line: &str) -> &str {
    let mut words = line.split_whitespace();
    let first = words.next().unwrap_or("");
    if first.starts_with('@') { words.next().unwrap_or("") } else { first }.trim_end_matches(';')
}

/// A special register (`%tid.x`, `%laneid`, ...), which no instruction waits for.
fn is_special(r: &str) -> bool {
    let base = r.trim_start_matches('%').split('.').next().unwrap_or("");
    matches!(base, "tid" | "ntid" | "ctaid" | "nctaid" | "laneid" | "warpid" | "nwarpid" | "smid" | "clock" | "clock64")
}

fn is_barrier(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with("bar.sync") || l.starts_with("barrier.sync") || l.starts_with("bar ") || l.starts_with("bar.cta.sync")
}

/// Width and signedness of a PTX type suffix (`pred`: 1 bit).
fn type_of(ty: &str) -> Option<(u32, bool)> {
    let signed = ty.starts_with('s');
    match ty {
        "pred" => Some((1, false)),
        _ if ty.len() > 1 && matches!(&ty[..1], "s" | "u" | "b") => ty[1..].parse().ok().map(|b| (b, signed)),
        _ => None,
    }
}

fn mask(v: u64, bits: u32) -> u64 {
    if bits >= 64 { v } else { v & ((1u64 << bits) - 1) }
}

fn sign_extend(v: u64, bits: u32) -> i64 {
    if bits >= 64 || bits == 0 {
        v as i64
    } else {
        let shift = 64 - bits;
        ((v << shift) as i64) >> shift
    }
}

/// An integer immediate: decimal, `0x` hex, or a float's bits (`0f3F800000`).
pub(super) fn immediate(a: &str) -> Option<u64> {
    let (neg, body) = a.strip_prefix('-').map_or((false, a), |b| (true, b));
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h.trim_end_matches('U'), 16).ok()?
    } else if let Some(h) = body.strip_prefix("0f").or_else(|| body.strip_prefix("0d")) {
        u64::from_str_radix(h, 16).ok()?
    } else {
        body.trim_end_matches('U').parse::<u64>().ok()?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAT: Latencies = Latencies { pipe: 4.0, global: 30.0, shared: 20.0 };

    /// A loop whose trip count comes from the block shape and a parameter, then a branch on the lane's
    /// parity: `for (j = tid.y; j < n; j += ntid.y);` then `odd ? n + 1 : (n + 2) * 3`.
    const LOOP_AND_BRANCH: &str = "
.visible .entry k(
	.param .u32 k_param_0
)
{
	ld.param.u32 	%r1, [k_param_0];
	mov.u32 	%r2, %tid.y;
	mov.u32 	%r3, %ntid.y;
$L_loop:
	add.s32 	%r2, %r2, %r3;
	setp.lt.s32 	%p1, %r2, %r1;
	@%p1 bra 	$L_loop;
	mov.u32 	%r4, %laneid;
	and.b32 	%r5, %r4, 1;
	setp.eq.s32 	%p2, %r5, 0;
	@%p2 bra 	$L_even;
	add.s32 	%r6, %r1, 1;
	bra.uni 	$L_end;
$L_even:
	add.s32 	%r6, %r1, 2;
	mul.lo.s32 	%r6, %r6, 3;
$L_end:
	ret;
}
";

    fn mix(text: &str, n: i32, grid: Dim3, block: Dim3) -> Mix {
        Program::parse(text, "k")
            .unwrap()
            .execute(&[Arg::I32(n)], &Memory::default(), grid, block, 0, &LAT)
            .unwrap()
            .per_warp
    }

    #[test]
    fn loops_run_their_trip_count_and_a_warp_runs_both_sides_of_a_branch() {
        // Block (32, 4): every warp has one tid.y (0-3) and adds 4 until it reaches 32: 8 trips.
        // Per warp: the move of %tid.y; 8 x (add, setp, bra); mov, and, setp, bra; the odd lanes' add
        // and bra.uni, the even lanes' add and mul; ret. Int 8 x 2 + 2 + 1 + 1 = 20, Imul 1, the rest
        // 1 + 8 + 2 + 1 + 1 = 13 (ld.param and %ntid.y are constant-bank operands in SASS).
        let m = mix(LOOP_AND_BRANCH, 32, Dim3::new(1, 1, 1), Dim3::new(32, 4, 1));
        assert_eq!((m.int, m.imul, m.other, m.total()), (20.0, 1.0, 13.0, 34.0), "{m:?}");
        // Half the bound, half the trips: 4.
        let m = mix(LOOP_AND_BRANCH, 16, Dim3::new(1, 1, 1), Dim3::new(32, 4, 1));
        assert_eq!((m.int, m.other), (12.0, 9.0), "{m:?}");
        // A block twice as tall steps twice as far: 4 trips at n = 32.
        let m = mix(LOOP_AND_BRANCH, 32, Dim3::new(1, 1, 1), Dim3::new(32, 8, 1));
        assert_eq!((m.int, m.other), (12.0, 9.0), "{m:?}");
    }

    #[test]
    fn a_warps_chain_waits_for_operands_and_issues_one_a_cycle() {
        // A load (30 cycles), an add that needs it (4 cycles a pipe's result), a move and an add that
        // needs the move, and a store of the first add's result, in one basic block. Issue cycles:
        // ld.global 1 (the ld.param is an operand in SASS: free), add 31 (the load's value at 1 + 30),
        // mov 3 (its turn: it needs nothing, so the compiler moves it ahead of the waiting add), add 7
        // (the move's result at 3 + 4), st 35 (the first add's result), ret 36 (after the others).
        let text = "
.visible .entry k(
	.param .u64 k_param_0
)
{
	ld.param.u64 	%rd1, [k_param_0];
	ld.global.u32 	%r1, [%rd1];
	add.s32 	%r2, %r1, 1;
	mov.u32 	%r3, %tid.x;
	add.s32 	%r4, %r3, 2;
	st.global.u32 	[%rd1+4], %r2;
	ret;
}
";
        let p = Program::parse(text, "k").unwrap();
        let e =
            p.execute(&[Arg::Buf(0)], &Memory::default(), Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), 0, &LAT).unwrap();
        assert_eq!(e.chain_cycles, 36.0);
        // Loads that wait twice as long make the chain 30 cycles longer.
        let slow = Latencies { global: 60.0, ..LAT };
        assert_eq!(
            p.execute(&[Arg::Buf(0)], &Memory::default(), Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), 0, &slow)
                .unwrap()
                .chain_cycles,
            66.0
        );
        // An IEEE division in the first add's place: its result is ready six pipe latencies (24 cycles)
        // after its issue at 31, so the store issues at 55 and the return at 56; its 9 SASS instructions
        // are counted, 2 on the SFU.
        let div =
            Program::parse(&text.replace("add.s32 \t%r2, %r1, 1", "div.rn.f32 \t%r2, %r1, 0f40400000"), "k").unwrap();
        let e =
            div.execute(&[Arg::Buf(0)], &Memory::default(), Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), 0, &LAT).unwrap();
        assert_eq!(e.chain_cycles, 56.0);
        assert_eq!((e.per_warp.sfu, e.per_warp.total()), (2.0, 14.0));
    }

    #[test]
    fn a_blocks_loads_go_out_together_unless_a_block_boundary_or_a_store_holds_them_back() {
        // Three loads, each followed by an add of its value into a running sum, then a store of the
        // sum. `between` goes after the first add.
        let program = |between: &str| {
            format!(
                ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\
                 \tld.param.u64 \t%rd1, [k_param_0];\n\
                 \tld.global.u32 \t%r1, [%rd1];\n\
                 \tadd.s32 \t%r2, %r1, 1;\n\
                 {between}\
                 \tld.global.u32 \t%r3, [%rd1+4];\n\
                 \tadd.s32 \t%r4, %r3, %r2;\n\
                 \tld.global.u32 \t%r5, [%rd1+8];\n\
                 \tadd.s32 \t%r6, %r5, %r4;\n\
                 \tst.global.u32 \t[%rd1+12], %r6;\n\
                 \tret;\n}}\n"
            )
        };
        let chain = |between: &str| {
            let p = Program::parse(&program(between), "k").unwrap();
            p.execute(&[Arg::Buf(0)], &Memory::default(), Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), 0, &LAT)
                .unwrap()
                .chain_cycles
        };
        // One block: the loads issue at 1, 3 and 5 (their turns), the adds when their operands are
        // ready (31, 35, 39: the sum's chain), the store at 43, ret at 44. In PTX order, one after
        // another, it would be 98 (each load waiting for the add before it).
        assert_eq!(chain(""), 44.0);
        // A block boundary after the first add: the second block starts after the first has issued
        // (its branch at 32), so its loads go out at 33 and 35 and the sum ends at 71: ret at 72.
        assert_eq!(chain("\tbra.uni \t$L_next;\n$L_next:\n"), 72.0);
        // A store of the first sum: the loads after it keep their place behind it (35), so the second
        // load goes out at 36 and the third at 37, the adds at 66 and 70, the store at 74, ret 75.
        assert_eq!(chain("\tst.global.u32 \t[%rd1+16], %r2;\n"), 75.0);
    }

    #[test]
    fn a_loop_that_never_ends_gives_up() {
        let spin = ".visible .entry k(\n.param .u32 k_param_0\n)\n{\n$L:\n\tbra.uni \t$L;\n}\n";
        let p = Program::parse(spin, "k").unwrap();
        assert_eq!(
            p.execute(&[Arg::I32(0)], &Memory::default(), Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), 0, &LAT),
            None
        );
        // A branch to a label that is not there: no program.
        assert!(Program::parse(".visible .entry k(\n)\n{\n\tbra.uni \t$nowhere;\n}\n", "k").is_none());
    }

    #[test]
    fn gaussian_smooth_runs_its_taps_loop_five_times() {
        // kernels/frames.cu: `for (dy = -2; dy <= 2; ++dy)` is a loop in the PTX (its dx loop is
        // unrolled): 15 loads per trip, 75 per thread, 3 stores, and the trip's tap weight from
        // `__constant__` memory at a register address (an LDC; the fixed-address ones are operands).
        // 480 x 270 frames in (32, 8)
        // blocks: the last row of blocks (rows 264-271) has two rows past the frame, whose warps
        // return before loading: 2 of 8 warps in 15 x 64 of the 15 x 34 x 64 blocks.
        let p = Program::parse(super::super::module("frames").unwrap(), "gaussianSmooth").unwrap();
        let args = [Arg::Buf(0), Arg::Buf(1), Arg::I32(480), Arg::I32(270)];
        let e = p.execute(&args, &Memory::default(), Dim3::new(15, 34, 64), Dim3::new(32, 8, 1), 0, &LAT).unwrap();
        let live = 1.0 - 2.0 / (34.0 * 8.0);
        assert!((e.per_warp.mem - 83.0 * live).abs() < 1e-9, "{:?}", e.per_warp);
        assert_eq!(e.setup, None);
    }

    #[test]
    fn integer_operations_wrap_and_compare_at_their_width() {
        let get = |v: &'static [u64]| move |k: usize| v.get(k).copied();
        let op = |s: &str| decode(s).unwrap();
        // 32-bit add wraps; signed compare sees -1 below 0, unsigned above.
        assert_eq!(apply(op("add.s32"), get(&[0, 0xffff_ffff, 1])), Some(0));
        assert_eq!(apply(op("setp.lt.s32"), get(&[0, 0xffff_ffff, 0])), Some(1));
        assert_eq!(apply(op("setp.lt.u32"), get(&[0, 0xffff_ffff, 0])), Some(0));
        // Sign extension, a wide multiply, a shift, a clamp.
        assert_eq!(apply(op("cvt.s64.s32"), get(&[0, 0xffff_fffe])), Some(-2i64 as u64));
        assert_eq!(apply(op("mul.wide.s32"), get(&[0, 0x1_0000, 0x1_0000])), Some(1 << 32));
        assert_eq!(apply(op("shl.b64"), get(&[0, 3, 4])), Some(48));
        assert_eq!(apply(op("max.s32"), get(&[0, (-5i32) as u32 as u64, 0])), Some(0));
        // Floats are tracked (their own test), half precision is not.
        assert!(decode("add.f32").is_some_and(|o| o.float));
        assert_eq!(decode("add.f16"), None);
    }

    #[test]
    fn a_run_lists_copies_to_shared_memory_and_generic_shared_stores() {
        let ptx = ".visible .entry k(\n.param .u64 k_param_0\n)\n{\n.reg .b32 %r<5>;\n.reg .b64 %rd<7>;\n\
                   .shared .align 16 .b8 tile[512];\n\
                   ld.param.u64 %rd1, [k_param_0];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
                   mul.wide.u32 %rd3, %r1, 16;\nadd.s64 %rd4, %rd2, %rd3;\nmov.u32 %r2, tile;\n\
                   shl.b32 %r3, %r1, 4;\nadd.s32 %r4, %r2, %r3;\n\
                   cp.async.cg.shared.global [%r4], [%rd4], 16;\ncp.async.commit_group;\n\
                   mov.u64 %rd5, tile;\ncvta.shared.u64 %rd6, %rd5;\nst.u32 [%rd6+4], %r1;\nret;\n}\n";
        let p = Program::parse(ptx, "k").unwrap();
        let mut out = Vec::new();
        let one = Dim3::new(1, 1, 1);
        let unplaced = p.accesses(
            &[Arg::Buf(0)],
            &Memory::default(),
            one,
            Dim3::new(32, 1, 1),
            Dim3::new(0, 0, 0),
            Dim3::new(5, 0, 0),
            &mut out,
        );
        assert_eq!(unplaced, Some(0));
        let seen: Vec<(crate::kernels::AccessKind, u8, u64, u8)> =
            out.iter().map(|a| (a.kind, a.buffer, a.index, a.bytes)).collect();
        assert_eq!(
            seen,
            [
                (crate::kernels::AccessKind::Load, 0, 20, 16), // buffer 0, byte 80: word 20
                (crate::kernels::AccessKind::SharedStore, 0, 20, 16), // tile + 80
                (crate::kernels::AccessKind::SharedStore, 0, 1, 4), // the generic address of tile + 4
            ]
        );
        // The copy's load and store are one request each (one instruction), the store another.
        assert_eq!(out[0].insn, out[1].insn);
        assert_ne!(out[1].insn, out[2].insn);
    }

    #[test]
    fn a_load_of_bytes_just_loaded_is_the_first_loads_value() {
        // NVVM's copy of a uchar4: `ld.global.v4.u8` and `ld.global.u32` of one address, which ptxas
        // makes one LDG. A third load after a store, a fourth of another word, a fifth after a label
        // and a sixth `.volatile` one each stay: 5 loads in all, and the stores.
        let ptx = ".visible .entry k(\n.param .u64 k_param_0\n)\n{\n.reg .b16 %rs<5>;\n.reg .b32 %r<9>;\n\
                   .reg .b64 %rd<5>;\nld.param.u64 %rd1, [k_param_0];\ncvta.to.global.u64 %rd2, %rd1;\n\
                   mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
                   ld.global.v4.u8 {%rs1, %rs2, %rs3, %rs4}, [%rd4];\nld.global.u32 %r2, [%rd4];\n\
                   ld.global.u8 %r3, [%rd4+2];\nst.global.u32 [%rd4+4096], %r2;\nld.global.u32 %r4, [%rd4];\n\
                   ld.global.u32 %r5, [%rd4+4];\n$L__BB0_1:\nld.global.u32 %r6, [%rd4];\n\
                   ld.volatile.global.u32 %r7, [%rd4];\nret;\n}\n";
        let p = Program::parse(ptx, "k").unwrap();
        let mut out = Vec::new();
        let at = Dim3::new(0, 0, 0);
        p.accesses(&[Arg::Buf(0)], &Memory::default(), Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), at, at, &mut out);
        let seen: Vec<(crate::kernels::AccessKind, u64, u8)> = out.iter().map(|a| (a.kind, a.index, a.bytes)).collect();
        use crate::kernels::AccessKind::{Load, Store};
        assert_eq!(seen, [(Load, 0, 4), (Store, 1024, 4), (Load, 0, 4), (Load, 1, 4), (Load, 0, 4), (Load, 0, 4)]);
    }

    #[test]
    fn a_device_arrays_loads_are_global_loads_of_a_buffer_of_its_own() {
        // A `__device__` table (a module's `.global` array): named in the address, and moved into a
        // register and made generic, as NVVM writes both; each at buffer 254, byte 4 of word 1.
        let ptx = ".global .align 1 .b8 table[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};\n\
                   .visible .entry k(\n.param .u64 k_param_0\n)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n\
                   ld.global.u8 %r1, [table+4];\nmov.u64 %rd1, table;\ncvta.global.u64 %rd2, %rd1;\n\
                   ld.u8 %r2, [%rd2+5];\nret;\n}\n";
        let p = Program::parse(ptx, "k").unwrap();
        assert!(p.unfollowed().is_empty(), "{:?}", p.unfollowed());
        let mut out = Vec::new();
        let at = Dim3::new(0, 0, 0);
        let unplaced =
            p.accesses(&[Arg::Buf(0)], &Memory::default(), Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), at, at, &mut out);
        assert_eq!(unplaced, Some(0));
        let seen: Vec<(crate::kernels::AccessKind, u8, u64, u8)> =
            out.iter().map(|a| (a.kind, a.buffer, a.index, a.byte)).collect();
        use crate::kernels::AccessKind::Load;
        assert_eq!(seen, [(Load, 254, 1, 0), (Load, 254, 1, 1)]);
    }

    #[test]
    fn atomics_are_listed_as_the_stores_they_make() {
        // A histogram's two atomics: `red` (no value returned) into the thread's own word of buffer 0,
        // `atom` (the old value returned) into word 0 of buffer 1, which every thread shares.
        let ptx = ".visible .entry k(\n.param .u64 k_param_0,\n.param .u64 k_param_1\n)\n{\n.reg .b32 %r<3>;\n\
                   .reg .b64 %rd<7>;\nld.param.u64 %rd1, [k_param_0];\ncvta.to.global.u64 %rd2, %rd1;\n\
                   ld.param.u64 %rd3, [k_param_1];\ncvta.to.global.u64 %rd4, %rd3;\nmov.u32 %r1, %tid.x;\n\
                   mul.wide.u32 %rd5, %r1, 4;\nadd.s64 %rd6, %rd2, %rd5;\nred.global.add.f32 [%rd6], 0f3F800000;\n\
                   atom.global.add.u32 %r2, [%rd4], 1;\nred.global.add.u32 [%rd6], 1;\nret;\n}\n";
        let p = Program::parse(ptx, "k").unwrap();
        let mut out = Vec::new();
        let (one, at) = (Dim3::new(1, 1, 1), Dim3::new(0, 0, 0));
        let args = [Arg::Buf(0), Arg::Buf(1)];
        let unplaced =
            p.accesses(&args, &Memory::default(), one, Dim3::new(32, 1, 1), at, Dim3::new(5, 0, 0), &mut out);
        assert_eq!(unplaced, Some(0));
        let seen: Vec<(crate::kernels::AccessKind, u8, u64, u8)> =
            out.iter().map(|a| (a.kind, a.buffer, a.index, a.bytes)).collect();
        // The float add is a plain atomic; the 32-bit integer add at a kernel argument's address one
        // ptxas folds across lanes; the same add at the thread's own word (an address from %tid) not.
        use crate::kernels::AccessKind::{Atomic, AtomicFold};
        assert_eq!(seen, [(Atomic, 0, 5, 4), (AtomicFold, 1, 0, 4), (Atomic, 0, 5, 4)]);
        assert_ne!(out[0].insn, out[1].insn);
    }

    /// Threads `tids` of block 0 (blocks of `block`, a grid of one) in lockstep, each checked against
    /// its own run one by one (list and unplaced count).
    fn in_lockstep(p: &Program, args: &[Arg], memory: &Memory, block: Dim3, tids: &[Dim3]) -> Vec<(Vec<Access>, u32)> {
        let (one, at) = (Dim3::new(1, 1, 1), Dim3::new(0, 0, 0));
        let lock = p.lockstep_accesses(args, memory, one, block, at, tids, None).unwrap();
        for (t, (acc, unplaced)) in tids.iter().zip(&lock) {
            let mut one_by_one = Vec::new();
            assert_eq!(p.accesses(args, memory, one, block, at, *t, &mut one_by_one), Some(*unplaced));
            assert_eq!(&one_by_one, acc, "thread {t}");
        }
        lock
    }

    /// A CSR row per thread: `for j in rows[i]..rows[i+1]: sum += vals[j] * x[cols[j]]`. With the
    /// buffers' contents the run follows the loop's trip counts and the gather's addresses; without
    /// them, the first load of `x` cannot be placed and the loop is not taken.
    #[test]
    fn loads_of_integers_from_read_only_memory_set_trip_counts_and_addresses() {
        let ptx = ".visible .entry csr(\n.param .u64 rows,\n.param .u64 cols,\n.param .u64 vals,\n.param .u64 x\n)\n{\n\
                   .reg .pred %p<3>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<16>;\n.reg .f32 %f<4>;\n\
                   ld.param.u64 %rd1, [rows];\nld.param.u64 %rd2, [cols];\nld.param.u64 %rd3, [vals];\nld.param.u64 %rd4, [x];\n\
                   cvta.to.global.u64 %rd5, %rd1;\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd6, %r1, 4;\nadd.s64 %rd7, %rd5, %rd6;\n\
                   ld.global.nc.u32 %r2, [%rd7];\nld.global.nc.u32 %r3, [%rd7+4];\nmov.f32 %f1, 0f00000000;\n\
                   setp.ge.s32 %p1, %r2, %r3;\n@%p1 bra DONE;\n\
                   LOOP:\nmul.wide.s32 %rd8, %r2, 4;\nadd.s64 %rd9, %rd2, %rd8;\nld.global.s32 %r4, [%rd9];\n\
                   add.s64 %rd10, %rd3, %rd8;\nld.global.f32 %f2, [%rd10];\nmul.wide.s32 %rd11, %r4, 4;\nadd.s64 %rd12, %rd4, %rd11;\n\
                   ld.global.f32 %f3, [%rd12];\nfma.rn.f32 %f1, %f2, %f3, %f1;\nadd.s32 %r2, %r2, 1;\n\
                   setp.lt.s32 %p2, %r2, %r3;\n@%p2 bra LOOP;\nDONE:\nret;\n}\n";
        let p = Program::parse(ptx, "csr").unwrap();
        let bytes = |v: &[i32]| -> Option<std::sync::Arc<[u8]>> {
            Some(v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>().into())
        };
        // Rows of 0, 3, 1 and 2 entries; column indices into x.
        let rows = [0, 0, 3, 4, 6];
        let cols = [7, 2, 9, 5, 100, 3];
        let memory = Memory::new(vec![bytes(&rows), bytes(&cols), None, None]);
        let args = [Arg::Buf(0), Arg::Buf(1), Arg::Buf(2), Arg::Buf(3)];
        let (one, block) = (Dim3::new(1, 1, 1), Dim3::new(4, 1, 1));
        let tids: Vec<Dim3> = (0..4).map(|t| Dim3::new(t, 0, 0)).collect();
        let lock = in_lockstep(&p, &args, &memory, block, &tids);
        let x_of = |acc: &[Access]| -> Vec<u64> { acc.iter().filter(|a| a.buffer == 3).map(|a| a.index).collect() };
        assert_eq!(
            lock.iter().map(|(acc, _)| x_of(acc)).collect::<Vec<_>>(),
            [vec![], vec![7, 2, 9], vec![5], vec![100, 3]]
        );
        // Trip counts: the loop's body runs 3, 1 and 2 times in the warps of threads 1-3 (the most, 3).
        let e = p.execute(&args, &memory, one, block, 0, &LAT).unwrap();
        let none = p.execute(&args, &Memory::default(), one, block, 0, &LAT).unwrap();
        assert!(e.per_warp.total() > none.per_warp.total() + 2.0 * 10.0, "{e:?} against {none:?}");
        // Without the memory: rows[i] unknown, so the body's loads of cols, vals and x cannot be placed
        // (the traced kernel says so and is not modelled).
        let mut acc = Vec::new();
        assert_eq!(
            p.accesses(&args, &Memory::default(), one, block, Dim3::new(0, 0, 0), Dim3::new(1, 0, 0), &mut acc),
            Some(3)
        );
        assert!(x_of(&acc).is_empty());
    }

    /// Branches and addresses that depend on floats loaded from read-only memory follow their values;
    /// computations nothing depends on are not kept.
    #[test]
    fn floats_loaded_from_read_only_memory_decide_branches_and_place_gathers() {
        let ptx = ".visible .entry k(\n.param .u64 x,\n.param .u64 tab,\n.param .u64 out\n)\n{\n\
                   .reg .pred %p<3>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<16>;\n.reg .f32 %f<8>;\n\
                   ld.param.u64 %rd1, [x];\nld.param.u64 %rd2, [tab];\nld.param.u64 %rd3, [out];\n\
                   mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd4, %r1, 4;\nadd.s64 %rd5, %rd1, %rd4;\n\
                   ld.global.nc.f32 %f1, [%rd5];\nmul.f32 %f2, %f1, 0f41000000;\ncvt.rmi.s32.f32 %r2, %f2;\n\
                   mul.wide.s32 %rd6, %r2, 4;\nadd.s64 %rd7, %rd2, %rd6;\nld.global.f32 %f3, [%rd7];\n\
                   add.f32 %f7, %f3, %f3;\n\
                   fma.rn.f32 %f4, %f1, 0f40000000, 0fBF800000;\nsetp.gtu.f32 %p1, %f4, 0f00000000;\n@!%p1 bra SKIP;\n\
                   add.s64 %rd8, %rd3, %rd4;\nst.global.f32 [%rd8], %f4;\nSKIP:\nret;\n}\n";
        let p = Program::parse(ptx, "k").unwrap();
        // add.f32 %f7 and the load of tab feed nothing: not computed; the fma feeds the branch: computed.
        let computed =
            |head: &str| p.insns.iter().filter(|i| i.op.is_some_and(|o| format!("{:?}", o.head) == head)).count();
        assert_eq!((computed("Add"), computed("Mul { mad: true, half: Lo }")), (3, 1), "three address adds, the fma");
        assert_eq!(p.insns.iter().filter(|i| i.loads.is_some()).count(), 1, "x read, tab not");
        let floats = |v: &[f32]| -> Option<std::sync::Arc<[u8]>> {
            Some(v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>().into())
        };
        // x: 0.25 (2x - 1 < 0: no store), 0.75 (store), NaN (unordered: store), 0.4 (no store).
        let x = [0.25f32, 0.75, f32::NAN, 0.4];
        let memory = Memory::new(vec![floats(&x), None, None]);
        let args = [Arg::Buf(0), Arg::Buf(1), Arg::Buf(2)];
        let (one, block) = (Dim3::new(1, 1, 1), Dim3::new(4, 1, 1));
        let tids: Vec<Dim3> = (0..4).map(|t| Dim3::new(t, 0, 0)).collect();
        let lock = in_lockstep(&p, &args, &memory, block, &tids);
        let of = |acc: &[Access], b: u8| -> Vec<i64> {
            acc.iter().filter(|a| a.buffer == b).map(|a| a.index as i64).collect()
        };
        let stores: Vec<Vec<i64>> = lock.iter().map(|(acc, _)| of(acc, 2)).collect();
        assert_eq!(stores, [vec![], vec![1], vec![2], vec![]]);
        // tab[floor(8x)]: 2, 6, 0 for NaN (PTX converts NaN to 0), 3.
        let gathers: Vec<Vec<i64>> = lock.iter().map(|(acc, _)| of(acc, 1)).collect();
        assert_eq!(gathers, [vec![2], vec![6], vec![0], vec![3]]);
        assert!(lock.iter().all(|(_, unplaced)| *unplaced == 0));
        // Without the memory: the gather cannot be placed, and the branch on an unknown value is not
        // taken (every thread stores).
        let none = p.lockstep_accesses(&args, &Memory::default(), one, block, Dim3::new(0, 0, 0), &tids, None).unwrap();
        let stores: Vec<Vec<i64>> = none.iter().map(|(acc, _)| of(acc, 2)).collect();
        assert_eq!(stores, [vec![0], vec![1], vec![2], vec![3]]);
        assert!(none.iter().all(|(_, unplaced)| *unplaced == 1));
    }

    /// Float operations by hand: precision, fusing, NaN, rounding and saturation as PTX gives them.
    #[test]
    fn float_operations_round_compare_and_convert_as_ptx_does() {
        let f = |x: f32| x.to_bits() as u64;
        let run = |op: &str, a: &[u64]| apply(decode(op).unwrap(), |k| a.get(k.checked_sub(1)?).copied());
        // fma fused (one rounding) against mul then add (two).
        let (a, b, c) = (0.1f32, 10.0f32, -1.0f32);
        assert_eq!(run("fma.rn.f32", &[f(a), f(b), f(c)]), Some(f(a.mul_add(b, c))));
        assert_ne!(a.mul_add(b, c), a * b + c, "the example must tell fused from not");
        let prod = run("mul.rn.f32", &[f(a), f(b)]).unwrap();
        assert_eq!(run("add.f32", &[prod, f(c)]), Some(f(a * b + c)));
        // f32 arithmetic in f32: 16777216 + 1 stays 16777216.
        assert_eq!(run("add.f32", &[f(16_777_216.0), f(1.0)]), Some(f(16_777_216.0)));
        assert_eq!(run("add.f64", &[16_777_216.0f64.to_bits(), 1.0f64.to_bits()]), Some(16_777_217.0f64.to_bits()));
        // Comparisons: ordered ones false on NaN, unordered ones true.
        let nan = f(f32::NAN);
        assert_eq!(run("setp.lt.f32", &[nan, f(1.0)]), Some(0));
        assert_eq!(run("setp.ltu.f32", &[nan, f(1.0)]), Some(1));
        assert_eq!(run("setp.ne.f32", &[nan, f(1.0)]), Some(0));
        assert_eq!(run("setp.neu.f32", &[nan, f(1.0)]), Some(1));
        assert_eq!(run("setp.num.f32", &[f(2.0), f(1.0)]), Some(1));
        assert_eq!(run("setp.ge.and.f32", &[f(2.0), f(1.0), 0]), Some(0));
        // Conversions to integers: rounding as asked, saturating, NaN to 0.
        assert_eq!(run("cvt.rzi.s32.f32", &[f(-2.7)]), Some((-2i32) as u32 as u64));
        assert_eq!(run("cvt.rmi.s32.f32", &[f(-2.7)]), Some((-3i32) as u32 as u64));
        assert_eq!(run("cvt.rpi.s32.f32", &[f(2.1)]), Some(3));
        assert_eq!(run("cvt.rni.s32.f32", &[f(2.5)]), Some(2));
        assert_eq!(run("cvt.rzi.s32.f32", &[f(3e9)]), Some(i32::MAX as u64));
        assert_eq!(run("cvt.rzi.u32.f32", &[f(-5.0)]), Some(0));
        assert_eq!(run("cvt.rzi.s32.f32", &[nan]), Some(0));
        // To floats: an integer rounded to f32's precision; a float to a whole float; .sat.
        assert_eq!(run("cvt.rn.f32.s32", &[16_777_217]), Some(f(16_777_216.0)));
        assert_eq!(run("cvt.rn.f32.s32", &[(-3i32) as u32 as u64]), Some(f(-3.0)));
        assert_eq!(run("cvt.rmi.f32.f32", &[f(-0.5)]), Some(f(-1.0)));
        assert_eq!(run("cvt.f64.f32", &[f(0.1)]), Some((0.1f32 as f64).to_bits()));
        assert_eq!(run("add.sat.f32", &[f(0.75), f(0.5)]), Some(f(1.0)));
        assert_eq!(run("abs.s32", &[(-7i32) as u32 as u64]), Some(7));
        assert_eq!(run("neg.f32", &[f(2.0)]), Some(f(-2.0)));
        // Bits moved as they are; a double parameter from the f32 the run holds it as.
        assert_eq!(run("mov.f32", &[f(1.5)]), Some(f(1.5)));
        assert_eq!(run("ld.param.f64", &[f(1.5)]), Some(1.5f64.to_bits()));
        assert_eq!(run("selp.f32", &[f(1.5), f(2.5), 0]), Some(f(2.5)));
    }

    /// `__constant__` arrays the launch fills (a kernel file's `[[constants]]`): a trip count read at a
    /// fixed address and a float read at one the thread computes decide what runs; the loads are not
    /// traffic. `tbl` holds 0, 5 (the trip count), 1.0 and -1.0: even lanes store, odd ones do not.
    #[test]
    fn constant_arrays_the_launch_fills_decide_trip_counts_and_branches() {
        let ptx = ".const .align 4 .b8 tbl[16];\n\
                   .visible .entry k(\n.param .u64 out\n)\n{\n.reg .pred %p<3>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<6>;\n\
                   .reg .f32 %f<3>;\nld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n\
                   ld.const.u32 %r1, [tbl+4];\nmov.u32 %r2, 0;\n\
                   LOOP:\nadd.s32 %r2, %r2, 1;\nsetp.lt.s32 %p1, %r2, %r1;\n@%p1 bra LOOP;\n\
                   mov.u32 %r3, %tid.x;\nand.b32 %r4, %r3, 1;\nmul.wide.u32 %rd3, %r4, 4;\nmov.u64 %rd4, tbl;\n\
                   add.s64 %rd5, %rd4, %rd3;\nld.const.f32 %f1, [%rd5+8];\nsetp.gt.f32 %p2, %f1, 0f00000000;\n\
                   @%p2 st.global.u32 [%rd2], %r2;\nret;\n}\n";
        let p = Program::parse(ptx, "k").unwrap();
        // Declared without an initialiser: zeros, where the host writes nothing.
        assert_eq!(p.constants(), [("tbl".to_string(), Some(vec![0u8; 16]))]);
        let words: Vec<u8> =
            [0u32, 5, 1.0f32.to_bits(), (-1.0f32).to_bits()].iter().flat_map(|w| w.to_le_bytes()).collect();
        // The same words as the declaration's initialiser: what the launch finds there.
        let declared = ptx
            .replace(".const .align 4 .b8 tbl[16];", ".const .align 4 .u32 tbl[4] = {0, 5, 0f3F800000, 3212836864};");
        let declared = Program::parse(&declared, "k").unwrap();
        assert_eq!(declared.constants()[0].1.as_deref(), Some(&words[..]));
        let held = Memory::default().with_constants(vec![Some(words.into())]);
        let args = [Arg::Buf(0)];
        let (one, block) = (Dim3::new(1, 1, 1), Dim3::new(32, 1, 1));
        // Even lanes store their count (5 trips), odd ones nothing; the constant loads are no access.
        let lock = in_lockstep(&p, &args, &held, block, &[Dim3::new(0, 0, 0), Dim3::new(1, 0, 0)]);
        assert_eq!(lock[0].0.len(), 1);
        assert_eq!((lock[0].0[0].kind, lock[0].0[0].buffer), (crate::kernels::AccessKind::Store, 0));
        assert!(lock[1].0.is_empty(), "{:?}", lock[1]);
        assert_eq!((lock[0].1, lock[1].1), (0, 0));
        // Not given, the trip count is not known: the loop is not taken again (one trip, 12 fewer
        // instructions: 4 trips of add, setp, bra), and the float guard spreads no sampling.
        let without = Memory::default();
        let count = |m: &Memory| p.execute(&args, m, one, block, 0, &LAT).unwrap().per_warp.total();
        assert_eq!(count(&held) - count(&without), 12.0);
        assert!(p.spreads(&held) && !p.spreads(&without));
        // A constant array's contents stay apart from the buffers': buffer 0 at the same offset reads
        // nothing of it.
        assert_eq!(held.read(1 << 40, 4, false), None);
        assert_eq!(held.read(mem::const_address(0) + 4, 4, false), Some(5));
    }

    /// Where work follows data, a warp runs a branch as often as any of its lanes takes it: lane l (l < 8)
    /// stores on trip l of an 8-trip loop (a float comparison of its index with the trip's), so the warp
    /// runs the store on 8 trips, where its busiest lane runs it once.
    #[test]
    fn a_warp_runs_a_branch_its_lanes_take_on_different_trips_once_per_trip() {
        let ptx = ".visible .entry k(\n.param .u64 out\n)\n{\n.reg .pred %p<3>;\n.reg .b32 %r<6>;\n.reg .f32 %f<3>;\n\
                   .reg .b64 %rd<3>;\nld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
                   cvt.rn.f32.u32 %f1, %r1;\nmov.u32 %r2, 0;\nLOOP:\ncvt.rn.f32.u32 %f2, %r2;\n\
                   setp.neu.f32 %p1, %f1, %f2;\n@%p1 bra SKIP;\nadd.s32 %r3, %r2, %r1;\nst.global.u32 [%rd2], %r3;\n\
                   SKIP:\nadd.s32 %r2, %r2, 1;\nsetp.lt.u32 %p2, %r2, 8;\n@%p2 bra LOOP;\nret;\n}\n";
        let p = Program::parse(ptx, "k").unwrap();
        assert!(p.spreads(&Memory::default()));
        let one = Dim3::new(1, 1, 1);
        let e = p.execute(&[Arg::Buf(0)], &Memory::default(), one, Dim3::new(32, 1, 1), 0, &LAT).unwrap();
        assert_eq!(e.per_warp.mem, 8.0);
        // Each lane alone stores once: the busiest lane's count, which the warp's exceeds.
        let lane = in_lockstep(&p, &[Arg::Buf(0)], &Memory::default(), Dim3::new(32, 1, 1), &[Dim3::new(3, 0, 0)]);
        assert_eq!((lane[0].0.len(), lane[0].1), (1, 0));
    }

    /// Where a guard depends on floats, threads' work differs with their data: the blocks sampled are
    /// spread over the grid, so that the count per warp is the grid's mean, not the middle block's.
    #[test]
    fn work_decided_by_floats_is_sampled_over_the_grid() {
        // Blocks with 0.25 x > 1 (x >= 5: 11 of 16) run a loop of 100 trips.
        let ptx = ".visible .entry k(\n.param .u64 out\n)\n{\n.reg .pred %p<3>;\n.reg .b32 %r<4>;\n.reg .f32 %f<3>;\n\
                   mov.u32 %r1, %ctaid.x;\ncvt.rn.f32.u32 %f1, %r1;\nmul.f32 %f2, %f1, 0f3E800000;\n\
                   setp.gt.f32 %p1, %f2, 0f3F800000;\n@!%p1 bra DONE;\nmov.u32 %r2, 0;\n\
                   LOOP:\nadd.s32 %r2, %r2, 1;\nsetp.lt.s32 %p2, %r2, 100;\n@%p2 bra LOOP;\nDONE:\nret;\n}\n";
        let p = Program::parse(ptx, "k").unwrap();
        assert!(p.spreads(&Memory::default()) && !p.follows_loaded_floats());
        let args = [Arg::Buf(0)];
        let (grid, block) = (Dim3::new(16, 1, 1), Dim3::new(32, 1, 1));
        let e = p.execute(&args, &Memory::default(), grid, block, 0, &LAT).unwrap();
        // Per warp: 5 instructions before the branch test, 1 more and 3 per trip where the loop runs.
        let (short, long) = (6.0, 6.0 + 1.0 + 300.0);
        let mean = (5.0 * short + 11.0 * long) / 16.0;
        let got = e.per_warp.total();
        assert!((got - mean).abs() < 0.1 * mean, "{got} per warp against the grid's mean {mean}");
        // An integer guard (the same test on blockIdx.x > 4) keeps the middle block's sample, and so does
        // a float the run cannot know (loaded from constant memory the launch does not give).
        let int = ptx.replace("setp.gt.f32 %p1, %f2, 0f3F800000", "setp.gt.u32 %p1, %r1, 4");
        assert!(!Program::parse(&int, "k").unwrap().spreads(&Memory::default()));
        let constant = ptx
            .replace("mul.f32 %f2, %f1, 0f3E800000", "ld.const.f32 %f2, [%rd1]")
            .replace(".reg .f32", ".reg .b64 %rd<2>;\n.reg .f32");
        assert!(!Program::parse(&constant, "k").unwrap().spreads(&Memory::default()));
    }

    /// `(kind, buffer, index, bytes)` of accesses.
    fn seen(acc: &[Access]) -> Vec<(crate::kernels::AccessKind, u8, u64, u8)> {
        acc.iter().map(|a| (a.kind, a.buffer, a.index, a.bytes)).collect()
    }

    /// Old nvopencc's layout (`.entry k (`, an indented `} // k`, a comment after every instruction):
    /// every instruction is read, so the store's address is the thread's (before, the trailing comments
    /// hid the instructions, and the entry was not found at all).
    #[test]
    fn old_nvcc_layout_with_trailing_comments_is_run() {
        let ptx = "\t.version 1.4\n\t.target sm_10, map_f64_to_f32\n\n\t.entry k (\n\t\t.param .u64 __cudaparm_k_out,\n\
                   \t\t.param .s32 __cudaparm_k_n)\n\t{\n\t.reg .u32 %r<4>;\n\t.reg .u64 %rd<4>;\n\t.reg .pred %p<3>;\n\
                   \t.loc\t15\t3\t0\n$LBB1_k:\n\
                   \tcvt.s32.u16 \t%r1, %tid.x;     \t// \n\
                   \tld.param.s32 \t%r2, [__cudaparm_k_n];\t// id:7 __cudaparm_k_n+0x0\n\
                   \tsetp.le.s32 \t%p1, %r2, %r1;   \t// \n\
                   \t@%p1 bra \t$Lt_0_1;         \t// \n\
                   \tmul24.lo.s32 \t%r3, %r1, 3;   \t// \n\
                   \tcvt.s64.s32 \t%rd1, %r3;       \t// \n\
                   \tmul.lo.u64 \t%rd2, %rd1, 4;    \t// \n\
                   \tld.param.u64 \t%rd3, [__cudaparm_k_out];\t// id:8 __cudaparm_k_out+0x0\n\
                   \tadd.u64 \t%rd3, %rd3, %rd2;   \t// \n\
                   \tst.global.s32 \t[%rd3+0], %r1;\t// id:9\n\
                   $Lt_0_1:\n\texit;                         \t// \n$LDWend_k:\n\t} // k\n";
        let p = Program::read(ptx, "k").unwrap();
        assert_eq!(p.insns.len(), 11);
        let args = [Arg::Buf(0), Arg::I32(5)];
        let lock =
            in_lockstep(&p, &args, &Memory::default(), Dim3::new(8, 1, 1), &[Dim3::new(2, 0, 0), Dim3::new(6, 0, 0)]);
        // Thread 2 stores at word 3 x 2 = 6; thread 6 is past n = 5 and stores nothing.
        assert_eq!(seen(&lock[0].0), [(crate::kernels::AccessKind::Store, 0, 6, 4)]);
        assert_eq!((lock[0].1, lock[1].0.len(), lock[1].1), (0, 0, 0));
    }

    /// `mul24` / `mad24` (old nvcc's 24-bit multiplies) and `bfe` (LLVM's and Triton's bit fields),
    /// worked out by hand.
    #[test]
    fn mul24_and_bit_field_extraction_compute_as_ptx_says() {
        let run = |op: &str, a: &[u64]| apply(decode(op).unwrap(), |k| a.get(k.checked_sub(1)?).copied());
        // The low 24 bits, sign-extended for .s32: 0xFFFFFFFE is -2, -2 x 3 = -6; 0x01000005 is 5.
        assert_eq!(run("mul24.lo.s32", &[0xFFFF_FFFE, 3]), Some((-6i32) as u32 as u64));
        assert_eq!(run("mul24.lo.u32", &[0x0100_0005, 7]), Some(35));
        // 0xFFFFFF squared is 0xFFFFFE000001 (48 bits): its high 32 bits 0xFFFFFE00, its low 0xFE000001.
        assert_eq!(run("mul24.hi.u32", &[0x00FF_FFFF, 0x00FF_FFFF]), Some(0xFFFF_FE00));
        assert_eq!(run("mul24.lo.u32", &[0x00FF_FFFF, 0x00FF_FFFF]), Some(0xFE00_0001));
        assert_eq!(run("mad24.lo.u32", &[0x0100_0003, 2, 1]), Some(7));
        // bfe.u32 0xF0F0 at bit 4, 8 bits: 0x0F; the signed field 0xF (bits 8-11 of 0x0F00) is -1.
        assert_eq!(run("bfe.u32", &[0xF0F0, 4, 8]), Some(0x0F));
        assert_eq!(run("bfe.s32", &[0x0F00, 8, 4]), Some(0xFFFF_FFFF));
        assert_eq!(run("bfe.s32", &[0x0700, 8, 4]), Some(7));
        // A field past bit 31 takes the top bit as its sign; a length of 0 gives 0; the position and
        // length are their operands' low 8 bits.
        assert_eq!(run("bfe.s32", &[0x8000_0000, 28, 8]), Some(0xFFFF_FFF8));
        assert_eq!(run("bfe.u32", &[0x8000_0000, 28, 8]), Some(0x8));
        assert_eq!(run("bfe.s32", &[0xFFFF_FFFF, 3, 0]), Some(0));
        assert_eq!(run("bfe.u32", &[0xF0F0, 0x104, 0x208]), Some(0x0F));
        assert_eq!(run("bfe.u64", &[0xABCD_0000_0000, 32, 16]), Some(0xABCD));
    }

    /// Hand-written PTX names registers without `%` (`.reg .u64 out_addr;`, `.reg .u32 x<2>;` for x0
    /// and x1): they are registers, in addresses, guards and vectors alike.
    #[test]
    fn registers_named_without_a_percent_sign_are_registers() {
        let ptx = ".visible .entry k(\n    .param .u64 output\n)\n{\n    .reg .u64 out_addr;\n    .reg .u64 idx;\n\
                   .reg .u32 x<2>;\n    .reg .pred in_range;\n    ld.param.u64 out_addr, [output];\n    mov.u32 x0, %tid.x;\n\
                   setp.lt.u32 in_range, x0, 4;\n    @!in_range bra DONE;\n    cvt.u64.u32 idx, x0;\n\
                   mul.lo.u64 idx, idx, 8;\n    add.u64 out_addr, out_addr, idx;\n    mov.u32 x1, 7;\n\
                   st.v2.u32 [out_addr+16], {x0, x1};\nDONE:\n    ret;\n}\n";
        let p = Program::read(ptx, "k").unwrap();
        let tids: Vec<Dim3> = [1, 5].iter().map(|&t| Dim3::new(t, 0, 0)).collect();
        let lock = in_lockstep(&p, &[Arg::Buf(0)], &Memory::default(), Dim3::new(32, 1, 1), &tids);
        // Thread 1 stores 8 bytes at byte 16 + 8 = 24 (word 6); thread 5 is out of range.
        assert_eq!(seen(&lock[0].0), [(crate::kernels::AccessKind::Store, 0, 6, 8)]);
        assert!(lock[1].0.is_empty() && lock[0].1 == 0 && lock[1].1 == 0);
    }

    /// `ldmatrix` / `stmatrix` are shared-memory accesses of 16 bytes (one matrix row) by the lanes that
    /// give row addresses: the first 8, 16 or 32 for `.x1`, `.x2`, `.x4`.
    #[test]
    fn ldmatrix_rows_are_shared_loads_of_the_lanes_that_address_them() {
        let body = |op: &str| {
            format!(
                ".visible .entry k(\n)\n{{\n.reg .b32 %r<8>;\n.shared .align 16 .b8 tile[1024];\nmov.u32 %r1, %tid.x;\n\
                 shl.b32 %r2, %r1, 4;\nmov.u32 %r3, tile;\nadd.s32 %r4, %r3, %r2;\n{op};\nret;\n}}\n"
            )
        };
        let tids: Vec<Dim3> = (0..32).map(|t| Dim3::new(t, 0, 0)).collect();
        let rows = |op: &str| -> Vec<Vec<(crate::kernels::AccessKind, u8, u64, u8)>> {
            let p = Program::read(&body(op), "k").unwrap();
            in_lockstep(&p, &[], &Memory::default(), Dim3::new(32, 1, 1), &tids).iter().map(|(a, _)| seen(a)).collect()
        };
        let x2 = rows("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r5, %r6}, [%r4]");
        // Lane l's row at byte 16 l: word 4 l; lanes 16-31 give no address.
        assert_eq!(x2[3], [(crate::kernels::AccessKind::SharedLoad, 0, 12, 16)]);
        assert_eq!(x2.iter().filter(|a| !a.is_empty()).count(), 16);
        let x4 = rows("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r5, %r6, %r7, %r0}, [%r4]");
        assert_eq!((x4.iter().filter(|a| !a.is_empty()).count(), x4[31][0].2), (32, 124));
        let st = rows("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r4], {%r5}");
        assert_eq!(st[7], [(crate::kernels::AccessKind::SharedStore, 0, 28, 16)]);
        assert_eq!(st.iter().filter(|a| !a.is_empty()).count(), 8);
    }

    /// `cp.async`'s size in hex (Triton writes `0x10`), and its src-size or ignore-src operand: a copy
    /// known to read nothing (src-size 0: zeros; ignore-src true) stores to shared memory without a load.
    #[test]
    fn asynchronous_copies_that_read_nothing_are_no_loads() {
        let ptx = |copy: &str| {
            format!(
                ".visible .entry k(\n.param .u64 k_param_0\n)\n{{\n.reg .pred %p<3>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<4>;\n\
                 .shared .align 16 .b8 tile[512];\nld.param.u64 %rd1, [k_param_0];\nmov.u32 %r1, %tid.x;\n\
                 mul.wide.u32 %rd2, %r1, 16;\nadd.s64 %rd3, %rd1, %rd2;\nmov.u32 %r2, tile;\nshl.b32 %r3, %r1, 4;\n\
                 add.s32 %r4, %r2, %r3;\nsetp.lt.u32 %p1, %r1, 2;\nselp.b32 %r5, 16, 0, %p1;\n{copy};\nret;\n}}\n"
            )
        };
        let kinds = |copy: &str, t: u32| -> Vec<(crate::kernels::AccessKind, u8, u64, u8)> {
            let p = Program::read(&ptx(copy), "k").unwrap();
            let lock = in_lockstep(&p, &[Arg::Buf(0)], &Memory::default(), Dim3::new(32, 1, 1), &[Dim3::new(t, 0, 0)]);
            assert_eq!(lock[0].1, 0);
            seen(&lock[0].0)
        };
        use crate::kernels::AccessKind::{Load, SharedStore};
        // 0x10 bytes: thread 3 reads bytes 48-63 of the buffer (word 12) into tile + 48.
        assert_eq!(
            kinds("cp.async.cg.shared.global [%r4], [%rd3], 0x10", 3),
            [(Load, 0, 12, 16), (SharedStore, 0, 12, 16)]
        );
        // A src-size of 0 as an immediate: zeros, no load.
        assert_eq!(kinds("cp.async.cg.shared.global [%r4], [%rd3], 16, 0", 3), [(SharedStore, 0, 12, 16)]);
        // A src-size in a register: 16 for threads 0 and 1, 0 for the others.
        let reg = "cp.async.cg.shared.global [%r4], [%rd3], 16, %r5";
        assert_eq!(kinds(reg, 1), [(Load, 0, 4, 16), (SharedStore, 0, 4, 16)]);
        assert_eq!(kinds(reg, 3), [(SharedStore, 0, 12, 16)]);
        // An ignore-src predicate: true (threads 0 and 1) reads nothing.
        let ignore = "cp.async.ca.shared.global [%r4], [%rd3], 16, %p1";
        assert_eq!(kinds(ignore, 1), [(SharedStore, 0, 4, 16)]);
        assert_eq!(kinds(ignore, 3), [(Load, 0, 12, 16), (SharedStore, 0, 12, 16)]);
        // With a cache policy after the size, the fourth operand is that policy: the copy reads.
        assert_eq!(
            kinds("cp.async.cg.shared.global.L2::cache_hint [%r4], [%rd3], 16, %rd1", 3),
            [(Load, 0, 12, 16), (SharedStore, 0, 12, 16)]
        );
    }

    /// Local memory (a `.local` array, a debug build's stack frame through `cvta.local`) is not traffic,
    /// as `ld.local` is not; a module's `.global` variable is an access the run cannot place, and says so.
    #[test]
    fn local_arrays_are_no_traffic_and_module_variables_have_buffers_of_their_own() {
        let ptx = ".global .align 4 .u32 table[64];\n.visible .entry k(\n.param .u64 k_param_0\n)\n{\n\
                   .local .align 8 .b8 __local_depot0[16];\n.reg .b64 %SP;\n.reg .b64 %SPL;\n.reg .b32 %r<4>;\n.reg .b64 %rd<5>;\n\
                   mov.u64 %SPL, __local_depot0;\ncvta.local.u64 %SP, %SPL;\nmov.u32 %r1, %tid.x;\nst.u32 [%SP+4], %r1;\n\
                   st.u32 [__local_depot0+8], %r1;\nld.param.u64 %rd1, [k_param_0];\nst.global.u32 [%rd1], %r1;\n\
                   ld.global.u32 %r2, [table+4];\nmov.u64 %rd2, table;\nld.global.u32 %r3, [%rd2];\nret;\n}\n";
        let p = Program::read(ptx, "k").unwrap();
        let mut out = Vec::new();
        let one = Dim3::new(1, 1, 1);
        let unplaced = p.accesses(
            &[Arg::Buf(0)],
            &Memory::default(),
            one,
            Dim3::new(32, 1, 1),
            Dim3::new(0, 0, 0),
            Dim3::new(0, 0, 0),
            &mut out,
        );
        // The two local stores: nothing; the store to the buffer: one access; the two loads of `table`
        // (a `__device__` array): global loads of its own buffer, 254 (they were unplaced, and the
        // kernel refused, before section 38 of docs/MODEL.md).
        use crate::kernels::AccessKind::{Load, Store};
        assert_eq!((seen(&out), unplaced), (vec![(Store, 0, 0, 4), (Load, 254, 1, 4), (Load, 254, 0, 4)], Some(0)));
        assert!(p.unfollowed().is_empty(), "{:?}", p.unfollowed());
    }

    /// An address that comes back from a called function is named as such.
    #[test]
    fn an_address_a_call_returns_is_named() {
        let ptx = ".visible .entry k(\n.param .u64 k_param_0\n)\n{\n.reg .b64 %rd<4>;\n.reg .b32 %r<2>;\n\
                   ld.param.u64 %rd1, [k_param_0];\n{\n.param .b64 param0;\nst.param.b64 [param0+0], %rd1;\n\
                   .param .b64 retval0;\ncall.uni (retval0),\nf,\n(\nparam0\n);\nld.param.b64 %rd2, [retval0+0];\n}\n\
                   mov.u32 %r1, %tid.x;\nst.global.u32 [%rd2], %r1;\nst.global.u32 [%rd1], %r1;\nret;\n}\n";
        let p = Program::read(ptx, "k").unwrap();
        assert_eq!(p.unfollowed(), ["the result of a called function (`call`), which the run does not follow"]);
        let mut out = Vec::new();
        let z = Dim3::new(0, 0, 0);
        let unplaced =
            p.accesses(&[Arg::Buf(0)], &Memory::default(), Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), z, z, &mut out);
        assert_eq!((out.len(), unplaced), (1, Some(1)));
    }

    /// What the run cannot read is said: no such entry, a texture, an indirect branch, a branch to a
    /// label that is not there.
    #[test]
    fn what_the_run_cannot_read_is_said() {
        let entry = |body: &str| format!(".visible .entry k(\n.param .u64 k_param_0\n)\n{{\n{body}\nret;\n}}\n");
        assert_eq!(Program::read(&entry(""), "other").unwrap_err(), "the PTX has no entry other with a body");
        assert_eq!(
            Program::read(&entry("tex.1d.v4.s32.s32 {%r1, %r2, %r3, %r4}, [t, {%r5}];"), "k").unwrap_err(),
            "a texture or surface access (`tex.1d.v4.s32.s32 {%r1, %r2, %r3, %r4}, [t, {%r5}]`), whose memory the model does not follow"
        );
        assert!(
            Program::read(&entry("suld.b.2d.b32.trap {%r1}, [s, {%r2, %r3}];"), "k").unwrap_err().contains("surface")
        );
        assert!(Program::read(&entry("brx.idx %r1, tbl;"), "k").unwrap_err().starts_with("an indirect branch"));
        assert_eq!(
            Program::read(&entry("bra.uni $L_gone;"), "k").unwrap_err(),
            "a branch to `$L_gone`, which is not a label of the entry"
        );
    }
}
