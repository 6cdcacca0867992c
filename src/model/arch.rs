//! The architecture database: the per-compute-capability limits that decide occupancy and validity, and
//! named cards with their SM counts, clocks and bandwidth, so every model runs without a GPU.
//!
//! Sources: the CUDA C++ Programming Guide, "Technical Specifications per Compute Capability" (threads,
//! warps, blocks, registers and shared memory per SM and per block; shared-memory carve-outs); NVIDIA's
//! `cuda_occupancy.h` (register allocation unit and granularity, sub-partitions, shared-memory allocation
//! unit, reserved shared memory per block); CCCL's `cuda/experimental/__device/arch_traits.cuh` (cross-check
//! of 6.0 to 9.0); the seeds (GT200/GF100/GK104 rows of SKE's Table 3, source 004). Card figures are the
//! vendors' datasheets (boost clocks, peak bandwidth, peak FP32 with FMA counted as 2 flops).

use serde::Serialize;

/// How the register file is handed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RegAlloc {
    /// Compute capability 1.x: per block, after rounding threads up to two warps.
    Block,
    /// 2.0 and newer: per warp.
    Warp,
}

/// The limits of one compute capability.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Arch {
    /// Compute capability (major, minor).
    pub cc: (u32, u32),
    /// Architecture family name.
    pub family: &'static str,
    /// Threads per block.
    pub max_threads_per_block: u32,
    /// Block extents.
    pub max_block_dim: [u32; 3],
    /// Grid extents.
    pub max_grid_dim: [u32; 3],
    /// Resident warps per SM.
    pub max_warps_per_sm: u32,
    /// Resident blocks per SM.
    pub max_blocks_per_sm: u32,
    /// 32-bit registers per SM.
    pub regs_per_sm: u32,
    /// 32-bit registers one block may use.
    pub regs_per_block: u32,
    /// Register allocation unit (registers; per warp, or per block on 1.x).
    pub reg_alloc_unit: u32,
    /// Per warp or per block.
    pub reg_alloc: RegAlloc,
    /// Registers per thread the compiler may use.
    pub max_regs_per_thread: u32,
    /// Register-file sub-partitions per SM (warps are spread over them).
    pub sub_partitions: u32,
    /// Largest shared-memory configuration per SM, bytes.
    pub smem_per_sm: u32,
    /// Shared memory a block gets without opting in, bytes.
    pub smem_per_block: u32,
    /// Shared memory a block may opt in to (dynamic), bytes.
    pub smem_per_block_optin: u32,
    /// Shared memory the driver reserves per block, bytes.
    pub reserved_smem_per_block: u32,
    /// Shared-memory allocation unit, bytes.
    pub smem_alloc_unit: u32,
    /// Shared-memory carve-outs per SM the hardware offers, KiB.
    pub smem_carveouts_kib: &'static [u32],
    /// Bytes per global-memory transaction of the memory model: 128-byte lines (L1-cached, 2.x/3.x, as
    /// nvprof counted gld_efficiency there) or 32-byte sectors (5.0 and newer).
    pub global_txn_bytes: u32,
    /// FP32 lanes per SM (P in SKE): FP32 add/multiply/multiply-add results per clock.
    pub fp32_lanes_per_sm: u32,
    /// 32-bit integer add/logic/compare results per clock per SM.
    pub int_lanes_per_sm: u32,
    /// 32-bit integer multiply(-add) results per clock per SM (Maxwell and Pascal emulate it with
    /// several XMADs: a third of their integer rate, rounded down).
    pub imul_lanes_per_sm: u32,
    /// Special-function (and conversion) results per clock per SM.
    pub sfu_lanes_per_sm: u32,
    /// Warp schedulers per SM, one instruction issued per clock each.
    pub schedulers_per_sm: u32,
    /// Load/store units per SM (L in SKE).
    pub ldst_units_per_sm: u32,
    /// DRAM latency of a load on an idle GPU, in SM cycles, for cards that were not calibrated
    /// (docs/MODEL.md says where each comes from).
    pub mem_latency_cycles: u32,
    /// SM cycles between two block launches on one SM (the block scheduler's rate), for cards that
    /// were not calibrated.
    pub block_issue_cycles: u32,
    /// SM cycles from a block's end to its successor's first instruction in the same slot, for cards
    /// that were not calibrated.
    pub block_gap_cycles: u32,
    /// Model constant: spread of warp completion times within a block (see `occupancy::achieved`).
    pub warp_spread: f64,
    /// Bytes per clock one SM's L1 / shared-memory data path delivers: 32 banks of 4 bytes (CUDA C++
    /// Programming Guide, "Shared Memory").
    pub l1_bytes_per_clk: u32,
    /// L2 bandwidth, bytes per clock for the whole chip, where NVIDIA documents it (Volta 2048, Ampere
    /// 5120: NVIDIA A100 Tensor Core GPU Architecture whitepaper); else assumed [`L2_OVER_DRAM`] times
    /// the DRAM copy bandwidth.
    ///
    /// [`L2_OVER_DRAM`]: super::time::L2_OVER_DRAM
    pub l2_bytes_per_clk: Option<u32>,
}

impl Arch {
    /// `sm_90` style name.
    pub fn sm_name(&self) -> String {
        format!("sm_{}{}", self.cc.0, self.cc.1)
    }

    /// Maximum resident threads per SM.
    pub fn max_threads_per_sm(&self) -> u32 {
        self.max_warps_per_sm * 32
    }

    /// Cycles before an arithmetic instruction's result can feed the next (a register dependency):
    /// the CUDA C++ Programming Guide ("Multiprocessor Level") gives about 22 for compute capability
    /// 2.x, 11 for 3.x and 4 for 7.x and newer; Maxwell and Pascal take 6 (Jia et al., "Dissecting the
    /// NVIDIA Volta GPU Architecture via Microbenchmarking", 2018).
    pub fn dependent_latency_cycles(&self) -> f64 {
        match self.cc.0 {
            0..=2 => 22.0,
            3 | 4 => 11.0,
            5 | 6 => 6.0,
            _ => 4.0,
        }
    }
}

impl Arch {
    /// Cycles of a dependent global load that hits L1, and of one that misses L1 and hits L2, on an
    /// idle SM, for cards that were not calibrated (calibration measures both with a pointer chase):
    /// Jia et al.'s pointer chases, "Dissecting the NVIDIA Volta GPU Architecture via
    /// Microbenchmarking" (2018: Kepler K80, Maxwell M60, Pascal P100, Volta V100) and "Dissecting the
    /// NVIDIA Turing T4 GPU through Microbenchmarking" (2019: T4), rounded; Fermi is given Kepler's,
    /// Ampere and newer Turing's.
    pub fn hit_latency_cycles(&self) -> (f64, f64) {
        match self.cc {
            (0..=3, _) => (35.0, 175.0),
            (5 | 6, _) => (82.0, 210.0),
            (7, 0..=4) => (28.0, 193.0),
            _ => (32.0, 188.0),
        }
    }
}

const KIB: u32 = 1024;
const GRID_OLD: [u32; 3] = [65_535, 65_535, 1];
const GRID_2X: [u32; 3] = [65_535, 65_535, 65_535];
const GRID_NEW: [u32; 3] = [i32::MAX as u32, 65_535, 65_535];
const BLOCK_NEW: [u32; 3] = [1024, 1024, 64];

/// A row with the defaults of compute capability 5.0 and newer, changed per arch below.
const fn modern(cc: (u32, u32), family: &'static str) -> Arch {
    Arch {
        cc,
        family,
        max_threads_per_block: 1024,
        max_block_dim: BLOCK_NEW,
        max_grid_dim: GRID_NEW,
        max_warps_per_sm: 64,
        max_blocks_per_sm: 32,
        regs_per_sm: 65_536,
        regs_per_block: 65_536,
        reg_alloc_unit: 256,
        reg_alloc: RegAlloc::Warp,
        max_regs_per_thread: 255,
        sub_partitions: 4,
        smem_per_sm: 64 * KIB,
        smem_per_block: 48 * KIB,
        smem_per_block_optin: 48 * KIB,
        reserved_smem_per_block: 0,
        smem_alloc_unit: 256,
        smem_carveouts_kib: &[],
        global_txn_bytes: 32,
        fp32_lanes_per_sm: 128,
        int_lanes_per_sm: 64,
        imul_lanes_per_sm: 64,
        sfu_lanes_per_sm: 16,
        schedulers_per_sm: 4,
        ldst_units_per_sm: 32,
        // Where no calibration exists (offline estimates): "about 800 cycles per request" (source 003);
        // 12.5 blocks/us/SM at 1980 MHz, the block scheduler's rate measured on an H200 (docs/MODEL.md);
        // 0.19 from ncu's achieved occupancy over the seed's shapes. A measured sweep replaces the first
        // two by the device's own calibration.
        mem_latency_cycles: LATENCY_CYCLES,
        block_issue_cycles: 158,
        block_gap_cycles: BLOCK_GAP_CYCLES,
        warp_spread: 0.19,
        l1_bytes_per_clk: 128,
        l2_bytes_per_clk: None,
    }
}

/// Maxwell's and Pascal's rates: 128 FP32 and integer lanes, 32 special-function ones, 32-bit integer
/// multiplies emulated by three XMADs.
const MAXWELL_PASCAL_RATES: Arch =
    Arch { int_lanes_per_sm: 128, imul_lanes_per_sm: 42, sfu_lanes_per_sm: 32, ..modern((5, 0), "Maxwell") };

impl Arch {
    /// This row for another compute capability and family (a template's rates kept).
    const fn with_cc(self, cc: (u32, u32), family: &'static str) -> Arch {
        Arch { cc, family, ..self }
    }
}

/// Memory latency, cycles: "about 800 cycles per request" (source 003), for every arch that was not
/// calibrated; and the warp spread fitted to the seed's Fermi achieved occupancy (source 001) for the
/// pre-Maxwell archs.
const LATENCY_CYCLES: u32 = 800;
const OLD_SPREAD: f64 = 0.15;
/// A block slot's turnover, cycles: from a block's end to its successor's first instruction, the
/// calibration's empty 1024-thread blocks on an H200 (179-185 ns a round at 1980 MHz, calibration
/// version 10; docs/MODEL.md section 32), assumed for every arch that was not calibrated.
const BLOCK_GAP_CYCLES: u32 = 360;

/// Every compute capability warpscope models, oldest first.
pub static ARCHS: &[Arch] = &[
    Arch {
        max_threads_per_block: 512,
        max_block_dim: [512, 512, 64],
        max_grid_dim: GRID_OLD,
        max_warps_per_sm: 32,
        max_blocks_per_sm: 8,
        regs_per_sm: 16_384,
        regs_per_block: 16_384,
        reg_alloc_unit: 512,
        reg_alloc: RegAlloc::Block,
        max_regs_per_thread: 124,
        sub_partitions: 1,
        smem_per_sm: 16 * KIB,
        smem_per_block: 16 * KIB,
        smem_per_block_optin: 16 * KIB,
        smem_alloc_unit: 512,
        global_txn_bytes: 128,
        fp32_lanes_per_sm: 8,
        int_lanes_per_sm: 8,
        imul_lanes_per_sm: 8,
        sfu_lanes_per_sm: 2,
        schedulers_per_sm: 1,
        ldst_units_per_sm: 8,
        mem_latency_cycles: LATENCY_CYCLES,
        warp_spread: OLD_SPREAD,
        ..modern((1, 3), "Tesla (GT200)")
    },
    Arch {
        max_grid_dim: GRID_2X,
        max_warps_per_sm: 48,
        max_blocks_per_sm: 8,
        regs_per_sm: 32_768,
        regs_per_block: 32_768,
        reg_alloc_unit: 64,
        max_regs_per_thread: 63,
        sub_partitions: 2,
        smem_per_sm: 48 * KIB,
        smem_alloc_unit: 128,
        smem_carveouts_kib: &[16, 48],
        global_txn_bytes: 128,
        fp32_lanes_per_sm: 32,
        int_lanes_per_sm: 32,
        imul_lanes_per_sm: 16,
        sfu_lanes_per_sm: 4,
        schedulers_per_sm: 2,
        ldst_units_per_sm: 16,
        mem_latency_cycles: LATENCY_CYCLES,
        warp_spread: OLD_SPREAD,
        ..modern((2, 0), "Fermi")
    },
    Arch {
        max_grid_dim: GRID_2X,
        max_warps_per_sm: 48,
        max_blocks_per_sm: 8,
        regs_per_sm: 32_768,
        regs_per_block: 32_768,
        reg_alloc_unit: 64,
        max_regs_per_thread: 63,
        sub_partitions: 2,
        smem_per_sm: 48 * KIB,
        smem_alloc_unit: 128,
        smem_carveouts_kib: &[16, 48],
        global_txn_bytes: 128,
        fp32_lanes_per_sm: 48,
        int_lanes_per_sm: 48,
        imul_lanes_per_sm: 16,
        sfu_lanes_per_sm: 8,
        schedulers_per_sm: 2,
        ldst_units_per_sm: 16,
        mem_latency_cycles: LATENCY_CYCLES,
        warp_spread: OLD_SPREAD,
        ..modern((2, 1), "Fermi")
    },
    Arch {
        max_blocks_per_sm: 16,
        max_regs_per_thread: 63,
        smem_per_sm: 48 * KIB,
        smem_carveouts_kib: &[16, 32, 48],
        global_txn_bytes: 128,
        fp32_lanes_per_sm: 192,
        int_lanes_per_sm: 160,
        imul_lanes_per_sm: 32,
        sfu_lanes_per_sm: 32,
        mem_latency_cycles: LATENCY_CYCLES,
        warp_spread: OLD_SPREAD,
        ..modern((3, 0), "Kepler")
    },
    Arch {
        max_blocks_per_sm: 16,
        smem_per_sm: 48 * KIB,
        smem_carveouts_kib: &[16, 32, 48],
        global_txn_bytes: 128,
        fp32_lanes_per_sm: 192,
        int_lanes_per_sm: 160,
        imul_lanes_per_sm: 32,
        sfu_lanes_per_sm: 32,
        mem_latency_cycles: LATENCY_CYCLES,
        warp_spread: OLD_SPREAD,
        ..modern((3, 5), "Kepler")
    },
    Arch {
        max_blocks_per_sm: 16,
        regs_per_sm: 131_072,
        smem_per_sm: 112 * KIB,
        smem_carveouts_kib: &[16, 32, 48, 80, 96, 112],
        global_txn_bytes: 128,
        fp32_lanes_per_sm: 192,
        int_lanes_per_sm: 160,
        imul_lanes_per_sm: 32,
        sfu_lanes_per_sm: 32,
        mem_latency_cycles: LATENCY_CYCLES,
        warp_spread: OLD_SPREAD,
        ..modern((3, 7), "Kepler")
    },
    Arch { smem_per_sm: 64 * KIB, ..MAXWELL_PASCAL_RATES.with_cc((5, 0), "Maxwell") },
    Arch { smem_per_sm: 96 * KIB, ..MAXWELL_PASCAL_RATES.with_cc((5, 2), "Maxwell") },
    Arch {
        smem_per_sm: 64 * KIB,
        sub_partitions: 2,
        fp32_lanes_per_sm: 64,
        int_lanes_per_sm: 64,
        imul_lanes_per_sm: 21,
        sfu_lanes_per_sm: 16,
        schedulers_per_sm: 2,
        ..MAXWELL_PASCAL_RATES.with_cc((6, 0), "Pascal")
    },
    Arch { smem_per_sm: 96 * KIB, ..MAXWELL_PASCAL_RATES.with_cc((6, 1), "Pascal") },
    Arch {
        smem_per_sm: 96 * KIB,
        smem_per_block_optin: 96 * KIB,
        smem_carveouts_kib: &[0, 8, 16, 32, 64, 96],
        fp32_lanes_per_sm: 64,
        l2_bytes_per_clk: Some(2048),
        ..modern((7, 0), "Volta")
    },
    Arch {
        max_warps_per_sm: 32,
        max_blocks_per_sm: 16,
        smem_per_sm: 64 * KIB,
        smem_per_block_optin: 64 * KIB,
        smem_carveouts_kib: &[32, 64],
        fp32_lanes_per_sm: 64,
        ..modern((7, 5), "Turing")
    },
    Arch {
        smem_per_sm: 164 * KIB,
        smem_per_block_optin: 163 * KIB,
        reserved_smem_per_block: KIB,
        smem_alloc_unit: 128,
        smem_carveouts_kib: &[0, 8, 16, 32, 64, 100, 132, 164],
        fp32_lanes_per_sm: 64,
        l2_bytes_per_clk: Some(5120),
        ..modern((8, 0), "Ampere")
    },
    Arch {
        max_warps_per_sm: 48,
        max_blocks_per_sm: 16,
        smem_per_sm: 100 * KIB,
        smem_per_block_optin: 99 * KIB,
        reserved_smem_per_block: KIB,
        smem_alloc_unit: 128,
        smem_carveouts_kib: &[0, 8, 16, 32, 64, 100],
        ..modern((8, 6), "Ampere")
    },
    Arch {
        max_warps_per_sm: 48,
        max_blocks_per_sm: 16,
        smem_per_sm: 164 * KIB,
        smem_per_block_optin: 163 * KIB,
        reserved_smem_per_block: KIB,
        smem_alloc_unit: 128,
        smem_carveouts_kib: &[0, 8, 16, 32, 64, 100, 132, 164],
        ..modern((8, 7), "Ampere")
    },
    Arch {
        max_warps_per_sm: 48,
        max_blocks_per_sm: 24,
        smem_per_sm: 100 * KIB,
        smem_per_block_optin: 99 * KIB,
        reserved_smem_per_block: KIB,
        smem_alloc_unit: 128,
        smem_carveouts_kib: &[0, 8, 16, 32, 64, 100],
        ..modern((8, 9), "Ada")
    },
    Arch {
        smem_per_sm: 228 * KIB,
        smem_per_block_optin: 227 * KIB,
        reserved_smem_per_block: KIB,
        smem_alloc_unit: 128,
        smem_carveouts_kib: &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228],
        ..modern((9, 0), "Hopper")
    },
    Arch {
        smem_per_sm: 228 * KIB,
        smem_per_block_optin: 227 * KIB,
        reserved_smem_per_block: KIB,
        smem_alloc_unit: 128,
        smem_carveouts_kib: &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228],
        ..modern((10, 0), "Blackwell")
    },
    Arch {
        max_warps_per_sm: 48,
        smem_per_sm: 128 * KIB,
        smem_per_block_optin: 99 * KIB,
        reserved_smem_per_block: KIB,
        smem_alloc_unit: 128,
        smem_carveouts_kib: &[0, 8, 16, 32, 64, 100, 128],
        ..modern((12, 0), "Blackwell (consumer)")
    },
];

/// A named card: an arch plus the figures that size the time model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Card {
    /// Marketing name.
    pub name: &'static str,
    /// Other names it goes by (lowercase match).
    pub aliases: &'static [&'static str],
    /// Compute capability.
    pub cc: (u32, u32),
    /// Streaming multiprocessors.
    pub sms: u32,
    /// SM (shader) clock in MHz, boost where the card has one.
    pub clock_mhz: u32,
    /// Peak DRAM bandwidth, GB/s.
    pub mem_bandwidth_gbs: f64,
    /// Peak FP32 rate, GFLOP/s (FMA = 2).
    pub fp32_gflops: f64,
    /// Device memory, GiB.
    pub mem_gib: f64,
    /// L2 cache, KiB.
    pub l2_kib: u32,
}

/// Named cards, oldest first.
pub static CARDS: &[Card] = &[
    Card {
        name: "GTX 280",
        aliases: &["gtx280", "gt200"],
        cc: (1, 3),
        sms: 30,
        clock_mhz: 1296,
        mem_bandwidth_gbs: 141.7,
        fp32_gflops: 622.1,
        mem_gib: 1.0,
        l2_kib: 0,
    },
    Card {
        name: "GTX 560 Ti",
        aliases: &["gtx560ti", "gf114"],
        cc: (2, 1),
        sms: 8,
        clock_mhz: 1645,
        mem_bandwidth_gbs: 128.3,
        fp32_gflops: 1263.4,
        mem_gib: 1.0,
        l2_kib: 512,
    },
    Card {
        name: "GTX 480",
        aliases: &["gtx480", "gf100"],
        cc: (2, 0),
        sms: 15,
        clock_mhz: 1401,
        mem_bandwidth_gbs: 177.4,
        fp32_gflops: 1345.0,
        mem_gib: 1.5,
        l2_kib: 768,
    },
    Card {
        name: "Tesla M2070",
        aliases: &["m2070", "c2070", "tesla c2070"],
        cc: (2, 0),
        sms: 14,
        clock_mhz: 1150,
        mem_bandwidth_gbs: 150.3,
        fp32_gflops: 1030.0,
        mem_gib: 6.0,
        l2_kib: 768,
    },
    Card {
        name: "GTX 670",
        aliases: &["gtx670", "gk104"],
        cc: (3, 0),
        sms: 7,
        clock_mhz: 980,
        mem_bandwidth_gbs: 192.2,
        fp32_gflops: 2634.0,
        mem_gib: 2.0,
        l2_kib: 512,
    },
    Card {
        name: "GTX 680",
        aliases: &["gtx680"],
        cc: (3, 0),
        sms: 8,
        clock_mhz: 1058,
        mem_bandwidth_gbs: 192.2,
        fp32_gflops: 3250.0,
        mem_gib: 2.0,
        l2_kib: 512,
    },
    Card {
        name: "Tesla K20",
        aliases: &["k20", "k20c", "tesla k20c"],
        cc: (3, 5),
        sms: 13,
        clock_mhz: 706,
        mem_bandwidth_gbs: 208.0,
        fp32_gflops: 3520.0,
        mem_gib: 5.0,
        l2_kib: 1280,
    },
    Card {
        name: "Tesla K80",
        aliases: &["k80"],
        cc: (3, 7),
        sms: 13,
        clock_mhz: 875,
        mem_bandwidth_gbs: 240.6,
        fp32_gflops: 4368.0,
        mem_gib: 12.0,
        l2_kib: 1536,
    },
    Card {
        name: "GTX 750 Ti",
        aliases: &["gtx750ti", "gm107"],
        cc: (5, 0),
        sms: 5,
        clock_mhz: 1085,
        mem_bandwidth_gbs: 86.4,
        fp32_gflops: 1389.0,
        mem_gib: 2.0,
        l2_kib: 2048,
    },
    Card {
        name: "GTX 980",
        aliases: &["gtx980", "gm204"],
        cc: (5, 2),
        sms: 16,
        clock_mhz: 1216,
        mem_bandwidth_gbs: 224.4,
        fp32_gflops: 4981.0,
        mem_gib: 4.0,
        l2_kib: 2048,
    },
    Card {
        name: "Tesla P100",
        aliases: &["p100", "p100-sxm2"],
        cc: (6, 0),
        sms: 56,
        clock_mhz: 1480,
        mem_bandwidth_gbs: 732.2,
        fp32_gflops: 10_600.0,
        mem_gib: 16.0,
        l2_kib: 4096,
    },
    Card {
        name: "GTX 1080",
        aliases: &["gtx1080", "gp104"],
        cc: (6, 1),
        sms: 20,
        clock_mhz: 1733,
        mem_bandwidth_gbs: 320.3,
        fp32_gflops: 8873.0,
        mem_gib: 8.0,
        l2_kib: 2048,
    },
    Card {
        name: "Tesla V100",
        aliases: &["v100", "v100-sxm2"],
        cc: (7, 0),
        sms: 80,
        clock_mhz: 1530,
        mem_bandwidth_gbs: 900.0,
        fp32_gflops: 15_700.0,
        mem_gib: 16.0,
        l2_kib: 6144,
    },
    Card {
        name: "Tesla T4",
        aliases: &["t4"],
        cc: (7, 5),
        sms: 40,
        clock_mhz: 1590,
        mem_bandwidth_gbs: 320.0,
        fp32_gflops: 8_100.0,
        mem_gib: 16.0,
        l2_kib: 4096,
    },
    Card {
        name: "A100",
        aliases: &["a100-sxm4-40gb", "a100 40gb"],
        cc: (8, 0),
        sms: 108,
        clock_mhz: 1410,
        mem_bandwidth_gbs: 1555.0,
        fp32_gflops: 19_500.0,
        mem_gib: 40.0,
        l2_kib: 40_960,
    },
    Card {
        name: "RTX 3090",
        aliases: &["rtx3090", "geforce rtx 3090"],
        cc: (8, 6),
        sms: 82,
        clock_mhz: 1695,
        mem_bandwidth_gbs: 936.2,
        fp32_gflops: 35_580.0,
        mem_gib: 24.0,
        l2_kib: 6144,
    },
    Card {
        name: "Jetson AGX Orin",
        aliases: &["orin", "agx orin"],
        cc: (8, 7),
        sms: 16,
        clock_mhz: 1300,
        mem_bandwidth_gbs: 204.8,
        fp32_gflops: 5325.0,
        mem_gib: 64.0,
        l2_kib: 4096,
    },
    Card {
        name: "L4",
        aliases: &["nvidia l4"],
        cc: (8, 9),
        sms: 58,
        clock_mhz: 2040,
        mem_bandwidth_gbs: 300.0,
        fp32_gflops: 30_300.0,
        mem_gib: 24.0,
        l2_kib: 49_152,
    },
    Card {
        name: "H100",
        aliases: &["h100-sxm", "h100 sxm5", "nvidia h100 80gb hbm3"],
        cc: (9, 0),
        sms: 132,
        clock_mhz: 1980,
        mem_bandwidth_gbs: 3350.0,
        fp32_gflops: 66_900.0,
        mem_gib: 80.0,
        l2_kib: 51_200,
    },
    Card {
        name: "H200",
        aliases: &["h200-sxm", "nvidia h200"],
        cc: (9, 0),
        sms: 132,
        clock_mhz: 1980,
        mem_bandwidth_gbs: 4800.0,
        fp32_gflops: 66_900.0,
        mem_gib: 141.0,
        l2_kib: 51_200,
    },
    Card {
        name: "B200",
        aliases: &["nvidia b200"],
        cc: (10, 0),
        sms: 148,
        clock_mhz: 1965,
        mem_bandwidth_gbs: 8000.0,
        fp32_gflops: 80_000.0,
        mem_gib: 180.0,
        l2_kib: 129024,
    },
    Card {
        name: "RTX 5090",
        aliases: &["rtx5090", "geforce rtx 5090"],
        cc: (12, 0),
        sms: 170,
        clock_mhz: 2407,
        mem_bandwidth_gbs: 1792.0,
        fp32_gflops: 104_800.0,
        mem_gib: 32.0,
        l2_kib: 98304,
    },
];

/// The first card listed for an arch: what `--arch` alone models.
pub fn default_card(cc: (u32, u32)) -> Option<&'static Card> {
    CARDS.iter().find(|c| c.cc == cc)
}

/// The arch of a compute capability.
pub fn arch(cc: (u32, u32)) -> Option<&'static Arch> {
    ARCHS.iter().find(|a| a.cc == cc)
}

/// The arch of `cc`, or the newest one below it (a device newer than the database is modelled as the
/// newest arch it knows of the same or an older generation).
pub fn nearest(cc: (u32, u32)) -> &'static Arch {
    arch(cc).unwrap_or_else(|| ARCHS.iter().rev().find(|a| a.cc <= cc).unwrap_or(&ARCHS[0]))
}

/// Parses `sm_90`, `sm90`, `9.0`, `90` or `compute_90` into an arch of the database.
pub fn parse_arch(s: &str) -> Result<&'static Arch, String> {
    let t = s.trim().to_ascii_lowercase();
    let t = t.trim_start_matches("compute_").trim_start_matches("sm_").trim_start_matches("sm");
    let cc = if let Some((maj, min)) = t.split_once('.') {
        maj.parse().ok().zip(min.parse().ok())
    } else if t.len() >= 2 && t.chars().all(|c| c.is_ascii_digit()) {
        let (maj, min) = t.split_at(t.len() - 1);
        maj.parse().ok().zip(min.parse().ok())
    } else {
        None
    };
    let known = || ARCHS.iter().map(|a| a.sm_name()).collect::<Vec<_>>().join(", ");
    match cc {
        Some(cc) => arch(cc).ok_or_else(|| format!("unknown arch '{s}' (known: {})", known())),
        None => Err(format!("invalid arch '{s}': expected e.g. sm_90 or 9.0 (known: {})", known())),
    }
}

/// The card named `s` (case and spaces ignored; aliases accepted).
pub fn find_card(s: &str) -> Result<&'static Card, String> {
    let norm = |x: &str| x.to_ascii_lowercase().replace([' ', '-', '_'], "");
    let want = norm(s);
    CARDS.iter().find(|c| norm(c.name) == want || c.aliases.iter().any(|a| norm(a) == want)).ok_or_else(|| {
        format!("unknown card '{s}' (known: {})", CARDS.iter().map(|c| c.name).collect::<Vec<_>>().join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_issue_arch_is_there() {
        for cc in [
            (2, 0),
            (2, 1),
            (3, 0),
            (3, 5),
            (3, 7),
            (5, 0),
            (5, 2),
            (6, 0),
            (6, 1),
            (7, 0),
            (7, 5),
            (8, 0),
            (8, 6),
            (8, 7),
            (8, 9),
            (9, 0),
            (10, 0),
            (12, 0),
        ] {
            assert!(arch(cc).is_some(), "{cc:?}");
        }
    }

    #[test]
    fn ske_table3_rows() {
        // SKE (source 004) Table 3: warps/SM, blocks/SM, registers/SM, threads/block, threads/SM.
        for (cc, warps, blocks, regs, tpb, tpsm) in
            [((1, 3), 32, 8, 16384, 512, 1024), ((2, 0), 48, 8, 32768, 1024, 1536), ((3, 0), 64, 16, 65536, 1024, 2048)]
        {
            let a = arch(cc).unwrap();
            assert_eq!(
                (
                    a.max_warps_per_sm,
                    a.max_blocks_per_sm,
                    a.regs_per_sm,
                    a.max_threads_per_block,
                    a.max_threads_per_sm()
                ),
                (warps, blocks, regs, tpb, tpsm),
                "{cc:?}"
            );
        }
    }

    #[test]
    fn cross_check_against_cccl_arch_traits() {
        for (cc, smem, blocks, threads, reserved, optin) in [
            ((6, 0), 64, 32, 2048, 0, 48),
            ((7, 0), 96, 32, 2048, 0, 96),
            ((7, 5), 64, 16, 1024, 0, 64),
            ((8, 0), 164, 32, 2048, 1, 163),
            ((8, 6), 100, 16, 1536, 1, 99),
            ((8, 9), 100, 24, 1536, 1, 99),
            ((9, 0), 228, 32, 2048, 1, 227),
        ] {
            let a = arch(cc).unwrap();
            assert_eq!(a.smem_per_sm, smem * 1024, "{cc:?}");
            assert_eq!(a.max_blocks_per_sm, blocks, "{cc:?}");
            assert_eq!(a.max_threads_per_sm(), threads, "{cc:?}");
            assert_eq!(a.reserved_smem_per_block, reserved * 1024, "{cc:?}");
            assert_eq!(a.smem_per_block_optin, optin * 1024, "{cc:?}");
        }
    }

    #[test]
    fn arch_names_parse() {
        for s in ["sm_90", "SM90", "9.0", "90", "compute_90"] {
            assert_eq!(parse_arch(s).unwrap().cc, (9, 0), "{s}");
        }
        assert_eq!(parse_arch("sm_20").unwrap().cc, (2, 0));
        assert_eq!(parse_arch("sm_120").unwrap().cc, (12, 0));
        assert!(parse_arch("sm_99").unwrap_err().contains("unknown arch"));
        assert!(parse_arch("banana").unwrap_err().contains("invalid arch"));
    }

    #[test]
    fn cards_resolve_by_alias() {
        assert_eq!(find_card("GTX 480").unwrap().cc, (2, 0));
        assert_eq!(find_card("gtx480").unwrap().sms, 15);
        assert_eq!(find_card("m2070").unwrap().name, "Tesla M2070");
        assert_eq!(find_card("NVIDIA H200").unwrap().name, "H200");
        assert!(find_card("Voodoo 2").is_err());
        for c in CARDS {
            assert!(arch(c.cc).is_some(), "{} has no arch row", c.name);
        }
        for a in ARCHS {
            assert!(default_card(a.cc).is_some(), "{} has no card to model it with", a.sm_name());
        }
        for name in [
            "GTX 280", "GTX 480", "M2070", "GTX 670", "GTX 680", "K20", "V100", "T4", "A100", "RTX 3090", "L4", "H100",
            "H200",
        ] {
            assert!(find_card(name).is_ok(), "{name}");
        }
    }
}
