/* refresh.h — refresh sources: where the "drm" pacing level gets the display's refresh clock when
 * the swapchain has no VK_EXT_present_timing (README "Display-aware pacing").
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
 * The pure part (no libdrm, no clock; unit-tested in tests/unit/test_refresh.c): the period from a
 * mode's timings and the grid kept from successive vblank samples.
 */
#ifndef LOWLAT_REFRESH_H
#define LOWLAT_REFRESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pace_display.h"

/* One reading of a source. */
struct lowlat_refresh_sample {
	int64_t period_ns; /* refresh period, 0: unknown or variable refresh */
	int64_t vblank_ns; /* CLOCK_MONOTONIC start of a recent refresh (where a new image latches) */
	uint64_t sequence; /* that refresh's number, counting up by one per refresh */
};

enum lowlat_refresh_kind {
	LOWLAT_REFRESH_NONE,
	LOWLAT_REFRESH_DRM,
	LOWLAT_REFRESH_FIXED,
};

struct lowlat_refresh_source {
	enum lowlat_refresh_kind kind;
	/* DRM: the open primary node, the CRTC chosen, its mode's period, and how long before the
	 * kernel's vblank timestamp (the end of vertical blanking, the first line's scan-out) a flip
	 * latches (at its start): the vertical blanking, (vtotal - vdisplay) lines. */
	int fd;
	uint32_t crtc_id, crtc_index;
	int64_t mode_period_ns, blanking_ns;
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

/* ---- the pure part ---- */

/* The refresh period of a display mode, in ns, exact to the mode's pixel clock: (htotal * vtotal)
 * pixels at clock_khz, halved for interlaced modes (a vblank per field), doubled for double-scan,
 * times vscan when above 1 — as the kernel's drm_mode_vrefresh counts, without its rounding to
 * whole Hz (59.94 Hz is not 60). 0 for a mode without timings. */
int64_t lowlat_mode_period_ns(uint32_t clock_khz, uint32_t htotal, uint32_t vtotal, bool interlace,
                              bool dblscan, uint32_t vscan);

/* Which of several lit screens (CRTCs, periods in ns, vrr: variable refresh on) the DRM source
 * follows: the highest refresh among those with a fixed one, the first of equals (refresh_drm.c
 * says why). -1 when none has a fixed refresh. */
int lowlat_refresh_choose(const int64_t *period_ns, const bool *vrr, unsigned count);

/* The ideal display at rate_mhz: the start of the latest refresh at or before t_ns (t_ns >= 0), its
 * number in *k, on the grid refresh k = floor(k * 1e12 / rate_mhz) ns (tests/vdisplay/scanout.c).
 * Exact without 128-bit arithmetic, for 32-bit builds. */
int64_t lowlat_fixed_vblank_ns(int64_t rate_mhz, int64_t t_ns, uint64_t *k);

/* How far a vblank sample may be off the grid the previous one predicts before the grid is given
 * up: 1% of a period (timestamps jitter by microseconds) plus 1000 ppm of the time between the two
 * samples (a display's pixel clock runs off CLOCK_MONOTONIC by up to ~100 ppm, crystal tolerance,
 * so the phase drifts that much: 1000 ppm leaves ten times that). At 120 Hz a second apart: 1.08 ms.
 * A larger error means the mode changed or the display runs variable refresh (its vblanks follow
 * the game's frames), and pacing on a stale grid would put every release at a wrong phase. */
#define LOWLAT_REFRESH_JITTER_PPM 10000
#define LOWLAT_REFRESH_DRIFT_PPM  1000

/* The grid kept from a source's samples: the latest vblank and the period. */
struct lowlat_refresh_grid {
	bool sampled;      /* a sample with a period was fed: the fields below hold the latest */
	bool known;        /* and it agreed with the one before (or was the first): a grid to pace on */
	int64_t period_ns; /* the source's period */
	int64_t vblank_ns; /* the latest vblank sampled */
	uint64_t sequence; /* its number */
};

/* Result of feeding one sample to the grid. */
enum lowlat_refresh_update {
	LOWLAT_REFRESH_UPDATE_FIRST, /* the first sample with a period: the grid starts from it */
	LOWLAT_REFRESH_UPDATE_OK,    /* on the grid: its phase moves to the new vblank */
	LOWLAT_REFRESH_UPDATE_MOVED, /* off the grid (a mode change, variable refresh): unknown now */
	LOWLAT_REFRESH_UPDATE_NONE,  /* no period (variable refresh or unknown): unknown */
};

/* Feeds one sample. A sample on the grid (the vblanks between it and the previous one, counted by
 * sequence, each one period long, within the error above) moves the grid's phase to
 * it: the phase drifts against a period rounded to ns or to the mode's kHz clock, so the newest
 * vblank is its best anchor. Off the grid, the grid is unknown until two samples in a row agree
 * with each other again. */
enum lowlat_refresh_update lowlat_refresh_grid_note(struct lowlat_refresh_grid *g,
                                                    const struct lowlat_refresh_sample *s);

/* A swapchain's "drm" pacing level (present_refresh.c). Used only inside the app's calls on the
 * swapchain, which Vulkan requires to be externally synchronised. */
struct lowlat_swapchain_refresh {
	bool active; /* a source answered at creation: the level is "drm" */
	struct lowlat_refresh_source source;
	struct lowlat_refresh_grid grid;
	int64_t sampled_ns; /* when the grid was last read */
	bool lost_told;     /* said once that the source stopped answering */
	int64_t present_ns; /* this present's entry */
	bool have_target;   /* target_ns holds the vblank the latest frame was released for */
	int64_t target_ns;
	int64_t lead_ns;       /* the lead of the latest release */
	int64_t frame_lead_ns; /* the lead the release of the frame being presented allowed for (log) */
	bool released;         /* this present's release was planned on the grid (for the log) */
	/* The release a lead before the vblank after target_ns: a wait point away from the present
	 * may release the frame after next before the next present comes (pace_display.h). */
	int64_t after_release_ns;
	/* Release-to-present-entry times of recent frames: the lead's prediction (pace_display.h). */
	struct lowlat_ready_window ready;
};

#endif
