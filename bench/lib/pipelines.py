#!/usr/bin/env python3
"""bench/lib/pipelines.py — the GPU pipelines of a query from its EXPLAIN (ANALYZE, FORMAT JSON) output:

    python3 bench/lib/pipelines.py RAW_DIR [QUERY ...]

reads RAW_DIR/qNN.analyze.json (bench/run.sh writes them) for the queries named (all of them without names)
and prints one markdown table per query: each Themis node's GPU time, then each of its pipelines with its
source, operators, sink, rows in, rows to the sink, rows out and time (ms), as EXPLAIN reports them.  For a
short summary in a device call's output, where the JSON files themselves do not come back.
"""
import glob
import json
import os
import sys


def cut(s, n):
    s = str(s)
    return s if len(s) <= n else s[:n - 1] + "…"


def walk(node, out):
    if "Pipelines" in node:
        out.append("| Themis node | GPU time %s ms | | | | | |" % node.get("GPU Time", "-"))
        for p in node["Pipelines"]:
            ops = "; ".join(cut(o.get("Operator", ""), 48) for o in p.get("Operators", []))
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                p.get("Pipeline Number", "-"), cut(p.get("Source", ""), 32), cut(ops, 110),
                cut(p.get("Sink", ""), 40), p.get("Actual Source Rows", "-"),
                p.get("Actual Sink Rows", "-"), p.get("Actual Time", "-")))
    for child in node.get("Plans", []):
        walk(child, out)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: pipelines.py RAW_DIR [QUERY ...]")
    raw = sys.argv[1]
    names = ["q%02d" % int(q.lstrip("qQ")) for q in sys.argv[2:]]
    files = [os.path.join(raw, n + ".analyze.json") for n in names] if names else \
        sorted(glob.glob(os.path.join(raw, "q[0-9][0-9].analyze.json")))
    for f in files:
        name = os.path.basename(f).split(".")[0]
        try:
            with open(f) as fh:
                plan = json.load(fh)[0]["Plan"]
        except (OSError, ValueError, KeyError, IndexError) as e:
            print("%s: no plan (%s)" % (name, e))
            continue
        out = []
        walk(plan, out)
        print("%s\n| pipeline | source | operators | sink | source rows | sink rows | time |" % name)
        print("|---|---|---|---|---:|---:|---:|")
        print("\n".join(out) if out else "| (no Themis node) | | | | | | |")
        print()


if __name__ == "__main__":
    main()
