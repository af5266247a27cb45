/* pace_display.h — display-aware pacing: where on the display's refresh grid each frame should land.
 *
 * Pure C, no Vulkan, no clock, like pace.h: the caller (present.c, with VK_EXT_present_timing
 * feedback from present_timing.c) passes times in and gets target times back. Time is int64
 * nanoseconds on CLOCK_MONOTONIC.
 *
 * The grid rule (README "Display-aware pacing"). Let r = cap interval / refresh duration on a
 * fixed-rate display:
 *  - r <= 1 + 0.5%: the cap is at, above or within 0.5% under the refresh rate, which FIFO cannot
 *    exceed anyway: n = 1, a new frame every refresh.
 *  - else n = round(r); when |r - n| <= 0.5% * n the cap is taken to mean refresh/n (60 on 120 Hz,
 *    59.94 on 119.88 Hz, 40 on 120 Hz): the refresh grid, each target exactly n refreshes after the
 *    previous one, so every frame is shown for the same number of refreshes. The cap can be
 *    exceeded by at most 0.5% this way; a user asking for 60 on a 119.88 Hz screen means "every
 *    other refresh".
 *  - otherwise (117 on 120 Hz, 50 on 144 Hz) the time grid of the plain limiter, each target moved
 *    up to the first refresh at or after its time-grid point, so frames land on refreshes rather
 *    than drifting against them (a frame ready between two refreshes waits in the queue: latency
 *    that varies from frame to frame). Targets are never earlier than the time grid, so the
 *    long-run rate is the cap; 117 on 120 Hz repeats one refresh in about 40.
 * On a variable-rate display (refreshInterval = UINT64_MAX) the time grid with absolute targets.
 *
 * The release: the late wait lets the app start its next frame at (next target - lead), lead being
 * the predicted frame-start-to-ready time (a high percentile of measured ones) plus a margin; see
 * lowlat_display_lead_ns.
 */
#ifndef LOWLAT_PACE_DISPLAY_H
#define LOWLAT_PACE_DISPLAY_H

#include <stdbool.h>
#include <stdint.h>

/* How near refresh/n a cap must be to be paced on the refresh grid, in parts per million: 0.5%,
 * wide enough for 59.94 vs 60 (0.1%) and for a display that reports 119.96 Hz, narrow enough that
 * a deliberate 117-on-120 (2.5%) stays a time-grid cap. */
#define LOWLAT_REFRESH_GRID_TOLERANCE_PPM 5000

/* Frames whose frame-start-to-ready times the prediction looks at: about a second at 120 fps, so
 * a past spike leaves the window within a second. */
#define LOWLAT_READY_WINDOW 128

/* The percentile of that window taken as the prediction: 98th, the 3rd-largest of 128, so one or
 * two outliers (a page fault, a preempted thread) do not move it, three do. */
#define LOWLAT_READY_PERCENTILE 98

/* The margin added to the prediction, as a fraction of the refresh duration (1/8: 1.04 ms at
 * 120 Hz, 2.08 ms at 60 Hz, 0.23 ms at 540 Hz). It covers what the percentile does not: the sleep's
 * overshoot (p99.9 ~150 us on these VMs, FACTS.md) and frame-to-frame scatter above the 98th
 * percentile. It scales with the refresh because missing a target costs one refresh. */
#define LOWLAT_LEAD_MARGIN_DIVISOR 8

/* The n of the grid rule above: n >= 1 to pace on the refresh grid, 0 for the time grid. mfps is the
 * cap in millihertz (pace.h), refresh_ns the refresh duration (> 0). */
int64_t lowlat_refresh_multiple(uint32_t mfps, int64_t refresh_ns);

/* Refresh starts are vblank_ns + k * refresh_ns. The first at or after t_ns, and the nearest to t_ns. */
int64_t lowlat_refresh_at_or_after(int64_t t_ns, int64_t vblank_ns, int64_t refresh_ns);
int64_t lowlat_refresh_nearest(int64_t t_ns, int64_t vblank_ns, int64_t refresh_ns);

/* Measured frame-start-to-ready durations, newest replacing oldest. */
struct lowlat_ready_window {
	int64_t sample_ns[LOWLAT_READY_WINDOW];
	uint32_t count, next;
};

void lowlat_ready_note(struct lowlat_ready_window *w, int64_t sample_ns);

/* The LOWLAT_READY_PERCENTILE of the window; -1 when it is empty. */
int64_t lowlat_ready_predict(const struct lowlat_ready_window *w);

/* How long before a target the app is released: the prediction plus the margin; one refresh until
 * anything was measured (a guess that errs early: a frame ready early waits for its target). */
int64_t lowlat_display_lead_ns(const struct lowlat_ready_window *w, int64_t refresh_ns);

#endif
