//! Drives a block-shape sweep from Rust: the seed's sumMatrixOnGPU2D over four shapes, on the GPU when
//! there is one (else on the mock backend), printed as a table and summarised from the records.
//!
//!     cargo run --release --example sweep            # WARPSCOPE_BACKEND=mock to force the mock

use warpscope::gpu::{self, BackendKind};
use warpscope::kernels::{Kernel, SumMatrix};
use warpscope::record::Status;
use warpscope::report::{self, Format};
use warpscope::spec;
use warpscope::sweep::{self, Event, Options};

fn main() -> warpscope::Result<()> {
    let kernel = SumMatrix::new(1 << 12, 1 << 12)?;
    let blocks = spec::blocks_from(Some("32x32,32x16,16x32,16x16"), None, None, None)?;
    let forced_mock = std::env::var("WARPSCOPE_BACKEND").is_ok_and(|v| v == "mock");
    let mut backend = match gpu::open(if forced_mock { BackendKind::Mock } else { BackendKind::Cuda }, 0) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("no GPU ({e}); using the mock backend");
            gpu::open(BackendKind::Mock, 0)?
        }
    };
    let opts = Options { iters: 10, seed: 42, model: true, ..Options::default() };
    let report = sweep::run(backend.as_mut(), &kernel, &blocks, &opts, &mut |e| {
        if let Event::Record(r) = e {
            eprintln!("{}", r.launch_line());
        }
    })?;
    report::write(&report, Format::Table, &mut std::io::stdout())?;
    let best = report
        .records
        .iter()
        .filter(|r| r.status == Status::Ok)
        .filter_map(|r| Some((r.block?, r.time_ms.as_ref()?.median)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((block, ms)) = best {
        println!("fastest block for {} {}: {block} at {ms:.4} ms", kernel.entry(), kernel.problem());
    }
    Ok(())
}
