#!/usr/bin/env bash
# What binds the kernels the time model gets wrong (issue 14): ncu's speed-of-light, memory, warp-state,
# occupancy and scheduler sections for one launch of each (kernel, block) pair, with the L1 and L2
# counters the model's terms stand for, so each term can be set against the unit's measured busy share.
#   scripts/ncu-sections.sh [OUTDIR] [--device N]
# PAIRS overrides the list: "kernel:block kernel:block ...". One text file per pair, and ncu-sections.csv
# with the raw metrics of every pair (ncu --csv --page raw).
set -euo pipefail
source "$(dirname "$0")/args.sh"
out=${out:-ncu-sections-$(date -u +%Y%m%d-%H%M)}
mkdir -p "$out"
ncu=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)}
[ -x "$ncu" ] || { echo "ncu-sections: no ncu on this machine" >&2; exit 1; }
PAIRS=${PAIRS:-"gaussian-smooth:32x8 gaussian-smooth:32x32 gaussian-smooth:16x16 gaussian-smooth:1024x1
blur-rows-tiled:32x4 blur-rows-tiled:32x32 blur-cols-tiled:16x16 matmul-coalesced:32x1 matmul-coalesced:32x4
matmul-coalesced:32x32 transpose-shared:32x8 transpose-shared:16x16 copy:64 copy:1024 blur-rgh:32 blur-rgv-seg:32x4"}
metrics=gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum
metrics+=,l1tex__m_xbar2l1tex_read_sectors.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_op_read_hit_rate.pct
metrics+=,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for pair in $PAIRS; do
  kernel=${pair%%:*} block=${pair#*:}
  name=$kernel-$block
  entry=$("$ws" kernels --format json | python3 -c 'import json,sys; print({k["name"]: k["entry"] for k in json.load(sys.stdin)}[sys.argv[1]])' "$kernel")
  echo "== $kernel $block" | tee "$out/$name.txt"
  "$ncu" --launch-count 1 --kernel-name "$entry" --launch-skip 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
    --section SchedulerStats --section LaunchStats --metrics "$metrics" \
    "$ws" sweep "$kernel" --block "$block" --device "$device" --iters 3 --warmup 1 -q >>"$out/$name.txt" 2>&1 \
    || echo "$name: ncu failed" | tee -a "$out/$name.txt"
  grep -E "Duration|Throughput|Busy|Active Warps|Achieved Occupancy|Theoretical Occupancy|Stall|wavefronts|hit_rate|issue_active|inst_executed|Hit Rate|Warp Cycles|Issued Warp|No Eligible|One or More" "$out/$name.txt" | sed 's/^/   /' | head -60
done
