#!/bin/bash
# Foreign kernels with byte accesses and atomics, swept with the model and CUPTI beside it.
here="$(cd "$(dirname "$0")" && pwd)"; bin="$here/../target/release/warpscope"; out="${1:-$OUT}"; mkdir -p "$out"
m=gld_efficiency,gst_efficiency,gld_transactions,gst_transactions,atomic_transactions,dram_read_throughput,dram_write_throughput
s() { local name=$1; shift; echo "== $name"; /usr/bin/time -f "$name %e s" "$bin" sweep "$@" --model --seed 3 --format json -o "$out/$name.json" > "$out/$name.txt" 2> "$out/$name.err"; echo "rc=$?"; tail -3 "$out/$name.err"; grep -E "verified|median|Spearman" "$out/$name.txt" | tail -3; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
s grey --kernel-file "$here/udacity_grey.toml" --metrics $m
s grey3 --kernel-file "$here/udacity_grey3.toml" --metrics $m
s histo-264 --kernel-file "$here/book_histo_global.toml" --metrics $m
s histo-1056 --kernel-file "$here/book_histo_global.toml" --size blocks=1056
s histo-shared-132 --kernel-file "$here/book_histo_shared.toml" --size blocks=132 --metrics $m
s histo-shared-264 --kernel-file "$here/book_histo_shared.toml" --size blocks=264
s histo-shared-1056 --kernel-file "$here/book_histo_shared.toml" --size blocks=1056
s histo-shared-4224 --kernel-file "$here/book_histo_shared.toml" --size blocks=4224
echo "== model-check (as swept)"; "$bin" model-check "$out"/*.json 2>&1 | tail -12
date -u
cd "$out/.." && tar czf "$OUT/foreign.tgz" "$(basename "$out")" && rm -rf "$out"
