/* swapchain.h — what lowlat keeps per swapchain. Its life (created after the driver created the
 * swapchain, its pacing level chosen then, destroyed with one summary line before the driver
 * destroys it) is swapchain_life.c's.
 *
 * Each swapchain has its own pacer, sleeper and copy of the settings, used only by the thread
 * presenting to it (Vulkan requires presents and acquires of one swapchain to be externally
 * synchronised), so two swapchains of one device may present from two threads at once. State a
 * level or wait point keeps lives in that module's own struct, embedded here from its state header
 * (present_timing_state.h and the like), which includes nothing of the module's: the modules
 * include this header, never the other way.
 */
#ifndef LOWLAT_SWAPCHAIN_H
#define LOWLAT_SWAPCHAIN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "brain/pace.h"
#include "brain/pace_wait.h"
#include "clock.h"
#include "id_map.h"
#include "level_drm_state.h"
#include "lowlat_config.h"
#include "objects.h"
#include "present_mode_state.h"
#include "present_timing_state.h"
#include "present_wait_state.h"
#include "swapchain_cap_state.h"
#include "wait_point_state.h"

struct lowlat_level; /* level.h */
struct lowlat_log;   /* log.h */

struct lowlat_swapchain {
	VkSwapchainKHR handle;
	struct lowlat_device *device;
	VkExtent2D extent;
	VkFormat format;
	/* The mode the driver created it with (lowlat's choice, which may differ from the app's). */
	VkPresentModeKHR present_mode;
	/* The mode of its latest present (VkSwapchainPresentModeInfoKHR may switch it per present). */
	VkPresentModeKHR current_mode;
	struct lowlat_swapchain_modes modes;
	uint32_t image_count;
	/* How it is paced (level.h), chosen once at creation. */
	const struct lowlat_level *level;

	/* Counters for the summary line, written by the presenting thread. */
	uint64_t presents;
	uint64_t present_errors;
	uint64_t timed_presents; /* presents that carried a display target (present_timing) */
	/* The latency-frames cap (max_latency_frames): releases it held back until an earlier frame was
	 * shown, and those of them that gave up waiting (timed out). */
	uint64_t latency_waits, latency_timeouts;
	/* Releases it let go with the frame just presented late and unshown, in FIFO_LATEST_READY,
	 * where the next frame takes its place (level_timing.c); those that waited for an earlier
	 * frame first are in latency_waits too. */
	uint64_t latency_superseded;
	uint32_t latency_timeouts_in_row; /* reset by a wait that ends in time */
	bool latency_off;                 /* given up: the display stopped reporting */
	int64_t first_present_ns, last_present_ns;

	/* Pacing state of the presenting thread. `config` is this swapchain's copy of the process's
	 * settings, brought up to date at its presents when config_generation falls behind (config.h). */
	struct lowlat_pacer pacer;
	struct lowlat_sleeper sleeper;
	struct lowlat_config config;
	uint64_t config_generation;

	/* The present log (log.c), NULL when logging is off; frame_start_ns is when the app got
	 * control back from its previous present, the start of the frame being presented. */
	struct lowlat_log *log;
	int64_t frame_start_ns;
	/* Time the app spent inside vkAcquireNextImage(2)KHR on this swapchain since frame_start_ns:
	 * waiting for the display to give an image back, which is no part of the frame's own work (the
	 * levels take it out of their ready-time samples). Acquires and presents of one swapchain are
	 * externally synchronised, so they never overlap. */
	int64_t acquire_blocked_ns;

	/* The "timing" level: VK_EXT_present_timing's reports and the plan on the display's grid. */
	struct lowlat_swapchain_timing timing;
	/* The "drm" level: the refresh clock of the screen (level_drm.c). */
	struct lowlat_swapchain_refresh refresh;
	/* The "present-wait" level: the driver sees only lowlat's present ids on this swapchain
	 * (present_ids.h); present_id is the id of the present in progress, 0 when it has none of
	 * ours. ids_owned is written by the present thread only before the swapchain is published
	 * and when a present cannot be copied (it then stays false); pw_phase is the level's phase
	 * against the refresh, from lowlat's own waits (pace_wait.h). */
	_Atomic bool ids_owned; /* atomic: the app's waiting thread reads it */
	struct lowlat_id_map ids;
	uint64_t present_id;
	struct lowlat_pw_phase pw_phase;

	/* This swapchain's latest release of the app, and whether a grid (true) or the CPU pacer set
	 * it: a present that switches paths (a per-present mode change, the refresh becoming known)
	 * continues from it rather than restarting from "now". */
	int64_t last_release_ns;
	bool last_release_display;
	/* Wait points away from the present: the app's own present wait (present_wait.c) and its
	 * VK_NV_low_latency2 sleep or anti-lag input call (latency_sleep.c). */
	struct lowlat_present_wait present_wait;
	struct lowlat_swapchain_latency latency;
	/* The app's own present-timing targets (brain/timing.c, lowlat_tb_app_target): said once; how
	 * many stood (later than the cap's grid) and how many lowlat's target replaced. */
	bool app_targets_told;
	uint64_t app_targets_kept, app_targets_moved;
	/* Its cap against the display's rate, its line, its `lowlat status` slot (swapchain_cap.h). */
	struct lowlat_swapchain_cap cap;
};

/* The swapchain's record, NULL when lowlat does not track it. */
static inline struct lowlat_swapchain *lowlat_swapchain_of(struct lowlat_device *device,
                                                           VkSwapchainKHR swapchain)
{
	return lowlat_map_find(&device->swapchains, (uint64_t)swapchain);
}

/* The release of the app the swapchain asked for, where the next path or swapchain continues: grid
 * when a display's or the screen's refresh grid set it, not the CPU pacer. */
static inline void lowlat_swapchain_released(struct lowlat_swapchain *sc, int64_t release_ns, bool grid)
{
	sc->last_release_ns = release_ns;
	sc->last_release_display = grid;
	atomic_store_explicit(&sc->device->last_release_ns, release_ns, memory_order_relaxed);
}

/* Whether a present mode waits for the refresh (the modes that may carry present-timing targets). */
static inline bool lowlat_mode_is_fifo(VkPresentModeKHR mode)
{
	return mode == VK_PRESENT_MODE_FIFO_KHR || mode == VK_PRESENT_MODE_FIFO_RELAXED_KHR ||
	       mode == VK_PRESENT_MODE_FIFO_LATEST_READY_KHR;
}

#endif
