/* vd_util.c — the small things every file of the layer uses: CLOCK_MONOTONIC and the one way of
 * printing a message. (Handle maps, allocation and the loader's links are layer/vulkan/plumbing.c's.) */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vd_layer.h"

int64_t vd_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void vd_msg(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n = snprintf(line, sizeof(line), "vdisplay: ");

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* One write per line, so lines of concurrent threads never interleave. */
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}
