#!/usr/bin/env bash
# On a GPU machine: `warpscope nvprof` on compiled CUDA programs, against Nsight Compute and plain runs.
#   scripts/nvprof-check.sh OUTDIR [STEPS...]
# STEPS (default: all of them): build options seed multi graph threads region twogpu libs catalogue overhead
#   build     nvcc -O3 the test programs (tests/programs/*.cu; NVIDIA's matrixMul and transpose samples
#             from $CUDA_SAMPLES, a checkout of github.com/NVIDIA/cuda-samples, when set)
#   options   every nvprof option on sumMatrix 32 16: summary, GPU and API traces, metrics, events (and
#             Kepler's names of some), CSV, filters, application replay, log files, export, an invalid
#             launch (256 8)
#   seed      the course's 15 shapes: `warpscope nvprof --metrics achieved_occupancy,gld_throughput,
#             gld_efficiency ./sumMatrix X Y` against `ncu --clock-control none` with the same metrics,
#             compared by `warpscope compare` (kernel, grid, block) into seed-summary.txt
#   multi     several kernels, two streams, a child process: the summary's times against the program's
#             own CUDA events (multi-summary.txt), the GPU trace, a crash and an exit code, metrics of
#             parent and child (the child while its parent waits, and both at once)
#   graph     CUDA graphs (tests/programs/graph.cu: captured, hand-built, a child graph): the program's
#             results, every graph kernel's metrics, invocations and values against ncu (graph-summary.txt)
#   region    --profile-from-start off on a program that calls cudaProfilerStart/Stop (tests/programs/
#             region.cu): only the region's launches and copies, in the summary and the metrics
#             (region-summary.txt)
#   twogpu    a program using two GPUs, a graph on the second (tests/programs/twogpu.cu; skipped with one
#             GPU): each device's kernels and their metrics, --devices 1 (twogpu-summary.txt)
#   threads   kernels launched from 4 host threads at once (tests/programs/threads.cu): results, every
#             launch's metrics, values against ncu (threads-summary.txt)
#   libs      kernels warpscope did not compile: cuBLAS's SGEMM and cuFFT (tests/programs/libs.cu), and
#             loads straight to shared memory (cp.async/LDGSTS, tests/programs/asynccopy.cu, sm_80 and
#             newer): every kernel's achieved_occupancy, gld_throughput, gld_efficiency against ncu
#             (libs-summary.txt)
#   catalogue `--metrics all` (every nvprof metric warpscope measures) on sumMatrix 32 16, on
#             tests/programs/metricmix.cu (FMA chains, atomics, bank conflicts, local memory, MUFU) and on
#             libs.cu (cuBLAS, cuFFT, Thrust: kernels warpscope did not compile), against
#             ncu collecting every counter of the catalogue on the same program (mapped to nvprof's names
#             by `warpscope import`), plus counts worked out by hand (catalogue-summary.txt)
#   overhead  plain runs against `warpscope nvprof --metrics` under every profiling variant (and ncu on
#             matrixMul) on the samples (else on multi), into overhead-summary.txt: the fastest variant
#             whose values agree with the default's within 1 point / 3 %, and one metric at a time
# NVPROF_SHAPES limits the seed shapes (e.g. "32x16 256x8"); NVPROF_NCU_OVERHEAD=0 skips ncu on matrixMul
# (about 40 s); NVPROF_TIMEOUT is each command's limit in seconds (120).
# Binary: $WARPSCOPE_BIN (default target/release/warpscope) with libwarpscope_inject.so beside it. Every
# command's output lands in OUTDIR; clocks and GPU modes are left alone (ncu: --clock-control none).
set -uo pipefail
out=$(mkdir -p "${1:?usage: scripts/nvprof-check.sh OUTDIR [STEPS...]}" && cd "$1" && pwd)
shift
steps=${*:-build options seed multi graph threads region twogpu libs catalogue overhead}
here=$(cd "$(dirname "$0")" && pwd)
W=$(realpath "${WARPSCOPE_BIN:-target/release/warpscope}")
programs=${NVPROF_PROGRAMS:-$here/../tests/programs}
bin=$out/bin
mkdir -p "$bin"
metrics=achieved_occupancy,gld_throughput,gld_efficiency
ncu_metrics=sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct
T=${NVPROF_TIMEOUT:-120}

has() { [[ " $steps " == *" $1 "* ]]; }

# step NAME CMD...: runs CMD in $bin with a time limit, stdout and stderr apart, and logs exit code and wall time.
step() {
  local name=$1; shift
  local t0 t1 rc
  t0=$(date +%s.%N)
  (cd "$bin" && WARPSCOPE_NVPROF_KEEP="$out/raw/$name" timeout "$T" "$@") >"$out/$name.out" 2>"$out/$name.err"
  rc=$?
  t1=$(date +%s.%N)
  printf '%-28s exit %-4s %8.3fs\n' "$name" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" | tee -a "$out/steps.txt"
  return "$rc"
}

{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1;
  ncu --version | tail -1; "$W" --version; } >"$out/env.txt" 2>&1

if has build; then
  arch=${NVPROF_ARCH:-native}
  nvcc -O3 -arch="$arch" -o "$bin/sumMatrix" "$programs/sumMatrix.cu" >"$out/build-sumMatrix.log" 2>&1 &
  nvcc -O3 -arch="$arch" -o "$bin/multi" "$programs/multi.cu" >"$out/build-multi.log" 2>&1 &
  nvcc -O3 -arch="$arch" -o "$bin/graph" "$programs/graph.cu" >"$out/build-graph.log" 2>&1 &
  nvcc -O3 -arch="$arch" -o "$bin/threads" "$programs/threads.cu" >"$out/build-threads.log" 2>&1 &
  nvcc -O3 -arch="$arch" -o "$bin/region" "$programs/region.cu" >"$out/build-region.log" 2>&1 &
  nvcc -O3 -arch="$arch" -o "$bin/twogpu" "$programs/twogpu.cu" >"$out/build-twogpu.log" 2>&1 &
  nvcc -O3 -arch="$arch" -o "$bin/libs" "$programs/libs.cu" -lcublas -lcufft >"$out/build-libs.log" 2>&1 &
  nvcc -O3 -arch="$arch" -o "$bin/asynccopy" "$programs/asynccopy.cu" >"$out/build-asynccopy.log" 2>&1 &
  nvcc -O3 -arch="$arch" -o "$bin/metricmix" "$programs/metricmix.cu" >"$out/build-metricmix.log" 2>&1 &
  if [ -n "${CUDA_SAMPLES:-}" ]; then
    nvcc -O3 -arch="$arch" -I"$CUDA_SAMPLES/Common" -o "$bin/matrixMul" \
      "$CUDA_SAMPLES/Samples/0_Introduction/matrixMul/matrixMul.cu" >"$out/build-matrixMul.log" 2>&1 &
    nvcc -O3 -arch="$arch" -I"$CUDA_SAMPLES/Common" -o "$bin/transpose" \
      "$CUDA_SAMPLES/Samples/6_Performance/transpose/transpose.cu" >"$out/build-transpose.log" 2>&1 &
  fi
  wait
  ls -l "$bin" >"$out/build.txt"
fi

if has options; then
  step plain-32x16            ./sumMatrix 32 16
  step summary-32x16          "$W" nvprof ./sumMatrix 32 16
  step trace-32x16            "$W" nvprof --print-gpu-trace ./sumMatrix 32 16
  step trace-csv-32x16        "$W" nvprof --print-gpu-trace --csv ./sumMatrix 32 16
  step summary-csv-us-32x16   "$W" nvprof --csv -u us ./sumMatrix 32 16
  step metrics-32x16          "$W" nvprof --metrics "$metrics" ./sumMatrix 32 16
  step metrics-csv-32x16      "$W" nvprof --csv --metrics "$metrics" ./sumMatrix 32 16
  step metrics-trace-32x16    "$W" nvprof --print-gpu-trace --metrics "$metrics" ./sumMatrix 32 16
  step metrics-all-32x16      "$W" nvprof --metrics all ./sumMatrix 32 16
  step events-all-32x16       "$W" nvprof --events all ./sumMatrix 32 16
  step api-trace-32x16        "$W" nvprof --print-api-trace ./sumMatrix 32 16
  step api-gpu-trace-csv-32x16 "$W" nvprof --print-gpu-trace --print-api-trace --csv ./sumMatrix 32 16
  step kepler-names-32x16     "$W" nvprof --events gld_request,gst_request --metrics l1_cache_global_hit_rate,stall_data_request ./sumMatrix 32 16
  step events-32x16           "$W" nvprof --events warps_launched,active_cycles,global_load --metrics achieved_occupancy ./sumMatrix 32 16
  step appreplay-32x16        "$W" nvprof --replay-mode application --metrics "$metrics" ./sumMatrix 32 16
  step logfile-32x16          "$W" nvprof --csv --metrics all --log-file "$out/logfile.%p.csv" ./sumMatrix 32 16
  step export-32x16           "$W" nvprof -f -o "$out/export-32x16.json" --metrics "$metrics" ./sumMatrix 32 16
  step invalid-256x8          "$W" nvprof --metrics "$metrics" ./sumMatrix 256 8
  step devices-none-32x16     "$W" nvprof --devices 7 --metrics "$metrics" ./sumMatrix 32 16
fi

if has seed; then
  # One job per (tool, shape). The course's program spends seconds on the host for a millisecond kernel,
  # so NVPROF_JOBS lanes run side by side; a job whose profiling met another's (counters busy) is run
  # again alone afterwards.
  shapes=(${NVPROF_SHAPES:-32x32 32x16 16x32 16x16 64x2 64x4 64x8 128x2 128x4 128x8 256x2 256x4 256x8 128x1 256x1})
  seed_job() { # seed_job ws|ncu SHAPE
    local x=${2%x*} y=${2#*x}
    if [ "$1" = ws ]; then
      step "seed-ws-$2" "$W" nvprof -f -o "$out/seed-ws-$2.json" --metrics "$metrics" ./sumMatrix "$x" "$y"
    else
      step "seed-ncu-$2" ncu --clock-control none --metrics "$ncu_metrics" --csv ./sumMatrix "$x" "$y"
    fi
  }
  seed_failed() { # the profiler (not the program) failed
    # (counters "left out" in a parallel lane were busy in another process, not missing: run again alone)
    if [ "$1" = ws ]; then grep -q -e '^error:' -e '^==[0-9]*== Error:' -e 'and left out:' "$out/seed-ws-$2.err"
    else grep -q '==ERROR==' "$out/seed-ncu-$2.err" "$out/seed-ncu-$2.out" && ! grep -q 'returned an error code' "$out/seed-ncu-$2.err"; fi
  }
  jobs=()
  for s in "${shapes[@]}"; do jobs+=("ws $s" "ncu $s"); done
  lanes=${NVPROF_JOBS:-1}
  for ((l = 0; l < lanes; l++)); do
    (for ((j = l; j < ${#jobs[@]}; j += lanes)); do seed_job ${jobs[j]}; done) &
  done
  wait
  for j in "${jobs[@]}"; do
    if seed_failed $j; then echo "again, alone: $j" | tee -a "$out/steps.txt"; seed_job $j; fi
  done
  for s in "${shapes[@]}"; do
    "$W" compare "$out/seed-ws-$s.json" "$out/seed-ncu-$s.out" --format json >"$out/seed-cmp-$s.json" 2>"$out/seed-cmp-$s.err"
  done
  python3 "$here/nvprof-seed-summary.py" "$out" >"$out/seed-summary.txt" 2>&1
  cat "$out/seed-summary.txt"
fi

if has multi; then
  step multi-plain            ./multi
  step multi-summary          "$W" nvprof --profile-child-processes ./multi
  step multi-summary-csv      "$W" nvprof --profile-child-processes --csv -u ms ./multi
  step multi-trace            "$W" nvprof --print-gpu-trace --profile-child-processes ./multi
  # The overlap phase's kernels run at once, or (--concurrent-kernels off) one after another.
  step multi-trace-csv        "$W" nvprof --print-gpu-trace --csv ./multi
  step multi-serial           "$W" nvprof --print-gpu-trace --csv --concurrent-kernels off ./multi
  step multi-root-only        "$W" nvprof ./multi
  step multi-kernels          "$W" nvprof --kernels "::busy:2|4" --metrics achieved_occupancy,sm_efficiency ./multi
  step multi-ncu-flags        "$W" nvprof -k regex:stencil -s 1 -c 2 --metrics gld_efficiency ./multi
  step multi-crash            "$W" nvprof --print-gpu-trace ./multi crash
  step multi-exit3            "$W" nvprof --log-file "$out/multi-exit3.%p.log" --profile-child-processes ./multi exit 3
  # Parent and child take turns with the counters: the child while its parent waits, then side by side.
  step multi-child-metrics    env WARPSCOPE_NVPROF_DEBUG=1 "$W" nvprof --profile-child-processes --csv --metrics achieved_occupancy,gld_efficiency ./multi
  step multi-together-metrics env WARPSCOPE_NVPROF_DEBUG=1 "$W" nvprof --profile-child-processes --csv --metrics achieved_occupancy,gld_efficiency ./multi together
  python3 "$here/nvprof-multi-summary.py" "$out" >"$out/multi-summary.txt" 2>&1
  cat "$out/multi-summary.txt"
fi

if has graph; then
  gm=achieved_occupancy,gld_efficiency
  step graph-plain            ./graph
  step graph-summary          "$W" nvprof --csv ./graph
  step graph-metrics          "$W" nvprof --csv --metrics "$gm" ./graph
  step graph-trace-metrics    "$W" nvprof --print-gpu-trace --csv --metrics "$gm" ./graph
  step graph-kernels          "$W" nvprof --csv --kernels scale2 --metrics "$gm" ./graph
  # Graphs instantiated while the profiler was stopped run with it stopped: right results, no metrics.
  step graph-unprepared       env WARPSCOPE_NVPROF_GRAPH_UNPREPARED=1 "$W" nvprof --csv --metrics "$gm" ./graph
  # ncu without its cache flush before each pass, as nvprof and warpscope run kernels: these kernels
  # take 3.5 us and their data sits in L2, so a flush changes their achieved occupancy (docs/PERF-NOTES.md).
  step graph-ncu              ncu --clock-control none --cache-control none --csv --metrics sm__warps_active.avg.pct_of_peak_sustained_active,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct ./graph
  python3 "$here/nvprof-programs-summary.py" "$out" graph >"$out/graph-summary.txt" 2>&1
  cat "$out/graph-summary.txt"
fi

if has libs; then
  for p in libs asynccopy; do
    [ -x "$bin/$p" ] || { echo "libs: $p not built (see build-$p.log)" | tee -a "$out/steps.txt"; continue; }
    step "$p-plain"   "./$p"
    step "$p-metrics" "$W" nvprof -f -o "$out/$p-ws.json" --metrics "$metrics" "./$p"
    # Without ncu's cache flush, as for graph and threads: these kernels read megabytes that L2 holds.
    step "$p-ncu"     ncu --clock-control none --cache-control none --csv --metrics "$ncu_metrics" "./$p"
    "$W" compare "$out/$p-ws.json" "$out/$p-ncu.out" --format json >"$out/$p-cmp.json" 2>"$out/$p-cmp.err"
  done
  python3 - "$out" >"$out/libs-summary.txt" 2>&1 <<'PY'
import json, os, sys
out = sys.argv[1]
for p in ["libs", "asynccopy"]:
    f = os.path.join(out, p + "-cmp.json")
    if not os.path.exists(f) or not os.path.getsize(f):
        print(f"{p}: no comparison"); continue
    rows = json.load(open(f))
    rows = rows.get("rows", rows) if isinstance(rows, dict) else rows
    ok, bad = 0, []
    for r in rows:
        d, pct = r.get("delta"), r.get("rel_delta_pct")
        if d is None:
            continue
        # Percentages and occupancy in points, the rest relative.
        within = abs(d) <= 1.0 if r.get("unit") == "%" else abs(d) < 1e-9 or (pct is not None and abs(pct) <= 3.0)
        ok += within
        if not within:
            bad.append(f"{r.get('kernel', '?')[:40]} {r.get('metric')} {d:+.4g}")
    print(f"{p}: {ok} of {ok + len(bad)} kernel metrics within 1 point / 3 % of ncu" + ("; off: " + "; ".join(bad) if bad else ""))
PY
  cat "$out/libs-summary.txt"
fi

if has catalogue; then
  # Every counter the catalogue names (not the cheaper ones warpscope collects instead): what ncu is
  # asked for, so that `warpscope import` gives each nvprof metric by the catalogue's own formula.
  all_counters=$("$W" metrics --format json | python3 -c 'import json, sys
seen = []
for e in json.load(sys.stdin):
    for c in e["counters"]:
        if c not in seen:
            seen.append(c)
print(",".join(seen))')
  for run in "sumMatrix ./sumMatrix 32 16" "metricmix ./metricmix" "libs ./libs"; do
    read -r p cmd <<<"$run"
    [ -x "$bin/$p" ] || { echo "catalogue: $p not built" | tee -a "$out/steps.txt"; continue; }
    step "cat-$p-ws"  "$W" nvprof -f -o "$out/cat-$p-ws.json" --metrics all $cmd
    # Without ncu's cache flush, as warpscope's replay runs: the DRAM and L2 metrics of short kernels
    # otherwise count ncu's flush (metricmix's inputs stay in L2 between kernels).
    T=$((T > 300 ? T : 300)) step "cat-$p-ncu" ncu --clock-control none --cache-control none --csv --metrics "$all_counters" $cmd
    "$W" compare "$out/cat-$p-ws.json" "$out/cat-$p-ncu.out" --format json >"$out/cat-$p-cmp.json" 2>"$out/cat-$p-cmp.err"
  done
  python3 "$here/nvprof-catalogue-summary.py" "$out" >"$out/catalogue-summary.txt" 2>&1
  cat "$out/catalogue-summary.txt"
fi

if has threads; then
  step threads-plain          ./threads
  step threads-metrics        "$W" nvprof --csv --metrics achieved_occupancy,gld_efficiency ./threads
  step threads-ncu            ncu --clock-control none --cache-control none --csv --metrics sm__warps_active.avg.pct_of_peak_sustained_active,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct ./threads
  python3 "$here/nvprof-programs-summary.py" "$out" threads >"$out/threads-summary.txt" 2>&1
  cat "$out/threads-summary.txt"
fi

if has region; then
  step region-plain           ./region
  step region-summary         "$W" nvprof --csv --profile-from-start off ./region
  step region-metrics         "$W" nvprof --csv --profile-from-start off --metrics achieved_occupancy ./region
  step region-from-start      "$W" nvprof --csv ./region
  python3 "$here/nvprof-programs-summary.py" "$out" region >"$out/region-summary.txt" 2>&1
  cat "$out/region-summary.txt"
fi

if has twogpu; then
  step twogpu-plain           ./twogpu
  if grep -q "needs 2 GPUs" "$out/twogpu-plain.out"; then
    echo "twogpu: skipped, one GPU" | tee "$out/twogpu-summary.txt"
  else
    step twogpu-summary       "$W" nvprof --csv ./twogpu
    step twogpu-per-gpu       "$W" nvprof --print-summary-per-gpu ./twogpu
    step twogpu-metrics       "$W" nvprof --csv --metrics achieved_occupancy,gld_efficiency ./twogpu
    step twogpu-devices1      "$W" nvprof --csv --devices 1 --metrics achieved_occupancy ./twogpu
    python3 "$here/nvprof-programs-summary.py" "$out" twogpu >"$out/twogpu-summary.txt" 2>&1
    cat "$out/twogpu-summary.txt"
  fi
fi

if has overhead; then
  # Overhead: plain runs against `warpscope nvprof --metrics` under each profiling variant (environment
  # switches of the injection library, src/nvprof/inject/launches.rs), every variant's values checked
  # against the default's launch by launch; ncu on matrixMul; then where the time goes, one metric at a
  # time (WARPSCOPE_NVPROF_DEBUG's timing lines). The summary (overhead-summary.txt) names the fastest
  # variant whose values agree with the default's within 1 point / 3 %.
  variants=(
    "default"
    "rates-split WARPSCOPE_NVPROF_RATES=split"
    "no-duration WARPSCOPE_NVPROF_DURATION=0"
    "user-replay WARPSCOPE_NVPROF_REPLAY=user"
    "user+split WARPSCOPE_NVPROF_REPLAY=user WARPSCOPE_NVPROF_RATES=split"
    "user+no-duration WARPSCOPE_NVPROF_REPLAY=user WARPSCOPE_NVPROF_DURATION=0"
    "ranges-16 WARPSCOPE_NVPROF_RANGES=16"
    "app-replay --replay-mode=application"
  )
  progs=()
  for p in matrixMul transpose; do [ -x "$bin/$p" ] && progs+=("$p"); done
  [ ${#progs[@]} = 0 ] && progs=(multi) # no $CUDA_SAMPLES: the test program with the most launches
  names=()
  for v in "${variants[@]}"; do names+=("${v%% *}"); done
  for p in "${progs[@]}"; do
    step "ovh-plain-$p" "./$p"
    step "ovh-summary-$p" "$W" nvprof "./$p"
    for v in "${variants[@]}"; do
      read -r name rest <<<"$v"
      envs=() flags=()
      for w in $rest; do if [[ $w == --* ]]; then flags+=("$w"); else envs+=("$w"); fi; done
      step "ovh-$name-$p" env WARPSCOPE_NVPROF_DEBUG=1 "${envs[@]}" "$W" nvprof -f -o "$out/ovh-$name-$p.json" \
        "${flags[@]}" --metrics "$metrics" "./$p"
    done
  done
  if [ "${NVPROF_NCU_OVERHEAD:-1}" = 1 ] && [ -x "$bin/matrixMul" ]; then
    T=$((T > 300 ? T : 300)) step ovh-ncu-matrixMul ncu --clock-control none --metrics "$ncu_metrics" ./matrixMul
  fi
  # Where the time goes, one metric at a time (100 profiled launches), under kernel and user replay.
  p=${progs[0]}
  for m in ${metrics//,/ }; do
    step "ovh-attr-$m-kernel" env WARPSCOPE_NVPROF_DEBUG=1 "$W" nvprof -c 100 --metrics "$m" "./$p"
    step "ovh-attr-$m-user" env WARPSCOPE_NVPROF_DEBUG=1 WARPSCOPE_NVPROF_REPLAY=user "$W" nvprof -c 100 --metrics "$m" "./$p"
  done
  { python3 "$here/nvprof-overhead-summary.py" "$out" "${names[*]}" "${progs[*]}"
    echo; echo "timing lines (WARPSCOPE_NVPROF_DEBUG):"
    grep -H 'timing:' "$out"/ovh-*.err | sed "s|^$out/||"; } >"$out/overhead-summary.txt" 2>&1
  cat "$out/overhead-summary.txt"
fi
echo "done: $out"
