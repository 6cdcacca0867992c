#!/bin/bash
# Second probe (thirty-fourth session): how many lines may one store instruction touch and still merge
# with a block's other warps' stores in L1? K = A lines, one float a lane, A = 8..32 active lanes; the
# value computed (mode 0: a block's warps store back to back) and loaded (mode 1). OUT: the logs' folder.
set -u
out=${OUT:?}; here=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o /tmp/stores "$here/stores.cu" || exit 1
m=gpu__time_duration.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum
m+=,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
m+=,lts__xbar2lts_cycles_active.sum,l1tex__m_l1tex2xbar_req_cycles_active.sum,lts__cycles_elapsed.avg
m+=,l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st.sum,l1tex__m_l1tex2xbar_write_bytes.sum,sm__cycles_elapsed.avg
one() { # MODE K W V A
  /tmp/stores "$2" "$3" "$1" "$4" "$5" >>"$out/times.txt" 2>&1 || echo "K=$2 W=$3 mode=$1 V=$4 A=$5 failed" >>"$out/times.txt"
  echo "## K=$2 W=$3 mode=$1 V=$4 A=$5 blocks=default" >>"$out/ncu.csv"
  ncu --clock-control none --launch-count 1 --metrics "$m" --csv --page raw /tmp/stores "$2" "$3" "$1" "$4" "$5" 2>&1 \
    | grep -v '^==PROF==' >>"$out/ncu.csv"
}
for a in 8 12 15 16 17 18 20 24 28 31 32; do one 0 $a 32 1 $a; one 1 $a 16 1 $a; done
# two lanes a line: 8 and 16 lines at A = 16 and 32; 16 lines of two words with 8 bytes a lane
one 0 8 16 1 16; one 0 16 16 1 32; one 0 16 8 2 32; one 0 8 8 2 16
echo done >>"$out/times.txt"
