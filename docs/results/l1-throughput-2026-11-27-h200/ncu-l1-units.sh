set -u
gunzip -c .devcarry/ws/warpscope.gz > /tmp/warpscope && chmod +x /tmp/warpscope
export PATH=/usr/local/cuda/bin:$PATH
m="breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__m_l1tex2xbar_write_sectors.sum,l1tex__m_l1tex2xbar_req.sum,lts__t_requests.sum,l1tex__t_requests.sum,sm__cycles_active.avg,smsp__inst_executed.sum"
for pair in blur-rgh:rgH:256x1 blur-rgh:rgH:1024x1 matmul-coalesced:matmulCoalesced:32x4 matmul-coalesced:matmulCoalesced:32x32 matmul-strided:matmulStrided:32x4 gaussian-smooth:gaussianSmooth:16x16; do
  IFS=: read k e b <<<"$pair"
  echo "== $k $b"
  ncu --clock-control none --launch-skip 1 --launch-count 1 --kernel-name "$e" --section WarpStateStats --metrics "$m" \
    /tmp/warpscope sweep "$k" --block "$b" --iters 3 --warmup 1 -q 2>&1 | grep -vE "^==PROF|^\s*$|----" | grep -E "l1tex|lts__|gpu__|sm__|smsp__|Stall|stalled|represents|Warp Cycles" | cut -c1-150
done
