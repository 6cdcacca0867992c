#!/bin/bash
# L1's data pipe under stores: lsu wavefronts by command (read / write) against the store requests' lines and
# sectors, for built-in kernels with multi-line stores (rgH), interleaved stores, coalesced ones.
set -u
cd "$(dirname "$0")/../.."
ws=$PWD/target/release/warpscope; out=${OUT:?}
export PATH=/usr/local/cuda/bin:$PATH
ncu --query-metrics 2>/dev/null | grep -E "data_pipe_lsu_wavefronts|l1tex2xbar_req|m_xbar2l1tex" > "$out/query.txt"
m=gpu__time_duration.sum,sm__cycles_elapsed.avg,l1tex__data_pipe_lsu_wavefronts.sum
for s in _mem_lg_cmd_read _mem_lg_cmd_write _mem_shared _mem_shared_cmd_read _mem_shared_cmd_write _mem_lg _cmd_read _cmd_write; do
  grep -q "^l1tex__data_pipe_lsu_wavefronts$s " "$out/query.txt" && m+=,l1tex__data_pipe_lsu_wavefronts$s.sum
done
m+=,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
m+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
m+=,l1tex__m_l1tex2xbar_req_cycles_active.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
echo "$m" > "$out/metrics.txt"
one() { # kernel entry block
  echo "## $1 $3" >> "$out/ncu.csv"
  ncu --clock-control none --launch-skip 1 --launch-count 1 --kernel-name "$2" --metrics "$m" --csv --page raw \
    "$ws" sweep "$1" --block "$3" --iters 2 --warmup 1 -q 2>&1 | grep -v '^==PROF==' | tail -3 >> "$out/ncu.csv"
}
one blur-rgh rgH 256; one blur-rgh rgH 1024; one blur-rgh rgH 128
one gaussian-smooth gaussianSmooth 32x2; one gaussian-smooth gaussianSmooth 32x32; one gaussian-smooth gaussianSmooth 1024x1
one copy copyFloat 256; one transpose-naive transposeNaive 32x8; one transpose-naive transposeNaive 16x16
one resize resizeBilinear 64x4; one rgb-to-gray rgbToGray 32x4; one matmul-coalesced matmulCoalesced 256x1
one blur-rgv rgV 256; one blur-cols-tiled blurColsTiled 16x16
date -u
