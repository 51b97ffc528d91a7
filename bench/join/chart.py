#!/usr/bin/env python3
"""bench/join/chart.py — chart and summary of the join microbenchmark (bench/join/run.sh).

    python3 bench/join/chart.py OUTDIR      reads OUTDIR/results.csv (+ info.txt),
                                            writes OUTDIR/chart.png and OUTDIR/results.md

Standard library only: the PNG is drawn with the canvas and 5x7 font of bench/lib/report.py.

chart.png, three panels:
  1. throughput ((|R| + |S|) / time, G tuples/s) against log2 |R| = log2 |S| per variant, 4-byte keys
     and payloads, uniform, 100% match, 1 and 2 payload columns (solid / dashed);
  2. time per phase of each variant for the target case (2^27, two 4-byte payload columns per side,
     uniform and Zipf 1.5), with the bandwidth floor and the target line;
  3. throughput against the match ratio (2^27, two payload columns).

results.md: the device, the targets of the issue checked one by one (PASS / FAIL / n/a), and every
measured line.
"""
import csv
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import report  # noqa: E402
from report import Canvas, text_width  # noqa: E402

report.FONT.setdefault("^", ["00100", "01010", "10001", "00000", "00000", "00000", "00000"])

VARIANTS = ["partitioned", "partitioned_gfur", "pipelined"]
COLORS = {"partitioned": (46, 110, 190), "partitioned_gfur": (235, 140, 40), "pipelined": (120, 120, 120)}
PHASES = [("part_r_ms", "PART R", (46, 110, 190)), ("part_s_ms", "PART S", (120, 170, 230)),
          ("join_ms", "JOIN", (60, 160, 90)), ("payload_ms", "TRANSFORM+GATHER", (235, 140, 40)),
          ("gather_ms", "GATHER BY ID", (200, 60, 60)), ("other_ms", "OTHER", (170, 170, 170))]
BLACK, GREY, LIGHT, RED = (0, 0, 0), (90, 90, 90), (225, 225, 225), (200, 30, 30)


def fnum(r, k, default=None):
    try:
        v = r.get(k, "")
        return float(v) if v not in ("", None) else default
    except ValueError:
        return default


def load(outdir):
    info = {}
    p = os.path.join(outdir, "info.txt")
    if os.path.exists(p):
        for line in open(p, encoding="utf-8", errors="replace"):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                info[k] = v
    with open(os.path.join(outdir, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    return info, rows


def pick(rows, **kw):
    out = []
    for r in rows:
        ok = True
        for k, v in kw.items():
            x = r.get(k, "")
            if isinstance(v, float):
                if fnum(r, k) is None or abs(fnum(r, k) - v) > 1e-6:
                    ok = False
            elif str(x) != str(v):
                ok = False
        if ok:
            out.append(r)
    return out


def one(rows, **kw):
    m = pick(rows, **kw)
    return m[0] if m else None


# ---------------------------------------------------------------- drawing helpers

def line(cv, x0, y0, x1, y1, c, w=2, dash=0):
    """a line of width w (Bresenham, squares); dash > 0: on/off segments of that many pixels"""
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
    err = dx + dy
    n = 0
    while True:
        if dash == 0 or (n // dash) % 2 == 0:
            cv.rect(x0 - w // 2, y0 - w // 2, x0 - w // 2 + w, y0 - w // 2 + w, c)
        n += 1
        if x0 == x1 and y0 == y1:
            break
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy


def nice_max(v):
    if v <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * e >= v:
            return m * e
    return 10 * e


def axes(cv, x, y, w, h, ymax, title, ylabel, nticks=5):
    cv.text(x, y - 26, title, BLACK, 1)
    cv.text(x, y - 14, ylabel, GREY)
    for i in range(nticks + 1):
        v = ymax * i / nticks
        yy = int(y + h - h * i / nticks)
        cv.rect(x, yy, x + w, yy + 1, LIGHT)
        lab = f"{v:g}" if v < 100 else f"{v:.0f}"
        cv.text(x - 6 - text_width(lab), yy - 3, lab, GREY)
    cv.rect(x, y, x + 1, y + h, BLACK)
    cv.rect(x, y + h, x + w, y + h + 1, BLACK)


def panel_sizes(cv, x, y, w, h, rows):
    series = []
    for v in VARIANTS:
        for p, dash in (("1", 0), ("2", 6)):
            pts = []
            for r in rows:
                if r["variant"] == v and r["pay_cols"] == p and r["key_w"] == "4" and r["pay_w"] == "4" \
                        and fnum(r, "zipf") == 0 and fnum(r, "match") == 1.0 and r.get("label") in ("size", "target") \
                        and fnum(r, "tput_gtps") is not None and r["log2r"] == r["log2s"]:
                    pts.append((int(r["log2r"]), fnum(r, "tput_gtps")))
            pts = sorted(set(pts))
            if pts:
                series.append((v, p, dash, pts))
    xs = sorted({p[0] for s in series for p in s[3]}) or [24, 28]
    ymax = nice_max(max([p[1] for s in series for p in s[3]] + [0.1]))
    axes(cv, x, y, w, h, ymax, "THROUGHPUT VS SIZE (4/4 BYTES, UNIFORM, 100% MATCH)", "G TUPLES/S  ((|R|+|S|)/TIME)")
    x0, x1 = xs[0], xs[-1] if xs[-1] > xs[0] else xs[0] + 1

    def px(n):
        return int(x + 20 + (w - 40) * (n - x0) / (x1 - x0))

    def py(v):
        return int(y + h - h * v / ymax)

    for n in xs:
        cv.text(px(n) - 12, y + h + 6, f"2^{n}", BLACK)
    for v, p, dash, pts in series:
        c = COLORS[v]
        for (a, av), (b, bv) in zip(pts, pts[1:]):
            line(cv, px(a), py(av), px(b), py(bv), c, 2, dash)
        for a, av in pts:
            cv.rect(px(a) - 3, py(av) - 3, px(a) + 4, py(av) + 4, c)
    ly = y + h + 20
    lx = x
    for v in VARIANTS:
        cv.rect(lx, ly, lx + 12, ly + 8, COLORS[v])
        lx = cv.text(lx + 16, ly, v, BLACK) + 16
    cv.text(lx, ly, "SOLID: 1 PAYLOAD COLUMN  DASHED: 2", GREY)


def panel_phases(cv, x, y, w, h, rows, target_ms):
    cases = []
    for z in (0.0, 1.5):
        for v in VARIANTS:
            r = one(rows, label="target", log2r="27", pay_cols="2", variant=v, zipf=z)
            if r is not None:
                cases.append((z, v, r))
    tots = [fnum(r, "total_ms", 0) for _, _, r in cases] + [target_ms or 0]
    ymax = nice_max(max(tots + [1]))
    axes(cv, x, y, w, h, ymax, "TIME PER PHASE: 2^27 X 2^27, TWO 4-BYTE PAYLOADS PER SIDE", "MS (MEDIAN RUN)")
    if not cases:
        cv.text(x + 20, y + h // 2, "NO TARGET CASE IN RESULTS.CSV", RED)
        return
    slot = (w - 20) // max(1, len(cases))
    bw = max(10, min(40, slot - 16))

    def py(v):
        return int(y + h - h * v / ymax)

    for i, (z, v, r) in enumerate(cases):
        bx = x + 15 + i * slot
        acc = 0.0
        for k, _, c in PHASES:
            val = fnum(r, k, 0) or 0
            if val > 0:
                cv.rect(bx, py(acc + val), bx + bw, py(acc) + 1, c)
                acc += val
        tot = fnum(r, "total_ms", 0)
        lab = f"{tot:.1f}"
        cv.text(bx + bw // 2 - text_width(lab) // 2, py(max(tot, acc)) - 10, lab, BLACK)
        fl = fnum(r, "floor_ms")
        if fl:
            cv.rect(bx - 3, py(fl), bx + bw + 3, py(fl) + 2, RED)
        short = {"partitioned": "GFTR", "partitioned_gfur": "GFUR", "pipelined": "PIPE"}[v]
        cv.text(bx + bw // 2 - text_width(short) // 2, y + h + 6, short, BLACK)
        zl = "UNIF" if z == 0 else f"Z{z:g}"
        cv.text(bx + bw // 2 - text_width(zl) // 2, y + h + 16, zl, GREY)
    if target_ms:
        yy = py(target_ms)
        line(cv, x, yy, x + w, yy, RED, 1, 4)
        cv.text(x + w - text_width(f"TARGET {target_ms:g} MS") - 2, yy - 10, f"TARGET {target_ms:g} MS", RED)
    ly = y + h + 30
    lx = x
    for _, name, c in PHASES:
        cv.rect(lx, ly, lx + 12, ly + 8, c)
        lx = cv.text(lx + 16, ly, name, BLACK) + 12
        if lx > x + w - 120:
            lx = x
            ly += 12
    cv.rect(lx, ly + 3, lx + 12, ly + 5, RED)
    cv.text(lx + 16, ly, "FLOOR", BLACK)


def panel_match(cv, x, y, w, h, rows):
    series = []
    for v in VARIANTS:
        pts = []
        for r in rows:
            if r["variant"] == v and r["log2r"] == "27" and r["pay_cols"] == "2" and fnum(r, "zipf") == 0 \
                    and r["key_w"] == "4" and r["pay_w"] == "4" and r.get("label") in ("match", "target") \
                    and fnum(r, "tput_gtps") is not None:
                pts.append((fnum(r, "match"), fnum(r, "tput_gtps")))
        pts = sorted(set(pts))
        if pts:
            series.append((v, pts))
    ymax = nice_max(max([p[1] for s in series for p in s[1]] + [0.1]))
    axes(cv, x, y, w, h, ymax, "THROUGHPUT VS MATCH RATIO (2^27, TWO PAYLOADS)", "G TUPLES/S")
    ms = sorted({p[0] for s in series for p in s[1]}) or [0.0625, 1.0]
    lo, hi = math.log2(ms[0]), math.log2(ms[-1]) if ms[-1] > ms[0] else math.log2(ms[0]) + 1

    def px(m):
        return int(x + 20 + (w - 40) * (math.log2(m) - lo) / (hi - lo))

    def py(v):
        return int(y + h - h * v / ymax)

    for m in ms:
        lab = f"{m * 100:g}%"
        cv.text(px(m) - text_width(lab) // 2, y + h + 6, lab, BLACK)
    for v, pts in series:
        c = COLORS[v]
        for (a, av), (b, bv) in zip(pts, pts[1:]):
            line(cv, px(a), py(av), px(b), py(bv), c, 2)
        for a, av in pts:
            cv.rect(px(a) - 3, py(av) - 3, px(a) + 4, py(av) + 4, c)


def write_png(outdir, info, rows, target_ms):
    W, H = 1500, 500
    cv = Canvas(W, H)
    cv.text(10, 8, "JOIN MICROBENCHMARK: " + info.get("card", "?").replace("_", " "), BLACK, 2)
    sub = f"COPY BANDWIDTH {info.get('copy_gbs', '?')} GB/S   L2 {int(info.get('l2_bytes', '0') or 0) // (1 << 20)} MIB" \
          f"   COMMIT {info.get('commit', '?')}   {info.get('date', '')}"
    cv.text(10, 28, sub, GREY)
    panel_sizes(cv, 70, 90, 560, 330, rows)
    panel_phases(cv, 700, 90, 430, 330, rows, target_ms)
    panel_match(cv, 1200, 90, 270, 330, rows)
    cv.png(os.path.join(outdir, "chart.png"))


# ---------------------------------------------------------------- summary

def ratio(a, b):
    return a / b if a and b else None


def write_md(outdir, info, rows):
    card = info.get("card", (rows[0]["card"] if rows else "?"))
    is_h200 = "H200" in card.upper()
    is_h100 = "H100" in card.upper()
    target_ms = 12.0 if is_h200 else (13.0 if is_h100 else None)
    lines = []
    lines.append(f"# Join microbenchmark: {card.replace('_', ' ')}")
    lines.append("")
    lines.append(f"commit {info.get('commit', '?')}, {info.get('date', '?')}; copy bandwidth "
                 f"{info.get('copy_gbs', '?')} GB/s (cudaMemcpy device to device, read + write); L2 "
                 f"{int(info.get('l2_bytes', '0') or 0) / (1 << 20):.0f} MiB; {info.get('sms', '?')} SMs; "
                 f"median of {info.get('runs', '?')} runs after a warm-up. Times are tm_pjoin's own "
                 "(first to last event on its stream, host waits included).")
    lines.append("")
    lines.append("## Targets (issue: partitioned hash join)")
    lines.append("")
    lines.append("| target | measured | result |")
    lines.append("|---|---|---|")

    def verdict(ok):
        return "n/a" if ok is None else ("PASS" if ok else "FAIL")

    checks = []
    for p in ("1", "2"):
        for z in (0.0, 1.5):
            g = one(rows, label="target", log2r="27", pay_cols=p, variant="partitioned", zipf=z)
            u = one(rows, label="target", log2r="27", pay_cols=p, variant="partitioned_gfur", zipf=z)
            pl = one(rows, label="target", log2r="27", pay_cols=p, variant="pipelined", zipf=z)
            zs = "uniform" if z == 0 else f"Zipf {z:g}"
            if g is None:
                continue
            t = fnum(g, "total_ms")
            if p == "2":
                ok = (t <= target_ms) if (t is not None and target_ms) else None
                lines.append(f"| 2^27 x 2^27, two payloads, {zs}: <= {target_ms or '12 (H200) / 13 (H100)'} ms | "
                             f"{t:.2f} ms | {verdict(ok)} |")
                checks.append(ok)
            else:
                ref = "10.3 ms on H200, 11.3 ms on H100"
                lines.append(f"| 2^27 x 2^27, one payload, {zs} (published: {ref}) | {t:.2f} ms | info |")
            if u is not None and p == "2":
                rr = ratio(fnum(u, "total_ms"), t)
                ok = rr >= 1.4 if rr else None
                lines.append(f"| GFTR >= 1.4x GFUR, two payloads, {zs} | {rr:.3f}x ({fnum(u, 'total_ms'):.2f} ms) "
                             f"| {verdict(ok)} |")
                checks.append(ok)
            if u is not None:
                pg, pu = fnum(g, "peak_bytes"), fnum(u, "peak_bytes")
                if pg and pu:
                    ok = pg <= pu
                    lines.append(f"| peak memory GFTR <= GFUR, {p} payload(s), {zs} | {pg / 2**30:.2f} GiB vs "
                                 f"{pu / 2**30:.2f} GiB | {verdict(ok)} |")
                    checks.append(ok)
            fl = fnum(g, "floor_ms")
            if fl:
                d = t / fl
                lines.append(f"| distance to the floor, {p} payload(s), {zs} (ambition <= 4x) | {d:.2f}x "
                             f"(floor {fl:.2f} ms) | {'PASS' if d <= 4 else 'above 4x'} |")
            if pl is not None and p == "2":
                lines.append(f"| pipelined, {p} payload(s), {zs} | {fnum(pl, 'total_ms'):.2f} ms | info |")
    # partitioned vs pipelined where the build side is >= 10x L2
    for r in rows:
        if r["variant"] != "partitioned" or fnum(r, "build_over_l2", 0) < 10 or fnum(r, "total_ms") is None:
            continue
        pl = one(rows, label=r["label"], log2r=r["log2r"], log2s=r["log2s"], key_w=r["key_w"], pay_w=r["pay_w"],
                 pay_cols=r["pay_cols"], match=fnum(r, "match"), zipf=fnum(r, "zipf"), variant="pipelined")
        if pl is None or fnum(pl, "total_ms") is None:
            continue
        rr = fnum(pl, "total_ms") / fnum(r, "total_ms")
        ok = rr >= 1.3
        checks.append(ok)
        lines.append(f"| partitioned >= 1.3x pipelined (build side {fnum(r, 'build_over_l2'):.0f}x L2): "
                     f"{r['label']} 2^{r['log2r']}, {r['key_w']}/{r['pay_w']} B, {r['pay_cols']} col, "
                     f"match {fnum(r, 'match'):g}, zipf {fnum(r, 'zipf'):g} | {rr:.3f}x | {verdict(ok)} |")
    bad = [r for r in rows if r.get("check") != "ok"]
    lines.append(f"| every result checked (row count and checksum) | {len(rows) - len(bad)} of {len(rows)} ok | "
                 f"{'PASS' if not bad else 'FAIL'} |")
    checks.append(not bad)
    lines.append("")
    npass = sum(1 for c in checks if c)
    nfail = sum(1 for c in checks if c is False)
    lines.append(f"{npass} passed, {nfail} failed" + ("" if target_ms else
                 " (the ms targets are for H200 / H100 only: n/a on this card)"))
    lines.append("")
    lines.append("Floor: inputs read once plus the result written once, at the copy bandwidth above. "
                 "variant_floor_ms: the variant's own estimated traffic (tm_pjoin's bytes_moved) at that bandwidth.")
    lines.append("")
    lines.append("## All measurements")
    lines.append("")
    cols = ["label", "log2r", "key_w", "pay_w", "pay_cols", "match", "zipf", "variant", "total_ms", "part_r_ms",
            "part_s_ms", "join_ms", "payload_ms", "gather_ms", "tput_gtps", "floor_ms", "ratio_to_floor",
            "variant_floor_ms", "peak_bytes", "r_batches", "s_chunks", "check"]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "---|" * len(cols))
    for r in rows:
        vals = []
        for c in cols:
            v = r.get(c, "")
            if c == "peak_bytes" and v:
                v = f"{float(v) / 2**30:.2f} GiB"
            vals.append(v)
        lines.append("| " + " | ".join(vals) + " |")
    lines.append("")
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write("\n".join(lines))
    return target_ms


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    outdir = argv[1]
    info, rows = load(outdir)
    target_ms = write_md(outdir, info, rows)
    write_png(outdir, info, rows, target_ms)
    print(open(os.path.join(outdir, "results.md")).read().split("## All measurements")[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
