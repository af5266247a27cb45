/* pace.c — the pacing core and the parsing of its settings; see pace.h. No Vulkan, no clock. */
#include "pace.h"

#include <ctype.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

/* Nanoseconds per second times millihertz per hertz: interval_ns = NS_MFPS / mfps. */
#define NS_MFPS 1000000000000ll /* 1e9 ns/s * 1000 mHz/Hz */

static int64_t gcd(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

void lowlat_pacer_init(struct lowlat_pacer *p)
{
	*p = (struct lowlat_pacer){0};
}

/* Offset of grid point n from the anchor, floor(n * interval). Overflow-free: n < den <= 1e7 (mfps
 * <= 10000 fps * 1000) and whole_ns <= 1e9 (>= 1 fps), so both products stay below 1e17. */
static int64_t offset_ns(const struct lowlat_pacer *p, int64_t n)
{
	return n * p->whole_ns + n * p->rem_ns / p->den;
}

static void advance(struct lowlat_pacer *p)
{
	if (++p->n == p->den) {
		/* den intervals are exactly den * whole + rem ns: move the anchor there, losing nothing. */
		p->anchor_ns += offset_ns(p, p->den);
		p->n = 0;
	}
}

/* Grid point 0 at t; the next deadline is one interval later. */
static void anchor_at(struct lowlat_pacer *p, int64_t t_ns)
{
	p->anchored = true;
	p->anchor_ns = t_ns;
	p->n = 0;
	advance(p);
}

void lowlat_pacer_set_mfps(struct lowlat_pacer *p, uint32_t mfps)
{
	int64_t g;

	if (mfps > (uint32_t)(LOWLAT_FPS_MAX * LOWLAT_MFPS_PER_FPS))
		mfps = (uint32_t)(LOWLAT_FPS_MAX * LOWLAT_MFPS_PER_FPS);
	if (mfps && mfps < (uint32_t)(LOWLAT_FPS_MIN * LOWLAT_MFPS_PER_FPS))
		mfps = (uint32_t)(LOWLAT_FPS_MIN * LOWLAT_MFPS_PER_FPS);
	/* The same cap again keeps the grid. */
	if (mfps == p->mfps)
		return;
	p->mfps = mfps;
	p->anchored = false;
	if (!mfps)
		return;
	g = gcd(NS_MFPS, mfps);
	p->den = mfps / g;
	p->whole_ns = NS_MFPS / g / p->den;
	p->rem_ns = NS_MFPS / g % p->den;
	/* Continue from the last frame's deadline so the change takes effect on the very next frame. */
	if (p->have_last)
		anchor_at(p, p->last_deadline_ns);
}

int64_t lowlat_pacer_next_deadline(struct lowlat_pacer *p, int64_t now_ns)
{
	int64_t target;

	if (!p->mfps || !p->anchored) {
		if (p->mfps)
			anchor_at(p, now_ns);
		target = now_ns;
	} else {
		target = p->anchor_ns + offset_ns(p, p->n);
		if (now_ns - target > p->whole_ns) {
			/* More than a whole interval behind: catching up would mean a burst of unpaced
			 * frames. Start a fresh grid at this frame instead. */
			p->reanchors++;
			p->behind_ns = now_ns - target;
			p->lost_ns += p->behind_ns;
			anchor_at(p, now_ns);
			target = now_ns;
		} else if (target - now_ns > p->whole_ns + 1) {
			/* Further ahead than one interval can only mean the caller's timeline went backwards;
			 * never make anyone wait longer than a frame for it. */
			anchor_at(p, now_ns);
			target = now_ns;
		} else {
			advance(p);
		}
	}
	p->have_last = true;
	p->last_deadline_ns = target;
	return target;
}

/* strtod in the "C" locale: a game that called setlocale() must not turn "59.94" into an error. */
static double strtod_c(const char *text, char **end)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	double v;

	if (!c)
		return strtod(text, end);
	v = strtod_l(text, end, c);
	freelocale(c);
	return v;
}

#define OFF_TEXT "the limiter is off (frames pass through)"

const char *lowlat_parse_fps(const char *name, const char *text, uint32_t *mfps, char *msg, size_t msg_size)
{
	char *end;
	double fps;

	*mfps = 0;
	if (!text || !*text)
		return NULL;
	fps = strtod_c(text, &end);
	while (end != text && isspace((unsigned char)*end))
		end++;
	if (end == text || *end) {
		snprintf(msg, msg_size, "%s=%s is not a number; " OFF_TEXT, name, text);
		return msg;
	}
	if (isnan(fps) || isinf(fps)) {
		snprintf(msg, msg_size, "%s=%s is not a finite number; " OFF_TEXT, name, text);
		return msg;
	}
	if (fps < 0) {
		snprintf(msg, msg_size, "%s=%s is negative; " OFF_TEXT, name, text);
		return msg;
	}
	if (fps == 0)
		return NULL;
	if (fps < LOWLAT_FPS_MIN) {
		snprintf(msg, msg_size,
		         "%s=%s is below %g fps, the slowest cap lowlat can hold (a single wait is capped at "
		         "1 s); "
		         "use 0 for off; " OFF_TEXT,
		         name, text, LOWLAT_FPS_MIN);
		return msg;
	}
	if (fps > LOWLAT_FPS_MAX) {
		snprintf(msg, msg_size, "%s=%s is above %g fps, the highest cap lowlat accepts; " OFF_TEXT,
		         name, text, LOWLAT_FPS_MAX);
		return msg;
	}
	*mfps = (uint32_t)(fps * LOWLAT_MFPS_PER_FPS + 0.5);
	return NULL;
}

const char *lowlat_parse_method(const char *name, const char *text, enum lowlat_pace_method *method,
                                char *msg, size_t msg_size)
{
	*method = LOWLAT_PACE_LATE;
	if (!text || !*text || !strcasecmp(text, "late"))
		return NULL;
	if (!strcasecmp(text, "early")) {
		*method = LOWLAT_PACE_EARLY;
		return NULL;
	}
	snprintf(msg, msg_size, "%s=%s is not late or early; using late", name, text);
	return msg;
}

const char *lowlat_pace_method_name(enum lowlat_pace_method method)
{
	return method == LOWLAT_PACE_EARLY ? "early" : "late";
}
