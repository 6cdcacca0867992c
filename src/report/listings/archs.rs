//! `archs`: the architecture database and the named cards.

use serde::Serialize;

use crate::error::Result;
use crate::model::arch::{ARCHS, Arch, CARDS, Card};
use crate::report::listing::{Cells, Listing, Part, to_json};

/// The whole database: every architecture's limits and every named card.
#[derive(Serialize)]
pub struct Database {
    /// Architectures, oldest first.
    pub archs: &'static [Arch],
    /// Named cards.
    pub cards: &'static [Card],
}

impl Default for Database {
    fn default() -> Self {
        Database { archs: ARCHS, cards: CARDS }
    }
}

impl Listing for Database {
    fn json(&self) -> Result<String> {
        to_json(self)
    }

    fn text(&self) -> Vec<Part> {
        let kib = |b: u32| (b / 1024).to_string();
        let mut t = Cells::new(&[
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
        for x in self.archs {
            t.push(vec![
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
        let mut c =
            Cells::new(&["card", "arch", "SMs", "clock MHz", "DRAM GB/s", "FP32 GFLOP/s", "memory GiB", "L2 KiB"]);
        for x in self.cards {
            c.push(vec![
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
        vec![Part::Table(t), Part::Line(String::new()), Part::Table(c)]
    }
}
