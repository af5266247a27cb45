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

#include "lowlat_config.h"

/* Caps are kept in millihertz, so 59.94 and 23.976 are exact and the grid is exact rational
 * arithmetic in integers. A cap given with more decimals is rounded to 0.001 fps. */
#define LOWLAT_MFPS_PER_FPS 1000u

/* The accepted range of caps (LOWLAT_FPS_MIN..LOWLAT_FPS_MAX) and the pacing methods are the
 * config's (lowlat_config.h); this core only applies them. */

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
	uint64_t reanchors;     /* times the grid was dropped because the app fell behind (summary line) */
	int64_t behind_ns;      /* how far behind its target the frame of the last re-anchor was */
	int64_t lost_ns;        /* the sum of those: time the grid gave up rather than catch up */
	uint64_t late_releases; /* releases later than the bound, whose lateness the grid gave up */
	int64_t late_ns;        /* the sum of what was given up (summary line) */
	int64_t delay_ns;       /* lowlat_pacer_delay since the last deadline: allowed beyond one interval */
	int64_t debt_ns;        /* lateness of lowlat's own waits the grid has yet to catch up */
};

/* Off, not anchored. */
void lowlat_pacer_init(struct lowlat_pacer *pacer);

/* Changes the cap (millihertz, 0 = off) at any time. The new grid starts at the last deadline, so
 * the first frame after the change is paced by the new interval and none goes unpaced. */
void lowlat_pacer_set_mfps(struct lowlat_pacer *pacer, uint32_t mfps);

/* Called once per frame at the pacing point. Returns the absolute deadline to wait until; a value
 * <= now_ns means "go now" (also always the case when off). The deadline is never more than one
 * interval after now_ns, but for a lowlat_pacer_delay made since the previous call. */
int64_t lowlat_pacer_next_deadline(struct lowlat_pacer *pacer, int64_t now_ns);

/* lowlat_pacer_next_deadline on a timeline of predicted times: present.c's display time grid paces
 * when frames will be ready, now plus a predicted lead. A prediction that shrank (a slow stretch
 * left its window) moves that time back by up to the shrink, which is no timeline gone backwards:
 * the grid goes on from the last deadline rather than restarting at the earlier time, which would
 * put the next target before the last one. Falling behind re-anchors as there, but only beyond an
 * interval plus slack_ns (>= 0): a caller whose targets are rounded up to a refresh passes one
 * refresh, since a frame moved to the next refresh leaves the frames after it that far behind
 * their grid points without anything lost yet. Within that the grid keeps its phase and the
 * returned deadline is behind predicted_ns; the caller shows the frame when it can be ready. */
int64_t lowlat_pacer_next_predicted_deadline(struct lowlat_pacer *pacer, int64_t predicted_ns,
                                             int64_t slack_ns);

/* How late lowlat's own wait may end before the grid goes on from the release instead: a quarter
 * of the interval, at most 1 ms. Later is a preemption no spin tail hides, a hitch worth one
 * interval rather than two; shorter is a loaded machine's ordinary wake-up noise, which the grid
 * catches up so it stays exact (a 50 us bound moved the grid for a third of frames under ASan). */
#define LOWLAT_LATE_RELEASE_MAX_NS 1000000ll

/* How fast the grid catches up lateness within that bound: each following interval at most this
 * much short of the cap's, at most 50 us (1/32 of the interval above 625 fps): a late wake-up is
 * then one long interval and no short one, where catching up in one frame made a second hitch. */
#define LOWLAT_CATCH_UP_STEP_MAX_NS 50000ll

/* Tells the pacer when the frame it gave deadline_ns (its last deadline) was actually released, by
 * lowlat's own wait. The grid then goes on from the release, one interval after it, rather than
 * releasing the next frame early to catch up all at once: a late release is one long interval,
 * catching up in one frame would add a short one right after it, a second hitch.
 * - Within the bound above, the lateness is a debt the next frames repay, each at most
 *   LOWLAT_CATCH_UP_STEP_MAX_NS short, so the long-run rate stays exact. The grid trails its ideal
 *   by at most the bound: beyond that it catches up faster, as much as it must, so lateness that
 *   comes with every frame (a loaded machine, ASan) is caught up as it comes, frame by frame.
 * - Later than the bound, the lateness (and any debt) is given up: that costs the long-run rate,
 *   only where a release was that late, and is counted in late_releases / late_ns.
 * Lateness of the app (a present after its deadline) is not this: its grid stays, up to a whole
 * interval (lowlat_pacer_next_deadline). Returns true when the grid moved to the release. */
bool lowlat_pacer_released(struct lowlat_pacer *pacer, int64_t deadline_ns, int64_t released_ns);

/* Moves the whole grid delta_ns later (delta_ns > 0): the next deadline, and every one after it.
 * The display-aware pacer uses it to let a queue of frames behind V-Sync drain (present.c). */
void lowlat_pacer_delay(struct lowlat_pacer *pacer, int64_t delta_ns);

/* Continues the grid from a deadline that was met elsewhere: the next deadline is one interval
 * after t_ns. For a swapchain whose frames were paced by another path (the display grid, another
 * swapchain of the same device) up to t_ns. Not a re-anchor: nothing was lost. */
void lowlat_pacer_restart_at(struct lowlat_pacer *pacer, int64_t t_ns);

/* The cap's interval, rounded down to whole ns; 0 when off. */
int64_t lowlat_pacer_interval_ns(const struct lowlat_pacer *pacer);

/* A cap in fps, as the config delivers it, in millihertz for lowlat_pacer_set_mfps: 0 for off (0,
 * negative, NaN), clamped to LOWLAT_FPS_MIN..MAX, rounded to 0.001 fps. */
uint32_t lowlat_fps_to_mfps(double fps);

#endif
