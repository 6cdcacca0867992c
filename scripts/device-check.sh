#!/usr/bin/env bash
# On a GPU machine: the built-in self-test, the seed's sweeps (source 001) and the ncu cross-check.
#   scripts/device-check.sh OUTDIR        (binary: $WARPSCOPE_BIN, default target/release/warpscope)
#   DEVICE_CHECK_ONLY='REGEX' runs only the steps whose names match it (e.g. 'ncu-check|bench|nvprof'),
#   DEVICE_CHECK_SKIP='REGEX' all but those: a run split in parts that each fit a time limit.
# Every step's output goes to OUTDIR/<step>.log (and .json where there is a report); a short summary is
# printed last. Clocks, power limits and GPU modes are left alone (ncu runs with --clock-control none).
set -uo pipefail
out=${1:?usage: scripts/device-check.sh OUTDIR}
bin=${WARPSCOPE_BIN:-target/release/warpscope}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
summary=()

step() { # step NAME CMD...: runs CMD, logs it with its wall time, records the exit code
  local name=$1; shift
  # DEVICE_CHECK_ONLY='kfs-.*|ncu-check': only the steps whose names match (to split a run in parts).
  if [ -n "${DEVICE_CHECK_ONLY:-}" ] && ! [[ "$name" =~ ^(${DEVICE_CHECK_ONLY})$ ]]; then return 0; fi
  if [ -n "${DEVICE_CHECK_SKIP:-}" ] && [[ "$name" =~ ^(${DEVICE_CHECK_SKIP})$ ]]; then return 0; fi
  local t0 t1 rc
  t0=$(date +%s.%N)
  "$@" >"$out/$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  local wall
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  echo "$wall" >"$out/$name.wall"
  summary+=("$(printf '%-14s exit %-3s %7ss' "$name" "$rc" "$wall")")
  return 0
}

{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } >"$out/env.txt" 2>&1

step devices   "$bin" devices
# The time model's figures measured on this device (every microbenchmark, the run and in-flight tables).
step calibrate "$bin" devices --calibrate
step selftest  "$bin" selftest
# A reference that is not a whole number of the 16 MiB staging buffers it reaches the GPU through
# (src/gpu/cuda.rs upload_staged): 256,016,000 outputs, the last 163,456 copied on their own.
step staging   "$bin" sweep sum-matrix --nx 16000 --ny 16001 --bx 32,64 --by 2 -v -o "$out/staging.json" --format json
# The seed's sweeps: the first with 4 shapes, the second and third as one cartesian sweep (12 shapes,
# (256,8) invalid), then the seed's one-line run.
# The whole seed sweep in one process, for its wall time (setup and verification included): source 001's
# 15 shapes plus (64,1) and (32,8) = 17 configs.
step seed17    "$bin" sweep sum-matrix --block 32x32,32x16,16x32,16x16,32x8 --bx 64,128,256 --by 1,2,4,8 -v --model -o "$out/seed17.json" --format json --plot "$out/seed17.svg" --html "$out/seed17.html"
# sumMatrixOnGPUMix (source 001's 2D grid of 1D blocks), the kernel added by docs/ADDING-A-KERNEL.md.
step mix       "$bin" sweep sum-matrix-mix --bx 32,64,128,256,512,1024 --metrics achieved_occupancy,gld_efficiency --model -o "$out/mix.json" --format json
# Kernel files (docs/KERNEL-FILE.md): each example compiled by NVRTC for this device and checked against
# its PTX, then again from the on-disk cache (the second wall time is the cache's).
export WARPSCOPE_CACHE_DIR="$out/cache"
cc=$("$bin" devices --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["compute_capability"].replace(".", ""))')
for f in "$here"/../examples/kernels/*.toml; do
  n=$(basename "$f" .toml)
  step "kf-$n" "$bin" kernels --kernel-file "$f" --arch "$cc"
  step "kf-$n-cached" "$bin" kernels --kernel-file "$f" --arch "$cc"
done
# Kernel files swept on the GPU (sweep --kernel-file): every example verified and timed, matmul with the
# seed's counters, the course's kernel from its own source against the built-in sum-matrix on the same
# blocks (times should agree), oob.toml's out-of-bounds bug as failed rows naming compute-sanitizer
# (exit 1, not a crash), a kernel that faults on some parameter values (the rest go on in a new process),
# and the same sweep twice from the cache (the second start should be under 0.5 s).
step kfs-vector_add "$bin" sweep --kernel-file "$here/../examples/kernels/vector_add.toml" --model --format json -o "$out/kfs-vector_add.json"
step kfs-scale      "$bin" sweep --kernel-file "$here/../examples/kernels/scale.toml" --model --format json -o "$out/kfs-scale.json"
step kfs-template   "$bin" sweep --kernel-file "$here/../examples/kernels/template_scale.toml" --model --format json -o "$out/kfs-template.json"
step kfs-constant   "$bin" sweep --kernel-file "$here/../examples/kernels/poly_constant.toml" --model --format json -o "$out/kfs-constant.json"
step kfs-sums       "$bin" sweep --kernel-file "$here/../examples/kernels/partial_sums.toml" --model --format json -o "$out/kfs-sums.json"
step kfs-vector     "$bin" sweep --kernel-file "$here/../examples/kernels/saxpy4.toml" --model --format json -o "$out/kfs-vector.json"
step kfs-headers    "$bin" sweep --kernel-file "$here/../examples/kernels/cg_block_sum.toml" --model --format json -o "$out/kfs-headers.json"
step kfs-conv2d     "$bin" sweep --kernel-file "$here/../examples/kernels/conv2d.toml" --bx 16,32,64 --by 1,2,4,8 --define tile_x=1,2,4 --define tile_y=1,2,4 --model --format json -o "$out/kfs-conv2d.json"
step kfs-matmul     "$bin" sweep --kernel-file "$here/../examples/kernels/matmul.toml" --metrics achieved_occupancy,gld_throughput,gld_efficiency --model --format json -o "$out/kfs-matmul.json"
# A gather through column indices that are data: the model follows the offsets and indices the launch read.
step kfs-spmv       "$bin" sweep --kernel-file "$here/../examples/kernels/spmv_csr.toml" --seed 3 --model --format json -o "$out/kfs-spmv.json"
# Work decided by floats the kernel computes (escape-time Mandelbrot): the model computes each sampled
# pixel's iterations, over blocks spread across the image.
step kfs-mandelbrot "$bin" sweep --kernel-file "$here/../examples/kernels/mandelbrot.toml" --model --format json -o "$out/kfs-mandelbrot.json"
# A polygon in __constant__ memory ([[constants]]) deciding each point's work (MODEL.md section 29).
step kfs-polygon    "$bin" sweep --kernel-file "$here/../examples/kernels/polygon.toml" --model --metrics inst_executed --format json -o "$out/kfs-polygon.json"
# Atomics (MODEL.md sections 36-37): a histogram by shared-memory atomics and one by global atomics,
# each checked against the other, and one of 4096 bins by global atomics (16 KiB of bins, 32 L2 slices)
# checked against a kernel with none; the model prices the busiest slice's atomic unit.
step kfs-hist-shared "$bin" sweep --kernel-file "$here/../examples/kernels/histogram_shared.toml" --model --format json -o "$out/kfs-hist-shared.json"
step kfs-hist-global "$bin" sweep --kernel-file "$here/../examples/kernels/histogram_global.toml" --model --format json -o "$out/kfs-hist-global.json"
step kfs-sum-atomic "$bin" sweep --kernel-file "$here/../examples/kernels/atomic_sum.toml" --model --format json -o "$out/kfs-sum-atomic.json"
step kfs-sum-warp "$bin" sweep --kernel-file "$here/../examples/kernels/atomic_sum_warp.toml" --model --format json -o "$out/kfs-sum-warp.json"
step kfs-hist-wide "$bin" sweep --kernel-file "$here/../examples/kernels/histogram_wide.toml" --size bins=4096 --model --format json -o "$out/kfs-hist-wide.json"
# Bytes (MODEL.md section 38): uchar4 loads and one-byte stores, four lanes to a word, and NVVM's
# second load of each pixel that ptxas drops; the estimated counters must be CUPTI's (summary: kfs-grey-u8).
step kfs-grey-u8 "$bin" sweep --kernel-file "$here/../examples/kernels/grey_u8.toml" --model --metrics gld_transactions,gst_transactions,gld_efficiency,gst_efficiency --format json -o "$out/kfs-grey-u8.json"
step kfs-matmul-run "$bin" run --kernel-file "$here/../examples/kernels/matmul.toml" --block 16x16 --define TILE=16
kblocks=32x32,32x16,16x32,16x16,32x8,64x2,128x1,256x1
step kfs-sum_matrix "$bin" sweep --kernel-file "$here/../examples/kernels/sum_matrix.toml" --block "$kblocks" --seed 7 --model --format json -o "$out/kfs-sum_matrix.json"
step kfs-builtin    "$bin" sweep sum-matrix --block "$kblocks" --seed 7 --model --format json -o "$out/kfs-builtin.json"
step kfs-ptx        "$bin" sweep --kernel-file "$here/../examples/kernels/sum_matrix_ptx.toml" --metrics gld_throughput --model --format json -o "$out/kfs-ptx.json"
# The model on kernel files (traced from their PTX) against their measured times, per kernel; the
# kernel file's sumMatrix and the built-in one must get the same predictions.
step kfs-model-check "$bin" model-check "$out"/kfs-{vector_add,scale,template,constant,sums,vector,headers,conv2d,matmul,spmv,mandelbrot,polygon,hist-shared,hist-global,hist-wide,sum-atomic,sum-warp,grey-u8,ptx,sum_matrix,builtin}.json
# The same kernel files estimated offline from their PTX (NVRTC on this machine; registers given).
step kfe-conv2d     "$bin" estimate --kernel-file "$here/../examples/kernels/conv2d.toml" --gpu H100 --registers 32 --bx 16,32,64 --by 1,2,4,8 --define tile_x=1,2,4 --define tile_y=1,2,4 --format json -o "$out/kfe-conv2d.json"
# Kernel-file sweeps predicted again from their files (model-check --kernel-file): the same predictions
# as the sweeps made, where the file, the calibration and the occupancy are the sweep's.
for n in conv2d spmv matmul; do
  f=$n; [ "$n" = spmv ] && f=spmv_csr
  step "kfr-$n" "$bin" model-check "$out/kfs-$n.json" --kernel-file "$here/../examples/kernels/$f.toml" --format json
  step "kfr-$n-stored" "$bin" model-check "$out/kfs-$n.json" --format json
done
step kfe-spmv       "$bin" estimate --kernel-file "$here/../examples/kernels/spmv_csr.toml" --gpu H100 --registers 32 --format json -o "$out/kfe-spmv.json"
step kfe-mandelbrot "$bin" estimate --kernel-file "$here/../examples/kernels/mandelbrot.toml" --gpu H100 --registers 32 --format json -o "$out/kfe-mandelbrot.json"
step kfe-polygon    "$bin" estimate --kernel-file "$here/../examples/kernels/polygon.toml" --gpu H100 --registers 32 --format json -o "$out/kfe-polygon.json"
step kfe-ptx        "$bin" estimate --kernel-file "$here/../examples/kernels/sum_matrix_ptx.toml" --gpu H100 --registers 12 --format json -o "$out/kfe-ptx.json"
step kfs-oob        "$bin" sweep --kernel-file "$here/../examples/kernels/oob.toml" --format json -o "$out/kfs-oob.json"
# Every element type compared on the GPU against a reference kernel: BREAK = 1 puts one wrong element in
# each of the twelve outputs (exit 1), which every type's comparison must find (summary: "kfs-types").
step kfs-types      "$bin" sweep --kernel-file "$here/../examples/kernels/all_types.toml" --define BREAK=0,1 --seed 7 -v --format json -o "$out/kfs-types.json"
WARPSCOPE_VERIFY_ON_HOST=1 step kfs-types-host "$bin" sweep --kernel-file "$here/../examples/kernels/all_types.toml" --define BREAK=0,1 --seed 7 -v --format json -o "$out/kfs-types-host.json"
mkdir -p "$out/crash"
cat >"$out/crash/crash.cu" <<'CU'
// Faults (writes near address 0) when BAD is 1; with BAD 0 it writes a[i] = 2i.
extern "C" __global__ void crash(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (BAD && i == 7) { ((volatile float *)0x10)[0] = 1.0f; }
  if (i < n) a[i] = 2.0f * i;
}
CU
printf 'name = "crash"\nsource = "crash.cu"\nentry = "crash"\nproblem_size = "n"\n[sizes]\nn = 100000\n[tune_params]\nblock_size_x = [64, 128]\nBAD = [0, 1]\n[[args]]\nname = "a"\ntype = "f32"\nlen = "n"\noutput = true\n[[args]]\nname = "n"\ntype = "i32"\nvalue = "n"\n[verify]\nsame_as_first = true\n' >"$out/crash/crash.toml"
step kfs-crash      "$bin" sweep --kernel-file "$out/crash/crash.toml" --format json -o "$out/kfs-crash.json"
# A kernel that never ends at one block shape (examples/kernels/spin.toml: 64-thread blocks wait for a
# flag that stays 0): --timeout gives up on it, exit 124, the 32-thread configuration written; the outer
# guard kills with SIGKILL (exit 137) if the give-up did not come.
step kfs-timeout    timeout -s KILL 60 "$bin" sweep --kernel-file "$here/../examples/kernels/spin.toml" --timeout 2 --format json -o "$out/kfs-timeout.json"
# A kernel file's sweep in two shards merged, and resumed from the first shard (8 configurations).
kshard=(sweep --kernel-file "$here/../examples/kernels/conv2d.toml" --block 32x8,16x16 --define tile_x=1,2 --define tile_y=1,2 --seed 7 --format json)
step kfs-shard1     "$bin" "${kshard[@]}" --shard 1/2 -o "$out/kfs-shard1.json"
step kfs-shard2     "$bin" "${kshard[@]}" --shard 2/2 -o "$out/kfs-shard2.json"
step kfs-merge      "$bin" merge "$out/kfs-shard2.json" "$out/kfs-shard1.json" --format json -o "$out/kfs-merged.json"
step kfs-resume     "$bin" "${kshard[@]}" --resume "$out/kfs-shard1.json" -o "$out/kfs-resumed.json"
# A kernel file timed until its spread is under 1 % (batches of 10, at most 500 launches).
step kfs-noise      "$bin" sweep --kernel-file "$here/../examples/kernels/scale.toml" --until-noise 1 --min-iters 10 --max-iters 500 --format json -o "$out/kfs-noise.json"
export WARPSCOPE_CACHE_DIR="$out/cache-starts"
step kfs-start1     "$bin" sweep --kernel-file "$here/../examples/kernels/conv2d.toml" --block 32x8 --define tile_x=1,2 --define tile_y=1,2
step kfs-start2     "$bin" sweep --kernel-file "$here/../examples/kernels/conv2d.toml" --block 32x8 --define tile_x=1,2 --define tile_y=1,2
export WARPSCOPE_CACHE_DIR="$out/cache"
# The occupancy calculator against the driver's, on probe kernels of many register and shared-memory sizes.
step occupancy "$bin" occupancy --against-driver
# Source 004 (SKE): 32 x k blocks, k = 1..16, on 480x270 RGB frames, with the time model beside.
for k in resize rgb-to-gray gaussian-smooth; do
  step "ske-$k" "$bin" sweep "$k" --bx 32 --by 1..16 --model -o "$out/ske-$k.json" --format json
done
step sweep1    "$bin" sweep sum-matrix --block 32x32,32x16,16x32,16x16 -o "$out/sweep1.json" --format json
step sweep23   "$bin" sweep sum-matrix --bx 64,128,256 --by 1,2,4,8 -o "$out/sweep23.json" --format json
step run32x16  "$bin" run sum-matrix --block 32x16
step table     "$bin" sweep sum-matrix --block 32x32,32x16,16x32,16x16,64x2,128x2,256x1,256x8 --metrics achieved_occupancy,gld_throughput,gld_efficiency

# Measured metrics through CUPTI (the seed's three) and every metric of the catalogue on one shape.
step metrics3  "$bin" sweep sum-matrix --block 32x32,32x16,16x32,16x16 --metrics achieved_occupancy,gld_throughput,gld_efficiency -v
step metricsall "$bin" run sum-matrix --block 32x16 --metrics all --format json -o "$out/metrics-all.json"
# The counter-availability cache ($WARPSCOPE_CACHE_DIR/cupti): written by a first sweep with counters, read
# by a second, and a corrupted file replaced by a third; every counter measured each time. Then `warpscope
# nvprof` on a compiled program reads the same file (still one in the folder), and profiles every kernel
# after the file is corrupted again.
cupti_cache() {
  local dir="$out/cupti-cache" run f n
  rm -rf "$dir"
  for run in write read corrupt; do
    if [ "$run" = corrupt ]; then for f in "$dir"/cupti/*; do head -c 100 /dev/urandom >"$f"; done; fi
    WARPSCOPE_CACHE_DIR=$dir "$bin" sweep sum-matrix --block 32x16,16x16 --metrics achieved_occupancy,gld_throughput,gld_efficiency \
      --format json -o "$out/cupti-cache-$run.json" || return 1
    n=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["records"]
want = {"achieved_occupancy", "gld_throughput", "gld_efficiency"}
print(sum(1 for x in r if want <= {m["name"] for m in x["metrics"] if m["source"] == "measured"}))' "$out/cupti-cache-$run.json")
    echo "cupti-cache $run: $n of 2 configurations with all three counters measured; $(ls "$dir/cupti" | wc -l) cache file(s)"
    [ "$n" = 2 ] || return 1
  done
  command -v nvcc >/dev/null 2>&1 || { echo "cupti-cache nvprof: no nvcc, not run"; return 0; }
  nvcc -O3 -o "$dir/multi" "$here/../tests/programs/multi.cu" || return 1
  for run in nvprof nvprof-corrupt; do
    if [ "$run" = nvprof-corrupt ]; then for f in "$dir"/cupti/*; do head -c 100 /dev/urandom >"$f"; done; fi
    WARPSCOPE_CACHE_DIR=$dir "$bin" nvprof --metrics achieved_occupancy,gld_efficiency --csv \
      --log-file "$out/cupti-cache-$run.csv" "$dir/multi" >/dev/null || return 1
    n=$(grep -c '"achieved_occupancy"' "$out/cupti-cache-$run.csv")
    echo "cupti-cache $run: achieved_occupancy for $n kernels; $(ls "$dir/cupti" | wc -l) cache file(s)"
    [ "$n" -ge 3 ] && [ "$(ls "$dir/cupti" | wc -l)" = 1 ] || return 1
  done
}
step cupti-cache cupti_cache
# Source 000's peak benchmarks, transposes and Gaussian blur, and the patterns of sources 002 and 003,
# each with the model's estimate beside the measurement.
step peak      "$bin" peak --plot "$out/mad.svg"
step transpose "$bin" transpose --bench
# The seed's naive-transpose finding is about height: a fixed width, taller and taller images.
step transpose-tall "$bin" transpose --bench --width 4096 --sizes 1024,2048,4096,8192,16384,32768
step blur-bench "$bin" blur --bench
for a in direct separable separable-tiled recursive-vh recursive recursive-seg; do
  step "blur-$a" "$bin" blur --image "$here/../tests/fixtures/astronaut.png" --algo "$a" -o "$out/astronaut-$a.png"
done
for k in matmul-coalesced matmul-strided; do
  step "$k" "$bin" sweep "$k" --block 16x16,32x8,32x32 --metrics gld_efficiency,gld_transactions --model -o "$out/$k.json" --format json
done
for k in diverge-odd-even diverge-warp; do
  step "$k" "$bin" sweep "$k" --bx 128,256 --metrics branch_efficiency,warp_execution_efficiency --model -o "$out/$k.json" --format json
done
for k in aos soa; do
  step "$k" "$bin" sweep "$k" --bx 128,256 --metrics gld_efficiency,gld_throughput --model -o "$out/$k.json" --format json
done
# The timing options on the seed kernel: warm against cold L2, timing until the spread is under 0.5 %,
# round-robin, and the baseline comparison of two warm runs (which should find nothing).
shapes=(sweep sum-matrix --block 32x16,16x16,256x1 --seed 3 --format json -q)
step timing-warm  "$bin" "${shapes[@]}" -o "$out/warm.json"
step timing-warm2 "$bin" "${shapes[@]}" -o "$out/warm2.json"
step timing-cold  "$bin" "${shapes[@]}" --cold -o "$out/cold.json"
step timing-noise "$bin" "${shapes[@]}" --until-noise 0.5 -o "$out/noise.json"
step timing-inter "$bin" "${shapes[@]}" --interleave -o "$out/inter.json"
step baseline     "$bin" compare --baseline "$out/warm.json" "$out/warm2.json"
step baseline-cold "$bin" compare --baseline "$out/warm.json" "$out/cold.json"
# The time model against every built-in kernel (issue 14): calibration, ordinary block lists, model-check.
step model-check env WARPSCOPE_BIN="$bin" bash "$here/model-check.sh" "$out/model-check"
# The memory, occupancy and instruction models against CUPTI's counters, every built-in kernel at a few
# shapes; and ncu's sections for the shapes the time model gets wrong (what binds them).
step model-counters env WARPSCOPE_BIN="$bin" bash "$here/model-counters.sh" "$out/model-counters"
if command -v ncu >/dev/null 2>&1; then
  step ncu-sections env WARPSCOPE_BIN="$bin" bash "$here/ncu-sections.sh" "$out/ncu-sections"
  # L1 data-pipe passes of 383 load patterns, for memory::load_wavefronts (docs/MODEL.md section 19).
  command -v nvcc >/dev/null 2>&1 && step l1-wavefronts bash "$here/l1-wavefronts.sh" "$out/l1-wavefronts"
fi
# Clocks per load when the L1 is the only limit, and matmul's pair of loads hitting or missing L1 (needs
# nvcc; docs/MODEL.md section 20).
command -v nvcc >/dev/null 2>&1 && step l1-throughput bash "$here/l1-throughput.sh" "$out/l1-throughput"
# L1's request port to L2 against the model's rule (ncu), and rgH at two row pitches (section 27).
command -v ncu >/dev/null 2>&1 && step l1-port env WARPSCOPE_BIN="$bin" bash "$here/l1-port.sh" "$out/l1-port"
# Warp slots a block holds idle while its last warps finish, by block size (needs nvcc; section 20).
command -v nvcc >/dev/null 2>&1 && step block-drain bash "$here/block-drain.sh" "$out/block-drain"
# Reads against the matrix rows a block spreads over (kernel files; docs/MODEL.md section 17).
step dram-rows env WARPSCOPE_BIN="$bin" bash "$here/dram-rows.sh" "$out/dram-rows"
# DRAM's rate for short runs, standalone (needs nvcc): what calRuns measures, on a 4x larger buffer; and
# DRAM's read rate as calRead measures it, by flush and length (calibration version 4).
if command -v nvcc >/dev/null 2>&1; then
  step dram-runs bash -c "nvcc -O3 -o '$out/dram-runs' '$here/dram-runs.cu' && '$out/dram-runs'"
  step dram-read bash -c "nvcc -O3 -std=c++17 -o '$out/dram-read' '$here/dram-read.cu' && '$out/dram-read'"
fi
if command -v compute-sanitizer >/dev/null 2>&1; then
  step sanitizer compute-sanitizer --tool memcheck --error-exitcode 1 "$bin" selftest
fi
if command -v ncu >/dev/null 2>&1; then
  step ncu-check bash "$here/ncu-crosscheck.sh" "$out"
  step bench     bash "$here/bench-vs-ncu.sh" "$out"
else
  summary+=("ncu-check      skipped: ncu not found")
fi
# warpscope nvprof on compiled programs (needs nvcc and ncu): the course's sumMatrix under nvprof's command
# line against ncu on every seed shape, multi's summary against its CUDA events, the overhead on NVIDIA's
# samples when CUDA_SAMPLES names a cuda-samples checkout, CUDA graphs' kernels against ncu. Results in
# $out/nvprof/{seed,multi,graph,threads,region,twogpu,libs,catalogue}-summary.txt (twogpu skipped with one
# GPU; libs: cuBLAS, cuFFT and cp.async kernels against ncu; catalogue: `--metrics all` against ncu and
# counts worked out by hand).
if command -v nvcc >/dev/null 2>&1 && command -v ncu >/dev/null 2>&1; then
  # The overhead part (every variant on NVIDIA's samples, ~7 minutes) only with NVPROF_OVERHEAD=1.
  parts=(build options seed multi graph threads region twogpu libs catalogue)
  [ "${NVPROF_OVERHEAD:-0}" = 1 ] && parts+=(overhead)
  step nvprof env WARPSCOPE_BIN="$bin" NVPROF_JOBS="${NVPROF_JOBS:-3}" bash "$here/nvprof-check.sh" "$out/nvprof" "${parts[@]}"
else
  summary+=("nvprof         skipped: nvcc or ncu not found")
fi

echo "== warpscope device check ($(head -n 1 "$out/env.txt"))"
sed -n 2,3p "$out/env.txt"
printf '%s\n' "${summary[@]}"
for f in sweep1 sweep23; do
  [ -f "$out/$f.json" ] && python3 - "$out/$f.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
base = r["baselines"]["memcpy_dtod_gbs"]["value"]
print(f"{sys.argv[1].split('/')[-1]}: memcpy {base:.0f} GB/s")
for rec in r["records"]:
    m = {x["name"]: x["value"] for x in rec["metrics"]}
    t = rec["time_ms"]["median"] if rec["time_ms"] else float("nan")
    print(f"  {str(tuple(rec['block'][:2])):>10} {rec['status']:>7} {t:8.4f} ms  {m.get('pct_of_memcpy', float('nan')):6.1f}% of memcpy  occ {m.get('achieved_occupancy', float('nan')):.3f}")
PY
done
grep -E "^selftest:" "$out/selftest.log"
python3 - "$out/staging.json" <<'PY'
import json, os, sys
if os.path.exists(sys.argv[1]):
    r = json.load(open(sys.argv[1]))["records"]
    v = [x["verification"] or {} for x in r]
    ok = sum(1 for x in r if x["status"] == "ok")
    bad = sum(x.get("mismatches", 0) for x in v)
    print(f"staging: {ok} of {len(r)} verified, {bad} mismatches in {sum(x.get('checked', 0) for x in v)} elements")
PY
for f in "$out"/kf-*.log; do
  n=$(basename "$f" .log)
  printf '%-22s %s (%ss)\n' "$n" "$(grep -m1 '^checked' "$f" | cut -c1-110)" "$(cat "$out/$n.wall")"
done
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(n):
    p = os.path.join(out, n + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
for n in ["kfs-vector_add", "kfs-scale", "kfs-template", "kfs-constant", "kfs-sums", "kfs-vector", "kfs-headers", "kfs-conv2d", "kfs-matmul", "kfs-spmv", "kfs-mandelbrot", "kfs-polygon", "kfs-ptx", "kfs-oob", "kfs-crash"]:
    r = load(n)
    if not r:
        print(f"{n}: no report"); continue
    st = [x["status"] for x in r["records"]]
    ok = [x for x in r["records"] if x["status"] == "ok" and x.get("time_ms")]
    best = min(ok, key=lambda x: x["time_ms"]["median"]) if ok else None
    hint = sum(1 for x in r["records"] if "compute-sanitizer" in (x.get("reason") or ""))
    print(f"{n}: {st.count('ok')} ok ({sum(1 for x in r['records'] if x.get('verification'))} verified), "
          f"{st.count('failed')} failed ({hint} naming compute-sanitizer), {st.count('invalid')} invalid"
          + (f"; fastest {best['block']} {best.get('params') or ''} {best['time_ms']['median']:.4f} ms" if best else ""))
for n in ["kfs-merged", "kfs-resumed"]:
    r = load(n)
    if r:
        rs = r["records"]
        print(f"{n}: {len(rs)} records, {sum(1 for x in rs if x['status'] == 'ok' and x.get('verification'))} verified, "
              f"{len({(tuple(x['block']), tuple(sorted((x.get('params') or {}).items()))) for x in rs})} distinct configurations (want 8, 8, 8)")
r = load("kfs-noise")
if r:
    rs = [x for x in r["records"] if x.get("time_ms")]
    n = [x["time_ms"]["iters"] for x in rs]
    spread = [100 * (x["time_ms"]["q3"] - x["time_ms"]["q1"]) / x["time_ms"]["median"] for x in rs]
    print(f"kfs-noise: {len(rs)} timed, launches {min(n)}-{max(n)}, IQR {min(spread):.2f}-{max(spread):.2f} % of the median "
          f"(each under 1 % or at 500 launches or 10 s)")
t = load("kfs-timeout")
if t:
    st = [(x["block"][0], x["status"]) for x in t["records"]]
    print(f"kfs-timeout: {len(st)} finished configuration(s) written {st} (want [(32, 'ok')] and exit 124)")
elif os.path.exists(os.path.join(out, "kfs-timeout.log")):
    print("kfs-timeout: no report written")
t = load("kfs-types")
if t:
    # BREAK=0: every element of the 12 outputs equal; BREAK=1: exactly one wrong in each, the first in f16 at n / 3.
    good = [x for x in t["records"] if x.get("params", {}).get("BREAK") in (0, "0")]
    bad = [x for x in t["records"] if x.get("params", {}).get("BREAK") in (1, "1")]
    ok = all(x["status"] == "ok" and x["verification"]["mismatches"] == 0 for x in good)
    found = all(x["status"] == "failed" and x["verification"]["mismatches"] == 12
                and x["verification"]["first_mismatch"]["buffer"] == "f16"
                and x["verification"]["first_mismatch"]["index"] == 10_000_000 // 3 for x in bad)
    print(f"kfs-types: BREAK=0 {len(good)} rows {'all equal' if ok else 'NOT all equal'}; BREAK=1 {len(bad)} rows "
          + ("each with the 12 planted mismatches found" if found and bad else "planted mismatches NOT found as planted"))
    h = load("kfs-types-host")
    if h:
        same = [x["verification"] == y["verification"] for x, y in zip(t["records"], h["records"])]
        print(f"kfs-types: the device's comparison against the host's: {sum(same)} of {len(h['records'])} rows identical")
a, b = load("kfs-sum_matrix"), load("kfs-builtin")
if a and b:
    ratios = [x["time_ms"]["median"] / y["time_ms"]["median"] for x, y in zip(a["records"], b["records"]) if x.get("time_ms") and y.get("time_ms")]
    print(f"sum_matrix.toml against built-in sum-matrix: {len(ratios)} blocks, time ratio {min(ratios):.3f}-{max(ratios):.3f}" if ratios else "sum_matrix: no times")
    pred = lambda r: [m["value"] for m in r["metrics"] if m["name"] == "predicted_time"]
    # Each run's DRAM terms read its own memcpy yardstick (docs/MODEL.md section 33), which differs between
    # the two runs by the noise: the predictions agree to about that, and exactly where DRAM does not enter.
    same = [pred(x) == pred(y) and pred(x) != [] for x, y in zip(a["records"], b["records"])]
    near = [pred(x) != [] and pred(y) != [] and abs(pred(x)[0] / pred(y)[0] - 1) < 2e-3 for x, y in zip(a["records"], b["records"])]
    copy = lambda d: d["baselines"].get("memcpy_dtod_gbs", {}).get("value", float("nan"))
    print(f"sum_matrix.toml against built-in sum-matrix: predicted times within 0.2 % in {sum(near)} of {len(near)} blocks, "
          f"identical in {sum(same)} (memcpy yardsticks {copy(a):.1f} and {copy(b):.1f} GB/s)")
PY
for n in conv2d spmv matmul; do
  [ -f "$out/kfr-$n.log" ] && python3 - "$out/kfr-$n.log" "$out/kfr-$n-stored.log" "$n" <<'PY'
import json, sys
def fit(p):
    try:
        t = open(p).read()
        return json.loads(t[t.index("{"):])["kernels"][0]
    except Exception as e:
        return {"error": str(e)}
a, b = fit(sys.argv[1]), fit(sys.argv[2])
keys = ["configs", "median_abs_error_pct", "spearman", "regret_pct"]
same = all(a.get(k) == b.get(k) for k in keys)
show = lambda f: ", ".join(f"{k} {f.get(k)}" for k in keys)
print(f"kfr-{sys.argv[3]}: predicted again from the file {'identical to' if same else 'NOT identical to'} the sweep's ({show(a)}; stored {show(b)})")
PY
done
for n in kfs-start1 kfs-start2; do printf '%s: %s (wall %ss)\n' "$n" "$(grep -o 'built for.*after start' "$out/$n.log")" "$(cat "$out/$n.wall")"; done
for n in kfe-conv2d kfe-ptx; do [ -f "$out/$n.log" ] && printf '%s: %s (wall %ss)\n' "$n" "$(head -1 "$out/$n.log" | cut -c1-150)" "$(cat "$out/$n.wall")"; done
[ -f "$out/kfs-model-check.log" ] && grep -E "kernels meet" "$out/kfs-model-check.log" && grep -h "^model: " "$out"/kfs-*.log
[ -f "$out/seed17.html" ] && echo "seed17: figure $(wc -c <"$out/seed17.svg") bytes, page $(wc -c <"$out/seed17.html") bytes"
[ -f "$out/cupti-cache.log" ] && grep '^cupti-cache ' "$out/cupti-cache.log"
[ -f "$out/model-check/model-check.txt" ] && tail -n 1 "$out/model-check/model-check.txt"
[ -f "$out/calibrate.log" ] && grep -E "DRAM runs|DRAM read in flight|block turnover|took" "$out/calibrate.log"
grep -E "^(device-to-device|fastest copy|MAD curve)" "$out/peak.log"
grep -E "fastest transpose" "$out/transpose.log"
grep -E "naive transpose" "$out/transpose.log" "$out/transpose-tall.log"
grep -E "^ (copy|recursive, column)" "$out/blur-bench.log"
for a in direct separable separable-tiled recursive-vh recursive recursive-seg; do grep -h "match" "$out/blur-$a.log"; done
python3 - "$out" <<'PY'
import json, sys, os
# The pattern kernels: time, model time, and each requested metric measured (m) beside its estimate (e).
for name in ["matmul-coalesced", "matmul-strided", "diverge-odd-even", "diverge-warp", "aos", "soa"]:
    p = os.path.join(sys.argv[1], name + ".json")
    if not os.path.exists(p):
        continue
    for rec in json.load(open(p))["records"]:
        if not rec["time_ms"]:
            print(f"{name} {rec['block'][:2]} {rec['status']}: {rec['reason']}")
            continue
        parts = []
        for m in rec["metrics"]:
            if m["name"] in ("eff_bandwidth", "theoretical_occupancy", "achieved_occupancy", "model_error"):
                continue
            tag = "e" if m["source"] == "estimated" else "m"
            parts.append(f"{m['name']}={m['value']:.4g}{tag}")
        print(f"{name} {tuple(rec['block'][:2])} {rec['time_ms']['median']:.4f} ms " + " ".join(parts))
PY
[ -f "$out/kfs-grey-u8.json" ] && python3 - "$out/kfs-grey-u8.json" <<'PY'
import json, sys
# Byte accesses: each estimated counter against CUPTI's, per configuration (within 1 %).
names = ["gld_transactions", "gst_transactions", "gld_efficiency", "gst_efficiency"]
ok, bad, runs = 0, [], 0
for r in json.load(open(sys.argv[1]))["records"]:
    if r["status"] != "ok":
        continue
    runs += 1
    got = {(m["name"], m["source"]): m["value"] for m in r["metrics"]}
    off = [n for n in names if abs(got.get((n, "estimated"), -1) - got.get((n, "measured"), 1)) > 0.01 * max(1, abs(got.get((n, "measured"), 1)))]
    if off:
        bad.append(f"{r['block'][0]}x{r['block'][1]}: {', '.join(off)}")
    else:
        ok += 1
print(f"kfs-grey-u8: byte counters estimated = CUPTI's in {ok} of {runs} verified configurations" + (f"; off: {'; '.join(bad[:6])}" if bad else ""))
PY
[ -f "$out/sanitizer.log" ] && tail -n 1 "$out/sanitizer.log"
python3 - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
def recs(name):
    p = os.path.join(d, name + ".json")
    return json.load(open(p))["records"] if os.path.exists(p) else []
for name in ["warm", "cold", "noise", "inter"]:
    parts = []
    for r in recs(name):
        t = r["time_ms"]
        c = r.get("conditions") or {}
        iqr = 100 * (t["q3"] - t["q1"]) / t["median"]
        parts.append(f"{r['block'][0]}x{r['block'][1]} {t['median']:.4f} ms (IQR {iqr:.2f}%, {t['iters']} it, SM {c.get('sm_clock_mhz')}, {c.get('temperature_c')} C, throttle {c.get('throttle')})")
    print(f"{name:6}: " + "; ".join(parts))
PY
grep -H "within the noise" "$out/baseline.log" "$out/baseline-cold.log"
[ -f "$out/ncu-compare.txt" ] && cat "$out/ncu-compare.txt"
[ -f "$out/bench.txt" ] && cat "$out/bench.txt"
[ -f "$out/nvprof/seed-summary.txt" ] && tail -n 1 "$out/nvprof/seed-summary.txt"
[ -f "$out/l1-port/summary.txt" ] && tail -n 6 "$out/l1-port/summary.txt"
[ -f "$out/nvprof/multi-summary.txt" ] && grep -E "within 2 %|both profiled|concurrent-kernels" "$out/nvprof/multi-summary.txt"
[ -f "$out/nvprof/graph-summary.txt" ] && tail -n 1 "$out/nvprof/graph-summary.txt"
[ -f "$out/nvprof/threads-summary.txt" ] && tail -n 1 "$out/nvprof/threads-summary.txt"
[ -f "$out/nvprof/region-summary.txt" ] && tail -n 1 "$out/nvprof/region-summary.txt"
[ -f "$out/nvprof/twogpu-summary.txt" ] && tail -n 1 "$out/nvprof/twogpu-summary.txt"
[ -f "$out/nvprof/libs-summary.txt" ] && cat "$out/nvprof/libs-summary.txt"
[ -f "$out/nvprof/catalogue-summary.txt" ] && grep -E "^[a-zA-Z]|against ncu" "$out/nvprof/catalogue-summary.txt"
[ -f "$out/nvprof/steps.txt" ] && grep -E "^overhead-" "$out/nvprof/steps.txt"
tail -n 3 "$out/occupancy.log"
[ -f "$out/model-counters/summary.txt" ] && tail -n 1 "$out/model-counters/summary.txt"
[ -f "$out/l1-wavefronts.log" ] && tail -n 1 "$out/l1-wavefronts.log"
[ -f "$out/l1-throughput/misses.csv" ] && tail -n 1 "$out/l1-throughput/misses.csv"
[ -f "$out/block-drain/drain.csv" ] && tail -n 2 "$out/block-drain/drain.csv"
python3 - "$out" <<'PY'
import json, sys, os
for name in ["seed17", "ske-resize", "ske-rgb-to-gray", "ske-gaussian-smooth"]:
    p = os.path.join(sys.argv[1], name + ".json")
    if not os.path.exists(p):
        continue
    r = json.load(open(p))
    fit = r.get("model_fit") or {}
    times = [(tuple(x["block"][:2]), x["time_ms"]["median"]) for x in r["records"] if x["time_ms"]]
    best = min(times, key=lambda t: t[1]) if times else None
    rho = fit.get("spearman")
    rho = "n/a" if rho is None else f"{rho:.3f}"
    print(f"{name}: {len(times)} timed, best {best}, model median |error| {fit.get('median_abs_error_pct', float('nan')):.1f}%, Spearman {rho}")
PY
