#!/usr/bin/env bash
# One warpscope sweep across the nodes of a Slurm cluster: each array task runs one `--shard K/N` slice on
# the GPU Slurm gives it, and the last task to finish merges the slices into one report.
#
#   sbatch --array=1-8 scripts/slurm-array.sh OUTDIR -- sum-matrix --bx 32..1024:32 --by 1..8 --metrics all
#   sbatch --array=1-4 scripts/slurm-array.sh OUTDIR -- --kernel-file my.toml --define TILE=1,2,4,8
#   scripts/slurm-array.sh --merge OUTDIR        # merge by hand (e.g. after re-running a failed task)
#
# Everything after `--` is given to `warpscope sweep` as is (the kernel and its options; not --shard,
# --format or -o, which this script sets). Each task writes OUTDIR/slice-K-of-N.jsonl (JSON Lines, appended
# as configurations finish: a preempted or re-queued task resumes where it stopped) and OUTDIR/slice-K-of-N.rc
# (its exit code). When all N exit codes exist, the task that wrote the last one runs `warpscope merge`,
# which refuses a sweep with missing configurations: OUTDIR/merged.json, OUTDIR/merge.log, exit 0 only when
# every slice is complete. The binary is $WARPSCOPE_BIN, else `warpscope` on PATH.
#
# Without Slurm (a test, or a workstation), set the array variables yourself, one process per slice:
#   for k in 1 2 3; do SLURM_ARRAY_TASK_ID=$k SLURM_ARRAY_TASK_COUNT=3 scripts/slurm-array.sh out -- ... & done
#
#SBATCH --job-name=warpscope-sweep
#SBATCH --gres=gpu:1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --output=warpscope-%A_%a.out
set -euo pipefail

ws=${WARPSCOPE_BIN:-warpscope}
die() { echo "error: $*" >&2; exit 2; }

merge() { # merge OUTDIR: every slice's records into OUTDIR/merged.json (refuses missing configurations)
  local out=$1
  shopt -s nullglob
  local slices=("$out"/slice-*.jsonl)
  [ ${#slices[@]} -gt 0 ] || die "$out holds no slice-*.jsonl files to merge"
  if "$ws" merge "${slices[@]}" --format json -o "$out/merged.json" -q 2>"$out/merge.log"; then
    echo "merged ${#slices[@]} slices into $out/merged.json"
  else
    local rc=$?
    echo "error: merge refused the slices (exit $rc): $(head -n 3 "$out/merge.log" | tr '\n' ' ')" >&2
    return "$rc"
  fi
}

[ $# -ge 1 ] || die "usage: scripts/slurm-array.sh OUTDIR -- SWEEP ARGS...  |  scripts/slurm-array.sh --merge OUTDIR"
if [ "$1" = --merge ]; then
  [ $# -eq 2 ] || die "usage: scripts/slurm-array.sh --merge OUTDIR"
  merge "$2"
  exit
fi

out=$1
shift
[ "${1:-}" = -- ] || die "expected -- and the sweep's arguments after OUTDIR"
shift
[ $# -gt 0 ] || die "no sweep arguments after --"
for a in "$@"; do
  case $a in
    --shard* | --format* | -o | --output* | --resume*) die "$a is set by this script (one slice per array task)" ;;
  esac
done

k=${SLURM_ARRAY_TASK_ID:?not an array task: submit with sbatch --array=1-N, or set SLURM_ARRAY_TASK_ID}
if [ -n "${SLURM_ARRAY_TASK_COUNT:-}" ]; then
  n=$SLURM_ARRAY_TASK_COUNT
else
  n=$((${SLURM_ARRAY_TASK_MAX:?} - ${SLURM_ARRAY_TASK_MIN:?} + 1))
  k=$((k - SLURM_ARRAY_TASK_MIN + 1))
fi
[ "$k" -ge 1 ] && [ "$k" -le "$n" ] || die "array task $k is outside 1..$n (use --array=1-N with consecutive ids)"

mkdir -p "$out"
slice=$out/slice-$k-of-$n.jsonl
# Slurm sets CUDA_VISIBLE_DEVICES to the task's GPU, so device 0 is the task's own.
resume=()
[ -s "$slice" ] && resume=(--resume "$slice")
set +e
"$ws" sweep "$@" --shard "$k/$n" "${resume[@]}" --format jsonl -o "$slice" -q
rc=$?
set -e
echo "$rc" >"$out/slice-$k-of-$n.rc"
echo "slice $k/$n: exit $rc ($slice)"

# The last slice to finish merges; mkdir is atomic on shared file systems, so only one task does.
shopt -s nullglob
done_rcs=("$out"/slice-*-of-"$n".rc)
if [ ${#done_rcs[@]} -eq "$n" ] && mkdir "$out/.merging" 2>/dev/null; then
  merge "$out" || rc=$?
  rmdir "$out/.merging"
fi
exit "$rc"
