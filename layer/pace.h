/* pace.h — the pacing core: when may the next frame go?
 *
 * Pure C, no Vulkan, no clock, no sleeping: the caller passes the current time and gets a deadline
 * back, so tests drive it with a fake timeline. Time is int64 nanoseconds on CLOCK_MONOTONIC.
 *
 * Deadlines sit on an ideal grid, target_n = anchor + n * interval, computed from the anchor each
 * time rather than by adding a rounded interval, so a fractional cap (59.94, 117.5) keeps its exact
 * long-run rate. When a frame arrives more than one interval after its target the grid is
 * re-anchored at that frame: one slow frame costs one slow frame, never a burst of fast ones. A
 * frame late by less than an interval keeps the grid (no wait), so the next one catches up.
 *
 * The core is the same for both methods; only the caller's pacing point differs. Late: after the
 * frame was handed down, the deadline is when the app may start its next frame. Early: before the
 * frame is handed down, the deadline is when it may be presented.
 *
 * A pacer belongs to one swapchain and is used by the thread presenting to it (Vulkan requires that
 * to be externally synchronised); it has no lock.
 */
#ifndef LOWLAT_PACE_H
#define LOWLAT_PACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Caps are kept in millihertz, so 59.94 and 23.976 are exact and the grid is exact rational
 * arithmetic in integers. A cap given with more decimals is rounded to 0.001 fps. */
#define LOWLAT_MFPS_PER_FPS 1000u

/* Accepted caps. Below 1 fps a frame would wait longer than the 1 s wait cap (clock.h), which lets
 * a player quit a hung game; such a cap cannot be honoured. Above 10000 fps the interval (100 us)
 * is the size of a sleep's own wake-up error and of a present call, so a cap could not be applied
 * meaningfully, and no display refreshes that fast: a value that large is a typo (1e9, an extra
 * digit). */
#define LOWLAT_FPS_MIN 1.0
#define LOWLAT_FPS_MAX 10000.0

enum lowlat_pace_method {
	LOWLAT_PACE_LATE,  /* wait after handing the frame down: lowest latency (the default) */
	LOWLAT_PACE_EARLY, /* wait before handing it down: steadier present cadence, a frame more latency */
};

struct lowlat_pacer {
	uint32_t mfps; /* the cap in millihertz; 0 = off */
	/* interval = whole_ns + rem_ns / den exactly, with rem_ns < den (den = mfps / gcd). */
	int64_t whole_ns, rem_ns, den;
	/* Next deadline: anchor_ns + offset of frame n. n stays below den: every den frames the anchor
	 * moves by exactly den intervals, which is an integer number of ns, so nothing is rounded. */
	bool anchored;
	int64_t anchor_ns, n;
	/* The last deadline returned, where a cap change re-anchors. */
	bool have_last;
	int64_t last_deadline_ns;
	uint64_t reanchors; /* times the grid was dropped because the app fell behind (summary line) */
	int64_t behind_ns;  /* how far behind its target the frame of the last re-anchor was */
	int64_t lost_ns;    /* the sum of those: time the grid gave up rather than catch up */
};

/* Off, not anchored. */
void lowlat_pacer_init(struct lowlat_pacer *pacer);

/* Changes the cap (millihertz, 0 = off) at any time. The new grid starts at the last deadline, so
 * the first frame after the change is paced by the new interval and none goes unpaced. */
void lowlat_pacer_set_mfps(struct lowlat_pacer *pacer, uint32_t mfps);

/* Called once per frame at the pacing point. Returns the absolute deadline to wait until; a value
 * <= now_ns means "go now" (also always the case when off). The deadline is never more than one
 * interval after now_ns. */
int64_t lowlat_pacer_next_deadline(struct lowlat_pacer *pacer, int64_t now_ns);

/* Parses a cap in fps, locale-independently ("59.94" whatever the game's LC_NUMERIC). Returns NULL
 * and sets *mfps (0 = off, also for NULL or empty text). On a bad value sets *mfps = 0 (off: pass
 * through) and returns msg, filled with one line naming name=text, what is wrong and what is used
 * instead. */
const char *lowlat_parse_fps(const char *name, const char *text, uint32_t *mfps, char *msg, size_t msg_size);

/* Parses "late" or "early" (NULL or empty: late). On a bad value sets late and returns msg. */
const char *lowlat_parse_method(const char *name, const char *text, enum lowlat_pace_method *method,
                                char *msg, size_t msg_size);

const char *lowlat_pace_method_name(enum lowlat_pace_method method);

#endif
