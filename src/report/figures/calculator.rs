//! The occupancy calculator's figure, as NVIDIA's spreadsheet draws it: occupancy as the block size,
//! the registers per thread and the shared memory per block vary in turn, the current point marked and
//! the limiting resource shaded.

use crate::model::arch::Arch;
use crate::model::occupancy::{self, Limiter, Request};
use crate::report::plot::{self, Band, Chart, Curve, Labels, Marked, PALETTE, Series};

use super::{Figure, block_size_ticks};

/// The colour of a limiting resource.
fn limiter_color(l: Option<Limiter>) -> plotters::style::RGBColor {
    match l {
        Some(Limiter::Warps) => PALETTE[0],
        Some(Limiter::Registers) => PALETTE[3],
        Some(Limiter::SharedMemory) => PALETTE[2],
        Some(Limiter::Blocks) => PALETTE[4],
        None => PALETTE[7],
    }
}

fn limiter_label(l: Option<Limiter>) -> String {
    match l {
        Some(l) => format!("limited by {}", l.as_str().replace('_', " ")),
        None => "cannot launch".into(),
    }
}

/// One view of the calculator: occupancy as `vary` changes one input of `req` over `xs`.
fn calculator_view(
    arch: &Arch,
    req: &Request,
    xs: &[u32],
    vary: fn(&Request, u32) -> Request,
    current: u32,
    (title, x_title, unit): (&str, &str, &str),
    x_ticks: Vec<(f64, String)>,
) -> Chart {
    let at = |x: u32| occupancy::theoretical(arch, &vary(req, x));
    let points: Vec<(f64, f64)> = xs.iter().map(|&x| (x as f64, at(x).occupancy_pct)).collect();
    // Stretches of one limiter, shaded; each x owns half the gap to its neighbours.
    let mut bands: Vec<Band> = Vec::new();
    for (i, &x) in xs.iter().enumerate() {
        let o = at(x);
        let l = o.launchable.then_some(o.limiter);
        let from = if i == 0 { x as f64 } else { (xs[i - 1] as f64 + x as f64) / 2.0 };
        let to = if i + 1 == xs.len() { x as f64 } else { (xs[i + 1] as f64 + x as f64) / 2.0 };
        match bands.last_mut() {
            Some(b) if b.label == limiter_label(l) => b.to = to,
            _ => bands.push(Band { from, to, label: limiter_label(l), color: limiter_color(l) }),
        }
    }
    let now = at(current);
    let mark = Marked {
        at: (current as f64, now.occupancy_pct),
        label: format!(
            "current: {current} {unit} ({} of {} warps, {})",
            now.active_warps_per_sm,
            now.max_warps_per_sm,
            plot::si::format(now.occupancy_pct, "%")
        ),
    };
    Chart::Curve(Curve {
        labels: Labels::new(title, x_title, "occupancy"),
        x_unit: String::new(),
        y_unit: "%".into(),
        series: vec![Series { label: arch.sm_name(), points }],
        bands,
        marks: vec![mark],
        x_ticks: Some(x_ticks),
        y_range: Some((0.0, 100.0)),
        note: String::new(),
        joined: true,
        colors: vec![PALETTE[0]],
    })
}

/// The occupancy calculator's figure for `req` on `arch`, as NVIDIA's spreadsheet draws it: occupancy as
/// the block size, the registers per thread and the shared memory per block vary in turn, the others
/// held; the current point marked and the limiting resource shaded.
pub fn calculator(arch: &Arch, req: &Request) -> Figure {
    let sizes: Vec<u32> = (1..=arch.max_threads_per_block / 32).map(|w| w * 32).collect();
    let regs: Vec<u32> = (1..=arch.max_regs_per_thread).collect();
    let smem_max = arch.smem_per_block_optin;
    let unit = arch.smem_alloc_unit.max(smem_max / 256).max(1);
    let smem: Vec<u32> = (0..=smem_max / unit).map(|k| k * unit).collect();
    let held = req.static_smem + req.dynamic_smem;
    let reg_step = if arch.max_regs_per_thread > 128 { 32 } else { 16 };
    let kib_step = [8u32, 16, 32, 64].into_iter().find(|s| smem_max / 1024 / s <= 8).unwrap_or(128);
    let charts = vec![
        calculator_view(
            arch,
            req,
            &sizes,
            |r, x| Request { block_size: x, ..*r },
            req.block_size,
            ("varying block size", "threads per block", "threads"),
            block_size_ticks(arch.max_threads_per_block),
        ),
        calculator_view(
            arch,
            req,
            &regs,
            |r, x| Request { regs_per_thread: x, ..*r },
            req.regs_per_thread,
            ("varying registers per thread", "registers per thread", "registers"),
            (0..=arch.max_regs_per_thread.div_ceil(reg_step))
                .map(|k| ((k * reg_step) as f64, (k * reg_step).to_string()))
                .collect(),
        ),
        calculator_view(
            arch,
            &Request { static_smem: 0, dynamic_smem: held, ..*req },
            &smem,
            |r, x| Request { dynamic_smem: x, ..*r },
            held,
            ("varying shared memory per block", "shared memory per block", "B"),
            (0..=smem_max / 1024 / kib_step)
                .map(|k| ((k * kib_step * 1024) as f64, format!("{} KiB", k * kib_step)))
                .collect(),
        ),
    ];
    Figure {
        title: format!(
            "Occupancy on {} ({}): {} threads, {} registers, {} B shared memory per block",
            arch.sm_name(),
            arch.family,
            req.block_size,
            req.regs_per_thread,
            held
        ),
        charts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calculator_views_mark_the_current_point_and_shade_limiters() {
        let arch = crate::model::arch::parse_arch("sm_90").unwrap();
        let req = Request { block_size: 256, regs_per_thread: 64, static_smem: 0, dynamic_smem: 0 };
        let fig = calculator(arch, &req);
        assert_eq!(fig.charts.len(), 3);
        for c in &fig.charts {
            let Chart::Curve(c) = c else { panic!() };
            let m = &c.marks[0];
            // The marked point lies on the curve.
            assert!(c.series[0].points.contains(&m.at), "{}", c.labels.title);
            // Bands tile the axis and name real limiters.
            assert!(c.bands.windows(2).all(|w| (w[0].to - w[1].from).abs() < 1e-9));
            assert!(c.bands.iter().all(|b| b.label.starts_with("limited by") || b.label == "cannot launch"));
        }
        // 64 registers x 256 threads on sm_90: registers limit (4 blocks of 8 warps = 50 %).
        let Chart::Curve(regs) = &fig.charts[1] else { panic!() };
        assert_eq!(regs.marks[0].at, (64.0, 50.0));
        let band = regs.bands.iter().find(|b| b.from <= 64.0 && b.to >= 64.0).unwrap();
        assert_eq!(band.label, "limited by registers");
        // Up to 255 registers a 256-thread block still launches (one per SM): registers limit to the end.
        assert_eq!(regs.bands.last().unwrap().label, "limited by registers");
        assert_eq!(regs.series[0].points.last(), Some(&(255.0, 12.5)));
    }
}
