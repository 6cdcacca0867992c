#!/usr/bin/env bash
# How fast `warpscope import` reads a big Nsight Compute CSV, and how much memory it takes.
#
# Builds a file of about SIZE_MB megabytes from a real fixture by repeating its launches under new IDs
# (the details page of tests/fixtures/profilers/ncu-csv-2025-cc100-cublaslt.log, and the raw page of
# tests/fixtures/ncu-h200-32x16-raw.csv), then times `warpscope import FILE --format json -o /dev/null`
# with the release build. Prints seconds and peak resident memory per file.
#
#   scripts/bench-import.sh [SIZE_MB]        (default 20)
set -euo pipefail

cd "$(dirname "$0")/.."
size_mb=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet
bin=target/release/warpscope

# Repeats the launch rows of $1 (quoted CSV; the first field is the launch ID) until the file holds
# $2 bytes; a units row (empty ID) is kept once, under the header.
grow() {
    local src=$1 bytes=$2 out=$3
    awk -v want="$bytes" '
        /^"ID",/ { header = $0; next }
        /^""/ { units = $0; next }
        /^"[0-9]+",/ { rows[n++] = $0; next }
        END {
            print header
            if (units != "") print units
            size = length(header)
            id = 0
            while (size < want) {
                last = ""
                for (i = 0; i < n; i++) {
                    row = rows[i]
                    split(row, f, ",")
                    if (f[1] != last) { last = f[1]; id++ }
                    sub(/^"[0-9]+"/, "\"" id "\"", row)
                    print row
                    size += length(row) + 1
                }
            }
        }' "$src" > "$out"
}

run() {
    local file=$1
    local mb
    mb=$(du -m "$file" | cut -f1)
    if [ -x /usr/bin/time ]; then
        # Wall time, and CPU time (what it would take on an idle machine: a shared one stretches the wall).
        for format in json jsonl; do
            /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin" import "$file" --format "$format" -o /dev/null -q
            read -r secs user sys kb < "$work/time"
            echo "$(basename "$file") -> $format: ${mb} MB in ${secs} s (CPU ${user} s user + ${sys} s system), peak RSS $((kb / 1024)) MiB"
        done
    else
        local t0 t1
        t0=$(date +%s.%N)
        "$bin" import "$file" --format json -o /dev/null -q
        t1=$(date +%s.%N)
        echo "$(basename "$file"): ${mb} MB in $(echo "$t1 - $t0" | bc) s"
    fi
}

bytes=$((size_mb * 1000 * 1000))
grow tests/fixtures/profilers/ncu-csv-2025-cc100-cublaslt.log "$bytes" "$work/details.csv"
grow tests/fixtures/ncu-h200-32x16-raw.csv "$bytes" "$work/raw.csv"
run "$work/details.csv"
run "$work/raw.csv"
