//! `warpscope transpose --bench`: the transpose variants over sizes, against the fastest copy.

use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;

use warpscope::Outcome;
use warpscope::report::plot::{self, Labels, Panel, Series};
use warpscope::studies::transpose_bench;
use warpscope::sweep::{Event, Options};
use warpscope::{Result, gpu, spec};

use super::{Context, DeviceArg, OutputArgs, exit_for, ranges, usage};

/// Arguments of `transpose`.
#[derive(Args, Debug)]
pub struct TransposeArgs {
    /// Run the benchmark (every variant at every size, against the fastest copy).
    #[arg(long)]
    bench: bool,
    /// Sizes, comma-separated: square sides, or heights when --width is given.
    #[arg(long, default_value = "1024,2048,4096,8192,16384")]
    sizes: String,
    #[arg(long, value_parser = ranges::SIDE.parser(), help = ranges::SIDE.help(
        "A fixed width: the sizes become heights (the seed's naive transpose slowed as the image grew taller)"
    ))]
    width: Option<u32>,
    /// Draw each variant's % of the fastest copy, and the naive transpose's GB/s, against the size to
    /// FILE (.svg or .png).
    #[arg(long, value_name = "FILE")]
    plot: Option<std::path::PathBuf>,
    #[arg(long, default_value_t = 2, value_parser = ranges::WARMUP.parser(), help = ranges::WARMUP.help("Untimed launches before timing"))]
    warmup: u32,
    #[arg(long, default_value_t = 20, value_parser = ranges::ITERS.parser(), help = ranges::ITERS.help("Timed launches per kernel"))]
    iters: u32,
    #[command(flatten)]
    gpu: DeviceArg,
    #[command(flatten)]
    out: OutputArgs,
}

pub fn run(ctx: &Context, a: &TransposeArgs) -> Result<Outcome> {
    if !a.bench {
        return Err(usage(
            "transpose needs --bench (a single transpose is `warpscope sweep transpose-shared --block 32x8`)",
        ));
    }
    super::check_outputs(&[], &a.out, &[("--plot", a.plot.as_deref())])?;
    a.out.to().check()?;
    warpscope::report::check_plot(a.plot.as_deref())?;
    let sizes = spec::parse_int_list(&a.sizes)?;
    let seed = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1);
    let opts = Options { warmup: a.warmup, iters: a.iters, seed, ..Default::default() };
    let mut backend = gpu::open(ctx.backend, a.gpu.device)?;
    let out = &a.out.to();
    let bar = out.progress(transpose_bench::count(a.width, &sizes)?);
    let measured = transpose_bench::run(backend.as_mut(), a.width, &sizes, &opts, &mut |e| {
        if let Event::Record(r) = e {
            bar.inc(1);
            bar.suspend(|| out.line(&format!("{} {}", r.seed_line(), r.problem)));
        }
    });
    bar.finish_and_clear();
    let (report, best) = measured.map_err(|e| e.or_smaller("choose smaller --sizes (and --width)"))?;
    out.emit(&report)?;
    if !out.quiet {
        for b in &best {
            errln!(
                "{}x{}: fastest transpose {}, {:.1}% of the fastest copy",
                b.width,
                b.height,
                b.kernel,
                b.pct_of_copy
            );
        }
        let naive = transpose_bench::naive_series(&report);
        if naive.len() > 1 {
            let list: Vec<String> = naive.iter().map(|(p, g)| format!("{g:.0} ({p})")).collect();
            let falls = naive.windows(2).all(|w| w[1].1 < w[0].1);
            errln!(
                "naive transpose, GB/s: {}: {}",
                list.join(", "),
                if falls {
                    "slower at every step, as in the seed"
                } else {
                    "not monotonically slower (the seed's GPU was)"
                }
            );
        }
    }
    if let Some(path) = &a.plot {
        let x_names: Vec<String> = sizes.iter().map(|&n| format!("{}x{n}", a.width.unwrap_or(n))).collect();
        let mut variants: Vec<&str> = Vec::new();
        for r in &report.records {
            if !variants.contains(&r.kernel.as_str()) {
                variants.push(&r.kernel);
            }
        }
        let pct = variants
            .iter()
            .map(|v| Series {
                label: v.to_string(),
                points: report
                    .records
                    .iter()
                    .filter(|r| r.kernel == *v)
                    .filter_map(|r| {
                        let i = x_names.iter().position(|n| *n == r.problem)?;
                        Some((i as f64, r.metric(transpose_bench::PCT_OF_COPY)?.value))
                    })
                    .collect(),
            })
            .collect();
        let naive = transpose_bench::naive_series(&report);
        let naive = Series {
            label: "transposeNaive".into(),
            points: naive.iter().filter_map(|(p, g)| Some((x_names.iter().position(|n| n == p)? as f64, *g))).collect(),
        };
        let device = &report.device.name;
        plot::panels(
            path,
            vec![
                Panel {
                    labels: Labels::new(format!("Transposes on {device}: % of the fastest copy"), "size", "% of copy"),
                    series: pct,
                    x_names: Some(x_names.clone()),
                },
                Panel {
                    labels: Labels::new(format!("The naive transpose on {device}"), "size", "GB/s"),
                    series: vec![naive],
                    x_names: Some(x_names),
                },
            ],
        )?;
        errln!("wrote {}", path.display());
    }
    Ok(exit_for(&report))
}
