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

int main(int argc, char **argv)
{
	struct engine_options o = {
	        .name = "dxvk_like",
	        .engine_name = "DXVK",
	        .frames = 300,
	        .latency = 3, /* DXGI's default maximum frame latency */
	        .present_wait = true,
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--frames") && v)
			o.frames = atoi(v), i++;
		else if (!strcmp(a, "--latency") && v)
			o.latency = atoi(v), i++;
		else if (!strcmp(a, "--no-present-wait"))
			o.present_wait = false;
		else if (!strcmp(a, "--switch-modes"))
			o.switch_modes = true;
		else if (!strcmp(a, "--relaxed"))
			o.relaxed = true;
		else if (!strcmp(a, "--resize-at") && v)
			o.resize_at = atoi(v), i++;
		else if (!strcmp(a, "--latency-sleep"))
			o.latency_sleep = true;
		else if (!strcmp(a, "--latency-sleep-fps") && v)
			o.latency_sleep_fps = (unsigned)atoi(v), i++;
		else if (!strcmp(a, "--csv") && v)
			o.csv = v, i++;
		else
			return usage();
	}
	if (!o.csv || o.frames < 1 || o.frames > 100000 || o.latency < 1 || o.latency > 6 ||
	    (o.relaxed && o.switch_modes))
		return usage();
	return engine_run(&o);
}
