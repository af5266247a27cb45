/* check.h — the unit tests' harness: CHECK* record a failure with its line and carry on, so one run
 * lists every broken expectation; RUN() runs a test function and main() returns the verdict. */
#ifndef LOWLAT_CHECK_H
#define LOWLAT_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(cond)                                                                                          \
	do {                                                                                                 \
		check_count++;                                                                               \
		if (!(cond)) {                                                                               \
			check_failures++;                                                                    \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);             \
		}                                                                                            \
	} while (0)

#define CHECK_STR(got, want)                                                                                 \
	do {                                                                                                 \
		const char *got_ = (got), *want_ = (want);                                                   \
		check_count++;                                                                               \
		if (!got_ || strcmp(got_, want_)) {                                                          \
			check_failures++;                                                                    \
			fprintf(stderr, "%s:%d: %s\n  got:  %s\n  want: %s\n", __FILE__, __LINE__, #got,     \
			        got_ ? got_ : "(null)", want_);                                              \
		}                                                                                            \
	} while (0)

#define RUN(test)                                                                                            \
	do {                                                                                                 \
		int before_ = check_failures;                                                                \
		test();                                                                                      \
		printf("%s %s\n", check_failures == before_ ? "ok  " : "FAIL", #test);                       \
	} while (0)

#define CHECK_DONE() (printf("%d checks, %d failed\n", check_count, check_failures), check_failures ? 1 : 0)

#endif
