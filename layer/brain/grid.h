/* grid.h — the display's refresh grid, its one owner: a refresh period (of a display mode, of a
 * rate) and phase (a refresh start), the refresh at or after a time and the nearest one, the ideal
 * display's refresh starts, the choice among several lit screens, and the grid kept from a refresh
 * source's successive readings. Pure C, no Vulkan, no clock; unit-tested in tests/unit/test_refresh.c
 * and test_pace_display.c. The pacing decisions on the grid are pace_display.h's and pace_grid.h's;
 * the sources that read it are display/refresh.h's (and refresh_drm.h's for DRM).
 */
#ifndef LOWLAT_GRID_H
#define LOWLAT_GRID_H

#include <stdbool.h>
#include <stdint.h>

/* Nanoseconds per second times millihertz per hertz: something at rate_mhz (a refresh, a cap's
 * frame) lasts LOWLAT_NS_MFPS / rate_mhz ns. */
#define LOWLAT_NS_MFPS 1000000000000ll

/* Refresh starts are vblank_ns + k * refresh_ns (refresh_ns > 0). The first at or after t_ns, and
 * the nearest to t_ns. */
int64_t lowlat_refresh_at_or_after(int64_t t_ns, int64_t vblank_ns, int64_t refresh_ns);
int64_t lowlat_refresh_nearest(int64_t t_ns, int64_t vblank_ns, int64_t refresh_ns);

/* One reading of a source. */
struct lowlat_refresh_sample {
	int64_t period_ns; /* refresh period, 0: unknown or variable refresh */
	int64_t vblank_ns; /* CLOCK_MONOTONIC start of a recent refresh (where a new image latches) */
	uint64_t sequence; /* that refresh's number, counting up by one per refresh */
};

/* The refresh period of a display mode, in ns, exact to the mode's pixel clock: (htotal * vtotal)
 * pixels at clock_khz, halved for interlaced modes (a vblank per field), doubled for double-scan,
 * times vscan when above 1 — as the kernel's drm_mode_vrefresh counts, without its rounding to
 * whole Hz (59.94 Hz is not 60). 0 for a mode without timings. */
int64_t lowlat_mode_period_ns(uint32_t clock_khz, uint32_t htotal, uint32_t vtotal, bool interlace,
                              bool dblscan, uint32_t vscan);

/* The refresh period at rate_mhz (> 0), in ns, rounded to the nearest: the ideal display's. */
int64_t lowlat_rate_period_ns(int64_t rate_mhz);

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

#endif
