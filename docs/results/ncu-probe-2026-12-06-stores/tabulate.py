# Tabulates a probe's ncu.csv: sectors L1 sends to the crossbar over those written, and the ratio if every sector-mate merged;
# L2 write requests per (warp, line) and ideal; p_lost (share of possible merges lost); L2 input-port clocks per sent sector;
# input-port busy clocks over L2's elapsed clocks (slices busy on average); ncu's time.  python3 tabulate.py ncu.csv
import csv, io, sys, re, math
txt = open(sys.argv[1]).read()
times = {}
if len(sys.argv) > 2:
    for l in open(sys.argv[2]):
        m = re.match(r"(K=\S+ W=\S+ mode=\S+ V=\S+ A=\S+) blocks=(\d+).*median_ms=([\d.]+)", l)
        if m: times.setdefault(m.group(1), []).append((int(m.group(2)), float(m.group(3))))
print("%-34s %8s %8s %8s %8s %8s %8s %8s %8s" % ("config","sec/in","ideal","req/in","ideal","p_lost","x2lts/s","ltsbusy","ms"))
for sec in txt.split("\n## "):
    lines = sec.strip("#").strip().split("\n")
    name = lines[0].strip("# ")
    rows = list(csv.reader(io.StringIO("\n".join(l for l in lines[1:] if l.startswith('"')))))
    if len(rows) < 3: continue
    h, d = rows[0], rows[2]
    g = lambda m: float(d[h.index(m)].replace(",", "")) if m in h else float('nan')
    kv = dict(x.split("=") for x in name.split())
    K, W, V, A = (int(kv[k]) for k in "KWVA")
    per = A // K
    piece = per * V * 4
    unm_sec = W * math.ceil(piece / 32); ide_sec = math.ceil(W * piece / 32)
    unm_req = W; ide_req = math.ceil(W * piece / 128)
    l1sec = g("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"); xs = g("l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st.sum")
    req = g("lts__t_requests_srcunit_tex_op_write.sum")
    lines_total = l1sec / math.ceil(piece / 32)  # one per (warp, line)
    r_s = xs / l1sec; i_s = ide_sec / unm_sec
    r_r = req / lines_total; i_r = ide_req / unm_req
    p = (r_s - i_s) / (1 - i_s) if i_s < 1 else float('nan')
    busy = g("lts__xbar2lts_cycles_active.sum") / g("lts__cycles_elapsed.avg")
    print("%-34s %8.3f %8.3f %8.3f %8.3f %8.2f %8.2f %8.1f %8.4f" % (name.replace(" blocks=default","")[:34], r_s, i_s, r_r, i_r, p,
          g("lts__xbar2lts_cycles_active.sum") / xs, busy, g("gpu__time_duration.sum") / 1e6))
