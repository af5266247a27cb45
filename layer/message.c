/* message.c — stderr lines prefixed `lowlat:`; see message.h. */
#include "message.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int verbosity;
static pthread_once_t verbosity_once = PTHREAD_ONCE_INIT;

static void read_verbosity(void)
{
	const char *v = getenv("LOWLAT_VERBOSE");
	char *end;
	long n;

	if (!v || !*v)
		return;
	n = strtol(v, &end, 10);
	if (*end || n < 0 || n > 2) {
		lowlat_msg("LOWLAT_VERBOSE=%s is not 0, 1 or 2; using 0", v);
		return;
	}
	verbosity = (int)n;
}

int lowlat_verbosity(void)
{
	pthread_once(&verbosity_once, read_verbosity);
	return verbosity;
}

void lowlat_msg(const char *fmt, ...)
{
	char line[512] = "lowlat: ";
	size_t prefix = sizeof("lowlat: ") - 1;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line + prefix, sizeof(line) - prefix - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = prefix + ((size_t)n < sizeof(line) - prefix - 1 ? (size_t)n : sizeof(line) - prefix - 2);
	line[len++] = '\n';
	/* One write so concurrent lines never interleave; a short write to stderr is not worth a retry. */
	ssize_t ignored = write(STDERR_FILENO, line, len);
	(void)ignored;
}
