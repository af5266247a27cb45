/* latency_sleep.c — a game loop in DXVK's shape that sleeps through VK_NV_low_latency2, to test the
 * extension as lowlat provides it (issue 8).
 *
 * The game thread (main) sleeps with vkLatencySleepNV before each frame, records its frame start,
 * sets the simulation markers and hands the frame to a submit thread, which acquires, submits
 * (vkQueueSubmit2 with VkLatencySubmissionPresentIdNV first in the chain) and presents, as DXVK's
 * submit thread does; like DXVK the game thread sleeps for frame k+1 only after present k returned.
 * The swapchain is created with VkSwapchainLatencyCreateInfoNV, the surface asked for
 * VkLatencySurfaceCapabilitiesNV, and at the end vkGetLatencyTimingsNV is read back. Needs present
 * ids below (the virtual display), since lowlat offers the extension only then.
 *
 *   latency_sleep MODE FRAMES INTERVAL_US STARTS_FILE
 *
 * MODE: `wait` waits for the sleep's semaphore value with vkWaitSemaphores (DXVK's way: lowlat's
 * precise wait then runs on this thread); `poll` never calls vkWaitSemaphores and polls the counter
 * every 100 us instead (lowlat's signaler thread must then send the signal); `stop` waits like
 * `wait` for the first half of the frames and then stops sleeping (lowlat's wait must go back to
 * the present, which the game thread waits for before each frame). INTERVAL_US is
 * minimumIntervalUs (0 = none). STARTS_FILE gets one frame start per line (ns, CLOCK_MONOTONIC).
 * Prints `latency_sleep: N frames in S s, F fps` and `latency_sleep: timings N, ...`; exits 1 with a
 * `latency_sleep: ...` message when a Vulkan call fails or a check of its own fails.
 *
 *   latency_sleep antilag|antilag-off FRAMES MAX_FPS STARTS_FILE
 *
 * The same loop through VK_AMD_anti_lag instead (offered by a layer below, Mesa's anti-lag layer):
 * the game thread calls vkAntiLagUpdateAMD with stage INPUT and mode ON before each frame, the
 * submit thread the same with stage PRESENT before vkQueuePresentKHR, both with the frame's index;
 * MAX_FPS is VkAntiLagDataAMD::maxFPS (0 = none). `antilag-off` passes mode OFF from half way on
 * (the present must then wait again at once). No VK_NV_low_latency2 is enabled then.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "common.h"

#define CHECK_VK(call) CHECK_VK_OR_EXIT("latency_sleep", call)

#define MAX_IMAGES FRAMES_MAX
/* Frames in flight between the game thread and the submit thread: DXVK's one, with
 * dxgi.maxFrameLatency = 1. */
#define POLL_NS 100000 /* 100 us between counter polls in `poll` mode */

static void fail(const char *what)
{
	fprintf(stderr, "latency_sleep: %s\n", what);
	exit(1);
}

struct app {
	struct headless h;
	VkSemaphore latency; /* the timeline vkLatencySleepNV signals */
	PFN_vkSetLatencySleepModeNV SetLatencySleepModeNV;
	PFN_vkLatencySleepNV LatencySleepNV;
	PFN_vkSetLatencyMarkerNV SetLatencyMarkerNV;
	PFN_vkGetLatencyTimingsNV GetLatencyTimingsNV;
	/* VK_AMD_anti_lag instead of VK_NV_low_latency2 (the antilag modes). */
	bool anti_lag;
	PFN_vkAntiLagUpdateAMD AntiLagUpdateAMD;
	uint32_t max_fps;
	bool off; /* mode OFF from now on (antilag-off, half way); written by the game thread */

	/* Game thread -> submit thread: the frame to present (0 = none yet), the last presented. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t to_present, presented;
	bool quit;
};

static void create(struct app *a)
{
	static const char *const extra[] = {VK_KHR_GET_SURFACE_CAPABILITIES_2_EXTENSION_NAME};
	CHECK_VK(headless_open(&a->h, "latency_sleep", extra, 1));

	/* The extension must be listed, also when the app's array is too small for the whole list. */
	uint32_t count = 0;
	CHECK_VK(vkEnumerateDeviceExtensionProperties(a->h.physical, NULL, &count, NULL));
	VkExtensionProperties *props = calloc(count, sizeof(*props));
	uint32_t fewer = count - 1;
	if (!props ||
	    vkEnumerateDeviceExtensionProperties(a->h.physical, NULL, &fewer, props) != VK_INCOMPLETE ||
	    fewer != count - 1)
		fail("vkEnumerateDeviceExtensionProperties with a short array did not return VK_INCOMPLETE");
	CHECK_VK(vkEnumerateDeviceExtensionProperties(a->h.physical, NULL, &count, props));
	bool found = false;
	const char *wanted =
	        a->anti_lag ? VK_AMD_ANTI_LAG_EXTENSION_NAME : VK_NV_LOW_LATENCY_2_EXTENSION_NAME;
	for (uint32_t i = 0; i < count; i++)
		found = found || !strcmp(props[i].extensionName, wanted);
	free(props);
	if (!found) {
		fprintf(stderr, "latency_sleep: the device does not list %s\n", wanted);
		exit(1);
	}
	VkPhysicalDeviceAntiLagFeaturesAMD anti_lag = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ANTI_LAG_FEATURES_AMD};
	if (a->anti_lag) {
		VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
		                                .pNext = &anti_lag};
		vkGetPhysicalDeviceFeatures2(a->h.physical, &f2);
		if (!anti_lag.antiLag)
			fail("VK_AMD_anti_lag is listed but its antiLag feature is not");
	}

	VkPhysicalDevicePresentIdFeaturesKHR id = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR,
	        .pNext = a->anti_lag ? &anti_lag : NULL,
	        .presentId = VK_TRUE};
	VkPhysicalDeviceVulkan13Features v13 = {.sType =
	                                                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
	                                        .pNext = &id,
	                                        .synchronization2 = VK_TRUE};
	VkPhysicalDeviceVulkan12Features v12 = {.sType =
	                                                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
	                                        .pNext = &v13,
	                                        .timelineSemaphore = VK_TRUE};
	const char *device_exts[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME, VK_KHR_PRESENT_ID_EXTENSION_NAME,
	                             wanted};
	CHECK_VK(headless_device_create(&a->h, device_exts, 3, &v12));
	if (a->anti_lag) {
		a->AntiLagUpdateAMD =
		        (PFN_vkAntiLagUpdateAMD)vkGetDeviceProcAddr(a->h.device, "vkAntiLagUpdateAMD");
		if (!a->AntiLagUpdateAMD)
			fail("vkAntiLagUpdateAMD is not reachable");
	}
	a->SetLatencySleepModeNV =
	        (PFN_vkSetLatencySleepModeNV)vkGetDeviceProcAddr(a->h.device, "vkSetLatencySleepModeNV");
	a->LatencySleepNV = (PFN_vkLatencySleepNV)vkGetDeviceProcAddr(a->h.device, "vkLatencySleepNV");
	a->SetLatencyMarkerNV =
	        (PFN_vkSetLatencyMarkerNV)vkGetDeviceProcAddr(a->h.device, "vkSetLatencyMarkerNV");
	a->GetLatencyTimingsNV =
	        (PFN_vkGetLatencyTimingsNV)vkGetDeviceProcAddr(a->h.device, "vkGetLatencyTimingsNV");
	if (!a->anti_lag && (!a->SetLatencySleepModeNV || !a->LatencySleepNV || !a->SetLatencyMarkerNV ||
	                     !a->GetLatencyTimingsNV))
		fail("the VK_NV_low_latency2 commands are not reachable");

	/* The surface's low-latency present modes, first in the chain (the usual place). */
	VkPresentModeKHR modes[8];
	VkLatencySurfaceCapabilitiesNV lc = {.sType = VK_STRUCTURE_TYPE_LATENCY_SURFACE_CAPABILITIES_NV};
	VkSurfaceCapabilities2KHR caps = {.sType = VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_2_KHR,
	                                  .pNext = &lc};
	VkPhysicalDeviceSurfaceInfo2KHR si = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SURFACE_INFO_2_KHR,
	                                      .surface = a->h.surface};
	if (a->anti_lag) {
		/* No VK_NV_low_latency2 here: the struct would be invalid. */
		caps.pNext = NULL;
		CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilities2KHR(a->h.physical, &si, &caps));
		lc.presentModeCount = 1;
		modes[0] = VK_PRESENT_MODE_FIFO_KHR;
	} else
		CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilities2KHR(a->h.physical, &si, &caps));
	if (!lc.presentModeCount || lc.presentModeCount > 8)
		fail("VkLatencySurfaceCapabilitiesNV gave no present modes");
	lc.pPresentModes = modes;
	if (!a->anti_lag)
		CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilities2KHR(a->h.physical, &si, &caps));
	bool fifo = false;
	for (uint32_t i = 0; i < lc.presentModeCount; i++)
		fifo = fifo || modes[i] == VK_PRESENT_MODE_FIFO_KHR;
	if (!fifo || !caps.surfaceCapabilities.minImageCount)
		fail("VkLatencySurfaceCapabilitiesNV lacks FIFO, or the capabilities were not filled");
	if (!a->anti_lag)
		printf("latency_sleep: %u low-latency present modes\n", lc.presentModeCount);

	VkSwapchainLatencyCreateInfoNV latency = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_LATENCY_CREATE_INFO_NV,
	                                          .latencyModeEnable = VK_TRUE};
	struct swapchain_params sp = {.mode = VK_PRESENT_MODE_FIFO_KHR,
	                              .next = a->anti_lag ? NULL : &latency,
	                              .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
	                              .min_images = 3};
	CHECK_VK(headless_swapchain_create(&a->h, &sp));
	VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
	                                  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
	VkSemaphoreCreateInfo tci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
	CHECK_VK(vkCreateSemaphore(a->h.device, &tci, NULL, &a->latency));
}

/* A VK_NV_low_latency2 marker for frame id; none in the antilag modes. */
static void marker(struct app *a, uint64_t id, VkLatencyMarkerNV m)
{
	if (a->anti_lag)
		return;
	VkSetLatencyMarkerInfoNV info = {
	        .sType = VK_STRUCTURE_TYPE_SET_LATENCY_MARKER_INFO_NV, .presentID = id, .marker = m};
	a->SetLatencyMarkerNV(a->h.device, a->h.swapchain, &info);
}

/* vkAntiLagUpdateAMD for frame id at stage (mode ON, or OFF with off). */
static void anti_lag_update(struct app *a, uint64_t id, VkAntiLagStageAMD stage, uint32_t max_fps, bool off)
{
	VkAntiLagPresentationInfoAMD p = {
	        .sType = VK_STRUCTURE_TYPE_ANTI_LAG_PRESENTATION_INFO_AMD, .stage = stage, .frameIndex = id};
	VkAntiLagDataAMD d = {.sType = VK_STRUCTURE_TYPE_ANTI_LAG_DATA_AMD,
	                      .mode = off ? VK_ANTI_LAG_MODE_OFF_AMD : VK_ANTI_LAG_MODE_ON_AMD,
	                      .maxFPS = max_fps,
	                      .pPresentationInfo = &p};
	a->AntiLagUpdateAMD(a->h.device, &d);
}

/* Frame `id` on the submit thread: acquire, submit, present. */
static void present_frame(struct app *a, uint64_t id)
{
	uint32_t slot = (uint32_t)(id % MAX_IMAGES), index;

	CHECK_VK(vkWaitForFences(a->h.device, 1, &a->h.f.done[slot], VK_TRUE, UINT64_MAX));
	CHECK_VK(vkResetFences(a->h.device, 1, &a->h.f.done[slot]));
	CHECK_VK(vkAcquireNextImageKHR(a->h.device, a->h.swapchain, UINT64_MAX, a->h.f.acquired[slot],
	                               VK_NULL_HANDLE, &index));
	if (a->h.f.image_fence[index])
		CHECK_VK(vkWaitForFences(a->h.device, 1, &a->h.f.image_fence[index], VK_TRUE, UINT64_MAX));
	a->h.f.image_fence[index] = a->h.f.done[slot];
	marker(a, id, VK_LATENCY_MARKER_RENDERSUBMIT_START_NV);
	VkLatencySubmissionPresentIdNV latency = {.sType = VK_STRUCTURE_TYPE_LATENCY_SUBMISSION_PRESENT_ID_NV,
	                                          .presentID = id};
	VkSemaphoreSubmitInfo wait = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
	                              .semaphore = a->h.f.acquired[slot],
	                              .stageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT};
	VkSemaphoreSubmitInfo signal = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
	                                .semaphore = a->h.f.rendered[slot],
	                                .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
	VkCommandBufferSubmitInfo cmd = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
	                                 .commandBuffer = a->h.f.cmds[index]};
	VkSubmitInfo2 submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
	                        .pNext = a->anti_lag ? NULL : &latency,
	                        .waitSemaphoreInfoCount = 1,
	                        .pWaitSemaphoreInfos = &wait,
	                        .commandBufferInfoCount = 1,
	                        .pCommandBufferInfos = &cmd,
	                        .signalSemaphoreInfoCount = 1,
	                        .pSignalSemaphoreInfos = &signal};
	CHECK_VK(vkQueueSubmit2(a->h.queue, 1, &submit, a->h.f.done[slot]));
	marker(a, id, VK_LATENCY_MARKER_RENDERSUBMIT_END_NV);
	VkPresentIdKHR pid = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR, .swapchainCount = 1, .pPresentIds = &id};
	VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
	                       .pNext = &pid,
	                       .waitSemaphoreCount = 1,
	                       .pWaitSemaphores = &a->h.f.rendered[slot],
	                       .swapchainCount = 1,
	                       .pSwapchains = &a->h.swapchain,
	                       .pImageIndices = &index};
	if (a->anti_lag)
		anti_lag_update(a, id, VK_ANTI_LAG_STAGE_PRESENT_AMD, a->max_fps, a->off);
	CHECK_VK(vkQueuePresentKHR(a->h.queue, &pi));
}

static void *submit_thread(void *arg)
{
	struct app *a = arg;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->quit && a->to_present == a->presented)
			pthread_cond_wait(&a->cond, &a->lock);
		if (a->to_present == a->presented)
			break;
		uint64_t id = a->to_present;
		pthread_mutex_unlock(&a->lock);
		present_frame(a, id);
		pthread_mutex_lock(&a->lock);
		a->presented = id;
		pthread_cond_broadcast(&a->cond);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* The game thread's sleep before frame `id`: vkLatencySleepNV returns at once, the wait is on its
 * semaphore value. */
static void sleep_for(struct app *a, uint64_t id, bool poll)
{
	VkLatencySleepInfoNV info = {
	        .sType = VK_STRUCTURE_TYPE_LATENCY_SLEEP_INFO_NV, .signalSemaphore = a->latency, .value = id};
	CHECK_VK(a->LatencySleepNV(a->h.device, a->h.swapchain, &info));
	if (!poll) {
		VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		                          .semaphoreCount = 1,
		                          .pSemaphores = &a->latency,
		                          .pValues = &id};
		CHECK_VK(vkWaitSemaphores(a->h.device, &wi, 2000000000ull /* 2 s: longer than any sleep */));
		return;
	}
	int64_t give_up = now_ns() + 2000000000ll;
	uint64_t value = 0;
	for (;;) {
		CHECK_VK(vkGetSemaphoreCounterValue(a->h.device, a->latency, &value));
		if (value >= id)
			return;
		if (now_ns() > give_up)
			fail("the latency semaphore was not signalled within 2 s with nobody waiting for it");
		nanosleep(&(struct timespec){.tv_nsec = POLL_NS}, NULL);
	}
}

/* The reports of VK_NV_low_latency2: how many, then the newest ones, with the markers the loop set. */
static void check_timings(struct app *a, uint64_t frames)
{
	VkGetLatencyMarkerInfoNV mi = {.sType = VK_STRUCTURE_TYPE_GET_LATENCY_MARKER_INFO_NV};
	a->GetLatencyTimingsNV(a->h.device, a->h.swapchain, &mi);
	VkLatencyTimingsFrameReportNV reports[64];
	uint32_t n = mi.timingCount < 64 ? mi.timingCount : 64;
	for (uint32_t i = 0; i < n; i++)
		reports[i] = (VkLatencyTimingsFrameReportNV){
		        .sType = VK_STRUCTURE_TYPE_LATENCY_TIMINGS_FRAME_REPORT_NV};
	mi.timingCount = n;
	mi.pTimings = reports;
	a->GetLatencyTimingsNV(a->h.device, a->h.swapchain, &mi);
	if (!mi.timingCount || reports[mi.timingCount - 1].presentID != frames ||
	    !reports[mi.timingCount - 1].simStartTimeUs ||
	    !reports[mi.timingCount - 1].renderSubmitEndTimeUs ||
	    reports[mi.timingCount - 1].simStartTimeUs > reports[mi.timingCount - 1].renderSubmitEndTimeUs)
		fail("vkGetLatencyTimingsNV did not report the last frame's markers in order");
	printf("latency_sleep: timings %u, last present id %" PRIu64 "\n", mi.timingCount,
	       reports[mi.timingCount - 1].presentID);
}

int main(int argc, char **argv)
{
	struct app a = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
	pthread_t thread;

	if (argc != 5 || (strcmp(argv[1], "wait") && strcmp(argv[1], "poll") && strcmp(argv[1], "stop") &&
	                  strcmp(argv[1], "antilag") && strcmp(argv[1], "antilag-off"))) {
		fprintf(stderr, "usage: latency_sleep wait|poll|stop FRAMES INTERVAL_US STARTS_FILE\n"
		                "       latency_sleep antilag|antilag-off FRAMES MAX_FPS STARTS_FILE\n");
		return 2;
	}
	bool poll = !strcmp(argv[1], "poll"), stop = !strcmp(argv[1], "stop");
	bool turn_off = !strcmp(argv[1], "antilag-off");
	a.anti_lag = !strncmp(argv[1], "antilag", 7);
	uint64_t frames = strtoull(argv[2], NULL, 10);
	uint32_t interval = (uint32_t)strtoul(argv[3], NULL, 10);
	FILE *starts = fopen(argv[4], "w");
	if (!frames || !starts)
		fail("bad FRAMES or STARTS_FILE");

	create(&a);
	VkLatencySleepModeInfoNV mode = {.sType = VK_STRUCTURE_TYPE_LATENCY_SLEEP_MODE_INFO_NV,
	                                 .lowLatencyMode = VK_TRUE,
	                                 .lowLatencyBoost = VK_TRUE,
	                                 .minimumIntervalUs = interval};
	if (a.anti_lag)
		a.max_fps = interval;
	else
		CHECK_VK(a.SetLatencySleepModeNV(a.h.device, a.h.swapchain, &mode));
	if (pthread_create(&thread, NULL, submit_thread, &a))
		fail("cannot start the submit thread");

	int64_t first = 0, last = 0;
	for (uint64_t id = 1; id <= frames; id++) {
		/* DXVK's order: the previous frame's present has returned before the next sleep. */
		pthread_mutex_lock(&a.lock);
		while (a.presented != id - 1)
			pthread_cond_wait(&a.cond, &a.lock);
		pthread_mutex_unlock(&a.lock);
		/* Anti-lag: every frame, right before input would be sampled (the first too). */
		if (a.anti_lag) {
			a.off = turn_off && id > frames / 2;
			anti_lag_update(&a, id, VK_ANTI_LAG_STAGE_INPUT_AMD, a.max_fps, a.off);
		} else if (id > 1 && (!stop || id <= frames / 2)) {
			sleep_for(&a, id, poll);
		}
		int64_t start = now_ns();
		fprintf(starts, "%" PRId64 "\n", start);
		if (!first)
			first = start;
		last = start;
		marker(&a, id, VK_LATENCY_MARKER_SIMULATION_START_NV);
		marker(&a, id, VK_LATENCY_MARKER_SIMULATION_END_NV);
		pthread_mutex_lock(&a.lock);
		a.to_present = id;
		pthread_cond_broadcast(&a.cond);
		pthread_mutex_unlock(&a.lock);
	}
	pthread_mutex_lock(&a.lock);
	while (a.presented != frames)
		pthread_cond_wait(&a.cond, &a.lock);
	a.quit = true;
	pthread_cond_broadcast(&a.cond);
	pthread_mutex_unlock(&a.lock);
	pthread_join(thread, NULL);
	fclose(starts);

	if (!a.anti_lag)
		check_timings(&a, frames);

	double seconds = (double)(last - first) * 1e-9;
	printf("latency_sleep: %" PRIu64 " frames in %.3f s, %.2f fps (%s)\n", frames, seconds,
	       seconds > 0 ? (double)(frames - 1) / seconds : 0.0, argv[1]);

	CHECK_VK(vkDeviceWaitIdle(a.h.device));
	vkDestroySemaphore(a.h.device, a.latency, NULL);
	headless_close(&a.h);
	return 0;
}
