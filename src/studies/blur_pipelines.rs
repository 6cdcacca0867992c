//! `blur` (source 000): Gaussian blur algorithms as pipelines of kernels, the seed's estimate rule
//! (copy MP/s x 2 / memory I/O per pixel), the benchmark that holds each pipeline's measured MP/s against
//! its estimate, and blurring real images (GPU pipelines, judged against a float64 Gaussian).

use serde::Serialize;

use crate::capacity;
use crate::error::Result;
use crate::gpu::{Backend, Launch};
use crate::kernels::{
    Blur, BlurStage, Copy, CopyKind, Gaussian, Kernel, Tolerance, Transpose, TransposeVariant, blur_error, gaussian_f64,
};
use crate::record::{Report, Status};
use crate::spec::Dim3;
use crate::sweep::{self, Event, Options};

/// Device bytes per pixel of any stage of a pipeline: its input and its output, in f32.
const DEVICE_BYTES_PER_PIXEL: u64 = 8;
/// Host bytes per pixel at the peak of [`bench`] and of blurring an RGB image, an upper bound: the image
/// (f32 planes, and for `--image` the decoded bytes and the blurred planes), its float64 Gaussian, and a
/// stage's input, CPU reference and output. Measured peaks (maximum resident set, this machine, on the
/// mock backend, whose device buffers are host memory too): 59 bytes per pixel for `blur --bench` at
/// 4096x4096, 60 for `blur --image` of a 2048x2048 RGB PNG.
const HOST_BYTES_PER_PIXEL: u64 = 64;

/// Fails before anything is allocated when [`bench`](fn@bench) at `w` x `h` cannot fit on the device or the host.
pub fn check_bench_memory(backend: &dyn Backend, w: u32, h: u32) -> Result<()> {
    let px = u64::from(w) * u64::from(h);
    let what = format!("the blur benchmark at {w}x{h}");
    let parts = "the random image, its float64 Gaussian, a stage's input, reference and output";
    capacity::check(backend, &what, DEVICE_BYTES_PER_PIXEL * px, HOST_BYTES_PER_PIXEL * px, parts)
}

/// Fails before an image of `w` x `h` is decoded when blurring it cannot fit on the device or the host.
pub fn check_image_memory(backend: &dyn Backend, w: u32, h: u32) -> Result<()> {
    let px = u64::from(w) * u64::from(h);
    let what = format!("blurring a {w}x{h} image");
    let parts = "its planes, the blurred ones, the CPU twin and the float64 Gaussian";
    capacity::check(backend, &what, DEVICE_BYTES_PER_PIXEL * px, HOST_BYTES_PER_PIXEL * px, parts)
}

/// The accuracy bound warpscope states for the recursive algorithms against the exact (float64,
/// truncated) Gaussian: max |error| at most 0.5 % of the image's full scale, relative L2 at most 0.3 %.
/// (Deriche's 4th-order fit of the Gaussian; the truncated algorithms agree to float rounding, 1e-5.)
pub const RECURSIVE_BOUND: (f64, f64) = (0.005, 0.003);
/// The bound for the direct and separable algorithms: float rounding.
pub const EXACT_BOUND: (f64, f64) = (1e-5, 1e-5);

/// A blur algorithm: a pipeline of stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algo {
    /// 2D convolution.
    Direct,
    /// Horizontal then vertical pass.
    Separable,
    /// The separable passes with shared-memory tiles.
    SeparableTiled,
    /// Recursive: rgV then rgH (the seed's first version).
    RecursiveVH,
    /// Recursive: rgV, transpose, rgV, transpose (the seed's fix).
    RecursiveVTVT,
    /// Recursive with column segments: rgVSeg, transpose, rgVSeg, transpose (past the seed).
    RecursiveSegVTVT,
}

/// Every algorithm, in the seed's order.
pub const ALGOS: &[Algo] = &[
    Algo::Direct,
    Algo::Separable,
    Algo::SeparableTiled,
    Algo::RecursiveVH,
    Algo::RecursiveVTVT,
    Algo::RecursiveSegVTVT,
];

/// One pipeline step.
pub enum PipelineStep {
    /// A blur stage.
    Blur(BlurStage),
    /// A transpose (W and H swap).
    Transpose,
}

impl Algo {
    /// Command-line name.
    pub fn name(&self) -> &'static str {
        match self {
            Algo::Direct => "direct",
            Algo::Separable => "separable",
            Algo::SeparableTiled => "separable-tiled",
            Algo::RecursiveVH => "recursive-vh",
            Algo::RecursiveVTVT => "recursive",
            Algo::RecursiveSegVTVT => "recursive-seg",
        }
    }

    /// As the seed's tables name it.
    pub fn label(&self, g: &Gaussian) -> String {
        let t = 2 * g.r + 1;
        match self {
            Algo::Direct => format!("2D convolution, {t}x{t} kernel"),
            Algo::Separable => format!("separable convolution (2 passes of {t} taps)"),
            Algo::SeparableTiled => "separable, shared-memory tiles".into(),
            Algo::RecursiveVH => "recursive Gaussian, rgV + rgH".into(),
            Algo::RecursiveVTVT => "recursive Gaussian, rgV + T + rgV + T".into(),
            Algo::RecursiveSegVTVT => "recursive, column segments + T (x2)".into(),
        }
    }

    /// The accuracy bound against the float64 Gaussian (max |error|, relative L2), for images in [0, 1].
    pub fn bound(&self) -> (f64, f64) {
        match self {
            Algo::Direct | Algo::Separable | Algo::SeparableTiled => EXACT_BOUND,
            _ => RECURSIVE_BOUND,
        }
    }

    /// Parses a command-line name.
    pub fn parse(s: &str) -> Result<Algo> {
        ALGOS.iter().copied().find(|a| a.name() == s).ok_or_else(|| {
            crate::Error::usage(format!(
                "unknown algorithm '{s}' (known: {})",
                ALGOS.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")
            ))
        })
    }

    /// Memory I/O per pixel and flops per pixel, by the seed's accounting (Tables 14-1 and 14-2): a pass
    /// reads each input it needs once and writes once; the recursive filter's four recursions cost
    /// 10 I/O and 64 flops, transposes 2 I/O each.
    pub fn accounting(&self, g: &Gaussian) -> (f64, f64) {
        let t = (2 * g.r + 1) as f64;
        match self {
            Algo::Direct => (t * t + 1.0, 2.0 * t * t),
            Algo::Separable => (2.0 * (t + 1.0), 4.0 * t),
            Algo::SeparableTiled => (4.0, 4.0 * t),
            Algo::RecursiveVH => (10.0, 64.0),
            Algo::RecursiveVTVT | Algo::RecursiveSegVTVT => (14.0, 64.0),
        }
    }

    /// The pipeline.
    pub fn pipeline(&self) -> Vec<PipelineStep> {
        use BlurStage as S;
        match self {
            Algo::Direct => vec![PipelineStep::Blur(S::Direct)],
            Algo::Separable => vec![PipelineStep::Blur(S::Rows), PipelineStep::Blur(S::Cols)],
            Algo::SeparableTiled => vec![PipelineStep::Blur(S::RowsTiled), PipelineStep::Blur(S::ColsTiled)],
            Algo::RecursiveVH => vec![PipelineStep::Blur(S::RgV), PipelineStep::Blur(S::RgH)],
            Algo::RecursiveVTVT => vec![
                PipelineStep::Blur(S::RgV),
                PipelineStep::Transpose,
                PipelineStep::Blur(S::RgV),
                PipelineStep::Transpose,
            ],
            Algo::RecursiveSegVTVT => {
                vec![
                    PipelineStep::Blur(S::RgVSeg),
                    PipelineStep::Transpose,
                    PipelineStep::Blur(S::RgVSeg),
                    PipelineStep::Transpose,
                ]
            }
        }
    }

    /// The kernels of the pipeline for a `w` x `h` image, with their blocks (a transpose swaps w and h).
    pub fn kernels(&self, w: u32, h: u32, g: Gaussian) -> Result<Vec<(Box<dyn Kernel>, Dim3)>> {
        let (mut w, mut h) = (w, h);
        let mut out: Vec<(Box<dyn Kernel>, Dim3)> = Vec::new();
        for step in self.pipeline() {
            match step {
                PipelineStep::Blur(s) => out.push((Box::new(Blur::new(s, w, h, g)?), s.natural_block())),
                PipelineStep::Transpose => {
                    let v =
                        if w % 64 == 0 && h % 64 == 0 { TransposeVariant::Tile64 } else { TransposeVariant::Shared };
                    out.push((Box::new(Transpose::new(v, w, h)?), v.natural_block()));
                    (w, h) = (h, w);
                }
            }
        }
        Ok(out)
    }
}

/// One row of the blur tables (the JSON of `blur --bench` / `--estimate`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BlurRow {
    /// What the row is.
    pub algorithm: String,
    /// Memory reads + writes per pixel.
    pub io_per_pixel: f64,
    /// Flops per pixel.
    pub flops_per_pixel: f64,
    /// flops / I/O.
    pub cm_ratio: f64,
    /// copy MP/s x 2 / io_per_pixel.
    pub estimate_mps: f64,
    /// Measured, megapixels per second (sum of the pipeline's kernel medians).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_mps: Option<f64>,
    /// measured / estimate, %.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pct_of_estimate: Option<f64>,
    /// Max |GPU - float64 Gaussian| on the benchmark's random image (values in [-1, 1)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_abs_error: Option<f64>,
    /// Relative L2 error against the float64 Gaussian.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rel_l2_error: Option<f64>,
}

/// The seed's estimate table (Tables 14-1 and 14-2) for a copy rate: no GPU needed.
pub fn estimates(copy_mps: f64, g: &Gaussian) -> Vec<BlurRow> {
    let mut rows = vec![BlurRow {
        algorithm: "copy".into(),
        io_per_pixel: 2.0,
        flops_per_pixel: 0.0,
        cm_ratio: 0.0,
        estimate_mps: copy_mps,
        measured_mps: None,
        pct_of_estimate: None,
        max_abs_error: None,
        rel_l2_error: None,
    }];
    for a in ALGOS {
        let (io, flops) = a.accounting(g);
        rows.push(BlurRow {
            algorithm: a.label(g),
            io_per_pixel: io,
            flops_per_pixel: flops,
            cm_ratio: flops / io,
            estimate_mps: copy_mps * 2.0 / io,
            measured_mps: None,
            pct_of_estimate: None,
            max_abs_error: None,
            rel_l2_error: None,
        });
    }
    rows
}

/// Runs `algo` on `img` on the backend (one launch per stage, data through the host between stages).
pub fn apply(backend: &mut dyn Backend, algo: Algo, img: &[f32], w: u32, h: u32, g: Gaussian) -> Result<Vec<f32>> {
    let mut data = img.to_vec();
    for (k, block) in algo.kernels(w, h, g)? {
        let launch = Launch { grid: k.grid(block), block, dynamic_smem: k.dynamic_smem(block) };
        data = backend.apply(k.as_ref(), &launch, &[&data])?.swap_remove(0);
    }
    Ok(data)
}

/// `algo` on the CPU: every stage's CPU twin in turn (the reference a GPU run is verified against).
pub fn cpu(algo: Algo, img: &[f32], w: u32, h: u32, g: Gaussian) -> Result<Vec<f32>> {
    let mut data = img.to_vec();
    for (k, _) in algo.kernels(w, h, g)? {
        data = k.reference(&[data]).swap_remove(0);
    }
    Ok(data)
}

/// An image blurred on the GPU, verified like every GPU run (each value against the algorithm's CPU
/// twin) and judged against the float64 Gaussian.
pub struct Blurred {
    /// The blurred planes, as the input's.
    pub planes: Vec<Vec<f32>>,
    /// Values that differ from the CPU twin beyond the tolerance.
    pub mismatches: usize,
    /// Largest absolute error against the float64 Gaussian, over the planes.
    pub max_abs_error: f64,
    /// Largest relative L2 error against the float64 Gaussian, over the planes.
    pub rel_l2_error: f64,
    /// Whether both errors are within the bound stated for the algorithm.
    pub within_bound: bool,
}

impl Blurred {
    /// Pixel values in all planes.
    pub fn values(&self) -> usize {
        self.planes.iter().map(Vec::len).sum()
    }
}

/// Blurs every plane of `img` (`w` x `h`) with `algo` on the backend and verifies it.
pub fn blur_image(
    backend: &mut dyn Backend,
    algo: Algo,
    planes: &[Vec<f32>],
    w: u32,
    h: u32,
    g: Gaussian,
) -> Result<Blurred> {
    let tol = Tolerance { abs: 1e-5, rel: 1e-4 };
    let mut b =
        Blurred { planes: Vec::new(), mismatches: 0, max_abs_error: 0.0, rel_l2_error: 0.0, within_bound: false };
    for plane in planes {
        let out = apply(backend, algo, plane, w, h, g)?;
        let twin = cpu(algo, plane, w, h, g)?;
        b.mismatches += out.iter().zip(&twin).filter(|(o, t)| !tol.accepts(**o, **t)).count();
        let (max, rel) = blur_error(&out, &gaussian_f64(plane, w, h, &g));
        b.max_abs_error = b.max_abs_error.max(max);
        b.rel_l2_error = b.rel_l2_error.max(rel);
        b.planes.push(out);
    }
    let bound = algo.bound();
    b.within_bound = b.max_abs_error <= bound.0 && b.rel_l2_error <= bound.1;
    Ok(b)
}

/// How many configurations [`bench`](fn@bench) measures (the copy and every algorithm's stages), for a
/// progress bar.
pub fn count(w: u32, h: u32, g: Gaussian) -> Result<usize> {
    ALGOS.iter().try_fold(1, |n, algo| Ok(n + algo.kernels(w, h, g)?.len()))
}

/// The benchmark: the copy (float4), then every algorithm, each stage swept (verified and timed) at its
/// block; MP/s from the sum of the stage medians; errors from one run of the pipeline on a random image
/// against the float64 Gaussian. Returns the table rows and every stage's record.
pub fn bench(
    backend: &mut dyn Backend,
    w: u32,
    h: u32,
    g: Gaussian,
    opts: &Options,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Vec<BlurRow>, Report)> {
    let copy = Copy::new(CopyKind::Float4, w, h)?;
    check_bench_memory(backend, w, h)?;
    let mpix = w as f64 * h as f64 / 1e6;
    let mut report = sweep::run(backend, &copy, &[Dim3::new(256, 1, 1)], opts, on_event)?;
    let copy_ms = report.records.first().and_then(|r| r.time_ms.as_ref()).map(|t| t.median).unwrap_or(f64::NAN);
    let copy_mps = mpix / (copy_ms * 1e-3);
    let mut rows = estimates(copy_mps, &g);
    rows[0].measured_mps = Some(copy_mps);
    rows[0].pct_of_estimate = Some(100.0);
    let img = crate::kernels::random_inputs(&copy, opts.seed ^ 0xB1u64).swap_remove(0);
    let exact = gaussian_f64(&img, w, h, &g);
    for (row, algo) in rows.iter_mut().skip(1).zip(ALGOS) {
        let mut total_ms = 0.0;
        let mut ok = true;
        for (k, block) in algo.kernels(w, h, g)? {
            let r = sweep::run(backend, k.as_ref(), &[block], opts, on_event)?;
            for rec in &r.records {
                ok &= rec.status == Status::Ok;
                total_ms += rec.time_ms.as_ref().map(|t| t.median).unwrap_or(f64::NAN);
            }
            report.records.extend(r.records);
        }
        if ok {
            let mps = mpix / (total_ms * 1e-3);
            row.measured_mps = Some(mps);
            row.pct_of_estimate = Some(100.0 * mps / row.estimate_mps);
            let out = apply(backend, *algo, &img, w, h, g)?;
            let (max, rel) = blur_error(&out, &exact);
            row.max_abs_error = Some(max);
            row.rel_l2_error = Some(rel);
        }
    }
    Ok((rows, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::MockBackend;

    #[test]
    fn the_seeds_estimates() {
        // Source 000, Tables 14-1 and 14-2, copy = 14,200 MP/s: 30, 443, 2,840 and 2,030 MP/s.
        let g = Gaussian::new(5.0).unwrap();
        let rows = estimates(14_200.0, &g);
        let est = |i: usize| rows[i].estimate_mps;
        assert_eq!(rows[1].io_per_pixel, 962.0);
        assert_eq!(rows[1].flops_per_pixel, 1922.0);
        assert_eq!(est(1).round(), 30.0);
        assert_eq!(rows[2].io_per_pixel, 64.0);
        assert_eq!(rows[2].flops_per_pixel, 124.0);
        assert_eq!(est(2).floor(), 443.0);
        assert_eq!(est(4), 2840.0);
        assert_eq!((est(5) / 10.0).round() * 10.0, 2030.0);
        assert!((rows[4].cm_ratio - 6.4).abs() < 1e-9 && (rows[5].cm_ratio - 64.0 / 14.0).abs() < 1e-9);
    }

    #[test]
    fn pipelines_on_the_mock_match_the_gaussian() {
        let mut b = MockBackend::new(0).unwrap();
        let g = Gaussian::new(2.0).unwrap();
        let (w, h) = (128, 64);
        let img: Vec<f32> = (0..w * h).map(|i| ((i * 7919) % 255) as f32 / 255.0).collect();
        let exact = gaussian_f64(&img, w, h, &g);
        for &a in ALGOS {
            let out = apply(&mut b, a, &img, w, h, g).unwrap();
            let (max, rel) = blur_error(&out, &exact);
            let bound = if matches!(a, Algo::Direct | Algo::Separable | Algo::SeparableTiled) { 1e-5 } else { 0.02 };
            assert!(max < bound && rel < bound, "{a:?}: {max} {rel}");
        }
    }

    #[test]
    fn bench_on_the_mock() {
        let mut b = MockBackend::new(0).unwrap();
        let opts = Options { warmup: 1, iters: 2, seed: 1, ..Default::default() };
        let (rows, report) = bench(&mut b, 128, 128, Gaussian::new(1.0).unwrap(), &opts, &mut |_| {}).unwrap();
        assert_eq!(rows.len(), 1 + ALGOS.len());
        assert!(rows.iter().all(|r| r.measured_mps.is_some() && r.pct_of_estimate.is_some()));
        assert!(report.records.iter().all(|r| r.status == Status::Ok));
    }
}
