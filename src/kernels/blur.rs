//! Gaussian blur stages (source 000's case study) on one float channel, edges clamped: the 2D
//! convolution, the separable passes (plain and shared-memory tiled), and Deriche's recursive Gaussian
//! (one thread per column or per row, and the column-segment variant). Each stage has a CPU twin that
//! does the same float arithmetic, the basis of verification; `gaussian_f64` is the exact Gaussian the
//! algorithms are judged against.
//!
//! Recursive coefficients: R. Deriche, "Recursively implementing the Gaussian and its derivatives",
//! INRIA RR-1893 (1993), 4th order, with the causal/anti-causal split and normalisation of G. Farnebäck
//! and C.-F. Westin, "Improving Deriche-style recursive Gaussian filters", JMIV 26 (2006).

use rayon::prelude::*;

use super::{Access, Arg, Buffer, Entry, Kernel, Module, Param, Sizes, Thread, Tolerance, Work};
use crate::error::{Error, Result};
use crate::spec::Dim3;

/// The registry's lines: one per stage, on an nx x ny image with Gaussian `sigma`.
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        name: Stage::Direct.name(),
        entry: Stage::Direct.entry(),
        about: "Gaussian blur, 2D convolution, (2R+1)^2 taps (source 000)",
        selftest_blocks: "32x8,16x16",
        build: |s| Blur::of(Stage::Direct, s),
        ..IMAGE
    },
    Entry {
        name: Stage::Rows.name(),
        entry: Stage::Rows.entry(),
        about: "Gaussian blur, horizontal pass of the separable filter",
        selftest_blocks: "32x8,128x1",
        build: |s| Blur::of(Stage::Rows, s),
        ..IMAGE
    },
    Entry {
        name: Stage::Cols.name(),
        entry: Stage::Cols.entry(),
        about: "Gaussian blur, vertical pass of the separable filter",
        selftest_blocks: "32x8,128x1",
        build: |s| Blur::of(Stage::Cols, s),
        ..IMAGE
    },
    Entry {
        name: Stage::RowsTiled.name(),
        entry: Stage::RowsTiled.entry(),
        about: "horizontal pass with the neighbourhood staged in shared memory",
        selftest_blocks: "32x8,64x4",
        build: |s| Blur::of(Stage::RowsTiled, s),
        ..IMAGE
    },
    Entry {
        name: Stage::ColsTiled.name(),
        entry: Stage::ColsTiled.entry(),
        about: "vertical pass with the neighbourhood staged in shared memory",
        selftest_blocks: "32x8,64x4",
        build: |s| Blur::of(Stage::ColsTiled, s),
        ..IMAGE
    },
    Entry {
        name: Stage::RgV.name(),
        entry: Stage::RgV.entry(),
        about: "recursive Gaussian (Deriche, 4th order), one thread per column (source 000's rgV)",
        selftest_blocks: "64,32",
        build: |s| Blur::of(Stage::RgV, s),
        ..IMAGE
    },
    Entry {
        name: Stage::RgH.name(),
        entry: Stage::RgH.entry(),
        about: "recursive Gaussian, one thread per row (source 000's rgH)",
        selftest_blocks: "64,32",
        build: |s| Blur::of(Stage::RgH, s),
        ..IMAGE
    },
    Entry {
        name: Stage::RgVSeg.name(),
        entry: Stage::RgVSeg.entry(),
        about: "recursive Gaussian, columns cut in 32-row segments, each recursion started 8 sigma early",
        selftest_blocks: "32x4,64x1",
        build: |s| Blur::of(Stage::RgVSeg, s),
        ..IMAGE
    },
];

/// What the stages share: a 4096 x 4096 image, sigma 5.
const IMAGE: Entry = Entry {
    name: "",
    entry: "",
    about: "",
    params: &[(Param::Nx, 4096.0), (Param::Ny, 4096.0), (Param::Sigma, 5.0)],
    selftest: &[(Param::Nx, 300.0), (Param::Ny, 577.0), (Param::Sigma, 3.0)],
    selftest_blocks: "",
    build: |s| Blur::of(Stage::Direct, s),
};

/// A Gaussian: sigma and radius R = ceil(3 sigma) (2R + 1 taps).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaussian {
    /// Standard deviation, pixels.
    pub sigma: f32,
    /// Radius of the truncated kernels.
    pub r: i32,
}

/// Rows per segment of `rgVSeg` (SEG in kernels/blur.cu).
pub const SEG: u32 = 32;

/// Largest 2R + 1 the kernels' shared tap array holds.
pub const MAX_TAPS: i32 = 255;

impl Gaussian {
    /// sigma must give at most `MAX_TAPS` taps.
    pub fn new(sigma: f32) -> Result<Self> {
        if !(sigma.is_finite() && sigma >= 0.5) {
            return Err(Error::usage(format!("invalid sigma {sigma}: 0.5 or more")));
        }
        // In f64: 3 sigma of a huge sigma must not wrap past the check as an integer would.
        let r = (3.0 * f64::from(sigma)).ceil();
        if 2.0 * r + 1.0 > f64::from(MAX_TAPS) {
            return Err(Error::usage(format!("sigma {sigma} needs {} taps, more than {MAX_TAPS}", 2.0 * r + 1.0)));
        }
        Ok(Gaussian { sigma, r: r as i32 })
    }

    /// Taps and the normalisation factor, in f32, as the kernels compute them.
    pub fn taps(&self) -> (Vec<f32>, f32) {
        let s = self.sigma;
        let w: Vec<f32> =
            (0..=2 * self.r).map(|k| ((k - self.r) as f32).powi(2)).map(|d2| (-d2 / (2.0 * s * s)).exp()).collect();
        let sum: f32 = w.iter().sum();
        (w, 1.0 / sum)
    }

    /// Deriche's 4th-order coefficients {n0..n3, m1..m4, d1..d4, causal gain, anti-causal gain}, scaled so
    /// the whole filter has unit DC gain.
    pub fn deriche(&self) -> [f32; 14] {
        let s = self.sigma as f64;
        let (a0, a1, b0, b1, c0, c1, w0, w1) = (1.680, 3.735, 1.783, 1.723, -0.6803, -0.2598, 0.6318, 1.997);
        let (e0, e1) = ((-b0 / s).exp(), (-b1 / s).exp());
        let (cw0, sw0, cw1, sw1) = ((w0 / s).cos(), (w0 / s).sin(), (w1 / s).cos(), (w1 / s).sin());
        let n0 = a0 + c0;
        let n1 = e1 * (c1 * sw1 - (c0 + 2.0 * a0) * cw1) + e0 * (a1 * sw0 - (2.0 * c0 + a0) * cw0);
        let n2 =
            2.0 * e0 * e1 * ((a0 + c0) * cw1 * cw0 - a1 * cw1 * sw0 - c1 * cw0 * sw1) + c0 * e0 * e0 + a0 * e1 * e1;
        let n3 = e1 * e0 * e0 * (c1 * sw1 - c0 * cw1) + e0 * e1 * e1 * (a1 * sw0 - a0 * cw0);
        let d1 = -2.0 * e1 * cw1 - 2.0 * e0 * cw0;
        let d2 = 4.0 * cw1 * cw0 * e0 * e1 + e1 * e1 + e0 * e0;
        let d3 = -2.0 * cw0 * e0 * e1 * e1 - 2.0 * cw1 * e1 * e0 * e0;
        let d4 = e0 * e0 * e1 * e1;
        let (n, d) = ([n0, n1, n2, n3], [d1, d2, d3, d4]);
        let m = [n1 - d1 * n0, n2 - d2 * n0, n3 - d3 * n0, -d4 * n0];
        let den = 1.0 + d.iter().sum::<f64>();
        let scale = den / (n.iter().sum::<f64>() + m.iter().sum::<f64>());
        let (n, m) = (n.map(|v| v * scale), m.map(|v| v * scale));
        let mut c = [0f32; 14];
        for i in 0..4 {
            c[i] = n[i] as f32;
            c[4 + i] = m[i] as f32;
            c[8 + i] = d[i] as f32;
        }
        c[12] = (n.iter().sum::<f64>() / den) as f32;
        c[13] = (m.iter().sum::<f64>() / den) as f32;
        c
    }
}

/// The stage of a blur a kernel performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// 2D convolution.
    Direct,
    /// Horizontal pass.
    Rows,
    /// Vertical pass.
    Cols,
    /// Horizontal pass, tiled.
    RowsTiled,
    /// Vertical pass, tiled.
    ColsTiled,
    /// Recursive, one thread per column.
    RgV,
    /// Recursive, one thread per row.
    RgH,
    /// Recursive, column segments with warm-up.
    RgVSeg,
}

/// Every stage, in catalogue order.
pub const STAGES: &[Stage] = &[
    Stage::Direct,
    Stage::Rows,
    Stage::Cols,
    Stage::RowsTiled,
    Stage::ColsTiled,
    Stage::RgV,
    Stage::RgH,
    Stage::RgVSeg,
];

impl Stage {
    /// Command-line name.
    pub const fn name(&self) -> &'static str {
        match self {
            Stage::Direct => "blur-direct",
            Stage::Rows => "blur-rows",
            Stage::Cols => "blur-cols",
            Stage::RowsTiled => "blur-rows-tiled",
            Stage::ColsTiled => "blur-cols-tiled",
            Stage::RgV => "blur-rgv",
            Stage::RgH => "blur-rgh",
            Stage::RgVSeg => "blur-rgv-seg",
        }
    }

    /// PTX entry.
    pub const fn entry(&self) -> &'static str {
        match self {
            Stage::Direct => "blurDirect",
            Stage::Rows => "blurRows",
            Stage::Cols => "blurCols",
            Stage::RowsTiled => "blurRowsTiled",
            Stage::ColsTiled => "blurColsTiled",
            Stage::RgV => "rgV",
            Stage::RgH => "rgH",
            Stage::RgVSeg => "rgVSeg",
        }
    }

    /// The block it is run with in pipelines and benchmarks.
    pub fn natural_block(&self) -> Dim3 {
        match self {
            Stage::RgV | Stage::RgH => Dim3::new(64, 1, 1),
            Stage::RgVSeg => Dim3::new(32, 4, 1),
            _ => Dim3::new(32, 8, 1),
        }
    }
}

/// One blur stage on a `w` x `h` float image.
#[derive(Clone, Debug)]
pub struct Blur {
    stage: Stage,
    w: u32,
    h: u32,
    g: Gaussian,
    /// Rows per segment (`RgVSeg`): the kernel's SEG.
    seg: u32,
    /// Warm-up samples before and after a segment (`RgVSeg`): 8 sigma, where the recursion's memory has
    /// decayed to about 1e-6 (its slowest pole is exp(-1.723 / sigma)).
    warm: u32,
}

impl Blur {
    /// The stage an entry's sizes ask for.
    fn of(stage: Stage, s: &Sizes) -> Result<Box<dyn Kernel>> {
        let g = Gaussian::new(s.f32(Param::Sigma)?)?;
        Ok(Box::new(Blur::new(stage, s.u32(Param::Nx)?, s.u32(Param::Ny)?, g)?))
    }

    /// A stage; images up to 2^31 pixels.
    pub fn new(stage: Stage, w: u32, h: u32, g: Gaussian) -> Result<Self> {
        if w == 0 || h == 0 || w as u64 * h as u64 > i32::MAX as u64 {
            return Err(Error::usage(format!("invalid image {w}x{h}: 1 to 2^31-1 pixels")));
        }
        let warm = (8.0 * g.sigma).ceil() as u32;
        Ok(Blur { stage, w, h, g, seg: SEG, warm })
    }

    fn segments(&self) -> u32 {
        self.h.div_ceil(self.seg)
    }

    fn lines(&self) -> u32 {
        if self.stage == Stage::RgH { self.h } else { self.w }
    }
}

fn clamp(v: i64, n: u32) -> usize {
    v.clamp(0, n as i64 - 1) as usize
}

/// Deriche's recursion over samples [lo, hi) of a line, as kernels/blur.cu `deriche` does it.
#[allow(clippy::too_many_arguments)]
fn deriche_line(
    input: &dyn Fn(usize) -> f32,
    out: &mut dyn FnMut(usize, f32, bool),
    n: u32,
    c: &[f32; 14],
    from: i64,
    lo: i64,
    hi: i64,
    to: i64,
) {
    let x0 = input(clamp(from, n));
    let (mut x1, mut x2, mut x3) = (x0, x0, x0);
    let g = c[12] * x0;
    let (mut y1, mut y2, mut y3, mut y4) = (g, g, g, g);
    for i in from..hi {
        let xi = input(clamp(i, n));
        let y = c[0] * xi + c[1] * x1 + c[2] * x2 + c[3] * x3 - c[8] * y1 - c[9] * y2 - c[10] * y3 - c[11] * y4;
        (x3, x2, x1) = (x2, x1, xi);
        (y4, y3, y2, y1) = (y3, y2, y1, y);
        if i >= lo {
            out(i as usize, y, false);
        }
    }
    let e = input(clamp(to - 1, n));
    let (mut x1, mut x2, mut x3, mut x4) = (e, e, e, e);
    let g = c[13] * e;
    let (mut y1, mut y2, mut y3, mut y4) = (g, g, g, g);
    let mut i = to - 1;
    while i >= lo {
        let y = c[4] * x1 + c[5] * x2 + c[6] * x3 + c[7] * x4 - c[8] * y1 - c[9] * y2 - c[10] * y3 - c[11] * y4;
        (x4, x3, x2, x1) = (x3, x2, x1, input(clamp(i, n)));
        (y4, y3, y2, y1) = (y3, y2, y1, y);
        if i < hi {
            out(i as usize, y, true);
        }
        i -= 1;
    }
}

impl Blur {
    /// The stage on the CPU, with the kernel's float arithmetic.
    pub fn cpu(&self, src: &[f32]) -> Vec<f32> {
        let (w, h) = (self.w, self.h);
        let (r, (taps, norm)) = (self.g.r as i64, self.g.taps());
        let at = |x: i64, y: i64| src[clamp(y, h) * w as usize + clamp(x, w)];
        let mut out = vec![0f32; w as usize * h as usize];
        match self.stage {
            Stage::Direct | Stage::Rows | Stage::Cols | Stage::RowsTiled | Stage::ColsTiled => {
                out.par_chunks_mut(w as usize).enumerate().for_each(|(y, row)| {
                    let y = y as i64;
                    for (x, o) in row.iter_mut().enumerate() {
                        let x = x as i64;
                        *o = match self.stage {
                            Stage::Direct => {
                                let mut acc = 0f32;
                                for j in -r..=r {
                                    let mut racc = 0f32;
                                    for i in -r..=r {
                                        racc += taps[(i + r) as usize] * at(x + i, y + j);
                                    }
                                    acc += taps[(j + r) as usize] * racc;
                                }
                                acc * norm * norm
                            }
                            Stage::Rows | Stage::RowsTiled => {
                                (-r..=r).fold(0f32, |a, i| a + taps[(i + r) as usize] * at(x + i, y)) * norm
                            }
                            _ => (-r..=r).fold(0f32, |a, j| a + taps[(j + r) as usize] * at(x, y + j)) * norm,
                        };
                    }
                });
            }
            Stage::RgV | Stage::RgVSeg | Stage::RgH => {
                let c = self.g.deriche();
                let (seg, warm) = (self.seg as i64, self.warm as i64);
                // Lines run in parallel; each writes its own column (or row) through a raw index.
                let results: Vec<Vec<(usize, f32, bool)>> = (0..self.lines() as usize)
                    .into_par_iter()
                    .map(|line| {
                        let mut writes = Vec::new();
                        let n = if self.stage == Stage::RgH { w } else { h };
                        let input = |i: usize| {
                            if self.stage == Stage::RgH {
                                src[line * w as usize + i]
                            } else {
                                src[i * w as usize + line]
                            }
                        };
                        let mut put = |i: usize, v: f32, add: bool| writes.push((i, v, add));
                        if self.stage == Stage::RgVSeg {
                            for s in 0..self.segments() as i64 {
                                let (lo, hi) = (s * seg, ((s + 1) * seg).min(n as i64));
                                let from = if lo == 0 { 0 } else { lo - warm };
                                let to = if hi == n as i64 { hi } else { (hi + warm).min(n as i64) };
                                deriche_line(&input, &mut put, n, &c, from, lo, hi, to);
                            }
                        } else {
                            deriche_line(&input, &mut put, n, &c, 0, 0, n as i64, n as i64);
                        }
                        writes
                    })
                    .collect();
                for (line, writes) in results.into_iter().enumerate() {
                    for (i, v, add) in writes {
                        let idx = if self.stage == Stage::RgH { line * w as usize + i } else { i * w as usize + line };
                        if add {
                            out[idx] += v;
                        } else {
                            out[idx] = v;
                        }
                    }
                }
            }
        }
        out
    }
}

impl Kernel for Blur {
    fn name(&self) -> &str {
        self.stage.name()
    }
    fn entry(&self) -> &str {
        self.stage.entry()
    }
    fn module(&self) -> Module<'_> {
        Module::Embedded("blur")
    }
    fn problem(&self) -> String {
        format!("{}x{}, sigma {}", self.w, self.h, self.g.sigma)
    }
    fn buffers(&self) -> Vec<Buffer> {
        let n = self.w as usize * self.h as usize;
        vec![Buffer::input("in", n), Buffer::output("out", n)]
    }
    fn args(&self) -> Vec<Arg> {
        let mut a = vec![Arg::Buf(0), Arg::Buf(1), Arg::I32(self.w as i32), Arg::I32(self.h as i32)];
        match self.stage {
            Stage::RgV | Stage::RgH | Stage::RgVSeg => {
                if self.stage == Stage::RgVSeg {
                    a.push(Arg::I32(self.warm as i32));
                }
                a.extend(self.g.deriche().map(Arg::F32));
            }
            _ => a.extend([Arg::F32(self.g.sigma), Arg::I32(self.g.r)]),
        }
        a
    }
    fn grid(&self, block: Dim3) -> Dim3 {
        let div = |n: u32, b: u32| if b == 0 { 0 } else { n.div_ceil(b) };
        match self.stage {
            Stage::RgV | Stage::RgH => Dim3::new(div(self.lines(), block.x), 1, 1),
            Stage::RgVSeg => Dim3::new(div(self.w, block.x), div(self.segments(), block.y), 1),
            _ => Dim3::new(div(self.w, block.x), div(self.h, block.y), 1),
        }
    }
    fn dynamic_smem(&self, block: Dim3) -> u32 {
        let r2 = 2 * self.g.r as u32;
        match self.stage {
            Stage::RowsTiled => block.y.saturating_mul(block.x.saturating_add(r2)).saturating_mul(4),
            Stage::ColsTiled => block.y.saturating_add(r2).saturating_mul(block.x).saturating_mul(4),
            _ => 0,
        }
    }
    fn check_block(&self, block: Dim3) -> Option<String> {
        match self.stage {
            Stage::RgV | Stage::RgH if block.y != 1 || block.z != 1 => Some(format!(
                "invalid configuration: {} runs one thread per line: blocks BX x 1, not {block}",
                self.entry()
            )),
            _ if block.z != 1 => Some(format!("invalid configuration: {} takes 2D blocks, not {block}", self.entry())),
            _ => None,
        }
    }
    fn barriers(&self) -> u32 {
        match self.stage {
            Stage::RowsTiled | Stage::ColsTiled => 3,
            Stage::RgV | Stage::RgH | Stage::RgVSeg => 0,
            _ => 2,
        }
    }
    fn setup_barriers(&self) -> u32 {
        // `taps`: 2R + 1 `expf` by the first threads, a barrier, thread 0's serial sum of the weights
        // while the block waits, a barrier. The recursive blurs have no set-up.
        match self.stage {
            Stage::RgV | Stage::RgH | Stage::RgVSeg => 0,
            _ => 2,
        }
    }
    fn serial_loads(&self, block: Dim3) -> f64 {
        // The tiled passes fill their tile in a loop that is not unrolled (its trip count is known only
        // at run time; kernels-ptx/blur.ptx) and stores each load to shared memory before the next:
        // span / blockDim.x (rows) or span / blockDim.y (columns) round trips one after another.
        let r2 = 2 * self.g.r as u32;
        match self.stage {
            Stage::RowsTiled => (block.x + r2).div_ceil(block.x.max(1)) as f64,
            Stage::ColsTiled => (block.y + r2).div_ceil(block.y.max(1)) as f64,
            // The recursions: `in` and `out` may alias, so no load is issued before the previous
            // sample's store, and each sample's output needs its load: every sample of both passes
            // waits for its own. rgV's warp reads a new line each time; rgH's threads walk their rows
            // a float at a time, so one load in eight (a 32-byte sector) goes further than L1.
            Stage::RgV => 2.0 * self.h as f64,
            Stage::RgH => 2.0 * self.w as f64 * 4.0 / 32.0,
            _ => 1.0,
        }
    }
    fn loop_fmas(&self) -> f64 {
        let t = 2.0 * self.g.r as f64 + 1.0;
        // The recursions: 8 multiply-adds per sample and direction, over the line (or the segment and
        // its warm-up on both sides).
        match self.stage {
            Stage::Direct => t * t,
            Stage::RgV => 16.0 * self.h as f64,
            Stage::RgH => 16.0 * self.w as f64,
            Stage::RgVSeg => 8.0 * (2.0 * self.seg as f64 + 2.0 * self.warm as f64),
            _ => t,
        }
    }
    fn work(&self) -> Work {
        let p = self.w as u64 * self.h as u64;
        let t = 2 * self.g.r as u64 + 1;
        let flops = match self.stage {
            Stage::Direct => 2 * t * t,
            Stage::RgV | Stage::RgH | Stage::RgVSeg => 33,
            _ => 2 * t,
        };
        Work { bytes_read: 4 * p, bytes_written: 4 * p, flops: flops * p }
    }
    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        vec![self.cpu(&inputs[0])]
    }
    fn tolerance(&self) -> Tolerance {
        Tolerance { abs: 1e-5, rel: 1e-4 } // FMA contraction on the GPU, separate multiply and add on the CPU
    }
    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        let (w, h) = (self.w, self.h);
        let idx = |x: i64, y: i64| (clamp(y, h) * w as usize + clamp(x, w)) as u64;
        let x = t.block.x as i64 * t.dim.x as i64 + t.thread.x as i64;
        let y = t.block.y as i64 * t.dim.y as i64 + t.thread.y as i64;
        let r = self.g.r as i64;
        let taps = (2 * r + 1) as u64;
        // Shared memory: the taps `w[MAX_TAPS + 1]` (static, words 0..256), then the dynamic tile.
        const TILE: u64 = MAX_TAPS as u64 + 1;
        const NORM: u64 = MAX_TAPS as u64;
        if !matches!(self.stage, Stage::RgV | Stage::RgH | Stage::RgVSeg) {
            // taps(): threads store w[k] for k = tid, tid + nthreads, ...; thread 0 sums them serially
            // and stores the normalisation at w[MAX_TAPS].
            let tid = (t.thread.y * t.dim.x + t.thread.x) as u64;
            let nthreads = t.dim.x as u64 * t.dim.y as u64;
            for (i, k) in (tid..taps).step_by(nthreads.max(1) as usize).enumerate() {
                out.push(Access::shared_store(i, k, 4));
            }
            if tid == 0 {
                for k in 0..taps {
                    out.push(Access::shared_load(1000 + k as usize, k, 4));
                }
                out.push(Access::shared_store(999, NORM, 4));
            }
        }
        match self.stage {
            Stage::Direct | Stage::Rows | Stage::Cols => {
                if x >= w as i64 || y >= h as i64 {
                    return;
                }
                // Per tap, its weight from shared memory (a broadcast) and the pixel from global.
                let mut insn = 0;
                for j in if self.stage == Stage::Rows { 0..=0 } else { -r..=r } {
                    if self.stage == Stage::Direct {
                        out.push(Access::shared_load(2000 + (j + r) as usize, (j + r) as u64, 4));
                    }
                    for i in if self.stage == Stage::Cols { 0..=0 } else { -r..=r } {
                        let tap = if self.stage == Stage::Cols { j + r } else { i + r };
                        out.push(Access::shared_load(3000 + insn, tap as u64, 4));
                        out.push(Access::load(insn, 0, idx(x + i, y + j), 4));
                        insn += 1;
                    }
                }
                out.push(Access::shared_load(2999, NORM, 4));
                out.push(Access::store(insn, 1, idx(x, y), 4));
            }
            Stage::RowsTiled | Stage::ColsTiled => {
                // The tile loads: each thread loads its share of the block's span into the tile; after
                // the barrier, per tap a weight (broadcast) and a tile word; then one pixel stored.
                let (bx, by) = (t.dim.x as i64, t.dim.y as i64);
                let (x0, y0) = (t.block.x as i64 * bx, t.block.y as i64 * by);
                let (tx, ty) = (t.thread.x as i64, t.thread.y as i64);
                let mut insn = 0;
                if self.stage == Stage::RowsTiled {
                    let span = bx + 2 * r;
                    let mut i = tx;
                    while i < span {
                        out.push(Access::load(insn, 0, idx(x0 - r + i, y), 4));
                        out.push(Access::shared_store(100 + insn, TILE + (ty * span + i) as u64, 4));
                        insn += 1;
                        i += bx;
                    }
                } else {
                    let span = by + 2 * r;
                    let mut j = ty;
                    while j < span {
                        out.push(Access::load(insn, 0, idx(x, y0 - r + j), 4));
                        out.push(Access::shared_store(100 + insn, TILE + (j * bx + tx) as u64, 4));
                        insn += 1;
                        j += by;
                    }
                }
                if x < w as i64 && y < h as i64 {
                    for k in 0..taps as i64 {
                        let word = if self.stage == Stage::RowsTiled {
                            ty * (bx + 2 * r) + tx + k
                        } else {
                            (ty + k) * bx + tx
                        };
                        out.push(Access::shared_load(3000 + 2 * k as usize, k as u64, 4));
                        out.push(Access::shared_load(3001 + 2 * k as usize, TILE + word as u64, 4));
                    }
                    out.push(Access::shared_load(2999, NORM, 4));
                    out.push(Access::store(64, 1, idx(x, y), 4));
                }
            }
            Stage::RgV | Stage::RgH | Stage::RgVSeg => {
                // One line per thread, as kernels/blur.cu runs it: the causal pass loads in[from..hi] (and
                // its first sample once more before the loop), the anti-causal pass in[lo..to] backwards
                // (and its first sample before the loop). rgV and rgH (`deriche`) store out[lo..hi] in the
                // first and add to it in the second, a load and a store; rgVSeg keeps its segment's causal
                // results in registers and stores each output once. Its warm-up reaches `warm` samples past
                // each end of the segment (none at the ends of the column).
                let line =
                    if self.stage == Stage::RgVSeg { x } else { t.block.x as i64 * t.dim.x as i64 + t.thread.x as i64 };
                if line >= self.lines() as i64 {
                    return;
                }
                let n = if self.stage == Stage::RgH { w as i64 } else { h as i64 };
                let (from, lo, hi, to) = if self.stage == Stage::RgVSeg {
                    let lo = y * self.seg as i64;
                    if lo >= n {
                        return;
                    }
                    let hi = (lo + self.seg as i64).min(n);
                    let from = if lo == 0 { 0 } else { lo - self.warm as i64 };
                    (from, lo, hi, if hi == n { hi } else { (hi + self.warm as i64).min(n) })
                } else {
                    (0, 0, n, n)
                };
                let at = |i: i64| if self.stage == Stage::RgH { idx(i, line) } else { idx(line, i) };
                let mut insn = 0..;
                let mut next = || insn.next().unwrap_or(0);
                let in_place = self.stage != Stage::RgVSeg;
                out.push(Access::load(next(), 0, at(from), 4));
                for i in from..hi {
                    out.push(Access::load(next(), 0, at(i), 4));
                    if in_place && i >= lo {
                        out.push(Access::store(next(), 1, at(i), 4));
                    }
                }
                out.push(Access::load(next(), 0, at(to - 1), 4));
                for i in (lo..to).rev() {
                    out.push(Access::load(next(), 0, at(i), 4));
                    if i < hi {
                        if in_place {
                            out.push(Access::load(next(), 1, at(i), 4));
                        }
                        out.push(Access::store(next(), 1, at(i), 4));
                    }
                }
            }
        }
    }
}

/// The exact Gaussian (float64, separable, the same truncation and clamped edges), to judge by.
pub fn gaussian_f64(src: &[f32], w: u32, h: u32, g: &Gaussian) -> Vec<f64> {
    let s = g.sigma as f64;
    let taps: Vec<f64> = (-g.r..=g.r).map(|k| (-(k as f64).powi(2) / (2.0 * s * s)).exp()).collect();
    let sum: f64 = taps.iter().sum();
    let taps: Vec<f64> = taps.iter().map(|t| t / sum).collect();
    let (wu, r) = (w as usize, g.r as i64);
    let mut rows = vec![0f64; src.len()];
    rows.par_chunks_mut(wu).enumerate().for_each(|(y, row)| {
        for (x, o) in row.iter_mut().enumerate() {
            *o = taps.iter().enumerate().map(|(k, t)| t * src[y * wu + clamp(x as i64 + k as i64 - r, w)] as f64).sum();
        }
    });
    let mut out = vec![0f64; src.len()];
    out.par_chunks_mut(wu).enumerate().for_each(|(y, row)| {
        for (x, o) in row.iter_mut().enumerate() {
            *o = taps.iter().enumerate().map(|(k, t)| t * rows[clamp(y as i64 + k as i64 - r, h) * wu + x]).sum();
        }
    });
    out
}

/// (max |a - exact|, ||a - exact|| / ||exact||).
pub fn error(a: &[f32], exact: &[f64]) -> (f64, f64) {
    let (mut max, mut num, mut den) = (0f64, 0f64, 0f64);
    for (&x, &e) in a.iter().zip(exact) {
        let d = x as f64 - e;
        max = max.max(d.abs());
        num += d * d;
        den += e * e;
    }
    (max, if den > 0.0 { (num / den).sqrt() } else { num.sqrt() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::AccessKind;

    #[test]
    fn a_recursion_over_a_tall_image_counts_every_sector() {
        // rgV over 32 columns of 20,000 rows: one warp, each request one 128-byte line (4 sectors). The
        // causal pass loads h samples and its first once more, the anti-causal pass the same and reads
        // back each of its h outputs: 3h + 2 load requests; stores 2h. 5h accesses per thread pass the
        // 65,536 instruction ids: those wrap, and no sector is lost.
        let h = 20_000u64;
        let k = Blur::new(Stage::RgV, 32, h as u32, Gaussian::new(5.0).unwrap()).unwrap();
        let block = Dim3::new(32, 1, 1);
        let m = crate::model::memory::analyze_exact(&k, k.grid(block), block, 32);
        assert_eq!(m.loads.transactions, (4 * (3 * h + 2)) as f64);
        assert_eq!(m.stores.transactions, (4 * 2 * h) as f64);
    }

    fn image(w: u32, h: u32) -> Vec<f32> {
        // A smooth gradient with a sharp square: edges and flat regions.
        (0..h)
            .flat_map(|y| {
                (0..w).map(move |x| {
                    (x as f32 / w as f32) * 0.5 + if (10..20).contains(&x) && (8..30).contains(&y) { 0.4 } else { 0.0 }
                })
            })
            .collect()
    }

    #[test]
    fn taps_are_normalised() {
        let g = Gaussian::new(5.0).unwrap();
        assert_eq!(g.r, 15);
        let (t, n) = g.taps();
        assert_eq!(t.len(), 31);
        assert!((t.iter().sum::<f32>() * n - 1.0).abs() < 1e-6);
        assert!(Gaussian::new(0.1).is_err() && Gaussian::new(100.0).is_err());
        // Sigmas whose tap count overflows a 32-bit int are refused, not wrapped into range.
        for huge in [1e9, 7.2e8, f32::MAX] {
            let e = Gaussian::new(huge).unwrap_err().to_string();
            assert!(e.contains("taps, more than 255"), "{huge}: {e}");
        }
    }

    #[test]
    fn deriche_has_unit_gain_and_decays() {
        let c = Gaussian::new(5.0).unwrap().deriche();
        let den = 1.0 + c[8] + c[9] + c[10] + c[11];
        let gain = (c[0] + c[1] + c[2] + c[3] + c[4] + c[5] + c[6] + c[7]) / den;
        assert!((gain - 1.0).abs() < 1e-5, "{gain}");
        assert!((c[12] + c[13] - 1.0).abs() < 1e-5);
    }

    #[test]
    fn every_algorithm_approximates_the_gaussian() {
        let (w, h) = (70, 50);
        let img = image(w, h);
        let g = Gaussian::new(3.0).unwrap();
        let exact = gaussian_f64(&img, w, h, &g);
        let run = |s: Stage, src: &[f32]| Blur::new(s, w, h, g).unwrap().cpu(src);
        let direct = run(Stage::Direct, &img);
        let sep = run(Stage::Cols, &run(Stage::Rows, &img));
        let tiled = run(Stage::ColsTiled, &run(Stage::RowsTiled, &img));
        for (name, out) in [("direct", &direct), ("separable", &sep), ("tiled", &tiled)] {
            let (max, rel) = error(out, &exact);
            assert!(max < 1e-5 && rel < 1e-6, "{name}: {max} {rel}");
        }
        // Deriche's recursion approximates the (untruncated) Gaussian: bound 1 % of the signal's range.
        let rec = run(Stage::RgH, &run(Stage::RgV, &img));
        let (max, rel) = error(&rec, &exact);
        assert!(max < 0.01 && rel < 0.01, "recursive: {max} {rel}");
        // Segments with warm-up give the whole-column recursion to float precision.
        let g2 = Gaussian::new(2.0).unwrap();
        let tall = image(40, 700);
        let whole = Blur::new(Stage::RgV, 40, 700, g2).unwrap().cpu(&tall);
        let seg = Blur::new(Stage::RgVSeg, 40, 700, g2).unwrap().cpu(&tall);
        let (max, _) = error(&seg, &whole.iter().map(|&v| v as f64).collect::<Vec<_>>());
        assert!(max < 1e-5, "segments: {max}");
    }

    #[test]
    fn tiled_passes_wait_for_each_tile_load() {
        // sigma 5: R = 15, a tile of blockDim + 30 rows (columns pass) or columns (rows pass), filled
        // blockDim.y (blockDim.x) at a time, each load stored to shared memory before the next.
        let g = Gaussian::new(5.0).unwrap();
        let of = |stage, x, y| Blur::new(stage, 4096, 4096, g).unwrap().serial_loads(Dim3::new(x, y, 1));
        assert_eq!(of(Stage::ColsTiled, 32, 1), 31.0);
        assert_eq!(of(Stage::ColsTiled, 16, 16), 3.0); // 46 rows, 16 at a time
        assert_eq!(of(Stage::RowsTiled, 32, 1), 2.0); // 62 columns, 32 at a time
        assert_eq!(of(Stage::RowsTiled, 1024, 1), 2.0);
        assert_eq!(of(Stage::Rows, 32, 1), 1.0);
        assert_eq!(Blur::new(Stage::Rows, 64, 64, g).unwrap().setup_barriers(), 2);
        assert_eq!(Blur::new(Stage::RgV, 64, 64, g).unwrap().setup_barriers(), 0);
    }

    #[test]
    fn accesses_cover_the_outputs() {
        let g = Gaussian::new(1.0).unwrap();
        for &s in STAGES {
            let k = Blur::new(s, 40, 30, g).unwrap();
            let b = if s == Stage::RgH { Dim3::new(8, 1, 1) } else { s.natural_block() };
            let grid = k.grid(b);
            let mut acc = Vec::new();
            for by in 0..grid.y {
                for bx in 0..grid.x {
                    for ty in 0..b.y {
                        for tx in 0..b.x {
                            k.accesses(
                                &Thread { block: Dim3::new(bx, by, 0), thread: Dim3::new(tx, ty, 0), dim: b },
                                &mut acc,
                            );
                        }
                    }
                }
            }
            let mut seen = vec![false; 1200];
            for a in acc.iter().filter(|a| a.kind == AccessKind::Store) {
                seen[a.index as usize] = true;
            }
            assert!(seen.iter().all(|&v| v), "{s:?}");
        }
    }
}
