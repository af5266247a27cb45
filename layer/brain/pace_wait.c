/* pace_wait.c — the "present-wait" level's phase; see pace_wait.h. */
#include "pace_wait.h"

#include <stdlib.h>

#include "grid.h"
#include "pace_display.h"

/* Spacings below a millisecond are no refreshes (above 1000 Hz, or two waits returning for one
 * refresh); above 100 ms (below 10 Hz, or a stall) say nothing about the grid. */
#define SPACING_MIN_NS 1000000ll   /* 1 ms */
#define SPACING_MAX_NS 100000000ll /* 100 ms */

/* The grid is used only while the frames' median spacing is within 1/20 (5%) of the cap's
 * interval: then the cap, not the frames' own cost, sets when they are shown, and the spacing is
 * the refresh (or n refreshes at a cap near refresh/n; 117 fps on 120 Hz is 2.5% off). Frames
 * slower than the cap are released at once instead: moving them to a grid of their own spacing
 * would only lock them onto it (vkcube at 540 fps on 540 Hz settled on every third refresh). */
#define GRID_TOLERANCE_DIVISOR 20

/* The lead's steps, in grid periods: a frame on time takes 1/1024 off (8 us at 120 Hz: from half a
 * period to a sixteenth in ~450 frames, 4 s), a late one adds 1/8 (1 ms at 120 Hz). In balance a
 * frame is late about once in 128 (0.8% repeats) while the lead hugs the shortest that works; the
 * frames' own jitter and the waking thread's latency keep it above that. It starts at half a
 * period (4.2 ms at 120 Hz; a heavier frame is late a few times first) and stays between a 16th of
 * a period (about a sleep's wake-up error, ~100 us on the test VMs, up to ~600 Hz) and 4 periods. */
#define LEAD_SHORTEN_DIVISOR  1024
#define LEAD_LENGTHEN_DIVISOR 8
#define LEAD_START_DIVISOR    2
#define LEAD_MIN_DIVISOR      16
#define LEAD_MAX_PERIODS      4

/* A frame seen this much after its target was shown on a later refresh: a quarter period (a frame
 * one refresh late is at least that late on a grid of up to 4 refreshes), at most 2 ms (the
 * shortest refresh lowlat expects is 2.8 ms, 360 Hz; a frame on time is seen within the waking
 * thread's latency, ~0.1 ms and rarely above 1.3 ms on the test VMs). */
#define LATE_DIVISOR 4
#define LATE_MAX_NS  2000000ll /* 2 ms */

/* A sample more than a quarter period after the predicted refresh start is a new phase (the
 * display changed, or the estimate was off), taken as it is; one closer is followed an eighth of
 * the way (about 8 frames to halve a real phase change within the quarter). */
#define PHASE_JUMP_DIVISOR   4
#define PHASE_FOLLOW_DIVISOR 8

static int compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The median spacing of successive first pixels, 0 when too few. */
static int64_t median_spacing(const struct lowlat_pw_phase *p)
{
	int64_t sorted[LOWLAT_PW_SPACINGS];
	uint32_t n = p->spacing_count;

	if (n < LOWLAT_PW_SPACINGS_MIN)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		sorted[i] = p->spacing_ns[i];
	qsort(sorted, n, sizeof(sorted[0]), compare_i64);
	return sorted[n / 2];
}

void lowlat_pw_phase_shown(struct lowlat_pw_phase *p, int64_t shown_ns)
{
	int64_t period;

	if (p->target_ns && p->period_ns) {
		int64_t late =
		        p->period_ns / LATE_DIVISOR < LATE_MAX_NS ? p->period_ns / LATE_DIVISOR : LATE_MAX_NS;
		if (shown_ns < p->target_ns + late) {
			p->hits++;
			p->lead_ns -= p->period_ns / LEAD_SHORTEN_DIVISOR;
		} else {
			p->misses++;
			p->lead_ns += p->period_ns / LEAD_LENGTHEN_DIVISOR;
		}
	}
	p->target_ns = 0;
	if (p->vblank_ns && shown_ns - p->vblank_ns >= SPACING_MIN_NS &&
	    shown_ns - p->vblank_ns <= SPACING_MAX_NS) {
		p->spacing_ns[p->spacing_next] = shown_ns - p->vblank_ns;
		p->spacing_next = (p->spacing_next + 1) % LOWLAT_PW_SPACINGS;
		if (p->spacing_count < LOWLAT_PW_SPACINGS)
			p->spacing_count++;
	}
	period = median_spacing(p);
	if (!p->period_ns || !period) {
		p->vblank_ns = shown_ns;
		p->period_ns = period;
		if (period)
			p->lead_ns = period / LEAD_START_DIVISOR;
		return;
	}
	/* The phase: a sample is a refresh start plus the waking thread's latency, never earlier.
	 * So a sample before the grid's prediction moves the grid to it at once, and one after it
	 * (latency, or the estimate's drift) only an eighth of the way: the grid follows the samples'
	 * early edge, not their average lateness, which would make every release late by it. */
	int64_t predicted = lowlat_refresh_nearest(shown_ns, p->vblank_ns, p->period_ns);
	if (shown_ns <= predicted || shown_ns - predicted >= p->period_ns / PHASE_JUMP_DIVISOR)
		p->vblank_ns = shown_ns;
	else
		p->vblank_ns = predicted + (shown_ns - predicted) / PHASE_FOLLOW_DIVISOR;
	p->period_ns = period;
	if (p->lead_ns < period / LEAD_MIN_DIVISOR)
		p->lead_ns = period / LEAD_MIN_DIVISOR;
	if (p->lead_ns > LEAD_MAX_PERIODS * period)
		p->lead_ns = LEAD_MAX_PERIODS * period;
}

void lowlat_pw_phase_forget(struct lowlat_pw_phase *p)
{
	p->target_ns = 0;
}

int64_t lowlat_pw_phase_release(struct lowlat_pw_phase *p, int64_t earliest_ns, int64_t interval_ns)
{
	int64_t off = p->period_ns - interval_ns;

	p->target_ns = 0;
	if (!p->period_ns || !p->lead_ns || interval_ns <= 0 || off > interval_ns / GRID_TOLERANCE_DIVISOR ||
	    -off > interval_ns / GRID_TOLERANCE_DIVISOR)
		return earliest_ns;
	p->target_ns = lowlat_refresh_at_or_after(earliest_ns + p->lead_ns, p->vblank_ns, p->period_ns);
	return p->target_ns - p->lead_ns;
}
