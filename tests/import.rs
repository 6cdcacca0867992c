//! The importers on real profiler output and `compare` on top of them. `tests/fixtures/profilers/`
//! holds output committed to public repositories (README.md there names each file's origin); every
//! expected value below was read by hand from the raw file, the line it comes from quoted beside it.
//! The older fixtures in `tests/fixtures/` are the H200 runs of scripts/ncu-crosscheck.sh and
//! nvprof-format files with the seed's figures.

mod common;

use std::path::{Path, PathBuf};

use common::{SMALL, mock, stdout};
use predicates::prelude::*;
use warpscope::compare::{self, Matched, Pick};
use warpscope::import::{self, Format};
use warpscope::record::{Record, Report, Source, Status};
use warpscope::spec::Dim3;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn real(name: &str) -> PathBuf {
    fixture(&format!("profilers/{name}"))
}

fn read(path: &Path) -> (Format, Report) {
    import::read_file(path, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn value(r: &Record, name: &str) -> Option<f64> {
    r.metrics.iter().find(|m| m.name == name).map(|m| m.value)
}

fn unit<'a>(r: &'a Record, name: &str) -> &'a str {
    r.metrics.iter().find(|m| m.name == name).map_or("", |m| m.unit.as_str())
}

/// `value` of `name` equals `want` to 1e-12 relative (conversions round once).
#[track_caller]
fn assert_value(r: &Record, name: &str, want: f64, want_unit: &str) {
    let got = value(r, name).unwrap_or_else(|| panic!("{} has no {name}: {:?}", r.kernel, r.metrics));
    assert!((got - want).abs() <= 1e-12 * want.abs().max(1e-300), "{name}: {got} != {want}");
    assert_eq!(unit(r, name), want_unit, "{name}");
}

fn d(x: u32, y: u32, z: u32) -> Option<Dim3> {
    Some(Dim3::new(x, y, z))
}

// ---- Nsight Compute ----

#[test]
fn ncu_csv_2020_layout_with_the_launch_in_launch_statistics() {
    // XPlacer (LLNL), V100, CUDA 10.2's Nsight Compute, May 2020: `Kernel Time` column, no Block Size
    // or Grid Size columns, program output between the rows.
    let (format, rep) = read(&real("ncu-csv-2020-v100-bfs.log"));
    assert_eq!(format, Format::NcuCsv);
    assert_eq!(rep.records.len(), 13, "IDs 0 to 12");
    assert_eq!(rep.device.compute_capability, None, "this layout has no CC column");
    assert_eq!(rep.device.name, "");
    let (k2, k) = (&rep.records[0], &rep.records[1]);
    assert_eq!(k2.kernel, "Kernel2");
    assert_eq!(k2.signature.as_deref(), Some("Kernel2(bool*,bool*,bool*,bool*,int)"));
    assert_eq!(k.kernel, "Kernel");
    assert_eq!((k.grid, k.block), (None, None), "no shape: only counts");
    assert_eq!((k.invocation, rep.records[3].invocation), (Some(0), Some(1)));
    assert!(k.metrics.iter().all(|m| m.source == Source::Imported));
    // "1",...,"Launch Statistics","Block Size","","512"  /  "Grid Size","","8"
    assert_value(k, "block_size", 512.0, "thread");
    assert_value(k, "grid_size", 8.0, "block");
    // "1",...,"GPU Speed Of Light","Duration","nsecond","9344"
    assert_value(k, "duration", 0.009344, "ms");
    // "1",...,"Occupancy","Achieved Occupancy","%","10.84"
    assert_value(k, "achieved_occupancy", 0.1084, "ratio");
    // "1",...,"GPU Speed Of Light","SOL FB","%","1.31"
    assert_value(k, "SOL FB", 1.31, "%");
    // "0",...,"GPU Speed Of Light","Duration","nsecond","3200"
    assert_value(k2, "duration", 0.0032, "ms");
}

#[test]
fn ncu_csv_2023_layout_rows_shorter_than_the_header() {
    // Apache-2.0 repository, A100, March 2023: Rule columns in the header, metric rows with 13 of its
    // 15 fields, a rule row, and the program's output (an unbalanced line included) above the header.
    let (format, rep) = read(&real("ncu-csv-2023-a100-conv2d.csv"));
    assert_eq!(format, Format::NcuCsv);
    assert_eq!(rep.records.len(), 1);
    let r = &rep.records[0];
    assert_eq!(r.kernel, "implicit_convolve_sgemm");
    assert!(r.signature.as_deref().unwrap().starts_with("void implicit_convolve_sgemm<float, float, (int)128,"));
    // "Launch Statistics","Block Size","","64" / "Grid Size","","64"
    assert_value(r, "block_size", 64.0, "thread");
    assert_value(r, "grid_size", 64.0, "block");
    // "Command line profiler metrics","dram__bytes.sum","byte","66,048"
    assert_value(r, "dram__bytes.sum", 66_048.0, "byte");
    // "Command line profiler metrics","sm__cycles_elapsed.avg.per_second","cycle/second","959,621,505.52"
    assert_value(r, "sm__cycles_elapsed.avg.per_second", 959_621_505.52, "cycle/second");
    // "Occupancy","Theoretical Occupancy","%","37.50" / "Achieved Occupancy","%","3.08"
    assert_value(r, "theoretical_occupancy", 0.375, "ratio");
    assert_value(r, "achieved_occupancy", 0.0308, "ratio");
    // "Launch Statistics","Registers Per Thread","register/thread","80"
    assert_value(r, "registers_per_thread", 80.0, "register/thread");
}

#[test]
fn ncu_csv_2025_layout_with_trailing_commas_and_speedups() {
    // microsoft/superbenchmark, Nsight Compute 2025 on a CC 10.0 GPU: Block Size, Grid Size, Device,
    // CC and Estimated Speedup columns; every metric row ends in a comma; base units (`ns`, `hz`).
    let (format, rep) = read(&real("ncu-csv-2025-cc100-cublaslt.log"));
    assert_eq!(format, Format::NcuCsv);
    assert_eq!(rep.records.len(), 1);
    assert_eq!(rep.device.compute_capability.as_deref(), Some("10.0"));
    // "Launch Statistics","# SMs","SM","152"
    assert_eq!(rep.device.sms, Some(152));
    let r = &rep.records[0];
    assert_eq!(
        r.kernel,
        "cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16_64x256x128_1x1x1_0_tnn_align4_1sm_bias_f16_relu_aux_scalemax"
    );
    assert_eq!(r.signature, None, "ncu printed the bare name");
    // ...,"(384, 1, 1)","(9, 32, 1)","0","10.0",...
    assert_eq!((r.block, r.grid), (d(384, 1, 1), d(9, 32, 1)));
    assert_eq!(r.device, Some(0));
    // "GPU Speed Of Light Throughput","Duration","ns","406240",
    assert_value(r, "duration", 0.40624, "ms");
    // "GPU Speed Of Light Throughput","DRAM Frequency","hz","3995313115.40",
    assert_value(r, "DRAM Frequency", 3_995_313_115.40, "hz");
    // "Occupancy","Achieved Occupancy","%","15.53",
    assert_value(r, "achieved_occupancy", 0.1553, "ratio");
    // "GPU Speed Of Light Throughput","DRAM Throughput","%","0.74",
    assert_value(r, "DRAM Throughput", 0.74, "%");
}

#[test]
fn ncu_raw_page_with_units_row_and_device_attributes() {
    // romnn/microgpusim (MIT), GTX 1080, Nsight Compute 2019-era counter names, October 2023.
    let (format, rep) = read(&real("ncu-raw-gtx1080-vectoradd.txt"));
    assert_eq!(format, Format::NcuRaw);
    assert_eq!(rep.records.len(), 3);
    let dev = &rep.device;
    // device__attribute_display_name "NVIDIA GeForce GTX 1080"; _compute_capability_major "6.00",
    // _minor "1.00"; _multiprocessor_count "20.00"; _l2_cache_size "2,097,152.00"; _clock_rate
    // "1,759,000.00" (kHz)
    assert_eq!(dev.name, "NVIDIA GeForce GTX 1080");
    assert_eq!(dev.compute_capability.as_deref(), Some("6.1"));
    assert_eq!((dev.sms, dev.l2_bytes, dev.sm_clock_mhz), (Some(20), Some(2_097_152), Some(1759)));
    let r = &rep.records[0];
    assert_eq!(r.kernel, "vecAdd");
    // launch__block_size "1,024.00", launch__grid_size "1.00"
    assert_value(r, "block_size", 1024.0, "thread");
    assert_value(r, "grid_size", 1.0, "block");
    // gpu__time_duration (unit row: nsecond) "2,720.00"
    assert_value(r, "duration", 0.00272, "ms");
    // dram__read_bytes (byte): "7,552.00", "3,264.00", "2,176.00" in the three rows
    let reads: Vec<f64> = rep.records.iter().map(|r| value(r, "dram__read_bytes").unwrap()).collect();
    assert_eq!(reads, [7552.0, 3264.0, 2176.0]);
    // sm__maximum_warps_per_active_cycle_pct (%): "100.00"
    assert_value(r, "theoretical_occupancy", 1.0, "ratio");
    // Per-instance values ("32.00; 32.00; ...") are not one number; device attributes are not metrics.
    assert!(value(r, "inst_executed").is_none());
    assert!(r.metrics.iter().all(|m| !m.name.starts_with("device__")));
}

#[test]
fn ncu_metrics_text_with_cutlass_templates() {
    // medav/gpu-pipes (Apache-2.0), A100 (CC 8.0): `ncu --metrics` text, three cutlass launches whose
    // names hold `(int)128`-style arguments and a parameter `(T1::Params)`.
    let (format, rep) = read(&real("ncu-metrics-text-a100-cutlass.txt"));
    assert_eq!(format, Format::NcuText);
    assert_eq!(rep.records.len(), 3);
    assert_eq!(rep.device.compute_capability.as_deref(), Some("8.0"));
    for r in &rep.records {
        assert_eq!(r.kernel, "Kernel");
        assert!(r.signature.as_deref().unwrap().starts_with("void cutlass::Kernel<cutlass::gemm::kernel::Gemm<"));
        // ...>>(T1::Params) (10240, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 8.0
        assert_eq!((r.grid, r.block), (d(10240, 1, 1), d(256, 1, 1)));
    }
    // The first two launches share a signature (LinearCombinationRelu), the third differs.
    let inv: Vec<_> = rep.records.iter().map(|r| r.invocation).collect();
    assert_eq!(inv, [Some(0), Some(1), Some(0)]);
    let (a, b) = (&rep.records[0], &rep.records[1]);
    // gpu__time_duration.sum    usecond    659.26  (first launch) / 661.44 (second)
    assert_value(a, "duration", 0.65926, "ms");
    assert_value(b, "duration", 0.66144, "ms");
    // gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed    %    48.98
    assert_value(a, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 48.98, "%");
    // sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed    %    35.70
    assert_value(a, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", 35.70, "%");
}

#[test]
fn ncu_text_old_details_layout() {
    // RTX 3070, June 2022 (excerpt of an unlicensed file): `name, date, Context 1, Stream 7`, tables
    // without column titles, the launch only in Launch Statistics.
    let (format, rep) = read(&real("ncu-text-details-2022-rtx3070.txt"));
    assert_eq!(format, Format::NcuText);
    assert_eq!(rep.records.len(), 1);
    let r = &rep.records[0];
    assert_eq!(r.kernel, "row_sums");
    assert_eq!(r.signature.as_deref(), Some("row_sums(const float *, float *, unsigned long)"));
    assert_eq!(r.grid, None);
    // Block Size  256  /  Grid Size  16,384
    assert_value(r, "block_size", 256.0, "thread");
    assert_value(r, "grid_size", 16_384.0, "block");
    // Duration    msecond    3.04
    assert_value(r, "duration", 3.04, "ms");
    // DRAM Frequency    cycle/nsecond    5.98
    assert_value(r, "DRAM Frequency", 5.98e9, "cycle/second");
    // SM Active Cycles    cycle    2,361,156.67
    assert_value(r, "SM Active Cycles", 2_361_156.67, "cycle");
    // Achieved Occupancy    %    98.87
    assert_value(r, "achieved_occupancy", 0.9887, "ratio");
}

#[test]
fn ncu_text_failed_launch_is_a_failed_record() {
    // Nsight Compute 2023.2 on CC 8.9 (excerpt): `==ERROR== LaunchFailed`, every value `(!) nan`,
    // the launch printed as (0, 0, 0)x(0, 0, 0).
    let (_, rep) = read(&real("ncu-text-failed-launch-rtx40.txt"));
    let r = &rep.records[0];
    assert_eq!(r.kernel, "render");
    assert_eq!(r.status, Status::Failed);
    assert!(r.reason.as_deref().unwrap().contains("LaunchFailed"), "{:?}", r.reason);
    assert_eq!((r.grid, r.block), (None, None), "a 0x0x0 shape is no shape");
    assert!(r.metrics.is_empty(), "nan is not a value");
    assert_eq!(rep.device.compute_capability.as_deref(), Some("8.9"));
}

#[test]
fn ncu_per_kernel_summary_is_a_summary_record_of_averages() {
    // `--print-summary per-kernel` on CC 8.9 (excerpt of an unlicensed file): one line per kernel
    // and shape with its invocations, tables of Minimum / Maximum / Average.
    let (format, rep) = read(&real("ncu-summary-per-kernel-cc89-heat.txt"));
    assert_eq!(format, Format::NcuText);
    assert_eq!(rep.records.len(), 1);
    let r = &rep.records[0];
    // add_heat_kernel_1d(float *, int) (1, 1, 1)x(256, 1, 1), Device 0, CC 8.9, Invocations 14
    assert_eq!(r.kernel, "add_heat_kernel_1d");
    assert_eq!(r.signature.as_deref(), Some("add_heat_kernel_1d(float *, int)"));
    assert_eq!((r.grid, r.block), (d(1, 1, 1), d(256, 1, 1)));
    assert_eq!((r.summary_of, r.invocation), (Some(14), None));
    assert_eq!(r.status, Status::Ok);
    // Duration    us    1.70    1.98    1.75
    assert_value(r, "duration", 0.00175, "ms");
    assert_value(r, "duration_min", 0.0017, "ms");
    assert_value(r, "duration_max", 0.00198, "ms");
    // Achieved Occupancy    %    10.25    11.61    10.80
    assert_value(r, "achieved_occupancy", 0.108, "ratio");
    // Elapsed Cycles    cycle    3,805.00 4,478.00 3,939.50
    assert_value(r, "Elapsed Cycles", 3_939.5, "cycle");
    // Shared Memory Configuration Size    Kbyte    16.38    16.38    16.38
    assert_value(r, "Shared Memory Configuration Size", 16_380.0, "byte");
    // # SMs    SM    34.00    34.00    34.00
    assert_eq!(rep.device.sms, Some(34));
    assert_eq!(rep.device.compute_capability.as_deref(), Some("8.9"));
}

#[test]
fn a_file_of_only_error_lines_says_the_run_failed() {
    let err = import::read_file(&real("ncu-error-only.log"), None).unwrap_err().to_string();
    assert!(err.contains("only the profiler's error lines"), "{err}");
    assert!(err.contains("'./main' does not exist"), "{err}");
    assert!(err.contains("ncu --csv --page details"), "{err}");
    assert!(!err.contains('\n'));
}

#[test]
fn ncu_per_gpu_summary_of_2022_repeats_its_kernel_line_over_each_section() {
    // `ncu --page all --print-summary per-gpu --details-all` (excerpt: the first 65 lines, cut inside
    // the third table): `Device 0` with no CC, `kitsune_kernel, Block Size 256, Grid Size 1024, 1
    // invocations` over each section, the column titles above the table's only rule.
    let (format, rep) = read(&real("ncu-summary-per-gpu-2022-kitsune.log"));
    assert_eq!(format, Format::NcuText);
    assert_eq!(rep.records.len(), 1, "one kernel, one summary record");
    let r = &rep.records[0];
    assert_eq!((r.kernel.as_str(), r.summary_of, r.device), ("kitsune_kernel", Some(1), Some(0)));
    // gpu__time_duration.sum    second    7.907429    7.907429    7.907429
    assert_value(r, "duration", 7_907.429, "ms");
    // sm__inst_executed.avg.per_cycle_active    inst/cycle    2.682115 (first section)
    // The counter is nvprof's ipc: it takes the name; per_cycle_elapsed has none and keeps its own.
    assert_value(r, "ipc", 2.682115, "ratio");
    assert!(r.metrics.iter().any(|m| m.name == "sm__inst_executed.avg.per_cycle_elapsed"));
    // dram__bytes.sum.per_second    Kbyte/second    206.987133 (second section)
    assert_value(r, "dram__bytes.sum.per_second", 206_987.133, "byte/second");
    assert_value(r, "block_size", 256.0, "thread");
    assert_value(r, "grid_size", 1024.0, "block");
}

#[test]
fn an_ncu_run_that_wrote_a_report_says_where_its_results_are() {
    // ncu with `-o`: the text holds only `==PROF==` lines and the program's output (2025).
    let err = import::read_file(&real("ncu-report-only-2025-cutlass.log"), None).unwrap_err().to_string();
    assert!(
        err.contains("ncu wrote its results to the report /home/nwadekar/dphpc/dphpc-gemm/ncu_analysis.ncu-rep"),
        "{err}"
    );
    assert!(err.contains("ncu --import /home/nwadekar/dphpc/dphpc-gemm/ncu_analysis.ncu-rep --csv"), "{err}");
    assert!(!err.contains('\n'));
}

#[test]
fn ncu_text_with_crlf_line_ends_and_program_output() {
    // gemm-cuda, Colab T4 (CC 7.5): CRLF line ends, the program's output around `==PROF==` lines,
    // the 2023 layout with `Metric Name  Metric Unit  Metric Value` between two rules.
    let (format, rep) = read(&real("ncu-text-crlf-t4-gemm.txt"));
    assert_eq!(format, Format::NcuText);
    assert_eq!(rep.records.len(), 1);
    assert_eq!(rep.device.compute_capability.as_deref(), Some("7.5"));
    let r = &rep.records[0];
    // tiled_gemm(float *, ...) (128, 128, 1)x(8, 8, 1), Context 1, Stream 7, Device 0, CC 7.5
    assert_eq!(r.kernel, "tiled_gemm");
    assert_eq!((r.grid, r.block), (d(128, 128, 1), d(8, 8, 1)));
    // Duration  msecond  33.87
    assert_value(r, "duration", 33.87, "ms");
    // Elapsed Cycles  cycle  19,810,703 ; SM Frequency  cycle/usecond  584.98
    assert_value(r, "Elapsed Cycles", 19_810_703.0, "cycle");
    assert_value(r, "SM Frequency", 584.98e6, "cycle/second");
    // Grid Size  16,384 ; Registers Per Thread  register/thread  54 ; Achieved Occupancy  %  98.77
    assert_value(r, "grid_size", 16_384.0, "block");
    assert_value(r, "registers_per_thread", 54.0, "register/thread");
    assert_value(r, "achieved_occupancy", 0.9877, "ratio");
    assert!(r.metrics.iter().all(|m| !m.unit.contains('\r') && !m.name.contains('\r')));
}

#[test]
fn ncu_text_2025_layout_with_mhz_and_the_workload_distribution_section() {
    // fused-residual-rmsnorm, a Colab T4 (CC 7.5, 40 SMs), Nsight Compute of 2024-25: `(1/1)` in the
    // profiling line, `Ghz` and `Mhz`, `us`, `Stack Size 1,024`, `Uses Green Context`, and the
    // `GPU and Memory Workload Distribution` section; 102 PASS lines of the program before it.
    let (format, rep) = read(&real("ncu-text-2025-t4-rmsnorm.log"));
    assert_eq!(format, Format::NcuText);
    assert_eq!(rep.records.len(), 1);
    assert_eq!(rep.device.compute_capability.as_deref(), Some("7.5"));
    // # SMs    SM    40
    assert_eq!(rep.device.sms, Some(40));
    let r = &rep.records[0];
    // void fused<float, 256>(const T1 *, ...) (3, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 7.5
    assert_eq!(r.kernel, "fused");
    assert_eq!(
        r.signature.as_deref(),
        Some("void fused<float, 256>(const T1 *, const T1 *, const T1 *, T1 *, int, float)")
    );
    assert_eq!((r.grid, r.block, r.device), (d(3, 1, 1), d(256, 1, 1), Some(0)));
    // DRAM Frequency  Ghz  4.88 ; SM Frequency  Mhz  576.84 ; Duration  us  5.66
    assert_value(r, "DRAM Frequency", 4.88e9, "hz");
    assert_value(r, "SM Frequency", 576.84e6, "hz");
    assert_value(r, "duration", 0.00566, "ms");
    // Elapsed Cycles  cycle  3,268 ; Stack Size  1,024 (no unit)
    assert_value(r, "Elapsed Cycles", 3268.0, "cycle");
    assert_value(r, "Stack Size", 1024.0, "");
    // Static Shared Memory Per Block  byte/block  36 ; Shared Memory Configuration Size  Kbyte  32.77
    assert_value(r, "static_shared_memory", 36.0, "byte");
    assert_value(r, "Shared Memory Configuration Size", 32_770.0, "byte");
    // Theoretical Occupancy  %  100 ; Achieved Occupancy  %  20.37
    assert_value(r, "theoretical_occupancy", 1.0, "ratio");
    assert_value(r, "achieved_occupancy", 0.2037, "ratio");
    // GPU and Memory Workload Distribution: Total DRAM Elapsed Cycles  cycle  221,184 ;
    // Average SMSP Active Cycles  cycle  132.32
    assert_value(r, "Total DRAM Elapsed Cycles", 221_184.0, "cycle");
    assert_value(r, "Average SMSP Active Cycles", 132.32, "cycle");
    // Text values (Function Cache Configuration CachePreferNone, Enabled TPC IDs all) are no numbers.
    assert!(value(r, "Function Cache Configuration").is_none() && value(r, "Enabled TPC IDs").is_none());
    assert_eq!(r.metrics.len(), 41, "every numeric row of the four tables");
}

#[test]
fn ncu_metrics_text_from_windows_with_byte_prefixes() {
    // PFAC (MIT), an RTX 4070 Laptop GPU (CC 8.9, the program says 36 SMs) under Windows: the
    // connected line names `C:\Users\...\pfac_gpu.exe`, the program's report of 140 lines comes
    // before the results, and one counter is printed in Kbyte, Mbyte or Gbyte by its size.
    let (format, rep) = read(&real("ncu-metrics-windows-rtx4070laptop-pfac.txt"));
    assert_eq!(format, Format::NcuText);
    assert_eq!(rep.records.len(), 4, "the excerpt's four launches");
    assert_eq!(rep.device.compute_capability.as_deref(), Some("8.9"));
    let names: Vec<&str> = rep.records.iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(names, ["kernel_phase1_global", "kernel_phase2_global", "kernel_phase1_global", "kernel_phase2_global"]);
    let inv: Vec<_> = rep.records.iter().map(|r| r.invocation).collect();
    assert_eq!(inv, [Some(0), Some(0), Some(1), Some(1)]);
    let grids: Vec<_> = rep.records.iter().map(|r| r.grid).collect();
    assert_eq!(grids, [d(32, 1, 1), d(32, 1, 1), d(2_097_152, 1, 1), d(2_097_152, 1, 1)]);
    assert!(rep.records.iter().all(|r| r.block == d(256, 1, 1)));
    let bytes = "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum";
    // ...op_ld.sum  Mbyte  1.08 / Kbyte  363.36 / Gbyte  89.98 / Gbyte  33.07
    assert_value(&rep.records[0], bytes, 1.08e6, "byte");
    assert_value(&rep.records[1], bytes, 363_360.0, "byte");
    assert_value(&rep.records[2], bytes, 89.98e9, "byte");
    assert_value(&rep.records[3], bytes, 33.07e9, "byte");
    let r = &rep.records[0];
    // sm__warps_active.avg.pct_of_peak_sustained_active  %  14.38: nvprof's achieved_occupancy
    assert_value(r, "achieved_occupancy", 0.1438, "ratio");
    // smsp__sass_average_branch_targets_threads_uniform.pct  %  99.77: branch_efficiency
    assert_value(r, "branch_efficiency", 99.77, "%");
    // sm__cycles_active.avg.pct_of_peak_sustained_elapsed  %  64.02
    assert_value(r, "sm__cycles_active.avg.pct_of_peak_sustained_elapsed", 64.02, "%");
    // `100` and `100.00` are the same value.
    assert_value(&rep.records[1], "branch_efficiency", 100.0, "%");
    assert_value(&rep.records[2], "branch_efficiency", 100.0, "%");
}

#[test]
fn ncu_text_2022_with_a_lambda_name_of_1433_characters() {
    // nvFuser's playground, December 2022, old layout: the first launch is PyTorch's normal-
    // distribution kernel, whose name (1,433 characters) nests `[lambda() (instance 1)]`, `<unnamed>`,
    // `(unsigned long)4` and `::operator ()() const`; the section rows `Memory [%]`, `Compute (SM) [%]`.
    let (format, rep) = read(&real("ncu-text-2022-lambda-names-layernorm.log"));
    assert_eq!(format, Format::NcuText);
    assert_eq!(rep.records.len(), 1, "the excerpt holds the first of 31 launches");
    let r = &rep.records[0];
    assert_eq!(r.kernel, "distribution_elementwise_grid_stride_kernel");
    let sig = r.signature.as_deref().unwrap();
    assert!(
        sig.starts_with("void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, (int)4, "),
        "{sig}"
    );
    assert!(sig.ends_with("[lambda(int, float) (instance 1)]>(int, at::PhiloxCudaState, T3, T4)"), "{sig}");
    assert!(!sig.contains("2022-Dec-04"), "the date is not part of the name");
    assert_eq!(sig.len(), 1433);
    assert_eq!((r.grid, r.block), (None, None));
    // Block Size  256 ; Grid Size  864 ; Duration  usecond  29.38
    assert_value(r, "block_size", 256.0, "thread");
    assert_value(r, "grid_size", 864.0, "block");
    assert_value(r, "duration", 0.02938, "ms");
    // Memory [%]  %  11.62 ; Compute (SM) [%]  %  64.22 ; DRAM Frequency  cycle/nsecond  1.50
    assert_value(r, "Memory [%]", 11.62, "%");
    assert_value(r, "Compute (SM) [%]", 64.22, "%");
    assert_value(r, "DRAM Frequency", 1.5e9, "cycle/second");
    // Driver Shared Memory Per Block  Kbyte/block  1.02 ; Theoretical Occupancy  %  75
    assert_value(r, "Driver Shared Memory Per Block", 1020.0, "byte/block");
    assert_value(r, "theoretical_occupancy", 0.75, "ratio");
    assert_value(r, "achieved_occupancy", 0.5821, "ratio");
}

#[test]
fn ncu_text_whose_profiling_line_the_program_output_interrupts() {
    // EinNet's artifact (OSDI '23), April 2023, on an A100 by the repository's other results: two
    // runs of a gtest binary under ncu, the default sections and then `--metrics`; gtest's output
    // cuts each `==PROF== Profiling ... 100%` line, whose ` - 13 passes` comes 13 lines later.
    let (format, rep) = read(&real("ncu-text-2023-interleaved-gtest-g2bmm.profile"));
    assert_eq!(format, Format::NcuText);
    assert_eq!(rep.records.len(), 2, "one launch in each process");
    for r in &rep.records {
        // infini::sg2bmm_bs1_n10000_m64_w1000_d4_kernel0_tvm10(float*, float*, float*), 2023-Apr-25 ..., Stream 25
        assert_eq!(r.kernel, "sg2bmm_bs1_n10000_m64_w1000_d4_kernel0_tvm10");
        assert_eq!(
            r.signature.as_deref(),
            Some("infini::sg2bmm_bs1_n10000_m64_w1000_d4_kernel0_tvm10(float*, float*, float*)")
        );
    }
    let (a, b) = (&rep.records[0], &rep.records[1]);
    assert_eq!((a.invocation, b.invocation), (Some(0), Some(1)));
    // Section: GPU Speed Of Light (2023's names): Duration  msecond  13.26 ; SOL DRAM  %  1.61 ;
    // SM Frequency  cycle/usecond  764.14 ; Elapsed Cycles  cycle  10,135,802
    assert_value(a, "duration", 13.26, "ms");
    assert_value(a, "SOL DRAM", 1.61, "%");
    assert_value(a, "SM Frequency", 764.14e6, "cycle/second");
    assert_value(a, "Elapsed Cycles", 10_135_802.0, "cycle");
    // Block Size  667 ; Grid Size  2,000 ; Static Shared Memory Per Block  Kbyte/block  32.16
    assert_value(a, "block_size", 667.0, "thread");
    assert_value(a, "grid_size", 2000.0, "block");
    assert_value(a, "static_shared_memory", 32_160.0, "byte");
    assert_value(a, "achieved_occupancy", 0.3261, "ratio");
    // The second run's counters: smsp__sass_thread_inst_executed_op_ffma_pred_on.sum 5,122,560,000
    // (fadd and fmul 0) make nvprof's flop_count_sp, an FMA counting two.
    assert_value(b, "flop_count_sp", 10_245_120_000.0, "count");
    // dram__bytes_read.sum  Mbyte  20.96 ; lts__t_sectors_op_read.sum  sector  661,449,355
    assert_value(b, "dram_read_bytes", 20.96e6, "byte");
    assert_value(b, "l2_read_transactions", 661_449_355.0, "count");
    assert!(value(b, "duration").is_none(), "the second run measured no duration");
}

#[test]
fn ncu_runs_quoted_in_markdown_notes_each_make_a_launch() {
    // A Chinese study note (2024) on moving from nvprof to ncu: nvprof's warning that it skips a GPU
    // of compute capability 7.5 and later, then three fenced ncu runs of one kernel, each its own
    // process with one counter, in the old layout though Nsight Compute is of 2024.
    let (format, rep) = read(&real("ncu-in-markdown-three-runs-summatrix.md"));
    assert_eq!(format, Format::NcuText);
    assert_eq!(rep.records.len(), 3);
    assert!(rep.records.iter().all(|r| r.kernel == "sumMatrixOnGPU2D" && r.metrics.len() == 1));
    let inv: Vec<_> = rep.records.iter().map(|r| r.invocation).collect();
    assert_eq!(inv, [Some(0), Some(1), Some(2)]);
    // l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second  Gbyte/second  64.43: nvprof's gld_throughput
    assert_value(&rep.records[0], "gld_throughput", 64.43, "GB/s");
    // smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct  %  100: gld_efficiency
    assert_value(&rep.records[1], "gld_efficiency", 100.0, "%");
    // sm__warps_active.avg.pct_of_peak_sustained_active  %  93.26
    assert_value(&rep.records[2], "achieved_occupancy", 0.9326, "ratio");
}

#[test]
fn an_ncu_metric_list_is_named_as_such() {
    // `ncu --query-metrics` (with the suffix mode's Counter/Ratio column), as a triton repository
    // keeps it: the file starts inside a wrapped description.
    let err = import::read_file(&real("ncu-query-metrics-truncated-triton.log"), None).unwrap_err().to_string();
    assert!(err.contains("a list of what the profiler can collect (ncu --query-metrics)"), "{err}");
    assert!(err.contains("not the results of a run"), "{err}");
    assert!(!err.contains('\n'));
}

#[test]
fn nsight_systems_output_is_named_as_such() {
    // `nsys profile --stats=true` on a Jetson Nano (TensorRT's NVTX ranges, numbers grouped by four
    // digits: `44,0087,8248`): no per-kernel results warpscope reads.
    let err = import::read_file(&real("nsys-stats-jetson-nano-yolo.txt"), None).unwrap_err().to_string();
    assert!(err.contains("Nsight Systems (nsys) output"), "{err}");
    assert!(err.contains("ncu --csv --page details"), "{err}");
    assert!(!err.contains('\n'));
}

// ---- nvprof ----

#[test]
fn nvprof_summary_text_with_a_units_row() {
    // XPlacer (LLNL), V100, `nvprof -u ms`-style summary: values without units, `%  ms ...` under the
    // header, exponents (1.47e-03).
    let (format, rep) = read(&real("nvprof-summary-v100-bfs.log"));
    assert_eq!(format, Format::NvprofText);
    assert_eq!(rep.records.len(), 2, "memcpy rows and API calls are not kernels");
    let r = &rep.records[0];
    //  9.41  0.037986  8  4.75e-03  2.11e-03  6.24e-03  Kernel(Node*, int*, bool*, bool*, bool*, int*, int)
    assert_eq!(r.kernel, "Kernel");
    assert_eq!(r.summary_of, Some(8));
    assert_eq!((r.grid, r.invocation), (None, None));
    assert_value(r, "duration", 4.75e-3, "ms");
    assert_value(r, "duration_min", 2.11e-3, "ms");
    assert_value(r, "duration_max", 6.24e-3, "ms");
    assert_value(r, "total_time", 0.037986, "ms");
    assert_value(r, "time_pct", 9.41, "%");
    // 2.75  0.011106  8  1.39e-03  1.28e-03  1.47e-03  Kernel2(bool*, bool*, bool*, bool*, int)
    assert_value(&rep.records[1], "duration", 1.39e-3, "ms");
}

#[test]
fn nvprof_csv_summary_units_row_gives_each_column_its_unit() {
    // TITAN Xp, 2019 (an unlicensed file, whole: 1.3 KB): `--csv` summary whose units row differs per
    // column (`,%,ms,,us,us,ms,`), memcpy and memset rows, the Unified Memory table naming the device.
    let (format, rep) = read(&real("nvprof-csv-summary-titanxp-cfd.csv"));
    assert_eq!(format, Format::NvprofCsv);
    assert_eq!(rep.records.len(), 4, "memcpy and memset rows are not kernels");
    // "TITAN Xp (0)",158,40.860352KB,...
    assert_eq!((rep.device.name.as_str(), rep.device.ordinal), ("TITAN Xp", 0));
    let r = &rep.records[0];
    // "GPU activities",68.739052,268.352834,6000,44.725000,43.106000,1.791976,"cuda_compute_flux(...)"
    assert_eq!(r.kernel, "cuda_compute_flux");
    assert_eq!(r.summary_of, Some(6000));
    assert_value(r, "duration", 0.044725, "ms");
    assert_value(r, "duration_min", 0.043106, "ms");
    assert_value(r, "duration_max", 1.791976, "ms");
    assert_value(r, "total_time", 268.352834, "ms");
    assert_value(r, "time_pct", 68.739052, "%");
    assert_eq!(rep.records[3].kernel, "cuda_initialize_variables");
}

#[test]
fn nvprof_run_that_profiled_no_kernel_says_so() {
    // TITAN Xp (an unlicensed file, whole: 908 bytes): `No kernels were profiled.`, Unified Memory only.
    let err = import::read_file(&real("nvprof-no-kernels-titanxp-bfs.txt"), None).unwrap_err().to_string();
    assert!(err.contains("nvprof profiled no kernel"), "{err}");
    // The same after an API-call table, which nvprof prints with its summary header.
    let text = "==1== Profiling result:\nNo kernels were profiled.\n            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n      API calls:   99.74%  1.07404s         7  153.43ms  7.1850us  1.07392s  cudaMallocManaged\n";
    let err = import::parse(text).unwrap_err().to_string();
    assert!(err.contains("nvprof profiled no kernel"), "{err}");
    let err = import::parse("======== Warning: No CUDA application was profiled, exiting\n").unwrap_err();
    assert!(err.to_string().contains("nvprof profiled no kernel"), "{err}");
    let err = import::parse("======== CPU profiling result (bottom up):\nTime(%)      Time  Name\n").unwrap_err();
    assert!(err.to_string().contains("--cpu-profiling"), "{err}");
}

#[test]
fn nvprof_summary_without_type_column_skips_the_api_table() {
    // thrust2D, 2017 (an unlicensed file, whole: 1.4 KB): an nvprof summary without the Type column,
    // its API table under a `==29519== API calls:` line and a header of its own.
    let (format, rep) = read(&real("nvprof-summary-untyped-gtx1070-convolve.txt"));
    assert_eq!(format, Format::NvprofText);
    let names: Vec<&str> = rep.records.iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(names, ["conv_shared_Kernel"], "memcpy, memset and API rows are not kernels");
    let r = &rep.records[0];
    //  6.68%  26.050us         1  26.050us  26.050us  26.050us  conv_shared_Kernel(float const *, ...)
    assert_eq!(r.summary_of, Some(1));
    assert_value(r, "duration", 0.02605, "ms");
    assert_value(r, "time_pct", 6.68, "%");
}

#[test]
fn nvprof_gpu_trace_text_one_record_per_launch() {
    // XPlacer (LLNL), V100: `--print-gpu-trace`, columns by position, Unified Memory rows, program output.
    let (format, rep) = read(&real("nvprof-gpu-trace-v100-bfs.log"));
    assert_eq!(format, Format::NvprofText);
    assert_eq!(rep.records.len(), 16, "8 launches each of Kernel and Kernel2");
    assert_eq!(rep.device.name, "Tesla V100-SXM2");
    let r = &rep.records[0];
    // 501.78ms  5.0890us  (8 1 1)  (512 1 1)  21  0B  0B  ...  Kernel(Node*, int*, bool*, bool*, bool*, int*, int) [117]
    assert_eq!(r.kernel, "Kernel");
    assert_eq!(r.signature.as_deref(), Some("Kernel(Node*, int*, bool*, bool*, bool*, int*, int)"));
    assert_eq!((r.grid, r.block, r.invocation), (d(8, 1, 1), d(512, 1, 1), Some(0)));
    assert_value(r, "duration", 0.005089, "ms");
    assert_value(r, "registers_per_thread", 21.0, "register/thread");
    assert_value(r, "static_shared_memory", 0.0, "byte");
    // 501.79ms  1.4400us  (8 1 1)  (512 1 1)  16  ...  Kernel2(bool*, bool*, bool*, bool*, int) [118]
    assert_value(&rep.records[1], "duration", 0.00144, "ms");
    // 502.13ms  2.0480us ... Kernel(...) [152]: the eighth launch of Kernel
    let last = rep.records.iter().rfind(|r| r.kernel == "Kernel").unwrap();
    assert_eq!(last.invocation, Some(7));
    assert_value(last, "duration", 0.002048, "ms");
}

#[test]
fn nvprof_metrics_text_with_utilization_levels() {
    // GTX 1070, 2017 (unlicensed, whole 2.6 KB file): `Idle (0)`, `Low (1)` levels, templates as nvprof
    // printed them (`<unsigned int=1024>`), 1000 invocations.
    let (format, rep) = read(&real("nvprof-metrics-gtx1070-levels.txt"));
    assert_eq!(format, Format::NvprofText);
    assert_eq!(rep.device.name, "GeForce GTX 1070");
    let names: Vec<&str> = rep.records.iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(names, ["getError", "better_reduce_kernel", "multiply"]);
    let r = &rep.records[1];
    assert_eq!(
        r.signature.as_deref(),
        Some("void better_reduce_kernel<unsigned int=1024>(float*, float*, unsigned int, unsigned int)")
    );
    // 1000  shared_utilization  Shared Memory Utilization  Low (1)  Low (1)  Low (1)
    assert_eq!(r.summary_of, Some(1000));
    assert_value(r, "shared_utilization", 1.0, "level");
    // 1000  gst_efficiency  Global Memory Store Efficiency  12.50%  12.50%  12.50%
    assert_value(r, "gst_efficiency", 12.5, "%");
    // 1000  shared_efficiency  Shared Memory Efficiency  99.74%  99.74%  99.74%
    assert_value(r, "shared_efficiency", 99.74, "%");
    // 1  shared_utilization  Shared Memory Utilization  Idle (0)  Idle (0)  Idle (0)   (getError)
    assert_value(&rep.records[0], "shared_utilization", 0.0, "level");
    // 1  gld_efficiency  Global Memory Load Efficiency  82.56%  82.56%  82.56%   (multiply)
    assert_value(&rep.records[2], "gld_efficiency", 82.56, "%");
}

#[test]
fn nvprof_metrics_text_throughputs_use_binary_prefixes() {
    // GTX 1070, 2017 (unlicensed, whole file): MB/s, GB/s and B/s values, min != max.
    let (_, rep) = read(&real("nvprof-metrics-gtx1070-throughput.txt"));
    let r = &rep.records[0];
    assert_eq!(r.kernel, "update_weights");
    // 1  dram_read_throughput  Device Memory Read Throughput  865.08MB/s  865.08MB/s  864.98MB/s
    assert_value(r, "dram_read_throughput", 864.98 * 1_048_576.0 / 1e9, "GB/s");
    // 1  dram_write_throughput  Device Memory Write Throughput  0.00000B/s ...
    assert_value(r, "dram_write_throughput", 0.0, "GB/s");
    // 100  dram_read_throughput  ...  0.00000B/s  1.5910GB/s  634.19MB/s   (better_reduce_kernel<256>)
    let b = &rep.records[2];
    assert_eq!((b.kernel.as_str(), b.summary_of), ("better_reduce_kernel", Some(100)));
    assert_value(b, "dram_read_throughput", 634.19 * 1_048_576.0 / 1e9, "GB/s");
}

#[test]
fn nvprof_events_before_metrics_merge_per_kernel() {
    // eBay/maxDNN (MIT) README, GTX 980: an Event result block (no Total column, tab-indented
    // kernels) before a Metric result block.
    let (format, rep) = read(&real("nvprof-events-metrics-gtx980-maxdnn.txt"));
    assert_eq!(format, Format::NvprofText);
    assert_eq!(rep.records.len(), 1, "events and metrics of one kernel are one record");
    let r = &rep.records[0];
    assert_eq!((r.kernel.as_str(), r.summary_of), ("multiconvolution_64", Some(10)));
    // 10  elapsed_cycles_sm  75288048  75580076  75451292
    assert_value(r, "elapsed_cycles_sm", 75_451_292.0, "count");
    // 10  inst_fp_32  FP Instructions(Single)  9144115200  9144115200  9144115200
    assert_value(r, "inst_fp_32", 9_144_115_200.0, "count");
    // 10  flop_sp_efficiency  FLOP Efficiency(Peak Single)  94.39%  94.76%  94.55%
    assert_value(r, "flop_sp_efficiency", 94.55, "%");
    // 10  tex_cache_hit_rate  Texture Cache Hit Rate  10.36%  10.74%  10.48%
    assert_value(r, "tex_cache_hit_rate", 10.48, "%");
}

#[test]
fn nvprof_csv_events_block_then_metrics_block() {
    // K40c (excerpt of an unlicensed file): `--csv --events ... --metrics ...`, quoted names, bare
    // numbers, an events block of 24 rows before a metrics block of 26.
    let (format, rep) = read(&real("nvprof-csv-events-metrics-k40c-cheby.csv"));
    assert_eq!(format, Format::NvprofCsv);
    assert_eq!(rep.records.len(), 1);
    assert_eq!(rep.device.name, "Tesla K40c");
    let r = &rep.records[0];
    assert_eq!(r.kernel, "__kernel___forma_kernel__0__");
    assert_eq!(r.summary_of, Some(4));
    assert_eq!(r.metrics.len(), 24 + 26);
    // "Tesla K40c (0)","__kernel___forma_kernel__0__(...)",4,"tex0_cache_sector_queries",335724243,335725494,335724759
    assert_value(r, "tex0_cache_sector_queries", 335_724_759.0, "count");
    // ...,4,"achieved_occupancy","Achieved Occupancy",0.830846,0.832009,0.831314
    assert_value(r, "achieved_occupancy", 0.831314, "ratio");
    // ...,4,"gst_efficiency","Global Memory Store Efficiency",80.696203%,80.696203%,80.696203%
    assert_value(r, "gst_efficiency", 80.696203, "%");
    // ...,4,"dram_read_throughput","Device Memory Read Throughput",43.938313GB/s,44.023305GB/s,43.996615GB/s
    assert_value(r, "dram_read_throughput", 43.996615 * 1_073_741_824.0 / 1e9, "GB/s");
}

#[test]
fn nvprof_csv_metrics_unquoted_numbers() {
    // K20c (unlicensed, whole 3.5 KB file): `--csv --metrics`.
    let (format, rep) = read(&real("nvprof-csv-metrics-k20c-gaussian.txt"));
    assert_eq!(format, Format::NvprofCsv);
    let r = &rep.records[0];
    assert_eq!(rep.device.name, "Tesla K20c");
    assert_eq!(r.signature.as_deref(), Some("__kernel___forma_kernel__0__(float*, int, int, int, int, float*)"));
    // ...,3,"flop_count_sp","Floating Point Operations(Single Precision)",9889546240,9889546240,9889546240
    assert_value(r, "flop_count_sp", 9_889_546_240.0, "count");
    // ...,3,"gst_transactions","Global Store Transactions",3579904,3579904,3579904
    assert_value(r, "gst_transactions", 3_579_904.0, "count");
    // ...,3,"achieved_occupancy","Achieved Occupancy",0.348148,0.348174,0.348164
    assert_value(r, "achieved_occupancy", 0.348164, "ratio");
    assert_eq!(r.summary_of, Some(3));
}

#[test]
fn nvprof_csv_trace_with_metric_columns_and_a_mangled_name() {
    // romnn/microgpusim (MIT), GTX 1080: `--csv --print-gpu-trace --metrics all`: one row per launch,
    // a units row, the kernel's mangled name.
    let (format, rep) = read(&real("nvprof-csv-metrics-trace-gtx1080-vectoradd.txt"));
    assert_eq!(format, Format::NvprofCsv);
    let r = &rep.records[0];
    // "NVIDIA GeForce GTX 1080 (0)","1","7","_Z6vecAddIfEvPT_S1_S1_i",...
    assert_eq!(r.kernel, "vecAdd");
    assert_eq!(r.signature.as_deref(), Some("void vecAdd<float>(float*, float*, float*, int)"));
    assert_eq!((r.invocation, r.summary_of), (Some(0), None));
    assert_eq!(rep.device.name, "NVIDIA GeForce GTX 1080");
    // gld_transactions 106; gld_transactions_per_request 13.250000; gld_throughput (MB/s) 452.628083
    assert_value(r, "gld_transactions", 106.0, "count");
    assert_value(r, "gld_transactions_per_request", 13.25, "ratio");
    assert_value(r, "gld_throughput", 452.628083 * 1_048_576.0 / 1e9, "GB/s");
    // dram_read_throughput (GB/s) 3.791168
    assert_value(r, "dram_read_throughput", 3.791168 * 1_073_741_824.0 / 1e9, "GB/s");
}

#[test]
fn nvprof_binary_prefixes_are_what_the_file_itself_implies() {
    // The same GTX 1080 row: bytes and rates of one launch imply one duration only if MB and GB are
    // 2^20 and 2^30 bytes. gld: l2_global_load_bytes 832 at gld_throughput 452.628083 MB/s; DRAM:
    // dram_read_bytes 7136 at dram_read_throughput 3.791168 GB/s; L2: l2_read_transactions 66 (x32 B)
    // at l2_read_throughput 1.122050 GB/s.
    let (_, rep) = read(&real("nvprof-csv-metrics-trace-gtx1080-vectoradd.txt"));
    let r = &rep.records[0];
    let secs = |bytes: f64, gbs: &str| bytes / (value(r, gbs).unwrap() * 1e9);
    let (gld, dram, l2) =
        (secs(832.0, "gld_throughput"), secs(7136.0, "dram_read_throughput"), secs(66.0 * 32.0, "l2_read_throughput"));
    assert!((gld - dram).abs() / gld < 1e-4 && (gld - l2).abs() / gld < 1e-4, "{gld} {dram} {l2}");
}

#[test]
fn nvprof_csv_gpu_trace_with_units_row() {
    // romnn/microgpusim (MIT), GTX 1080: `--csv --print-gpu-trace`, units row `us,us,...,B,B,B,MB/s`.
    let (format, rep) = read(&real("nvprof-csv-gpu-trace-gtx1080-vectoradd.txt"));
    assert_eq!(format, Format::NvprofCsv);
    assert_eq!(rep.records.len(), 1, "the memcpy rows are not kernels");
    let r = &rep.records[0];
    // 245767.824000,3.264000,1,1,1,1024,1,1,8,0,0,,,,,"NVIDIA GeForce GTX 1080 (0)","1","7","_Z6vecAddIfEvPT_S1_S1_i",123
    // under the units row  us,us,,,,,,,,B,B,B,MB/s,,,,,,,
    assert_eq!((r.grid, r.block), (d(1, 1, 1), d(1024, 1, 1)));
    assert_eq!(r.kernel, "vecAdd");
    assert_eq!(r.signature.as_deref(), Some("void vecAdd<float>(float*, float*, float*, int)"));
    assert_value(r, "duration", 0.003264, "ms");
    assert_value(r, "registers_per_thread", 8.0, "register/thread");
    assert_value(r, "dynamic_shared_memory", 0.0, "byte");
    assert_eq!(r.device, Some(0));
}

#[test]
fn nvprof_api_trace_alone_is_named_as_such() {
    // CS533 project, V100: `--print-api-trace` text, `Start  Duration  Name` and host calls only, the
    // launches among them as `cudaLaunchKernel (vector_add_kernel(...) [129])`: no kernel's GPU time.
    let err = import::read_file(&real("nvprof-api-trace-v100-vectoradd.txt"), None).unwrap_err().to_string();
    assert!(err.contains("API trace (--print-api-trace)"), "{err}");
    assert!(err.contains("--print-gpu-trace"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn nvprof_csv_gpu_trace_in_ms_with_bytes_per_column() {
    // magus (GTX 1080 Ti): units row `ms,ms,,,,,,,,B,B,KB,GB/s,,,,`, one kernel between two memcpys.
    let (format, rep) = read(&real("nvprof-csv-gpu-trace-ms-gtx1080ti-binomial.csv"));
    assert_eq!(format, Format::NvprofCsv);
    assert_eq!(rep.records.len(), 1, "the memcpy rows are not kernels");
    assert_eq!(rep.device.name, "GeForce GTX 1080 Ti");
    let r = &rep.records[0];
    // 639.859406,1.815008,1024,1,1,128,1,1,32,516,0,,,"GeForce GTX 1080 Ti (0)","1","7","binomialOptionsKernel(void) [1090]"
    assert_eq!(
        (r.kernel.as_str(), r.signature.as_deref()),
        ("binomialOptionsKernel", Some("binomialOptionsKernel(void)"))
    );
    assert_eq!((r.grid, r.block), (d(1024, 1, 1), d(128, 1, 1)));
    assert_value(r, "duration", 1.815008, "ms");
    assert_value(r, "registers_per_thread", 32.0, "register/thread");
    assert_value(r, "static_shared_memory", 516.0, "byte");
    assert_value(r, "dynamic_shared_memory", 0.0, "byte");
}

#[test]
fn nvprof_metrics_all_of_a_kepler_laptop_gpu_with_cut_descriptions() {
    // Game of Life on a GeForce GT 650M (Kepler, CC 3.0): `--metrics all`, 105 rows of one kernel
    // under a tab-indented `Kernel:` line, descriptions cut at 40 characters (`Local Memory Load
    // Transactions Per Reque`, `Floating Point Operations(Single Precisi`), Kepler's `*_instance`
    // metrics, and a last line of shell prompt (`🍺 :code `).
    let (format, rep) = read(&real("nvprof-metrics-all-gt650m-gameoflife.txt"));
    assert_eq!(format, Format::NvprofText);
    assert_eq!(rep.device.name, "GeForce GT 650M");
    assert_eq!(rep.records.len(), 1);
    let r = &rep.records[0];
    assert_eq!((r.kernel.as_str(), r.summary_of, r.device), ("changeCellState", Some(100), Some(0)));
    assert_eq!(r.signature.as_deref(), Some("changeCellState(char*, char*, int, int)"));
    assert_eq!(r.metrics.len(), 105, "every row");
    // achieved_occupancy    Achieved Occupancy    0.886303    0.918649    0.911838
    assert_value(r, "achieved_occupancy", 0.911838, "ratio");
    // gld_throughput    Global Load Throughput  3.0359GB/s  3.1670GB/s  3.1344GB/s (binary prefixes)
    assert_value(r, "gld_throughput", 3.1344 * 1_073_741_824.0 / 1e9, "GB/s");
    // sysmem_read_throughput    System Memory Read Throughput  0.00000B/s  212.86KB/s  5.3050KB/s
    assert_value(r, "sysmem_read_throughput", 5.3050 * 1024.0 / 1e9, "GB/s");
    // alu_fu_utilization    Arithmetic Function Unit Utilization     Mid (5)     Mid (5)     Mid (5)
    assert_value(r, "alu_fu_utilization", 5.0, "level");
    // dram_read_transactions    Device Memory Read Transactions           0       38252       11474
    assert_value(r, "dram_read_transactions", 11_474.0, "count");
    // gld_efficiency    Global Memory Load Efficiency      61.97%      61.97%      61.97%
    assert_value(r, "gld_efficiency", 61.97, "%");
    // l2_l1_write_transactions  L2 Write Transactions (L1 write requests        2068        2222        2097
    assert_value(r, "l2_l1_write_transactions", 2097.0, "count");
    // sm_efficiency_instance    Multiprocessor Activity      86.42%      95.30%      94.71%
    assert_value(r, "sm_efficiency_instance", 94.71, "%");
}

#[test]
fn nvprof_runs_of_successive_commits_in_one_file() {
    // A V100-SXM2-16GB n-body exercise: nvprof's output for each commit pasted under `=====` rules,
    // three runs that profiled no kernel (`No kernels were profiled.` over an API table), then four
    // with kernels, each process its own summary; Unified Memory tables with `Memory thrashes`.
    let (format, rep) = read(&real("nvprof-runs-by-commit-v100-nbody.txt"));
    assert_eq!(format, Format::NvprofText);
    assert_eq!(rep.device.name, "Tesla V100-SXM2-16GB");
    let names: Vec<&str> = rep.records.iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(
        names,
        ["integratePosition", "integratePosition", "bodyForce", "integratePosition", "bodyForce", "integratePosition"],
        "one summary per process and kernel: ==252==, ==450==, ==2388== (two), ==2401== (two)"
    );
    assert!(rep.records.iter().all(|r| r.summary_of == Some(10) && r.invocation.is_none()));
    // ==252==  GPU activities:  100.00%  3.0752ms  10  307.52us  286.21us  377.89us  integratePosition(...)
    let first = &rep.records[0];
    assert_value(first, "duration", 0.30752, "ms");
    assert_value(first, "duration_min", 0.28621, "ms");
    assert_value(first, "total_time", 3.0752, "ms");
    // ==450==  100.00%  24.288us  10  2.4280us ...: the same kernel, after prefetching
    assert_value(&rep.records[1], "duration", 0.002428, "ms");
    // ==2401==  99.99%  1.10627s  10  110.63ms  106.67ms  124.52ms  bodyForce(Body*, float, int)
    let big = &rep.records[4];
    assert_value(big, "total_time", 1106.27, "ms");
    assert_value(big, "duration_max", 124.52, "ms");
    assert_value(big, "time_pct", 99.99, "%");
}

#[test]
fn nvprof_summary_saved_as_csv_without_quotes() {
    // EpicFlow on CUDA (no licence stated): an nvprof summary written as CSV with no quotes at all
    // and the units left on the values (`47.79%,542.36ms,45,12.052ms,...`), so the kernels' own
    // commas split their names across fields. How it was written the repository does not say.
    let (format, rep) = read(&real("nvprof-csv-unquoted-summary-epicflow.csv"));
    assert_eq!(format, Format::NvprofCsv);
    let names: Vec<&str> = rep.records.iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(names, ["red_sor", "black_sor"], "the memcpy rows are not kernels");
    let r = &rep.records[0];
    assert_eq!(
        r.signature.as_deref(),
        Some("red_sor(float*, float*, float*, float*, float*, float*, float*, float*, float*, float, int, int, int)")
    );
    // 20.92%,237.43ms,150,1.5829ms,1.5103ms,2.1174ms,red_sor(...)
    assert_eq!(r.summary_of, Some(150));
    assert_value(r, "duration", 1.5829, "ms");
    assert_value(r, "duration_min", 1.5103, "ms");
    assert_value(r, "duration_max", 2.1174, "ms");
    assert_value(r, "total_time", 237.43, "ms");
    assert_value(r, "time_pct", 20.92, "%");
    assert_value(&rep.records[1], "duration", 1.5817, "ms");
}

#[test]
fn nvprof_of_cuda_12_under_windows() {
    // k-means under Windows (cuDeviceGetLuid) with CUDA 12's nvprof (cuLibraryUnload,
    // cuModuleGetLoadingMode): a warning line wrapped onto a line of its own, `0ns` minima, memset rows.
    let (format, rep) = read(&real("nvprof-summary-windows-cuda12-kmeans.txt"));
    assert_eq!(format, Format::NvprofText);
    let names: Vec<&str> = rep.records.iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(names, ["assignClusters", "updateCentroids"], "memset, memcpy and API rows are not kernels");
    // 97.14%  13.6773s  16800  814.13us  185.02us  2.2629ms  assignClusters(float const *, ...)
    let r = &rep.records[0];
    assert_eq!(r.summary_of, Some(16_800));
    assert_eq!(
        r.signature.as_deref(),
        Some("assignClusters(float const *, int*, float*, int*, float*, float*, int, int)")
    );
    assert_value(r, "total_time", 13_677.3, "ms");
    assert_value(r, "duration", 0.81413, "ms");
    assert_value(r, "duration_min", 0.18502, "ms");
    assert_value(r, "duration_max", 2.2629, "ms");
    assert_value(&rep.records[1], "time_pct", 2.48, "%");
}

#[test]
fn nvprof_runs_in_markdown_fences_with_crlf_line_ends() {
    // A Spanish course's exam notes: two nvprof runs between `~~~` fences under `###` headings, prose
    // between them, every line ended by CRLF; a multi-GPU machine without peer-to-peer, so nvprof
    // warns that Unified Memory profiling is off.
    let (format, rep) = read(&real("nvprof-in-markdown-fences-zerocopy.md"));
    assert_eq!(format, Format::NvprofText);
    let names: Vec<&str> = rep.records.iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(names, ["sumArraysZeroCopy", "sumArrays", "warmup", "testInnerStruct"]);
    assert!(rep.records.iter().all(|r| r.summary_of == Some(1)));
    // 33.33%  3.5200us  1  3.5200us  3.5200us  3.5200us  sumArraysZeroCopy(float*, float*, float*, int)
    assert_value(&rep.records[0], "duration", 0.00352, "ms");
    assert_value(&rep.records[0], "time_pct", 33.33, "%");
    // 0.88%  256.10us  1  256.10us ...  warmup(innerStruct*, innerStruct*, int)
    assert_value(&rep.records[2], "duration", 0.2561, "ms");
    assert_eq!(rep.records[3].signature.as_deref(), Some("testInnerStruct(innerStruct*, innerStruct*, int)"));
    assert!(rep.records.iter().all(|r| !r.signature.as_deref().unwrap_or("").contains('\r')));
}

#[test]
fn an_nvprof_run_that_never_started_says_so() {
    // nvprof called without a program: one `======== Error:` line (42 bytes).
    let err = import::read_file(&real("nvprof-error-no-application.txt"), None).unwrap_err().to_string();
    assert!(err.contains("only the profiler's error lines"), "{err}");
    assert!(err.contains("no application specified"), "{err}");
    assert!(err.contains("never started"), "{err}");
    assert!(!err.contains('\n'));
}

// ---- the older fixtures (H200 runs, seed-figure nvprof files) ----

#[test]
fn ncu_default_page_from_the_h200() {
    let (format, rep) = read(&fixture("ncu-h200-seed-default.csv"));
    assert_eq!(format, Format::NcuCsv);
    // 15 seed shapes, each profiled twice (the verified launch and one timed launch).
    assert_eq!(rep.records.len(), 30);
    assert_eq!(rep.device.compute_capability.as_deref(), Some("9.0"));
    let r = &rep.records[0];
    assert_eq!(r.kernel, "sumMatrixOnGPU2D");
    assert_eq!((r.grid, r.block), (d(512, 512, 1), d(32, 32, 1)));
    assert!(r.metrics.iter().all(|m| m.source == Source::Imported));
    // Converted to nvprof names and units; counts exact; thousands separators read.
    assert_eq!(value(r, "gld_efficiency"), Some(100.0));
    assert_eq!(value(r, "gld_transactions"), Some(67_108_864.0));
    let occ = value(r, "achieved_occupancy").unwrap();
    assert!(occ > 0.5 && occ < 0.8, "{occ}");
    let ms = value(r, "duration").unwrap();
    assert!(ms > 1.0 && ms < 1.5, "{ms}");
    assert_eq!(value(r, "theoretical_occupancy"), Some(1.0));
    // l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum, "16,777,216": nvprof's global_load_requests.
    assert_eq!(value(r, "global_load_requests"), Some(16_777_216.0));
    assert_eq!((r.invocation, rep.records[1].invocation), (Some(0), Some(1)));
}

#[test]
fn ncu_raw_page_with_its_units_row() {
    let (format, rep) = read(&fixture("ncu-h200-32x16-raw.csv"));
    assert_eq!(format, Format::NcuRaw);
    assert_eq!(rep.records.len(), 2);
    assert_eq!(rep.device.name, "NVIDIA H200");
    let r = &rep.records[0];
    assert_eq!(value(r, "duration"), Some(1.091488));
    assert!((value(r, "gld_throughput").unwrap() - 1967.4826).abs() < 1e-3);
    // Device attributes and profiler bookkeeping are not metrics.
    assert!(r.metrics.iter().all(|m| !m.name.starts_with("device__") && !m.name.starts_with("profiler__")));
}

#[test]
fn odd_ncu_output_units_gaps_and_strangers() {
    let (_, rep) = read(&fixture("ncu-odd-units.csv"));
    assert_eq!(rep.records.len(), 2);
    let r = &rep.records[0];
    assert!((value(r, "duration").unwrap() - 1.09149).abs() < 1e-9, "usecond with a thousands separator");
    assert!((value(r, "gld_throughput").unwrap() - 1970.0).abs() < 1e-6, "Tbyte/second");
    assert_eq!(value(r, "gld_transactions"), Some(67_108_864.0), "Msector");
    assert_eq!(value(r, "gld_efficiency"), None, "n/a is a missing value, not 0");
    assert_eq!(rep.records[1].kernel, "other_kernel");
    assert_eq!(rep.records[1].signature.as_deref(), Some("void other_kernel<float>(float const*, float*)"));
}

#[test]
fn nvprof_metric_summary_and_gpu_trace() {
    let (format, rep) = read(&fixture("nvprof-m2070-32x32-metrics.csv"));
    assert_eq!(format, Format::NvprofCsv);
    assert_eq!(rep.device.name, "Tesla M2070", "the ordinal is not part of the name");
    assert_eq!(rep.device.compute_capability, None, "nvprof does not print it");
    let r = &rep.records[0];
    assert_eq!(r.kernel, "sumMatrixOnGPU2D");
    assert_eq!(r.block, None, "nvprof's metric summary has no launch shape");
    assert_eq!(r.summary_of, Some(1));
    assert_eq!(value(r, "achieved_occupancy"), Some(0.501071));
    // nvprof's GB/s is 2^30 bytes a second: 35.908 GB/s is 38.556 of warpscope's (1e9) GB/s.
    assert!((value(r, "gld_throughput").unwrap() - 35.908 * 1.073741824).abs() < 1e-9);
    assert_eq!(value(r, "gld_efficiency"), Some(100.0));
    assert!((value(r, "gst_throughput").unwrap() - 17954.123 * 0.001048576).abs() < 1e-9, "MB/s to GB/s");

    let (format, rep) = read(&fixture("nvprof-m2070-16x16-trace.csv"));
    assert_eq!(format, Format::NvprofCsv);
    assert_eq!(rep.records.len(), 1, "the memcpy row is not a kernel");
    assert_eq!(rep.records[0].block, d(16, 16, 1));
    assert_eq!(value(&rep.records[0], "duration"), Some(45.984));
}

#[test]
fn concatenated_ncu_files_keep_their_launches_apart() {
    let one = std::fs::read_to_string(fixture("ncu-odd-units.csv")).unwrap();
    let two = one.replace("\"2048\"", "\"4096\"");
    let (_, rep) = import::parse(&format!("{one}\n{two}")).unwrap();
    assert_eq!(rep.records.len(), 4, "same IDs, different processes: four launches");
}

// ---- compare ----

fn ours() -> Report {
    serde_json::from_str(&std::fs::read_to_string(fixture("ws-h200-seed.json")).unwrap()).unwrap()
}

#[test]
fn compare_matches_by_kernel_grid_and_block() {
    let (_, ncu) = read(&fixture("ncu-h200-seed-default.csv"));
    let cmp = compare::compare(&ours(), &ncu, Pick::Measured);
    assert!(cmp.unmatched.is_empty(), "{:?}", cmp.unmatched);
    assert!(cmp.rows.iter().all(|r| r.matched_by == Matched::Shape));
    // The warpscope run measured times only (no counters): `duration` is compared with its event median,
    // in the same session as ncu.
    let durations: Vec<_> = cmp.rows.iter().filter(|r| r.metric == "duration").collect();
    assert_eq!(durations.len(), 15);
    assert!(durations.iter().all(|r| r.ours_source == "events" && r.launches == 2));
    assert!(durations.iter().all(|r| r.delta.abs() < 3.0), "events within 3 % of gpu__time_duration");
    // Estimates stand in where nothing was measured: gld_efficiency is exact.
    let eff: Vec<_> = cmp.rows.iter().filter(|r| r.metric == "gld_efficiency").collect();
    assert!(eff.iter().all(|r| r.ours_source == "estimated" && r.delta == 0.0));
    assert!(cmp.above(0.0).iter().any(|r| r.metric == "achieved_occupancy"));
    assert_eq!(cmp.hint, None, "the two agree: no clock advice");
}

#[test]
fn compare_against_nvprof_and_strangers() {
    let (_, nvprof) = read(&fixture("nvprof-m2070-32x32-metrics.csv"));
    // Fifteen warpscope records of the same kernel: nvprof's summary cannot say which one it was.
    let cmp = compare::compare(&ours(), &nvprof, Pick::Estimated);
    assert!(cmp.rows.is_empty());
    assert!(cmp.unmatched.iter().any(|u| u.contains("no launch shape")), "{:?}", cmp.unmatched);
    // One record: it matches, and the Fermi figures are far from the H200's.
    let mut one = ours();
    one.records.retain(|r| r.block == d(32, 32, 1));
    let cmp = compare::compare(&one, &nvprof, Pick::Estimated);
    assert!(cmp.rows.iter().any(|r| r.metric == "gld_efficiency" && r.delta == 0.0));
    let (_, odd) = read(&fixture("ncu-odd-units.csv"));
    let cmp = compare::compare(&ours(), &odd, Pick::Measured);
    assert!(
        cmp.unmatched.iter().any(|u| u.starts_with("other_kernel") && u.contains("no kernel of that name")),
        "{:?}",
        cmp.unmatched
    );
}

#[test]
fn every_file_compared_with_itself_is_all_zero() {
    for f in std::fs::read_dir(fixture("profilers")).unwrap() {
        let path = f.unwrap().path();
        let no_results = [
            "ncu-error-only.log",
            "nvprof-no-kernels-titanxp-bfs.txt",
            "ncu-report-only-2025-cutlass.log",
            "nvprof-api-trace-v100-vectoradd.txt",
            "nvprof-error-no-application.txt",
            "ncu-query-metrics-truncated-triton.log",
            "nsys-stats-jetson-nano-yolo.txt",
        ];
        if path.file_name().is_some_and(|n| n == "README.md")
            || path.file_name().is_some_and(|n| no_results.iter().any(|x| n == *x))
        {
            continue;
        }
        let (_, rep) = read(&path);
        let cmp = compare::compare(&rep, &rep, Pick::Measured);
        assert!(
            cmp.unmatched.is_empty() || rep.records.iter().all(|r| r.metrics.is_empty()),
            "{}: {:?}",
            path.display(),
            cmp.unmatched
        );
        assert!(cmp.rows.iter().all(|r| r.abs_delta == 0.0 && r.delta == 0.0), "{}", path.display());
        assert!(cmp.rows.iter().all(|r| r.matched_by == Matched::Shape), "{}", path.display());
    }
}

#[test]
fn nvprof_trace_shapes_pair_with_ncu_launch_counts() {
    // The same bfs on the same V100 (XPlacer): nvprof's trace gives (8 1 1)x(512 1 1), ncu's 2020 CSV
    // only 8 blocks of 512 threads.
    let (_, nvprof) = read(&real("nvprof-gpu-trace-v100-bfs.log"));
    let (_, ncu) = read(&real("ncu-csv-2020-v100-bfs.log"));
    let cmp = compare::compare(&nvprof, &ncu, Pick::Measured);
    assert!(cmp.unmatched.is_empty(), "{:?}", cmp.unmatched);
    let dur: Vec<_> = cmp.rows.iter().filter(|r| r.metric == "duration").collect();
    assert_eq!(dur.len(), 2, "Kernel and Kernel2");
    assert!(dur.iter().all(|r| r.matched_by == Matched::Volume && r.block == d(512, 1, 1)));
    // 8 launches of each in the trace; ncu profiled 7 of Kernel and 6 of Kernel2.
    assert_eq!(
        dur.iter().map(|r| (r.kernel.as_str(), r.ours_launches)).collect::<Vec<_>>(),
        [("Kernel", 8), ("Kernel2", 8)]
    );
    assert_eq!(dur.iter().map(|r| r.launches).sum::<u64>(), 13);
}

#[test]
fn two_problem_sizes_pair_in_launch_order_showing_both_shapes() {
    // One ncu file, the other with every grid doubled: no shape matches, the kernels pair in order.
    let one = std::fs::read_to_string(fixture("ncu-h200-seed-default.csv")).unwrap();
    let two = one.replace("\"(512, 512, 1)\"", "\"(1024, 1024, 1)\"");
    let (_, a) = import::parse(&one).unwrap();
    let (_, b) = import::parse(&two).unwrap();
    let cmp = compare::compare(&a, &b, Pick::Measured);
    let order: Vec<_> = cmp.rows.iter().filter(|r| r.matched_by == Matched::Order).collect();
    assert!(!order.is_empty());
    assert!(order.iter().all(|r| r.grid == d(512, 512, 1) && r.other_grid == d(1024, 1024, 1)));
    assert!(cmp.unmatched.is_empty(), "{:?}", cmp.unmatched);
}

#[test]
fn cupti_against_ncu_on_the_h200_meets_the_bar() {
    // scripts/ncu-crosscheck.sh on an H200 (2026-11-22): warpscope's CUPTI values for the 15 seed shapes,
    // and ncu profiling `warpscope run` once per shape (files concatenated), both --clock-control none.
    let ours: Report =
        serde_json::from_str(&std::fs::read_to_string(fixture("ws-h200-cupti-metrics.json")).unwrap()).unwrap();
    let (_, ncu) = read(&fixture("ncu-h200-per-shape-metrics.csv"));
    let cmp = compare::compare(&ours, &ncu, Pick::Measured);
    assert!(cmp.unmatched.is_empty(), "{:?}", cmp.unmatched);
    let worst = |metric: &str| {
        let rows: Vec<_> = cmp.rows.iter().filter(|r| r.metric == metric).collect();
        assert_eq!(rows.len(), 15, "{metric}");
        assert!(rows.iter().all(|r| r.ours_source == "measured"), "{metric}");
        rows.iter().map(|r| r.delta.abs()).fold(0.0, f64::max)
    };
    assert!(worst("achieved_occupancy") <= 1.0, "points");
    assert!(worst("gld_efficiency") <= 1.0, "points");
    assert!(worst("gld_throughput") <= 3.0, "%");
    assert!(worst("dram_read_throughput") <= 3.0, "%");
    assert!(worst("dram_write_throughput") <= 3.0, "%");
    assert_eq!(worst("gld_transactions"), 0.0, "exact");
    assert!(cmp.above(3.0).is_empty());
}

// ---- the command line ----

#[test]
fn compare_on_the_command_line() {
    let ws = fixture("ws-h200-seed.json");
    let ncu = fixture("ncu-h200-seed-default.csv");
    let (ws, ncu) = (ws.to_str().unwrap(), ncu.to_str().unwrap());
    common::cuda(&["compare", ws, ncu, "--fail-above", "3"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("duration (ms)").and(predicate::str::contains("sumMatrixOnGPU2D")))
        .stderr(predicate::str::contains("deltas above 3"));
    let json = stdout(&mut common::cuda(&["compare", ws, ncu, "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v["rows"].as_array().unwrap().len() >= 60);
    common::cuda(&["compare", ws, ncu, "--fail-above=-1"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: invalid value '-1' for '--fail-above <PCT>'"));
    common::cuda(&["compare", ws, "/no/such.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: /no/such.csv"));
    common::cuda(&["import", ncu, "--format", "json", "--quiet"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"source\": \"imported\""));
}

#[test]
fn self_compare_on_the_command_line_is_all_zero_and_passes_any_threshold() {
    for f in ["nvprof-metrics-gtx1070-levels.txt", "ncu-csv-2025-cc100-cublaslt.log", "nvprof-gpu-trace-v100-bfs.log"] {
        let p = real(f);
        let p = p.to_str().unwrap();
        let out = stdout(&mut common::cuda(&["compare", p, p, "--format", "json", "--fail-above", "0"]));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{f}: {e}: {out}"));
        let rows = v["rows"].as_array().unwrap();
        assert!(!rows.is_empty(), "{f}");
        assert!(rows.iter().all(|r| r["abs_delta"] == 0.0), "{f}");
        assert!(v["unmatched"].as_array().unwrap().is_empty(), "{f}");
    }
}

#[test]
fn fail_above_marks_the_rows_over_it() {
    let a = real("nvprof-gpu-trace-v100-bfs.log");
    let b = real("ncu-csv-2020-v100-bfs.log");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = common::cuda(&["compare", a, b, "--format", "csv", "--fail-above", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.lines().next().unwrap().starts_with("kernel,grid,block,metric,unit,warpscope,warpscope_source,other,"));
    assert!(csv.contains(",volume,"), "{csv}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("deltas above 1"));
}

#[test]
fn import_reports_what_it_read_and_full_names_on_request() {
    let f = real("nvprof-csv-metrics-trace-gtx1080-vectoradd.txt");
    let f = f.to_str().unwrap();
    common::cuda(&["import", f])
        .assert()
        .success()
        .stderr(predicate::str::ends_with("nvprof-csv, 1 record\n"))
        .stdout(predicate::str::contains(" vecAdd ").and(predicate::str::contains("Tesla").not()));
    common::cuda(&["import", f, "--full-names"])
        .assert()
        .success()
        .stdout(predicate::str::contains("void vecAdd<float>(float*, float*, float*, int)"));
    let summary = real("ncu-summary-per-kernel-cc89-heat.txt");
    common::cuda(&["import", summary.to_str().unwrap()])
        .assert()
        .success()
        .stderr(predicate::str::ends_with("ncu-text, 1 record (1 summary row)\n"))
        .stdout(predicate::str::contains("summary of 14 launches"));
}

#[test]
fn unreadable_files_say_what_they_are_and_how_to_get_a_readable_one() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.csv");
    std::fs::write(&junk, "hello\n\"a\",\"b\"\n").unwrap();
    common::cuda(&["import", junk.to_str().unwrap()]).assert().code(2).stderr(
        predicate::str::contains("not a profiler output").and(predicate::str::contains("ncu --csv --page details")),
    );
    let errors = real("ncu-error-only.log");
    let out = common::cuda(&["import", errors.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains("the profiled run failed"), "{err}");
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    common::cuda(&["import", empty.to_str().unwrap()]).assert().code(2).stderr(predicate::str::contains("empty file"));
    let binary = dir.path().join("report.ncu-rep");
    std::fs::write(&binary, b"NVIDIA\0\0\x01\x02nsight\0").unwrap();
    common::cuda(&["import", binary.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("binary file"));
}

#[test]
fn from_forces_a_reader() {
    let f = real("nvprof-summary-v100-bfs.log");
    let f = f.to_str().unwrap();
    common::cuda(&["import", f, "--from", "nvprof-text", "-q", "--format", "json"]).assert().success();
    common::cuda(&["import", f, "--from", "ncu-csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no ncu-csv table found"));
    common::cuda(&["import", f, "--from", "nvprof-xml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value 'nvprof-xml'").and(predicate::str::contains("nvprof-text")));
}

// ---- round trip: every file warpscope writes reads back to the same records ----

fn sweep(format: &str, dir: &Path) -> PathBuf {
    let out = dir.join(format!("run.{format}"));
    let mut args = vec!["sweep", "sum-matrix", "--block", "32x16,16x16,2048x1", "--model", "--format", format, "-o"];
    let o = out.to_str().unwrap().to_string();
    args.push(&o);
    args.extend_from_slice(SMALL);
    mock(&args).assert().success();
    out
}

#[test]
fn json_jsonl_and_csv_of_a_sweep_import_to_the_same_records() {
    let dir = tempfile::tempdir().unwrap();
    let (_, json) = read(&sweep("json", dir.path()));
    // Every part of a record is there to lose: an invalid row, time samples, verification, NVML
    // conditions, the model's bound, the sweep index.
    assert!(json.records.iter().any(|r| r.status == Status::Invalid));
    let ok = json.records.iter().find(|r| r.status == Status::Ok).unwrap();
    assert!(ok.time_ms.as_ref().is_some_and(|t| !t.samples.is_empty()));
    assert!(ok.verification.is_some() && ok.conditions.is_some() && ok.bound.is_some() && ok.index.is_some());
    for (format, want) in [("jsonl", Format::WarpscopeJsonl), ("csv", Format::WarpscopeCsv)] {
        let (got_format, back) = read(&sweep(format, dir.path()));
        assert_eq!(got_format, want);
        assert_eq!(back.records, json.records, "{format}");
    }
}

#[test]
fn imported_records_written_in_every_format_read_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "ncu-csv-2020-v100-bfs.log",
        "nvprof-metrics-gtx1070-levels.txt",
        "ncu-metrics-text-a100-cutlass.txt",
        "nvprof-csv-metrics-trace-gtx1080-vectoradd.txt",
        "ncu-text-2023-interleaved-gtest-g2bmm.profile",
        "nvprof-csv-unquoted-summary-epicflow.csv",
        "nvprof-in-markdown-fences-zerocopy.md",
    ] {
        let (_, original) = read(&real(f));
        for format in ["json", "jsonl", "csv"] {
            let out = dir.path().join(format!("{f}.{format}"));
            common::cuda(&["import", real(f).to_str().unwrap(), "--format", format, "-q", "-o", out.to_str().unwrap()])
                .assert()
                .success();
            let (_, back) = read(&out);
            assert_eq!(back.records, original.records, "{f} as {format}");
        }
    }
}

#[test]
fn the_models_estimates_read_back_from_csv() {
    let dir = tempfile::tempdir().unwrap();
    let (json, csv) = (dir.path().join("e.json"), dir.path().join("e.csv"));
    for (format, out) in [("json", &json), ("csv", &csv)] {
        let mut args =
            vec!["estimate", "sum-matrix", "--gpu", "H200", "--block", "32x16,64x4,2048x1", "--format", format, "-o"];
        let o = out.to_str().unwrap().to_string();
        args.push(&o);
        mock(&args).assert().success();
    }
    let (_, a) = read(&json);
    let (_, b) = read(&csv);
    assert!(a.records.iter().any(|r| r.metrics.iter().any(|m| m.source == Source::Estimated)));
    assert_eq!(b.records, a.records);
}

/// A V100's `nvprof --metrics all` (darknet19 on a Tesla V100-PCIE-32GB, the first kernel's 158 rows):
/// every metric nvprof had on compute capability 7.0 is either in the catalogue, with the very
/// "Metric Description" nvprof printed for it, or refused with its reason; and the file's rows import
/// under the catalogue's units (levels 0-10, byte counts, %).
#[test]
fn every_metric_of_a_v100s_metrics_all_is_measured_or_refused_with_nvprofs_words() {
    use warpscope::metrics::{self, UNAVAILABLE};
    use warpscope::nvprof::names;
    let text = std::fs::read_to_string(fixture("profilers/nvprof-metrics-all-v100-darknet.txt")).unwrap();
    // `         18                             inst_per_warp      Instructions per warp  422.000000 ...`
    let row = regex::Regex::new(r"^\s+\d+\s+([a-z][a-z0-9_]+)\s{2,}(.+?)\s{2,}(\S+|\w+ \(\d+\))\s+\S").unwrap();
    let mut seen = 0;
    // The metric rows follow the kernel's line (darknet's own layer table comes before it).
    let after = text.split_once("    Kernel: ").unwrap().1;
    for line in after.lines() {
        let Some(c) = row.captures(line) else { continue };
        let (name, described) = (&c[1], c[2].trim());
        seen += 1;
        if metrics::lookup(name).is_some() {
            assert_eq!(names::short(name), described, "{name}");
        } else {
            assert!(UNAVAILABLE.iter().any(|(n, _)| *n == name), "{name} is neither measured nor refused");
        }
    }
    assert_eq!(seen, 158);
    let (_, rep) = import::read_file(&fixture("profilers/nvprof-metrics-all-v100-darknet.txt"), None).unwrap();
    let r = &rep.records[0];
    assert_eq!(r.kernel, "normalize_kernel");
    // dram_utilization    Device Memory Utilization    Idle (0)    High (7)     Low (1)   (the average kept)
    assert_value(r, "dram_utilization", 1.0, "level");
    // sysmem_write_bytes    System Memory Write Bytes         160         160         160
    assert_value(r, "sysmem_write_bytes", 160.0, "byte");
}

/// Files saved through a Windows shell: PowerShell's `>` writes UTF-16 with a byte-order mark, other
/// tools UTF-8 with one. The same ncu CSV and nvprof text, as written and so re-encoded, give the same
/// records.
#[test]
fn byte_order_marks_and_utf16_files_read_as_their_text() {
    for name in ["profilers/ncu-csv-2023-a100-conv2d.csv", "profilers/nvprof-summary-v100-bfs.log"] {
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        let (format, want) = import::parse(&text).unwrap();
        let crlf = text.replace('\n', "\r\n");
        let encodings: [(&str, Vec<u8>); 3] = [
            ("UTF-8 with a BOM", [&[0xEF, 0xBB, 0xBF][..], text.as_bytes()].concat()),
            (
                "UTF-16LE, CRLF",
                [0xFF, 0xFE].into_iter().chain(crlf.encode_utf16().flat_map(u16::to_le_bytes)).collect(),
            ),
            ("UTF-16BE", [0xFE, 0xFF].into_iter().chain(text.encode_utf16().flat_map(u16::to_be_bytes)).collect()),
        ];
        for (how, bytes) in encodings {
            let (f, got) = import::read(&bytes[..], None).unwrap_or_else(|e| panic!("{name} in {how}: {e}"));
            assert_eq!(f, format, "{name} in {how}");
            assert_eq!(got.records, want.records, "{name} in {how}");
        }
    }
}

/// The metric names of every real nvprof file here — Kepler's (K20c, K40c), Maxwell's (GTX 980),
/// Pascal's (GTX 1070, a GTX 1080's `--metrics all` trace with 162 of them as columns), Volta's (V100):
/// each is measured, an older name of a measured one, or refused with a reason, so a script written for
/// any of those cards runs or says why not. (The trace's other column is an event.)
#[test]
fn every_metric_name_of_real_nvprof_files_is_measured_renamed_or_refused() {
    use warpscope::metrics::{self, UNAVAILABLE};
    let known = |n: &str| {
        metrics::resolve(n).is_some()
            || UNAVAILABLE.iter().any(|(u, _)| *u == n)
            || warpscope::nvprof::events::lookup(n).is_some()
    };
    let csv_row = regex::Regex::new(r#"^"[^"]*","[^"]*",\d+,"([a-z][a-z0-9_]+)","[^"]*[A-Za-z]"#).unwrap();
    let text_row =
        regex::Regex::new(r"^\s+\d+\s+([a-z][a-z0-9_]+)(?: \(\d+ instances\))?\s{2,}.*?[A-Za-z].*?\s{2,}\S").unwrap();
    let mut names = std::collections::BTreeSet::new();
    for f in [
        "nvprof-csv-events-metrics-k40c-cheby.csv",
        "nvprof-csv-metrics-k20c-gaussian.txt",
        "nvprof-events-metrics-gtx980-maxdnn.txt",
        "nvprof-metrics-gtx1070-levels.txt",
        "nvprof-metrics-gtx1070-throughput.txt",
        "nvprof-metrics-all-v100-darknet.txt",
        "nvprof-csv-metrics-trace-gtx1080-vectoradd.txt",
        "nvprof-metrics-all-gt650m-gameoflife.txt",
    ] {
        let text = std::fs::read_to_string(fixture(&format!("profilers/{f}"))).unwrap();
        let mut in_metrics = false;
        for line in text.lines() {
            if line.contains("Metric result:") {
                in_metrics = true;
            } else if line.contains("Event result:") {
                in_metrics = false;
            }
            if let Some(c) = csv_row.captures(line) {
                names.insert(c[1].to_string());
            } else if let Some(c) = text_row.captures(line).filter(|_| in_metrics) {
                names.insert(c[1].to_string());
            } else if line.starts_with("\"Device\",\"Context\"") {
                // A metrics trace: the columns after the launch's own are metric names.
                names.extend(line.split(',').skip(5).map(|c| c.trim_matches('"').to_string()));
            }
        }
    }
    assert!(names.len() > 170, "{}", names.len());
    let unknown: Vec<_> = names.iter().filter(|n| !known(n)).collect();
    assert!(unknown.is_empty(), "neither measured, renamed nor refused: {unknown:?}");
    // The K40c's events (per-subpartition and per-texture-unit counts among them) and the GTX 980's:
    // each counted, or refused as unavailable with the reason, none unknown.
    let event_row = regex::Regex::new(r#"^"[^"]*","[^"]*",\d+,"([a-z][a-z0-9_]+)",[\d.]+,"#).unwrap();
    let text_event_row = regex::Regex::new(r"^\s+\d+\s+([a-z][a-z0-9_]+)\s+\d").unwrap();
    let mut events = std::collections::BTreeSet::new();
    for f in ["nvprof-csv-events-metrics-k40c-cheby.csv", "nvprof-events-metrics-gtx980-maxdnn.txt"] {
        let text = std::fs::read_to_string(fixture(&format!("profilers/{f}"))).unwrap();
        events.extend(text.lines().filter_map(|l| event_row.captures(l)).map(|c| c[1].to_string()));
        if let Some((_, after)) = text.split_once("Event result:") {
            let rows = after.split("Metric result:").next().unwrap_or("");
            events.extend(rows.lines().filter_map(|l| text_event_row.captures(l)).map(|c| c[1].to_string()));
        }
    }
    assert!(events.len() >= 25, "{events:?}");
    for e in &events {
        if let Err(err) = warpscope::nvprof::events::parse(e) {
            assert!(err.to_string().contains("unavailable"), "{e}: {err}");
        }
    }
}
