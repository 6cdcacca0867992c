#!/usr/bin/env python3
"""How well one measurement predicts another: issue 14's targets with a sweep's measured times standing in
for the model's predictions of a second sweep of the same kernels on the same kind of card (docs/MODEL.md
section 23). Where even a repeat of the measurement misses a target, the target asks the model to rank
noise. No GPU: reads the stored sweeps (docs/results/model-check-*/<card>-a|b/sweeps.tar.xz pairs).
    scripts/noise-ceiling.py [PAIR_GLOB ...]
Default: every stored a/b pair of one session and card since calibration version 5."""
import glob, json, math, os, re, statistics, sys, tarfile, tempfile

SPREAD_PCT, MAX_ERR_PCT, MIN_SPEARMAN, MAX_REGRET_PCT = 10.0, 10.0, 0.9, 5.0  # model::check's targets


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va, vb = sum((x - ma) ** 2 for x in ra), sum((y - mb) ** 2 for y in rb)
    return None if va == 0 or vb == 0 else cov / math.sqrt(va * vb)


def times(folder):
    """kernel -> {block: median ms} of the ok records of every sweep file in a folder."""
    out = {}
    for f in glob.glob(os.path.join(folder, "*.json")):
        if os.path.basename(f) in ("calibration.json", "model-check.json"):
            continue
        for r in json.load(open(f)).get("records", []):
            t = (r.get("time_ms") or {}).get("median")
            if r.get("status") == "ok" and t:
                out.setdefault(r["kernel"], {})[tuple(r["block"])] = t
    return out


def judge(pred, meas):
    """model::check's verdict of `pred` as predictions of `meas` over their common blocks."""
    blocks = sorted(set(pred) & set(meas))
    p, m = [pred[b] for b in blocks], [meas[b] for b in blocks]
    err = statistics.median(abs(x / y - 1) * 100 for x, y in zip(p, m))
    spread = 100 * (max(m) / min(m) - 1)
    rho = spearman(p, m) if spread > SPREAD_PCT else None
    regret = 100 * (m[p.index(min(p))] / min(m) - 1)
    ok = err <= MAX_ERR_PCT and (rho is None or rho >= MIN_SPEARMAN) and regret <= MAX_REGRET_PCT
    return err, rho, regret, ok


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    pats = sys.argv[1:] or [os.path.join(root, "docs/results/model-check-2026-11-2[67]-*/*-a/sweeps.tar.xz")]
    pairs = []
    for pat in pats:
        for a in sorted(glob.glob(pat)):
            b = re.sub(r"-a/sweeps", "-b/sweeps", a)
            if os.path.exists(b):
                pairs.append((a, b))
    if not pairs:
        sys.exit("error: no a/b pairs of stored sweeps found")
    per = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n, (a, b) in enumerate(pairs):
            ta, tb = [], []
            for t, dst in ((a, ta), (b, tb)):
                d = os.path.join(tmp, f"{n}-{len(dst)}-{os.path.basename(os.path.dirname(t))}")
                with tarfile.open(t) as z:
                    z.extractall(d, filter="data")
                dst.append(times(d))
            name = os.path.relpath(os.path.dirname(a), os.path.join(root, "docs/results"))
            met = 0
            both = sorted(set(ta[0]) & set(tb[0]))
            for k in both:
                v = judge(ta[0][k], tb[0][k])
                per.setdefault(k, []).append(v)
                met += v[3]
            print(f"{name} (b's times predicted by a's): {met} of {len(both)} kernels meet the targets")
    print(f"\n{'kernel':22} {'median |diff|':>13} {'Spearman':>9} {'regret':>7}  missed")
    for k in sorted(per):
        vs = per[k]
        rhos = [v[1] for v in vs if v[1] is not None]
        rho = f"{statistics.median(rhos):.2f}" if rhos else "n/a"
        print(f"{k:22} {statistics.median(v[0] for v in vs):12.1f}% {rho:>9} {statistics.median(v[2] for v in vs):6.1f}%"
              f"  {sum(not v[3] for v in vs)} of {len(vs)}")


if __name__ == "__main__":
    main()
