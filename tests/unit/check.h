/* check.h — the unit tests' harness, the smallest that says what failed: each CHECK prints
 * file:line and the expression (with both values for the _EQ and _STR forms), counts the failure and
 * carries on, so one run lists every broken expectation. RUN() runs a test function and prints its
 * verdict; main returns check_result(). */
#ifndef LOWLAT_CHECK_H
#define LOWLAT_CHECK_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int check_failures, check_count;

#define CHECK(cond)                                                                                          \
	do {                                                                                                 \
		check_count++;                                                                               \
		if (!(cond)) {                                                                               \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);             \
			check_failures++;                                                                    \
		}                                                                                            \
	} while (0)

#define CHECK_EQ_I64(a, b)                                                                                   \
	do {                                                                                                 \
		int64_t a_ = (a), b_ = (b);                                                                  \
		check_count++;                                                                               \
		if (a_ != b_) {                                                                              \
			fprintf(stderr, "%s:%d: %s == %s failed: %" PRId64 " != %" PRId64 "\n", __FILE__,    \
			        __LINE__, #a, #b, a_, b_);                                                   \
			check_failures++;                                                                    \
		}                                                                                            \
	} while (0)

#define CHECK_STR(got, want)                                                                                 \
	do {                                                                                                 \
		const char *got_ = (got), *want_ = (want);                                                   \
		check_count++;                                                                               \
		if (!got_ || !want_ || strcmp(got_, want_)) {                                                \
			fprintf(stderr, "%s:%d: %s\n  got:  %s\n  want: %s\n", __FILE__, __LINE__, #got,     \
			        got_ ? got_ : "(null)", want_ ? want_ : "(null)");                           \
			check_failures++;                                                                    \
		}                                                                                            \
	} while (0)

#define RUN(test)                                                                                            \
	do {                                                                                                 \
		int before_ = check_failures;                                                                \
		test();                                                                                      \
		printf("%s %s\n", check_failures == before_ ? "ok  " : "FAIL", #test);                       \
	} while (0)

/* Writes TEXT to PATH, for the tests of the config files; a failed open is a failed check. */
static inline void check_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A config home for the tests of the config files: DIR (a mkdtemp template) made, with
 * lowlat/default.json holding JSON; PATH (SIZE bytes) gets that file's path. False when DIR cannot be
 * made. */
static inline bool check_config_home(char *dir, char *path, size_t size, const char *json)
{
	if (!mkdtemp(dir))
		return false;
	snprintf(path, size, "%s/lowlat", dir);
	mkdir(path, 0700);
	snprintf(path, size, "%s/lowlat/default.json", dir);
	check_write_file(path, json);
	return true;
}

/* The exit status: 0 when every check held. */
static inline int check_result(void)
{
	printf("%d checks, %d failed\n", check_count, check_failures);
	return check_failures ? 1 : 0;
}

#endif
