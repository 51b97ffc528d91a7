#!/usr/bin/env python3
"""bench/lib/ncu_source.py — where a kernel's instructions and stalls go, from Nsight Compute's source page:

    python3 bench/lib/ncu_source.py SOURCE.csv[.gz] [ROOT] [N]

SOURCE is `ncu -i REPORT --page source --csv --print-source cuda,sass` of one launch (scripts/gpu-host.sh's
profile step writes it, of a build with -lineinfo); ROOT is the tree the kernel was built from (default:
this repository), read to name the function around each source line.  Prints the N (default 30) functions
and the N source lines with the most executed warp instructions, and their shares of the warp stall
samples: instructions say what the kernel does, samples where it waits (memory latency shows as samples
with few instructions).  Functions inlined into others count as their own.
"""
import collections
import csv
import gzip
import os
import re
import sys


def functions(path):
    """(first line, name) of each function defined in PostgreSQL style (the name at the start of a line)"""
    out = []
    try:
        with open(path, errors="replace") as f:
            for i, line in enumerate(f, 1):
                m = re.match(r"^([A-Za-z_]\w*)\(", line)
                if m:
                    out.append((i, m.group(1)))
    except OSError:
        pass
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    # the files of this tree by base name (the CSV names them by their build paths)
    paths = {}
    for d in ("cuda", "include/themis", "src/gpud"):
        full = os.path.join(root, d)
        if os.path.isdir(full):
            for n in os.listdir(full):
                paths.setdefault(n, os.path.join(full, n))
    funcs = {}

    def func_of(fname, line):
        if fname not in paths:
            return fname
        if fname not in funcs:
            funcs[fname] = functions(paths[fname])
        best = fname
        for start, name in funcs[fname]:
            if start > line:
                break
            best = name
        return best

    opener = gzip.open if src.endswith(".gz") else open
    inst = collections.Counter()
    samp = collections.Counter()
    lines_i = collections.Counter()
    lines_s = collections.Counter()
    text = {}
    hdr = None
    fname = None
    cur = None
    with opener(src, "rt", newline="") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == "File Path":
                fname = os.path.basename(row[1])
                continue
            if row[0] == "Line No":
                hdr = row
                ii = hdr.index("Instructions Executed")
                si = hdr.index("Warp Stall Sampling (All Samples)")
                continue
            if hdr is None or row[0] == "Function Name":
                continue
            if row[0] != "":
                try:
                    cur = (fname, int(row[0]))
                except ValueError:
                    cur = None
                    continue
                text[cur] = row[1].strip()[:100]
                continue
            if cur is None:
                continue
            try:
                n, s = int(row[ii]), int(row[si])
            except (ValueError, IndexError):
                continue
            fn = func_of(cur[0], cur[1])
            inst[fn] += n
            samp[fn] += s
            lines_i[cur] += n
            lines_s[cur] += s
    ti = sum(inst.values()) or 1
    ts = sum(samp.values()) or 1
    print("%d warp instructions executed, %d stall samples" % (sum(inst.values()), sum(samp.values())))
    print("\n| function | instructions | samples |\n|---|---:|---:|")
    for fn, n in inst.most_common(top):
        print("| %s | %.1f%% | %.1f%% |" % (fn, 100.0 * n / ti, 100.0 * samp[fn] / ts))
    print("\n| line | instructions | samples | source |\n|---|---:|---:|---|")
    for k, n in lines_i.most_common(top):
        print("| %s:%d | %.1f%% | %.1f%% | `%s` |" % (k[0], k[1], 100.0 * n / ti, 100.0 * lines_s[k] / ts,
                                                  text.get(k, "").replace("|", "\\|")))


if __name__ == "__main__":
    main()
