#!/bin/bash
# One device call: the foreign kernels (two batches), then device-check's kernel-file part.
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
bash scratch-foreign/run6.sh $OUT/foreign6 > $OUT/foreign6.txt 2>&1; tail -16 $OUT/foreign6.txt
bash scratch-foreign/run.sh $OUT/foreign > $OUT/foreign.txt 2>&1; tail -13 $OUT/foreign.txt
DEVICE_CHECK_ONLY='devices|calibrate|selftest|kfs-.*' WARPSCOPE_BIN=target/release/warpscope timeout 150 bash scripts/device-check.sh $OUT/dc > $OUT/dc-stdout.txt 2>&1; grep -E "kfs-grey-u8|of [0-9]+ kernel" $OUT/dc-stdout.txt | head -5; tail -3 $OUT/dc/kfs-model-check.log
(cd $OUT && tar czf dc.tgz dc dc-stdout.txt && rm -rf dc)
date -u
