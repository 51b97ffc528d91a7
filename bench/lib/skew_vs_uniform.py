#!/usr/bin/env python3
"""bench/lib/skew_vs_uniform.py — issue 6's skew target from two bench/run.sh outputs of the same build:

    python3 bench/lib/skew_vs_uniform.py UNIFORM_DIR SKEWED_DIR

reads each directory's results.csv (bench/lib/report.py writes it) and prints a markdown table per query:
themis warm on uniform and on skewed data, skewed / uniform, PostgreSQL and DuckDB on the skewed data, and
whether both runs' results were identical to PostgreSQL's; then the count of queries at most 2x slower on
the skewed data (the target) and the geometric means.  A query without a themis time on either side is
listed with "–" and not counted as meeting the target.
"""
import csv
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


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    uni, skw = load(argv[1]), load(argv[2])
    lines = ["| query | themis uniform | themis skewed | skewed / uniform | PostgreSQL skewed | DuckDB skewed "
             "| results (uniform, skewed) |",
             "|---|---:|---:|---:|---:|---:|---|"]
    ok = n = 0
    ratios, tu, ts = [], [], []
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
        lines.append(f"| {q} | {fmt(a)} | {fmt(b)} | {fmt(ratio, 2)} | {fmt(num(s.get('pg_warm_ms')))} | "
                     f"{fmt(num(s.get('duckdb_warm_ms')))} | {u.get('result', '–')}, {s.get('result', '–')} |")
    print("\n".join(lines))
    print()
    print(f"At most 2x slower on the skewed data: {ok} of {n}; worst {fmt(max(ratios) if ratios else None, 2)}x; "
          f"geometric mean of themis's times: uniform {fmt(geomean(tu))} ms, skewed {fmt(geomean(ts))} ms "
          f"(over the {len(ratios)} queries timed on both).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
