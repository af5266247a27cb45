/* wait_point_state.h — what a swapchain keeps of the app's game thread as lowlat's wait point
 * (wait_point.h): where the app sleeps, its own cap, its latency reports. Part of struct
 * lowlat_swapchain (swapchain.h).
 */
#ifndef LOWLAT_WAIT_POINT_STATE_H
#define LOWLAT_WAIT_POINT_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "brain/pace.h"
#include "brain/pace_display.h"

/* Where the app's game thread sleeps for a swapchain, lowlat's wait point there (the present's wait is
 * then skipped): vkLatencySleepNV (latency_sleep.c) or vkAntiLagUpdateAMD at its input stage
 * (anti_lag.c). */
enum lowlat_wait_point {
	LOWLAT_POINT_PRESENT, /* none of them: the present (or the app's present wait) waits */
	LOWLAT_POINT_LATENCY_SLEEP,
	LOWLAT_POINT_ANTI_LAG,
};

/* Presents without a latency sleep after which the swapchain's wait point is its present again.
 * DXVK presents once between two sleeps (it sleeps only after the previous present returned);
 * 3 leaves room for a late sleep without flipping the wait point back and forth. */
#define LOWLAT_SLEEPLESS_PRESENTS 3

/* Latency reports kept per swapchain for vkGetLatencyTimingsNV: the spec's own limit (64). */
#define LOWLAT_LATENCY_REPORTS 64

/* One frame's markers, in microseconds on CLOCK_MONOTONIC; 0 where the app set none. */
struct lowlat_latency_report {
	uint64_t present_id;
	uint64_t input_us, sim_start_us, sim_end_us, submit_start_us, submit_end_us, present_start_us,
	        present_end_us;
};

/* Per swapchain. Every field is guarded by the device's latency lock (the game thread sleeps, the
 * submit thread presents, and either may set the mode). */
struct lowlat_swapchain_latency {
	/* The app sleeps for it (vkLatencySleepNV, or vkAntiLagUpdateAMD with this swapchain the
	 * device's anti-lag one): lowlat waits there, not in present. */
	enum lowlat_wait_point point;
	enum lowlat_wait_point last_point; /* the latest it slept at, for the summary */
	/* Presents since its latest sleep: an app that stops sleeping (DXVK turns latency sleep off
	 * when the game's Reflex setting does) gets the present's wait back after a few. */
	uint32_t presents_since_sleep;
	bool announced;
	uint64_t point_presents; /* presents seen by the wait-point check: the busiest gets anti-lag's */
	bool low_latency_mode, boost;
	bool stack_limiters;           /* the swapchain's config's, copied here under the lock by present.c */
	uint32_t min_interval_us;      /* the app's minimumIntervalUs */
	struct lowlat_pacer app_pacer; /* its grid */
	bool app_paces_told;           /* the one line saying lowlat adds no cap over the app's */
	/* The latest sleep's wait, for the log record of the present that follows it. */
	bool have_wait;
	int64_t wait_begin_ns, wait_end_ns, target_ns;
	/* On the display grid (VK_EXT_present_timing; present.c plans, lowlat_point_plan): the
	 * releases the presents planned, one taken per sleep and counted to the frame it lets start
	 * (pace_display.h); claim_ordinal: the latest sleep's claim, 0 when it took none. */
	struct lowlat_display_claims claims;
	uint64_t claim_ordinal;
	uint64_t sleeps, paced_sleeps;
	struct lowlat_latency_report reports[LOWLAT_LATENCY_REPORTS];
	uint32_t report_next, report_count;
};

#endif
