#!/usr/bin/env bash
# The README's commands (and a few more) on the mock backend, each one's standard output, standard error
# and exit code saved to a folder: run it with the binary before and after a change and diff the folders
# to see that the change printed the same tables (`diff -r before/ after/`).
#
#   scripts/mock-outputs.sh target/debug/warpscope /tmp/after
#
# Sizes are smaller than the README's (the mock walks every thread on the CPU) and seeds are fixed; every
# other option is the README's.
set -u
bin=$(realpath "${1:?usage: mock-outputs.sh BINARY OUT_DIR}")
out=${2:?usage: mock-outputs.sh BINARY OUT_DIR}
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(realpath "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
export WARPSCOPE_BACKEND=mock
unset WARPSCOPE_MOCK_FAULT
fx=$repo/tests/fixtures
small=(--nx 1024 --ny 512 --seed 42 --iters 5)

n=0
# run NAME ARGS...: one command; its files are NAME.out, NAME.err, NAME.code.
run() {
    local name=$1
    shift
    n=$((n + 1))
    "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err"
    echo $? >"$out/$name.code"
}
# runenv NAME VAR=VALUE ARGS...: the same with one more environment variable.
runenv() {
    local name=$1 var=$2
    shift 2
    n=$((n + 1))
    env "$var" "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err"
    echo $? >"$out/$name.code"
}
# file NAME PATH: a file a command wrote, kept beside the outputs.
file() { cp "$2" "$out/$1" 2>/dev/null || echo "missing" >"$out/$1"; }

run sweep-4 sweep sum-matrix --block 32x32,32x16,16x32,16x16 "${small[@]}"
run sweep-cartesian sweep sum-matrix --bx 64,128,256 --by 1,2,4,8 "${small[@]}"
run run-1 run sum-matrix --block 32x16 "${small[@]}"
run sweep-json sweep sum-matrix --block 32x16 --format json -o r.json "${small[@]}"
file sweep-json.r.json r.json
run sweep-csv sweep sum-matrix --block 32x16,16x16 --format csv "${small[@]}"
run sweep-md sweep sum-matrix --block 32x16,16x16 --format markdown "${small[@]}"
run devices devices
run devices-json devices --format json
run selftest selftest
run estimate-fermi estimate sum-matrix --arch sm_20 --block 32x32,32x16,16x32,16x16
run estimate-gtx480 estimate sum-matrix --gpu "GTX 480" --bx 64,128,256 --by 1,2,4,8 --format json
run estimate-csv estimate sum-matrix --arch sm_90 --bx 64,128 --by 1,2 --format csv
run occupancy-json occupancy --arch sm_80 --block-size 256 --regs 32 --smem 4096 --format json
run occupancy-table occupancy --arch sm_90 --regs 40 --block-size 32..1024:32
run occupancy-csv occupancy --arch sm_90 --regs 40 --block-size 32..256:32 --format csv
run occupancy-plot occupancy --arch sm_90 --regs 40 --block-size 32..1024:32 --plot occ.svg
run archs archs
run archs-json archs --format json
run kernels kernels
run kernels-file kernels --kernel-file "$repo/examples/kernels/vector_add.toml"
run metrics metrics
run metrics-json metrics --format json
run sweep-counters sweep sum-matrix --block 32x32,32x16,16x32,16x16 --metrics achieved_occupancy,gld_throughput,gld_efficiency "${small[@]}"
run run-all-json run sum-matrix --block 32x16 --metrics all --format json "${small[@]}"
run compare-ncu compare "$fx/ws-h200-seed.json" "$fx/ncu-h200-seed-default.csv"
run compare-ncu-csv compare "$fx/ws-h200-seed.json" "$fx/ncu-h200-seed-default.csv" --format csv
run compare-ncu-json compare "$fx/ws-h200-seed.json" "$fx/ncu-h200-seed-default.csv" --format json
run compare-fail compare "$fx/ws-h200-seed.json" "$fx/ncu-h200-seed-default.csv" --fail-above 3
run compare-profilers compare "$fx/profilers/nvprof-gpu-trace-v100-bfs.log" "$fx/profilers/ncu-csv-2020-v100-bfs.log"
run import-json import "$fx/ncu-h200-seed-default.csv" --format json
run import-table import "$fx/profilers/nvprof-summary-v100-bfs.log"
run ske sweep rgb-to-gray --bx 32 --by 1..16 --model --nx 96 --ny 64 --frames 2 --seed 42 --iters 5
run peak peak --nx 512 --ny 256 --plot mad.svg
run transpose transpose --bench --sizes 128,256
run transpose-width transpose --bench --sizes 64,128 --width 256
run blur-bench blur --bench --width 256 --height 192
run blur-bench-json blur --bench --width 256 --height 192 --format json
run blur-image blur --image "$fx/astronaut-192.png" --algo recursive-seg -o out.png
run blur-estimate blur --estimate --copy-mps 14200
run blur-estimate-json blur --estimate --copy-mps 14200 --format json
run matmul sweep matmul-strided --block 16x16,32x8 --metrics gld_efficiency,gld_transactions --model --nx 128 --seed 42
run diverge sweep diverge-odd-even --bx 128,256 --metrics branch_efficiency,warp_execution_efficiency --nx 256 --ny 64 --seed 42
run aos sweep aos --bx 256 --metrics gld_efficiency,gld_throughput --model --nx 256 --ny 64 --seed 42
run runspec-dry run-spec "$repo/experiments/seed-001-block-dims.toml" --dry-run
run jsonl sweep sum-matrix --bx 32..256:32 --by 1..2 --format jsonl -o r.jsonl "${small[@]}"
file jsonl.r.jsonl r.jsonl
run jsonl-resume sweep sum-matrix --bx 32..256:64 --by 1..3 --format jsonl -o r.jsonl --resume r.jsonl "${small[@]}"
file jsonl-resume.r.jsonl r.jsonl
run until-noise sweep sum-matrix --block 32x16,16x16 --until-noise 0.5 --cold --plot t.svg --nx 1024 --ny 512 --seed 42
run before sweep sum-matrix --block 32x16,16x16 --format json -o before.json "${small[@]}"
run after sweep sum-matrix --block 32x16,16x16 --format json -o after.json "${small[@]}" --cold
run compare-baseline compare --baseline before.json after.json --fail-above 3
run compare-baseline-csv compare --baseline before.json after.json --format csv
run compare-baseline-json compare --baseline before.json after.json --format json
runenv devices-all WARPSCOPE_MOCK_DEVICES=2 sweep sum-matrix --bx 64,128,256 --by 1,2,4 --devices all "${small[@]}"
run shard1 sweep sum-matrix --bx 64,128,256 --by 1,2 --shard 1/2 -o part1.json --format json "${small[@]}"
run shard2 sweep sum-matrix --bx 64,128,256 --by 1,2 --shard 2/2 -o part2.json --format json "${small[@]}"
run merge merge part1.json part2.json
run merge-partial merge part1.json
runenv timeout WARPSCOPE_MOCK_HANG_AT=2 sweep sum-matrix --block 32x16,16x16,8x8 --timeout 1 "${small[@]}"
runenv fault WARPSCOPE_MOCK_FAULT=3 sweep sum-matrix --block 32x16,16x16 "${small[@]}"
runenv sigint WARPSCOPE_MOCK_SIGINT_AFTER=2 sweep sum-matrix --block 32x16,16x16,8x8 "${small[@]}"
run bad-block sweep sum-matrix --block 32y16
run bad-kernel sweep nope --block 32x16
run bad-frames sweep sum-matrix --block 32x16 --frames 3
run completions completions bash
run man man sweep
echo "$n commands; outputs in $out"
