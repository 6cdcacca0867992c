set -u
gunzip -c .devcarry/ws/warpscope.gz > /tmp/warpscope && chmod +x /tmp/warpscope
export PATH=/usr/local/cuda/bin:$PATH
m="regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__inst_executed.sum"
for pair in gaussian-smooth:gaussianSmooth:32x8 gaussian-smooth:gaussianSmooth:32x32 matmul-coalesced:matmulCoalesced:128x1 matmul-coalesced:matmulCoalesced:32x8 transpose-shared:transposeShared:32x8 blur-rows-tiled:blurRowsTiled:32x8 blur-rows-tiled:blurRowsTiled:32x32 diverge-warp:divergeWarp:128x1; do
  IFS=: read k e b <<<"$pair"
  echo "== $k $b"
  ncu --clock-control none --launch-skip 1 --launch-count 1 --kernel-name "$e" --metrics "$m" \
    /tmp/warpscope sweep "$k" --block "$b" --iters 3 --warmup 1 -q 2>&1 | grep -E "smsp__|sm__|gpu__" | awk '$NF+0 >= 0.05 || /gpu__|issue_active|warps_active|inst_exec/' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | tr -s ' ' | cut -c1-90
done
