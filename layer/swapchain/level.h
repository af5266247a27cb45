/* level.h — a pacing level: where a swapchain's releases come from, behind one small interface.
 *
 * A swapchain gets its level once, at creation (swapchain_life.c, from the best the device and surface
 * allow down): "timing" (VK_EXT_present_timing: target display times on the refresh grid, and the
 * display's reports of when frames were ready and shown), "present-wait" (lowlat's own present ids
 * and waits: the latency cap and the refresh phase its waits return at), "drm" (the screen's
 * refresh clock, read from a refresh source) or "cpu" (the CPU clock alone). The present hook
 * (present.c) runs each present through the same steps, asking the level at each one:
 *   observe  on entry, before anything goes down: read what the level learns from (its refresh
 *            source);
 *   grid     the release on the level's own grid: when the app may start its next frame (late
 *            method), or when this frame goes down (early); false when the level cannot plan this
 *            present (the refresh not known yet, a mode that takes no targets): the CPU grid
 *            (level_cpu.c) plans it then, as it plans every present of the "cpu" level;
 *   hold     a wait the level makes inside the present before the call's wait;
 *   starts_at_return  whether the release needs the present's return as the frame's start;
 *   settle   what the level keeps after the call's wait;
 *   log      its columns of the present log row;
 *   done     the present is over (its log row is known).
 * Every step is optional (NULL: nothing to do).
 */
#ifndef LOWLAT_LEVEL_H
#define LOWLAT_LEVEL_H

#include <stdbool.h>
#include <stdint.h>

struct lowlat_frame;      /* present_call.h */
struct lowlat_log_record; /* lowlat_log.h */
struct lowlat_swapchain;  /* swapchain.h */

struct lowlat_level {
	const char *name;
	void (*observe)(struct lowlat_frame *f);
	/* Sets f->release_ns, f->after_ns and f->grid for the present at now_ns. */
	bool (*grid)(struct lowlat_frame *f, int64_t now_ns);
	/* Returns the release, later or as it was. */
	int64_t (*hold)(struct lowlat_frame *f, int64_t release_ns);
	/* Whether the frame's release, as planned, needs this present's return as the frame's start:
	 * the level learns its lead from when each frame starts, which is that return only when the
	 * release is waited for in the present. Such a release is not handed to a present-wait thread
	 * without a release after it planned (present.c). NULL: never. */
	bool (*starts_at_return)(const struct lowlat_frame *f);
	void (*settle)(struct lowlat_frame *f);
	void (*log)(const struct lowlat_frame *f, struct lowlat_log_record *rec);
	/* The present is over; row: its log row, LOWLAT_LOG_UNKNOWN when not logged. */
	void (*done)(struct lowlat_frame *f, int64_t row);
};

extern const struct lowlat_level lowlat_level_timing;       /* level_timing.c */
extern const struct lowlat_level lowlat_level_present_wait; /* level_wait.c */
extern const struct lowlat_level lowlat_level_drm;          /* level_drm.c */
extern const struct lowlat_level lowlat_level_cpu;          /* level_cpu.c */

#endif
