#!/usr/bin/env bash
# Regenerates kernels-ptx/ from kernels/*.cu with a pinned nvcc from PyPI, so the committed PTX does not
# depend on whatever CUDA a developer has installed.
#   scripts/regen-ptx.sh            rewrite kernels-ptx/*.ptx and kernels-ptx/resources.json
#   scripts/regen-ptx.sh --check    regenerate into a temporary folder and fail if the committed files differ
# Every wheel is pinned: nvcc alone pulls nvvm 13.5, whose PTX (.version 9.5) an R580 / CUDA 13.0 driver rejects.
set -euo pipefail
cd "$(dirname "$0")/.."

PINS=(nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-cuda-runtime==13.0.96)
ARCH=compute_75
# Targets whose register / shared-memory use is recorded for offline estimates (ptxas 13.0 knows sm_75 and newer).
SM_TARGETS=(75 80 86 87 89 90 100 120)
VENV=${WARPSCOPE_NVCC_VENV:-.venv-nvcc}

mode=write
[ "${1:-}" = "--check" ] && mode=check

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PINS[@]}"
root=$("$VENV/bin/python" -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13"))')
NVCC="$root/bin/nvcc"
"$NVCC" --version | tail -n 2

dest=kernels-ptx
if [ "$mode" = check ]; then
  dest=$(mktemp -d)
  trap 'rm -rf "$dest"' EXIT
fi
mkdir -p "$dest"

ptxas_log=$(mktemp)
cubin=$(mktemp --suffix=.cubin)   # a scratch file: never -o /dev/null, which a tool may replace
for src in kernels/*.cu; do
  name=$(basename "$src" .cu)
  "$NVCC" -ptx -O3 -arch="$ARCH" -o "$dest/$name.ptx" "$src"
  grep -q '^\.version 9\.0$' "$dest/$name.ptx" || { echo "error: $dest/$name.ptx is not PTX ISA 9.0" >&2; exit 1; }
  for sm in "${SM_TARGETS[@]}"; do
    echo "== $name sm_$sm" >>"$ptxas_log"
    "$NVCC" -cubin -O3 -arch="sm_$sm" -Xptxas -v -o "$cubin" "$src" >>"$ptxas_log" 2>&1
  done
done
"$VENV/bin/python" scripts/ptxas-to-json.py "$ptxas_log" >"$dest/resources.json"
rm -f "$ptxas_log" "$cubin"

if [ "$mode" = check ]; then
  for f in "$dest"/*; do
    if ! cmp -s "$f" "kernels-ptx/$(basename "$f")"; then
      echo "error: kernels-ptx/$(basename "$f") is stale: run scripts/regen-ptx.sh and commit" >&2
      diff -u "kernels-ptx/$(basename "$f")" "$f" | head -n 20 >&2 || true
      exit 1
    fi
  done
  echo "kernels-ptx/ is up to date"
else
  echo "wrote $(ls kernels-ptx | wc -l) files to kernels-ptx/"
fi
