/* vd_check.h — the harness of the virtual display's own unit tests (test_profile.c, test_timing.c,
 * test_scanout.c): each CHECK that fails prints where and what and is counted, and the run carries
 * on; main returns vd_check_done(WHAT), which says how it went. */
#ifndef VD_CHECK_H
#define VD_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                                                          \
	do {                                                                                                 \
		if (!(cond)) {                                                                               \
			fprintf(stderr, "%s:%d: %s: CHECK(%s) failed\n", __FILE__, __LINE__, __func__,       \
			        #cond);                                                                      \
			failures++;                                                                          \
		}                                                                                            \
	} while (0)

/* The exit status: 0, after `all WHAT checks passed`, when every check held. */
static inline int vd_check_done(const char *what)
{
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("all %s checks passed\n", what);
	return 0;
}

#endif
