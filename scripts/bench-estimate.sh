#!/usr/bin/env bash
# Times `warpscope estimate` of 4,096 and 65,536 block shapes (sum-matrix, --bx 1..N --by 1..N, the H200
# modelled) with the binary of this checkout ("after") and of an earlier revision ("before"), in one run,
# each command three times (median of the wall times; user + system CPU too). No GPU is needed.
#   scripts/bench-estimate.sh [BEFORE_REV]     BEFORE_REV defaults to the merge-base with main
# The "before" binary is built once into target/bench-before/<rev>/ (its own target directory: the first
# run takes as long as a clean release build).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

rev=${1:-$(git merge-base HEAD main 2>/dev/null || git rev-parse HEAD~1)}
short=$(git rev-parse --short "$rev")
before=$root/target/bench-before/$short/warpscope
if [ ! -x "$before" ]; then
  echo "building the before binary ($short) ..." >&2
  wt=$(mktemp -d)
  git worktree add -q --detach "$wt" "$rev"
  (cd "$wt" && CARGO_TARGET_DIR="$root/target/bench-before/build" cargo build --release --locked -q)
  mkdir -p "$(dirname "$before")"
  cp "$root/target/bench-before/build/release/warpscope" "$before"
  git worktree remove --force "$wt"
fi
cargo build --release --locked -q
after=$root/target/release/warpscope

# One timing: "wall user+sys" in seconds.
one() {
  local f
  f=$(mktemp)
  /usr/bin/time -o "$f" -f "%e %U %S" "$@" >/dev/null 2>&1
  awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$f"
  rm -f "$f"
}

# Median of three: "wall cpu".
median3() {
  { one "$@"; one "$@"; one "$@"; } | sort -n | sed -n 2p
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# before: $short   after: $(git rev-parse --short HEAD)$(git diff --quiet || echo '+dirty')"
printf '%-8s %-7s %10s %10s %10s\n' shapes binary wall_s cpu_s per_shape_us
for n in 64 256; do
  shapes=$((n * n))
  for which in before after; do
    bin=$before
    [ "$which" = after ] && bin=$after
    read -r wall cpu < <(median3 "$bin" estimate sum-matrix --bx "1..$n" --by "1..$n" --gpu H200 --format json -o /dev/null -q)
    printf '%-8s %-7s %10s %10s %10.1f\n' "$shapes" "$which" "$wall" "$cpu" "$(awk -v w="$wall" -v s="$shapes" 'BEGIN { print 1e6 * w / s }')"
  done
done
