/* level_drm_state.h — what a swapchain keeps for the "drm" pacing level (level_drm.h): its refresh
 * source, the grid read from it, and the release lead's samples. Part of struct lowlat_swapchain
 * (swapchain.h).
 */
#ifndef LOWLAT_LEVEL_DRM_STATE_H
#define LOWLAT_LEVEL_DRM_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "brain/pace_display.h"
#include "ready_fence.h"
#include "refresh.h"

/* A swapchain's "drm" pacing level (level_drm.c). Used only inside the app's calls on the
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
	/* Release-to-ready times of recent frames: the lead's prediction (pace_display.h). The frame
	 * being presented is sampled when its present is over (sample_due), up to sample_end_ns: its
	 * present's entry, or when its fence signalled if later. */
	struct lowlat_ready_window ready;
	bool sample_due;
	int64_t sample_end_ns;
	struct lowlat_ready_fences fences;
	/* When the frame being presented was seen done by its fence (at or before then), for the
	 * log's queue_done_ns; LOWLAT_LOG_UNKNOWN when it was not by the release. */
	int64_t ready_seen_ns;
	char what[32]; /* "swapchain WxH", for messages */
};

#endif
