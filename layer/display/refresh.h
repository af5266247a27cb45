/* refresh.h — refresh sources: where the "drm" pacing level gets the display's refresh clock when
 * the swapchain has no VK_EXT_present_timing (docs/design.md, "Pacing levels").
 *
 * A source answers two things, without blocking: the refresh period (0 when unknown or variable)
 * and the CLOCK_MONOTONIC time of a recent vblank (the start of a refresh). Two kinds, one tagged
 * struct (no allocation, no function pointers to go stale):
 *  - DRM (refresh_drm.c): the active CRTC of /dev/dri/card*, read with DRM ioctls without DRM
 *    master: the period from its mode's timings, the vblank from DRM_IOCTL_CRTC_GET_SEQUENCE.
 *  - fixed (refresh.c): an ideal display at a given rate whose refresh k starts at
 *    k * 1e12 / rate_mHz ns, the virtual display's grid (tests/vdisplay). A test and debug hook,
 *    since no machine we test on has /dev/dri.
 * Which one is named by the environment variable LOWLAT_REFRESH_SOURCE (lowlat_refresh_open), a
 * hook for tests and debugging, not a player's setting:
 *   unset or "drm"  the primary nodes /dev/dri/card*
 *   "drm:DIR"       the primary nodes DIR/card* (a test points it at an empty directory)
 *   "fixed:HZ"      the ideal display at HZ (decimals allowed: 59.94), vblank 0 at time 0
 *   "none"          no source: the level is off
 *
 * The pure part (a reading, a mode's period, the grid kept from readings) is brain/grid.h.
 */
#ifndef LOWLAT_REFRESH_H
#define LOWLAT_REFRESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brain/grid.h"
#include "refresh_drm.h"

enum lowlat_refresh_kind {
	LOWLAT_REFRESH_NONE,
	LOWLAT_REFRESH_DRM,
	LOWLAT_REFRESH_FIXED,
};

struct lowlat_refresh_source {
	enum lowlat_refresh_kind kind;
	struct lowlat_drm_source drm;
	/* fixed: the rate in millihertz (as the virtual display takes it). */
	int64_t rate_mhz;
	/* What it is, for the pacing-level line: "DRM card0 CRTC 51, 2560x1440 at 143.912 Hz". */
	char name[112];
};

/* Opens the source LOWLAT_REFRESH_SOURCE names (spec: its value, NULL when unset). Once per
 * swapchain creation: a few syscalls, never a wait. Returns false with why (a full sentence part,
 * e.g. "no DRM primary node (card*) in /dev/dri") and s->kind NONE when there is none. */
bool lowlat_refresh_open(struct lowlat_refresh_source *s, const char *spec, char *why, size_t why_size);

/* Reads the latest vblank (now_ns: the caller's clock reading, for the fixed source). One ioctl for
 * DRM, non-blocking. false: the source cannot answer now (the CRTC was turned off, the device is
 * gone). */
bool lowlat_refresh_read(struct lowlat_refresh_source *s, int64_t now_ns, struct lowlat_refresh_sample *out);

void lowlat_refresh_close(struct lowlat_refresh_source *s);

#endif
