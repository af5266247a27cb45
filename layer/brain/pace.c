/* pace.c — the pacing core and the parsing of its settings; see pace.h. No Vulkan, no clock. */
#include "pace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "grid.h"

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
	p->debt_ns = 0;
	advance(p);
}

/* The release lateness within which the grid catches up (pace.h, LOWLAT_LATE_RELEASE_MAX_NS). */
static int64_t late_bound_ns(const struct lowlat_pacer *p)
{
	return p->whole_ns / 4 < LOWLAT_LATE_RELEASE_MAX_NS ? p->whole_ns / 4 : LOWLAT_LATE_RELEASE_MAX_NS;
}

/* The part of the debt this frame repays (pace.h, LOWLAT_CATCH_UP_STEP_MAX_NS): one step, or more
 * where the debt would otherwise stay above the bound. */
static int64_t repayment_ns(const struct lowlat_pacer *p)
{
	int64_t step = p->whole_ns / 32 < LOWLAT_CATCH_UP_STEP_MAX_NS ? p->whole_ns / 32
	                                                              : LOWLAT_CATCH_UP_STEP_MAX_NS;
	int64_t over = p->debt_ns - late_bound_ns(p);

	if (step > p->debt_ns)
		step = p->debt_ns;
	return over > step ? over : step;
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
	g = gcd(LOWLAT_NS_MFPS, mfps);
	p->den = mfps / g;
	p->whole_ns = LOWLAT_NS_MFPS / g / p->den;
	p->rem_ns = LOWLAT_NS_MFPS / g % p->den;
	/* Continue from the last frame's deadline so the change takes effect on the very next frame. */
	if (p->have_last)
		anchor_at(p, p->last_deadline_ns);
}

static int64_t next_deadline(struct lowlat_pacer *p, int64_t now_ns, int64_t behind_max_ns)
{
	int64_t target;

	if (!p->mfps || !p->anchored) {
		if (p->mfps)
			anchor_at(p, now_ns);
		target = now_ns;
	} else {
		/* Catch up part of the lateness of lowlat's earlier waits (lowlat_pacer_released). */
		if (p->debt_ns) {
			int64_t repay = repayment_ns(p);
			p->anchor_ns -= repay;
			p->debt_ns -= repay;
		}
		target = p->anchor_ns + offset_ns(p, p->n);
		if (now_ns - target > behind_max_ns) {
			/* More than a whole interval behind (and the caller's slack): catching up would
			 * mean a burst of unpaced frames. Start a fresh grid at this frame instead. */
			p->reanchors++;
			p->behind_ns = now_ns - target;
			p->lost_ns += p->behind_ns;
			anchor_at(p, now_ns);
			target = now_ns;
		} else if (target - now_ns > p->whole_ns + 1 + p->delay_ns) {
			/* Further ahead than one interval can only mean the caller's timeline went backwards;
			 * never make anyone wait longer than a frame for it. */
			anchor_at(p, now_ns);
			target = now_ns;
		} else {
			advance(p);
		}
	}
	p->delay_ns = 0;
	p->have_last = true;
	p->last_deadline_ns = target;
	return target;
}

int64_t lowlat_pacer_next_deadline(struct lowlat_pacer *p, int64_t now_ns)
{
	return next_deadline(p, now_ns, p->whole_ns);
}

int64_t lowlat_pacer_next_predicted_deadline(struct lowlat_pacer *p, int64_t predicted_ns, int64_t slack_ns)
{
	if (p->mfps && p->anchored && p->have_last && predicted_ns < p->last_deadline_ns)
		predicted_ns = p->last_deadline_ns;
	return next_deadline(p, predicted_ns, p->whole_ns + (slack_ns > 0 ? slack_ns : 0));
}

bool lowlat_pacer_released(struct lowlat_pacer *p, int64_t deadline_ns, int64_t released_ns)
{
	int64_t late = released_ns - deadline_ns;

	if (!p->mfps || !p->anchored || !p->have_last || deadline_ns != p->last_deadline_ns || late <= 0)
		return false;
	if (late > late_bound_ns(p)) {
		p->late_releases++;
		p->late_ns += late + p->debt_ns;
		lowlat_pacer_restart_at(p, released_ns);
		return true;
	}
	/* The grid from the release on, its ideal phase owed (repayment_ns). */
	p->anchor_ns += late;
	p->last_deadline_ns = released_ns;
	p->debt_ns += late;
	return true;
}

void lowlat_pacer_delay(struct lowlat_pacer *p, int64_t delta_ns)
{
	if (delta_ns <= 0 || !p->mfps || !p->anchored)
		return;
	p->anchor_ns += delta_ns;
	p->last_deadline_ns += delta_ns;
	/* The next deadline may then lie further ahead than one interval, on purpose. */
	p->delay_ns += delta_ns;
}

void lowlat_pacer_restart_at(struct lowlat_pacer *p, int64_t t_ns)
{
	if (!p->mfps)
		return;
	anchor_at(p, t_ns);
	p->delay_ns = 0;
	p->have_last = true;
	p->last_deadline_ns = t_ns;
}

int64_t lowlat_pacer_interval_ns(const struct lowlat_pacer *p)
{
	return p->mfps ? p->whole_ns : 0;
}

uint32_t lowlat_fps_to_mfps(double fps)
{
	/* The config module has refused anything outside 0 and LOWLAT_FPS_MIN..MAX; clamp anyway, so
	 * no caller can hand the pacer a cap it cannot hold. NaN compares false and becomes off. */
	if (!(fps > 0))
		return 0;
	if (fps < LOWLAT_FPS_MIN)
		fps = LOWLAT_FPS_MIN;
	if (fps > LOWLAT_FPS_MAX)
		fps = LOWLAT_FPS_MAX;
	return (uint32_t)(fps * LOWLAT_MFPS_PER_FPS + 0.5);
}
