/* swapchain_cap_state.h — what a swapchain keeps of its cap (swapchain_cap.h): the display rate it
 * was resolved against, the line said, its `lowlat status` slot. Part of struct lowlat_swapchain
 * (swapchain.h).
 */
#ifndef LOWLAT_SWAPCHAIN_CAP_STATE_H
#define LOWLAT_SWAPCHAIN_CAP_STATE_H

#include <stdbool.h>
#include <stdint.h>

struct lowlat_live;

/* Where a swapchain's display rate came from. */
enum lowlat_rate_source {
	LOWLAT_RATE_UNKNOWN,
	LOWLAT_RATE_TIMING,       /* VK_EXT_present_timing's refresh duration */
	LOWLAT_RATE_DRM,          /* the refresh source's mode period ("drm" level) */
	LOWLAT_RATE_PRESENT_WAIT, /* first pixels' spacing seen by lowlat's present waits */
};

struct lowlat_swapchain_cap {
	bool created; /* creation is over: the level is chosen, lines may be said */
	bool dirty;   /* resolve again at the next present */
	/* A relative cap waiting for the display's rate: uncapped meanwhile (provisional), until
	 * learn_until_ns (set at the first present), after which learn_over takes the assumed rate. */
	bool provisional, learn_over;
	int64_t learn_until_ns;
	/* The rate the cap was last resolved against. */
	enum lowlat_rate_source source;
	int64_t refresh_ns; /* 0: unknown */
	bool vrr;
	int64_t pw_period_ns;     /* the present-wait level's measured rate, kept once learned */
	const char *timing_why;   /* why not "timing" (a constant string), for the line */
	bool told;                /* the line was said */
	uint32_t told_mfps;       /* the cap it said, to tell a change */
	struct lowlat_live *live; /* its `lowlat status` slot, NULL when none was free */
};

#endif
