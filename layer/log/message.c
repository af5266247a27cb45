/* message.c — stderr lines prefixed `lowlat:`; see message.h. */
#include "message.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One line: the prefix, the text, the newline. Longer text is cut. */
#define LINE_MAX_BYTES 512

static int verbosity;
static pthread_once_t verbosity_once = PTHREAD_ONCE_INIT;

/* Held lines (lowlat_msg_held). Lock: a leaf, never held while writing anything but these. */
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static char held[LOWLAT_MSG_HELD][LINE_MAX_BYTES];
static unsigned held_count, held_dropped;
static bool released;

static void hold(bool quiet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void read_verbosity(void)
{
	const char *v = getenv("LOWLAT_VERBOSE");
	char *end;
	long n;

	if (!v || !*v)
		return;
	n = strtol(v, &end, 10);
	if (*end || n < 0 || n > 2) {
		/* Not lowlat_msg_held, which asks lowlat_verbosity: inside its pthread_once. */
		hold(true, "LOWLAT_VERBOSE=%s is not 0, 1 or 2; using 0", v);
		return;
	}
	verbosity = (int)n;
}

int lowlat_verbosity(void)
{
	pthread_once(&verbosity_once, read_verbosity);
	return verbosity;
}

/* Formats `lowlat: <text><suffix>\n` into line; returns its length, 0 on a format error. */
static size_t format_line(char line[LINE_MAX_BYTES], const char *suffix, const char *fmt, va_list ap)
{
	static const char prefix[] = "lowlat: ";
	size_t len = sizeof(prefix) - 1, room = LINE_MAX_BYTES - 1; /* one byte for the newline */
	int n;

	memcpy(line, prefix, len);
	n = vsnprintf(line + len, room - len, fmt, ap);
	if (n < 0)
		return 0;
	len += (size_t)n < room - len ? (size_t)n : room - len - 1;
	if (suffix) {
		n = snprintf(line + len, room - len, "%s", suffix);
		len += n > 0 && (size_t)n < room - len ? (size_t)n : room - len - 1;
	}
	line[len++] = '\n';
	return len;
}

static void write_line(const char *line, size_t len)
{
	/* One write so concurrent lines never interleave; a short write to stderr is not worth a retry. */
	ssize_t ignored = write(STDERR_FILENO, line, len);
	(void)ignored;
}

static void vmsg(const char *suffix, const char *fmt, va_list ap)
{
	char line[LINE_MAX_BYTES];
	size_t len = format_line(line, suffix, fmt, ap);

	if (len)
		write_line(line, len);
}

void lowlat_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
}

void lowlat_msg_skipped(uint64_t skipped, const char *fmt, ...)
{
	char suffix[64];
	va_list ap;

	snprintf(suffix, sizeof(suffix), " (%llu more like it not shown)", (unsigned long long)skipped);
	va_start(ap, fmt);
	vmsg(skipped ? suffix : NULL, fmt, ap);
	va_end(ap);
}

/* Holds the line until lowlat_msg_release when `quiet` (LOWLAT_VERBOSE=0) and not released yet,
 * else writes it. */
static void vhold(bool quiet, const char *fmt, va_list ap)
{
	char line[LINE_MAX_BYTES];
	size_t len = format_line(line, NULL, fmt, ap);

	if (!len)
		return;
	pthread_mutex_lock(&held_lock);
	if (quiet && !released) {
		if (held_count < LOWLAT_MSG_HELD) {
			/* len < LINE_MAX_BYTES: room for the NUL the line itself does not carry. */
			memcpy(held[held_count], line, len);
			held[held_count++][len] = '\0';
		} else
			held_dropped++;
		pthread_mutex_unlock(&held_lock);
		return;
	}
	pthread_mutex_unlock(&held_lock);
	write_line(line, len);
}

static void hold(bool quiet, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vhold(quiet, fmt, ap);
	va_end(ap);
}

void lowlat_msg_held(const char *fmt, ...)
{
	bool quiet = lowlat_verbosity() < 1;
	va_list ap;

	va_start(ap, fmt);
	vhold(quiet, fmt, ap);
	va_end(ap);
}

void lowlat_msg_release(void)
{
	pthread_mutex_lock(&held_lock);
	if (!released) {
		released = true;
		for (unsigned i = 0; i < held_count; i++)
			write_line(held[i], strnlen(held[i], LINE_MAX_BYTES));
		if (held_dropped)
			lowlat_msg("%u more lines like these were not kept", held_dropped);
	}
	pthread_mutex_unlock(&held_lock);
}

bool lowlat_rate_pass(struct lowlat_rate_limit *rl, uint64_t *skipped)
{
	struct timespec ts;
	int64_t now_ns, next;

	uint32_t said = atomic_fetch_add_explicit(&rl->said, 1, memory_order_relaxed);

	*skipped = 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (said < LOWLAT_RATE_BURST) {
		/* The burst's last line starts the period. */
		if (said == LOWLAT_RATE_BURST - 1)
			atomic_store_explicit(&rl->next_ns, now_ns + LOWLAT_RATE_PERIOD_NS,
			                      memory_order_relaxed);
		return true;
	}
	atomic_store_explicit(&rl->said, LOWLAT_RATE_BURST, memory_order_relaxed);
	next = atomic_load_explicit(&rl->next_ns, memory_order_relaxed);
	/* Of threads racing past the period, the one whose exchange wins says the line. */
	if (now_ns < next ||
	    !atomic_compare_exchange_strong(&rl->next_ns, &next, now_ns + LOWLAT_RATE_PERIOD_NS)) {
		atomic_fetch_add_explicit(&rl->skipped, 1, memory_order_relaxed);
		return false;
	}
	*skipped = atomic_exchange_explicit(&rl->skipped, 0, memory_order_relaxed);
	return true;
}
