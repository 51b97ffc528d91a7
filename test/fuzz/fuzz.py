#!/usr/bin/env python3
"""fuzz.py — differential tester for themis: random schemas, data and queries, each query run with
themis off (PostgreSQL's answer) and with themis forced on, under several plan shapes; any difference
is shrunk to a minimal self-contained reproducer in test/fuzz/repro/.

  test/fuzz/fuzz.py --seeds 1-3 --queries 200 --variants 2   # the test-suite run (~30 s on 2 cores)
  test/fuzz/fuzz.py --seeds 1-50 --queries 500 --time-limit 3600
  test/fuzz/fuzz.py --host /tmp/sock --port 5432 --user me --dbname postgres --seed 7
  test/fuzz/fuzz.py --seed 3 --only 41 --print-only    # show query 41 of seed 3 and the schema
  test/fuzz/fuzz.py --verify test/fuzz/repro/*.sql     # which reproducers still differ

Without --host it starts a throw-away cluster under /tmp (initdb --no-locale -E UTF8, a private Unix
socket, shared_preload_libraries = 'themis'); as root the server runs as the user themisrun (or
$THEMIS_RUN_USER, or pgrun).  Each seed gets its own database (UTF8, C collation), dropped at the end.

Per query: themis off vs themis on (themis.device = cpu (--device), min_rows = 0, fallback = off) under
the default plan and --variants more plan shapes (hash / merge / nested loop joins off, hashed
aggregation off, parallel plans forced, seq scans off, index paths, small work_mem, the partitioned join
forced on the GPU: themis.join_algorithm = partitioned / partitioned_gfur).  Passed: both give the same multiset of rows
(for ORDER BY: the same order of the sort-key columns; -0 = 0 for floats only where grouping / DISTINCT
/ min / max may legitimately pick either), or both fail with the same SQLSTATE and message.  A themis
"cannot run this plan" error (fallback = off) is re-run with fallback = on and compared the same way.
When the outcomes differ only in which error is raised (or whether one is), and PostgreSQL itself gives
themis's outcome under another plan shape, the query counts as passed ("plan-dependent").

Output: a line per mismatch, a summary (coverage: queries whose EXPLAIN has a Themis node; reasons
given for subtrees left to PostgreSQL), and the final line "N passed, N failed".  Exit status 1 on any
mismatch, 2 on a setup failure.
"""
import argparse
import collections
import copy
import decimal
import hashlib
import json
import os
import pwd
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gen  # noqa: E402
import pgwire  # noqa: E402

FLOAT_OIDS = {700, 701}
NUMERIC_OID = 1700

VARIANTS = collections.OrderedDict([
    ("default", []),
    ("no_hashjoin", ["enable_hashjoin = off"]),
    ("no_mergejoin", ["enable_mergejoin = off"]),
    ("no_nestloop", ["enable_nestloop = off"]),
    ("merge_only", ["enable_hashjoin = off", "enable_nestloop = off"]),
    ("nestloop_only", ["enable_hashjoin = off", "enable_mergejoin = off"]),
    ("no_hashagg", ["enable_hashagg = off"]),
    ("parallel", ["parallel_setup_cost = 0", "parallel_tuple_cost = 0", "min_parallel_table_scan_size = 0",
                  "min_parallel_index_scan_size = 0", "max_parallel_workers_per_gather = 2"]),
    ("parallel_no_hashagg", ["parallel_setup_cost = 0", "parallel_tuple_cost = 0",
                             "min_parallel_table_scan_size = 0", "max_parallel_workers_per_gather = 2",
                             "enable_hashagg = off"]),
    ("no_seqscan", ["enable_seqscan = off"]),
    ("index_paths", ["enable_seqscan = off", "enable_bitmapscan = off", "enable_hashjoin = off"]),
    ("small_work_mem", ["work_mem = '64kB'"]),
    # the partitioned join on the GPU wherever it applies (the CPU executor ignores the setting)
    ("join_partitioned", ["themis.join_algorithm = partitioned"]),
    ("join_partitioned_gfur", ["themis.join_algorithm = partitioned_gfur"]),
    # index lookups (nested loops over parameterized scans) with the outer side hashed, the table streamed
    ("stream_lookup", ["enable_hashjoin = off", "enable_mergejoin = off", "themis.stream_lookup_side = on"]),
])

FALLBACK_MSG = "themis: cannot run this plan"
SHRUNK_SIGS = collections.Counter()    # mismatch signature -> times seen (shrink only the first few)


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------
# cluster
# ------------------------------------------------------------------------------------------------


def find_pg_bin(arg):
    if arg:
        return arg
    if os.environ.get("PGBIN"):
        return os.environ["PGBIN"]
    pgc = os.environ.get("PG_CONFIG") or shutil.which("pg_config")
    if pgc:
        try:
            b = subprocess.run([pgc, "--bindir"], capture_output=True, text=True).stdout.strip()
            if b and os.path.exists(os.path.join(b, "initdb")):
                return b
        except OSError:
            pass
    for b in ("/usr/lib/postgresql/15/bin", "/opt/pgroot/usr/lib/postgresql/15/bin"):
        if os.path.exists(os.path.join(b, "initdb")):
            return b
    return os.path.dirname(shutil.which("initdb") or "/usr/bin/initdb")


def find_run_user(arg):
    if os.getuid() != 0:
        return None
    for u in [arg, os.environ.get("THEMIS_RUN_USER"), "themisrun", "pgrun"]:
        if not u:
            continue
        try:
            pwd.getpwnam(u)
            return u
        except KeyError:
            continue
    raise SystemExit("running as root: no unprivileged user for the server (themisrun / pgrun); use --run-user")


class Cluster:
    """A throw-away PostgreSQL instance under /tmp."""

    def __init__(self, pg_bin, run_user, keep=False, extra_conf=()):
        self.pg_bin, self.run_user, self.keep = pg_bin, run_user, keep
        self.dir = tempfile.mkdtemp(prefix="themis-fuzz.", dir="/tmp")
        os.chmod(self.dir, 0o755)
        self.data = os.path.join(self.dir, "data")
        self.logfile = os.path.join(self.dir, "server.log")
        self.port = 5432
        self.user = "fuzz"
        if run_user:
            pw = pwd.getpwnam(run_user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self._run([os.path.join(pg_bin, "initdb"), "-D", self.data, "--no-locale", "-E", "UTF8", "-U", self.user,
                   "-A", "trust", "-N"], quiet=True)
        conf = ["shared_preload_libraries = 'themis'", "port = %d" % self.port, "listen_addresses = ''",
                "unix_socket_directories = '%s'" % self.dir, "fsync = off", "synchronous_commit = off",
                "full_page_writes = off", "lc_messages = 'C'", "jit = off", "autovacuum = off",
                "max_connections = 20", "shared_buffers = '128MB'", "log_min_messages = 'log'",
                "log_min_error_statement = 'panic'", "restart_after_crash = on"] + list(extra_conf)
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("\n# themis fuzz\n" + "\n".join(conf) + "\n")
        self.start()

    def _run(self, cmd, quiet=False):
        if self.run_user:
            cmd = ["runuser", "-u", self.run_user, "--"] + cmd
        r = subprocess.run(cmd, cwd=self.dir, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s failed (%d):\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
        return r

    def start(self):
        try:
            self._run([os.path.join(self.pg_bin, "pg_ctl"), "-D", self.data, "-l", self.logfile, "-w", "-t", "60",
                       "start"])
        except RuntimeError:
            try:
                log(open(self.logfile).read()[-3000:])
            except OSError:
                pass
            raise

    def stop(self):
        try:
            self._run([os.path.join(self.pg_bin, "pg_ctl"), "-D", self.data, "-m", "immediate", "stop"])
        except RuntimeError as e:
            log("warning: %s" % e)
        if not self.keep:
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            log("cluster files kept in %s" % self.dir)

    def kill_backend(self, pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass

    # what the server log says about the GPU daemon and crashed processes (server_events)
    EVENT_PATTERNS = (
        ("daemon terminated by signal", re.compile(r"GPU daemon \(pid \d+\) was terminated by signal (\d+)")),
        ("daemon exited", re.compile(r"GPU daemon \(pid \d+\) exited with status (\d+)")),
        ("server process terminated", re.compile(r"server process \(PID \d+\) was terminated by signal (\d+)")),
        ("server process exited", re.compile(r"server process \(PID \d+\) exited with exit code (\d+)")),
        ("daemon", re.compile(r"themis-gpud\[\d+\]: (.{0,60})")),
    )

    def server_events(self):
        """-> (Counter of 'event: detail', up to 30 sample lines) from the server log"""
        ev, lines = collections.Counter(), []
        try:
            with open(self.logfile, errors="replace") as f:
                for line in f:
                    for name, rx in self.EVENT_PATTERNS:
                        m = rx.search(line)
                        if m:
                            detail = re.sub(r"\d{3,}", "N", m.group(1))
                            ev["%s: %s" % (name, detail)] += 1
                            if len(lines) < 30:
                                lines.append(line.rstrip()[:300])
                            break
        except OSError:
            pass
        return ev, lines

    def log_tail(self, n=4000):
        try:
            with open(self.logfile, errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return ""


# ------------------------------------------------------------------------------------------------
# running one query
# ------------------------------------------------------------------------------------------------


class Outcome:
    __slots__ = ("kind", "rows", "types", "code", "msg", "secs", "fallback", "notices")

    def __init__(self, kind, rows=None, types=None, code=None, msg=None, secs=0.0):
        self.kind, self.rows, self.types, self.code, self.msg, self.secs = kind, rows, types, code, msg, secs
        self.fallback = None
        self.notices = []

    def short(self):
        if self.kind == "ok":
            return "ok (%d rows)" % len(self.rows)
        if self.kind == "err":
            return "ERROR %s: %s" % (self.code, self.msg)
        return self.kind.upper() + (": " + self.msg if self.msg else "")

    def sig(self):
        """what must agree between two runs (errors)"""
        return (self.kind, self.code, self.msg)


class Session:
    """A connection to the fuzz database, reconnecting after a backend crash."""

    def __init__(self, args, dbname, cluster=None):
        self.args, self.dbname, self.cluster = args, dbname, cluster
        self.conn = None
        self.connect()

    def connect(self, wait=60.0):
        a = self.args
        deadline = time.monotonic() + wait
        while True:
            try:
                self.conn = pgwire.Conn(a.host, a.port, a.user, self.dbname, a.password, timeout=a.timeout)
                r = self.conn.query("SELECT 1")
                if r.ok:
                    return
                raise pgwire.ConnectionLost(r.errtext())
            except (pgwire.ConnectionLost, OSError) as e:
                if time.monotonic() > deadline:
                    raise RuntimeError("cannot connect to the server: %s" % e)
                time.sleep(0.5)

    def exec(self, sql, timeout=None):
        """run setup SQL; raise on error"""
        r = self.conn.query(sql, timeout=timeout)
        if r.error:
            raise RuntimeError("%s\nin: %s" % (r.errtext(), sql[:2000]))
        return r

    def run(self, sql, settings, timeout):
        """-> Outcome; settings is a list of 'name = value'"""
        pre = "RESET ALL; " + "; ".join("SET " + s for s in settings)
        try:
            r = self.conn.query(pre)
            if r.error:
                raise RuntimeError("settings failed: %s (%s)" % (r.errtext(), pre))
            t0 = time.monotonic()
            r = self.conn.query(sql, timeout=timeout)
            secs = time.monotonic() - t0
        except pgwire.QueryTimeout as e:
            pid = self.conn.pid
            if self.cluster is not None:
                self.cluster.kill_backend(pid)
            try:
                self.conn.close()
            except Exception:
                pass
            time.sleep(1.0)
            self.connect()
            return Outcome("timeout", msg=str(e), secs=timeout)
        except pgwire.ConnectionLost as e:
            time.sleep(1.0)
            self.connect()
            return Outcome("crash", msg=str(e))
        if r.error:
            code = r.error.get("C")
            if code == "57014" and "statement timeout" in r.error.get("M", ""):
                o = Outcome("timeout", msg="statement timeout", secs=secs)
            else:
                o = Outcome("err", code=code, msg=r.error.get("M"), secs=secs)
        else:
            o = Outcome("ok", rows=r.rows, types=r.types, secs=secs)
        o.notices = [n.get("M", "") for n in r.notices]
        return o


def themis_settings(args, on, fallback=False):
    if not on:
        return ["themis.enabled = off"]
    return ["themis.enabled = on", "themis.device = %s" % args.device, "themis.min_rows = 0",
            "themis.fallback = %s" % ("on" if fallback else "off")]


def base_settings(args, schema, stmt_timeout=None):
    return ["statement_timeout = '%ds'" % (stmt_timeout or args.statement_timeout),
            "search_path = %s, public" % schema,
            "extra_float_digits = 1", "DateStyle = 'ISO, MDY'", "IntervalStyle = 'postgres'",
            "TimeZone = 'UTC'"]


def run_side(sess, args, sql, on, variant, schema, timeout, stmt_timeout=None):
    st = base_settings(args, schema, stmt_timeout) + VARIANTS[variant] + themis_settings(args, on)
    o = sess.run(sql, st, timeout)
    if on and o.kind == "err" and o.code == "0A000" and (o.msg or "").startswith(FALLBACK_MSG):
        reason = o.msg[len(FALLBACK_MSG):].lstrip(": ")
        st = base_settings(args, schema, stmt_timeout) + VARIANTS[variant] + \
            themis_settings(args, True, fallback=True)
        o = sess.run(sql, st, timeout)
        o.fallback = reason
    return o


# ------------------------------------------------------------------------------------------------
# comparing
# ------------------------------------------------------------------------------------------------


def canon_float(v):
    if v == "-0":
        return "0"
    return v


def canon_num(v):
    if v is None:
        return v
    try:
        d = decimal.Decimal(v)
    except decimal.InvalidOperation:
        return v
    if not d.is_finite():
        return v
    if d == 0:
        return "0"
    return format(d.normalize(), "f")


def canon_rows(rows, types, float_cols_loose):
    if not float_cols_loose:
        return rows
    idx = [i for i, t in enumerate(types) if t in FLOAT_OIDS]
    if not idx:
        return rows
    out = []
    for r in rows:
        r = list(r)
        for i in idx:
            r[i] = canon_float(r[i])
        out.append(tuple(r))
    return out


def order_keys(rows, types, order_idx):
    out = []
    for r in rows:
        k = []
        for i in order_idx:
            v = r[i]
            if types[i] in FLOAT_OIDS:
                v = canon_float(v)
            elif types[i] == NUMERIC_OID:
                v = canon_num(v)
            k.append(v)
        out.append(tuple(k))
    return out


def compare(off, on, meta):
    """-> None if the outcomes agree, else (category, detail)"""
    if off.kind == "ok" and on.kind == "ok":
        loose = meta["loose_float"]
        a = canon_rows(off.rows, off.types, loose)
        b = canon_rows(on.rows, on.types, loose)
        if len(off.types) != len(on.types):
            return ("rows", "different column count")
        ca, cb = collections.Counter(a), collections.Counter(b)
        if ca != cb:
            miss = ca - cb
            extra = cb - ca
            return ("rows", "%d rows vs %d; missing with themis: %s; extra with themis: %s" % (
                len(a), len(b), fmt_rows(list(miss.elements())[:5]), fmt_rows(list(extra.elements())[:5])))
        if meta["order_idx"]:
            ka = order_keys(off.rows, off.types, meta["order_idx"])
            kb = order_keys(on.rows, on.types, meta["order_idx"])
            if ka != kb:
                pos = next(i for i in range(len(ka)) if ka[i] != kb[i])
                return ("order", "first difference at row %d: %s vs %s" % (pos + 1, ka[pos], kb[pos]))
        return None
    if off.kind == "err" and on.kind == "err":
        if (off.code, off.msg) == (on.code, on.msg):
            return None
        return ("error-diff", "off: %s | on: %s" % (off.short(), on.short()))
    if on.kind in ("crash", "timeout"):
        return (on.kind, "off: %s | on: %s" % (off.short(), on.short()))
    cat = "extra-error" if off.kind == "ok" else "missing-error"
    return (cat, "off: %s | on: %s" % (off.short(), on.short()))


def fmt_val(v):
    if v is None:
        return "NULL"
    return v.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def fmt_rows(rows):
    return "[" + ", ".join("(" + " | ".join(fmt_val(v) for v in r) + ")" for r in rows) + "]"


def is_eval_order(off, on, mm):
    """themis raised a data exception (22xxx) where PostgreSQL returned rows, or the reverse: which rows
    an expression is evaluated on is left to the implementation (PostgreSQL skips the outer side of a
    hash join whose hash table is empty, ...)"""
    if mm[0] == "extra-error":
        return (on.code or "").startswith("22")
    if mm[0] == "missing-error":
        return (off.code or "").startswith("22")
    if mm[0] == "error-diff":
        return (off.code or "").startswith("22") and (on.code or "").startswith("22")
    return False


def mismatch_sig(off, on, mm, feats=()):
    """what makes two mismatches "probably the same bug" (only the first few of a kind are shrunk)"""
    if mm[0] in ("extra-error", "missing-error", "error-diff", "crash", "timeout"):
        return (mm[0], off.code, on.code, on.msg if on.kind != "ok" else off.msg)
    keep = sorted(f for f in feats if f.startswith("probe:") or f in ("agg:distinct", "sink:Aggregate",
                                                                       "source:Aggregate result",
                                                                       "source:PostgreSQL subplan"))
    return (mm[0],) + tuple(keep)


def query_meta(qy):
    loose = qy.grouped() or qy.distinct
    return {"loose_float": loose, "order_idx": [i for i, _, _ in qy.order]}


# ------------------------------------------------------------------------------------------------
# one query under several variants
# ------------------------------------------------------------------------------------------------


class Checker:
    def __init__(self, sess, args, schema="public"):
        self.sess, self.args, self.schema = sess, args, schema

    def off_timeout(self):
        return self.args.statement_timeout + 15

    def on_stmt_timeout(self, off):
        """themis may be slower than PostgreSQL, but not by much: a timeout is reported only beyond
        4 x PostgreSQL's time + 10 s (and at least --statement-timeout)"""
        return int(max(self.args.statement_timeout, 4 * off.secs + 10))

    def on_timeout(self, off):
        return self.on_stmt_timeout(off) + 15

    def check(self, sql, meta, variant):
        """-> (off, on, mismatch or None)"""
        off = run_side(self.sess, self.args, sql, False, variant, self.schema, self.off_timeout())
        if off.kind in ("timeout", "crash"):
            return off, None, None
        on = run_side(self.sess, self.args, sql, True, variant, self.schema, self.on_timeout(off),
                      self.on_stmt_timeout(off))
        return off, on, (compare(off, on, meta) if off.kind not in ("timeout", "crash") else None)

    def plan_dependent(self, sql, meta, on):
        """does PostgreSQL alone give themis's outcome under some plan shape?"""
        for v in VARIANTS:
            o = run_side(self.sess, self.args, sql, False, v, self.schema, self.off_timeout())
            if o.kind == on.kind == "err" and (o.code, o.msg) == (on.code, on.msg):
                return v
            if o.kind == on.kind == "ok" and compare(o, on, meta) is None:
                return v
        return None

    def explain(self, sql, variant="default", text=False, on=True):
        st = base_settings(self.args, self.schema) + VARIANTS[variant] + themis_settings(self.args, on) + \
            (["themis.debug_ir = on"] if on else [])
        fmt = "(COSTS OFF)" if text else "(FORMAT JSON)"
        o = self.sess.run("EXPLAIN %s %s" % (fmt, sql), st, self.off_timeout())
        if o.kind != "ok":
            return None, [], o.short()
        plan = "\n".join(r[0] for r in o.rows)
        reasons = []
        for n in o.notices:
            m = re.match(r"themis: plan node \d+ not offloaded: (.*)", n)
            if m:
                reasons.append(m.group(1))
        return plan, reasons, None


def has_themis(plan_json):
    return plan_json is not None and '"Custom Plan Provider": "Themis"' in plan_json


PG_WORK_NODES = ("Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan", "Hash Join", "Merge Join",
                 "Nested Loop", "Aggregate")


def plan_features(plan_json):
    """-> (set of features of the Themis nodes, list of PostgreSQL work nodes outside them)"""
    feats, left = set(), []
    try:
        doc = json.loads(plan_json)
    except (TypeError, ValueError):
        return feats, left

    def walk(n):
        if n.get("Custom Plan Provider") == "Themis":
            feats.add("node")
            for p in n.get("Pipelines", []):
                src = p.get("Source", "")
                feats.add("source:" + re.sub(r" on .*| \d+.*", "", src))
                for op in p.get("Operators", []):
                    o = op.get("Operator", "")
                    m = re.match(r"Hash Probe \d+ \(([^)]*)\)", o)
                    if m:
                        feats.add("probe:" + m.group(1))
                    else:
                        feats.add("op:" + re.split(r"[ :(]", o, 1)[0])
                sink = p.get("Sink", "")
                m = re.match(r"(Hash Build|Aggregate|Emit rows|[A-Za-z ]+)", sink)
                feats.add("sink:" + (m.group(1).strip() if m else sink[:20]))
                if "count(DISTINCT" in sink or "DISTINCT" in sink:
                    feats.add("agg:distinct")
            for sub in n.get("Plans", []):
                walk(sub)
            return
        nt = n.get("Node Type", "")
        if nt in PG_WORK_NODES:
            left.append(nt)
        for sub in n.get("Plans", []):
            walk(sub)

    for top in doc:
        walk(top["Plan"])
    return feats, left


# ------------------------------------------------------------------------------------------------
# database setup
# ------------------------------------------------------------------------------------------------


def load_tables(sess, tables, schema):
    sess.exec("SET search_path = %s, public" % schema)
    for t in tables:
        sess.exec("DROP TABLE IF EXISTS %s.%s CASCADE" % (schema, t.name))
        sess.exec(t.ddl())
        for ins in t.insert_sql():
            sess.exec(ins, timeout=300)
        for p in t.post_sql():
            sess.exec(p, timeout=300)
    sess.exec("RESET search_path")


def table_fp(t):
    h = hashlib.sha1()
    h.update(t.ddl().encode())
    h.update(repr(t.rows).encode())
    h.update(repr(t.post_sql()).encode())
    return h.hexdigest()


# ------------------------------------------------------------------------------------------------
# shrinking
# ------------------------------------------------------------------------------------------------


def query_candidates(qy):
    """smaller variants of the query, biggest cuts first"""
    c = []

    def mk(f):
        n = copy.deepcopy(qy)
        f(n)
        c.append(n)

    for k in range(len(qy.froms) - 1, 0, -1):
        mk(lambda n, k=k: n.froms.pop(k))
    if len(qy.froms) > 1:
        def drop_first(n):
            n.froms.pop(0)
            n.froms[0].jtype = None
            n.froms[0].on = []
        mk(drop_first)
    for k in range(len(qy.where)):
        mk(lambda n, k=k: n.where.pop(k))
    if qy.having:
        mk(lambda n: setattr(n, "having", []))
    if qy.order or qy.limit is not None:
        def drop_order(n):
            n.order, n.tiebreak, n.limit, n.offset = [], [], None, None
        mk(drop_order)
    if qy.offset:
        mk(lambda n: setattr(n, "offset", None))
    if qy.limit is not None:
        def drop_limit(n):
            n.limit, n.offset = None, None
        mk(drop_limit)
    if qy.distinct:
        mk(lambda n: setattr(n, "distinct", False))
    for k in range(len(qy.select)):
        if len(qy.select) > 1:
            def drop_sel(n, k=k):
                n.select.pop(k)
                n.order = [(i if i < k else i - 1, d, nl) for i, d, nl in n.order if i != k]
                n.tiebreak = [i if i < k else i - 1 for i in n.tiebreak if i != k]
            mk(drop_sel)
    for k in range(len(qy.group)):
        mk(lambda n, k=k: n.group.pop(k))
    if qy.group:
        def drop_group(n):
            n.group = []
        mk(drop_group)
    for k in range(1, len(qy.froms)):
        f = qy.froms[k]
        for j in range(len(f.on)):
            mk(lambda n, k=k, j=j: n.froms[k].on.pop(j))
        if f.jtype not in ("JOIN", "comma"):
            mk(lambda n, k=k: setattr(n.froms[k], "jtype", "JOIN"))
    for k in range(len(qy.having)):
        mk(lambda n, k=k: n.having.pop(k))
    # expression simplification: a node replaced by one of its children of the same family
    slots = []
    for k in range(len(qy.where)):
        slots.append(("where", k))
    for k in range(len(qy.select)):
        slots.append(("select", k))
    for k in range(len(qy.having)):
        slots.append(("having", k))
    for k in range(len(qy.froms)):
        for j in range(len(qy.froms[k].on)):
            slots.append(("on", (k, j)))
    for kind, pos in slots:
        x = get_slot(qy, kind, pos)
        for path, node in x.walk():
            for a in node.args:
                if isinstance(a, gen.X) and a.typ.cls == node.typ.cls and not (node.agg and not a.agg and path == ()):
                    new = gen.replace_at(x, path, copy.deepcopy(a))

                    def setx(n, kind=kind, pos=pos, new=new):
                        set_slot(n, kind, pos, new)
                    mk(setx)
    return c


def get_slot(qy, kind, pos):
    if kind == "on":
        return qy.froms[pos[0]].on[pos[1]]
    return getattr(qy, kind)[pos]


def set_slot(qy, kind, pos, x):
    if kind == "on":
        qy.froms[pos[0]].on[pos[1]] = x
    else:
        getattr(qy, kind)[pos] = x


class Shrinker:
    def __init__(self, sess, args, tables, qy, variant, category):
        self.sess, self.args = sess, args
        self.tables = copy.deepcopy(tables)
        self.qy = copy.deepcopy(qy)
        self.variant = variant
        self.category = category
        self.schema = "fuzz_shrink"
        self.loaded = {}
        self.trials = 0
        self.deadline = time.monotonic() + args.shrink_time
        self.checker = Checker(sess, args, self.schema)
        sess.exec("DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s" % (self.schema, self.schema))
        self.last = None

    def used_tables(self, qy, tables):
        sql = qy.sql()
        return [t for t in tables if re.search(r"(?<![.\w])%s\b" % t.name, sql)]

    def sync(self, tables):
        want = {t.name: table_fp(t) for t in tables}
        for name in list(self.loaded):
            if name not in want:
                self.sess.exec("DROP TABLE IF EXISTS %s.%s CASCADE" % (self.schema, name))
                del self.loaded[name]
        todo = [t for t in tables if self.loaded.get(t.name) != want[t.name]]
        if todo:
            load_tables(self.sess, todo, self.schema)
            for t in todo:
                self.loaded[t.name] = want[t.name]

    def test(self, qy, tables):
        if time.monotonic() > self.deadline or self.trials >= self.args.shrink_trials:
            return False
        self.trials += 1
        tables = self.used_tables(qy, tables)
        try:
            self.sync(tables)
        except RuntimeError:
            return False
        sql = qy.sql()
        meta = query_meta(qy)
        off, on, mm = self.checker.check(sql, meta, self.variant)
        if mm is None or mm[0] != self.category:
            return False
        if mm[0] in ("extra-error", "missing-error", "error-diff") and self.checker.plan_dependent(sql, meta, on):
            return False
        self.last = (off, on, mm)
        return True

    def run(self):
        qy, tables = self.qy, self.used_tables(self.qy, self.tables)
        if not self.test(qy, tables):
            return None             # not reproducible in isolation
        progress = True
        while progress and time.monotonic() < self.deadline:
            progress = False
            # query structure
            i = 0
            while True:
                cands = query_candidates(qy)
                if i >= len(cands):
                    break
                if self.test(cands[i], tables):
                    qy = cands[i]
                    tables = self.used_tables(qy, tables)
                    progress = True
                else:
                    i += 1
            # rows, table by table
            for ti in range(len(tables)):
                rows = tables[ti].rows
                chunk = max(1, len(rows) // 2)
                while chunk >= 1 and rows:
                    j = 0
                    while j < len(rows):
                        cand = rows[:j] + rows[j + chunk:]
                        nt = copy.copy(tables[ti])
                        nt.rows = cand
                        tt = tables[:ti] + [nt] + tables[ti + 1:]
                        if self.test(qy, tt):
                            rows = cand
                            tables = tt
                            progress = True
                        else:
                            j += chunk
                    if chunk == 1:
                        break
                    chunk //= 2
            # columns, indexes, table options
            sql = qy.sql()
            for ti in range(len(tables)):
                t = tables[ti]
                for ci in range(len(t.cols) - 1, -1, -1):
                    c = t.cols[ci]
                    if re.search(r"\.%s\b" % re.escape(c.name), sql):
                        continue
                    nt = copy.deepcopy(t)
                    nt.cols.pop(ci)
                    nt.rows = [r[:ci] + r[ci + 1:] for r in nt.rows]
                    nt.indexes = [ix for ix in nt.indexes if c.name not in ix]
                    if c.name == "id":
                        nt.pk = False
                    tt = tables[:ti] + [nt] + tables[ti + 1:]
                    if self.test(qy, tt):
                        t = nt
                        tables = tt
                        progress = True
                for k in range(len(t.indexes) - 1, -1, -1):
                    nt = copy.deepcopy(t)
                    nt.indexes.pop(k)
                    tt = tables[:ti] + [nt] + tables[ti + 1:]
                    if self.test(qy, tt):
                        t = nt
                        tables = tt
                        progress = True
                for attr in ("pk", "vacuum"):
                    if getattr(t, attr):
                        nt = copy.deepcopy(t)
                        setattr(nt, attr, False)
                        tt = tables[:ti] + [nt] + tables[ti + 1:]
                        if self.test(qy, tt):
                            t = nt
                            tables = tt
                            progress = True
        # final confirmation (also refreshes self.last for the report)
        self.deadline = time.monotonic() + 60
        self.total_trials = self.trials
        self.trials = 0
        if not self.test(qy, tables):
            return None
        return qy, tables

    def cleanup(self):
        try:
            self.sess.exec("DROP SCHEMA IF EXISTS %s CASCADE" % self.schema)
        except RuntimeError:
            pass


# ------------------------------------------------------------------------------------------------
# reproducer files
# ------------------------------------------------------------------------------------------------


def outcome_lines(o, columns=None, maxrows=40):
    if o is None:
        return ["(not run)"]
    if o.kind != "ok":
        return [o.short()]
    lines = ["%d row%s" % (len(o.rows), "" if len(o.rows) == 1 else "s")]
    for r in o.rows[:maxrows]:
        lines.append(" | ".join(fmt_val(v) for v in r))
    if len(o.rows) > maxrows:
        lines.append("... (%d more)" % (len(o.rows) - maxrows))
    return lines


def raw_path(args, name):
    if args.raw_dir is None:
        args.raw_dir = tempfile.mkdtemp(prefix="themis-fuzz-raw.", dir="/tmp")
    return os.path.join(args.raw_dir, name)


def write_repro(path, args, seed, qi, variant, category, detail, qy, tables, off, on, explain_text, shrunk):
    vs = VARIANTS[variant]
    out = []
    out.append("-- themis differential fuzz: %s reproducer" % ("minimal" if shrunk else "UNSHRUNK"))
    out.append("-- found by: test/fuzz/fuzz.py --seed %d --only %d   (plan variant: %s)" % (seed, qi, variant))
    out.append("-- mismatch: %s: %s" % (category, detail.replace("\n", " ")))
    if on is not None and on.fallback:
        out.append("-- (themis asked for a fallback with fallback = off: %s; compared with fallback = on)" % on.fallback)
    out.append("-- Run: psql -X -d <a UTF8 database with C collation> -f %s" % os.path.basename(path))
    out.append("SET client_min_messages = warning;")
    out.append("CREATE EXTENSION IF NOT EXISTS themis;")
    for t in tables:
        out.append("DROP TABLE IF EXISTS %s CASCADE;" % t.name)
    out.append("RESET client_min_messages;")
    for t in tables:
        out.append(t.ddl() + ";")
        for ins in t.insert_sql():
            out.append(ins + ";")
        for p in t.post_sql():
            out.append(p + ";")
    out.append("-- @variant %s" % variant)
    out.append("SET extra_float_digits = 1;")
    for s in vs:
        out.append("SET %s;" % s)
    sql = qy.sql()
    out.append("-- PostgreSQL's answer (expected):")
    out.append("SET themis.enabled = off;")
    out.append(sql + ";")
    for line in outcome_lines(off):
        out.append("--   " + line)
    out.append("-- themis forced on:")
    out.append("SET themis.enabled = on;")
    out.append("SET themis.device = %s;" % args.device)
    out.append("SET themis.min_rows = 0;")
    out.append("SET themis.fallback = %s;" % ("on" if (on is not None and on.fallback) else "off"))
    if explain_text:
        out.append("-- EXPLAIN (COSTS OFF):")
        for line in explain_text.splitlines():
            out.append("--   " + line)
    out.append(sql + ";")
    for line in outcome_lines(on):
        out.append("--   " + line)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ------------------------------------------------------------------------------------------------
# main loop
# ------------------------------------------------------------------------------------------------


class Stats:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = collections.Counter()
        self.themis = 0
        self.explained = 0
        self.both_err = 0
        self.fallback = collections.Counter()
        self.plan_dep = 0
        self.eval_order = 0
        self.reasons = collections.Counter()
        self.errors = collections.Counter()
        self.mismatches = []
        self.variant_runs = collections.Counter()
        self.variant_themis = collections.Counter()
        self.sizes = collections.Counter()
        self.features = collections.Counter()
        self.pg_nodes = collections.Counter()
        self.full = 0
        self.secs = 0.0

    def merge(self, o):
        for k in ("passed", "failed", "themis", "explained", "both_err", "plan_dep", "full", "eval_order"):
            setattr(self, k, getattr(self, k) + getattr(o, k))
        for k in ("skipped", "fallback", "reasons", "errors", "variant_runs", "sizes", "features", "pg_nodes",
                  "variant_themis"):
            getattr(self, k).update(getattr(o, k))
        self.mismatches += o.mismatches


def wait_gpu(sess, seed, wait=90.0):
    """a GPU run: before the seed's queries, wait until the daemon can be used (it starts with the cluster,
    and again after it exits): queries that find it down are run again with the fallback (counted apart)"""
    deadline = time.monotonic() + wait
    while True:
        r = sess.conn.query("SELECT usable, detail FROM themis.gpu_status()")
        if r.ok and r.rows and r.rows[0][0] in ("t", True):
            return
        if time.monotonic() > deadline:
            log("seed %d: the GPU is not usable after %.0f s (%s); going on" % (
                seed, wait, r.rows[0][1] if r.ok and r.rows else r.errtext()))
            return
        time.sleep(1.0)


def run_seed(args, seed, sess_factory, stats, deadline):
    rng = random.Random(seed)
    tables = gen.gen_schema(rng, scale=args.scale, big=args.big)
    dbname = "themis_fuzz_%d_%d" % (seed, os.getpid())
    admin = sess_factory(args.dbname)
    admin.exec("DROP DATABASE IF EXISTS %s" % dbname)
    admin.exec("CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'" % dbname)
    sess = None
    try:
        sess = sess_factory(dbname)
        sess.exec("CREATE EXTENSION themis")
        if args.device != "cpu":
            wait_gpu(sess, seed)
        t0 = time.monotonic()
        load_tables(sess, tables, "public")
        if args.verbose:
            log("seed %d: %d tables (%s rows) loaded in %.1fs" % (
                seed, len(tables), "/".join(str(len(t.rows)) for t in tables), time.monotonic() - t0))
        checker = Checker(sess, args)
        nshrunk = 0
        qrange = [args.only] if args.only is not None else range(args.queries)
        for qi in qrange:
            if deadline and time.monotonic() > deadline:
                break
            tq = time.monotonic()
            qrng = random.Random("%d:%d" % (seed, qi))
            qy = gen.QueryGen(qrng, tables).gen()
            sql = qy.sql()
            meta = query_meta(qy)
            if args.print:
                print("-- seed %d query %d\n%s;\n" % (seed, qi, sql))
            others = [v for v in VARIANTS if v != "default"]
            variants = ["default"] + qrng.sample(others, min(args.variants, len(others)))
            result = "pass"
            mm = None
            first_off = None
            for v in variants:
                off, on, mm = checker.check(sql, meta, v)
                stats.variant_runs[v] += 1
                if v != "default" and off.kind == "ok":
                    vplan, _, _ = checker.explain(sql, v)
                    if has_themis(vplan):
                        stats.variant_themis[v] += 1
                    if v.startswith("parallel"):
                        pplan, _, _ = checker.explain(sql, v, on=False)
                        if pplan and '"Node Type": "Gather' in pplan:
                            stats.variant_themis[v + " (Gather)"] += 1
                if first_off is None:
                    first_off = off
                if off.kind == "timeout":
                    result = "skip:timeout"
                    break
                if off.kind == "crash":
                    result = "skip:crash-off"
                    break
                if off.kind == "err" and off.code and off.code.startswith("42"):
                    result = "skip:invalid"
                    stats.errors["invalid " + off.code + " " + (off.msg or "")[:60]] += 1
                    break
                if off.kind == "ok" and len(off.rows) > args.max_rows:
                    result = "skip:too-many-rows"
                    break
                if on.fallback:
                    stats.fallback[on.fallback[:80]] += 1
                if mm is not None:
                    if mm[0] in ("extra-error", "missing-error", "error-diff"):
                        dep = checker.plan_dependent(sql, meta, on)
                        if dep:
                            stats.plan_dep += 1
                            if args.verbose:
                                log("seed %d query %d [%s]: plan-dependent (%s; themis like PostgreSQL under %s)" % (
                                    seed, qi, v, mm[1][:300], dep))
                            mm = None
                            continue
                    if args.allow_eval_order and is_eval_order(off, on, mm):
                        stats.eval_order += 1
                        if args.verbose:
                            log("seed %d query %d [%s]: evaluation order (%s), accepted" % (seed, qi, v, mm[1][:300]))
                        mm = None
                        continue
                    result = "fail"
                    break
            if result.startswith("skip"):
                stats.skipped[result[5:]] += 1
                if args.verbose:
                    log("seed %d query %d: skipped, %s [%s] (off: %s)" % (seed, qi, result[5:], v, off.short()))
                continue
            if first_off is not None and first_off.kind == "ok":
                n = len(first_off.rows)
                stats.sizes["0" if n == 0 else "1" if n == 1 else "2-10" if n <= 10 else "11-100" if n <= 100
                            else "101-1000" if n <= 1000 else ">1000"] += 1
            if first_off is not None and first_off.kind == "err":
                stats.both_err += 1
                stats.errors[(first_off.code or "") + " " + (first_off.msg or "")[:60]] += 1
            plan, reasons, _ = checker.explain(sql)
            if plan is not None:
                stats.explained += 1
                if has_themis(plan):
                    stats.themis += 1
                feats, left = plan_features(plan)
                stats.features.update(feats)
                if feats and not left:
                    stats.full += 1
                stats.pg_nodes.update(set(left))
            for r in reasons:
                stats.reasons[r[:90]] += 1
            if result == "pass":
                stats.passed += 1
                if args.verbose:
                    log("seed %d query %d: ok (%s%s, %.2fs)" % (seed, qi, first_off.short(),
                                                               ", themis" if has_themis(plan) else "",
                                                               time.monotonic() - tq))
                continue
            stats.failed += 1
            cat, detail = mm
            log("MISMATCH seed %d query %d [%s] %s: %s" % (seed, qi, v, cat, detail[:400]))
            if args.verbose:
                log(sql)
            entry = {"seed": seed, "query": qi, "variant": v, "category": cat, "detail": detail, "repro": None}
            stats.mismatches.append(entry)
            vplan, _, _ = checker.explain(sql, v)
            sig = mismatch_sig(off, on, mm, plan_features(vplan)[0] if vplan else ())
            entry["kind"] = " ".join(map(str, sig))
            SHRUNK_SIGS[sig] += 1
            if args.no_shrink or nshrunk >= args.max_shrink or SHRUNK_SIGS[sig] > args.max_shrink_per_kind:
                path = raw_path(args, "s%d-q%d-%s.sql" % (seed, qi, cat))
                explain_text, _, _ = checker.explain(sql, v, text=True)
                write_repro(path, args, seed, qi, v, cat, detail, qy, checker_tables(tables, qy), off, on,
                            explain_text, False)
                entry["repro"] = path
                continue
            nshrunk += 1
            t1 = time.monotonic()
            sh = Shrinker(sess, args, tables, qy, v, cat)
            try:
                res = sh.run()
                if res is None:
                    log("  (does not reproduce in isolation; writing the unshrunk case)")
                    path = raw_path(args, "s%d-q%d-%s.sql" % (seed, qi, cat))
                    explain_text, _, _ = checker.explain(sql, v, text=True)
                    write_repro(path, args, seed, qi, v, cat, detail, qy, checker_tables(tables, qy), off, on,
                                explain_text, False)
                else:
                    sqy, stables = res
                    soff, son, smm = sh.last
                    explain_text, _, _ = sh.checker.explain(sqy.sql(), v, text=True)
                    path = os.path.join(args.repro_dir, "s%d-q%d-%s.sql" % (seed, qi, cat))
                    write_repro(path, args, seed, qi, v, smm[0], smm[1], sqy, stables, soff, son, explain_text, True)
                    log("  shrunk in %.0fs (%d trials): %s" % (time.monotonic() - t1, sh.total_trials, path))
                entry["repro"] = path
            finally:
                sh.cleanup()
    finally:
        try:
            if sess is not None:
                sess.conn.close()
        except Exception:
            pass
        if not args.keep:
            try:
                admin.exec("DROP DATABASE IF EXISTS %s" % dbname, timeout=120)
            except RuntimeError as e:
                log("warning: %s" % e)
        admin.conn.close()


def checker_tables(tables, qy):
    sql = qy.sql()
    return [t for t in tables if re.search(r"(?<![.\w])%s\b" % t.name, sql)]


def parse_seeds(a):
    """--seeds 1-20,35,100-1000:7 (a:b:step) -> a list of ranges"""
    if a.seeds:
        out = []
        for part in a.seeds.split(","):
            step = 1
            if ":" in part:
                part, st = part.split(":", 1)
                step = int(st)
            if "-" in part:
                lo, hi = part.split("-", 1)
                out.append(range(int(lo), int(hi) + 1, step))
            else:
                out.append(range(int(part), int(part) + 1))
        return out
    return [range(a.seed, a.seed + 1)]


def verify(args, files, sess_factory):
    """re-run reproducer files: does each still mismatch?  -> number still failing"""
    failing = 0
    admin = sess_factory(args.dbname)
    for i, path in enumerate(files):
        text = open(path).read()
        m = re.search(r"^-- @variant (\S+)$", text, re.M)
        q = re.search(r"^SET themis\.enabled = off;\n(.*?);\n--   ", text, re.S | re.M)
        if not m or not q:
            print("%s: not a reproducer of this version of fuzz.py" % path)
            failing += 1
            continue
        setup = text[:m.start()]
        variant, sql = m.group(1), q.group(1)
        db = "themis_fuzz_verify_%d_%d" % (os.getpid(), i)
        admin.exec("CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'" % db)
        sess = None
        try:
            sess = sess_factory(db)
            for stmt in re.split(r";\n(?=[A-Z-]|$)", setup):
                if stmt.strip() and not all(line.startswith("--") for line in stmt.strip().splitlines()):
                    sess.exec(stmt, timeout=600)
            chk = Checker(sess, args)
            meta = {"loose_float": bool(re.search(r"\b(GROUP BY|DISTINCT|min\(|max\()", sql)),
                    "order_idx": []}
            off, on, mm = chk.check(sql, meta, variant)
            if mm is None:
                print("%s: passes now (%s)" % (path, off.short()))
            else:
                failing += 1
                print("%s: MISMATCH %s: %s" % (path, mm[0], mm[1][:300]))
        except RuntimeError as e:
            failing += 1
            print("%s: setup failed: %s" % (path, str(e)[:300]))
        finally:
            if sess is not None:
                sess.conn.close()
            admin.exec("DROP DATABASE IF EXISTS %s" % db, timeout=120)
    print("%d passed, %d failed" % (len(files) - failing, failing))
    return 1 if failing else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", help="list / ranges of seeds: 1-20,35")
    ap.add_argument("--queries", type=int, default=200, help="queries per seed")
    ap.add_argument("--only", type=int, help="run only query number N of the seed")
    ap.add_argument("--time-limit", type=float, default=0, help="stop starting queries after this many seconds")
    ap.add_argument("--variants", type=int, default=1, help="plan-shape variants per query besides the default")
    ap.add_argument("--device", default="cpu", help="themis.device for the 'on' runs (cpu, gpu, auto)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies table sizes")
    ap.add_argument("--big", type=float, default=0.05, help="chance that a table gets 5000-30000 rows")
    ap.add_argument("--max-rows", type=int, default=50000, help="skip queries whose answer is larger")
    ap.add_argument("--statement-timeout", type=int, default=20, help="seconds")
    ap.add_argument("--timeout", type=float, default=120, help="client-side timeout, seconds")
    ap.add_argument("--host", help="server: socket directory or host (default: start a throw-away cluster)")
    ap.add_argument("--port", type=int, default=5432)
    ap.add_argument("--user", default=os.environ.get("PGUSER"))
    ap.add_argument("--password", default=os.environ.get("PGPASSWORD"))
    ap.add_argument("--dbname", default="postgres", help="database to connect to for CREATE DATABASE")
    ap.add_argument("--pg-bin", help="PostgreSQL bin directory for the throw-away cluster")
    ap.add_argument("--conf", action="append", default=[], metavar="SETTING",
                    help="a postgresql.conf line for the throw-away cluster (repeatable), "
                         "e.g. \"themis.gpu_memory_limit = '8GB'\"")
    ap.add_argument("--run-user", help="OS user for the throw-away cluster when run as root")
    ap.add_argument("--keep", action="store_true", help="keep the databases / cluster")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--max-shrink", type=int, default=2, help="mismatches shrunk per seed (the rest are written raw)")
    ap.add_argument("--max-shrink-per-kind", type=int, default=2,
                    help="mismatches of one kind (category, SQLSTATEs) shrunk per run")
    ap.add_argument("--allow-eval-order", action="store_true",
                    help="count a data exception (22xxx) raised on one side only as passed (reported apart)")
    ap.add_argument("--shrink-time", type=float, default=120, help="seconds per shrink")
    ap.add_argument("--shrink-trials", type=int, default=2000)
    ap.add_argument("--repro-dir", default=os.path.join(HERE, "repro"))
    ap.add_argument("--raw-dir", default=None, help="where unshrunk cases go (default: a /tmp directory)")
    ap.add_argument("--print", action="store_true", help="print each query")
    ap.add_argument("--print-only", action="store_true", help="print the queries of the seed and exit")
    ap.add_argument("--json", help="write the summary as JSON here")
    ap.add_argument("--verify", nargs="+", metavar="FILE",
                    help="re-run reproducer files (repro/*.sql) and tell which still mismatch")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    seed_ranges = parse_seeds(args)

    def all_seeds():
        for r in seed_ranges:
            yield from r
    if args.print_only:
        for seed in all_seeds():
            rng = random.Random(seed)
            tables = gen.gen_schema(rng, scale=args.scale, big=args.big)
            for t in tables:
                print("-- %s;  -- %d rows" % (t.ddl(), len(t.rows)))
            qrange = [args.only] if args.only is not None else range(args.queries)
            for qi in qrange:
                print("-- seed %d query %d\n%s;\n" % (seed, qi, gen.QueryGen(random.Random("%d:%d" % (seed, qi)),
                                                                         tables).gen().sql()))
        return 0

    def on_term(signum, frame):
        raise KeyboardInterrupt()
    signal.signal(signal.SIGTERM, on_term)      # stop the throw-away cluster on kill, too
    t_start = time.monotonic()
    deadline = t_start + args.time_limit if args.time_limit else None
    cluster = None
    if not args.host:
        pg_bin = find_pg_bin(args.pg_bin)
        run_user = find_run_user(args.run_user)
        try:
            cluster = Cluster(pg_bin, run_user, keep=args.keep, extra_conf=args.conf)
        except (RuntimeError, OSError) as e:
            log("cannot start a cluster: %s" % e)
            print("0 passed, 1 failed")
            return 2
        args.host, args.port, args.user = cluster.dir, cluster.port, cluster.user
        log("cluster: %s (%s)" % (cluster.dir, pg_bin))
    elif not args.user:
        args.user = pwd.getpwuid(os.getuid()).pw_name

    def sess_factory(db):
        return Session(args, db, cluster)

    if args.verify:
        try:
            return verify(args, args.verify, sess_factory)
        finally:
            if cluster:
                cluster.stop()
    stats = Stats()
    rc = 0
    done_seeds = []
    try:
        chk = sess_factory(args.dbname)
        r = chk.conn.query("SHOW shared_preload_libraries")
        if r.ok and "themis" not in r.rows[0][0]:
            log("warning: themis is not in shared_preload_libraries of this server")
        chk.conn.close()
        for seed in all_seeds():
            if deadline and time.monotonic() > deadline:
                break
            done_seeds.append(seed)
            s = Stats()
            t0 = time.monotonic()
            try:
                run_seed(args, seed, sess_factory, s, deadline)
            finally:
                s.secs = time.monotonic() - t0
                stats.merge(s)
            log("seed %d: %d passed, %d failed, %d skipped; Themis node in %d of %d queries; %.0fs" % (
                seed, s.passed, s.failed, sum(s.skipped.values()), s.themis, s.explained, s.secs))
    except (RuntimeError, OSError) as e:
        log("setup failure: %s" % e)
        if cluster:
            log(cluster.log_tail())
        rc = 2
    except KeyboardInterrupt:
        log("interrupted")
    finally:
        events, event_lines = collections.Counter(), []
        if cluster:
            events, event_lines = cluster.server_events()
            cluster.stop()

    total = time.monotonic() - t_start
    n = stats.passed + stats.failed
    seeds = done_seeds or [0]
    print("== themis fuzz: seed%s %s, %.0fs" % ("s" if len(seeds) > 1 else "",
                                                ",".join(map(str, seeds)) if len(seeds) < 8 else
                                                "%d..%d (%d seeds)" % (seeds[0], seeds[-1], len(seeds)), total))
    print("coverage: Themis node in %d of %d queries (%.0f%%)" % (stats.themis, stats.explained,
                                                                  100.0 * stats.themis / max(1, stats.explained)))
    print("          all scans / joins / aggregates inside Themis in %d (%.0f%%)" % (
        stats.full, 100.0 * stats.full / max(1, stats.explained)))
    print("          queries with a Themis " + ", ".join("%s %d" % kv for kv in sorted(stats.features.items())
                                                        if kv[0] != "node"))
    print("          queries with PostgreSQL nodes left: " + ", ".join("%s %d" % kv for kv in
                                                                     stats.pg_nodes.most_common()))
    print("          plan variants run (Themis node / Gather in PostgreSQL's plan): " + ", ".join(
        "%s %d (%d%s)" % (v, n, stats.variant_themis[v],
                          " / %d" % stats.variant_themis[v + " (Gather)"] if v.startswith("parallel") else "")
        for v, n in stats.variant_runs.items() if v != "default"))
    print("both sides failed (same error): %d; fallback used: %d; plan-dependent errors accepted: %d%s" % (
        stats.both_err, sum(stats.fallback.values()), stats.plan_dep,
        "; evaluation-order differences accepted: %d" % stats.eval_order if args.allow_eval_order else ""))
    if stats.skipped:
        print("skipped: " + ", ".join("%s %d" % kv for kv in stats.skipped.most_common()))
    if events:
        print("server log: " + "; ".join("%s x%d" % kv for kv in events.most_common(10)))
        for line in event_lines[:10]:
            print("    " + line)
    if args.verbose or args.json:
        print("result sizes: " + ", ".join("%s: %d" % (k, stats.sizes[k]) for k in
                                           ["0", "1", "2-10", "11-100", "101-1000", ">1000"]))
        print("errors (both sides): " + "; ".join("%s x%d" % kv for kv in stats.errors.most_common(12)))
        print("fallback reasons: " + "; ".join("%s x%d" % kv for kv in stats.fallback.most_common(8)))
        print("left to PostgreSQL: " + "; ".join("%s x%d" % kv for kv in stats.reasons.most_common(15)))
    for m in stats.mismatches:
        print("MISMATCH seed %(seed)d query %(query)d [%(variant)s] %(category)s: %(repro)s" % m)
        if m.get("kind"):
            print("    kind: %s" % m["kind"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"passed": stats.passed, "failed": stats.failed, "skipped": dict(stats.skipped),
                       "themis": stats.themis, "explained": stats.explained, "both_err": stats.both_err,
                       "fallback": dict(stats.fallback), "plan_dep": stats.plan_dep, "eval_order": stats.eval_order,
                       "reasons": dict(stats.reasons), "errors": dict(stats.errors), "full": stats.full,
                       "features": dict(stats.features), "pg_nodes": dict(stats.pg_nodes),
                       "mismatches": stats.mismatches, "seconds": total, "server_events": dict(events),
                       "server_event_lines": event_lines}, f, indent=1)
    print("%d passed, %d failed" % (stats.passed, stats.failed + (1 if rc == 2 else 0)))
    if rc:
        return rc
    return 1 if stats.failed else 0


if __name__ == "__main__":
    sys.exit(main())
