"""gen.py — random schemas, data and queries for the themis differential tester (fuzz.py).

Everything is driven by a random.Random instance, so a seed gives the same schema, data and queries.
Queries are kept as small trees (Query, X) so that the shrinker can remove parts of them.

Rules that keep PostgreSQL's own answer deterministic (so that any difference is themis's):
  * float data that sum()/avg() may read are multiples of 0.25 of bounded size (exact in any order),
    plus -0, NaN, +-Infinity; "wild" float columns (1e308, 0.1, ...) are never summed;
  * numeric CASE / COALESCE / GREATEST / LEAST branches have one scale (round(x, s) where needed), so a
    value's display scale never depends on which row came first;
  * char(n) values of different lengths are cast to text before they meet in CASE / COALESCE;
  * LIMIT only with an ORDER BY over every output column (plus a ::text tie-breaker for floats, where
    -0 = 0); the tester canonicalizes -0 in grouped / DISTINCT / min / max outputs.
"""
import collections
import copy
import datetime
import decimal
import random
import re

D = decimal.Decimal
decimal.getcontext().prec = 200

# ------------------------------------------------------------------------------------------------
# types
# ------------------------------------------------------------------------------------------------


class T:
    """A SQL type: cls is the family ('int', 'num', 'flt', 'date', 'ts', 'bool', 'txt')."""
    __slots__ = ("cls", "name", "n", "p", "s")

    def __init__(self, cls, name, n=None, p=None, s=None):
        self.cls, self.name, self.n, self.p, self.s = cls, name, n, p, s

    def sql(self):
        if self.name == "numeric":
            return "numeric(%d,%d)" % (self.p, self.s) if self.p else "numeric"
        if self.name in ("varchar", "bpchar"):
            nm = "varchar" if self.name == "varchar" else "char"
            return "%s(%d)" % (nm, self.n) if self.n else ("varchar" if nm == "varchar" else "bpchar")
        return self.name

    def __repr__(self):
        return self.sql()


INT2, INT4, INT8 = T("int", "int2"), T("int", "int4"), T("int", "int8")
FLT = T("flt", "float8")
DATE, TS, BOOL, TEXT = T("date", "date"), T("ts", "timestamp"), T("bool", "bool"), T("txt", "text")
IWIDTH = {"int2": 2, "int4": 4, "int8": 8}
IBYW = {2: INT2, 4: INT4, 8: INT8}


def num(s, p=None):
    return T("num", "numeric", p=p, s=s)


INT_LIMITS = {
    "int2": ["-32768", "32767", "-32767", "0", "-1", "1", "32766", "181", "-182"],
    "int4": ["-2147483648", "2147483647", "-2147483647", "0", "-1", "46341", "-46341", "65536", "1000000"],
    "int8": ["-9223372036854775808", "9223372036854775807", "-9223372036854775807", "0", "-1",
             "4294967296", "4294967297", "4294967301", "3037000500", "-3037000500", "2147483648"],
}
WILD_FLOATS = ["1e308", "-1e308", "1.7976931348623157e308", "5e-324", "-5e-324", "0.1", "0.3",
               "0.30000000000000004", "1e-10", "123456789.123456789", "-2.5", "2.5", "0.5", "1.5",
               "-0.5", "4503599627370497", "9.223372036854776e18", "2147483647.5", "-2147483648.5",
               "32767.5", "1e15", "3.141592653589793"]
SPECIAL_FLOATS = ["-0", "NaN", "Infinity", "-Infinity", "0"]
EXT_DATES = ["4714-11-24 BC", "5874897-12-31", "infinity", "-infinity", "0001-01-01", "1999-12-31",
             "2000-02-29", "1970-01-01", "1900-02-28", "2100-03-01", "0001-12-31 BC", "9999-12-31"]
EXT_TS = ["294276-12-31 23:59:59.999999", "4714-11-24 00:00:00 BC", "infinity", "-infinity",
          "2000-01-01 00:00:00.000001", "1999-12-31 23:59:59.999999", "1970-01-01 00:00:00",
          "2000-02-29 12:00:00", "0001-01-01 00:00:00", "9999-12-31 23:59:59"]
SPECIAL_WORDS = ["", " ", "  ", "a", "A", "a ", "ab", "ab ", "ab  ", " ab", "abc", "abd", "b", "ba", "B",
                 "xyz", "hello world", "foo%bar", "foo_bar", "100%", "_", "%", "back\\slash", "\\",
                 "é", "ée", "e\u0301", "naïve", "Ωmega", "ωmega", "日本語", "日本", "中", "🙂", "a🙂b",
                 "ß", "İ", "zzz", "ZZZ", "~", "0", "00", "10", "9", "-1", "NULL", "it's", "tab\there",
                 "line\nbreak", "x" * 40, "y" * 120 + "é", "kk", "k1 ", "k1", "k10", "AbC", "aBc"]
INTERVALS = ["1 day", "-1 day", "2 hours", "1 mon", "-1 mon", "1 year", "3 days 04:05:06",
             "00:00:00.000001", "-1 year -2 mons", "1000 days", "36 hours", "1 mon 1 day"]
DATE_FIELDS = ["year", "month", "day", "dow", "isodow", "doy", "quarter", "week", "decade", "century",
               "millennium", "epoch", "julian", "isoyear"]
TS_FIELDS = DATE_FIELDS + ["hour", "minute", "second", "milliseconds", "microseconds"]
BASE_DATE = datetime.date(2000, 1, 1)
BASE_TS = datetime.datetime(2000, 1, 1)


def q(s):
    """SQL string literal."""
    return "'" + s.replace("'", "''") + "'"


# ------------------------------------------------------------------------------------------------
# schema and data
# ------------------------------------------------------------------------------------------------


class Column:
    def __init__(self, name, typ, wild=False):
        self.name, self.typ, self.wild = name, typ, wild
        self.sample = []            # some non-NULL values (PostgreSQL input text) for constants


class Table:
    def __init__(self, name):
        self.name = name
        self.cols = []
        self.rows = []              # list of tuples: PostgreSQL input text or None
        self.indexes = []           # lists of column names
        self.pk = False
        self.vacuum = False
        self.analyze = True

    def col(self, name):
        for c in self.cols:
            if c.name == name:
                return c
        raise KeyError(name)

    def ddl(self):
        cols = []
        for c in self.cols:
            s = "%s %s" % (c.name, c.typ.sql())
            if c.name == "id" and self.pk:
                s += " PRIMARY KEY"
            cols.append(s)
        return "CREATE TABLE %s (%s) WITH (autovacuum_enabled = off)" % (self.name, ", ".join(cols))

    def insert_sql(self, batch=500):
        out = []
        names = ", ".join(c.name for c in self.cols)
        for i in range(0, len(self.rows), batch):
            vals = []
            for r in self.rows[i:i + batch]:
                vals.append("(" + ", ".join("NULL" if v is None else q(v) for v in r) + ")")
            out.append("INSERT INTO %s (%s) VALUES\n%s" % (self.name, names, ",\n".join(vals)))
        return out

    def post_sql(self):
        out = []
        for k, ix in enumerate(self.indexes):
            out.append("CREATE INDEX %s_ix%d ON %s (%s)" % (self.name, k, self.name, ", ".join(ix)))
        if self.vacuum:
            out.append("VACUUM ANALYZE %s" % self.name)
        elif self.analyze:
            out.append("ANALYZE %s" % self.name)
        return out


class ValueGen:
    """Values of one column: a domain, NULL fraction, skew and extremes."""

    def __init__(self, rng, col, shared):
        self.rng = rng
        self.col = col
        t = col.typ
        self.null_frac = rng.choice([0, 0, 0, 0.02, 0.1, 0.3, 0.6, 1.0 if rng.random() < 0.1 else 0.05])
        self.dom = rng.choice(shared["domains"])
        self.ext_p = rng.choice([0, 0, 0, 0.005, 0.02, 0.1])
        self.neg_p = rng.choice([0, 0, 0, 0.1, 0.3])
        self.words = None
        if t.cls == "txt":
            vocab = shared["vocab"]
            k = max(1, min(len(vocab), self.dom))
            start = rng.randrange(0, max(1, len(vocab) - k))
            self.words = vocab[start:start + k]
            if rng.random() < 0.5:
                self.words = self.words + rng.sample(SPECIAL_WORDS, rng.randint(1, 8))
        self.hot = None
        if rng.random() < 0.3:
            self.hot_p = rng.choice([0.2, 0.5, 0.8])
            self.hot = self.base()

    def base(self):
        rng, t = self.rng, self.col.typ
        v = rng.randint(0, self.dom)
        if rng.random() < self.neg_p:
            v = -v
        if t.cls == "int":
            lim = {2: 32767, 4: 2147483647, 8: 9223372036854775807}[IWIDTH[t.name]]
            return str(max(-lim, min(lim, v)))
        if t.cls == "num":
            idig = t.p - t.s
            m = 10 ** idig - 1
            iv = max(-m, min(m, v))
            if t.s > 0 and rng.random() < 0.5:
                frac = rng.randint(0, 10 ** t.s - 1)
                if idig == 0:
                    iv = 0
                s = "%d.%0*d" % (abs(iv), t.s, frac)
                return ("-" + s) if (iv < 0 or (iv == 0 and rng.random() < 0.3)) and s.strip("0.") else s
            return str(iv)
        if t.cls == "flt":
            if self.col.wild and rng.random() < 0.3:
                return rng.choice([repr(rng.uniform(-1e6, 1e6)), repr(rng.random()), str(v) + ".1"])
            k = v * 4 + (rng.choice([0, 0, 0, 1, 2, 3]) if rng.random() < 0.5 else 0)
            return repr(k / 4.0)
        if t.cls == "date":
            return (BASE_DATE + datetime.timedelta(days=v)).isoformat()
        if t.cls == "ts":
            mode = self.col.tsmode
            if mode == 0:
                dt = BASE_TS + datetime.timedelta(days=v)
            elif mode == 1:
                dt = BASE_TS + datetime.timedelta(hours=v)
            else:
                dt = BASE_TS + datetime.timedelta(seconds=v * 3607, microseconds=rng.choice([0, 1, 999999, 500000]))
            return dt.isoformat(sep=" ")
        if t.cls == "bool":
            return "true" if rng.random() < 0.5 else "false"
        if t.cls == "txt":
            return rng.choice(self.words)
        raise ValueError(t.cls)

    def extreme(self):
        rng, t = self.rng, self.col.typ
        if t.cls == "int":
            return rng.choice(INT_LIMITS[t.name])
        if t.cls == "num":
            idig = t.p - t.s
            nines = ("9" * idig if idig else "0") + ("." + "9" * t.s if t.s else "")
            tiny = ("0." + "0" * (t.s - 1) + "1") if t.s else "1"
            return rng.choice([nines, "-" + nines, "0", tiny, "-" + tiny])
        if t.cls == "flt":
            if self.col.wild:
                return rng.choice(WILD_FLOATS + SPECIAL_FLOATS)
            return rng.choice(SPECIAL_FLOATS + ["262144", "-262144.25"])
        if t.cls == "date":
            return rng.choice(EXT_DATES)
        if t.cls == "ts":
            return rng.choice(EXT_TS)
        if t.cls == "bool":
            return "true"
        if t.cls == "txt":
            return rng.choice(SPECIAL_WORDS)

    def fit(self, v):
        t = self.col.typ
        if t.cls == "txt" and t.n:
            v = v[:t.n]
        return v

    def value(self):
        rng = self.rng
        if self.null_frac and rng.random() < self.null_frac:
            return None
        if self.hot is not None and rng.random() < self.hot_p:
            return self.fit(self.hot)
        if self.ext_p and rng.random() < self.ext_p:
            return self.fit(self.extreme())
        return self.fit(self.base())


def random_type(rng):
    k = rng.choices(["int2", "int4", "int8", "numeric", "float8", "date", "timestamp", "bool", "text",
                     "varchar", "char"], [6, 14, 8, 12, 7, 7, 6, 4, 9, 5, 5])[0]
    if k in ("int2", "int4", "int8"):
        return IBYW[{"int2": 2, "int4": 4, "int8": 8}[k]], False
    if k == "numeric":
        if rng.random() < 0.15:
            p = rng.randint(19, 38)
        else:
            p = rng.randint(1, 18)
        s = rng.choice([0, 0, 1, 2, 2, 3, 4, 6, p])
        s = min(s, p)
        return num(s, p), False
    if k == "float8":
        return FLT, rng.random() < 0.35
    if k == "date":
        return DATE, False
    if k == "timestamp":
        return TS, False
    if k == "bool":
        return BOOL, False
    if k == "text":
        return TEXT, False
    if k == "varchar":
        return T("txt", "varchar", n=rng.choice([1, 2, 3, 5, 8, 20, 200])), False
    return T("txt", "bpchar", n=rng.choice([1, 2, 3, 4, 6, 10])), False


def norm_key(v):
    """a value as a join key (to estimate join sizes)"""
    try:
        d = D(v)
        if d.is_finite():
            return d.normalize()
    except decimal.InvalidOperation:
        pass
    if v.endswith(" 00:00:00"):
        return v[:-9]
    return v.rstrip(" ")


def fanout(cl, cr):
    """rows of cr's table matching one row of cl's table on cl = cr, on average"""
    if not cl.nrows:
        return 0.0
    a, b = cl.counts, cr.counts
    if len(a) > len(b):
        a, b = b, a
    return sum(n * b.get(v, 0) for v, n in a.items()) / cl.nrows


def gen_schema(rng, scale=1.0, big=0.0):
    """3-6 tables with data; big: the chance that a table gets 5000-30000 rows"""
    shared = {
        "domains": [3, 5, 10, 10, 20, 30, 50, 100, 100, 300, 1000, 5000, 100000],
        "vocab": ["k%d" % i for i in range(120)] + ["K%d" % i for i in range(10)],
    }
    ntab = rng.randint(3, 6)
    tables = []
    for ti in range(ntab):
        t = Table("t%d" % ti)
        r = rng.random()
        if r < 0.04:
            nrows = 0
        elif r < 0.2:
            nrows = rng.randint(1, 20)
        elif r < 0.6:
            nrows = rng.randint(100, 600)
        else:
            nrows = rng.randint(600, 3000)
        if rng.random() < big:
            nrows = rng.randint(5000, 30000)
        nrows = int(nrows * scale) if nrows > 20 else nrows
        t.cols.append(Column("id", INT4))
        t.pk = rng.random() < 0.3
        ncols = rng.randint(3, 8)
        # at least one integer key column and often a text one, so that tables can be joined
        types = [(rng.choice([INT2, INT4, INT4, INT4, INT8]), False)]
        if rng.random() < 0.6:
            types.append((rng.choice([TEXT, T("txt", "varchar", n=10), T("txt", "bpchar", n=4)]), False))
        while len(types) < ncols:
            types.append(random_type(rng))
        for k, (typ, wild) in enumerate(types):
            if typ.cls == "txt":
                prefix = {"text": "t", "varchar": "v", "bpchar": "c"}[typ.name]
            else:
                prefix = {"int": "i", "num": "n", "flt": "f", "date": "d", "ts": "ts", "bool": "b"}[typ.cls]
            c = Column("%s%d" % (prefix, k + 1), typ, wild)
            c.tsmode = rng.randint(0, 2)
            t.cols.append(c)
        gens = [None] + [ValueGen(rng, c, shared) for c in t.cols[1:]]
        t.cols[0].dom = max(1, nrows)
        for c, g in zip(t.cols[1:], gens[1:]):
            c.dom = g.dom if g.null_frac < 1 else 0
        ids = list(range(1, nrows + 1))
        for i in ids:
            row = [str(i)] + [g.value() for g in gens[1:]]
            t.rows.append(tuple(row))
        if not t.pk and nrows and rng.random() < 0.1:    # duplicate ids
            for _ in range(rng.randint(1, max(1, nrows // 10))):
                t.rows.append(rng.choice(t.rows))
        rng.shuffle(t.rows)
        for k, c in enumerate(t.cols):
            c.tname = t.name
            c.counts = collections.Counter(norm_key(r[k]) for r in t.rows if r[k] is not None)
            c.nrows = len(t.rows)
            vals = [r[k] for r in t.rows if r[k] is not None]
            c.sample = rng.sample(vals, min(25, len(vals))) if vals else []
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 2)):
                c = rng.choice(t.cols[1:])
                ix = [c.name]
                if rng.random() < 0.3:
                    c2 = rng.choice(t.cols)
                    if c2.name != c.name:
                        ix.append(c2.name)
                if ix not in t.indexes:
                    t.indexes.append(ix)
        t.vacuum = rng.random() < 0.3
        t.analyze = rng.random() < 0.95
        tables.append(t)
    return tables


# ------------------------------------------------------------------------------------------------
# expressions
# ------------------------------------------------------------------------------------------------


class X:
    """An expression: fmt with {0}, {1}, ... filled by args (X or str); typ its type."""
    __slots__ = ("fmt", "args", "typ", "agg")

    def __init__(self, fmt, args, typ, agg=False):
        self.fmt, self.args, self.typ, self.agg = fmt, list(args), typ, agg

    def sql(self):
        return self.fmt.format(*[a.sql() if isinstance(a, X) else a for a in self.args])

    def walk(self, path=()):
        yield path, self
        for i, a in enumerate(self.args):
            if isinstance(a, X):
                yield from a.walk(path + (i,))

    def has_agg(self):
        return any(n.agg for _, n in self.walk())


def has_col(x):
    return any(not n.args and re.match(r"^a\d+\.\w+$", n.fmt) for _, n in x.walk())


def get_at(x, path):
    for i in path:
        x = x.args[i]
    return x


def replace_at(x, path, new):
    if not path:
        return new
    x = copy.deepcopy(x)
    parent = get_at(x, path[:-1])
    parent.args[path[-1]] = new
    return x


def lit(s, typ):
    return X(s, [], typ)


class Scope:
    def __init__(self, items):
        self.items = items          # list of (alias, Column)

    def cols(self, cls=None, pred=None):
        return [(a, c) for a, c in self.items if (cls is None or c.typ.cls == cls) and (pred is None or pred(c))]


def int_result(a, b):
    return IBYW[max(IWIDTH[a.name], IWIDTH[b.name])]


class ExprGen:
    def __init__(self, rng, scope, tables):
        self.rng = rng
        self.scope = scope
        self.tables = tables
        self.errors_ok = rng.random() < 0.5      # may generate overflow-prone arithmetic
        self.sub_ok = True

    # ---- constants ----
    def const(self, typ, near=None):
        rng = self.rng
        cls = typ.cls
        v = None
        if near is not None and near.sample and rng.random() < 0.8 and (
                near.typ.cls == cls or {near.typ.cls, cls} <= {"int", "num", "flt"}
                or {near.typ.cls, cls} == {"date", "ts"}):
            v = rng.choice(near.sample)
            if cls == "date":
                v = v.split(" ")[0] if not v.endswith(" BC") else v
            if cls == "flt" and not _is_num(v) and v not in SPECIAL_FLOATS:
                v = None
        if cls == "int":
            if v is None or not _is_int(v):
                v = str(rng.choice([0, 1, 2, 3, 5, 7, 10, 100, -1, -5, 1000, 32767, 2147483647]))
            iv = int(v)
            if typ.name == "int2" and -32768 <= iv <= 32767 and rng.random() < 0.5:
                return lit("%s::int2" % _paren(v), INT2)
            if -2147483648 <= iv <= 2147483647:
                return lit(_paren(v), INT4)
            return lit("%s::int8" % q(v), INT8)
        if cls == "num":
            s = typ.s if typ.s is not None else rng.choice([0, 1, 2])
            if v is None or not _is_num(v):
                v = rng.choice(["0", "1", "2.5", "10", "0.01", "99.99", "-3.25", "1000000", "0.5"])
            d = D(v)
            if typ.s is not None:
                d = d.quantize(D(1).scaleb(-s)) if abs(d) < D(10) ** 30 else d
            txt = format(d, "f")
            return lit(_paren(txt), num(_scale_of(txt)))
        if cls == "flt":
            if v is None:
                v = rng.choice(["0", "0.25", "-1.5", "100", "NaN", "Infinity", "-Infinity", "-0", "1e308"])
            return lit("%s::float8" % q(v), FLT)
        if cls == "date":
            if v is None:
                v = rng.choice(["2000-01-01", "2000-03-15", "1999-12-31", "2001-01-01", "infinity"])
            return lit("DATE %s" % q(v), DATE)
        if cls == "ts":
            if v is None:
                v = rng.choice(["2000-01-01 00:00:00", "2000-01-02 12:00:00", "1999-12-31 23:59:59.999999"])
            return lit("TIMESTAMP %s" % q(v), TS)
        if cls == "bool":
            return lit(rng.choice(["true", "false"]), BOOL)
        if cls == "txt":
            if v is None:
                v = rng.choice(SPECIAL_WORDS + ["k1", "k5", "k50"])
            if rng.random() < 0.1:
                return lit("%s::text" % q(v), TEXT)
            return lit(q(v), T("txt", "unknown"))
        raise ValueError(cls)

    def col(self, cls, pred=None):
        cands = self.scope.cols(cls, pred)
        if not cands:
            return None
        a, c = self.rng.choice(cands)
        return X("%s.%s" % (a, c.name), [], c.typ), c

    # ---- scalar expressions ----
    def expr(self, cls, depth=2, prefer_col=0.6):
        rng = self.rng
        if depth <= 0 or rng.random() < prefer_col:
            r = self.col(cls)
            if r is not None and (rng.random() < 0.9 or depth <= 0):
                return r[0]
            if depth <= 0:
                return self.const(self._any_type(cls))
        gen = getattr(self, "e_" + cls)
        return gen(depth - 1)

    def _any_type(self, cls):
        return {"int": INT4, "num": num(2), "flt": FLT, "date": DATE, "ts": TS, "bool": BOOL, "txt": TEXT}[cls]

    def _near(self, x):
        """the column an expression is (for constants near its data)"""
        for _, n in x.walk():
            if not n.args and "." in n.fmt:
                a, cn = n.fmt.split(".", 1)
                for al, c in self.scope.items:
                    if al == a and c.name == cn:
                        return c
        return None

    def e_bool(self, depth):
        return self.pred(depth)

    def e_int(self, depth):
        rng = self.rng
        k = rng.choices(["arith", "div", "mod", "neg", "abs", "case", "coalesce", "nullif", "greatest", "len",
                         "datediff", "cast_num", "cast_flt", "narrow", "const", "extract", "simplecase"],
                        [10, 3, 3, 1, 1, 3, 3, 1, 1, 2, 1, 2, 1, 1, 2, 1, 1])[0]
        if k == "arith":
            a = self.expr("int", depth)
            b = self.expr("int", depth) if rng.random() < 0.4 else self.const(a.typ, self._near(a))
            op = rng.choice(["+", "-", "*"] if self.errors_ok else ["+", "-", "+", "-", "*"])
            return X("({0} %s {1})" % op, [a, b], int_result(a.typ, b.typ))
        if k == "div":
            a = self.expr("int", depth)
            b = self.expr("int", depth) if (self.errors_ok and rng.random() < 0.5) else self.const(INT4)
            if not self.errors_ok and b.fmt in ("0", "0::int2"):
                b = lit("7", INT4)
            return X("({0} / {1})", [a, b], int_result(a.typ, b.typ))
        if k == "mod":
            a = self.expr("int", depth)
            b = self.expr("int", depth) if (self.errors_ok and rng.random() < 0.5) else \
                lit(rng.choice(["2", "3", "7", "10", "-3", "1000"]), INT4)
            f = rng.choice(["({0} % {1})", "mod({0}, {1})"])
            return X(f, [a, b], int_result(a.typ, b.typ))
        if k == "neg":
            a = self.expr("int", depth)
            return X("(- {0})", [a], a.typ)
        if k == "abs":
            a = self.expr("int", depth)
            return X("abs({0})", [a], a.typ)
        if k in ("case", "coalesce", "nullif", "greatest", "simplecase"):
            return self.combine("int", depth, k)
        if k == "len":
            t = self.expr("txt", depth)
            return X(rng.choice(["length({0})", "char_length({0})"]), [t], INT4)
        if k == "datediff":
            a = self.expr("date", depth)
            b = self.expr("date", depth) if rng.random() < 0.5 else self.const(DATE, self._near(a))
            return X("({0} - {1})", [a, b], INT4)
        if k == "cast_num":
            a = self.expr("num", depth)
            w = rng.choice(["int2", "int4", "int8"])
            return X("({0})::%s" % w, [a], IBYW[IWIDTH[w]])
        if k == "cast_flt":
            a = self.expr("flt", depth)
            w = rng.choice(["int2", "int4", "int8"])
            return X("({0})::%s" % w, [a], IBYW[IWIDTH[w]])
        if k == "narrow":
            a = self.expr("int", depth)
            w = rng.choice(["int2", "int4"])
            return X("({0})::%s" % w, [a], IBYW[IWIDTH[w]])
        if k == "extract":
            a = self.expr(rng.choice(["date", "ts"]), depth)
            f = rng.choice(["year", "month", "day", "dow", "doy", "quarter"])
            return X("(EXTRACT(%s FROM {0}))::int4" % f, [a], INT4)
        return self.const(rng.choice([INT2, INT4, INT8]))

    def e_num(self, depth):
        rng = self.rng
        k = rng.choices(["arith", "mixed", "round", "abs", "neg", "case", "coalesce", "greatest", "fromint",
                         "extract", "typmod", "div", "mod", "const"], [8, 4, 3, 1, 1, 3, 3, 1, 3, 2, 1, 1, 1, 1])[0]
        if k in ("arith", "mixed"):
            a = self.expr("num", depth)
            if k == "mixed":
                b = self.expr("int", depth)
                bs = 0
            else:
                b = self.expr("num", depth) if rng.random() < 0.5 else self.const(a.typ, self._near(a))
                bs = b.typ.s
            op = rng.choice(["+", "-", "*"])
            if rng.random() < 0.5:
                a, b = b, a
            sa = a.typ.s if a.typ.cls == "num" else 0
            sb = b.typ.s if b.typ.cls == "num" else 0
            s = sa + sb if op == "*" else max(sa, sb)
            return X("({0} %s {1})" % op, [a, b], num(s))
        if k == "round":
            a = self.expr("num", depth)
            f = rng.choice(["round", "trunc", "ceil", "floor", "round1", "trunc1"])
            if f in ("round1", "trunc1"):
                s = rng.choice([-1, 0, 1, 2, 3])
                return X("%s({0}, %d)" % (f[:-1], s), [a], num(max(s, 0)))
            return X("%s({0})" % f, [a], num(0))
        if k == "abs":
            a = self.expr("num", depth)
            return X("abs({0})", [a], a.typ)
        if k == "neg":
            a = self.expr("num", depth)
            return X("(- {0})", [a], a.typ)
        if k in ("case", "coalesce", "greatest"):
            return self.combine("num", depth, k)
        if k == "fromint":
            a = self.expr("int", depth)
            return X("({0})::numeric", [a], num(0))
        if k == "extract":
            cls = rng.choice(["date", "ts"])
            a = self.expr(cls, depth)
            f = rng.choice(DATE_FIELDS if cls == "date" else TS_FIELDS)
            # the display scale depends on the field (epoch, second ...): round to a fixed one
            return X("round(EXTRACT(%s FROM {0}), 6)" % f, [a], num(6))
        if k == "typmod":
            a = self.expr(rng.choice(["num", "int"]), depth)
            p = rng.randint(1, 20)
            s = rng.randint(0, min(p, 6))
            return X("({0})::numeric(%d,%d)" % (p, s), [a], num(s))
        if k == "div":
            a = self.expr("num", depth)
            b = self.expr(rng.choice(["num", "int"]), depth)
            return X("round({0} / {1}, 4)", [a, b], num(4))
        if k == "mod":
            a = self.expr("num", depth)
            b = self.const(num(rng.choice([0, 1])))
            if b.sql().strip("()-0.") == "" and not self.errors_ok:
                b = lit("7", INT4)
            sb = b.typ.s if b.typ.cls == "num" else 0
            return X("({0} % {1})", [a, b], num(max(a.typ.s, sb)))
        return self.const(num(rng.choice([0, 1, 2, 3])))

    def e_flt(self, depth):
        rng = self.rng
        k = rng.choices(["arith", "neg", "abs", "case", "coalesce", "fromint", "fromnum", "round", "const"],
                        [6, 1, 1, 2, 2, 2, 2, 1, 1])[0]
        if k == "arith":
            a = self.expr("flt", depth)
            b = self.expr(rng.choice(["flt", "flt", "int"]), depth) if rng.random() < 0.5 else self.const(FLT, self._near(a))
            op = rng.choice(["+", "-", "*", "/"] if self.errors_ok else ["+", "-", "*"])
            return X("({0} %s {1})" % op, [a, b], FLT)
        if k in ("neg", "abs"):
            a = self.expr("flt", depth)
            return X("(- {0})" if k == "neg" else "abs({0})", [a], FLT)
        if k in ("case", "coalesce"):
            return self.combine("flt", depth, k)
        if k == "fromint":
            return X("({0})::float8", [self.expr("int", depth)], FLT)
        if k == "fromnum":
            return X("({0})::float8", [self.expr("num", depth)], FLT)
        if k == "round":
            return X(rng.choice(["round({0})", "trunc({0})", "ceil({0})", "floor({0})"]), [self.expr("flt", depth)], FLT)
        return self.const(FLT)

    def e_date(self, depth):
        rng = self.rng
        k = rng.choices(["plus", "minus", "iplus", "case", "coalesce", "fromts", "const"], [4, 3, 1, 2, 2, 1, 1])[0]
        if k in ("plus", "minus", "iplus"):
            a = self.expr("date", depth)
            if self.errors_ok and rng.random() < 0.3:
                n = self.expr("int", depth)
                if n.typ.name == "int8":
                    n = X("({0})::int4", [n], INT4)
            else:
                n = lit(str(rng.choice([0, 1, 7, 30, 365, 1000, -1, -30])), INT4)
                if n.fmt.startswith("-"):
                    n = lit("(%s)" % n.fmt, INT4)
            if k == "iplus":
                return X("({1} + {0})", [a, n], DATE)
            return X("({0} %s {1})" % ("+" if k == "plus" else "-"), [a, n], DATE)
        if k in ("case", "coalesce"):
            return self.combine("date", depth, k)
        if k == "fromts":
            return X("({0})::date", [self.expr("ts", depth)], DATE)
        return self.const(DATE)

    def e_ts(self, depth):
        rng = self.rng
        k = rng.choices(["dint", "tint", "fromdate", "case", "coalesce", "const"], [2, 3, 2, 2, 2, 1])[0]
        if k in ("dint", "tint"):
            a = self.expr("date" if k == "dint" else "ts", depth)
            op = rng.choice(["+", "-"])
            return X("({0} %s interval %s)" % (op, q(rng.choice(INTERVALS))), [a], TS)
        if k == "fromdate":
            return X("({0})::timestamp", [self.expr("date", depth)], TS)
        if k in ("case", "coalesce"):
            return self.combine("ts", depth, k)
        return self.const(TS)

    def e_txt(self, depth):
        rng = self.rng
        k = rng.choices(["substr", "upper", "lower", "concat", "case", "coalesce", "totext", "const"],
                        [3, 2, 2, 2, 2, 2, 2, 1])[0]
        if k == "substr":
            a = self.expr("txt", depth)
            s = rng.choice(["1", "2", "0", "-1", "3"])
            if rng.random() < 0.5:
                return X("substr({0}, %s, %s)" % (s, rng.choice(["1", "2", "3", "0"])), [a], TEXT)
            return X("substr({0}, %s)" % s, [a], TEXT)
        if k in ("upper", "lower"):
            return X("%s({0})" % k, [self.expr("txt", depth)], TEXT)
        if k == "concat":
            a = self.expr("txt", depth)
            b = self.expr("txt", depth) if rng.random() < 0.5 else lit(q(rng.choice(["-", "x", "", " "])), TEXT)
            return X("({0} || {1})", [a, b], TEXT)
        if k in ("case", "coalesce"):
            return self.combine("txt", depth, k)
        if k == "totext":
            return X("({0})::text", [self.expr("txt", depth)], TEXT)
        return self.const(TEXT)

    def unify(self, cls, xs):
        """make the branches of CASE / COALESCE / GREATEST agree on the display form"""
        if cls == "num":
            s = max(x.typ.s if x.typ.cls == "num" else 0 for x in xs)
            out = []
            for x in xs:
                if x.typ.cls == "num" and x.typ.s != s:
                    x = X("round({0}, %d)" % s, [x], num(s))
                out.append(x)
            return out, num(s)
        if cls == "txt":
            if any(x.typ.name == "bpchar" for x in xs) and not all(
                    x.typ.name == "bpchar" and x.typ.n == xs[0].typ.n for x in xs):
                xs = [X("({0})::text", [x], TEXT) if x.typ.name == "bpchar" else x for x in xs]
            t = xs[0].typ if all(x.typ.name == "bpchar" for x in xs) else TEXT
            return xs, t
        if cls == "int":
            w = max(IWIDTH.get(x.typ.name, 4) for x in xs)
            return xs, IBYW[w]
        return xs, xs[0].typ

    def combine(self, cls, depth, k):
        rng = self.rng
        if k == "case":
            n = rng.randint(1, 3)
            conds = [self.pred(depth) for _ in range(n)]
            vals = [self.expr(cls, depth) for _ in range(n)]
            has_else = rng.random() < 0.7
            if has_else:
                vals.append(self.expr(cls, depth) if rng.random() < 0.6 else self.const(vals[0].typ, self._near(vals[0])))
            vals, t = self.unify(cls, vals)
            parts = []
            args = []
            for i in range(n):
                parts.append("WHEN {%d} THEN {%d}" % (len(args), len(args) + 1))
                args += [conds[i], vals[i]]
            if has_else:
                parts.append("ELSE {%d}" % len(args))
                args.append(vals[-1])
            return X("CASE " + " ".join(parts) + " END", args, t)
        if k == "simplecase":
            subj = self.expr("int", depth)
            n = rng.randint(1, 3)
            vals = [self.expr(cls, depth) for _ in range(n + 1)]
            vals, t = self.unify(cls, vals)
            parts = ["CASE {0}"]
            args = [subj]
            for i in range(n):
                parts.append("WHEN %s THEN {%d}" % (self.const(INT4, self._near(subj)).sql(), len(args)))
                args.append(vals[i])
            parts.append("ELSE {%d} END" % len(args))
            args.append(vals[-1])
            return X(" ".join(parts), args, t)
        if k == "coalesce":
            n = rng.randint(2, 3)
            vals = [self.expr(cls, depth) for _ in range(n - 1)]
            vals.append(self.expr(cls, depth) if rng.random() < 0.4 else self.const(vals[0].typ, self._near(vals[0])))
            vals, t = self.unify(cls, vals)
            return X("COALESCE(" + ", ".join("{%d}" % i for i in range(n)) + ")", vals, t)
        if k == "nullif":
            a = self.expr(cls, depth)
            b = self.const(a.typ, self._near(a))
            return X("NULLIF({0}, {1})", [a, b], a.typ)
        if k == "greatest":
            vals = [self.expr(cls, depth), self.expr(cls, depth)]
            if rng.random() < 0.5:
                vals[1] = self.const(vals[0].typ, self._near(vals[0]))
            vals, t = self.unify(cls, vals)
            return X(rng.choice(["GREATEST", "LEAST"]) + "({0}, {1})", vals, t)
        raise ValueError(k)

    # ---- predicates ----
    def classes(self):
        cl = sorted(set(c.typ.cls for _, c in self.scope.items))
        return cl

    def pred(self, depth=2):
        rng = self.rng
        k = rng.choices(["cmp", "between", "in", "like", "isnull", "and", "or", "not", "boolcol", "distinct",
                         "booltest", "cmpcol", "divcmp"], [12, 3, 3, 3, 3, 2, 3, 1, 1, 1, 1, 3, 2])[0]
        if depth <= 0 and k in ("and", "or", "not"):
            k = "cmp"
        if k == "divcmp" and "num" not in self.classes():
            k = "cmp"
        if k == "divcmp":
            # a raw numeric quotient (its scale depends on the values) compared, maybe through + - *
            a = self.expr("num", depth - 1, prefer_col=0.8)
            b = self.expr(rng.choice(["num", "int"]), depth - 1, prefer_col=0.8)
            d = "({0} / {1})" if self.errors_ok and rng.random() < 0.3 else "({0} / nullif({1}, 0))"
            d = rng.choice([d, d, "(0.2 * %s)" % d, "(%s + {0})" % d, "(- %s)" % d])
            c = self.expr("num", depth - 1, prefer_col=0.5) if rng.random() < 0.5 else self.const(num(2))
            op = rng.choice(["=", "<>", "<", "<=", ">", ">="])
            return X("(%s %s {2})" % (d, op), [a, b, c], BOOL)
        if k in ("cmp", "cmpcol"):
            cls = rng.choice([c for c in self.classes() if c != "bool"] or ["int"])
            a = self.expr(cls, depth - 1, prefer_col=0.7)
            if k == "cmpcol":
                b = self.expr(cls, depth - 1, prefer_col=0.8)
            else:
                b = self.const(a.typ, self._near(a))
            op = rng.choice(["=", "<>", "<>", "<", "<=", ">", ">="])
            return X("({0} %s {1})" % op, [a, b], BOOL)
        if k == "between":
            cls = rng.choice([c for c in self.classes() if c not in ("bool",)] or ["int"])
            a = self.expr(cls, depth - 1, prefer_col=0.8)
            lo, hi = self.const(a.typ, self._near(a)), self.const(a.typ, self._near(a))
            f = rng.choice(["({0} BETWEEN {1} AND {2})", "({0} NOT BETWEEN {1} AND {2})",
                            "({0} BETWEEN SYMMETRIC {1} AND {2})"])
            return X(f, [a, lo, hi], BOOL)
        if k == "in":
            cls = rng.choice([c for c in self.classes() if c not in ("bool",)] or ["int"])
            a = self.expr(cls, depth - 1, prefer_col=0.8)
            n = rng.randint(1, 6)
            vals = [self.const(a.typ, self._near(a)) for _ in range(n)]
            if rng.random() < 0.15:
                vals.append(lit("NULL", a.typ))
            neg = rng.random() < 0.3
            return X("({0} %sIN (%s))" % ("NOT " if neg else "", ", ".join("{%d}" % (i + 1) for i in range(len(vals)))),
                     [a] + vals, BOOL)
        if k == "like":
            r = self.col("txt")
            if r is None:
                return self.pred(depth)
            a, c = r
            if rng.random() < 0.3:
                a = self.expr("txt", depth - 1)
            pat = self.pattern(c)
            neg = rng.random() < 0.25
            return X("({0} %sLIKE %s)" % ("NOT " if neg else "", q(pat)), [a], BOOL)
        if k == "isnull":
            cls = rng.choice(self.classes())
            a = self.expr(cls, depth - 1, prefer_col=0.8)
            return X("({0} IS %sNULL)" % rng.choice(["", "NOT ", "NOT "]), [a], BOOL)
        if k == "and":
            return X("({0} AND {1})", [self.pred(depth - 1), self.pred(depth - 1)], BOOL)
        if k == "or":
            return X("({0} OR {1})", [self.pred(depth - 1), self.pred(depth - 1)], BOOL)
        if k == "not":
            return X("(NOT {0})", [self.pred(depth - 1)], BOOL)
        if k == "boolcol":
            r = self.col("bool")
            if r is None:
                return self.pred(depth)
            return r[0] if rng.random() < 0.6 else X("(NOT {0})", [r[0]], BOOL)
        if k == "booltest":
            r = self.col("bool")
            b = r[0] if r is not None else self.pred(depth - 1)
            return X("({0} IS %s)" % rng.choice(["TRUE", "NOT TRUE", "FALSE", "NOT FALSE", "UNKNOWN", "NOT UNKNOWN"]),
                     [b], BOOL)
        if k == "distinct":
            cls = rng.choice([c for c in self.classes() if c != "bool"] or ["int"])
            a = self.expr(cls, depth - 1, prefer_col=0.8)
            b = self.expr(cls, depth - 1, prefer_col=0.8) if rng.random() < 0.5 else self.const(a.typ, self._near(a))
            return X("({0} IS %sDISTINCT FROM {1})" % rng.choice(["", "NOT "]), [a, b], BOOL)
        raise ValueError(k)

    def pattern(self, c):
        rng = self.rng
        w = rng.choice(c.sample) if c.sample and rng.random() < 0.8 else rng.choice(SPECIAL_WORDS)
        w = w.replace("\\", "\\\\")
        k = rng.choice(["prefix", "suffix", "infix", "exact", "under", "all", "esc", "mb"])
        if k == "prefix":
            return w[:rng.randint(0, max(0, len(w)))] + "%"
        if k == "suffix":
            return "%" + w[rng.randint(0, len(w)):]
        if k == "infix":
            i = rng.randint(0, len(w))
            return "%" + w[i:i + 2] + "%"
        if k == "exact":
            return w
        if k == "under":
            if not w:
                return "_"
            i = rng.randrange(len(w))
            return w[:i] + "_" + w[i + 1:]
        if k == "all":
            return rng.choice(["%", "%%", "_%", "%_", "__", ""])
        if k == "esc":
            return rng.choice(["%\\%%", "%\\_%", "foo\\%bar", "100\\%", "\\\\%", "%\\\\"])
        return rng.choice(["é%", "%本%", "_本%", "%🙂%", "a_b", "__", "%ß"])


def _is_int(v):
    try:
        int(v)
        return True
    except ValueError:
        return False


def _is_num(v):
    try:
        d = D(v)
        return d.is_finite()
    except decimal.InvalidOperation:
        return False


def _scale_of(txt):
    return len(txt.split(".", 1)[1]) if "." in txt else 0


def _paren(v):
    return "(%s)" % v if v.startswith("-") else v


# ------------------------------------------------------------------------------------------------
# queries
# ------------------------------------------------------------------------------------------------


class FromItem:
    def __init__(self, table, alias, jtype=None, on=None):
        self.table, self.alias, self.jtype, self.on = table, alias, jtype, on or []


class DerivedTable:
    """a subquery in FROM, used like a Table by the query generator (name: its SQL text)"""
    def __init__(self, name):
        self.name = name
        self.cols = []
        self.rows = []


class Query:
    def __init__(self):
        self.froms = []         # FromItem; froms[0].jtype is None
        self.where = []         # X (bool), conjuncts
        self.select = []        # X
        self.distinct = False
        self.group = []         # X
        self.having = []        # X
        self.order = []         # (index into select, desc, nulls)
        self.tiebreak = []      # indexes into select whose ::text is appended to ORDER BY
        self.limit = None
        self.offset = None
        self.ctes = []          # (name, query): WITH name AS (query), ...

    def grouped(self):
        return bool(self.group) or any(x.has_agg() for x in self.select) or bool(self.having)

    def sql(self):
        s = ""
        if self.ctes:
            s = "WITH " + ",\n  ".join("%s AS (%s)" % c for c in self.ctes) + "\n"
        s += "SELECT " + ("DISTINCT " if self.distinct else "")
        s += ", ".join("%s AS c%d" % (x.sql(), i) for i, x in enumerate(self.select))
        s += "\nFROM "
        where = list(self.where)
        for k, f in enumerate(self.froms):
            if k == 0:
                s += "%s %s" % (f.table, f.alias)
            elif f.jtype == "comma":
                s += ", %s %s" % (f.table, f.alias)
                where = list(f.on) + where
            else:
                on = " AND ".join(x.sql() for x in f.on) if f.on else "true"
                s += "\n  %s %s %s ON %s" % (f.jtype, f.table, f.alias, on)
        if where:
            s += "\nWHERE " + "\n  AND ".join(x.sql() for x in where)
        if self.group:
            s += "\nGROUP BY " + ", ".join(x.sql() for x in self.group)
        if self.having:
            s += "\nHAVING " + " AND ".join(x.sql() for x in self.having)
        if self.order:
            keys = []
            for i, desc, nulls in self.order:
                keys.append("c%d%s%s" % (i, " DESC" if desc else "", nulls))
            for i in self.tiebreak:
                keys.append("(%s)::text" % self.select[i].sql())
            s += "\nORDER BY " + ", ".join(keys)
        if self.limit is not None:
            s += "\nLIMIT %d" % self.limit
        if self.offset:
            s += " OFFSET %d" % self.offset
        return s


JOINABLE = {("int", "int"), ("num", "num"), ("int", "num"), ("num", "int"), ("date", "date"), ("date", "ts"),
            ("ts", "date"), ("ts", "ts"), ("txt", "txt"), ("flt", "flt"), ("bool", "bool"), ("flt", "int"),
            ("int", "flt")}


class QueryGen:
    def __init__(self, rng, tables):
        self.rng = rng
        self.tables = tables
        self.nalias = 0

    def alias(self):
        self.nalias += 1
        return "a%d" % self.nalias

    def key_pair(self, left_items, right_alias, right_table, est=None, limit=None):
        """an equality between a column of left_items and one of right_table (None if none fits);
        with est (rows so far): only pairs that keep the estimated join size under limit; self.fan is set
        to the estimated fan-out of the chosen pair"""
        rng = self.rng
        pairs = []
        for a, c in left_items:
            for c2 in right_table.cols:
                if (c.typ.cls, c2.typ.cls) in JOINABLE:
                    f = fanout(c, c2)
                    if est is not None and est * f > limit:
                        continue
                    wf = 1.0 if f > 0 else 0.05
                    w = 1
                    if c.typ.cls == c2.typ.cls:
                        w = 4
                    if c.typ.cls in ("flt", "bool") or c2.typ.cls in ("flt", "bool"):
                        w = 0.3
                    if c.name == "id" or c2.name == "id":
                        w *= 1.5
                    d1, d2 = getattr(c, "dom", 10), getattr(c2, "dom", 10)
                    if d1 == 0 or d2 == 0:
                        w *= 0.1
                    else:
                        ratio = max(d1, d2) / min(d1, d2)
                        w *= 1.0 / (1.0 + ratio / 3.0)
                    pairs.append((w * wf, a, c, c2, f))
        if not pairs:
            return None
        w, a, c, c2, self.fan = rng.choices(pairs, [p[0] for p in pairs])[0]
        l = X("%s.%s" % (a, c.name), [], c.typ)
        r = X("%s.%s" % (right_alias, c2.name), [], c2.typ)
        if rng.random() < 0.1 and c.typ.cls == "int" and c2.typ.cls == "int":
            l = X("({0} + %d)" % rng.choice([1, -1, 10]), [l], int_result(c.typ, INT4))
        if rng.random() < 0.05 and c.typ.cls == "txt" and c2.typ.cls == "txt":
            l = X("upper({0})", [l], TEXT)
            r = X("upper({0})", [r], TEXT)
        return X("({0} = {1})", [l, r], BOOL)

    def gen(self):
        rng = self.rng
        qy = Query()
        nt = rng.choices([1, 2, 3, 4, 5], [30, 35, 22, 9, 4])[0]
        agg = rng.random() < 0.5
        limit = 300000 if agg else 20000
        items = []
        est = 0
        tw = [1.0 if t.rows else 0.25 for t in self.tables]
        for k in range(nt):
            t = rng.choices(self.tables, tw)[0]
            view = None
            if rng.random() < 0.05:
                t = self.derived()
                if rng.random() < 0.5:
                    # as a CTE, read again by a scalar subquery: the max-over-a-view pattern (TPC-H Q15)
                    view = "v%d" % (len(qy.ctes) + 1)
                    qy.ctes.append((view, t.name[1:-1]))
                    t.name = view
            al = self.alias()
            if k == 0:
                qy.froms.append(FromItem(t.name, al))
                est = max(1, getattr(t, "nrows", len(t.rows)))
            else:
                jt = rng.choices(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "comma"], [55, 20, 10, 4, 11])[0]
                if jt == "comma" and k != nt - 1:
                    jt = "JOIN"     # a JOIN after a comma item could not see the items before it
                on = []
                kp = self.key_pair(items, al, t, est, limit)
                if kp is None:
                    break           # every key would make the join too large
                on.append(kp)
                e2 = est * self.fan
                if jt in ("LEFT JOIN", "FULL JOIN"):
                    e2 = max(e2, est)
                if jt in ("RIGHT JOIN", "FULL JOIN"):
                    e2 = max(e2, getattr(t, "nrows", len(t.rows)))
                est = max(1, e2)
                if rng.random() < 0.2:
                    kp = self.key_pair(items, al, t)
                    if kp is not None:
                        on.append(kp)
                if rng.random() < 0.2 and jt != "FULL JOIN":
                    eg = ExprGen(rng, Scope(items + [(al, c) for c in t.cols]), self.tables)
                    on.append(eg.pred(1))
                qy.froms.append(FromItem(t.name, al, jt, on))
                if jt in ("LEFT JOIN", "RIGHT JOIN") and rng.random() < 0.3:
                    # "outer join ... WHERE <nullable side key> IS NULL": PostgreSQL turns it into an anti join
                    side = kp.args[1] if jt == "LEFT JOIN" else kp.args[0]
                    if not side.args:
                        qy.where.append(X("({0} IS NULL)", [copy.deepcopy(side)], BOOL))
            items += [(al, c) for c in t.cols]
            if view is not None:
                vc = rng.choice(t.cols)
                agg = rng.choice(["max", "max", "min"])
                op = rng.choice(["=", "=", "=", ">="])
                qy.where.append(X("(%s.%s %s (SELECT %s(%s) FROM %s))" % (al, vc.name, op, agg, vc.name, view),
                                  [], BOOL))
        scope = Scope(items)
        eg = ExprGen(rng, scope, self.tables)
        self.eg = eg
        # semi / anti joins
        for _ in range(rng.choices([0, 1, 2], [65, 28, 7])[0]):
            x = self.semi(eg, items)
            if x is not None:
                qy.where.append(x)
        for _ in range(rng.choices([0, 1, 2, 3], [35, 42, 17, 6])[0]):
            qy.where.append(eg.pred(rng.choice([1, 2, 2, 3])))
        if rng.random() < 0.06:
            qy.where.append(self.scalar_cmp(eg))
        if agg:
            self.aggregate(qy, eg)
        else:
            self.plain(qy, eg, items)
        self.ordering(qy)
        return qy

    def derived(self):
        """a grouped subquery in FROM: (SELECT key, count(*), sum(x) ... GROUP BY key), as a pseudo table"""
        rng = self.rng
        t = rng.choice([t for t in self.tables if t.rows] or self.tables)
        al = self.alias()
        inner = ExprGen(rng, Scope([(al, c) for c in t.cols]), self.tables)
        keyc = rng.choice([c for c in t.cols if c.typ.cls in ("int", "txt", "date", "num")] or t.cols)
        sums = [c for c in t.cols if c.typ.cls in ("int", "num")]
        sel = ["%s.%s AS k" % (al, keyc.name), "count(*) AS cnt"]
        dt = DerivedTable("(SELECT %s FROM %s %s%s GROUP BY 1)")
        dt.cols = [copy.copy(keyc), Column("cnt", INT8)]
        dt.cols[0].name = "k"
        if sums and rng.random() < 0.7:
            sc = rng.choice(sums)
            sel.append("sum(%s.%s) AS s" % (al, sc.name))
            st = INT8 if sc.typ.name in ("int2", "int4") else num(sc.typ.s or 0)
            dt.cols.append(Column("s", st))
        where = ""
        if rng.random() < 0.5:
            where = " WHERE " + inner.pred(1).sql()
        dt.name = dt.name % (", ".join(sel), t.name, al, where)
        dt.rows = []
        for c in dt.cols[1:]:
            c.sample, c.counts, c.nrows, c.dom, c.tname = [], collections.Counter(), 0, 0, dt.name
        kc = dt.cols[0]
        kc.counts = collections.Counter({v: 1 for v in keyc.counts})
        kc.nrows = max(1, len(kc.counts))
        dt.nrows = kc.nrows
        return dt

    def semi(self, eg, items):
        rng = self.rng
        t = rng.choice(self.tables)
        al = self.alias()
        kp = self.key_pair(items, al, t)
        if kp is None:
            return None
        inner = ExprGen(rng, Scope([(al, c) for c in t.cols]), self.tables)
        extra = ""
        args = [kp]
        if rng.random() < 0.5:
            args.append(inner.pred(1))
            extra = " AND {1}"
        if rng.random() < 0.15:
            both = ExprGen(rng, Scope(items + [(al, c) for c in t.cols]), self.tables)
            args.append(X("({0} %s {1})" % rng.choice(["<", ">", "<>", "<="]),
                          [both.col("int")[0], X("%s.id" % al, [], INT4)], BOOL) if both.col("int") else inner.pred(0))
            extra += " AND {%d}" % (len(args) - 1)
        kind = rng.choices(["EXISTS", "NOT EXISTS", "IN", "NOT IN"], [40, 35, 20, 5])[0]
        if kind in ("EXISTS", "NOT EXISTS"):
            return X("(%s (SELECT 1 FROM %s %s WHERE {0}%s))" % (kind, t.name, al, extra), args, BOOL)
        # IN: outer key IN (SELECT inner key ...)
        l, r = kp.args
        rest = args[1:]
        fmt = "({0} %s (SELECT {1} FROM %s %s" % (kind, t.name, al)
        if rest:
            fmt += " WHERE " + " AND ".join("{%d}" % (i + 2) for i in range(len(rest)))
        fmt += "))"
        return X(fmt, [l, r] + rest, BOOL)

    def scalar_cmp(self, eg):
        rng = self.rng
        t = rng.choice(self.small_tables())
        al = self.alias()
        cands = [c for c in t.cols if c.typ.cls in ("int", "num", "date")]
        c = rng.choice(cands)
        agg = rng.choice(["max", "min", "count", "sum", "avg"] if c.typ.cls != "date" else ["max", "min"])
        out = "%s(%s.%s)" % (agg, al, c.name)
        if agg in ("sum", "avg") and rng.random() < 0.3:
            out = "0.5 * " + out                # an expression over the aggregate (TPC-H Q17 / Q20)
        sub = "(SELECT %s FROM %s %s" % (out, t.name, al)
        corr = self.key_pair(eg.scope.items, al, t) if rng.random() < 0.5 else None
        conds = []
        if corr is not None:
            conds.append(corr.sql())            # correlated: a SubPlan per outer row, or decorrelated
            if rng.random() < 0.4:
                inner = ExprGen(rng, Scope([(al, ic) for ic in t.cols]), self.tables)
                conds.append(inner.pred(1).sql())
        if conds:
            sub += " WHERE " + " AND ".join(conds)
        sub += ")"
        cls = c.typ.cls if agg not in ("count",) else "int"
        if cls == "int" and agg in ("sum", "avg"):
            cls = "num"
        if out.startswith("0.5 * "):
            cls = "num"
        cmp_cls = cls if eg.col(cls) is not None else None
        if cmp_cls is None:
            return X("(%s IS NOT NULL)" % sub, [], BOOL)
        a = eg.expr(cmp_cls, 1, prefer_col=0.9)
        return X("({0} %s %s)" % (rng.choice(["<", ">=", "=", "<>"]), sub), [a], BOOL)

    def agg_call(self, eg):
        rng = self.rng
        f = rng.choices(["count*", "count", "countd", "sum", "avg", "min", "max", "sumd"], [6, 3, 3, 6, 3, 4, 4, 1])[0]
        filt = rng.random() < 0.15
        if f == "count*":
            x = X("count(*)", [], INT8, agg=True)
        else:
            if f in ("sum", "avg", "sumd"):
                cls = rng.choices(["int", "num", "flt"], [5, 5, 1])[0]
            elif f in ("min", "max"):
                cls = rng.choices(["int", "num", "flt", "date", "ts", "txt"], [4, 4, 1, 2, 1, 2])[0]
            else:
                cls = rng.choice(eg.classes())
            if eg.col(cls) is None:
                cls = "int"
            if cls == "flt" and f in ("sum", "avg", "sumd"):
                r = eg.col("flt", lambda c: not c.wild)
                if r is None:
                    cls = "int"
                    arg = eg.expr("int", rng.choice([0, 0, 1]), prefer_col=0.7)
                else:
                    arg = r[0]
            else:
                arg = eg.expr(cls, rng.choice([0, 0, 1, 2]), prefer_col=0.7)
            t = arg.typ
            if f == "count":
                x = X("count({0})", [arg], INT8, agg=True)
            elif f == "countd":
                x = X("count(DISTINCT {0})", [arg], INT8, agg=True)
            elif f in ("sum", "sumd"):
                if cls == "int":
                    rt = INT8 if t.name in ("int2", "int4") else num(0)
                elif cls == "num":
                    rt = num(t.s)
                else:
                    rt = FLT
                x = X("sum(%s{0})" % ("DISTINCT " if f == "sumd" else ""), [arg], rt, agg=True)
            elif f == "avg":
                x = X("avg({0})", [arg], num(None) if cls != "flt" else FLT, agg=True)
                # avg's display scale is fine (deterministic); mark scale unknown
            else:
                x = X("%s({0})" % f, [arg], t, agg=True)
        if filt:
            x = X(x.fmt + " FILTER (WHERE {%d})" % len(x.args), x.args + [eg.pred(1)], x.typ, agg=True)
        return x

    def aggregate(self, qy, eg):
        rng = self.rng
        ng = rng.choices([0, 1, 2, 3], [30, 40, 22, 8])[0]
        keys = []
        for _ in range(ng):
            cls = rng.choice(eg.classes())
            if rng.random() < 0.7:
                x = eg.col(cls)[0]
            else:
                x = eg.expr(cls, 1, prefer_col=0.3) if cls != "bool" else eg.pred(1)
            if has_col(x) and x.sql() not in [k.sql() for k in keys]:
                keys.append(x)
        qy.group = keys
        sel = [k for k in keys if rng.random() < 0.85]
        for _ in range(rng.randint(1, 4)):
            sel.append(self.agg_call(eg))
        rng.shuffle(sel)
        qy.select = sel
        if rng.random() < 0.3:
            a = self.agg_call(eg)
            if a.typ.cls in ("int", "num"):
                c = eg.const(a.typ if a.typ.cls == "int" else num(0))
                qy.having.append(X("({0} %s {1})" % rng.choice([">", "<", ">=", "<>", "="]), [a, c], BOOL))
            else:
                qy.having.append(X("(count(*) > {0})", [eg.const(INT4)], BOOL, agg=True))

    def plain(self, qy, eg, items):
        rng = self.rng
        n = rng.randint(1, 6)
        sel = []
        for _ in range(n):
            r = rng.random()
            if r < 0.55:
                sel.append(eg.col(rng.choice(eg.classes()))[0])
            elif r < 0.93:
                cls = rng.choice(["int", "int", "num", "num", "flt", "date", "ts", "txt", "bool"])
                if cls == "bool":
                    sel.append(eg.pred(1))
                elif eg.col(cls) is not None or cls in ("int",):
                    sel.append(eg.expr(cls, rng.choice([1, 2]), prefer_col=0.3))
                else:
                    sel.append(eg.col(rng.choice(eg.classes()))[0])
            else:
                sel.append(self.scalar_sub(eg, items))
        qy.select = sel
        qy.distinct = rng.random() < 0.1

    def small_tables(self):
        """tables that a correlated subquery may scan once per outer row"""
        return [t for t in self.tables if len(t.rows) <= 3000] or self.tables

    def scalar_sub(self, eg, items):
        rng = self.rng
        t = rng.choice(self.small_tables())
        al = self.alias()
        kp = self.key_pair(items, al, t)
        if kp is None or rng.random() < 0.3:
            return X("(SELECT count(*) FROM %s %s)" % (t.name, al), [], INT8)
        return X("(SELECT count(*) FROM %s %s WHERE {0})" % (t.name, al), [kp], INT8)

    def ordering(self, qy):
        rng = self.rng
        if rng.random() > 0.3:
            return
        n = len(qy.select)
        idx = list(range(n))
        rng.shuffle(idx)
        use_limit = rng.random() < 0.5
        if use_limit and qy.distinct and any(x.typ.cls == "flt" for x in qy.select):
            use_limit = False
        if not use_limit:
            idx = idx[:rng.randint(1, n)]
        for i in idx:
            qy.order.append((i, rng.random() < 0.3, rng.choice(["", "", " NULLS FIRST", " NULLS LAST"])))
        if use_limit:
            qy.tiebreak = [i for i in idx if qy.select[i].typ.cls == "flt"]
            qy.limit = rng.choice([0, 1, 3, 10, 10, 50, 50])
            if rng.random() < 0.2:
                qy.offset = rng.choice([1, 5])
