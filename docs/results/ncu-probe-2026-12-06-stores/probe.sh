#!/bin/bash
# Runs stores.cu over (K lines a warp's store touches, W warps a block writing the same lines, V floats
# a lane, A active lanes; load or not), timed with events, then under ncu for L1's and L2's store
# counts; with WS (a warpscope binary) also ncu's full set on rgH. OUT: the folder for the logs.
set -u
out=${OUT:?}; here=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o /tmp/stores "$here/stores.cu" || exit 1
m=gpu__time_duration.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum
m+=,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
m+=,lts__xbar2lts_cycles_active.sum,l1tex__m_l1tex2xbar_req_cycles_active.sum,lts__cycles_elapsed.avg
safe=$m
m+=,l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st.sum,l1tex__m_l1tex2xbar_write_bytes.sum,sm__cycles_elapsed.avg
# a metric name this ncu does not know fails every run: try the full set once, else keep the safe one
ncu --clock-control none --launch-count 1 --metrics "$m" --csv --page raw /tmp/stores 16 4 1 >"$out/metric-try.txt" 2>&1
grep -q 'gpu__time_duration' "$out/metric-try.txt" && ! grep -qi 'failed to find\|error' "$out/metric-try.txt" || { echo "full metric set refused: safe set" >>"$out/times.txt"; m=$safe; }
one() { # MODE K W V A [BLOCKS]
  local mode=$1 K=$2 W=$3 V=$4 A=$5 B=${6:-}
  local blocks=()
  [ -n "$B" ] && blocks=("$B")
  /tmp/stores "$K" "$W" "$mode" "$V" "$A" "${blocks[@]}" >>"$out/times.txt" 2>&1 || echo "K=$K W=$W mode=$mode V=$V A=$A failed" >>"$out/times.txt"
  echo "## K=$K W=$W mode=$mode V=$V A=$A blocks=${B:-default}" >>"$out/ncu.csv"
  ncu --clock-control none --launch-count 1 --metrics "$m" --csv --page raw /tmp/stores "$K" "$W" "$mode" "$V" "$A" "${blocks[@]}" 2>&1 \
    | grep -v '^==PROF==' >>"$out/ncu.csv"
}
for c in 16,1 16,2 16,4 16,8 16,16 32,1 32,2 32,4 32,8 32,16 32,32 8,1 8,2 8,4 8,8 4,1 4,2 4,4; do one 1 ${c%,*} ${c#*,} 1 32; done
one 1 32 8 2 32; one 1 32 16 2 32; one 1 16 8 2 32
one 1 16 8 1 16; one 1 16 16 1 16; one 1 16 32 1 16
for c in 16,4 16,16 32,32; do one 0 ${c%,*} ${c#*,} 1 32; done
one 0 16 32 1 16; one 0 32 16 2 32
# light load: 256 blocks, about two an SM
for c in 16,16 32,32 16,4; do one 1 ${c%,*} ${c#*,} 1 32 256; done
ncu --query-metrics 2>/dev/null | grep -E "^l1tex__m_|^lts__t_(requests|sectors)_srcunit_tex_op_write" >"$out/metric-names.txt"
# rgH's store path (docs/MODEL.md section 34): ncu's full set at one and eight warps an SM
if [ -n "${WS:-}" ]; then for b in 32 256; do
  echo "## rgH block $b" >>"$out/rgh-full.txt"
  ncu --clock-control none --set full --launch-count 1 --launch-skip 1 --kernel-name rgH "$WS" sweep blur-rgh --block $b \
    --iters 3 --warmup 1 -q >>"$out/rgh-full.txt" 2>&1
done; fi
echo done >>"$out/times.txt"
