#!/bin/bash
# Sweeps the 8 foreign kernels of /tmp/fk/kernels on a GPU machine, from the warpscope repository root.
#   bash /tmp/fk/device-run.sh OUTDIR
# Needs: the warpscope binary at $WARPSCOPE_BIN (default /tmp/warpscope), CUDA 13 at /usr/local/cuda (NVRTC
# for the .cu kernels, nvcc for the one PTX workaround). Writes OUTDIR/<name>.log (command, stdout+stderr,
# exit code) per run and OUTDIR/summary.txt. Total run time is capped at about 170 s (each run gets at most
# its own cap and what is left of the total).
set -u
OUT=${1:?usage: bash /tmp/fk/device-run.sh OUTDIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=${WARPSCOPE_BIN:-/tmp/warpscope}
K=/tmp/fk/kernels
export CUDA_PATH=/usr/local/cuda
export PATH=/usr/local/cuda/bin:$PATH
if [[ -z ${WARPSCOPE_CACHE_DIR:-} ]]; then
  export WARPSCOPE_CACHE_DIR=/tmp/warpscope-fk-cache   # this script's own cache, emptied: compile times are real
  rm -rf "$WARPSCOPE_CACHE_DIR"
fi
START=$(date +%s)
BUDGET=170
SUMMARY=$OUT/summary.txt

{
  echo "# device-run.sh $(date -u +%FT%TZ) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1
  "$W" --version 2>&1
  nvcc --version 2>&1 | tail -1
  ls /usr/local/cuda/lib64/libnvrtc.so* 2>&1 | head -3
  ls -d /usr/local/cuda/include/cccl/cub /usr/local/cuda/include/cub 2>&1
} > "$SUMMARY"

# sweep NAME CAP_SECONDS ARGS...: one warpscope run, logged to OUT/NAME.log, summarised in summary.txt
sweep() {
  local name=$1 cap=$2; shift 2
  local left=$(( BUDGET - ($(date +%s) - START) ))
  local log=$OUT/$name.log
  if (( left < 5 )); then
    echo "$name: SKIPPED (time budget spent)" | tee -a "$SUMMARY"
    return
  fi
  (( cap > left )) && cap=$left
  local t0; t0=$(date +%s%N)
  {
    echo "\$ $W $* (timeout ${cap}s)"
    timeout -k 5 "$cap" "$W" "$@"
    echo "[rc=$?]"
  } > "$log" 2>&1
  local rc; rc=$(tail -1 "$log" | sed 's/\[rc=\(.*\)\]/\1/')
  local secs; secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
  # rows that did not pass (verification failures, invalid/failed/compile-failed configurations)
  local bad; bad=$(grep -c -i -E 'fail|invalid|mismatch|error' "$log")
  local verdict=ok
  [[ $rc != 0 ]] && verdict=FAILED
  [[ $rc == 124 || $rc == 137 ]] && verdict="TIMED OUT"
  printf '%-30s %-9s rc=%-3s %5ss  lines mentioning fail/invalid/mismatch/error: %s\n' \
    "$name" "$verdict" "$rc" "$secs" "$bad" | tee -a "$SUMMARY"
}

# 1. Kernel Tuner matmul: tile params tied to the block by the restriction; 8 configurations, n = WIDTH = 4096.
sweep kt_matmul 40 sweep --kernel-file $K/kt_matmul.toml --block 16x16,32x8,32x16,64x8 \
  --define tile_size_x=1,2 --iters 5 --seed 1 -v

# 2. Kernel Tuner reduction (partial sums per block): expected to FAIL verification for every configuration
#    whose partition differs from the first (GAPS.md); loop_unroll_factor_0=0 tests `#pragma unroll 0`.
sweep kt_reduction 25 sweep --kernel-file $K/kt_reduction.toml --block 128,256,512 --define vector=1,2,4 \
  --define num_blocks=1024 --define loop_unroll_factor_0=0,4 --define use_shuffle=1 --iters 5 --seed 1 -v
#    The same kernel as Kernel Tuner's second stage (one block): one partial = the whole sum, comparable across blocks.
sweep kt_reduction_1block 20 sweep --kernel-file $K/kt_reduction.toml --block 128,256,512 --define vector=1,4 \
  --define num_blocks=1 --define loop_unroll_factor_0=4 --define use_shuffle=0,1 --size n=1048576 --iters 5 --seed 1 -v

#    Output length that changes with a parameter under same_as_first (GAPS G10, REPORT F8): how is the row reported?
sweep kt_reduction_lenmismatch 15 sweep --kernel-file $K/kt_reduction.toml --block 256 --define vector=1 \
  --define num_blocks=256,1024 --define loop_unroll_factor_0=4 --define use_shuffle=1 --iters 5 --seed 1 -v

# 3. Kernel Tuner pnpoly: int output, float2 input, many defines; __constant__ polygon left zero (GAPS.md).
sweep kt_pnpoly 25 sweep --kernel-file $K/kt_pnpoly.toml --block 128,256,512 --define tile_size=1,4 \
  --define between_method=0 --define use_precomputed_slopes=0 --define use_method=0,1 --iters 5 --seed 1 -v

# 4. Kernel Tuner spmv: CSR inputs from .npy, grid_div_x expression, CPU reference from .npy.
sweep kt_spmv 20 sweep --kernel-file $K/kt_spmv.toml --block 32,128,256,1024 --define threads_per_row=1,32 \
  --define read_only=1 --iters 5 --seed 1 -v

# 5. Kernel Tuner zero-mean filter (in place, scalars first, grid_div_y = []).
sweep kt_zeromeanfilter 20 sweep --kernel-file $K/kt_zeromeanfilter.toml --block 32x1,32x8,64x4,128x2,256x1 \
  --iters 5 --seed 1 -v

# 6. Kernel Tuner expdist (double, CUB, template + extern "C", output length = grid).
sweep kt_expdist 30 sweep --kernel-file $K/kt_expdist.toml --block 32x2,64x4,128x8,256x2 \
  --define use_shared_mem=0,1 --iters 5 --seed 1 -v
#    The same with <cub/block/block_reduce.cuh> instead of <cub/cub.cuh>, in case NVRTC cannot take all of CUB.
sweep kt_expdist_blockreduce 30 sweep --kernel-file $K/kt_expdist_blockreduce.toml --block 32x2,64x4,128x8,256x2 \
  --define use_shared_mem=0,1 --iters 5 --seed 1 -v

# 7. CUDA samples matrixMul (template <int BLOCK_SIZE>): expected to FAIL with "unknown entry" (template name).
sweep samples_matrixMul 20 sweep --kernel-file $K/samples_matrixMul.toml --block 16x16,32x32 --iters 5 --seed 1 -v
#    The template spelled in the entry: refused before any GPU work (the source text has no such identifier).
# The template by its instantiation: NVRTC name expression, no explicit instantiation file (added by the main session).
sweep samples_matrixMul_template 20 sweep --kernel-file $K/samples_matrixMul_tmpl.toml --block 16x16 --iters 5 --seed 1 -v
sweep samples_matrixMul_16 10 sweep --kernel-file $K/samples_matrixMul_16.toml --block 16x16 --iters 5 --seed 1 -v
#    Workaround: nvcc -ptx of the instantiation, entry MatrixMulCUDA<16> in the PTX.
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
{
  echo "\$ nvcc -ptx -arch=compute_${cc:-90} -Dblock_size_x=16 $K/samples_matrixMul_inst.cu -o $K/samples_matrixMul_16.ptx"
  nvcc -ptx -arch=compute_${cc:-90} -Dblock_size_x=16 "$K/samples_matrixMul_inst.cu" -o "$K/samples_matrixMul_16.ptx"
  echo "[rc=$?]"
  grep -m1 '\.entry' "$K/samples_matrixMul_16.ptx"
} > "$OUT/samples_matrixMul_nvcc.log" 2>&1
cp "$K/samples_matrixMul_16.ptx" "$OUT/" 2>/dev/null
sweep samples_matrixMul_ptx16 20 sweep --kernel-file $K/samples_matrixMul_ptx16.toml --block 16x16 --iters 5 --seed 1 -v

# 8. Oxford laplace3d: 3D blocks named BLOCK_X/Y/Z, long long scalars, CPU reference from .npy.
sweep oxford_laplace3d 20 sweep --kernel-file $K/oxford_laplace3d.toml --block 32x4x4,64x1x8,16x4x4,128x2x2,32x8x1 \
  --iters 5 --seed 1 -v

# The same kernel with its .h as the source (accepted now; added by the main session).
sweep oxford_laplace3d_h 20 sweep --kernel-file $K/oxford_laplace3d_h.toml --block 32x4x4,16x4x4 --iters 5 --seed 1 -v

echo "total $(( $(date +%s) - START )) s" | tee -a "$SUMMARY"
