/* fps_refresh.c — caps as a share of the refresh rate; see fps_refresh.h. */
#include "fps_refresh.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>

#include "number.h"

#define PREFIX     "refresh"
#define PREFIX_LEN (sizeof(PREFIX) - 1)

bool lowlat_fps_refresh_form(const char *text)
{
	return text && !strncasecmp(text, PREFIX, PREFIX_LEN);
}

/* The whole of `text` as a finite number, in the C locale. */
static bool number(const char *text, double *out)
{
	char *end;

	if (!*text || *text == ' ' || *text == '+' || *text == '-')
		return false;
	errno = 0;
	*out = lowlat_strtod_c(text, &end);
	return end != text && !*end && errno != ERANGE && isfinite(*out);
}

const char *lowlat_fps_refresh_parse(const char *text, enum lowlat_fps_base *base, double *n)
{
	const char *rest = text + PREFIX_LEN;
	double v;

	if (!lowlat_fps_refresh_form(text))
		return "is not a number, \"refresh\", \"refresh/N\" or \"refresh-N\"";
	switch (*rest) {
	case '\0':
		*base = LOWLAT_FPS_REFRESH_DIV;
		*n = 1;
		return NULL;
	case '/':
		if (!number(rest + 1, &v) || v != floor(v) || v < 1 || v > LOWLAT_FPS_DIVISOR_MAX)
			return "is not \"refresh/N\" with N a whole number from 1 to 100";
		*base = LOWLAT_FPS_REFRESH_DIV;
		*n = v;
		return NULL;
	case '-':
		if (!number(rest + 1, &v) || v < 0 || v > LOWLAT_FPS_MINUS_MAX)
			return "is not \"refresh-N\" with N a number from 0 to 10000";
		*base = LOWLAT_FPS_REFRESH_MINUS;
		*n = v;
		return NULL;
	default: return "is not \"refresh\", \"refresh/N\" or \"refresh-N\"";
	}
}

void lowlat_fps_describe(const struct lowlat_config *cfg, bool off_note, char *dst, size_t size)
{
	switch (cfg->fps_base) {
	case LOWLAT_FPS_REFRESH_DIV:
		if (cfg->fps_n == 1)
			snprintf(dst, size, "refresh");
		else
			snprintf(dst, size, "refresh/%g", cfg->fps_n);
		return;
	case LOWLAT_FPS_REFRESH_MINUS: snprintf(dst, size, "refresh-%g", cfg->fps_n); return;
	case LOWLAT_FPS_ABSOLUTE: break;
	}
	snprintf(dst, size, off_note && cfg->fps == 0 ? "%g (off)" : "%g", cfg->fps);
}

bool lowlat_fps_equal(const struct lowlat_config *a, const struct lowlat_config *b)
{
	if (a->fps_base != b->fps_base)
		return false;
	return a->fps_base == LOWLAT_FPS_ABSOLUTE ? a->fps == b->fps : a->fps_n == b->fps_n;
}

double lowlat_refresh_hz(int64_t refresh_ns)
{
	return refresh_ns > 0 ? round(1e12 / (double)refresh_ns) / 1000 : 0;
}

double lowlat_fps_resolve(const struct lowlat_config *cfg, int64_t refresh_ns)
{
	/* The exact rate, not the rounded one messages show: 119.88 Hz / 2 must stay 59.94. */
	double hz = 1e9 / (double)(refresh_ns > 0 ? refresh_ns : LOWLAT_FPS_ASSUMED_REFRESH_NS), fps;

	switch (cfg->fps_base) {
	case LOWLAT_FPS_REFRESH_DIV: fps = hz / cfg->fps_n; break;
	case LOWLAT_FPS_REFRESH_MINUS: fps = hz - cfg->fps_n; break;
	default: return cfg->fps;
	}
	if (!(fps >= LOWLAT_FPS_MIN))
		return 0;
	return fps > LOWLAT_FPS_MAX ? LOWLAT_FPS_MAX : fps;
}
