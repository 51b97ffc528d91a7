/*
 * bench/tpch/dbgen.c — TPC-H data generator for the themis benchmarks, written from the rules of the
 * TPC-H specification (clause 4.2: cardinalities, keys, value domains, text grammar), with an optional
 * JCC-H-style skew mode.  Not derived from the official dbgen source.
 *
 *   dbgen [-s SF] [-o DIR] [-j THREADS] [--seed N] [--skew] [--chunks N] [-q]
 *
 * Output: DIR/<table>.<chunk>.tbl, PostgreSQL COPY text format with '|' as the delimiter (no
 * trailing delimiter; no value contains '|', a tab, a backslash or a newline), and DIR/manifest.txt
 * (settings and the row count of each table).  Any scale factor > 0, fractions included:
 *
 *     supplier SF*10,000   part SF*200,000   partsupp 4 per part   customer SF*150,000
 *     orders SF*1,500,000 (sparse keys: 8 of every 32)   lineitem 1..7 per order (~SF*6M)
 *     nation 25   region 5
 *
 * Determinism: every value is drawn from a counter-based generator keyed by (seed, table, row key),
 * so the data depends only on SF, seed and the skew flag — not on the number of threads or chunks.
 * Chunks of a table are produced in parallel (pthreads); the text pool (clause 4.2.2.10) too.
 *
 * Skew mode (--skew), in the style of JCC-H (Boncz et al., "JCC-H: adding Join Crossing Correlations
 * with Skew to TPC-H", TPCTC 2017); the row counts stay those of TPC-H (lineitem ~ SF*6M):
 *   - 5 populous orders (one per region h = 0..4) hold 25% of lineitem (SF*300,000 lines each);
 *     the other orders have 1..5 lines.  Populous orders are dated 1995-01-10 + 7h.
 *   - one populous customer per region (custkey 3h+1, nation = first nation of region h, segment
 *     BUILDING) owns populous order h and 20% of the other orders.
 *   - 25 hot parts (5 per region group; name "forest green ...", Brand#23, MED BOX, size 15,
 *     ECONOMY ANODIZED STEEL): the lines of populous order h use the 5 hot parts of group h, and 10%
 *     of all other lines use a hot part.  Lines with a hot part are supplied by its first partsupp
 *     supplier (a hot supplier), whose nation is forced into region (h+1) mod 5: hot customers of
 *     region h buy from suppliers of region h+1 (a join-crossing correlation: Q5's "local supplier"
 *     join finds none of it, Q7/Q8-style cross-nation queries find all of it).
 *   - order dates: 30% of the other orders are placed in a December (1992..1997).
 *   The parameters that hit this skew are in bench/tpch/queries-skew/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ random numbers */

static uint64_t g_seed = 19920101;

static inline uint64_t
mix64(uint64_t z)
{
	z ^= z >> 30;
	z *= 0xbf58476d1ce4e5b9ULL;
	z ^= z >> 27;
	z *= 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z;
}

/* a per-row stream: draws are sequential, the start depends on (seed, table stream, key, sub) */
typedef struct
{
	uint64_t	s;
} Rng;

static inline Rng
rng_at(uint32_t stream, uint64_t key, uint64_t sub)
{
	Rng			r;

	r.s = mix64(mix64(g_seed * 0x9E3779B97F4A7C15ULL + stream) ^ (key * 0xD1B54A32D192ED03ULL)) ^
		mix64(sub + 0x632BE59BD9B4E019ULL * (stream + 1));
	return r;
}

static inline uint64_t
rng_next(Rng *r)
{
	r->s += 0x9E3779B97F4A7C15ULL;
	return mix64(r->s);
}

/* uniform integer in [lo, hi] */
static inline int64_t
uni(Rng *r, int64_t lo, int64_t hi)
{
	uint64_t	range = (uint64_t) (hi - lo) + 1;

	return lo + (int64_t) (((unsigned __int128) rng_next(r) * range) >> 64);
}

enum
{
	ST_POOL = 1, ST_REGION, ST_NATION, ST_SUPP, ST_PART, ST_PS, ST_CUST, ST_ORD, ST_LINE, ST_SUPPSEL
};

/* ------------------------------------------------------------------ lists of the specification */

static const char *const REGIONS[5] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};
static const struct
{
	const char *name;
	int			region;
}			NATIONS[25] = {
	{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
	{"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
	{"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
	{"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
	{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
};
/* first nation (lowest key) of each region: the populous customer's nation in skew mode */
static const int REGION_FIRST_NATION[5] = {0, 1, 8, 6, 4};

static const char *const COLORS[92] = {
	"almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched", "blue",
	"blush", "brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral",
	"cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim", "dodger", "drab", "firebrick",
	"floral", "forest", "frosted", "gainsboro", "ghost", "goldenrod", "green", "grey", "honeydew",
	"hot", "indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon", "light", "lime", "linen",
	"magenta", "maroon", "medium", "metallic", "midnight", "mint", "misty", "moccasin", "navajo",
	"navy", "olive", "orange", "orchid", "pale", "papaya", "peach", "peru", "pink", "plum", "powder",
	"puff", "purple", "red", "rose", "rosy", "royal", "saddle", "salmon", "sandy", "seashell",
	"sienna", "sky", "slate", "smoke", "snow", "spring", "steel", "tan", "thistle", "tomato",
	"turquoise", "violet", "wheat", "white", "yellow",
};
#define COLOR_FOREST 28
#define COLOR_GREEN 33

static const char *const TYPE_S1[6] = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
static const char *const TYPE_S2[5] = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
static const char *const TYPE_S3[5] = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
static const char *const CONT_S1[5] = {"SM", "LG", "MED", "JUMBO", "WRAP"};
static const char *const CONT_S2[8] = {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"};
static const char *const SEGMENTS[5] = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"};
static const char *const PRIORITIES[5] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
static const char *const INSTRUCTIONS[4] = {"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"};
static const char *const MODES[7] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};

/* the text grammar's word lists with their weights (clause 4.2.2.10) */
typedef struct
{
	const char *w;
	int			wt;
} Word;

static const Word NOUNS[] = {
	{"packages", 40}, {"requests", 40}, {"accounts", 40}, {"deposits", 40}, {"foxes", 20},
	{"ideas", 20}, {"theodolites", 20}, {"pinto beans", 20}, {"instructions", 20},
	{"dependencies", 10}, {"excuses", 10}, {"platelets", 10}, {"asymptotes", 10}, {"courts", 5},
	{"dolphins", 5}, {"multipliers", 1}, {"sauternes", 1}, {"warthogs", 1}, {"frets", 1},
	{"dinos", 1}, {"attainments", 1}, {"somas", 1}, {"Tiresias", 1}, {"patterns", 1}, {"forges", 1},
	{"braids", 1}, {"frays", 1}, {"warhorses", 1}, {"dugouts", 1}, {"notornis", 1}, {"epitaphs", 1},
	{"pearls", 1}, {"tithes", 1}, {"waters", 1}, {"orbits", 1}, {"gifts", 1}, {"sheaves", 1},
	{"depths", 1}, {"sentiments", 1}, {"decoys", 1}, {"realms", 1}, {"pains", 1}, {"grouches", 1},
	{"escapades", 1}, {"hockey players", 1}, {NULL, 0}
};
static const Word VERBS[] = {
	{"sleep", 20}, {"wake", 20}, {"are", 20}, {"cajole", 20}, {"haggle", 20}, {"nag", 10},
	{"use", 10}, {"boost", 10}, {"affix", 5}, {"detect", 5}, {"integrate", 5}, {"maintain", 1},
	{"nod", 1}, {"was", 1}, {"lose", 1}, {"sublate", 1}, {"solve", 1}, {"thrash", 1},
	{"promise", 1}, {"engage", 1}, {"hinder", 1}, {"print", 1}, {"x-ray", 1}, {"breach", 1},
	{"eat", 1}, {"grow", 1}, {"impress", 1}, {"mold", 1}, {"poach", 1}, {"serve", 1}, {"run", 1},
	{"dazzle", 1}, {"snooze", 1}, {"doze", 1}, {"unwind", 1}, {"kindle", 1}, {"play", 1},
	{"hang", 1}, {"believe", 1}, {"doubt", 1}, {NULL, 0}
};
static const Word ADJECTIVES[] = {
	{"special", 20}, {"pending", 20}, {"unusual", 20}, {"express", 20}, {"furious", 1}, {"sly", 1},
	{"careful", 1}, {"blithe", 1}, {"quick", 1}, {"fluffy", 1}, {"slow", 1}, {"quiet", 1},
	{"ruthless", 1}, {"thin", 1}, {"close", 1}, {"dogged", 1}, {"daring", 1}, {"brave", 1},
	{"stealthy", 1}, {"permanent", 1}, {"enticing", 1}, {"idle", 1}, {"busy", 1}, {"regular", 50},
	{"final", 40}, {"ironic", 40}, {"even", 30}, {"bold", 20}, {"silent", 10}, {NULL, 0}
};
static const Word ADVERBS[] = {
	{"sometimes", 1}, {"always", 1}, {"never", 1}, {"furiously", 50}, {"slyly", 50},
	{"carefully", 50}, {"blithely", 40}, {"quickly", 30}, {"fluffily", 20}, {"slowly", 1},
	{"quietly", 1}, {"ruthlessly", 1}, {"thinly", 1}, {"closely", 1}, {"doggedly", 1},
	{"daringly", 1}, {"bravely", 1}, {"stealthily", 1}, {"permanently", 1}, {"enticingly", 1},
	{"idly", 1}, {"busily", 1}, {"regularly", 1}, {"finally", 1}, {"ironically", 1}, {"evenly", 1},
	{"boldly", 1}, {"silently", 1}, {NULL, 0}
};
static const Word PREPOSITIONS[] = {
	{"about", 50}, {"above", 50}, {"according to", 50}, {"across", 50}, {"after", 50},
	{"against", 40}, {"along", 40}, {"alongside of", 30}, {"among", 30}, {"around", 20}, {"at", 10},
	{"atop", 1}, {"before", 1}, {"behind", 1}, {"beneath", 1}, {"beside", 1}, {"besides", 1},
	{"between", 1}, {"beyond", 1}, {"by", 1}, {"despite", 1}, {"during", 1}, {"except", 1},
	{"for", 1}, {"from", 1}, {"in place of", 1}, {"inside", 1}, {"instead of", 1}, {"into", 1},
	{"near", 1}, {"of", 1}, {"on", 1}, {"outside", 1}, {"over", 1}, {"past", 1}, {"since", 1},
	{"through", 1}, {"throughout", 1}, {"to", 1}, {"toward", 1}, {"under", 1}, {"until", 1},
	{"up", 1}, {"upon", 1}, {"without", 1}, {"with", 1}, {"within", 1}, {NULL, 0}
};
static const Word AUXILIARIES[] = {
	{"do", 1}, {"may", 1}, {"might", 1}, {"shall", 1}, {"will", 1}, {"would", 1}, {"can", 1},
	{"could", 1}, {"should", 1}, {"ought to", 1}, {"must", 1}, {"will have to", 1},
	{"shall have to", 1}, {"could have to", 1}, {"should have to", 1}, {"must have to", 1},
	{"need to", 1}, {"try to", 1}, {NULL, 0}
};
static const Word TERMINATORS[] = {
	{".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1}, {NULL, 0}
};
/* sentence forms: N noun phrase, V verb phrase, P prepositional phrase, T terminator */
static const Word SENTENCES[] = {
	{"N VT", 3}, {"N V PT", 3}, {"N V NT", 3}, {"N P V NT", 1}, {"N P V PT", 1}, {NULL, 0}
};
/* noun phrase: n noun, j adjective, d adverb (other characters are copied) */
static const Word NOUN_PHRASES[] = {
	{"n", 10}, {"j n", 20}, {"j, j n", 10}, {"d j n", 50}, {NULL, 0}
};
/* verb phrase: v verb, x auxiliary, d adverb */
static const Word VERB_PHRASES[] = {
	{"v", 30}, {"x v", 1}, {"v d", 40}, {"x v d", 1}, {NULL, 0}
};

/* a weighted list, with a lookup table from a uniform draw in [0, total) to the word */
typedef struct
{
	const Word *words;
	int			total;
	uint8_t    *lut;
	uint8_t    *len;
} Dist;

static Dist D_NOUN, D_VERB, D_ADJ, D_ADV, D_PREP, D_AUX, D_TERM, D_SENT, D_NP, D_VP;

static void
dist_init(Dist *d, const Word *w)
{
	int			i,
				n = 0,
				k;

	d->words = w;
	d->total = 0;
	for (i = 0; w[i].w; i++)
		d->total += w[i].wt;
	d->lut = malloc(d->total);
	d->len = malloc(i);
	for (i = 0; w[i].w; i++)
	{
		d->len[i] = (uint8_t) strlen(w[i].w);
		for (k = 0; k < w[i].wt; k++)
			d->lut[n++] = (uint8_t) i;
	}
}

static inline int
dist_pick(const Dist *d, Rng *r)
{
	return d->lut[uni(r, 0, d->total - 1)];
}

/* ------------------------------------------------------------------ dates */

#define NDAYS 3000				/* days from 1992-01-01 with a precomputed text form */
static char g_datestr[NDAYS][10];

/* days since 1970-01-01 of a civil date (proleptic Gregorian) */
static int64_t
days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	int64_t		era = (y >= 0 ? y : y - 399) / 400;
	int64_t		yoe = y - era * 400;
	int64_t		doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t		doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

static void
civil_from_days(int64_t z, int *y, int *m, int *d)
{
	z += 719468;
	int64_t		era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t		doe = z - era * 146097;
	int64_t		yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t		doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t		mp = (5 * doy + 2) / 153;

	*d = (int) (doy - (153 * mp + 2) / 5 + 1);
	*m = (int) (mp < 10 ? mp + 3 : mp - 9);
	*y = (int) (yoe + era * 400 + (*m <= 2));
}

/* day numbers relative to STARTDATE = 1992-01-01 */
static int	D_START = 0,
			D_CURRENT,			/* 1995-06-17 */
			D_END;				/* 1998-12-31 */

static int
dayno(int y, int m, int d)
{
	return (int) (days_from_civil(y, m, d) - days_from_civil(1992, 1, 1));
}

static void
dates_init(void)
{
	int			i,
				y,
				m,
				d;
	int64_t		base = days_from_civil(1992, 1, 1);

	for (i = 0; i < NDAYS; i++)
	{
		char		tmp[64];

		civil_from_days(base + i, &y, &m, &d);
		snprintf(tmp, sizeof(tmp), "%04d-%02d-%02d", y, m, d);
		memcpy(g_datestr[i], tmp, 10);
	}
	D_CURRENT = dayno(1995, 6, 17);
	D_END = dayno(1998, 12, 31);
}

/* ------------------------------------------------------------------ output buffers */

typedef struct
{
	int			fd;
	char	   *buf;
	size_t		len;
	size_t		cap;
	const char *path;
} Out;

#define OUTCAP (4u << 20)

static void
die(const char *fmt, const char *arg)
{
	fprintf(stderr, "dbgen: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

static void
out_open(Out *o, const char *path)
{
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (o->fd < 0)
		die("cannot create %s", path);
	o->buf = malloc(OUTCAP);
	o->len = 0;
	o->cap = OUTCAP;
	o->path = path;
}

static void
out_flush(Out *o)
{
	size_t		off = 0;

	while (off < o->len)
	{
		ssize_t		n = write(o->fd, o->buf + off, o->len - off);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			die("write error on %s", o->path);
		}
		off += (size_t) n;
	}
	o->len = 0;
}

static void
out_close(Out *o)
{
	out_flush(o);
	if (close(o->fd) != 0)
		die("close error on %s", o->path);
	free(o->buf);
}

/* rows are at most a few KB: make room before each row */
static inline void
out_reserve(Out *o)
{
	if (o->len + 8192 > o->cap)
		out_flush(o);
}

static inline void
put_mem(Out *o, const char *s, size_t n)
{
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static inline void
put_str(Out *o, const char *s)
{
	put_mem(o, s, strlen(s));
}

static inline void
put_ch(Out *o, char c)
{
	o->buf[o->len++] = c;
}

static inline void
put_sep(Out *o)
{
	o->buf[o->len++] = '|';
}

static inline void
put_u64(Out *o, uint64_t v)
{
	char		t[24];
	int			n = 0;

	do
	{
		t[n++] = (char) ('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		o->buf[o->len++] = t[--n];
}

static inline void
put_int(Out *o, int64_t v)
{
	if (v < 0)
	{
		put_ch(o, '-');
		put_u64(o, (uint64_t) (-v));
	}
	else
		put_u64(o, (uint64_t) v);
}

/* zero-padded to width w */
static inline void
put_padded(Out *o, uint64_t v, int w)
{
	char		t[24];
	int			n = 0;

	do
	{
		t[n++] = (char) ('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < w)
		t[n++] = '0';
	while (n)
		o->buf[o->len++] = t[--n];
}

/* an amount in cents as d.dd */
static inline void
put_money(Out *o, int64_t cents)
{
	if (cents < 0)
	{
		put_ch(o, '-');
		cents = -cents;
	}
	put_u64(o, (uint64_t) (cents / 100));
	put_ch(o, '.');
	put_padded(o, (uint64_t) (cents % 100), 2);
}

static inline void
put_date(Out *o, int day)
{
	put_mem(o, g_datestr[day], 10);
}

static inline void
put_eol(Out *o)
{
	o->buf[o->len++] = '\n';
}

/* ------------------------------------------------------------------ text pool and strings */

static char *g_pool;
static size_t g_pool_len;
#define POOL_CHUNK (1u << 20)

static inline void
app_word(char **p, const Dist *d, Rng *r)
{
	int			i = dist_pick(d, r);

	memcpy(*p, d->words[i].w, d->len[i]);
	*p += d->len[i];
}

static void phrase(char **p, Rng *r, const char *f);

/* expand a grammar form: letters are symbols, any other character is copied */
static void
phrase(char **p, Rng *r, const char *f)
{
	for (; *f; f++)
	{
		switch (*f)
		{
			case 'N':			/* noun phrase */
				phrase(p, r, NOUN_PHRASES[dist_pick(&D_NP, r)].w);
				break;
			case 'V':			/* verb phrase */
				phrase(p, r, VERB_PHRASES[dist_pick(&D_VP, r)].w);
				break;
			case 'P':			/* prepositional phrase */
				app_word(p, &D_PREP, r);
				memcpy(*p, " the ", 5);
				*p += 5;
				phrase(p, r, NOUN_PHRASES[dist_pick(&D_NP, r)].w);
				break;
			case 'T':
				app_word(p, &D_TERM, r);
				break;
			case 'n':
				app_word(p, &D_NOUN, r);
				break;
			case 'v':
				app_word(p, &D_VERB, r);
				break;
			case 'j':
				app_word(p, &D_ADJ, r);
				break;
			case 'd':
				app_word(p, &D_ADV, r);
				break;
			case 'x':
				app_word(p, &D_AUX, r);
				break;
			default:
				*(*p)++ = *f;
		}
	}
}

/* one sentence, followed by a space; at most ~200 bytes */
static void
sentence(char **p, Rng *r)
{
	phrase(p, r, SENTENCES[dist_pick(&D_SENT, r)].w);
	*(*p)++ = ' ';
}

static void
pool_chunk(size_t k)
{
	size_t		start = k * POOL_CHUNK,
				n = g_pool_len - start < POOL_CHUNK ? g_pool_len - start : POOL_CHUNK;
	char	   *tmp = malloc(n + 1024),
			   *p = tmp;
	Rng			r = rng_at(ST_POOL, k, 0);

	while ((size_t) (p - tmp) < n)
		sentence(&p, &r);
	memcpy(g_pool + start, tmp, n);
	free(tmp);
}

/* text string [min, max]: a substring of the pool at a random offset (clause 4.2.2.10) */
static inline void
put_text(Out *o, Rng *r, int min, int max)
{
	int			len = (int) uni(r, min, max);
	size_t		off = (size_t) uni(r, 0, (int64_t) (g_pool_len - (size_t) max - 1));

	put_mem(o, g_pool + off, (size_t) len);
}

static const char VALPHA[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,.";

/* random v-string [min, max] over 64 symbols (clause 4.2.2.7) */
static inline void
put_vstring(Out *o, Rng *r, int min, int max)
{
	int			len = (int) uni(r, min, max),
				i;
	uint64_t	bits = 0;

	for (i = 0; i < len; i++)
	{
		if (i % 10 == 0)
			bits = rng_next(r);
		o->buf[o->len++] = VALPHA[bits & 63];
		bits >>= 6;
	}
}

/* phone number: country code nation + 10 (clause 4.2.2.9) */
static inline void
put_phone(Out *o, Rng *r, int nation)
{
	put_u64(o, (uint64_t) (nation + 10));
	put_ch(o, '-');
	put_u64(o, (uint64_t) uni(r, 100, 999));
	put_ch(o, '-');
	put_u64(o, (uint64_t) uni(r, 100, 999));
	put_ch(o, '-');
	put_u64(o, (uint64_t) uni(r, 1000, 9999));
}

/* ------------------------------------------------------------------ scale, keys */

static double g_sf = 1.0;
static int	g_skew = 0;
static int64_t N_SUPP, N_PART, N_CUST, N_ORD, N_CLERK, N_COMPLAIN;

static inline int64_t
order_key(int64_t i)			/* i-th order (0-based) -> sparse key: 8 of every 32 */
{
	return (i / 8) * 32 + (i % 8) + 1;
}

static inline int64_t
retail_cents(int64_t pk)		/* P_RETAILPRICE (clause 4.2.3) in cents */
{
	return 90000 + ((pk / 10) % 20001) + 100 * (pk % 1000);
}

/* the four suppliers of a part (PS_SUPPKEY, clause 4.2.3); collisions (only possible when
 * there are very few suppliers, SF < 0.01) are moved to the next free key */
static inline void
part_suppliers(int64_t pk, int64_t out[4])
{
	int64_t		S = N_SUPP;
	int			i,
				j;

	for (i = 0; i < 4; i++)
	{
		int64_t		s = (pk + i * ((S / 4) + (pk - 1) / S)) % S + 1;

		for (j = 0; j < i; j++)
			if (out[j] == s)
			{
				s = s % S + 1;
				j = -1;
			}
		out[i] = s;
	}
}

/* customers with orders: custkey not divisible by 3; r in [0, count) */
static inline int64_t
nth_order_customer(int64_t r)
{
	return 3 * (r / 2) + 1 + (r % 2);
}

/* ------------------------------------------------------------------ skew */

#define N_HOT_ORD 5
#define N_HOT_PART 25
static int64_t HOT_ORD_IDX[N_HOT_ORD];	/* order index of populous order h */
static int64_t HOT_LINES;		/* lines per populous order */
static int64_t HOT_CUST[N_HOT_ORD];
static int64_t HOT_PART[N_HOT_PART];
static int64_t HOT_SUPP[N_HOT_PART];	/* first partsupp supplier of the hot part */
static int	HOT_SUPP_NATION[N_HOT_PART];

static int
hot_order_of_index(int64_t idx)
{
	int			h;

	for (h = 0; h < N_HOT_ORD; h++)
		if (HOT_ORD_IDX[h] == idx)
			return h;
	return -1;
}

static int
hot_part_slot(int64_t pk)
{
	int			j;

	for (j = 0; j < N_HOT_PART; j++)
		if (HOT_PART[j] == pk)
			return j;
	return -1;
}

static int
hot_supp_nation(int64_t sk)
{
	int			j;

	for (j = 0; j < N_HOT_PART; j++)
		if (HOT_SUPP[j] == sk)
			return HOT_SUPP_NATION[j];
	return -1;
}

static int
hot_cust_slot(int64_t ck)
{
	int			h;

	for (h = 0; h < N_HOT_ORD; h++)
		if (HOT_CUST[h] == ck)
			return h;
	return -1;
}

static void
skew_init(void)
{
	int			h,
				j;
	int64_t		ps[4];

	HOT_LINES = N_ORD / 5 > 0 ? N_ORD / 5 : 1;
	for (h = 0; h < N_HOT_ORD; h++)
	{
		HOT_ORD_IDX[h] = ((2 * h + 1) * N_ORD) / 10;
		HOT_CUST[h] = nth_order_customer((2 * h) % (N_CUST - N_CUST / 3));	/* 3h+1 */
	}
	for (j = 0; j < N_HOT_PART; j++)
	{
		/* spread over the key range; each hot part gets a first supplier of its own (where the
		 * suppliers suffice), so that the region a hot supplier is forced into is well defined */
		int64_t		pk = 1 + (j * N_PART) / N_HOT_PART,
					tries;
		int			i,
					clash = 1;

		for (tries = 0; clash && tries < N_PART; tries++, pk = pk % N_PART + 1)
		{
			part_suppliers(pk, ps);
			clash = 0;
			for (i = 0; i < j; i++)
				if (HOT_PART[i] == pk || (HOT_SUPP[i] == ps[0] && N_SUPP >= N_HOT_PART))
					clash = 1;
			if (!clash)
				break;
		}
		HOT_PART[j] = pk;
		HOT_SUPP[j] = ps[0];
		HOT_SUPP_NATION[j] = REGION_FIRST_NATION[(j / 5 + 1) % 5];
	}
}

/* ------------------------------------------------------------------ tables */

typedef struct
{
	int64_t		rows[8];		/* per table, see TABLES */
} Counts;

enum
{
	T_REGION, T_NATION, T_SUPPLIER, T_PART, T_PARTSUPP, T_CUSTOMER, T_ORDERS, T_LINEITEM, NTABLES
};
static const char *const TABLES[NTABLES] = {
	"region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem"
};

static char g_dir[4096];

static void
open_chunk(Out *o, int table, const char *tag)
{
	char		path[4200];

	snprintf(path, sizeof(path), "%s/%s.%s.tbl", g_dir, TABLES[table], tag);
	out_open(o, strdup(path));
}

static void
gen_region(Counts *c)
{
	Out			o;
	int			r;

	open_chunk(&o, T_REGION, "000");
	for (r = 0; r < 5; r++)
	{
		Rng			g = rng_at(ST_REGION, (uint64_t) r, 0);

		out_reserve(&o);
		put_int(&o, r);
		put_sep(&o);
		put_str(&o, REGIONS[r]);
		put_sep(&o);
		put_text(&o, &g, 31, 115);
		put_eol(&o);
	}
	out_close(&o);
	c->rows[T_REGION] += 5;
}

static void
gen_nation(Counts *c)
{
	Out			o;
	int			n;

	open_chunk(&o, T_NATION, "000");
	for (n = 0; n < 25; n++)
	{
		Rng			g = rng_at(ST_NATION, (uint64_t) n, 0);

		out_reserve(&o);
		put_int(&o, n);
		put_sep(&o);
		put_str(&o, NATIONS[n].name);
		put_sep(&o);
		put_int(&o, NATIONS[n].region);
		put_sep(&o);
		put_text(&o, &g, 31, 114);
		put_eol(&o);
	}
	out_close(&o);
	c->rows[T_NATION] += 25;
}

/* the supplier permutation that chooses the "Customer ... Complaints/Recommends" rows */
static int64_t g_perm_a, g_perm_b;

static int64_t
gcd64(int64_t a, int64_t b)
{
	while (b)
	{
		int64_t		t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static void
gen_supplier(Counts *c, int64_t lo, int64_t hi, const char *tag)
{
	Out			o;
	int64_t		k;

	open_chunk(&o, T_SUPPLIER, tag);
	for (k = lo; k < hi; k++)
	{
		Rng			g = rng_at(ST_SUPP, (uint64_t) k, 0);
		int			nation = (int) uni(&g, 0, 24);
		int64_t		perm = ((k - 1) * g_perm_a + g_perm_b) % N_SUPP;

		if (g_skew)
		{
			int			hn = hot_supp_nation(k);

			if (hn >= 0)
				nation = hn;
		}
		out_reserve(&o);
		put_int(&o, k);
		put_sep(&o);
		put_str(&o, "Supplier#");
		put_padded(&o, (uint64_t) k, 9);
		put_sep(&o);
		put_vstring(&o, &g, 10, 40);
		put_sep(&o);
		put_int(&o, nation);
		put_sep(&o);
		put_phone(&o, &g, nation);
		put_sep(&o);
		put_money(&o, uni(&g, -99999, 999999));
		put_sep(&o);
		{
			size_t		start = o.len;
			int			len;

			put_text(&o, &g, 25, 100);
			len = (int) (o.len - start);
			if (perm < 2 * N_COMPLAIN)
			{
				/* "Customer" + some text + "Complaints" / "Recommends", at a random position */
				const char *tail = perm < N_COMPLAIN ? "Complaints" : "Recommends";
				int			maxfill = len - 18 < 20 ? len - 18 : 20;
				int			fill = (int) uni(&g, 0, maxfill);
				int			pos = (int) uni(&g, 0, len - 18 - fill);
				size_t		src = (size_t) uni(&g, 0, (int64_t) (g_pool_len - 64));
				char	   *p = o.buf + start + pos;

				memcpy(p, "Customer", 8);
				memcpy(p + 8, g_pool + src, (size_t) fill);
				memcpy(p + 8 + fill, tail, 10);
			}
		}
		put_eol(&o);
	}
	out_close(&o);
	__atomic_add_fetch(&c->rows[T_SUPPLIER], hi - lo, __ATOMIC_RELAXED);
}

static void
gen_part(Counts *c, int64_t lo, int64_t hi, const char *tag)
{
	Out			o,
				ps;
	int64_t		k;

	open_chunk(&o, T_PART, tag);
	open_chunk(&ps, T_PARTSUPP, tag);
	for (k = lo; k < hi; k++)
	{
		Rng			g = rng_at(ST_PART, (uint64_t) k, 0);
		uint8_t		col[92];
		int			i,
					m,
					n,
					hot = g_skew ? hot_part_slot(k) : -1;
		int			t1,
					t2,
					t3,
					size,
					c1,
					c2;
		int64_t		supp[4];

		for (i = 0; i < 92; i++)
			col[i] = (uint8_t) i;
		for (i = 0; i < 5; i++)
		{
			int			j = (int) uni(&g, i, 91);
			uint8_t		t = col[i];

			col[i] = col[j];
			col[j] = t;
		}
		m = (int) uni(&g, 1, 5);
		n = (int) uni(&g, 1, 5);
		t1 = (int) uni(&g, 0, 5);
		t2 = (int) uni(&g, 0, 4);
		t3 = (int) uni(&g, 0, 4);
		size = (int) uni(&g, 1, 50);
		c1 = (int) uni(&g, 0, 4);
		c2 = (int) uni(&g, 0, 7);
		if (hot >= 0)
		{
			/* hot part: "forest green" + 3 other colors, Brand#23, ECONOMY ANODIZED STEEL, 15, MED BOX */
			int			w = 2;

			for (i = 0; i < 5 && w < 5; i++)
				if (col[i] != COLOR_FOREST && col[i] != COLOR_GREEN)
					col[w++] = col[i];
			for (i = 5; w < 5; i++)
				if (col[i] != COLOR_FOREST && col[i] != COLOR_GREEN)
					col[w++] = col[i];
			col[0] = COLOR_FOREST;
			col[1] = COLOR_GREEN;
			m = 2;
			n = 3;
			t1 = 4;
			t2 = 0;
			t3 = 3;
			size = 15;
			c1 = 2;
			c2 = 1;
		}
		out_reserve(&o);
		put_int(&o, k);
		put_sep(&o);
		for (i = 0; i < 5; i++)
		{
			if (i)
				put_ch(&o, ' ');
			put_str(&o, COLORS[col[i]]);
		}
		put_sep(&o);
		put_str(&o, "Manufacturer#");
		put_int(&o, m);
		put_sep(&o);
		put_str(&o, "Brand#");
		put_int(&o, m);
		put_int(&o, n);
		put_sep(&o);
		put_str(&o, TYPE_S1[t1]);
		put_ch(&o, ' ');
		put_str(&o, TYPE_S2[t2]);
		put_ch(&o, ' ');
		put_str(&o, TYPE_S3[t3]);
		put_sep(&o);
		put_int(&o, size);
		put_sep(&o);
		put_str(&o, CONT_S1[c1]);
		put_ch(&o, ' ');
		put_str(&o, CONT_S2[c2]);
		put_sep(&o);
		put_money(&o, retail_cents(k));
		put_sep(&o);
		put_text(&o, &g, 5, 22);
		put_eol(&o);

		part_suppliers(k, supp);
		for (i = 0; i < 4; i++)
		{
			Rng			h = rng_at(ST_PS, (uint64_t) k, (uint64_t) i);

			out_reserve(&ps);
			put_int(&ps, k);
			put_sep(&ps);
			put_int(&ps, supp[i]);
			put_sep(&ps);
			put_int(&ps, uni(&h, 1, 9999));
			put_sep(&ps);
			put_money(&ps, uni(&h, 100, 100000));
			put_sep(&ps);
			put_text(&ps, &h, 49, 198);
			put_eol(&ps);
		}
	}
	out_close(&o);
	out_close(&ps);
	__atomic_add_fetch(&c->rows[T_PART], hi - lo, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->rows[T_PARTSUPP], 4 * (hi - lo), __ATOMIC_RELAXED);
}

static void
gen_customer(Counts *c, int64_t lo, int64_t hi, const char *tag)
{
	Out			o;
	int64_t		k;

	open_chunk(&o, T_CUSTOMER, tag);
	for (k = lo; k < hi; k++)
	{
		Rng			g = rng_at(ST_CUST, (uint64_t) k, 0);
		int			nation = (int) uni(&g, 0, 24);
		int			seg;
		int			h = g_skew ? hot_cust_slot(k) : -1;

		if (h >= 0)
			nation = REGION_FIRST_NATION[h];
		out_reserve(&o);
		put_int(&o, k);
		put_sep(&o);
		put_str(&o, "Customer#");
		put_padded(&o, (uint64_t) k, 9);
		put_sep(&o);
		put_vstring(&o, &g, 10, 40);
		put_sep(&o);
		put_int(&o, nation);
		put_sep(&o);
		put_phone(&o, &g, nation);
		put_sep(&o);
		put_money(&o, uni(&g, -99999, 999999));
		put_sep(&o);
		seg = (int) uni(&g, 0, 4);
		put_str(&o, SEGMENTS[h >= 0 ? 1 : seg]);
		put_sep(&o);
		put_text(&o, &g, 29, 116);
		put_eol(&o);
	}
	out_close(&o);
	__atomic_add_fetch(&c->rows[T_CUSTOMER], hi - lo, __ATOMIC_RELAXED);
}

/* what a group of lines contributes to its order */
typedef struct
{
	int64_t		total_cents;
	int64_t		nF;				/* lines with status F */
	int64_t		nlines;
} LineAgg;

/* line ln of order okey (ordered on day od); hot: populous order number or -1 */
static inline void
gen_line(Out *o, int64_t okey, int64_t ln, int od, int hot, LineAgg *agg)
{
	Rng			g = rng_at(ST_LINE, (uint64_t) okey, (uint64_t) ln);
	int64_t		pk = uni(&g, 1, N_PART);
	int			slot = (int) uni(&g, 0, 3);
	int64_t		qty = uni(&g, 1, 50);
	int64_t		disc = uni(&g, 0, 10);
	int64_t		tax = uni(&g, 0, 8);
	int			ship = od + (int) uni(&g, 1, 121);
	int			commit = od + (int) uni(&g, 30, 90);
	int			receipt = ship + (int) uni(&g, 1, 30);
	int			ra = (int) uni(&g, 0, 1);
	int			instr = (int) uni(&g, 0, 3);
	int			mode = (int) uni(&g, 0, 6);
	int64_t		supp[4],
				sk,
				ext;
	int			hotdraw = (int) uni(&g, 0, 99);
	int			hotpick = (int) uni(&g, 0, N_HOT_PART - 1);

	if (hot >= 0)
	{
		pk = HOT_PART[hot * 5 + (int) (ln % 5)];
		slot = 0;
	}
	else if (g_skew && hotdraw < 10)
	{
		pk = HOT_PART[hotpick];
		slot = 0;
	}
	part_suppliers(pk, supp);
	sk = supp[slot];
	ext = qty * retail_cents(pk);

	out_reserve(o);
	put_int(o, okey);
	put_sep(o);
	put_int(o, pk);
	put_sep(o);
	put_int(o, sk);
	put_sep(o);
	put_int(o, ln);
	put_sep(o);
	put_int(o, qty);
	put_sep(o);
	put_money(o, ext);
	put_sep(o);
	put_money(o, disc);
	put_sep(o);
	put_money(o, tax);
	put_sep(o);
	put_ch(o, receipt <= D_CURRENT ? (ra ? 'R' : 'A') : 'N');
	put_sep(o);
	put_ch(o, ship > D_CURRENT ? 'O' : 'F');
	put_sep(o);
	put_date(o, ship);
	put_sep(o);
	put_date(o, commit);
	put_sep(o);
	put_date(o, receipt);
	put_sep(o);
	put_str(o, INSTRUCTIONS[instr]);
	put_sep(o);
	put_str(o, MODES[mode]);
	put_sep(o);
	put_text(o, &g, 10, 43);
	put_eol(o);

	/* the line's charge, rounded to cents, half up: ext * (1 - disc) * (1 + tax) */
	agg->total_cents += (ext * (100 - disc) * (100 + tax) + 5000) / 10000;
	agg->nF += ship > D_CURRENT ? 0 : 1;
	agg->nlines++;
}

/* populous orders (skew): their lines are generated first, in pieces, and summed here */
static LineAgg g_hot_agg[N_HOT_ORD];
static pthread_mutex_t g_hot_mu = PTHREAD_MUTEX_INITIALIZER;

static int
hot_order_date(int h)
{
	return dayno(1995, 1, 10) + 7 * h;
}

static void
gen_hot_lines(Counts *c, int h, int64_t lo, int64_t hi, const char *tag)
{
	Out			o;
	int64_t		ln;
	int64_t		okey = order_key(HOT_ORD_IDX[h]);
	LineAgg		agg = {0, 0, 0};

	open_chunk(&o, T_LINEITEM, tag);
	for (ln = lo; ln < hi; ln++)
		gen_line(&o, okey, ln + 1, hot_order_date(h), h, &agg);
	out_close(&o);
	pthread_mutex_lock(&g_hot_mu);
	g_hot_agg[h].total_cents += agg.total_cents;
	g_hot_agg[h].nF += agg.nF;
	g_hot_agg[h].nlines += agg.nlines;
	pthread_mutex_unlock(&g_hot_mu);
	__atomic_add_fetch(&c->rows[T_LINEITEM], hi - lo, __ATOMIC_RELAXED);
}

static void
gen_orders(Counts *c, int64_t lo, int64_t hi, const char *tag)
{
	Out			o,
				l;
	int64_t		i,
				nlines_total = 0;
	int64_t		ncustord = N_CUST - N_CUST / 3;

	open_chunk(&o, T_ORDERS, tag);
	open_chunk(&l, T_LINEITEM, tag);
	for (i = lo; i < hi; i++)
	{
		int64_t		okey = order_key(i);
		Rng			g = rng_at(ST_ORD, (uint64_t) okey, 0);
		int64_t		ck = nth_order_customer(uni(&g, 0, ncustord - 1));
		int			od = (int) uni(&g, D_START, D_END - 151);
		int			prio = (int) uni(&g, 0, 4);
		int64_t		clerk = uni(&g, 1, N_CLERK);
		int64_t		nlines = uni(&g, 1, 7);
		/* skew draws, always made so that the stream does not depend on the mode */
		int			hc = (int) uni(&g, 0, 99);
		int			hcs = (int) uni(&g, 0, N_HOT_ORD - 1);
		int			dd = (int) uni(&g, 0, 99);
		int			dy = (int) uni(&g, 1992, 1997);
		int			dday = (int) uni(&g, 1, 31);
		int64_t		nl5 = uni(&g, 1, 5);
		int			h = g_skew ? hot_order_of_index(i) : -1;
		LineAgg		agg = {0, 0, 0};
		int64_t		ln;

		if (g_skew)
		{
			nlines = nl5;
			if (hc < 20)
				ck = HOT_CUST[hcs];
			if (dd < 30)
				od = dayno(dy, 12, dday);
		}
		if (h >= 0)
		{
			ck = HOT_CUST[h];
			od = hot_order_date(h);
			agg = g_hot_agg[h];
		}
		else
			for (ln = 1; ln <= nlines; ln++)
				gen_line(&l, okey, ln, od, -1, &agg);
		nlines_total += h >= 0 ? 0 : agg.nlines;

		out_reserve(&o);
		put_int(&o, okey);
		put_sep(&o);
		put_int(&o, ck);
		put_sep(&o);
		put_ch(&o, agg.nF == agg.nlines ? 'F' : agg.nF == 0 ? 'O' : 'P');
		put_sep(&o);
		put_money(&o, agg.total_cents);
		put_sep(&o);
		put_date(&o, od);
		put_sep(&o);
		put_str(&o, PRIORITIES[prio]);
		put_sep(&o);
		put_str(&o, "Clerk#");
		put_padded(&o, (uint64_t) clerk, 9);
		put_sep(&o);
		put_ch(&o, '0');
		put_sep(&o);
		put_text(&o, &g, 19, 78);
		put_eol(&o);
	}
	out_close(&o);
	out_close(&l);
	__atomic_add_fetch(&c->rows[T_ORDERS], hi - lo, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->rows[T_LINEITEM], nlines_total, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ jobs and threads */

enum
{
	J_POOL, J_REGION, J_NATION, J_SUPP, J_PART, J_CUST, J_ORD, J_HOT
};

typedef struct
{
	int			kind;
	int			h;
	int64_t		lo,
				hi;
	double		weight;			/* bytes, roughly: the biggest jobs start first */
	char		tag[32];
} Job;

static Job *g_jobs;
static int	g_njobs;
static int	g_next;
static Counts g_counts;

static void
run_job(const Job *j)
{
	switch (j->kind)
	{
		case J_POOL:
			pool_chunk((size_t) j->lo);
			break;
		case J_REGION:
			gen_region(&g_counts);
			break;
		case J_NATION:
			gen_nation(&g_counts);
			break;
		case J_SUPP:
			gen_supplier(&g_counts, j->lo, j->hi, j->tag);
			break;
		case J_PART:
			gen_part(&g_counts, j->lo, j->hi, j->tag);
			break;
		case J_CUST:
			gen_customer(&g_counts, j->lo, j->hi, j->tag);
			break;
		case J_ORD:
			gen_orders(&g_counts, j->lo, j->hi, j->tag);
			break;
		case J_HOT:
			gen_hot_lines(&g_counts, j->h, j->lo, j->hi, j->tag);
			break;
	}
}

static void *
worker(void *arg)
{
	(void) arg;
	for (;;)
	{
		int			i = __atomic_fetch_add(&g_next, 1, __ATOMIC_RELAXED);

		if (i >= g_njobs)
			return NULL;
		run_job(&g_jobs[i]);
	}
}

static int
job_cmp(const void *a, const void *b)
{
	double		x = ((const Job *) a)->weight,
				y = ((const Job *) b)->weight;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void
run_jobs(Job *jobs, int n, int threads)
{
	pthread_t  *t = malloc(sizeof(pthread_t) * (size_t) threads);
	int			i;

	qsort(jobs, (size_t) n, sizeof(Job), job_cmp);
	g_jobs = jobs;
	g_njobs = n;
	g_next = 0;
	for (i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			die("%s", "pthread_create failed");
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	free(t);
}

static Job *g_list;
static int	g_nlist,
			g_caplist;

static Job *
add_job(int kind, int64_t lo, int64_t hi, double weight)
{
	Job		   *j;

	if (g_nlist == g_caplist)
	{
		g_caplist = g_caplist ? 2 * g_caplist : 64;
		g_list = realloc(g_list, sizeof(Job) * (size_t) g_caplist);
	}
	j = &g_list[g_nlist++];
	memset(j, 0, sizeof(*j));
	j->kind = kind;
	j->lo = lo;
	j->hi = hi;
	j->weight = weight;
	return j;
}

/* split keys [first, first + n) into chunks of one table */
static void
add_chunks(int kind, int64_t first, int64_t n, int chunks, double bytes_per_row)
{
	int			k;

	if (chunks > n)
		chunks = (int) (n > 0 ? n : 1);
	for (k = 0; k < chunks; k++)
	{
		int64_t		lo = first + (n * k) / chunks,
					hi = first + (n * (k + 1)) / chunks;
		Job		   *j = add_job(kind, lo, hi, (double) (hi - lo) * bytes_per_row);

		snprintf(j->tag, sizeof(j->tag), "%03d", k);
	}
}

static double
now_s(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double) tv.tv_sec + tv.tv_usec / 1e6;
}

static int
auto_chunks(int64_t rows, int threads, int forced)
{
	int64_t		k;

	if (forced > 0)
		return forced;
	k = (rows + 49999) / 50000;
	if (k > 2 * threads)
		k = 2 * threads;
	return k < 1 ? 1 : (int) k;
}

static void
usage(void)
{
	fprintf(stderr,
			"usage: dbgen [-s SF] [-o DIR] [-j THREADS] [--seed N] [--skew] [--chunks N] [-q]\n"
			"  -s, --sf SF       scale factor, > 0, fractions allowed (default 1)\n"
			"  -o, --out DIR     output directory, created if missing (default .)\n"
			"  -j, --threads N   worker threads (default: the number of online CPUs)\n"
			"      --seed N      random seed (default 19920101); same seed, SF and mode: same data\n"
			"      --skew        JCC-H-style skew (see the comment at the top of dbgen.c)\n"
			"      --chunks N    files per large table (default: 2 per thread, >= 50,000 rows each)\n"
			"  -q, --quiet       no progress on stderr\n"
			"Writes DIR/<table>.<chunk>.tbl (COPY text, '|' delimiter) and DIR/manifest.txt.\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"sf", required_argument, NULL, 's'},
		{"out", required_argument, NULL, 'o'},
		{"threads", required_argument, NULL, 'j'},
		{"seed", required_argument, NULL, 'S'},
		{"skew", no_argument, NULL, 'k'},
		{"chunks", required_argument, NULL, 'c'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}
	};
	int			threads = (int) sysconf(_SC_NPROCESSORS_ONLN),
				forced_chunks = 0,
				quiet = 0,
				opt,
				t,
				h;
	double		t0,
				t1,
				t2;
	size_t		k,
				npool;
	FILE	   *mf;
	char		path[4200];
	int64_t		ps[4];

	snprintf(g_dir, sizeof(g_dir), ".");
	while ((opt = getopt_long(argc, argv, "s:o:j:qh", longopts, NULL)) != -1)
	{
		switch (opt)
		{
			case 's':
				g_sf = strtod(optarg, NULL);
				break;
			case 'o':
				snprintf(g_dir, sizeof(g_dir), "%s", optarg);
				break;
			case 'j':
				threads = atoi(optarg);
				break;
			case 'S':
				g_seed = strtoull(optarg, NULL, 10);
				break;
			case 'k':
				g_skew = 1;
				break;
			case 'c':
				forced_chunks = atoi(optarg);
				break;
			case 'q':
				quiet = 1;
				break;
			default:
				usage();
		}
	}
	if (optind < argc || !(g_sf > 0) || g_sf > 100000)
		usage();
	if (threads < 1)
		threads = 1;
	mkdir(g_dir, 0755);

	N_SUPP = llround(g_sf * 10000);
	N_PART = llround(g_sf * 200000);
	N_CUST = llround(g_sf * 150000);
	N_ORD = llround(g_sf * 1500000);
	N_CLERK = llround(g_sf * 1000);
	N_COMPLAIN = llround(g_sf * 5);
	if (N_SUPP < 4)
		N_SUPP = 4;
	if (N_PART < 1)
		N_PART = 1;
	if (N_CUST < 3)
		N_CUST = 3;
	if (N_ORD < 1)
		N_ORD = 1;
	if (N_CLERK < 1)
		N_CLERK = 1;
	if (N_COMPLAIN < 1)
		N_COMPLAIN = 1;
	if (2 * N_COMPLAIN > N_SUPP)
		N_COMPLAIN = N_SUPP / 2;
	if (g_skew && (N_ORD < 10 || N_PART < N_HOT_PART || N_CUST < 15))
		die("%s", "--skew needs a scale factor of at least 0.001");

	/* permutation of suppliers for the Complaints/Recommends rows */
	{
		Rng			g = rng_at(ST_SUPPSEL, 0, 0);

		/* an affine bijection of [0, S): multiplier near S times the golden ratio, coprime to S */
		g_perm_a = (int64_t) ((double) N_SUPP * 0.6180339887) + 1;
		while (gcd64(g_perm_a, N_SUPP) != 1)
			g_perm_a++;
		g_perm_b = uni(&g, 0, N_SUPP - 1);
	}

	dates_init();
	dist_init(&D_NOUN, NOUNS);
	dist_init(&D_VERB, VERBS);
	dist_init(&D_ADJ, ADJECTIVES);
	dist_init(&D_ADV, ADVERBS);
	dist_init(&D_PREP, PREPOSITIONS);
	dist_init(&D_AUX, AUXILIARIES);
	dist_init(&D_TERM, TERMINATORS);
	dist_init(&D_SENT, SENTENCES);
	dist_init(&D_NP, NOUN_PHRASES);
	dist_init(&D_VP, VERB_PHRASES);
	if (g_skew)
		skew_init();

	t0 = now_s();
	/* text pool: 300 MB as in the specification from SF 1 on; smaller below (at least 16 MB) */
	{
		double		want = g_sf >= 1 ? 300.0 * 1048576 : fmax(16.0 * 1048576, g_sf * 300.0 * 1048576);

		npool = (size_t) ceil(want / POOL_CHUNK);
		g_pool_len = npool * POOL_CHUNK;
		g_pool = malloc(g_pool_len);
		if (!g_pool)
			die("%s", "out of memory for the text pool");
		g_nlist = 0;
		for (k = 0; k < npool; k++)
			add_job(J_POOL, (int64_t) k, 0, 1.0);
		run_jobs(g_list, g_nlist, threads);
	}
	t1 = now_s();

	/* populous orders' lines first (their totals go into the orders rows) */
	if (g_skew)
	{
		g_nlist = 0;
		for (h = 0; h < N_HOT_ORD; h++)
		{
			int64_t		piece = 500000,
						lo;
			int			p = 0;

			for (lo = 0; lo < HOT_LINES; lo += piece, p++)
			{
				int64_t		hi = lo + piece < HOT_LINES ? lo + piece : HOT_LINES;
				Job		   *j = add_job(J_HOT, lo, hi, (double) (hi - lo) * 140);

				j->h = h;
				snprintf(j->tag, sizeof(j->tag), "hot%dp%03d", h, p);
			}
		}
		run_jobs(g_list, g_nlist, threads);
	}

	g_nlist = 0;
	add_job(J_REGION, 0, 5, 1000);
	add_job(J_NATION, 0, 25, 5000);
	add_chunks(J_SUPP, 1, N_SUPP, auto_chunks(N_SUPP, threads, forced_chunks), 160);
	add_chunks(J_CUST, 1, N_CUST, auto_chunks(N_CUST, threads, forced_chunks), 180);
	add_chunks(J_PART, 1, N_PART, auto_chunks(4 * N_PART, threads, forced_chunks), 620);
	add_chunks(J_ORD, 0, N_ORD, auto_chunks(4 * N_ORD, threads, forced_chunks), 680);
	run_jobs(g_list, g_nlist, threads);
	t2 = now_s();

	snprintf(path, sizeof(path), "%s/manifest.txt", g_dir);
	mf = fopen(path, "w");
	if (!mf)
		die("cannot create %s", path);
	fprintf(mf, "sf=%g\nseed=%llu\nskew=%d\n", g_sf, (unsigned long long) g_seed, g_skew);
	for (t = 0; t < NTABLES; t++)
		fprintf(mf, "%s=%lld\n", TABLES[t], (long long) g_counts.rows[t]);
	if (g_skew)
	{
		fprintf(mf, "hot_orders=");
		for (h = 0; h < N_HOT_ORD; h++)
			fprintf(mf, "%s%lld", h ? "," : "", (long long) order_key(HOT_ORD_IDX[h]));
		fprintf(mf, "\nhot_customers=");
		for (h = 0; h < N_HOT_ORD; h++)
			fprintf(mf, "%s%lld", h ? "," : "", (long long) HOT_CUST[h]);
		fprintf(mf, "\nhot_parts=");
		for (h = 0; h < N_HOT_PART; h++)
			fprintf(mf, "%s%lld", h ? "," : "", (long long) HOT_PART[h]);
		fprintf(mf, "\nhot_suppliers=");
		for (h = 0; h < N_HOT_PART; h++)
		{
			part_suppliers(HOT_PART[h], ps);
			fprintf(mf, "%s%lld", h ? "," : "", (long long) ps[0]);
		}
		fprintf(mf, "\n");
	}
	if (fclose(mf) != 0)
		die("write error on %s", path);

	if (!quiet)
	{
		fprintf(stderr, "dbgen: SF %g%s, seed %llu, %d threads: text pool %zu MB in %.2f s, tables in %.2f s\n",
				g_sf, g_skew ? " (skew)" : "", (unsigned long long) g_seed, threads,
				g_pool_len >> 20, t1 - t0, t2 - t1);
		for (t = 0; t < NTABLES; t++)
			fprintf(stderr, "  %-9s %12lld rows\n", TABLES[t], (long long) g_counts.rows[t]);
	}
	return 0;
}
