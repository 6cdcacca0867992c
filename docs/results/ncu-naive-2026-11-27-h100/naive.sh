#!/bin/bash
ws=/tmp/warpscope
m=gpu__time_duration.sum,lts__xbar2lts_cycles_active.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum
m+=,lts__t_requests_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__cycles_elapsed.avg,lts__cycles_active.avg
m+=,lts__t_sectors_op_write_lookup_miss.sum,lts__t_sectors_op_write_lookup_hit.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
m+=,lts__d_sectors_fill_sysmem.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__average_t_sector_hit_rate_realtime.pct,lts__t_sectors_op_read.sum
for b in ${BLOCKS:-16x4 16x8 16x16 16x32 32x8 32x32}; do
  ncu --clock-control none --launch-count 1 --kernel-name ${K:-transposeNaive} --launch-skip 1 --metrics $m --csv --page raw \
    $ws sweep ${KS:-transpose-naive} --block $b --iters 3 --warmup 1 -q > $OUT/raw-$b.txt 2>&1
done
python3 - $OUT <<'PY'
import csv,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+'/raw-*.txt')):
    lines=[l for l in open(f) if l.startswith('"ID"') or l.startswith('"0"')]
    if len(lines)<2: print(f, 'no data'); continue
    names=next(csv.reader([lines[0]])); row=next(csv.reader([lines[1]]))
    d=dict(zip(names,row))
    print(os.path.basename(f), ' '.join('%s=%s'%(k, v) for k,v in d.items() if k.startswith(('gpu__','lts__','dram__'))))
PY
