//! `warpscope archs`: the architecture database and the named cards, with the limits the models use.

use clap::{Args, ValueEnum};
use serde::Serialize;
use tabled::builder::Builder;
use tabled::settings::Style;

use warpscope::Outcome;
use warpscope::model::arch::{ARCHS, Arch, CARDS, Card};
use warpscope::{Error, Result};

/// Arguments of `archs`.
#[derive(Args, Debug)]
pub struct ArchsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: ArchsFormat,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ArchsFormat {
    Table,
    Json,
}

#[derive(Serialize)]
struct Database {
    archs: &'static [Arch],
    cards: &'static [Card],
}

pub fn run(a: &ArchsArgs) -> Result<Outcome> {
    match a.format {
        ArchsFormat::Json => {
            let db = Database { archs: ARCHS, cards: CARDS };
            outln!("{}", serde_json::to_string_pretty(&db).map_err(|e| Error::Output(e.to_string()))?)?;
        }
        ArchsFormat::Table => {
            let kib = |b: u32| (b / 1024).to_string();
            let mut t = Builder::default();
            t.push_record([
                "arch",
                "family",
                "threads/block",
                "warps/SM",
                "blocks/SM",
                "regs/SM",
                "regs/block",
                "reg unit",
                "regs/thread",
                "smem/SM KiB",
                "smem/block KiB (opt-in)",
                "reserved B",
                "smem unit",
                "txn B",
            ]);
            for x in ARCHS {
                t.push_record([
                    x.sm_name(),
                    x.family.to_string(),
                    x.max_threads_per_block.to_string(),
                    x.max_warps_per_sm.to_string(),
                    x.max_blocks_per_sm.to_string(),
                    x.regs_per_sm.to_string(),
                    x.regs_per_block.to_string(),
                    format!("{} / {:?}", x.reg_alloc_unit, x.reg_alloc).to_lowercase(),
                    x.max_regs_per_thread.to_string(),
                    kib(x.smem_per_sm),
                    format!("{} ({})", kib(x.smem_per_block), kib(x.smem_per_block_optin)),
                    x.reserved_smem_per_block.to_string(),
                    x.smem_alloc_unit.to_string(),
                    x.global_txn_bytes.to_string(),
                ]);
            }
            outln!("{}", t.build().with(Style::psql()))?;
            let mut c = Builder::default();
            c.push_record(["card", "arch", "SMs", "clock MHz", "DRAM GB/s", "FP32 GFLOP/s", "memory GiB", "L2 KiB"]);
            for x in CARDS {
                c.push_record([
                    x.name.to_string(),
                    format!("sm_{}{}", x.cc.0, x.cc.1),
                    x.sms.to_string(),
                    x.clock_mhz.to_string(),
                    format!("{:.1}", x.mem_bandwidth_gbs),
                    format!("{:.0}", x.fp32_gflops),
                    format!("{}", x.mem_gib),
                    x.l2_kib.to_string(),
                ]);
            }
            outln!("\n{}", c.build().with(Style::psql()))?;
        }
    }
    Ok(Outcome::Ok)
}
