/* pace_grid.h — the one planner of releases on a display's refresh grid, for every level that
 * knows the refresh: "timing" (VK_EXT_present_timing's reports) and "drm" (a refresh source).
 * Each level brings its own observations (the refresh, a refresh start, the lead it predicts, the
 * refresh the frame just presented was planned for); the rule is the same (pace_display.h): at
 * refresh/n a target every n refreshes in phase with the display, otherwise the time grid moved
 * to the refresh each point can make. Pure C, no Vulkan, no clock.
 */
#ifndef LOWLAT_PACE_GRID_H
#define LOWLAT_PACE_GRID_H

#include <stdbool.h>
#include <stdint.h>

#include "pace.h"

struct lowlat_grid_in {
	int64_t refresh_ns; /* the refresh duration; on a variable-rate display the shortest */
	int64_t vblank_ns;  /* a refresh start: the grid's phase (unused on VRR) */
	bool vrr;
	int64_t n;       /* lowlat_refresh_multiple: n >= 1 the refresh grid, 0 the time grid */
	int64_t lead_ns; /* how long before its target a frame is released */
	int64_t now_ns;  /* the pacing point */
	/* The refresh the frame just presented is to be shown on, INT64_MIN when it has none (the
	 * grid starts, or restarts, from now). */
	int64_t current_ns;
	/* The CPU pacer's release of the previous frame, 0 when the grid released it: the grid then
	 * continues an interval after that release rather than from now. */
	int64_t cpu_release_ns;
	/* Refreshes to hold the next frames back once, to drain frames queued behind V-Sync. */
	int64_t backlog_refreshes;
};

struct lowlat_grid_plan {
	int64_t target_ns; /* the next frame's target */
	int64_t after_ns;  /* the target after it, for a wait point that claims two ahead */
};

/* Plans the next frame's target on the grid (the pacer is the time grid's, in ready times: moved
 * here). Its release is target_ns - lead_ns. */
void lowlat_grid_plan(struct lowlat_pacer *pacer, const struct lowlat_grid_in *in,
                      struct lowlat_grid_plan *out);

#endif
