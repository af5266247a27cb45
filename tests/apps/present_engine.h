/* present_engine.h — the threads of a Proton-style present path, shared by dxvk_like.c and
 * vkd3d_like.c (issue 8's coverage apps).
 *
 * Both engines split a frame over three threads: the game thread (which the app's own code runs on)
 * waits in a latency counter until frame N - L has been signalled, records when it starts frame N
 * and hands it on; a submit thread (DXVK's submit/CS thread, vkd3d-proton's queue thread)
 * acquires, records a clear, submits and calls vkQueuePresentKHR; a frame thread (DXVK's frame
 * thread, vkd3d-proton's swapchain-sync thread) waits for the present with vkWaitForPresentKHR in
 * FIFO and FIFO_RELAXED (else for the frame's GPU work, through its fence) and then signals the
 * counter. What differs between the engines (ids, modes, targets, latency sleep, recreates) is in
 * struct engine_options; each app's main() sets them as that engine does.
 *
 * The app runs on a headless surface (VK_EXT_headless_surface), meant for the virtual display
 * (tests/vdisplay), which gives it present id/wait, swapchain_maintenance1 and present timing.
 * It writes one CSV row per frame and one summary line on stdout. CSV columns (times: ns on
 * CLOCK_MONOTONIC, 0 when it did not happen): frame (from 1), swapchain (0 for the first, +1 per
 * recreate), present_id (0 without VK_KHR_present_id), mode, result (of vkQueuePresentKHR),
 * start_ns (the game thread began the frame, after its latency wait and sleep), present_ns and
 * release_ns (the submit thread called vkQueuePresentKHR and got control back), waited_ns (the
 * frame thread's vkWaitForPresentKHR returned), signal_ns (the frame thread signalled the frame),
 * target_ns (the app's own present-timing target).
 */
#ifndef LOWLAT_TEST_PRESENT_ENGINE_H
#define LOWLAT_TEST_PRESENT_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

/* The exit status meson reads as "skipped". */
#define ENGINE_EXIT_SKIP 77

struct engine_options {
	const char *name;        /* prefix of every output line, and VkApplicationInfo's app name */
	const char *engine_name; /* VkApplicationInfo's pEngineName: "DXVK", "vkd3d" */
	int frames;
	int latency;        /* the game thread starts frame N once frame N - latency has been signalled */
	bool present_wait;  /* signal frames after vkWaitForPresentKHR where offered (FIFO modes) */
	bool switch_modes;  /* cycle FIFO, FIFO_RELAXED, IMMEDIATE per present (swapchain_maintenance1) */
	int resize_at;      /* recreate the swapchain at this size change (0: never) */
	bool latency_sleep; /* vkLatencySleepNV on the game thread (VK_NV_low_latency2) */
	unsigned latency_sleep_fps; /* minimumIntervalUs = 1e6 / this (0: no interval) */
	bool skip_ids;              /* present ids increase but skip values, as vkd3d-proton's do */
	bool latest_ready; /* a FIFO_LATEST_READY swapchain (no present wait there: the fence signals) */
	/* a FIFO_RELAXED swapchain: DXVK with V-Sync on and dxgi.tearFree = False (dxvk.conf), SDL's
	 * adaptive V-Sync */
	bool relaxed;
	double target_fps; /* own VK_EXT_present_timing targets at this rate on the refresh grid (0: none) */
	/* VK_EXT_present_timing enabled, first pixels asked for on every present and read back with
	 * vkGetPastPresentationTimingEXT, no targets: vkd3d-proton wherever the extension is offered. */
	bool timing_queries;
	const char *csv; /* where the per-frame rows go */
};

/* Runs the engine; returns the process exit status (0, 1 on a failure, ENGINE_EXIT_SKIP when a
 * requested extension is not offered, with one line saying which). */
int engine_run(const struct engine_options *o);

/* An app's main: parses the options every app takes (--frames N, --latency 1..6, --relaxed,
 * --csv FILE) and the app's own through OPTION, which sets what argument A (with V the next
 * argument, or NULL) asks for and returns how many arguments it took (0: not its option); then
 * runs the engine when --csv was given, the numbers are in range and CONSISTENT (the app's own
 * checks) holds, else returns USAGE(). */
int engine_main(int argc, char **argv, struct engine_options *o,
                int (*option)(struct engine_options *o, const char *a, const char *v),
                bool (*consistent)(const struct engine_options *o), int (*usage)(void));

#endif
