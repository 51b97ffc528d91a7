/*
 * tm_unit.h — minimal harness for the engine unit tests (test/unit/test_*.c with gcc, gpu_*.cu with nvcc).
 *
 *   #include "tm_unit.h"
 *   static void test_add(void) { TM_CHECK(1 + 1 == 2); TM_CHECK_INT_EQ(2 + 2, 4); }
 *   int main(void) { TM_RUN(test_add); return tm_unit_done(); }
 *
 * Every check counts as one test.  tm_unit_done() prints the closing line "N passed, N failed" that
 * test/unit/harness/run.sh (make unittest) reads, and returns the exit status (1 if anything failed).
 */
#ifndef THEMIS_TM_UNIT_H
#define THEMIS_TM_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <inttypes.h>

/* the tests' deterministic random numbers: one xorshift64 step of *state (each file keeps its own seed) */
static inline uint64_t
tm_unit_xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static int	tm_unit_passed = 0;
static int	tm_unit_failed = 0;
static const char *tm_unit_current = "";

/* record one check; on failure print where, what (expr) and the details (printf format and args) */
#define TM_CHECK_EXPR_MSG(ok, expr, ...) \
	do { \
		if (ok) \
			tm_unit_passed++; \
		else \
		{ \
			tm_unit_failed++; \
			printf("FAIL %s:%d [%s]: %s: ", __FILE__, __LINE__, tm_unit_current, expr); \
			printf(__VA_ARGS__); \
			printf("\n"); \
		} \
	} while (0)

#define TM_CHECK_MSG(cond, ...) TM_CHECK_EXPR_MSG((cond), #cond, __VA_ARGS__)

#define TM_CHECK(cond) TM_CHECK_EXPR_MSG((cond), #cond, "false")

#define TM_CHECK_INT_EQ(a, b) \
	do { \
		int64_t tm_a_ = (int64_t) (a), tm_b_ = (int64_t) (b); \
		TM_CHECK_EXPR_MSG(tm_a_ == tm_b_, #a " == " #b, "%" PRId64 " != %" PRId64, tm_a_, tm_b_); \
	} while (0)

#define TM_CHECK_STR_EQ(a, b) \
	do { \
		const char *tm_a_ = (a), *tm_b_ = (b); \
		TM_CHECK_EXPR_MSG(strcmp(tm_a_, tm_b_) == 0, #a " == " #b, "\"%s\" != \"%s\"", tm_a_, tm_b_); \
	} while (0)

/* text of len bytes equal to the C string s */
#define TM_CHECK_BYTES_EQ(p, len, s) \
	do { \
		const char *tm_p_ = (const char *) (p), *tm_s_ = (s); \
		int tm_l_ = (int) (len); \
		TM_CHECK_EXPR_MSG(tm_l_ == (int) strlen(tm_s_) && memcmp(tm_p_, tm_s_, tm_l_) == 0, \
						  #p " == " #s, "\"%.*s\" != \"%s\"", tm_l_, tm_p_, tm_s_); \
	} while (0)

/* TM_UNIT_TRACE set in the environment: each test's name and time go to stderr (to find a slow one);
 * TM_UNIT_ONLY="test_a test_b": only the tests whose names occur in it run */
#define TM_RUN(fn) \
	do { \
		struct timespec tm_t0_, tm_t1_; \
		int tm_trace_ = getenv("TM_UNIT_TRACE") != NULL; \
		const char *tm_only_ = getenv("TM_UNIT_ONLY"); \
		if (tm_only_ != NULL && *tm_only_ != '\0' && strstr(tm_only_, #fn) == NULL) \
			break; \
		tm_unit_current = #fn; \
		if (tm_trace_) { fprintf(stderr, "-- %s ...\n", #fn); clock_gettime(CLOCK_MONOTONIC, &tm_t0_); } \
		fn(); \
		if (tm_trace_) { clock_gettime(CLOCK_MONOTONIC, &tm_t1_); \
			fprintf(stderr, "-- %s %.3f s\n", #fn, (tm_t1_.tv_sec - tm_t0_.tv_sec) + (tm_t1_.tv_nsec - tm_t0_.tv_nsec) / 1e9); } \
		tm_unit_current = ""; \
	} while (0)

static inline int
tm_unit_done(void)
{
	printf("%d passed, %d failed\n", tm_unit_passed, tm_unit_failed);
	fflush(stdout);
	return tm_unit_failed > 0 ? 1 : 0;
}

#endif							/* THEMIS_TM_UNIT_H */
