/* swapchain_cap.h — the cap a swapchain paces at, and the one line that tells the player about it.
 *
 * A cap may be a share of the display's refresh rate ("refresh/2", fps_refresh.h), which each
 * swapchain resolves against the rate it learns: VK_EXT_present_timing's refresh duration (the
 * "timing" level; on a variable-rate display the shortest, so "refresh-3" stays inside the range),
 * the DRM CRTC's mode period (the "drm" level's grid), or the spacing of first pixels its own
 * present waits see while its first frames run uncapped (the "present-wait" level; measured once,
 * since a capped game's frames no longer show each refresh). Until the rate is known the game runs
 * uncapped, at most LOWLAT_CAP_LEARN_NS after its first present; a rate still unknown then (or on
 * the "cpu" level, where nothing reports one) is taken as 60 Hz, and the line says so.
 *
 * The line, at the default level, once per swapchain when it is first capped, e.g.
 *   lowlat: 1920x1080: capped at 60 fps (refresh/2 of 120 Hz, from present timing), paced on the
 *   display's refresh (present timing)
 * with, when pacing is degraded, the reason it is not on present timing. Later changes of the cap
 * (`lowlat ctl`, a reload, a new rate) are said at LOWLAT_VERBOSE=1.
 */
#ifndef LOWLAT_SWAPCHAIN_CAP_H
#define LOWLAT_SWAPCHAIN_CAP_H

#include <stdbool.h>
#include <stdint.h>

struct lowlat_swapchain;
struct lowlat_live;

/* How long after its first present a swapchain waits for its display's rate before it takes the
 * assumed one: present timing reports it at the first present or soon after, and the present-wait
 * level needs some 5 frames shown (LOWLAT_PW_SPACINGS_MIN spacings). */
#define LOWLAT_CAP_LEARN_NS 1000000000ll /* 1 s */

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

/* The cap in millihertz (0: none) for sc's config and display, with the lines it calls for. The one
 * place a swapchain's cap is decided (called by lowlat_swapchain_settings, swapchain.c). */
uint32_t lowlat_cap_mfps(struct lowlat_swapchain *sc);

/* Whether lowlat_cap_mfps must run again although the config did not change: the display's rate
 * moved, was learned, or was waited for long enough. An atomic-free check of a few fields for an
 * absolute cap. */
bool lowlat_cap_stale(struct lowlat_swapchain *sc);

/* At the end of the swapchain's creation (its level chosen; timing_why: why not "timing"): the
 * process becomes a game (config.h, lowlat_config_global_started), the swapchain gets a status
 * slot, and its cap is resolved again at its first present, which says the line. */
void lowlat_cap_created(struct lowlat_swapchain *sc, const char *timing_why);

/* A present of sc at t_ns, for `lowlat status`. */
void lowlat_cap_present(struct lowlat_swapchain *sc, int64_t t_ns);

/* Before sc is freed. */
void lowlat_cap_destroyed(struct lowlat_swapchain *sc);

#endif
