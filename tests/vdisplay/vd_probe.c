/* vd_probe.c — a small Vulkan app that exercises the virtual display where vkcube cannot: present
 * ids and present wait, FIFO_LATEST_READY, per-present mode switching, present fences, releasing
 * images, and acquire timeouts. It renders nothing: each frame is a layout transition to
 * PRESENT_SRC, so lavapipe's work is trivial and timing is the display's. It uses a headless surface,
 * so it needs no X server.
 *
 *   vd_probe SCENARIO [FRAMES]
 *
 * Prints one `probe: ...` line per fact the Python side checks against the truth log, and exits
 * non-zero when a Vulkan call fails or a check that needs no log fails.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "../apps/common.h"

#define CHECK_VK(call) CHECK_VK_OR_EXIT("probe", call)

#define MAX_IMAGES FRAMES_MAX

struct probe {
	struct headless h;
	uint32_t frame;
	pthread_mutex_t *queue_lock; /* when another thread submits too: the app's queue lock */
	bool id2;                    /* present ids through VkPresentId2KHR (present_id2 / present_wait2) */
	bool timing;                 /* the swapchain is made with PRESENT_TIMING */
	const VkPresentTimingInfoEXT *next_timing; /* chained into the next present */
	VkResult last_present;
	PFN_vkWaitForPresentKHR WaitForPresentKHR;
	PFN_vkWaitForPresent2KHR WaitForPresent2KHR;
	PFN_vkReleaseSwapchainImagesKHR ReleaseSwapchainImagesKHR;
};

static void create_device(struct probe *p)
{
	static const char *const extra[] = {VK_KHR_GET_SURFACE_CAPABILITIES_2_EXTENSION_NAME,
	                                    VK_KHR_SURFACE_MAINTENANCE_1_EXTENSION_NAME};
	CHECK_VK(headless_open(&p->h, "vd_probe", extra, 2));

	/* The display's features, asked the standard way. */
	VkPhysicalDevicePresentTimingFeaturesEXT timing = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT};
	VkPhysicalDevicePresentModeFifoLatestReadyFeaturesKHR latest = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_MODE_FIFO_LATEST_READY_FEATURES_KHR,
	        .pNext = &timing};
	VkPhysicalDeviceSwapchainMaintenance1FeaturesKHR m1 = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_KHR,
	        .pNext = &latest};
	VkPhysicalDevicePresentWait2FeaturesKHR wait2 = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR, .pNext = &m1};
	VkPhysicalDevicePresentId2FeaturesKHR id2 = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR, .pNext = &wait2};
	VkPhysicalDevicePresentWaitFeaturesKHR wait = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR, .pNext = &id2};
	VkPhysicalDevicePresentIdFeaturesKHR id = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR, .pNext = &wait};
	VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &id};
	/* VD_PROBE_NO_TIMING=1: the display withholds VK_EXT_present_timing (LOWLAT_VDISPLAY_WITHHOLD);
	 * the probe then neither asks for it nor enables it (scenarios other than timing). */
	bool no_timing = getenv("VD_PROBE_NO_TIMING") && !strcmp(getenv("VD_PROBE_NO_TIMING"), "1");
	if (no_timing)
		latest.pNext = NULL;
	vkGetPhysicalDeviceFeatures2(p->h.physical, &f2);
	printf("probe: features presentId=%u presentWait=%u presentId2=%u presentWait2=%u maintenance1=%u "
	       "fifoLatestReady=%u\n",
	       id.presentId, wait.presentWait, id2.presentId2, wait2.presentWait2, m1.swapchainMaintenance1,
	       latest.presentModeFifoLatestReady);
	if (!id.presentId || !wait.presentWait || !id2.presentId2 || !wait2.presentWait2 ||
	    !m1.swapchainMaintenance1 || !latest.presentModeFifoLatestReady ||
	    (!no_timing &&
	     (!timing.presentTiming || !timing.presentAtAbsoluteTime || !timing.presentAtRelativeTime))) {
		fprintf(stderr, "probe: a display feature is missing\n");
		exit(1);
	}

	const char *device_exts[] = {
	        VK_KHR_SWAPCHAIN_EXTENSION_NAME,
	        VK_KHR_PRESENT_ID_EXTENSION_NAME,
	        VK_KHR_PRESENT_WAIT_EXTENSION_NAME,
	        VK_KHR_PRESENT_ID_2_EXTENSION_NAME,
	        VK_KHR_PRESENT_WAIT_2_EXTENSION_NAME,
	        VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME,
	        VK_KHR_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME,
	        VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME,
	        VK_EXT_PRESENT_TIMING_EXTENSION_NAME,
	};
	/* VK_EXT_present_timing is the last name. */
	CHECK_VK(headless_device_create(&p->h, device_exts,
	                                sizeof(device_exts) / sizeof(device_exts[0]) - no_timing, &f2));
	p->WaitForPresentKHR =
	        (PFN_vkWaitForPresentKHR)vkGetDeviceProcAddr(p->h.device, "vkWaitForPresentKHR");
	p->WaitForPresent2KHR =
	        (PFN_vkWaitForPresent2KHR)vkGetDeviceProcAddr(p->h.device, "vkWaitForPresent2KHR");
	p->ReleaseSwapchainImagesKHR = (PFN_vkReleaseSwapchainImagesKHR)vkGetDeviceProcAddr(
	        p->h.device, "vkReleaseSwapchainImagesKHR");
	if (!p->WaitForPresentKHR || !p->WaitForPresent2KHR || !p->ReleaseSwapchainImagesKHR) {
		fprintf(stderr, "probe: the display's functions are not reachable\n");
		exit(1);
	}
}

static void create_swapchain(struct probe *p, VkPresentModeKHR mode, uint32_t images)
{
	VkPresentModeKHR modes[] = {VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_FIFO_LATEST_READY_KHR,
	                            VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR,
	                            VK_PRESENT_MODE_FIFO_RELAXED_KHR};
	/* surface_maintenance1: the modes compatible with `mode`, as the display reports them. */
	VkSurfacePresentModeKHR asked = {.sType = VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_KHR,
	                                 .presentMode = mode};
	VkPhysicalDeviceSurfaceInfo2KHR si = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SURFACE_INFO_2_KHR,
	                                      .pNext = &asked,
	                                      .surface = p->h.surface};
	VkPresentModeKHR compat[8];
	VkSurfacePresentModeCompatibilityKHR cm = {
	        .sType = VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_COMPATIBILITY_KHR,
	        .presentModeCount = 8,
	        .pPresentModes = compat};
	VkSurfaceCapabilities2KHR caps = {.sType = VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_2_KHR,
	                                  .pNext = &cm};
	CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilities2KHR(p->h.physical, &si, &caps));
	printf("probe: compatible modes %u\n", cm.presentModeCount);

	VkSwapchainPresentModesCreateInfoKHR pm = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODES_CREATE_INFO_KHR,
	        .presentModeCount = 5,
	        .pPresentModes = modes};
	for (uint32_t i = 0; i < 5; i++)
		if (modes[i] == mode)
			modes[i] = modes[0], modes[0] = mode;
	struct swapchain_params sp = {
	        .mode = mode,
	        .next = &pm,
	        .flags = (p->id2 ? VK_SWAPCHAIN_CREATE_PRESENT_ID_2_BIT_KHR |
	                                   VK_SWAPCHAIN_CREATE_PRESENT_WAIT_2_BIT_KHR
	                         : 0) |
	                 (p->timing ? VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT : 0),
	        .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
	        .min_images = images,
	};
	CHECK_VK(headless_swapchain_create(&p->h, &sp));
}

/* One frame: acquire, transition, present with an id (and optionally a mode and a fence). */
static uint32_t frame(struct probe *p, uint64_t id, const VkPresentModeKHR *mode, VkFence present_fence)
{
	uint32_t slot = p->frame++ % MAX_IMAGES, index;

	CHECK_VK(frames_submit(p->h.device, p->h.queue, p->h.swapchain, &p->h.f, slot, UINT64_MAX,
	                       p->queue_lock, &index));

	VkPresentIdKHR pid = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR, .swapchainCount = 1, .pPresentIds = &id};
	VkSwapchainPresentModeInfoKHR pm = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODE_INFO_KHR,
	                                    .swapchainCount = 1,
	                                    .pPresentModes = mode};
	VkSwapchainPresentFenceInfoKHR pf = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_FENCE_INFO_KHR,
	                                     .swapchainCount = 1,
	                                     .pFences = &present_fence};
	VkPresentId2KHR pid2 = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_ID_2_KHR, .swapchainCount = 1, .pPresentIds = &id};
	const void *chain = p->id2 ? (const void *)&pid2 : (const void *)&pid;
	if (mode) {
		pm.pNext = chain;
		chain = &pm;
	}
	if (present_fence) {
		pf.pNext = chain;
		chain = &pf;
	}
	VkPresentTimingsInfoEXT pt = {.sType = VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT,
	                              .pNext = chain,
	                              .swapchainCount = 1,
	                              .pTimingInfos = p->next_timing};
	if (p->next_timing)
		chain = &pt;
	VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
	                       .pNext = chain,
	                       .waitSemaphoreCount = 1,
	                       .pWaitSemaphores = &p->h.f.rendered[slot],
	                       .swapchainCount = 1,
	                       .pSwapchains = &p->h.swapchain,
	                       .pImageIndices = &index};
	printf("probe: present id=%" PRIu64 " at=%" PRId64 "\n", id, now_ns());
	if (p->queue_lock)
		pthread_mutex_lock(p->queue_lock);
	p->last_present = vkQueuePresentKHR(p->h.queue, &pi);
	if (p->queue_lock)
		pthread_mutex_unlock(p->queue_lock);
	if (p->last_present == VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT) {
		/* Refused; the image is still ours: present it again without stage queries. The
		 * semaphore waits of the refused present did execute, so this one waits on nothing. */
		printf("probe: present id=%" PRIu64 " refused: timing queue full\n", id);
		VkPresentTimingInfoEXT none = *p->next_timing;
		none.presentStageQueries = 0;
		pt.pTimingInfos = &none;
		pi.waitSemaphoreCount = 0;
		CHECK_VK(vkQueuePresentKHR(p->h.queue, &pi));
	} else {
		CHECK_VK(p->last_present);
	}
	return index;
}

static void destroy(struct probe *p)
{
	headless_close(&p->h);
}

/* Present wait: each wait returns only once that id's image is on screen; the Python side compares
 * the return times with the first-pixel times of the truth log. */
static int scenario_present_wait(struct probe *p, int frames, bool v2)
{
	p->id2 = v2;
	create_swapchain(p, VK_PRESENT_MODE_FIFO_KHR, 3);
	for (int i = 1; i <= frames; i++) {
		frame(p, i, NULL, VK_NULL_HANDLE);
		uint64_t wait_for = i > 1 ? i - 1 : 1; /* keep one frame queued, like a game would */
		if (v2) {
			VkPresentWait2InfoKHR wi = {.sType = VK_STRUCTURE_TYPE_PRESENT_WAIT_2_INFO_KHR,
			                            .presentId = wait_for,
			                            .timeout = 1000000000};
			CHECK_VK(p->WaitForPresent2KHR(p->h.device, p->h.swapchain, &wi));
		} else {
			CHECK_VK(p->WaitForPresentKHR(p->h.device, p->h.swapchain, wait_for, 1000000000));
		}
		printf("probe: waited id=%" PRIu64 " at=%" PRId64 "\n", wait_for, now_ns());
	}
	/* A wait for an id never presented times out. */
	VkResult r = p->WaitForPresentKHR(p->h.device, p->h.swapchain, 1000000, 20000000);
	printf("probe: wait for unknown id: %d\n", r);
	destroy(p);
	return r == VK_TIMEOUT ? 0 : 1;
}

/* FIFO_LATEST_READY with bursts of three presents per refresh, then per-present switches to MAILBOX
 * and back to FIFO, each with a present fence. */
static int scenario_modes(struct probe *p, int frames)
{
	VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkFence pf;
	VkPresentModeKHR latest = VK_PRESENT_MODE_FIFO_LATEST_READY_KHR,
	                 mailbox = VK_PRESENT_MODE_MAILBOX_KHR, fifo = VK_PRESENT_MODE_FIFO_KHR;
	uint64_t id = 1;

	create_swapchain(p, VK_PRESENT_MODE_FIFO_LATEST_READY_KHR, 5);
	CHECK_VK(vkCreateFence(p->h.device, &fci, NULL, &pf));
	for (int i = 0; i < frames; i++) {
		const VkPresentModeKHR *mode = i < frames / 2       ? &latest
		                               : i < frames * 3 / 4 ? &mailbox
		                                                    : &fifo;
		for (int k = 0; k < 3; k++)
			frame(p, id++, mode, VK_NULL_HANDLE);
		/* The present fence signals once the display is done with the present's semaphores. */
		frame(p, id, mode, pf);
		CHECK_VK(vkWaitForFences(p->h.device, 1, &pf, VK_TRUE, 1000000000));
		CHECK_VK(vkResetFences(p->h.device, 1, &pf));
		CHECK_VK(p->WaitForPresentKHR(p->h.device, p->h.swapchain, id, 1000000000));
		id++;
	}
	printf("probe: modes done, last id %" PRIu64 "\n", id - 1);
	CHECK_VK(vkDeviceWaitIdle(p->h.device));
	vkDestroyFence(p->h.device, pf, NULL);
	destroy(p);
	return 0;
}

/* Acquire honours its timeout; a released image can be acquired again at once. */
static int scenario_acquire(struct probe *p)
{
	uint32_t index[MAX_IMAGES];
	VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkFence f[MAX_IMAGES];
	int bad = 0;

	create_swapchain(p, VK_PRESENT_MODE_FIFO_KHR, 3);
	for (uint32_t i = 0; i < p->h.f.image_count; i++) {
		CHECK_VK(vkCreateFence(p->h.device, &fci, NULL, &f[i]));
		CHECK_VK(vkAcquireNextImageKHR(p->h.device, p->h.swapchain, 0, VK_NULL_HANDLE, f[i],
		                               &index[i]));
		/* Signalled without queue work, at once. */
		CHECK_VK(vkWaitForFences(p->h.device, 1, &f[i], VK_TRUE, 0));
	}
	uint32_t extra;
	CHECK_VK(vkResetFences(p->h.device, 1, &f[0]));
	VkResult r = vkAcquireNextImageKHR(p->h.device, p->h.swapchain, 0, VK_NULL_HANDLE, f[0], &extra);
	printf("probe: acquire with every image held, timeout 0: %d\n", r);
	bad |= r != VK_NOT_READY;
	int64_t t0 = now_ns();
	r = vkAcquireNextImageKHR(p->h.device, p->h.swapchain, 20000000, VK_NULL_HANDLE, f[0], &extra);
	int64_t waited = now_ns() - t0;
	printf("probe: acquire with every image held, timeout 20 ms: %d after %.1f ms\n", r, waited / 1e6);
	bad |= r != VK_TIMEOUT || waited < 20000000;

	VkReleaseSwapchainImagesInfoKHR ri = {.sType = VK_STRUCTURE_TYPE_RELEASE_SWAPCHAIN_IMAGES_INFO_KHR,
	                                      .swapchain = p->h.swapchain,
	                                      .imageIndexCount = 1,
	                                      .pImageIndices = &index[1]};
	CHECK_VK(p->ReleaseSwapchainImagesKHR(p->h.device, &ri));
	CHECK_VK(vkResetFences(p->h.device, 1, &f[0]));
	r = vkAcquireNextImageKHR(p->h.device, p->h.swapchain, 0, VK_NULL_HANDLE, f[0], &extra);
	printf("probe: acquire after release: %d, image %u (released %u)\n", r, extra, index[1]);
	bad |= r != VK_SUCCESS || extra != index[1];
	for (uint32_t i = 0; i < p->h.f.image_count; i++)
		vkDestroyFence(p->h.device, f[i], NULL);
	/* Every image is acquired and none presented: give them back before destroying. */
	VkReleaseSwapchainImagesInfoKHR all = {.sType = VK_STRUCTURE_TYPE_RELEASE_SWAPCHAIN_IMAGES_INFO_KHR,
	                                       .swapchain = p->h.swapchain,
	                                       .imageIndexCount = p->h.f.image_count,
	                                       .pImageIndices = index};
	index[1] = extra;
	CHECK_VK(p->ReleaseSwapchainImagesKHR(p->h.device, &all));
	destroy(p);
	return bad;
}

static void wait_idle_display(struct probe *p, uint64_t id)
{
	VkPresentWait2InfoKHR wi = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_WAIT_2_INFO_KHR, .presentId = id, .timeout = 1000000000};
	CHECK_VK(p->WaitForPresent2KHR(p->h.device, p->h.swapchain, &wi));
}

/* A stage's clock read together with CLOCK_MONOTONIC: the display's time domain may be stage-local
 * (each stage on a clock of its own, converted through vkGetCalibratedTimestampsKHR). */
struct cal {
	int64_t mono, stage;
};

static struct cal calibrate_stage(struct probe *p, PFN_vkGetCalibratedTimestampsKHR get,
                                  VkTimeDomainKHR domain, uint64_t id, uint32_t stage)
{
	struct cal c;
	if (domain == VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR) {
		c.mono = c.stage = now_ns();
		return c;
	}
	VkSwapchainCalibratedTimestampInfoEXT sci = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CALIBRATED_TIMESTAMP_INFO_EXT,
	        .swapchain = p->h.swapchain,
	        .presentStage = stage,
	        .timeDomainId = id};
	VkCalibratedTimestampInfoKHR infos[2] = {
	        {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR,
	         .timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR},
	        {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR,
	         .pNext = &sci,
	         .timeDomain = domain},
	};
	uint64_t ts[2], deviation;
	CHECK_VK(get(p->h.device, 2, infos, ts, &deviation));
	c.mono = (int64_t)ts[0];
	c.stage = (int64_t)ts[1];
	return c;
}

/* Stage time to CLOCK_MONOTONIC and back, interpolated between two calibrations (the clock may
 * drift). */
static int64_t cal_to_mono(const struct cal *a, const struct cal *b, int64_t t)
{
	if (b->stage == a->stage)
		return a->mono + (t - a->stage);
	return a->mono + (int64_t)((double)(t - a->stage) * (double)(b->mono - a->mono) /
	                           (double)(b->stage - a->stage));
}

static int64_t cal_from_mono(const struct cal *a, const struct cal *b, int64_t t)
{
	if (b->mono == a->mono)
		return a->stage + (t - a->mono);
	return b->stage +
	       (int64_t)((double)(t - b->mono) * (double)(b->stage - a->stage) / (double)(b->mono - a->mono));
}

/* VK_EXT_present_timing: properties, the results queue (QUEUE_FULL, stage times) and target times. */
static int scenario_timing(struct probe *p)
{
	PFN_vkGetSwapchainTimingPropertiesEXT GetTiming =
	        (PFN_vkGetSwapchainTimingPropertiesEXT)vkGetDeviceProcAddr(
	                p->h.device, "vkGetSwapchainTimingPropertiesEXT");
	PFN_vkGetSwapchainTimeDomainPropertiesEXT GetDomains =
	        (PFN_vkGetSwapchainTimeDomainPropertiesEXT)vkGetDeviceProcAddr(
	                p->h.device, "vkGetSwapchainTimeDomainPropertiesEXT");
	PFN_vkSetSwapchainPresentTimingQueueSizeEXT SetQueueSize =
	        (PFN_vkSetSwapchainPresentTimingQueueSizeEXT)vkGetDeviceProcAddr(
	                p->h.device, "vkSetSwapchainPresentTimingQueueSizeEXT");
	PFN_vkGetPastPresentationTimingEXT GetPast = (PFN_vkGetPastPresentationTimingEXT)vkGetDeviceProcAddr(
	        p->h.device, "vkGetPastPresentationTimingEXT");
	if (!GetTiming || !GetDomains || !SetQueueSize || !GetPast) {
		fprintf(stderr, "probe: present timing functions missing\n");
		return 1;
	}
	p->id2 = p->timing = true;
	create_swapchain(p, VK_PRESENT_MODE_FIFO_KHR, 4);

	/* VK_KHR_calibrated_timestamps, which present timing requires, served on the driver's EXT. */
	PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsKHR GetDomainsKHR =
	        (PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsKHR)vkGetInstanceProcAddr(
	                p->h.instance, "vkGetPhysicalDeviceCalibrateableTimeDomainsKHR");
	PFN_vkGetCalibratedTimestampsKHR GetCalibrated =
	        (PFN_vkGetCalibratedTimestampsKHR)vkGetDeviceProcAddr(p->h.device,
	                                                              "vkGetCalibratedTimestampsKHR");
	if (!GetDomainsKHR || !GetCalibrated) {
		fprintf(stderr, "probe: VK_KHR_calibrated_timestamps functions missing\n");
		return 1;
	}
	VkTimeDomainKHR domains[8];
	uint32_t domain_count = 8;
	CHECK_VK(GetDomainsKHR(p->h.physical, &domain_count, domains));
	VkCalibratedTimestampInfoKHR cti = {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR,
	                                    .timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR};
	uint64_t stamp, deviation;
	int64_t before = now_ns();
	CHECK_VK(GetCalibrated(p->h.device, 1, &cti, &stamp, &deviation));
	int64_t after = now_ns();
	printf("probe: calibrated: %u domains, CLOCK_MONOTONIC within the call: %d\n", domain_count,
	       (int64_t)stamp >= before && (int64_t)stamp <= after);
	if ((int64_t)stamp < before || (int64_t)stamp > after)
		return 1;

	VkSwapchainTimingPropertiesEXT tp = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_TIMING_PROPERTIES_EXT};
	uint64_t counter = 0;
	/* "Some platforms may not provide timing properties until after at least one image has been
	 * presented" (VK_NOT_READY): asked again after the first presents. */
	VkResult props_result = GetTiming(p->h.device, p->h.swapchain, &tp, &counter);
	if (props_result != VK_NOT_READY)
		CHECK_VK(props_result);
	VkTimeDomainKHR domain;
	uint64_t domain_id;
	VkSwapchainTimeDomainPropertiesEXT dp = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_TIME_DOMAIN_PROPERTIES_EXT};
	CHECK_VK(GetDomains(p->h.device, p->h.swapchain, &dp, NULL));
	dp.timeDomainCount = 1;
	dp.pTimeDomains = &domain;
	dp.pTimeDomainIds = &domain_id;
	CHECK_VK(GetDomains(p->h.device, p->h.swapchain, &dp, NULL));
	struct cal first[4], second[4];
	for (uint32_t s = 0; s < 4; s++)
		first[s] = calibrate_stage(p, GetCalibrated, domain, domain_id, 1u << s);

	/* Four slots; the fifth present asking for stage times is refused. */
	CHECK_VK(SetQueueSize(p->h.device, p->h.swapchain, 4));
	VkPresentTimingInfoEXT ti = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_TIMING_INFO_EXT,
	        .timeDomainId = domain_id,
	        .presentStageQueries = VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT |
	                               VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT |
	                               VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT |
	                               VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT,
	        .targetTimeDomainPresentStage = VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT};
	p->next_timing = &ti;
	int refused = 0;
	for (uint64_t id = 1; id <= 5; id++) {
		frame(p, id, NULL, VK_NULL_HANDLE);
		refused += p->last_present == VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT;
	}
	printf("probe: refused %d of 5 (queue of 4)\n", refused);
	wait_idle_display(p, 5);
	if (props_result == VK_NOT_READY) {
		printf("probe: timing properties not ready before the first present\n");
		CHECK_VK(GetTiming(p->h.device, p->h.swapchain, &tp, &counter));
	}
	printf("probe: refreshDuration=%" PRIu64 " refreshInterval=%" PRIu64 " domain=%d id=%" PRIu64 "\n",
	       tp.refreshDuration, tp.refreshInterval, domain, domain_id);
	const uint64_t period = tp.refreshDuration;

	VkPresentStageTimeEXT stages[4][4];
	VkPastPresentationTimingEXT past[4];
	uint32_t got = 0;
	char lines[16][160];
	uint32_t n_lines = 0;
	for (int attempt = 0; attempt < 50 && got < 4; attempt++) {
		for (uint32_t i = 0; i < 4; i++)
			past[i] = (VkPastPresentationTimingEXT){
			        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_EXT,
			        .presentStageCount = 4,
			        .pPresentStages = stages[i]};
		VkPastPresentationTimingInfoEXT pi = {
		        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_INFO_EXT,
		        .swapchain = p->h.swapchain};
		VkPastPresentationTimingPropertiesEXT pp = {
		        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_PROPERTIES_EXT,
		        .presentationTimingCount = 4 - got,
		        .pPresentationTimings = past};
		VkResult r = GetPast(p->h.device, &pi, &pp);
		if (r != VK_SUCCESS && r != VK_INCOMPLETE)
			CHECK_VK(r);
		for (uint32_t i = 0; i < pp.presentationTimingCount; i++) {
			for (uint32_t s = 0; s < past[i].presentStageCount && n_lines < 16; s++)
				snprintf(lines[n_lines++], sizeof(lines[0]),
				         "id=%" PRIu64 " stage=%u time=%" PRIu64 " complete=%u",
				         past[i].presentId, past[i].pPresentStages[s].stage,
				         past[i].pPresentStages[s].time, past[i].reportComplete);
			got += past[i].reportComplete;
		}
		if (got < 4)
			nanosleep(&(struct timespec){0, 20000000}, NULL);
	}
	/* Stage times on CLOCK_MONOTONIC, through calibrations before the presents and now. */
	for (uint32_t s = 0; s < 4; s++)
		second[s] = calibrate_stage(p, GetCalibrated, domain, domain_id, 1u << s);
	for (uint32_t k = 0; k < n_lines; k++) {
		uint64_t id, t;
		uint32_t stage, complete;
		if (sscanf(lines[k], "id=%" SCNu64 " stage=%u time=%" SCNu64 " complete=%u", &id, &stage, &t,
		           &complete) != 4)
			continue;
		uint32_t si = (uint32_t)__builtin_ctz(stage);
		int64_t mono = t ? cal_to_mono(&first[si], &second[si], (int64_t)t) : 0;
		printf("probe: timing id=%" PRIu64 " stage=%u time=%" PRId64 " raw=%" PRIu64 " complete=%u\n",
		       id, stage, mono, t, complete);
	}
	printf("probe: %u timing results\n", got);

	/* Target times, each present alone on an idle display (one frame of the previous on screen).
	 * The display's grid is read back from the last first-pixel time; refreshDuration is rounded to
	 * the ns, so targets on the grid use NEAREST or a margin, as a real app's would. */
	const uint32_t out = 2; /* IMAGE_FIRST_PIXEL_OUT's bit index */
	uint64_t last_pixel = 0;
	for (uint32_t s = 0; s < 4 && got; s++)
		if (stages[got - 1][s].stage == VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT)
			last_pixel = (uint64_t)cal_to_mono(&first[out], &second[out],
			                                   (int64_t)stages[got - 1][s].time);
	struct {
		uint64_t id;
		VkPresentTimingInfoFlagsEXT flags;
		int64_t refreshes_ahead; /* from the next vblank after now */
		int64_t offset;          /* from that vblank, in 1/10 of a period */
	} targets[] = {
	        {100, VK_PRESENT_TIMING_INFO_PRESENT_AT_NEAREST_REFRESH_CYCLE_BIT_EXT, 3, 0},
	        {101, VK_PRESENT_TIMING_INFO_PRESENT_AT_RELATIVE_TIME_BIT_EXT, 3, 0},
	        {102, 0, 3, 3},
	        {103, VK_PRESENT_TIMING_INFO_PRESENT_AT_NEAREST_REFRESH_CYCLE_BIT_EXT, 3, 3},
	        {104, VK_PRESENT_TIMING_INFO_PRESENT_AT_NEAREST_REFRESH_CYCLE_BIT_EXT, 3, 7},
	};
	ti.presentStageQueries = 0;
	for (uint32_t k = 0; k < sizeof(targets) / sizeof(targets[0]); k++) {
		uint64_t now = (uint64_t)now_ns();
		uint64_t next = last_pixel + ((now - last_pixel) / period + 1) * period;
		ti.flags = targets[k].flags;
		uint64_t target_mono;
		if (ti.flags & VK_PRESENT_TIMING_INFO_PRESENT_AT_RELATIVE_TIME_BIT_EXT) {
			ti.targetTime = target_mono = targets[k].refreshes_ahead * period - period / 10;
		} else {
			/* On CLOCK_MONOTONIC, then in the clock of targetTimeDomainPresentStage. */
			struct cal now_cal = calibrate_stage(p, GetCalibrated, domain, domain_id,
			                                     VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT);
			target_mono =
			        next + targets[k].refreshes_ahead * period + targets[k].offset * period / 10;
			ti.targetTime = (uint64_t)cal_from_mono(&first[out], &now_cal, (int64_t)target_mono);
		}
		printf("probe: target id=%" PRIu64 " time=%" PRIu64 " flags=%u\n", targets[k].id, target_mono,
		       ti.flags);
		frame(p, targets[k].id, NULL, VK_NULL_HANDLE);
		wait_idle_display(p, targets[k].id);
	}
	p->next_timing = NULL;
	destroy(p);
	return refused == 1 && got == 4 ? 0 : 1;
}

/* Another thread of the app submits to the same queue (under the app's queue lock, as Vulkan
 * requires) while the main thread acquires and presents: acquire never touches the queue, the
 * display's scan-out thread runs alongside. Built with -fsanitize=thread for the TSan test. */
struct submitter {
	struct probe *p;
	pthread_mutex_t lock;
	volatile int stop;
	int submits;
};

static void *submit_main(void *arg)
{
	struct submitter *s = arg;
	VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkFence fence;

	CHECK_VK(vkCreateFence(s->p->h.device, &fci, NULL, &fence));
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&s->lock);
		CHECK_VK(vkQueueSubmit(s->p->h.queue, 0, NULL, fence));
		pthread_mutex_unlock(&s->lock);
		CHECK_VK(vkWaitForFences(s->p->h.device, 1, &fence, VK_TRUE, UINT64_MAX));
		CHECK_VK(vkResetFences(s->p->h.device, 1, &fence));
		s->submits++;
	}
	vkDestroyFence(s->p->h.device, fence, NULL);
	return NULL;
}

static int scenario_concurrent(struct probe *p, int frames)
{
	struct submitter s = {.p = p, .lock = PTHREAD_MUTEX_INITIALIZER};
	pthread_t thread;

	create_swapchain(p, VK_PRESENT_MODE_FIFO_KHR, 3);
	p->queue_lock = &s.lock;
	if (pthread_create(&thread, NULL, submit_main, &s))
		return 1;
	for (int i = 1; i <= frames; i++)
		frame(p, i, NULL, VK_NULL_HANDLE);
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	pthread_join(thread, NULL);
	printf("probe: %d frames presented while another thread made %d submissions\n", frames, s.submits);
	pthread_mutex_lock(&s.lock);
	destroy(p);
	pthread_mutex_unlock(&s.lock);
	return 0;
}

/* App images that alias swapchain memory (Vulkan 1.1 with VK_KHR_swapchain): the swapchain handle
 * travels in vkCreateImage's and vkBindImageMemory2's pNext chains, and must not reach the driver. Validation
 * above checks the use is valid. */
static int scenario_alias(struct probe *p)
{
	create_swapchain(p, VK_PRESENT_MODE_FIFO_KHR, 3);
	VkImageSwapchainCreateInfoKHR isci = {.sType = VK_STRUCTURE_TYPE_IMAGE_SWAPCHAIN_CREATE_INFO_KHR,
	                                      .swapchain = p->h.swapchain};
	VkImageFormatListCreateInfo formats = {.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO,
	                                       .pNext = &isci}; /* a node in front of the one removed */
	VkImageCreateInfo ci = {
	        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
	        .pNext = &formats,
	        .imageType = VK_IMAGE_TYPE_2D,
	        .format = VK_FORMAT_B8G8R8A8_UNORM,
	        .extent = {p->h.extent.width, p->h.extent.height, 1},
	        .mipLevels = 1,
	        .arrayLayers = 1,
	        .samples = VK_SAMPLE_COUNT_1_BIT,
	        .tiling = VK_IMAGE_TILING_OPTIMAL,
	        .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
	        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	VkImage image;
	CHECK_VK(vkCreateImage(p->h.device, &ci, NULL, &image));
	/* (vkGetDeviceImageMemoryRequirements may not see VkImageSwapchainCreateInfoKHR: VUID-06416.) */
	VkMemoryRequirements2 req = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
	VkImageMemoryRequirementsInfo2 ri = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2,
	                                     .image = image};
	vkGetImageMemoryRequirements2(p->h.device, &ri, &req);
	VkBindImageMemorySwapchainInfoKHR bsi = {
	        .sType = VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR,
	        .swapchain = p->h.swapchain,
	        .imageIndex = 1};
	VkBindImageMemoryInfo bi = {
	        .sType = VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO, .pNext = &bsi, .image = image};
	CHECK_VK(vkBindImageMemory2(p->h.device, 1, &bi));
	printf("probe: alias image created (%" PRIu64 " bytes) and bound to swapchain image 1\n",
	       (uint64_t)req.memoryRequirements.size);
	vkDestroyImage(p->h.device, image, NULL);
	destroy(p);
	return req.memoryRequirements.size ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct probe p = {0};
	const char *scenario = argc > 1 ? argv[1] : "present-wait";
	int frames = argc > 2 ? atoi(argv[2]) : 60;

	setvbuf(stdout, NULL, _IOLBF, 0);
	create_device(&p);
	if (!strcmp(scenario, "present-wait"))
		return scenario_present_wait(&p, frames, false);
	if (!strcmp(scenario, "present-wait2"))
		return scenario_present_wait(&p, frames, true);
	if (!strcmp(scenario, "modes"))
		return scenario_modes(&p, frames);
	if (!strcmp(scenario, "acquire"))
		return scenario_acquire(&p);
	if (!strcmp(scenario, "concurrent"))
		return scenario_concurrent(&p, frames);
	if (!strcmp(scenario, "alias"))
		return scenario_alias(&p);
	if (!strcmp(scenario, "timing"))
		return scenario_timing(&p);
	fprintf(stderr, "probe: unknown scenario %s\n", scenario);
	return 2;
}
