/* vkd3d_like.c — vkd3d-proton's present pattern, for issue 8's tests (see present_engine.h).
 *
 * What vkd3d-proton's DXGI swapchain does, and this app with it:
 * - the game thread waits for its own latency frames (VKD3D_SWAPCHAIN_LATENCY_FRAMES, 3 by default,
 *   here --latency) before it starts a frame;
 * - a queue thread presents with present ids that increase but are not contiguous;
 * - a dedicated swapchain-sync thread waits for each present with vkWaitForPresentKHR and then
 *   releases the game thread;
 * - where the device offers VK_EXT_present_timing it sets target times of its own
 *   (VkPresentTimingsInfoEXT, absolute, nearest refresh cycle) on its own grid: --target-fps
 *   frames per second, n refreshes a frame, in phase with the last present wait. A layer above
 *   must leave those targets alone;
 * - in FIFO_LATEST_READY (--latest-ready) it does not wait for presents: the frame's GPU work
 *   releases the game thread.
 *
 * - with --timing-queries it enables VK_EXT_present_timing without setting targets, asks for each
 *   present's first pixel and reads the reports back itself (vkGetPastPresentationTimingEXT),
 *   printing their median spacing: what the app itself sees of its pacing.
 *
 * - --relaxed: a FIFO_RELAXED swapchain, which vkd3d-proton does not make; for the tests that need
 *   an app reading its own reports back in that mode (an app with adaptive V-Sync).
 *
 *   vkd3d_like [--frames N] [--latency L] [--target-fps F] [--latest-ready | --relaxed]
 *              [--timing-queries] --csv FILE
 *
 * Exit 0 on success, 1 on a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "present_engine.h"

static int usage(void)
{
	fprintf(stderr, "usage: vkd3d_like [--frames N] [--latency 1..6] [--target-fps F] "
	                "[--latest-ready | --relaxed] [--timing-queries] --csv FILE\n");
	return 2;
}

/* vkd3d_like's own options. */
static int option(struct engine_options *o, const char *a, const char *v)
{
	if (!strcmp(a, "--target-fps") && v)
		return o->target_fps = atof(v), 2;
	if (!strcmp(a, "--latest-ready"))
		return o->latest_ready = true, 1;
	if (!strcmp(a, "--timing-queries"))
		return o->timing_queries = true, 1;
	return 0;
}

static bool consistent(const struct engine_options *o)
{
	return o->target_fps >= 0 && !(o->relaxed && o->latest_ready);
}

int main(int argc, char **argv)
{
	struct engine_options o = {
	        .name = "vkd3d_like",
	        .engine_name = "vkd3d",
	        .frames = 300,
	        .latency = 3, /* VKD3D_SWAPCHAIN_LATENCY_FRAMES' default */
	        .present_wait = true,
	        .skip_ids = true,
	};

	return engine_main(argc, argv, &o, option, consistent, usage);
}
