/* check.h — the smallest test harness that says what failed: each CHECK prints file:line and the
 * expression (with values for the _EQ forms) and counts the failure; main returns check_result(). */
#ifndef LOWLAT_CHECK_H
#define LOWLAT_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                                          \
	do {                                                                                                 \
		if (!(cond)) {                                                                               \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);             \
			check_failures++;                                                                    \
		}                                                                                            \
	} while (0)

#define CHECK_EQ_I64(a, b)                                                                                   \
	do {                                                                                                 \
		int64_t a_ = (a), b_ = (b);                                                                  \
		if (a_ != b_) {                                                                              \
			fprintf(stderr, "%s:%d: %s == %s failed: %" PRId64 " != %" PRId64 "\n", __FILE__,    \
			        __LINE__, #a, #b, a_, b_);                                                   \
			check_failures++;                                                                    \
		}                                                                                            \
	} while (0)

#define CHECK_STR(a, b)                                                                                      \
	do {                                                                                                 \
		const char *a_ = (a), *b_ = (b);                                                             \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                                          \
			fprintf(stderr, "%s:%d: %s == %s failed:\n  got      \"%s\"\n  expected \"%s\"\n",   \
			        __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");         \
			check_failures++;                                                                    \
		}                                                                                            \
	} while (0)

#define RUN(test)                                                                                            \
	do {                                                                                                 \
		int before_ = check_failures;                                                                \
		test();                                                                                      \
		fprintf(stderr, "%s %s\n", check_failures == before_ ? "ok  " : "FAIL", #test);              \
	} while (0)

static inline int check_result(void)
{
	if (check_failures)
		fprintf(stderr, "%d check(s) failed\n", check_failures);
	return check_failures ? 1 : 0;
}

#endif
