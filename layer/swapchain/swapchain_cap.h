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

#include "swapchain_cap_state.h"

struct lowlat_swapchain;

/* How long after its first present a swapchain waits for its display's rate before it takes the
 * assumed one: present timing reports it at the first present or soon after, and the present-wait
 * level needs some 5 frames shown (LOWLAT_PW_SPACINGS_MIN spacings). */
#define LOWLAT_CAP_LEARN_NS 1000000000ll /* 1 s */

/* The cap in millihertz (0: none) for sc's config and display, with the lines it calls for. The one
 * place a swapchain's cap is decided (called by lowlat_swapchain_settings, swapchain_life.c). */
uint32_t lowlat_cap_mfps(struct lowlat_swapchain *sc);

/* The latency-frames cap's wait for the display timed out (within: how long, in words); after
 * LATENCY_TIMEOUTS_MAX in a row the cap is off for the swapchain. */
void lowlat_swapchain_cap_timed_out(struct lowlat_swapchain *sc, uint32_t k, const char *within);

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
