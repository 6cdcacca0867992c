#!/usr/bin/env bash
# Run ON THE GPU MACHINE:   bash /tmp/fp/device-run.sh OUTDIR
#
# Builds the third-party CUDA programs under /tmp/fp/<name>/ (see SOURCES.md) with nvcc alone, runs each
# plainly, under `warpscope nvprof` (summary, --print-gpu-trace, --metrics) and under Nsight Compute,
# and prints a summary table (also OUTDIR/summary.txt, made by summarize.py, which can be re-run on
# OUTDIR later: `python3 /tmp/fp/summarize.py OUTDIR`). What a correct output holds: EXPECT.md.
#
# Environment (all optional):
#   WARPSCOPE_BIN   warpscope binary, libwarpscope_inject.so beside it        (default /tmp/warpscope)
#   CUDA_HOME       CUDA toolkit                                              (default /usr/local/cuda)
#   FP_ARCH         nvcc -arch                                                (default sm_90)
#   FP_BUDGET_S     wall-clock budget of the whole script in seconds; every command's timeout is cut to
#                   what is left, and commands that find less than 5 s left are skipped   (default 450)
#   FP_NCU_BASE     ncu --print-kernel-base; demangled keeps template instantiations apart, so distinct
#                   kernel counts compare with warpscope's; empty: ncu's default (function)  (default demangled)
#   FP_ONLY         space-separated run names to do (default: all)
#
# Files in OUTDIR:
#   env.txt                          GPU, driver, nvcc, ncu, warpscope versions
#   build-<prog>.log                 nvcc command line(s) and output; last line "==fp== build rc=N"
#   <run>.<mode>.log                 stdout+stderr of one run; first line "==fp== cmd: ...", last line
#                                    "==fp== rc=N wall_s=S" (rc 124/137: timed out; "skipped": no time left)
#                                    modes: plain summary trace metrics (and for the variants listed below)
#   <run>.ncu.csv / .ncu.err / .ncu.rc   ncu's stdout (CSV, the program's stdout mixed in) / stderr / rc+wall
#   results.tsv                      run, mode, rc, wall seconds
#   summary.txt                      the table printed at the end
#
# Order: all builds at once (in parallel); then for each run plain + the three warpscope modes; then the
# extra runs (child-process profiling, exit-code variants); then ncu for each run (most expensive last,
# so a tight budget costs comparisons, not warpscope results). A build failure skips that program's runs
# and is reported; nothing aborts the script.
set -uo pipefail

OUT=${1:?usage: bash device-run.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
FP=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$FP" || exit 2

W=${WARPSCOPE_BIN:-/tmp/warpscope}
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA/bin/nvcc
NCU=$CUDA/bin/ncu
ARCH=${FP_ARCH:-sm_90}
BUDGET=${FP_BUDGET_S:-450}
NCU_BASE=${FP_NCU_BASE-demangled}
ONLY=${FP_ONLY:-}
T_BUILD=240 T_PLAIN=60 T_WS=60 T_NCU=120
WS_METRICS=achieved_occupancy,gld_efficiency,gld_throughput
NCU_METRICS=sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
START=$(date +%s)
BIN=$FP/bin
mkdir -p "$BIN"
: >"$OUT/results.tsv"

left() { echo $((START + BUDGET - $(date +%s))); }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# run_logged LOG NOMINAL_TIMEOUT RUN MODE CMD...: runs CMD in $FP under timeout (cut to the budget left),
# stdout+stderr to LOG, with a header line and an "==fp== rc=N wall_s=S" trailer; records results.tsv.
run_logged() {
  local log=$1 nominal=$2 run=$3 mode=$4; shift 4
  local rem t t0 t1 rc
  rem=$(left)
  { printf '==fp== cmd:'; printf ' %q' "$@"; printf '\n'; } >"$log"
  if [ "$rem" -lt 5 ]; then
    echo "==fp== rc=skipped wall_s=0 (time budget of ${BUDGET}s spent)" >>"$log"
    printf '%s\t%s\tskipped\t0\n' "$run" "$mode" >>"$OUT/results.tsv"
    echo "  $run $mode: skipped (budget)"
    return 0
  fi
  t=$nominal; [ "$rem" -lt "$t" ] && t=$rem
  t0=$(now)
  timeout -k 5 "$t" "$@" >>"$log" 2>&1
  rc=$?
  t1=$(now)
  echo "==fp== rc=$rc wall_s=$(secs "$t0" "$t1") timeout_s=$t" >>"$log"
  printf '%s\t%s\t%s\t%s\n' "$run" "$mode" "$rc" "$(secs "$t0" "$t1")" >>"$OUT/results.tsv"
  printf '  %-28s %-16s rc %-4s %8ss\n' "$run" "$mode" "$rc" "$(secs "$t0" "$t1")"
}

{
  date -u +%FT%TZ
  hostname
  nvidia-smi --query-gpu=index,name,driver_version,compute_cap,clocks.sm,clocks.max.sm,compute_mode --format=csv
  "$NVCC" --version | tail -2
  "$NCU" --version | tail -1
  "$W" --version
  ls -l "$W" "$(dirname "$W")/libwarpscope_inject.so"
  echo "ARCH=$ARCH BUDGET=$BUDGET NCU_BASE=$NCU_BASE"
} >"$OUT/env.txt" 2>&1
[ -x "$W" ] || echo "WARNING: $W is not executable; warpscope runs will fail" | tee -a "$OUT/env.txt"
[ -f "$(dirname "$W")/libwarpscope_inject.so" ] || echo "WARNING: no libwarpscope_inject.so beside $W" | tee -a "$OUT/env.txt"

# ---------------------------------------------------------------------------------------------------
# Programs: sources and nvcc flags (each directory holds its helper headers, included with <...>).
# FALLBACK: a second try when the first build fails (only where a known alternative exists).
PROGS=(thrust_histogram UnifiedMemoryStreams simpleCudaGraphs reductionMultiBlockCG cdpSimplePrint simpleIPC
       stream_test_v5 simpleHyperQ simpleAssert)
declare -A SRC FLAGS FALLBACK BUILT
SRC[thrust_histogram]="thrust_histogram/histogram.cu"
FLAGS[thrust_histogram]=""
SRC[UnifiedMemoryStreams]="UnifiedMemoryStreams/UnifiedMemoryStreams.cu"
FLAGS[UnifiedMemoryStreams]="-IUnifiedMemoryStreams -Xcompiler -fopenmp -lgomp -lcublas"
FALLBACK[UnifiedMemoryStreams]="-IUnifiedMemoryStreams -DUSE_PTHREADS -lcublas -lpthread"
SRC[simpleCudaGraphs]="simpleCudaGraphs/simpleCudaGraphs.cu"
FLAGS[simpleCudaGraphs]="-IsimpleCudaGraphs"
SRC[reductionMultiBlockCG]="reductionMultiBlockCG/reductionMultiBlockCG.cu"
FLAGS[reductionMultiBlockCG]="-IreductionMultiBlockCG"
SRC[cdpSimplePrint]="cdpSimplePrint/cdpSimplePrint.cu"
FLAGS[cdpSimplePrint]="-IcdpSimplePrint -rdc=true -lcudadevrt"
SRC[simpleIPC]="simpleIPC/simpleIPC.cu simpleIPC/helper_multiprocess.cpp"
FLAGS[simpleIPC]="-IsimpleIPC -lrt"
SRC[stream_test_v5]="stream_test_v5/stream_test_v5.cu"
FLAGS[stream_test_v5]="--default-stream per-thread -Xcompiler -fopenmp -lgomp"
SRC[simpleHyperQ]="simpleHyperQ/simpleHyperQ.cu"
FLAGS[simpleHyperQ]="-IsimpleHyperQ"
SRC[simpleAssert]="simpleAssert/simpleAssert.cu"
FLAGS[simpleAssert]="-IsimpleAssert"

wanted() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }

build_one() {
  local p=$1 log=$OUT/build-$1.log t
  rm -f "$BIN/$p"
  t=$T_BUILD; [ "$(left)" -lt "$t" ] && t=$(left)
  if [ "$t" -lt 5 ]; then echo "==fp== build rc=skipped (budget)" >"$log"; return; fi
  # shellcheck disable=SC2086
  { echo "==fp== $NVCC -O2 -arch=$ARCH ${FLAGS[$p]} -o $BIN/$p ${SRC[$p]}"
    timeout -k 5 "$t" "$NVCC" -O2 -arch="$ARCH" ${FLAGS[$p]} -o "$BIN/$p" ${SRC[$p]} 2>&1; } >"$log"
  if [ ! -x "$BIN/$p" ] && [ -n "${FALLBACK[$p]:-}" ]; then
    # shellcheck disable=SC2086
    { echo "==fp== first build failed; fallback: $NVCC -O2 -arch=$ARCH ${FALLBACK[$p]} -o $BIN/$p ${SRC[$p]}"
      timeout -k 5 "$t" "$NVCC" -O2 -arch="$ARCH" ${FALLBACK[$p]} -o "$BIN/$p" ${SRC[$p]} 2>&1; } >>"$log"
  fi
  if [ -x "$BIN/$p" ]; then echo "==fp== build rc=0" >>"$log"; else echo "==fp== build rc=1" >>"$log"; fi
}

echo "== building (${#PROGS[@]} programs in parallel, -arch=$ARCH)"
t0=$(now)
wanted_build() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1"* ]]; }
for p in "${PROGS[@]}"; do
  wanted_build "$p" || continue
  build_one "$p" &
done
wait
for p in "${PROGS[@]}"; do
  wanted_build "$p" || continue
  if [ -x "$BIN/$p" ]; then BUILT[$p]=1; echo "  $p: built"; else BUILT[$p]=0; echo "  $p: BUILD FAILED (see build-$p.log)"; fi
done
echo "  builds took $(secs "$t0" "$(now)")s"

# ---------------------------------------------------------------------------------------------------
# Runs: NAME|BINARY|ARGS|EXTRA WARPSCOPE FLAGS|MODES|NCU(yes/no)
# ARGS are split on spaces (none contain spaces).
RUNS=(
  "thrust_histogram|thrust_histogram|||plain summary trace metrics|yes"
  "UnifiedMemoryStreams|UnifiedMemoryStreams|||plain summary trace metrics|yes"
  "simpleCudaGraphs|simpleCudaGraphs|||plain summary trace metrics|yes"
  "reductionMultiBlockCG|reductionMultiBlockCG|||plain summary trace metrics|yes"
  "cdpSimplePrint|cdpSimplePrint|-depth=3||plain summary trace metrics|yes"
  "simpleIPC|simpleIPC|||plain summary trace metrics|yes"
  "stream_test_v5|stream_test_v5|||plain summary trace metrics|yes"
  "simpleHyperQ|simpleHyperQ|||plain summary trace metrics|yes"
  "simpleAssert|simpleAssert|||plain summary trace metrics|yes"
)
EXTRA_RUNS=(
  "simpleIPC_children|simpleIPC||--profile-child-processes|summary trace metrics|no"
  "cdpSimplePrint_badarg|cdpSimplePrint|-depth=9||plain summary|no"
  "simpleCudaGraphs_baddevice|simpleCudaGraphs|-device=99||plain summary|no"
)

do_run() {
  local spec=$1 name bin args wsflags modes ncu m
  IFS='|' read -r name bin args wsflags modes ncu <<<"$spec"
  wanted "$name" || wanted "$bin" || return 0
  if [ "${BUILT[$bin]:-0}" != 1 ]; then
    echo "  $name: skipped, $bin did not build"
    printf '%s\t%s\tnobuild\t0\n' "$name" all >>"$OUT/results.tsv"
    return 0
  fi
  local -a a=() f=()
  [ -n "$args" ] && read -r -a a <<<"$args"
  [ -n "$wsflags" ] && read -r -a f <<<"$wsflags"
  for m in $modes; do
    case $m in
      plain)   run_logged "$OUT/$name.plain.log" "$T_PLAIN" "$name" plain "./bin/$bin" "${a[@]}" ;;
      summary) run_logged "$OUT/$name.summary.log" "$T_WS" "$name" summary "$W" nvprof "${f[@]}" "./bin/$bin" "${a[@]}" ;;
      trace)   run_logged "$OUT/$name.trace.log" "$T_WS" "$name" trace "$W" nvprof "${f[@]}" --print-gpu-trace "./bin/$bin" "${a[@]}" ;;
      metrics) run_logged "$OUT/$name.metrics.log" "$T_WS" "$name" metrics "$W" nvprof "${f[@]}" --metrics "$WS_METRICS" "./bin/$bin" "${a[@]}" ;;
    esac
  done
}

do_ncu() {
  local spec=$1 name bin args wsflags modes ncu rem t t0 t1 rc
  IFS='|' read -r name bin args wsflags modes ncu <<<"$spec"
  [ "$ncu" = yes ] || return 0
  wanted "$name" || return 0
  [ "${BUILT[$bin]:-0}" = 1 ] || return 0
  local -a a=() base=()
  [ -n "$args" ] && read -r -a a <<<"$args"
  [ -n "$NCU_BASE" ] && base=(--print-kernel-base "$NCU_BASE")
  rem=$(left)
  if [ "$rem" -lt 5 ]; then
    echo "rc=skipped wall_s=0" >"$OUT/$name.ncu.rc"; : >"$OUT/$name.ncu.csv"
    printf '%s\tncu\tskipped\t0\n' "$name" >>"$OUT/results.tsv"
    echo "  $name ncu: skipped (budget)"
    return 0
  fi
  t=$T_NCU; [ "$rem" -lt "$t" ] && t=$rem
  t0=$(now)
  timeout -k 5 "$t" "$NCU" --metrics "$NCU_METRICS" "${base[@]}" --csv "./bin/$bin" "${a[@]}" \
    >"$OUT/$name.ncu.csv" 2>"$OUT/$name.ncu.err"
  rc=$?
  t1=$(now)
  echo "rc=$rc wall_s=$(secs "$t0" "$t1") timeout_s=$t" >"$OUT/$name.ncu.rc"
  printf '%s\tncu\t%s\t%s\n' "$name" "$rc" "$(secs "$t0" "$t1")" >>"$OUT/results.tsv"
  printf '  %-28s %-16s rc %-4s %8ss\n' "$name" ncu "$rc" "$(secs "$t0" "$t1")"
}

echo "== plain and warpscope nvprof runs (budget left: $(left)s)"
for r in "${RUNS[@]}"; do do_run "$r"; done
echo "== extra runs: child processes, exit-code variants (budget left: $(left)s)"
for r in "${EXTRA_RUNS[@]}"; do do_run "$r"; done
echo "== Nsight Compute (budget left: $(left)s)"
for r in "${RUNS[@]}"; do do_ncu "$r"; done

echo "== done in $(( $(date +%s) - START ))s"
if command -v python3 >/dev/null 2>&1; then
  python3 "$FP/summarize.py" "$OUT" | tee "$OUT/summary.txt"
else
  echo "(no python3: results.tsv only)" | tee "$OUT/summary.txt"
  { column -t "$OUT/results.tsv" 2>/dev/null || cat "$OUT/results.tsv"; } | tee -a "$OUT/summary.txt"
fi
