#!/bin/bash
# The six foreign kernels of FOREIGN-NOTES.md (and the __device__-table probe), swept with the model and
# CUPTI beside it: bash scratch-foreign/run6.sh OUTDIR (or $OUT on the device machine).
here="$(cd "$(dirname "$0")" && pwd)"; bin="$here/../target/release/warpscope"; out="${1:-$OUT}"; mkdir -p "$out"
m=inst_executed,gld_efficiency,gst_efficiency,gld_transactions,gst_transactions,shared_load_transactions_per_request,dram_read_throughput,dram_write_throughput
s() { local name=$1; shift; echo "== $name"; /usr/bin/time -f "$name %e s" "$bin" sweep "$@" --model --seed 3 --timeout 300 --format json -o "$out/$name.json" > "$out/$name.txt" 2> "$out/$name.err"; echo "rc=$?"; tail -3 "$out/$name.err"; grep -E "verified|median|Spearman" "$out/$name.txt" | tail -3; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
s haxpy --kernel-file "$here/haxpy.toml" --metrics $m
s reduce-shfl --kernel-file "$here/reduce_shfl.toml" --metrics $m
s stencil2d-sm --kernel-file "$here/stencil2d_sm.toml" --metrics $m
s gauss3x3 --kernel-file "$here/gauss3x3.toml" --metrics $m
s gauss3x3-global --kernel-file "$here/gauss3x3_global.toml"
s transpose-unroll4 --kernel-file "$here/transpose_unroll4.toml" --metrics $m
s deposit2d --kernel-file "$here/deposit2d.toml" --metrics $m,atomic_transactions
echo "== model-check (as swept)"; "$bin" model-check "$out"/*.json 2>&1 | tail -12
date -u
cd "$out/.." && tar czf "$OUT/foreign6.tgz" "$(basename "$out")" && rm -rf "$out"
