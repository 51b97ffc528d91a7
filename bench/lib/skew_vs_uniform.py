#!/usr/bin/env python3
"""bench/lib/skew_vs_uniform.py — issue 6's skew target from two bench/run.sh outputs of the same build:

    python3 bench/lib/skew_vs_uniform.py UNIFORM_DIR SKEWED_DIR

reads each directory's results.csv (bench/lib/report.py writes it) and prints a markdown table per query:
themis warm on uniform and on skewed data, skewed / uniform, PostgreSQL and DuckDB on the skewed data, and
whether both runs' results were identical to PostgreSQL's; then the count of queries at most 2x slower on
the skewed data (the target) and the geometric means.  A query without a themis time on either side is
listed with "–" and not counted as meeting the target.

For each query over 2x it then says which stage holds it, from the EXPLAIN ANALYZE (FORMAT JSON) that
bench/run.sh keeps of each run (raw/qNN.analyze.json): the GPU time on each data set, the rows out of all
of the query's pipelines (how much more work the skewed data gives it), the slowest pipeline on the
skewed data with its rows and time, and the warps' balance where the engine reports it (intra-warp idle
ratio, inter-warp imbalance factor: a stall on skewed keys shows there).
"""
import csv
import json
import math
import os
import sys


def load(d):
    with open(os.path.join(d, "results.csv"), newline="") as f:
        rows = [line for line in f if not line.startswith("#")]    # report.py's header lines
    return {r["query"]: r for r in csv.DictReader(rows)}


def num(v):
    try:
        return float(v) if v not in (None, "") else None
    except ValueError:
        return None


def fmt(v, nd=1):
    return "–" if v is None else f"{v:.{nd}f}"


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def pipelines(d, q):
    """(GPU ms, rows out of all pipelines, pipelines) of query q's EXPLAIN ANALYZE in run d, or None"""
    try:
        with open(os.path.join(d, "raw", f"{q}.analyze.json")) as f:
            plan = json.load(f)[0]["Plan"]
    except (OSError, ValueError, LookupError, TypeError):
        return None
    nodes = []

    def walk(n):
        if "Pipelines" in n:
            nodes.append(n)
        for c in n.get("Plans", []):
            walk(c)
    walk(plan)
    if not nodes:
        return None
    pls = [p for n in nodes for p in n["Pipelines"]]
    gpu = sum(n.get("GPU Time") or 0 for n in nodes)
    rows = sum(max(p.get("Actual Sink Rows") or 0, 0) for p in pls)
    return gpu, rows, pls


def stages(uni_dir, skw_dir, q):
    """a line on where skewed query q's time goes against the uniform run's, or None"""
    u, s = pipelines(uni_dir, q), pipelines(skw_dir, q)
    if u is None or s is None:
        return None
    slow = max(s[2], key=lambda p: p.get("Actual Time") or 0)
    bal = [(p.get("Intra-Warp Idle Ratio"), p.get("Inter-Warp Imbalance Factor")) for p in s[2]
           if p.get("Inter-Warp Imbalance Factor") is not None]
    ratio = f"{s[0] / u[0]:.1f}x" if u[0] else "–"
    rows = f"{s[1] / u[1]:.1f}x" if u[1] else "–"
    line = (f"| {q} | {u[0]:.1f} | {s[0]:.1f} | {ratio} | {u[1] / 1e6:.2f} M | {s[1] / 1e6:.2f} M | {rows} | "
            f"{slow.get('Source', '?')} into {slow.get('Sink', '?')[:60]}: "
            f"{(slow.get('Actual Sink Rows') or 0) / 1e6:.2f} M rows, {slow.get('Actual Time') or 0:.1f} ms | ")
    if bal:
        idle = max(float(b[0] or 0) for b in bal)
        imb = max(float(b[1] or 0) for b in bal)
        line += f"idle {idle:.3f}, imbalance {imb:.2f} |"
    else:
        line += "– |"
    return line


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    uni, skw = load(argv[1]), load(argv[2])
    lines = ["| query | themis uniform | themis skewed | skewed / uniform | PostgreSQL skewed | DuckDB skewed "
             "| results (uniform, skewed) |",
             "|---|---:|---:|---:|---:|---:|---|"]
    ok = n = 0
    ratios, tu, ts, misses = [], [], [], []
    for q in sorted(set(uni) | set(skw)):
        u, s = uni.get(q, {}), skw.get(q, {})
        a, b = num(u.get("themis_warm_ms")), num(s.get("themis_warm_ms"))
        ratio = b / a if a and b else None
        n += 1
        if ratio is not None:
            ratios.append(ratio)
            tu.append(a)
            ts.append(b)
            ok += ratio <= 2.0
            if ratio > 2.0:
                misses.append(q)
        lines.append(f"| {q} | {fmt(a)} | {fmt(b)} | {fmt(ratio, 2)} | {fmt(num(s.get('pg_warm_ms')))} | "
                     f"{fmt(num(s.get('duckdb_warm_ms')))} | {u.get('result', '–')}, {s.get('result', '–')} |")
    print("\n".join(lines))
    print()
    print(f"At most 2x slower on the skewed data: {ok} of {n}; worst {fmt(max(ratios) if ratios else None, 2)}x; "
          f"geometric mean of themis's times: uniform {fmt(geomean(tu))} ms, skewed {fmt(geomean(ts))} ms "
          f"(over the {len(ratios)} queries timed on both).")
    over = [q for q in misses if stages(argv[1], argv[2], q)]
    if over:
        print()
        print("Where the time of the queries over 2x goes (EXPLAIN ANALYZE after the timed runs, "
              "raw/qNN.analyze.json of each run; GPU ms, rows out of all pipelines; the slowest pipeline on "
              "the skewed data; the warps' balance where the engine reports it):")
        print()
        print("| query | GPU uniform | GPU skewed | ratio | rows uniform | rows skewed | ratio "
              "| slowest pipeline, skewed | balance, skewed |")
        print("|---|---:|---:|---:|---:|---:|---:|---|---|")
        for q in over:
            print(stages(argv[1], argv[2], q))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
