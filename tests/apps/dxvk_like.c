/* dxvk_like.c — DXVK 3.x's present pattern, for issue 8's tests (see present_engine.h).
 *
 * What DXVK does, and this app with it (src/dxvk/dxvk_presenter.cpp, src/d3d11/d3d11_swapchain.cpp):
 * - the game thread waits in SyncFrameLatency for frame N - L (dxgi.maxFrameLatency, default 3);
 * - vkQueuePresentKHR runs on the submit thread, not the game thread;
 * - with present wait, the frame thread signals frame N after vkWaitForPresentKHR returns, only in
 *   FIFO and FIFO_RELAXED; without it (or in other modes), once the frame's GPU work is done;
 * - the present mode can change per present through swapchain_maintenance1 (a sync-interval change);
 * - on OUT_OF_DATE, on SUBOPTIMAL and on a size change the swapchain is destroyed and a new one
 *   made, without oldSwapchain;
 * - with dxvk.latencySleep and VK_NV_low_latency2, the game thread sleeps in vkLatencySleepNV (and
 *   waits for its timeline semaphore) before each frame, minimumIntervalUs = 1e6 / its fps limit;
 * - with V-Sync on and dxgi.tearFree = False (dxvk.conf), the swapchain is FIFO_RELAXED (--relaxed).
 *
 *   dxvk_like [--frames N] [--latency L] [--no-present-wait] [--switch-modes | --relaxed]
 *             [--resize-at N] [--latency-sleep [--latency-sleep-fps F]] --csv FILE
 *
 * Exit 0 on success, 1 on a failure, 77 when --latency-sleep is asked for and the device does not
 * offer VK_NV_low_latency2 (it prints "dxvk_like: VK_NV_low_latency2 not offered").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "present_engine.h"

static int usage(void)
{
	fprintf(stderr,
	        "usage: dxvk_like [--frames N] [--latency 1..6] [--no-present-wait] "
	        "[--switch-modes | --relaxed] [--resize-at N] [--latency-sleep [--latency-sleep-fps F]] "
	        "--csv FILE\n");
	return 2;
}

/* dxvk_like's own options. */
static int option(struct engine_options *o, const char *a, const char *v)
{
	if (!strcmp(a, "--no-present-wait"))
		return o->present_wait = false, 1;
	if (!strcmp(a, "--switch-modes"))
		return o->switch_modes = true, 1;
	if (!strcmp(a, "--resize-at") && v)
		return o->resize_at = atoi(v), 2;
	if (!strcmp(a, "--latency-sleep"))
		return o->latency_sleep = true, 1;
	if (!strcmp(a, "--latency-sleep-fps") && v)
		return o->latency_sleep_fps = (unsigned)atoi(v), 2;
	return 0;
}

static bool consistent(const struct engine_options *o)
{
	return !(o->relaxed && o->switch_modes);
}

int main(int argc, char **argv)
{
	struct engine_options o = {
	        .name = "dxvk_like",
	        .engine_name = "DXVK",
	        .frames = 300,
	        .latency = 3, /* DXGI's default maximum frame latency */
	        .present_wait = true,
	};

	return engine_main(argc, argv, &o, option, consistent, usage);
}
