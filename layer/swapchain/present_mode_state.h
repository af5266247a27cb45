/* present_mode_state.h — what a swapchain keeps of its present mode policy (present_mode.h). Part of
 * struct lowlat_swapchain (swapchain.h).
 */
#ifndef LOWLAT_PRESENT_MODE_STATE_H
#define LOWLAT_PRESENT_MODE_STATE_H

#include "vk_compat.h"

/* How a swapchain's present mode is chosen (present_mode.h). */
enum lowlat_mode_policy {
	LOWLAT_MODES_KEEP,   /* the mode it was created with (the app's, or chosen once at creation) */
	LOWLAT_MODES_FORCED, /* an explicit present_mode, at creation and in every per-present mode */
	LOWLAT_MODES_SWITCH, /* auto with swapchain_maintenance1: FIFO or FIFO_LATEST_READY per present */
};

struct lowlat_swapchain_modes {
	enum lowlat_mode_policy policy;
	VkPresentModeKHR app_mode; /* the app's latest: its create mode, then its per-present modes */
	VkPresentModeKHR forced;   /* LOWLAT_MODES_FORCED */
};

#endif
