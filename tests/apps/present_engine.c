/* present_engine.c — see present_engine.h. The three threads, the swapchain they share and the
 * per-frame record.
 *
 * Synchronisation (what Vulkan requires and what the engines do):
 * - `lock` guards the two hand-over queues, the frame counters and the shared results; the
 *   threads wait on its condition variables, never while calling Vulkan.
 * - The queue is used by the submit thread alone (submits, presents, wait-idle), as in DXVK.
 * - The swapchain handle is replaced only by the submit thread, after the frame thread has
 *   signalled every frame presented to the old one and the queue is idle, so the frame thread's
 *   vkWaitForPresentKHR never sees a destroyed swapchain. `sc_lock` guards the handle against the
 *   game thread's latency-sleep calls (vkLatencySleepNV, markers) during that replacement.
 * - vkWaitForPresentKHR (frame thread) runs while vkQueuePresentKHR (submit thread) presents the
 *   next frames to the same swapchain: exactly what DXVK and vkd3d-proton do.
 * - Submission slots (command buffer, acquire semaphore, fence) are reused SLOTS frames later,
 *   only once the frame thread has signalled the frame that used the slot (it may wait on its fence).
 */
#include "present_engine.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#define SLOTS      8 /* submissions in flight at most: more than any latency the apps allow */
#define MAX_IMAGES 8
/* A wait this long on lavapipe and the virtual display is a hang, not a slow frame. */
#define WAIT_TIMEOUT_NS 2000000000ull /* 2 s */
/* The size change forced mid-run: different in both dimensions, as a window resize is. */
static const VkExtent2D first_extent = {96, 64}, resized_extent = {128, 80};

struct frame_record {
	uint64_t present_id;
	unsigned swapchain; /* generation: 0 for the first swapchain, +1 per recreate */
	VkPresentModeKHR mode;
	VkResult result;
	int64_t start_ns, present_ns, release_ns, waited_ns, signal_ns, target_ns;
};

struct frame_entry { /* submit thread -> frame thread */
	int frame;   /* 0: exit */
	VkSwapchainKHR swapchain;
	uint64_t present_id;
	VkPresentModeKHR mode;
	VkResult result;
	int slot;
};

struct engine {
	const struct engine_options *o;
	VkInstance instance;
	VkPhysicalDevice physical;
	uint32_t family;
	VkSurfaceKHR surface;
	VkDevice device;
	VkQueue queue;
	bool has_present_id, has_present_wait, has_maintenance1, has_timing, has_ll2, has_latest_ready;
	PFN_vkWaitForPresentKHR WaitForPresentKHR;
	PFN_vkLatencySleepNV LatencySleepNV;
	PFN_vkSetLatencySleepModeNV SetLatencySleepModeNV;
	PFN_vkSetLatencyMarkerNV SetLatencyMarkerNV;
	PFN_vkGetSwapchainTimingPropertiesEXT GetSwapchainTimingPropertiesEXT;
	PFN_vkGetSwapchainTimeDomainPropertiesEXT GetSwapchainTimeDomainPropertiesEXT;
	PFN_vkGetPastPresentationTimingEXT GetPastPresentationTimingEXT;
	PFN_vkSetSwapchainPresentTimingQueueSizeEXT SetSwapchainPresentTimingQueueSizeEXT;

	/* The swapchain: replaced by the submit thread only (see the file comment). */
	pthread_mutex_t sc_lock;
	VkSwapchainKHR swapchain;
	unsigned generation;
	VkExtent2D extent;
	uint32_t image_count;
	VkImage images[MAX_IMAGES];
	VkSemaphore rendered[MAX_IMAGES]; /* per image: free again once the image is re-acquired */
	VkPresentModeKHR modes[3];
	uint32_t mode_count;
	uint64_t time_domain_id;
	uint64_t query_domain_id; /* the swapchain's present-stage-local time domain (else its first) */
	int64_t target_offset_ns; /* targets on query_domain_id: its first-pixel clock - CLOCK_MONOTONIC */
	int64_t *reported;        /* --timing-queries: the first pixels reported back, in order */
	unsigned reported_count;
	int64_t refresh_ns; /* 0: not known (yet) */
	int64_t last_target_ns;

	/* Submission slots, used by the submit thread. */
	VkCommandPool pool;
	VkCommandBuffer cmd[SLOTS];
	VkSemaphore acquired[SLOTS];
	VkFence done[SLOTS];
	VkSemaphore sleep_semaphore; /* timeline, for vkLatencySleepNV */
	uint64_t sleep_value;

	/* Shared, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t cond; /* any change below */
	int submit_ring[SLOTS];
	unsigned submit_head, submit_tail;
	struct frame_entry frame_ring[SLOTS];
	unsigned frame_head, frame_tail;
	int completed;         /* the last frame signalled to the game thread */
	int handed;            /* the last frame handed to the frame thread */
	int64_t last_shown_ns; /* when the last present wait returned (the target grid's phase) */
	bool failed;

	struct frame_record *rec; /* [frames + 1], frame numbers from 1 */
	unsigned presented, out_of_date, suboptimal, recreates, wait_timeouts, targets;
};

static void fail(struct engine *e, const char *what, VkResult r)
{
	fprintf(stderr, "%s: %s failed: %s\n", e->o->name, what, result_name(r));
	pthread_mutex_lock(&e->lock);
	e->failed = true;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

static bool has_extension(const VkExtensionProperties *list, uint32_t count, const char *name)
{
	for (uint32_t i = 0; i < count; i++)
		if (!strcmp(list[i].extensionName, name))
			return true;
	return false;
}

static uint64_t present_id_of(const struct engine *e, int frame)
{
	/* vkd3d-proton's ids increase but are not contiguous: skip one value every 4 frames. */
	return e->o->skip_ids ? (uint64_t)frame + (uint64_t)frame / 4 : (uint64_t)frame;
}

static VkResult create_instance(struct engine *e)
{
	VkExtensionProperties available[64];
	uint32_t count = 64;
	const char *names[2];
	uint32_t n = 0;
	VkResult r = vkEnumerateInstanceExtensionProperties(NULL, &count, available);

	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return r;
	if (has_extension(available, count, VK_KHR_GET_SURFACE_CAPABILITIES_2_EXTENSION_NAME))
		names[n++] = VK_KHR_GET_SURFACE_CAPABILITIES_2_EXTENSION_NAME;
	if (has_extension(available, count, VK_KHR_SURFACE_MAINTENANCE_1_EXTENSION_NAME))
		names[n++] = VK_KHR_SURFACE_MAINTENANCE_1_EXTENSION_NAME;
	else if (has_extension(available, count, VK_EXT_SURFACE_MAINTENANCE_1_EXTENSION_NAME))
		names[n++] = VK_EXT_SURFACE_MAINTENANCE_1_EXTENSION_NAME;

	const struct instance_params params = {.app_name = e->o->name,
	                                       .engine_name = e->o->engine_name,
	                                       .api_version = VK_API_VERSION_1_3,
	                                       .headless = true,
	                                       .extra = names,
	                                       .extra_count = n};
	return headless_setup(&params, &e->instance, &e->surface, &e->physical, &e->family);
}

/* The device with what the options ask for, where offered. Returns ENGINE_EXIT_SKIP through *skip
 * when the latency sleep was asked for and VK_NV_low_latency2 is not offered. */
static VkResult create_device(struct engine *e, bool *skip)
{
	static VkExtensionProperties available[512];
	uint32_t count = 512;
	const char *names[12];
	uint32_t n = 0;
	VkResult r = vkEnumerateDeviceExtensionProperties(e->physical, NULL, &count, available);

	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return r;
	/* And those the enabled layers provide, which a layer may list only when asked by its name
	 * (Arm's WSI layer does), as an app that enables layers looks for them. */
	VkLayerProperties layers[16];
	uint32_t layer_count = 16;
	if (vkEnumerateDeviceLayerProperties(e->physical, &layer_count, layers) >= VK_SUCCESS) {
		for (uint32_t l = 0; l < layer_count && count < 512; l++) {
			uint32_t more = 512 - count;
			if (vkEnumerateDeviceExtensionProperties(e->physical, layers[l].layerName, &more,
			                                         available + count) >= VK_SUCCESS)
				count += more;
		}
	}
	names[n++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
	e->has_present_id = has_extension(available, count, VK_KHR_PRESENT_ID_EXTENSION_NAME);
	if (e->has_present_id)
		names[n++] = VK_KHR_PRESENT_ID_EXTENSION_NAME;
	e->has_present_wait = e->o->present_wait && e->has_present_id &&
	                      has_extension(available, count, VK_KHR_PRESENT_WAIT_EXTENSION_NAME);
	if (e->has_present_wait)
		names[n++] = VK_KHR_PRESENT_WAIT_EXTENSION_NAME;
	if (e->o->switch_modes) {
		if (has_extension(available, count, VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME))
			names[n++] = VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME,
			e->has_maintenance1 = true;
		else if (has_extension(available, count, VK_EXT_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME))
			names[n++] = VK_EXT_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME,
			e->has_maintenance1 = true;
		else
			printf("%s: swapchain_maintenance1 not offered: no per-present mode switching\n",
			       e->o->name);
	}
	/* Present timing needs the KHR calibrated timestamps; a layer over a driver with only the EXT
	 * form (Arm's over lavapipe) takes that instead. */
	const char *calibrated =
	        has_extension(available, count, VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME)
	                ? VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME
	        : has_extension(available, count, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME)
	                ? VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME
	                : NULL;
	if ((e->o->target_fps > 0 || e->o->timing_queries) && calibrated &&
	    has_extension(available, count, VK_EXT_PRESENT_TIMING_EXTENSION_NAME) &&
	    has_extension(available, count, VK_KHR_PRESENT_ID_2_EXTENSION_NAME)) {
		names[n++] = VK_EXT_PRESENT_TIMING_EXTENSION_NAME;
		names[n++] = VK_KHR_PRESENT_ID_2_EXTENSION_NAME;
		names[n++] = calibrated;
		e->has_timing = true;
	}
	if (e->o->latest_ready) {
		if (has_extension(available, count, VK_KHR_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME))
			names[n++] = VK_KHR_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME,
			e->has_latest_ready = true;
		else if (has_extension(available, count,
		                       VK_EXT_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME))
			names[n++] = VK_EXT_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME,
			e->has_latest_ready = true;
		else
			printf("%s: FIFO_LATEST_READY not offered: FIFO instead\n", e->o->name);
	}
	if (e->o->target_fps > 0 && !e->has_timing)
		printf("%s: VK_EXT_present_timing not offered: no targets of its own\n", e->o->name);
	if (e->o->latency_sleep) {
		e->has_ll2 = e->has_present_id &&
		             has_extension(available, count, VK_NV_LOW_LATENCY_2_EXTENSION_NAME);
		if (!e->has_ll2) {
			printf("%s: VK_NV_low_latency2 not offered\n", e->o->name);
			*skip = true;
			return VK_ERROR_EXTENSION_NOT_PRESENT;
		}
		names[n++] = VK_NV_LOW_LATENCY_2_EXTENSION_NAME;
	}

	/* Only the feature structs of the extensions enabled (validation checks that). */
	const void *chain = NULL;
	VkPhysicalDeviceTimelineSemaphoreFeatures timeline = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
	        .timelineSemaphore = VK_TRUE};
	VkPhysicalDevicePresentIdFeaturesKHR id = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR, .presentId = VK_TRUE};
	VkPhysicalDevicePresentWaitFeaturesKHR wait = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR, .presentWait = VK_TRUE};
	VkPhysicalDeviceSwapchainMaintenance1FeaturesKHR m1 = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_KHR,
	        .swapchainMaintenance1 = VK_TRUE};
	VkPhysicalDevicePresentModeFifoLatestReadyFeaturesKHR latest = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_MODE_FIFO_LATEST_READY_FEATURES_KHR,
	        .presentModeFifoLatestReady = VK_TRUE};
	VkPhysicalDevicePresentId2FeaturesKHR id2 = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR, .presentId2 = VK_TRUE};
	VkPhysicalDevicePresentTimingFeaturesEXT timing = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT,
	        .presentTiming = VK_TRUE,
	        .presentAtAbsoluteTime = e->o->target_fps > 0};
#define LINK(s, on)                                                                                          \
	do {                                                                                                 \
		if (on) {                                                                                    \
			(s).pNext = (void *)chain;                                                           \
			chain = &(s);                                                                        \
		}                                                                                            \
	} while (0)
	LINK(timeline, e->has_ll2);
	LINK(id, e->has_present_id);
	LINK(wait, e->has_present_wait);
	LINK(m1, e->has_maintenance1);
	LINK(latest, e->has_latest_ready);
	LINK(id2, e->has_timing);
	LINK(timing, e->has_timing);
#undef LINK
	r = device_create_with(e->physical, e->family, names, n, chain, NULL, &e->device);
	if (r != VK_SUCCESS)
		return r;
	vkGetDeviceQueue(e->device, e->family, 0, &e->queue);
#define LOAD(name) e->name = (PFN_vk##name)vkGetDeviceProcAddr(e->device, "vk" #name)
	if (e->has_present_wait)
		LOAD(WaitForPresentKHR);
	if (e->has_ll2) {
		LOAD(LatencySleepNV);
		LOAD(SetLatencySleepModeNV);
		LOAD(SetLatencyMarkerNV);
	}
	if (e->has_timing) {
		LOAD(GetSwapchainTimingPropertiesEXT);
		LOAD(GetSwapchainTimeDomainPropertiesEXT);
		LOAD(GetPastPresentationTimingEXT);
		LOAD(SetSwapchainPresentTimingQueueSizeEXT);
	}
#undef LOAD
	if ((e->has_present_wait && !e->WaitForPresentKHR) ||
	    (e->has_ll2 && (!e->LatencySleepNV || !e->SetLatencySleepModeNV || !e->SetLatencyMarkerNV)))
		return VK_ERROR_INITIALIZATION_FAILED;
	if (e->has_timing && (!e->GetSwapchainTimingPropertiesEXT || !e->GetSwapchainTimeDomainPropertiesEXT))
		return VK_ERROR_INITIALIZATION_FAILED;
	printf("%s: present id %s, present wait %s, swapchain_maintenance1 %s, present timing %s, "
	       "VK_NV_low_latency2 %s\n",
	       e->o->name, e->has_present_id ? "yes" : "no", e->has_present_wait ? "yes" : "no",
	       e->has_maintenance1 ? "yes" : "no", e->has_timing ? "yes" : "no", e->has_ll2 ? "yes" : "no");
	return VK_SUCCESS;
}

/* Whether the surface offers mode. */
static bool offers_mode(struct engine *e, VkPresentModeKHR mode)
{
	VkPresentModeKHR modes[16];
	uint32_t count = 16;

	if (vkGetPhysicalDeviceSurfacePresentModesKHR(e->physical, e->surface, &count, modes) < VK_SUCCESS)
		return false;
	for (uint32_t i = 0; i < count; i++)
		if (modes[i] == mode)
			return true;
	return false;
}

/* The swapchain's mode (FIFO, FIFO_LATEST_READY or FIFO_RELAXED), then the modes a present may
 * switch to: those of FIFO_RELAXED and IMMEDIATE the surface reports compatible with FIFO. False
 * when the surface lacks the mode asked for. */
static bool pick_modes(struct engine *e)
{
	e->modes[0] = e->has_latest_ready ? VK_PRESENT_MODE_FIFO_LATEST_READY_KHR : VK_PRESENT_MODE_FIFO_KHR;
	e->mode_count = 1;
	if (e->o->relaxed) {
		if (!offers_mode(e, VK_PRESENT_MODE_FIFO_RELAXED_KHR)) {
			fprintf(stderr, "%s: the surface offers no FIFO_RELAXED\n", e->o->name);
			return false;
		}
		e->modes[0] = VK_PRESENT_MODE_FIFO_RELAXED_KHR;
		return true;
	}
	if (!e->has_maintenance1)
		return true;
	VkPresentModeKHR compatible[16];
	VkSurfacePresentModeKHR asked = {.sType = VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_KHR,
	                                 .presentMode = VK_PRESENT_MODE_FIFO_KHR};
	VkPhysicalDeviceSurfaceInfo2KHR si = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SURFACE_INFO_2_KHR,
	                                      .pNext = &asked,
	                                      .surface = e->surface};
	VkSurfacePresentModeCompatibilityKHR compat = {
	        .sType = VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_COMPATIBILITY_KHR,
	        .presentModeCount = 16,
	        .pPresentModes = compatible};
	VkSurfaceCapabilities2KHR caps = {.sType = VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_2_KHR,
	                                  .pNext = &compat};
	if (vkGetPhysicalDeviceSurfaceCapabilities2KHR(e->physical, &si, &caps) != VK_SUCCESS)
		return true;
	for (uint32_t i = 0; i < compat.presentModeCount; i++)
		if (compatible[i] == VK_PRESENT_MODE_FIFO_RELAXED_KHR)
			e->modes[e->mode_count++] = compatible[i];
	for (uint32_t i = 0; i < compat.presentModeCount; i++)
		if (compatible[i] == VK_PRESENT_MODE_IMMEDIATE_KHR)
			e->modes[e->mode_count++] = compatible[i];
	return true;
}

/* Creates the swapchain (never with oldSwapchain: DXVK and vkd3d-proton destroy the old one
 * first) and its per-image semaphores. */
/* The first-pixel stage's clock minus CLOCK_MONOTONIC, from one calibrated pair of readings. */
static bool calibrate_targets(struct engine *e)
{
	PFN_vkGetCalibratedTimestampsKHR calibrated = (PFN_vkGetCalibratedTimestampsKHR)vkGetDeviceProcAddr(
	        e->device, "vkGetCalibratedTimestampsKHR");
	const VkSwapchainCalibratedTimestampInfoEXT stage = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CALIBRATED_TIMESTAMP_INFO_EXT,
	        .swapchain = e->swapchain,
	        .presentStage = VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT,
	        .timeDomainId = e->query_domain_id};
	const VkCalibratedTimestampInfoKHR infos[2] = {
	        {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR,
	         .pNext = &stage,
	         .timeDomain = VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT},
	        {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR,
	         .timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR}};
	uint64_t t[2], deviation;

	if (!calibrated || calibrated(e->device, 2, infos, t, &deviation) != VK_SUCCESS || !t[0])
		return false;
	e->target_offset_ns = (int64_t)(t[0] - t[1]);
	return true;
}

static VkResult chain_create(struct engine *e, VkExtent2D extent)
{
	VkResult r;

	const void *chain = NULL;
	VkSwapchainPresentModesCreateInfoKHR modes = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODES_CREATE_INFO_KHR,
	        .presentModeCount = e->mode_count,
	        .pPresentModes = e->modes};
	if (e->has_maintenance1)
		chain = &modes;
	VkSwapchainLatencyCreateInfoNV latency = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_LATENCY_CREATE_INFO_NV,
	                                          .pNext = chain,
	                                          .latencyModeEnable = VK_TRUE};
	if (e->has_ll2)
		chain = &latency;
	/* Never with oldSwapchain: DXVK and vkd3d-proton destroy the old one first. */
	const struct swapchain_params params = {
	        .physical = e->physical,
	        .surface = e->surface,
	        .window_size = extent,
	        .mode = e->modes[0],
	        .next = chain,
	        .flags = e->has_timing ? VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT : 0,
	};
	r = swapchain_create(e->device, &params, NULL, &e->swapchain, &e->extent);
	if (r != VK_SUCCESS)
		return r;
	e->image_count = MAX_IMAGES;
	r = vkGetSwapchainImagesKHR(e->device, e->swapchain, &e->image_count, e->images);
	if (r != VK_SUCCESS)
		return r;
	for (uint32_t i = 0; i < e->image_count; i++) {
		const VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
		r = vkCreateSemaphore(e->device, &sci, NULL, &e->rendered[i]);
		if (r != VK_SUCCESS)
			return r;
	}
	if (e->has_ll2) {
		/* As DXVK's NV tracker: low-latency mode on, the interval from its own frame limit. */
		const VkLatencySleepModeInfoNV mode = {
		        .sType = VK_STRUCTURE_TYPE_LATENCY_SLEEP_MODE_INFO_NV,
		        .lowLatencyMode = VK_TRUE,
		        .minimumIntervalUs =
		                e->o->latency_sleep_fps ? 1000000u / e->o->latency_sleep_fps : 0};
		r = e->SetLatencySleepModeNV(e->device, e->swapchain, &mode);
		if (r != VK_SUCCESS)
			return r;
	}
	e->refresh_ns = 0;
	e->last_target_ns = 0;
	if (e->has_timing) {
		VkTimeDomainKHR domains[8];
		uint64_t ids[8];
		VkSwapchainTimeDomainPropertiesEXT dp = {
		        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_TIME_DOMAIN_PROPERTIES_EXT,
		        .timeDomainCount = 8,
		        .pTimeDomains = domains,
		        .pTimeDomainIds = ids};
		r = e->GetSwapchainTimeDomainPropertiesEXT(e->device, e->swapchain, &dp, NULL);
		if (r != VK_SUCCESS && r != VK_INCOMPLETE)
			return r;
		e->time_domain_id = UINT64_MAX;
		for (uint32_t i = 0; i < dp.timeDomainCount; i++)
			if (domains[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR)
				e->time_domain_id = ids[i];
		/* Room for the reports of as many presents as DXGI has buffers (16), as vkd3d-proton
		 * sizes it (libs/vkd3d/swapchain.c); a new swapchain has none. */
		r = e->SetSwapchainPresentTimingQueueSizeEXT(e->device, e->swapchain, 16);
		if (r != VK_SUCCESS)
			return r;
		/* vkd3d-proton takes the present-stage-local domain, which every implementation has. */
		e->query_domain_id = dp.timeDomainCount ? ids[0] : 0;
		for (uint32_t i = 0; i < dp.timeDomainCount; i++)
			if (domains[i] == VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT)
				e->query_domain_id = ids[i];
		/* Without CLOCK_MONOTONIC, targets on the first pixel's clock of the stage-local domain,
		 * calibrated against CLOCK_MONOTONIC as vkd3d-proton does. */
		e->target_offset_ns = 0;
		if (e->time_domain_id == UINT64_MAX && e->o->target_fps > 0) {
			if (calibrate_targets(e))
				e->time_domain_id = e->query_domain_id;
			else
				printf("%s: the swapchain's time domain cannot be calibrated: no targets\n",
				       e->o->name);
		}
	}
	return VK_SUCCESS;
}

static void chain_destroy(struct engine *e)
{
	for (uint32_t i = 0; i < e->image_count; i++)
		vkDestroySemaphore(e->device, e->rendered[i], NULL);
	vkDestroySwapchainKHR(e->device, e->swapchain, NULL);
	e->swapchain = VK_NULL_HANDLE;
	e->image_count = 0;
}

/* Destroys the swapchain and makes a new one (the submit thread, between frames). */
static VkResult recreate(struct engine *e, VkExtent2D extent)
{
	VkResult r;

	/* The frame thread must be done with every frame presented to the old swapchain. */
	pthread_mutex_lock(&e->lock);
	while (e->completed < e->handed && !e->failed)
		pthread_cond_wait(&e->cond, &e->lock);
	pthread_mutex_unlock(&e->lock);
	r = vkQueueWaitIdle(e->queue);
	if (r != VK_SUCCESS)
		return r;
	pthread_mutex_lock(&e->sc_lock);
	chain_destroy(e);
	r = chain_create(e, extent);
	e->generation++;
	pthread_mutex_unlock(&e->sc_lock);
	e->recreates++;
	return r;
}

static void marker(struct engine *e, int frame, VkLatencyMarkerNV m)
{
	if (!e->has_ll2)
		return;
	const VkSetLatencyMarkerInfoNV info = {.sType = VK_STRUCTURE_TYPE_SET_LATENCY_MARKER_INFO_NV,
	                                       .presentID = present_id_of(e, frame),
	                                       .marker = m};
	pthread_mutex_lock(&e->sc_lock);
	e->SetLatencyMarkerNV(e->device, e->swapchain, &info);
	pthread_mutex_unlock(&e->sc_lock);
}

/* The game thread's latency sleep, as DXVK's NV tracker calls it: vkLatencySleepNV signals a
 * timeline semaphore when the frame may start, and the thread waits for it. */
static bool latency_sleep(struct engine *e)
{
	uint64_t value = ++e->sleep_value;
	const VkLatencySleepInfoNV info = {.sType = VK_STRUCTURE_TYPE_LATENCY_SLEEP_INFO_NV,
	                                   .signalSemaphore = e->sleep_semaphore,
	                                   .value = value};
	pthread_mutex_lock(&e->sc_lock);
	VkResult r = e->LatencySleepNV(e->device, e->swapchain, &info);
	pthread_mutex_unlock(&e->sc_lock);
	if (r != VK_SUCCESS) {
		fail(e, "vkLatencySleepNV", r);
		return false;
	}
	const VkSemaphoreWaitInfo wait = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
	                                  .semaphoreCount = 1,
	                                  .pSemaphores = &e->sleep_semaphore,
	                                  .pValues = &value};
	r = vkWaitSemaphores(e->device, &wait, WAIT_TIMEOUT_NS);
	if (r != VK_SUCCESS) {
		fail(e, "vkWaitSemaphores after vkLatencySleepNV", r);
		return false;
	}
	return true;
}

static void *game_main(void *arg)
{
	struct engine *e = arg;

	for (int frame = 1; frame <= e->o->frames; frame++) {
		/* SyncFrameLatency: frame N waits until frame N - L has been signalled. */
		pthread_mutex_lock(&e->lock);
		while (e->completed < frame - e->o->latency && !e->failed)
			pthread_cond_wait(&e->cond, &e->lock);
		bool failed = e->failed;
		pthread_mutex_unlock(&e->lock);
		if (failed || (e->has_ll2 && !latency_sleep(e)))
			break;
		e->rec[frame].start_ns = now_ns();
		marker(e, frame, VK_LATENCY_MARKER_SIMULATION_START_NV);
		marker(e, frame, VK_LATENCY_MARKER_SIMULATION_END_NV);
		pthread_mutex_lock(&e->lock);
		e->submit_ring[e->submit_tail++ % SLOTS] = frame;
		pthread_cond_broadcast(&e->cond);
		pthread_mutex_unlock(&e->lock);
	}
	pthread_mutex_lock(&e->lock);
	e->submit_ring[e->submit_tail++ % SLOTS] = 0;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* The target of this frame's present: the next point of the app's own grid (n refreshes a frame,
 * phase from the last present wait) at least half a refresh ahead. 0: none (not known yet). */
static int64_t next_target(struct engine *e, int64_t now)
{
	if (!e->has_timing || e->time_domain_id == UINT64_MAX || e->o->target_fps <= 0)
		return 0;
	if (!e->refresh_ns) {
		VkSwapchainTimingPropertiesEXT tp = {
		        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_TIMING_PROPERTIES_EXT};
		uint64_t counter;
		if (e->GetSwapchainTimingPropertiesEXT(e->device, e->swapchain, &tp, &counter) !=
		            VK_SUCCESS ||
		    !tp.refreshDuration)
			return 0;
		e->refresh_ns = (int64_t)tp.refreshDuration;
	}
	int64_t n = llround(1e9 / (double)e->refresh_ns / e->o->target_fps);
	int64_t step = (n < 1 ? 1 : n) * e->refresh_ns, target = e->last_target_ns;
	if (!target) {
		pthread_mutex_lock(&e->lock);
		target = e->last_shown_ns;
		pthread_mutex_unlock(&e->lock);
		if (!target)
			return 0;
	}
	target += step;
	while (target < now + e->refresh_ns / 2)
		target += step;
	e->last_target_ns = target;
	return target;
}

/* --timing-queries: the reports the driver has (complete ones, in present order), their first
 * pixels kept in e->reported (the app's own clock: the swapchain's time domain). Read on the frame
 * thread after each frame's wait, while the submit thread presents, as vkd3d-proton's
 * swapchain-sync thread does (dxgi_vk_swap_chain_update_frame_statistics after its present wait). */
static void read_reports(struct engine *e, VkSwapchainKHR swapchain)
{
	VkPastPresentationTimingEXT results[8];
	VkPresentStageTimeEXT stages[8][4];
	VkPastPresentationTimingPropertiesEXT props = {
	        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_PROPERTIES_EXT,
	        .presentationTimingCount = 8,
	        .pPresentationTimings = results};
	const VkPastPresentationTimingInfoEXT info = {
	        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_INFO_EXT, .swapchain = swapchain};

	for (unsigned i = 0; i < 8; i++)
		results[i] =
		        (VkPastPresentationTimingEXT){.sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_EXT,
		                                      .presentStageCount = 4,
		                                      .pPresentStages = stages[i]};
	VkResult r = e->GetPastPresentationTimingEXT(e->device, &info, &props);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return;
	for (uint32_t i = 0; i < props.presentationTimingCount; i++)
		for (uint32_t s = 0; s < results[i].presentStageCount; s++)
			if (results[i].pPresentStages[s].stage ==
			            VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT &&
			    results[i].pPresentStages[s].time && e->reported_count < (unsigned)e->o->frames)
				e->reported[e->reported_count++] = (int64_t)results[i].pPresentStages[s].time;
}

static int compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* How close to their median a gap between reported first pixels counts as on it. */
#define REPORTED_NEAR_NS 500000

/* The median spacing of the first pixels the app read back, 0 with fewer than two, and how many of
 * the spacings lie within REPORTED_NEAR_NS of it. */
static int64_t reported_median_ns(struct engine *e, unsigned *near)
{
	unsigned gaps = e->reported_count - 1;

	*near = 0;
	if (e->reported_count < 2)
		return 0;
	for (unsigned i = 0; i < gaps; i++)
		e->reported[i] = e->reported[i + 1] - e->reported[i];
	qsort(e->reported, gaps, sizeof(e->reported[0]), compare_i64);
	int64_t median = e->reported[(gaps - 1) / 2];
	for (unsigned i = 0; i < gaps; i++)
		*near += llabs(e->reported[i] - median) <= REPORTED_NEAR_NS;
	return median;
}

/* One frame on the submit thread: acquire (recreating on OUT_OF_DATE), clear, submit, present. */
static bool submit_frame(struct engine *e, int frame)
{
	const int slot = frame % SLOTS;
	struct frame_record *rec = &e->rec[frame];
	uint32_t index;
	VkResult r;

	/* The slot's last frame must have been signalled: the frame thread may wait on its fence. */
	pthread_mutex_lock(&e->lock);
	while (e->completed < frame - SLOTS && !e->failed)
		pthread_cond_wait(&e->cond, &e->lock);
	pthread_mutex_unlock(&e->lock);
	if ((r = vkWaitForFences(e->device, 1, &e->done[slot], VK_TRUE, WAIT_TIMEOUT_NS)) != VK_SUCCESS ||
	    (r = vkResetFences(e->device, 1, &e->done[slot])) != VK_SUCCESS) {
		fail(e, "waiting for a submission slot", r);
		return false;
	}
	if (e->o->resize_at && frame == e->o->resize_at && (r = recreate(e, resized_extent)) != VK_SUCCESS) {
		fail(e, "recreating the swapchain at a new size", r);
		return false;
	}
	for (;;) {
		r = vkAcquireNextImageKHR(e->device, e->swapchain, WAIT_TIMEOUT_NS, e->acquired[slot],
		                          VK_NULL_HANDLE, &index);
		if (r != VK_ERROR_OUT_OF_DATE_KHR)
			break;
		e->out_of_date++;
		if ((r = recreate(e, e->extent)) != VK_SUCCESS) {
			fail(e, "recreating an out-of-date swapchain", r);
			return false;
		}
	}
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) {
		fail(e, "vkAcquireNextImageKHR", r);
		return false;
	}
	bool stale = r == VK_SUBOPTIMAL_KHR;
	const VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
	marker(e, frame, VK_LATENCY_MARKER_RENDERSUBMIT_START_NV);
	if ((r = vkBeginCommandBuffer(e->cmd[slot], &begin)) != VK_SUCCESS) {
		fail(e, "vkBeginCommandBuffer", r);
		return false;
	}
	record_clear(e->cmd[slot], e->images[index], (unsigned)frame, 0.5f);
	if ((r = vkEndCommandBuffer(e->cmd[slot])) != VK_SUCCESS) {
		fail(e, "vkEndCommandBuffer", r);
		return false;
	}
	const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	const VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	                             .waitSemaphoreCount = 1,
	                             .pWaitSemaphores = &e->acquired[slot],
	                             .pWaitDstStageMask = &stage,
	                             .commandBufferCount = 1,
	                             .pCommandBuffers = &e->cmd[slot],
	                             .signalSemaphoreCount = 1,
	                             .pSignalSemaphores = &e->rendered[index]};
	if ((r = vkQueueSubmit(e->queue, 1, &submit, e->done[slot])) != VK_SUCCESS) {
		fail(e, "vkQueueSubmit", r);
		return false;
	}
	marker(e, frame, VK_LATENCY_MARKER_RENDERSUBMIT_END_NV);

	/* The present: an id, a mode per present where switching, the app's own target. */
	uint64_t id = present_id_of(e, frame);
	VkPresentModeKHR mode = e->modes[e->o->switch_modes ? (frame / 40) % e->mode_count : 0];
	const void *chain = NULL;
	VkPresentIdKHR pid = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR, .swapchainCount = 1, .pPresentIds = &id};
	if (e->has_present_id)
		chain = &pid;
	VkSwapchainPresentModeInfoKHR pm = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODE_INFO_KHR,
	                                    .pNext = chain,
	                                    .swapchainCount = 1,
	                                    .pPresentModes = &mode};
	if (e->has_maintenance1)
		chain = &pm;
	int64_t now = now_ns(), target = mode == VK_PRESENT_MODE_IMMEDIATE_KHR ? 0 : next_target(e, now);
	/* A stage clock drifts: its offset taken again for every target on it. */
	if (target && e->target_offset_ns)
		calibrate_targets(e);
	VkPresentTimingInfoEXT ti = {.sType = VK_STRUCTURE_TYPE_PRESENT_TIMING_INFO_EXT,
	                             .flags = VK_PRESENT_TIMING_INFO_PRESENT_AT_NEAREST_REFRESH_CYCLE_BIT_EXT,
	                             .targetTime = (uint64_t)(target + e->target_offset_ns),
	                             .timeDomainId = e->time_domain_id,
	                             .targetTimeDomainPresentStage =
	                                     VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT};
	VkPresentTimingsInfoEXT tis = {.sType = VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT,
	                               .pNext = chain,
	                               .swapchainCount = 1,
	                               .pTimingInfos = &ti};
	if (target) {
		chain = &tis;
		e->targets++;
	} else if (e->o->timing_queries && e->has_timing) {
		/* No target: the first pixel asked for, on the swapchain's own domain. */
		ti = (VkPresentTimingInfoEXT){.sType = VK_STRUCTURE_TYPE_PRESENT_TIMING_INFO_EXT,
		                              .timeDomainId = e->query_domain_id,
		                              .presentStageQueries =
		                                      VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT};
		chain = &tis;
	}
	const VkPresentInfoKHR present = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
	                                  .pNext = chain,
	                                  .waitSemaphoreCount = 1,
	                                  .pWaitSemaphores = &e->rendered[index],
	                                  .swapchainCount = 1,
	                                  .pSwapchains = &e->swapchain,
	                                  .pImageIndices = &index};
	marker(e, frame, VK_LATENCY_MARKER_PRESENT_START_NV);
	rec->present_ns = now_ns();
	r = vkQueuePresentKHR(e->queue, &present);
	rec->release_ns = now_ns();
	marker(e, frame, VK_LATENCY_MARKER_PRESENT_END_NV);
	rec->present_id = e->has_present_id ? id : 0;
	rec->swapchain = e->generation;
	rec->mode = mode;
	rec->result = r;
	rec->target_ns = target;
	if (r == VK_SUCCESS || r == VK_SUBOPTIMAL_KHR)
		e->presented++;
	if (r == VK_SUBOPTIMAL_KHR)
		e->suboptimal++, stale = true;
	if (r == VK_ERROR_OUT_OF_DATE_KHR)
		e->out_of_date++, stale = true;
	else if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) {
		fail(e, "vkQueuePresentKHR", r);
		return false;
	}

	pthread_mutex_lock(&e->lock);
	e->frame_ring[e->frame_tail++ % SLOTS] = (struct frame_entry){.frame = frame,
	                                                              .swapchain = e->swapchain,
	                                                              .present_id = id,
	                                                              .mode = mode,
	                                                              .result = r,
	                                                              .slot = slot};
	e->handed = frame;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	/* DXVK recreates on the next present after SUBOPTIMAL or OUT_OF_DATE; so does this. */
	if (stale && (r = recreate(e, e->extent)) != VK_SUCCESS) {
		fail(e, "recreating a stale swapchain", r);
		return false;
	}
	return true;
}

static void *submit_main(void *arg)
{
	struct engine *e = arg;
	int frame;

	do {
		pthread_mutex_lock(&e->lock);
		while (e->submit_head == e->submit_tail && !e->failed)
			pthread_cond_wait(&e->cond, &e->lock);
		frame = e->failed ? 0 : e->submit_ring[e->submit_head++ % SLOTS];
		pthread_mutex_unlock(&e->lock);
	} while (frame && submit_frame(e, frame));
	pthread_mutex_lock(&e->lock);
	e->frame_ring[e->frame_tail++ % SLOTS] = (struct frame_entry){.frame = 0};
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

static void *frame_main(void *arg)
{
	struct engine *e = arg;

	for (;;) {
		pthread_mutex_lock(&e->lock);
		while (e->frame_head == e->frame_tail)
			pthread_cond_wait(&e->cond, &e->lock);
		struct frame_entry f = e->frame_ring[e->frame_head++ % SLOTS];
		pthread_mutex_unlock(&e->lock);
		if (!f.frame)
			break;
		VkResult r;
		int64_t shown = 0;
		/* As DXVK's frame thread: present wait only for presents that succeeded, in FIFO modes
		 * (elsewhere it would tie the app to the refresh rate); else the frame's GPU work. */
		if (e->has_present_wait && f.result >= 0 &&
		    (f.mode == VK_PRESENT_MODE_FIFO_KHR || f.mode == VK_PRESENT_MODE_FIFO_RELAXED_KHR)) {
			r = e->WaitForPresentKHR(e->device, f.swapchain, f.present_id, WAIT_TIMEOUT_NS);
			e->rec[f.frame].waited_ns = now_ns();
			if (r == VK_SUCCESS)
				shown = now_ns();
			else if (r == VK_TIMEOUT)
				e->wait_timeouts++;
			else if (r != VK_ERROR_OUT_OF_DATE_KHR && r != VK_SUBOPTIMAL_KHR)
				fail(e, "vkWaitForPresentKHR", r);
		} else if ((r = vkWaitForFences(e->device, 1, &e->done[f.slot], VK_TRUE, WAIT_TIMEOUT_NS)) !=
		           VK_SUCCESS) {
			fail(e, "waiting for a frame's fence", r);
		}
		if (e->o->timing_queries && e->has_timing && f.result >= 0)
			read_reports(e, f.swapchain);
		pthread_mutex_lock(&e->lock);
		e->rec[f.frame].signal_ns = now_ns();
		if (shown)
			e->last_shown_ns = shown;
		e->completed = f.frame;
		pthread_cond_broadcast(&e->cond);
		pthread_mutex_unlock(&e->lock);
	}
	return NULL;
}

static const char *mode_name(VkPresentModeKHR m)
{
	switch (m) {
	case VK_PRESENT_MODE_FIFO_KHR: return "FIFO";
	case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return "FIFO_RELAXED";
	case VK_PRESENT_MODE_IMMEDIATE_KHR: return "IMMEDIATE";
	case VK_PRESENT_MODE_FIFO_LATEST_READY_KHR: return "FIFO_LATEST_READY";
	default: return "other";
	}
}

static bool write_csv(const struct engine *e)
{
	FILE *f = fopen(e->o->csv, "w");

	if (!f) {
		perror(e->o->csv);
		return false;
	}
	fprintf(f, "frame,swapchain,present_id,mode,result,start_ns,present_ns,release_ns,waited_ns,signal_"
	           "ns,target_ns\n");
	for (int i = 1; i <= e->o->frames; i++) {
		const struct frame_record *r = &e->rec[i];
		fprintf(f,
		        "%d,%u,%" PRIu64 ",%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
		        ",%" PRId64 "\n",
		        i, r->swapchain, r->present_id, mode_name(r->mode), result_name(r->result),
		        r->start_ns, r->present_ns, r->release_ns, r->waited_ns, r->signal_ns, r->target_ns);
	}
	return fclose(f) == 0;
}

int engine_run(const struct engine_options *o)
{
	struct engine *e = calloc(1, sizeof(*e));
	pthread_t game, submit, frame;
	bool skip = false;
	int status = 1;
	VkResult r;

	if (!e || !(e->rec = calloc((size_t)o->frames + 1, sizeof(*e->rec))) ||
	    !(e->reported = calloc((size_t)o->frames + 1, sizeof(*e->reported)))) {
		fprintf(stderr, "%s: out of memory\n", o->name);
		return 1;
	}
	e->o = o;
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_init(&e->sc_lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	if ((r = create_instance(e)) != VK_SUCCESS) {
		fprintf(stderr, "%s: no instance, headless surface or device: %s\n", o->name, result_name(r));
		goto out_instance;
	}
	if ((r = create_device(e, &skip)) != VK_SUCCESS) {
		if (skip)
			status = ENGINE_EXIT_SKIP;
		else
			fprintf(stderr, "%s: vkCreateDevice: %s\n", o->name, result_name(r));
		goto out_instance;
	}
	r = VK_SUCCESS;
	if (!pick_modes(e))
		goto out_device;
	const VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                     .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	                                     .queueFamilyIndex = e->family};
	if ((r = vkCreateCommandPool(e->device, &pci, NULL, &e->pool)) != VK_SUCCESS)
		goto out_device;
	const VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                           .commandPool = e->pool,
	                                           .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                           .commandBufferCount = SLOTS};
	if ((r = vkAllocateCommandBuffers(e->device, &alloc, e->cmd)) != VK_SUCCESS)
		goto out_device;
	for (int i = 0; i < SLOTS; i++) {
		const VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
		const VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
		                               .flags = VK_FENCE_CREATE_SIGNALED_BIT};
		if ((r = vkCreateSemaphore(e->device, &sci, NULL, &e->acquired[i])) != VK_SUCCESS ||
		    (r = vkCreateFence(e->device, &fci, NULL, &e->done[i])) != VK_SUCCESS)
			goto out_device;
	}
	if (e->has_ll2) {
		const VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		                                        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
		const VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
		                                   .pNext = &type};
		if ((r = vkCreateSemaphore(e->device, &sci, NULL, &e->sleep_semaphore)) != VK_SUCCESS)
			goto out_device;
	}
	if ((r = chain_create(e, first_extent)) != VK_SUCCESS) {
		fprintf(stderr, "%s: vkCreateSwapchainKHR: %s\n", o->name, result_name(r));
		goto out_device;
	}
	int64_t t0 = now_ns();
	if (pthread_create(&frame, NULL, frame_main, e))
		goto out_swapchain;
	if (pthread_create(&submit, NULL, submit_main, e)) {
		/* The frame thread exits on the submit thread's exit entry: hand it one. */
		e->frame_ring[e->frame_tail++ % SLOTS] = (struct frame_entry){.frame = 0};
		pthread_cond_broadcast(&e->cond);
		pthread_join(frame, NULL);
		goto out_swapchain;
	}
	if (pthread_create(&game, NULL, game_main, e)) {
		fail(e, "starting the game thread", VK_ERROR_INITIALIZATION_FAILED);
	} else {
		pthread_join(game, NULL);
	}
	pthread_join(submit, NULL);
	pthread_join(frame, NULL);
	double seconds = (double)(now_ns() - t0) * 1e-9;
	if (!e->failed && write_csv(e)) {
		status = 0;
		printf("%s: %d frames in %.2f s, %u presented, %u out of date, %u suboptimal, %u recreates, "
		       "latency %d, frame signal %s, %u present-wait timeouts, %u targets\n",
		       o->name, o->frames, seconds, e->presented, e->out_of_date, e->suboptimal, e->recreates,
		       o->latency,
		       e->has_present_wait ? "present-wait in FIFO and FIFO_RELAXED, else fence" : "fence",
		       e->wait_timeouts, e->targets);
		if (o->timing_queries) {
			unsigned near;
			int64_t median = reported_median_ns(e, &near);
			printf("%s: %u own reports read back, first pixels %.3f ms apart at the median, %u "
			       "of "
			       "%u spacings within %.1f ms of it\n",
			       o->name, e->reported_count, (double)median * 1e-6, near,
			       e->reported_count ? e->reported_count - 1 : 0, REPORTED_NEAR_NS * 1e-6);
		}
	}
out_swapchain:
	vkDeviceWaitIdle(e->device);
	chain_destroy(e);
out_device:
	if (r != VK_SUCCESS && status == 1 && !skip)
		fprintf(stderr, "%s: setup failed: %s\n", o->name, result_name(r));
	vkDeviceWaitIdle(e->device);
	for (int i = 0; i < SLOTS; i++) {
		vkDestroySemaphore(e->device, e->acquired[i], NULL);
		vkDestroyFence(e->device, e->done[i], NULL);
	}
	vkDestroySemaphore(e->device, e->sleep_semaphore, NULL);
	vkDestroyCommandPool(e->device, e->pool, NULL);
	vkDestroyDevice(e->device, NULL);
out_instance:
	if (e->instance) {
		vkDestroySurfaceKHR(e->instance, e->surface, NULL);
		vkDestroyInstance(e->instance, NULL);
	}
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->sc_lock);
	pthread_mutex_destroy(&e->lock);
	free(e->rec);
	free(e->reported);
	free(e);
	return status;
}

int engine_main(int argc, char **argv, struct engine_options *o,
                int (*option)(struct engine_options *o, const char *a, const char *v),
                bool (*consistent)(const struct engine_options *o), int (*usage)(void))
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int took;
		if (!strcmp(a, "--frames") && v)
			o->frames = atoi(v), i++;
		else if (!strcmp(a, "--latency") && v)
			o->latency = atoi(v), i++;
		else if (!strcmp(a, "--relaxed"))
			o->relaxed = true;
		else if (!strcmp(a, "--csv") && v)
			o->csv = v, i++;
		else if ((took = option(o, a, v)) > 0)
			i += took - 1;
		else
			return usage();
	}
	if (!o->csv || o->frames < 1 || o->frames > 100000 || o->latency < 1 || o->latency > 6 ||
	    !consistent(o))
		return usage();
	return engine_run(o);
}
