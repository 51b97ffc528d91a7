/*
 * bench/duckdb_runner.c — times TPC-H queries in DuckDB on the files of bench/tpch/dbgen, for the
 * side-by-side columns of bench/run.sh.
 *
 *   duckdb_runner --lib libduckdb.so --data DIR --schema schema.sql [--runs N] [--threads N]
 *                 [--timeout S] [--out DIR] QUERY.sql...
 *
 * libduckdb.so is loaded with dlopen (DuckDB's C API; the few declarations needed are below), so
 * the runner builds without DuckDB's header and runs with any libduckdb of the 1.x C API, e.g. the
 * one inside the npm package @duckdb/node-bindings-linux-x64 (bench/fetch-duckdb.sh).
 * An in-memory database; the CREATE TABLE statements of schema.sql; each table read from
 * DIR/<table>.*.tbl ('|'-delimited).  Each query runs once cold (the first run) and N times warm;
 * stdout gets one line per query: name, cold ms, median warm ms, rows, error (tab-separated).
 * With --out, the first run's result is written to OUT/<name>.duckdb.out ('|'-separated).
 * --timeout interrupts a query after S seconds (duckdb_interrupt).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the parts of duckdb.h used here (C API, DuckDB 1.x) ---- */
typedef uint64_t idx_t;
typedef enum
{
	DuckDBSuccess = 0, DuckDBError = 1
} duckdb_state;
typedef struct _duckdb_database
{
	void	   *internal_ptr;
}		   *duckdb_database;
typedef struct _duckdb_connection
{
	void	   *internal_ptr;
}		   *duckdb_connection;
typedef struct
{
	idx_t		deprecated_column_count;
	idx_t		deprecated_row_count;
	idx_t		deprecated_rows_changed;
	void	   *deprecated_columns;
	char	   *deprecated_error_message;
	void	   *internal_data;
} duckdb_result;

static duckdb_state (*p_open) (const char *, duckdb_database *);
static duckdb_state (*p_connect) (duckdb_database, duckdb_connection *);
static duckdb_state (*p_query) (duckdb_connection, const char *, duckdb_result *);
static void (*p_destroy_result) (duckdb_result *);
static const char *(*p_result_error) (duckdb_result *);
static idx_t (*p_row_count) (duckdb_result *);
static idx_t (*p_column_count) (duckdb_result *);
static char *(*p_value_varchar) (duckdb_result *, idx_t, idx_t);
static void (*p_free) (void *);
static void (*p_disconnect) (duckdb_connection *);
static void (*p_close) (duckdb_database *);
static void (*p_interrupt) (duckdb_connection);

static void *
sym(void *h, const char *name)
{
	void	   *p = dlsym(h, name);

	if (!p)
	{
		fprintf(stderr, "duckdb_runner: %s not found in the library\n", name);
		exit(1);
	}
	return p;
}

static char *
read_file(const char *path)
{
	FILE	   *f = fopen(path, "rb");
	long		n;
	char	   *s;

	if (!f)
	{
		fprintf(stderr, "duckdb_runner: cannot read %s\n", path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = malloc((size_t) n + 1);
	if (fread(s, 1, (size_t) n, f) != (size_t) n)
		n = 0;
	s[n] = 0;
	fclose(f);
	return s;
}

/* SQL text without "--" comments; a trailing ';' removed */
static char *
strip_sql(const char *in)
{
	char	   *out = malloc(strlen(in) + 1),
			   *o = out;
	const char *p = in;
	int			quote = 0;

	while (*p)
	{
		if (!quote && p[0] == '-' && p[1] == '-')
		{
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (*p == '\'')
			quote = !quote;
		*o++ = *p++;
	}
	*o = 0;
	while (o > out && (o[-1] == ' ' || o[-1] == '\n' || o[-1] == '\t' || o[-1] == ';'))
		*--o = 0;
	return out;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- timeout watchdog ---- */
static duckdb_connection g_con;
static double g_deadline;		/* ms, 0 = none */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

static void *
watchdog(void *arg)
{
	(void) arg;
	for (;;)
	{
		usleep(100000);
		pthread_mutex_lock(&g_mu);
		if (g_deadline > 0 && now_ms() > g_deadline)
		{
			p_interrupt(g_con);
			g_deadline = 0;
		}
		pthread_mutex_unlock(&g_mu);
	}
	return NULL;
}

static int
run_sql(const char *sql, duckdb_result *res, double timeout_s, char *err, size_t errlen)
{
	duckdb_state st;

	pthread_mutex_lock(&g_mu);
	g_deadline = timeout_s > 0 ? now_ms() + timeout_s * 1000 : 0;
	pthread_mutex_unlock(&g_mu);
	st = p_query(g_con, sql, res);
	pthread_mutex_lock(&g_mu);
	g_deadline = 0;
	pthread_mutex_unlock(&g_mu);
	if (st != DuckDBSuccess)
	{
		const char *e = p_result_error(res);

		snprintf(err, errlen, "%s", e ? e : "error");
		for (char *c = err; *c; c++)
			if (*c == '\n' || *c == '\t')
				*c = ' ';
		p_destroy_result(res);
		return 0;
	}
	return 1;
}

static void
exec_or_die(const char *sql)
{
	duckdb_result r;
	char		err[1024];

	if (!run_sql(sql, &r, 0, err, sizeof(err)))
	{
		fprintf(stderr, "duckdb_runner: %s\n  in: %.300s\n", err, sql);
		exit(1);
	}
	p_destroy_result(&r);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	const char *lib = NULL,
			   *data = NULL,
			   *schema = NULL,
			   *outdir = NULL;
	int			runs = 3,
				threads = 0,
				qstart,
				i;
	double		timeout = 0;
	void	   *h;
	duckdb_database db;
	char		buf[8192];
	pthread_t	wd;
	static const char *const tables[] = {
		"region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem"
	};

	for (i = 1; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2)
	{
		if (i + 1 >= argc)
			break;
		if (!strcmp(argv[i], "--lib"))
			lib = argv[i + 1];
		else if (!strcmp(argv[i], "--data"))
			data = argv[i + 1];
		else if (!strcmp(argv[i], "--schema"))
			schema = argv[i + 1];
		else if (!strcmp(argv[i], "--out"))
			outdir = argv[i + 1];
		else if (!strcmp(argv[i], "--runs"))
			runs = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--threads"))
			threads = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--timeout"))
			timeout = atof(argv[i + 1]);
		else
		{
			fprintf(stderr, "duckdb_runner: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	qstart = i;
	if (!lib || !data || !schema || i >= argc || runs < 1)
	{
		fprintf(stderr, "usage: duckdb_runner --lib LIB --data DIR --schema FILE [--runs N] [--threads N] "
				"[--timeout S] [--out DIR] QUERY.sql...\n");
		return 2;
	}

	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
	{
		fprintf(stderr, "duckdb_runner: %s\n", dlerror());
		return 1;
	}
	p_open = sym(h, "duckdb_open");
	p_connect = sym(h, "duckdb_connect");
	p_query = sym(h, "duckdb_query");
	p_destroy_result = sym(h, "duckdb_destroy_result");
	p_result_error = sym(h, "duckdb_result_error");
	p_row_count = sym(h, "duckdb_row_count");
	p_column_count = sym(h, "duckdb_column_count");
	p_value_varchar = sym(h, "duckdb_value_varchar");
	p_free = sym(h, "duckdb_free");
	p_disconnect = sym(h, "duckdb_disconnect");
	p_close = sym(h, "duckdb_close");
	p_interrupt = sym(h, "duckdb_interrupt");

	if (p_open(NULL, &db) != DuckDBSuccess || p_connect(db, &g_con) != DuckDBSuccess)
	{
		fprintf(stderr, "duckdb_runner: cannot open an in-memory database\n");
		return 1;
	}
	pthread_create(&wd, NULL, watchdog, NULL);
	if (threads > 0)
	{
		snprintf(buf, sizeof(buf), "SET threads = %d", threads);
		exec_or_die(buf);
	}

	/* schema: the CREATE TABLE statements of schema.sql */
	{
		char	   *s = strip_sql(read_file(schema)),
				   *stmt = strtok(s, ";");
		double		t0 = now_ms();

		for (; stmt; stmt = strtok(NULL, ";"))
		{
			while (*stmt == ' ' || *stmt == '\n' || *stmt == '\t')
				stmt++;
			if (strncasecmp(stmt, "CREATE", 6) == 0)
				exec_or_die(stmt);
		}
		for (i = 0; i < (int) (sizeof(tables) / sizeof(tables[0])); i++)
		{
			{
				/* read_csv needs literal columns: build the struct text from duckdb_columns() */
				duckdb_result r;
				char		err[1024],
							cols[4096] = "";
				idx_t		n,
							k;

				snprintf(buf, sizeof(buf),
						 "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = '%s' "
						 "ORDER BY column_index", tables[i]);
				if (!run_sql(buf, &r, 0, err, sizeof(err)))
				{
					fprintf(stderr, "duckdb_runner: %s\n", err);
					return 1;
				}
				n = p_row_count(&r);
				for (k = 0; k < n; k++)
				{
					char	   *cn = p_value_varchar(&r, 0, k),
							   *ct = p_value_varchar(&r, 1, k);

					snprintf(cols + strlen(cols), sizeof(cols) - strlen(cols), "%s'%s': '%s'",
							 k ? ", " : "", cn, ct);
					p_free(cn);
					p_free(ct);
				}
				p_destroy_result(&r);
				snprintf(buf, sizeof(buf),
						 "INSERT INTO %s SELECT * FROM read_csv('%s/%s.*.tbl', delim = '|', header = false, "
						 "quote = '', escape = '', auto_detect = false, columns = {%s})",
						 tables[i], data, tables[i], cols);
			}
			exec_or_die(buf);
		}
		fprintf(stderr, "duckdb_runner: loaded in %.1f s\n", (now_ms() - t0) / 1000);
	}

	for (int a = qstart; a < argc; a++)
	{
		const char *path = argv[a];
		char		name[256],
					err[1024] = "";
		const char *base;
		char	   *sql;
		double	   *t;
		int			r,
					ok = 1;
		idx_t		rows = 0;

		base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		snprintf(name, sizeof(name), "%s", base);
		if (strstr(name, ".sql"))
			*strstr(name, ".sql") = 0;
		sql = strip_sql(read_file(path));
		t = calloc((size_t) runs + 1, sizeof(double));
		for (r = 0; r <= runs && ok; r++)
		{
			duckdb_result res;
			double		t0 = now_ms();

			if (!run_sql(sql, &res, timeout, err, sizeof(err)))
			{
				ok = 0;
				break;
			}
			t[r] = now_ms() - t0;
			rows = p_row_count(&res);
			if (r == 0 && outdir)
			{
				char		op[4096];
				FILE	   *f;
				idx_t		nc = p_column_count(&res),
							x,
							y;

				snprintf(op, sizeof(op), "%s/%s.duckdb.out", outdir, name);
				f = fopen(op, "w");
				if (f)
				{
					for (y = 0; y < rows; y++)
					{
						for (x = 0; x < nc; x++)
						{
							char	   *v = p_value_varchar(&res, x, y);

							fprintf(f, "%s%s", x ? "|" : "", v ? v : "");
							if (v)
								p_free(v);
						}
						fputc('\n', f);
					}
					fclose(f);
				}
			}
			p_destroy_result(&res);
		}
		if (ok)
		{
			qsort(t + 1, (size_t) runs, sizeof(double), cmp_double);
			printf("%s\t%.3f\t%.3f\t%llu\t\n", name, t[0],
				   runs % 2 ? t[1 + runs / 2] : (t[runs / 2] + t[1 + runs / 2]) / 2,
				   (unsigned long long) rows);
		}
		else
			printf("%s\t\t\t\t%s\n", name, err);
		fflush(stdout);
		free(t);
		free(sql);
	}
	p_disconnect(&g_con);
	p_close(&db);
	return 0;
}
