/* vd_conformance.c — what a VK_EXT_present_timing implementation offers and does, seen from the app:
 * time domains and their ids, calibration of each stage's clock against CLOCK_MONOTONIC (and its
 * drift), target kinds, partial results, refresh reporting and its counter, FIFO_LATEST_READY, and
 * what a failed present does to its results slot. It runs on the virtual display's profiles and on
 * anyone else's implementation (Arm's WSI layer): it enables what is offered, uses only what the
 * spec lets it use, and prints `conf: ...` lines that e2e_conformance.py judges. It renders nothing
 * (a layout transition per frame) on a VK_EXT_headless_surface, so it needs no X server.
 *
 *   vd_conformance conformance [FRAMES]   everything above but the failed present
 *   vd_conformance failed-present         the 3rd present fails (LOWLAT_VDISPLAY_FAIL_PRESENT=3):
 *                                         does its results slot stay?
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "../apps/common.h"

#define CHECK_VK(call) CHECK_VK_OR_EXIT("conf", call)

#define MAX_IMAGES  FRAMES_MAX
#define MAX_RESULTS 4096
#define STAGE_COUNT 4
#define ALL_STAGES  0xfu
#define LOAD(name)  PFN_vk##name name

static void sleep_ns(int64_t ns)
{
	struct timespec ts = {ns / 1000000000, ns % 1000000000};
	nanosleep(&ts, NULL);
}

static const char *stage_name(uint32_t bit)
{
	switch (bit) {
	case VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT: return "QUEUE_OPERATIONS_END";
	case VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT: return "REQUEST_DEQUEUED";
	case VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT: return "IMAGE_FIRST_PIXEL_OUT";
	case VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT: return "IMAGE_FIRST_PIXEL_VISIBLE";
	default: return "?";
	}
}

static const char *domain_name(VkTimeDomainKHR d)
{
	switch ((int)d) {
	case VK_TIME_DOMAIN_DEVICE_KHR: return "DEVICE";
	case VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR: return "CLOCK_MONOTONIC";
	case VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_KHR: return "CLOCK_MONOTONIC_RAW";
	case VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT: return "PRESENT_STAGE_LOCAL";
	case VK_TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT: return "SWAPCHAIN_LOCAL";
	case VK_TIME_DOMAIN_MAX_ENUM_KHR: return "UNWRITTEN"; /* what the probe put there */
	default: return "OTHER";
	}
}

static const char *mode_name(VkPresentModeKHR m)
{
	switch ((int)m) {
	case VK_PRESENT_MODE_IMMEDIATE_KHR: return "IMMEDIATE";
	case VK_PRESENT_MODE_MAILBOX_KHR: return "MAILBOX";
	case VK_PRESENT_MODE_FIFO_KHR: return "FIFO";
	case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return "FIFO_RELAXED";
	case VK_PRESENT_MODE_FIFO_LATEST_READY_KHR: return "FIFO_LATEST_READY";
	case VK_PRESENT_MODE_SHARED_DEMAND_REFRESH_KHR: return "SHARED_DEMAND_REFRESH";
	case VK_PRESENT_MODE_SHARED_CONTINUOUS_REFRESH_KHR: return "SHARED_CONTINUOUS_REFRESH";
	default: return "OTHER";
	}
}

/* One calibration of one stage: CLOCK_MONOTONIC and the stage's clock, read together. */
struct cal {
	int64_t mono, stage;
};

struct result {
	uint64_t id;
	uint32_t count;
	VkPresentStageTimeEXT stages[STAGE_COUNT];
	VkTimeDomainKHR domain;
	uint64_t domain_id;
	int64_t presented_at; /* when the probe called vkQueuePresentKHR */
};

struct conf {
	struct headless h;
	uint32_t frame;
	bool has_timing, has_id2, has_wait2, has_latest_ready_ext, calibrated_khr;
	VkPresentTimingSurfaceCapabilitiesEXT caps;
	VkTimeDomainKHR domain; /* the swapchain domain the probe uses */
	uint64_t domain_id;
	VkPresentStageFlagsEXT stages; /* the stages the surface reports */
	/* presents */
	VkPresentTimingInfoEXT timing; /* chained into every present */
	uint64_t next_id;
	int64_t presented_at[MAX_RESULTS + 1];
	struct result results[MAX_RESULTS];
	uint32_t result_count;
	uint32_t partial_seen;
	bool counter_known;
	uint64_t counter_seen, counter_changes;
	LOAD(GetPhysicalDeviceCalibrateableTimeDomainsKHR);
	LOAD(GetCalibratedTimestampsKHR);
	LOAD(GetSwapchainTimingPropertiesEXT);
	LOAD(GetSwapchainTimeDomainPropertiesEXT);
	LOAD(SetSwapchainPresentTimingQueueSizeEXT);
	LOAD(GetPastPresentationTimingEXT);
	LOAD(WaitForPresent2KHR);
};

/* ---- device: whatever is offered, by the driver or by a layer ---- */

static bool offered(const VkExtensionProperties *props, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(props[i].extensionName, name))
			return true;
	return false;
}

/* The device extensions offered: the list without a layer name (the driver's, as the layers in
 * the chain amend it). An explicit layer that lists its own extensions only when asked by name
 * (Arm's) does not amend it: where VK_EXT_present_timing is not in that list, every device layer's
 * own list counts too. (The virtual display amends the list; its manifest's list, which the loader
 * answers by name, is every extension it may offer whatever the profile.) */
static VkExtensionProperties *device_extensions(VkPhysicalDevice physical, uint32_t *count)
{
	VkLayerProperties layers[32];
	uint32_t n_layers = 32, n = 0, total = 0;
	VkExtensionProperties *all = NULL;

	if (vkEnumerateDeviceLayerProperties(physical, &n_layers, layers) < 0)
		n_layers = 0;
	for (int32_t l = -1; l < (int32_t)n_layers; l++) {
		const char *layer = l < 0 ? NULL : layers[l].layerName;
		if (l == 0 && offered(all, total, VK_EXT_PRESENT_TIMING_EXTENSION_NAME))
			break;
		if (vkEnumerateDeviceExtensionProperties(physical, layer, &n, NULL) != VK_SUCCESS)
			continue;
		all = realloc(all, (total + n + 1) * sizeof(*all));
		if (!all)
			exit(1);
		if (vkEnumerateDeviceExtensionProperties(physical, layer, &n, all + total) >= 0)
			total += n;
	}
	*count = total;
	return all;
}

static void create_device(struct conf *c)
{
	static const char *const extra[] = {VK_KHR_GET_SURFACE_CAPABILITIES_2_EXTENSION_NAME};
	CHECK_VK(headless_open(&c->h, "vd_conformance", extra, 1));

	uint32_t n_ext;
	VkExtensionProperties *ext = device_extensions(c->h.physical, &n_ext);
	const char *names[16];
	uint32_t k = 0;
	names[k++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
	c->has_timing = offered(ext, n_ext, VK_EXT_PRESENT_TIMING_EXTENSION_NAME);
	c->has_id2 = offered(ext, n_ext, VK_KHR_PRESENT_ID_2_EXTENSION_NAME);
	c->has_wait2 = offered(ext, n_ext, VK_KHR_PRESENT_WAIT_2_EXTENSION_NAME);
	c->calibrated_khr = offered(ext, n_ext, VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
	bool latest_khr = offered(ext, n_ext, VK_KHR_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME);
	bool latest_ext = offered(ext, n_ext, VK_EXT_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME);
	c->has_latest_ready_ext = latest_khr || latest_ext;
	printf("conf: extension present_timing=%d present_id2=%d present_wait2=%d calibrated_khr=%d "
	       "calibrated_ext=%d fifo_latest_ready_khr=%d fifo_latest_ready_ext=%d\n",
	       c->has_timing, c->has_id2, c->has_wait2, c->calibrated_khr,
	       offered(ext, n_ext, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME), latest_khr, latest_ext);
	if (!c->has_timing || !c->has_id2) {
		printf("conf: no VK_EXT_present_timing (or VK_KHR_present_id2, which it requires)\n");
		free(ext);
		exit(3);
	}
	names[k++] = VK_EXT_PRESENT_TIMING_EXTENSION_NAME;
	names[k++] = VK_KHR_PRESENT_ID_2_EXTENSION_NAME;
	if (c->has_wait2)
		names[k++] = VK_KHR_PRESENT_WAIT_2_EXTENSION_NAME;
	/* VK_EXT_present_timing requires the KHR form; lavapipe has only the EXT one, which Arm's layer
	 * (patched) falls back to. */
	names[k++] = c->calibrated_khr ? VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME
	                               : VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
	if (latest_khr)
		names[k++] = VK_KHR_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME;
	else if (latest_ext)
		names[k++] = VK_EXT_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME;
	free(ext);

	VkPhysicalDevicePresentTimingFeaturesEXT timing = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT};
	VkPhysicalDevicePresentId2FeaturesKHR id2 = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR, .pNext = &timing};
	VkPhysicalDevicePresentWait2FeaturesKHR wait2 = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR, .pNext = &id2};
	VkPhysicalDevicePresentModeFifoLatestReadyFeaturesKHR latest = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_MODE_FIFO_LATEST_READY_FEATURES_KHR};
	VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
	                                .pNext = c->has_wait2 ? (void *)&wait2 : (void *)&id2};
	if (c->has_latest_ready_ext) {
		latest.pNext = f2.pNext;
		f2.pNext = &latest;
	}
	vkGetPhysicalDeviceFeatures2(c->h.physical, &f2);
	printf("conf: feature presentTiming=%u presentAtAbsoluteTime=%u presentAtRelativeTime=%u "
	       "presentId2=%u "
	       "presentWait2=%u presentModeFifoLatestReady=%u\n",
	       timing.presentTiming, timing.presentAtAbsoluteTime, timing.presentAtRelativeTime,
	       id2.presentId2, c->has_wait2 ? wait2.presentWait2 : 0,
	       c->has_latest_ready_ext ? latest.presentModeFifoLatestReady : 0);
	c->has_wait2 = c->has_wait2 && wait2.presentWait2;

	CHECK_VK(headless_device_create(&c->h, names, k, &f2));
#define GET(name, alt)                                                                                       \
	c->name = (PFN_vk##name)vkGetDeviceProcAddr(c->h.device, "vk" #name);                                \
	if (!c->name)                                                                                        \
		c->name = (PFN_vk##name)vkGetDeviceProcAddr(c->h.device, alt);
	GET(GetCalibratedTimestampsKHR, "vkGetCalibratedTimestampsEXT")
	GET(GetSwapchainTimingPropertiesEXT, "")
	GET(GetSwapchainTimeDomainPropertiesEXT, "")
	GET(SetSwapchainPresentTimingQueueSizeEXT, "")
	GET(GetPastPresentationTimingEXT, "")
	GET(WaitForPresent2KHR, "")
#undef GET
	c->GetPhysicalDeviceCalibrateableTimeDomainsKHR =
	        (PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsKHR)vkGetInstanceProcAddr(
	                c->h.instance, "vkGetPhysicalDeviceCalibrateableTimeDomainsKHR");
	if (!c->GetPhysicalDeviceCalibrateableTimeDomainsKHR)
		c->GetPhysicalDeviceCalibrateableTimeDomainsKHR =
		        (PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsKHR)vkGetInstanceProcAddr(
		                c->h.instance, "vkGetPhysicalDeviceCalibrateableTimeDomainsEXT");
	if (!c->GetCalibratedTimestampsKHR || !c->GetSwapchainTimingPropertiesEXT ||
	    !c->GetSwapchainTimeDomainPropertiesEXT || !c->SetSwapchainPresentTimingQueueSizeEXT ||
	    !c->GetPastPresentationTimingEXT || !c->GetPhysicalDeviceCalibrateableTimeDomainsKHR) {
		fprintf(stderr, "conf: a present timing or calibration function is missing\n");
		exit(1);
	}
}

/* ---- the surface and the swapchain ---- */

static void surface_report(struct conf *c)
{
	VkPresentModeKHR modes[16];
	uint32_t n = 16;

	CHECK_VK(vkGetPhysicalDeviceSurfacePresentModesKHR(c->h.physical, c->h.surface, &n, modes));
	printf("conf: modes");
	for (uint32_t i = 0; i < n; i++)
		printf(" %s", mode_name(modes[i]));
	printf("\n");

	c->caps = (VkPresentTimingSurfaceCapabilitiesEXT){
	        .sType = VK_STRUCTURE_TYPE_PRESENT_TIMING_SURFACE_CAPABILITIES_EXT};
	VkPhysicalDeviceSurfaceInfo2KHR si = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SURFACE_INFO_2_KHR,
	                                      .surface = c->h.surface};
	VkSurfaceCapabilities2KHR caps = {.sType = VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_2_KHR,
	                                  .pNext = &c->caps};
	CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilities2KHR(c->h.physical, &si, &caps));
	c->stages = c->caps.presentStageQueries;
	printf("conf: surface presentTimingSupported=%u presentAtAbsoluteTimeSupported=%u "
	       "presentAtRelativeTimeSupported=%u presentStageQueries=%u\n",
	       c->caps.presentTimingSupported, c->caps.presentAtAbsoluteTimeSupported,
	       c->caps.presentAtRelativeTimeSupported, c->caps.presentStageQueries);

	VkTimeDomainKHR domains[16];
	n = 16;
	CHECK_VK(c->GetPhysicalDeviceCalibrateableTimeDomainsKHR(c->h.physical, &n, domains));
	printf("conf: calibrateable");
	for (uint32_t i = 0; i < n; i++)
		printf(" %s", domain_name(domains[i]));
	printf("\n");
}

static void create_swapchain(struct conf *c, uint32_t min_images)
{
	struct swapchain_params sp = {
	        .mode = VK_PRESENT_MODE_FIFO_KHR,
	        .flags = VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT |
	                 VK_SWAPCHAIN_CREATE_PRESENT_ID_2_BIT_KHR |
	                 (c->has_wait2 ? VK_SWAPCHAIN_CREATE_PRESENT_WAIT_2_BIT_KHR : 0),
	        .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
	        .min_images = min_images,
	};
	CHECK_VK(headless_swapchain_create(&c->h, &sp));
}

static void destroy(struct conf *c)
{
	headless_close(&c->h);
}

/* The swapchain's time domains; the probe uses the first stage-local one (the spec guarantees one),
 * else the first. */
static void domains_report(struct conf *c)
{
	VkSwapchainTimeDomainPropertiesEXT dp = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_TIME_DOMAIN_PROPERTIES_EXT};
	VkTimeDomainKHR domains[8];
	uint64_t ids[8], counter = 0;

	CHECK_VK(c->GetSwapchainTimeDomainPropertiesEXT(c->h.device, c->h.swapchain, &dp, NULL));
	uint32_t total = dp.timeDomainCount;
	dp.timeDomainCount = total < 8 ? total : 8;
	dp.pTimeDomains = domains;
	dp.pTimeDomainIds = ids;
	VkResult r = c->GetSwapchainTimeDomainPropertiesEXT(c->h.device, c->h.swapchain, &dp, &counter);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		CHECK_VK(r);
	printf("conf: domains count=%u counter=%" PRIu64, total, counter);
	for (uint32_t i = 0; i < dp.timeDomainCount; i++)
		printf(" %s:%" PRIu64, domain_name(domains[i]), ids[i]);
	printf("\n");
	c->domain = dp.timeDomainCount ? domains[0] : VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR;
	c->domain_id = dp.timeDomainCount ? ids[0] : 0;
	for (uint32_t i = dp.timeDomainCount; i-- > 0;) {
		if (domains[i] == VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT) {
			c->domain = domains[i];
			c->domain_id = ids[i];
		}
	}
	printf("conf: using %s:%" PRIu64 "\n", domain_name(c->domain), c->domain_id);
}

/* The swapchain's timing properties now; `when` names the moment in the output. */
static void props_report(struct conf *c, const char *when, uint64_t *duration)
{
	VkSwapchainTimingPropertiesEXT tp = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_TIMING_PROPERTIES_EXT};
	uint64_t counter = 0;
	VkResult r = c->GetSwapchainTimingPropertiesEXT(c->h.device, c->h.swapchain, &tp, &counter);

	printf("conf: props %s result=%d duration=%" PRIu64 " interval=%" PRIu64 " counter=%" PRIu64 "\n",
	       when, r, tp.refreshDuration, tp.refreshInterval, counter);
	if (duration)
		*duration = r == VK_SUCCESS ? tp.refreshDuration : 0;
}

/* ---- calibration ---- */

static bool stage_domain(const struct conf *c)
{
	return c->domain == VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT;
}

/* One calibration of `stage` (a single stage bit) against CLOCK_MONOTONIC. `in_call`: the
 * CLOCK_MONOTONIC reading fell inside the call, as the probe's own clock saw it. */
static struct cal calibrate(struct conf *c, uint32_t stage, bool *in_call, uint64_t *deviation)
{
	struct cal cal;

	if (c->domain == VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR) {
		cal.mono = cal.stage = now_ns();
		*in_call = true;
		*deviation = 0;
		return cal;
	}
	VkSwapchainCalibratedTimestampInfoEXT sci = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CALIBRATED_TIMESTAMP_INFO_EXT,
	        .swapchain = c->h.swapchain,
	        .presentStage = stage_domain(c) ? stage : 0,
	        .timeDomainId = c->domain_id,
	};
	VkCalibratedTimestampInfoKHR infos[2] = {
	        {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR,
	         .timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR},
	        {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR,
	         .pNext = &sci,
	         .timeDomain = c->domain},
	};
	uint64_t ts[2];
	int64_t before = now_ns();
	CHECK_VK(c->GetCalibratedTimestampsKHR(c->h.device, 2, infos, ts, deviation));
	int64_t after = now_ns();
	cal.mono = (int64_t)ts[0];
	cal.stage = (int64_t)ts[1];
	*in_call = cal.mono >= before && cal.mono <= after;
	return cal;
}

static void calibrate_all(struct conf *c, struct cal out[STAGE_COUNT], const char *when)
{
	for (uint32_t s = 0; s < STAGE_COUNT; s++) {
		bool in_call;
		uint64_t deviation;
		if (!(c->stages & (1u << s)))
			continue;
		out[s] = calibrate(c, 1u << s, &in_call, &deviation);
		printf("conf: calibration %s stage=%s mono=%" PRId64 " stage_time=%" PRId64 " offset=%" PRId64
		       " deviation=%" PRIu64 " in_call=%d\n",
		       when, stage_name(1u << s), out[s].mono, out[s].stage, out[s].stage - out[s].mono,
		       deviation, in_call);
	}
}

/* A stage time on CLOCK_MONOTONIC, interpolated between two calibrations (exact for a clock that
 * drifts linearly); with one calibration (b == NULL), offset only. */
static int64_t to_mono(const struct cal *a, const struct cal *b, int64_t stage_time)
{
	if (!b || b->stage == a->stage)
		return a->mono + (stage_time - a->stage);
	double rate = (double)(b->mono - a->mono) / (double)(b->stage - a->stage);
	return a->mono + (int64_t)((double)(stage_time - a->stage) * rate);
}

static int64_t from_mono(const struct cal *a, const struct cal *b, int64_t mono)
{
	if (!b || b->mono == a->mono)
		return a->stage + (mono - a->mono);
	double rate = (double)(b->stage - a->stage) / (double)(b->mono - a->mono);
	return b->stage + (int64_t)((double)(mono - b->mono) * rate);
}

/* ---- presents and results ---- */

static void collect(struct conf *c, VkPastPresentationTimingFlagsEXT flags)
{
	VkPastPresentationTimingEXT past[16];
	VkPresentStageTimeEXT stages[16][STAGE_COUNT];
	VkPastPresentationTimingInfoEXT pi = {.sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_INFO_EXT,
	                                      .flags = flags,
	                                      .swapchain = c->h.swapchain};
	for (;;) {
		for (uint32_t i = 0; i < 16; i++)
			past[i] = (VkPastPresentationTimingEXT){
			        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_EXT,
			        .presentStageCount = STAGE_COUNT,
			        .pPresentStages = stages[i],
			        /* so a field left unwritten shows */
			        .timeDomain = VK_TIME_DOMAIN_MAX_ENUM_KHR,
			        .timeDomainId = UINT64_MAX};
		VkPastPresentationTimingPropertiesEXT pp = {
		        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_PROPERTIES_EXT,
		        .timingPropertiesCounter = UINT64_MAX, /* so a counter left unwritten shows */
		        .timeDomainsCounter = UINT64_MAX,
		        .presentationTimingCount = 16,
		        .pPresentationTimings = past};
		VkResult r = c->GetPastPresentationTimingEXT(c->h.device, &pi, &pp);
		if (r != VK_SUCCESS && r != VK_INCOMPLETE)
			CHECK_VK(r);
		if (!c->counter_known || pp.timingPropertiesCounter != c->counter_seen) {
			c->counter_changes += c->counter_known;
			c->counter_known = true;
			c->counter_seen = pp.timingPropertiesCounter;
			printf("conf: past-timing counter=%" PRIu64 " domains_counter=%" PRIu64 "\n",
			       c->counter_seen, pp.timeDomainsCounter);
			props_report(c, "on-counter", NULL);
		}
		for (uint32_t i = 0; i < pp.presentationTimingCount; i++) {
			if (!past[i].reportComplete) {
				c->partial_seen++;
				continue;
			}
			if (c->result_count == MAX_RESULTS)
				continue;
			struct result *res = &c->results[c->result_count++];
			res->id = past[i].presentId;
			res->count = past[i].presentStageCount;
			memcpy(res->stages, stages[i], sizeof(res->stages));
			res->domain = past[i].timeDomain;
			res->domain_id = past[i].timeDomainId;
			res->presented_at = res->id <= MAX_RESULTS ? c->presented_at[res->id] : 0;
		}
		if (r != VK_INCOMPLETE)
			break;
	}
}

static const struct result *result_of(const struct conf *c, uint64_t id)
{
	for (uint32_t i = c->result_count; i-- > 0;)
		if (c->results[i].id == id)
			return &c->results[i];
	return NULL;
}

static int64_t stage_time(const struct result *r, uint32_t bit)
{
	for (uint32_t i = 0; r && i < r->count; i++)
		if (r->stages[i].stage == bit)
			return (int64_t)r->stages[i].time;
	return 0;
}

/* One frame, presented with the probe's timing info; returns the present's result. */
static VkResult frame(struct conf *c, uint64_t id)
{
	uint32_t slot = c->frame++ % MAX_IMAGES, index;

	VkResult r = frames_submit(c->h.device, c->h.queue, c->h.swapchain, &c->h.f, slot, 1000000000, NULL,
	                           &index);
	if (r != VK_SUCCESS)
		return r;
	VkPresentId2KHR pid = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_ID_2_KHR, .swapchainCount = 1, .pPresentIds = &id};
	VkPresentTimingsInfoEXT pt = {.sType = VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT,
	                              .pNext = &pid,
	                              .swapchainCount = 1,
	                              .pTimingInfos = &c->timing};
	VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
	                       .pNext = &pt,
	                       .waitSemaphoreCount = 1,
	                       .pWaitSemaphores = &c->h.f.rendered[slot],
	                       .swapchainCount = 1,
	                       .pSwapchains = &c->h.swapchain,
	                       .pImageIndices = &index};
	if (id <= MAX_RESULTS)
		c->presented_at[id] = now_ns();
	return vkQueuePresentKHR(c->h.queue, &pi);
}

static void wait_for(struct conf *c, uint64_t id)
{
	if (c->has_wait2) {
		VkPresentWait2InfoKHR wi = {.sType = VK_STRUCTURE_TYPE_PRESENT_WAIT_2_INFO_KHR,
		                            .presentId = id,
		                            .timeout = 2000000000};
		CHECK_VK(c->WaitForPresent2KHR(c->h.device, c->h.swapchain, &wi));
	} else {
		CHECK_VK(vkQueueWaitIdle(c->h.queue));
	}
}

/* Waits (up to 2 s) for id's complete result, polling with partial results allowed. */
static const struct result *await_result(struct conf *c, uint64_t id)
{
	for (int i = 0; i < 2000 && !result_of(c, id); i++) {
		collect(c, VK_PAST_PRESENTATION_TIMING_ALLOW_PARTIAL_RESULTS_BIT_EXT);
		if (!result_of(c, id))
			sleep_ns(1000000);
	}
	return result_of(c, id);
}

/* The stage a pixel time is read from: the first pixel stage the surface reports, else the
 * dequeue (XWayland reports only that). */
static uint32_t pixel_stage(const struct conf *c)
{
	if (c->stages & VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT)
		return VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT;
	if (c->stages & VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT)
		return VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT;
	return VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT;
}

static int scenario_conformance(struct conf *c, int frames)
{
	struct cal first[STAGE_COUNT] = {0}, second[STAGE_COUNT] = {0};
	uint64_t duration = 0;

	surface_report(c);
	create_swapchain(c, 4);
	domains_report(c);
	props_report(c, "before-first-present", NULL);
	CHECK_VK(c->SetSwapchainPresentTimingQueueSizeEXT(c->h.device, c->h.swapchain, 64));
	calibrate_all(c, first, "first");

	/* Every stage asked for, also those the surface does not report (no VUID forbids it): what
	 * comes back for them is the implementation's. */
	c->timing = (VkPresentTimingInfoEXT){.sType = VK_STRUCTURE_TYPE_PRESENT_TIMING_INFO_EXT,
	                                     .timeDomainId = c->domain_id,
	                                     .presentStageQueries = ALL_STAGES,
	                                     .targetTimeDomainPresentStage = pixel_stage(c)};
	int64_t start = now_ns();
	for (int i = 1; i <= frames; i++) {
		CHECK_VK(frame(c, (uint64_t)i));
		/* Partial results show between the end of a present's queue operations and its pixel. */
		for (int k = 0; k < 4; k++) {
			collect(c, VK_PAST_PRESENTATION_TIMING_ALLOW_PARTIAL_RESULTS_BIT_EXT);
			sleep_ns(500000);
		}
		if (i > 1)
			wait_for(c, (uint64_t)i - 1);
	}
	wait_for(c, (uint64_t)frames);
	await_result(c, (uint64_t)frames);
	calibrate_all(c, second, "second");
	props_report(c, "after-presents", &duration);
	printf("conf: presented %d frames in %.3f s; %u complete results, %u partial reports, %" PRIu64
	       " timing-properties counter changes\n",
	       frames, (now_ns() - start) / 1e9, c->result_count, c->partial_seen, c->counter_changes);

	/* Each result: raw stage times, and on CLOCK_MONOTONIC by the two calibrations; drift per stage. */
	for (uint32_t s = 0; s < STAGE_COUNT; s++) {
		if (!(c->stages & (1u << s)) || second[s].mono == first[s].mono)
			continue;
		double ppm = ((double)(second[s].stage - first[s].stage) -
		              (double)(second[s].mono - first[s].mono)) /
		             (double)(second[s].mono - first[s].mono) * 1e6;
		printf("conf: drift stage=%s ppm=%.3f over=%.3fs\n", stage_name(1u << s), ppm,
		       (second[s].mono - first[s].mono) / 1e9);
	}
	for (uint32_t i = 0; i < c->result_count; i++) {
		const struct result *r = &c->results[i];
		printf("conf: result id=%" PRIu64 " domain=%s:%" PRIu64 " stages=%u presented=%" PRId64,
		       r->id, domain_name(r->domain), r->domain_id, r->count, r->presented_at);
		for (uint32_t k = 0; k < r->count; k++) {
			uint32_t s = (uint32_t)__builtin_ctz(r->stages[k].stage);
			int64_t t = (int64_t)r->stages[k].time;
			bool cal = (c->stages & r->stages[k].stage) && t;
			printf(" %s=%" PRId64 ":%" PRId64 ":%" PRId64, stage_name(r->stages[k].stage), t,
			       cal ? to_mono(&first[s], &second[s], t) : 0,
			       cal ? to_mono(&first[s], NULL, t) : 0);
		}
		printf("\n");
	}

	/* Targets, each on an idle display: a kind the surface does not take is not sent (it would be
	 * invalid usage, VUID-VkPresentTimingInfoEXT-targetTime-12236 / -12237). */
	uint32_t ps = pixel_stage(c), psi = (uint32_t)__builtin_ctz(ps);
	int64_t step = duration >= 1000000 ? (int64_t)duration : 8333333; /* a refresh, or 120 Hz's */
	uint64_t id = (uint64_t)frames + 1;
	printf("conf: target absolute offered=%u relative offered=%u step=%" PRId64 "\n",
	       c->caps.presentAtAbsoluteTimeSupported, c->caps.presentAtRelativeTimeSupported, step);
	for (int kind = 0; kind < 2; kind++) {
		bool relative = kind == 1;
		if (!(relative ? c->caps.presentAtRelativeTimeSupported
		               : c->caps.presentAtAbsoluteTimeSupported))
			continue;
		for (int rep = 0; rep < 3; rep++, id++) {
			struct cal now_cal[STAGE_COUNT];
			calibrate_all(c, now_cal, "target");
			const struct result *last = result_of(c, id - 1);
			int64_t last_pixel =
			        last ? to_mono(&first[psi], &now_cal[psi], stage_time(last, ps)) : now_ns();
			int64_t target_mono;
			c->timing.flags =
			        relative ? VK_PRESENT_TIMING_INFO_PRESENT_AT_RELATIVE_TIME_BIT_EXT : 0;
			if (relative) {
				c->timing.targetTime = (uint64_t)(3 * step - step / 10);
				target_mono = 0;
			} else {
				int64_t now = now_ns();
				int64_t next = last_pixel + ((now - last_pixel) / step + 1) * step;
				target_mono = next + 3 * step + 3 * step / 10;
				c->timing.targetTime =
				        (uint64_t)from_mono(&first[psi], &now_cal[psi], target_mono);
			}
			CHECK_VK(frame(c, id));
			wait_for(c, id);
			const struct result *r = await_result(c, id);
			int64_t pixel = r ? to_mono(&first[psi], &now_cal[psi], stage_time(r, ps)) : 0;
			printf("conf: target kind=%s id=%" PRIu64 " target_time=%" PRIu64
			       " target_mono=%" PRId64 " previous_pixel_mono=%" PRId64 " pixel_mono=%" PRId64
			       " stage=%s\n",
			       relative ? "relative" : "absolute", id, c->timing.targetTime, target_mono,
			       last_pixel, pixel, stage_name(ps));
		}
	}
	c->timing.flags = 0;
	c->timing.targetTime = 0;
	destroy(c);
	return 0;
}

/* The third present fails (the display's LOWLAT_VDISPLAY_FAIL_PRESENT=3): is its results slot
 * still taken afterwards? Asked through the API: vkSetSwapchainPresentTimingQueueSizeEXT refuses a
 * size below the outstanding results with VK_NOT_READY. */
static int scenario_failed_present(struct conf *c)
{
	surface_report(c);
	create_swapchain(c, 4);
	domains_report(c);
	CHECK_VK(c->SetSwapchainPresentTimingQueueSizeEXT(c->h.device, c->h.swapchain, 4));
	c->timing = (VkPresentTimingInfoEXT){.sType = VK_STRUCTURE_TYPE_PRESENT_TIMING_INFO_EXT,
	                                     .timeDomainId = c->domain_id,
	                                     .presentStageQueries = c->stages,
	                                     .targetTimeDomainPresentStage = pixel_stage(c)};
	CHECK_VK(frame(c, 1));
	CHECK_VK(frame(c, 2));
	VkResult r = frame(c, 3);
	printf("conf: failed-present result=%d\n", r);
	wait_for(c, 2);
	vkDeviceWaitIdle(c->h.device);
	await_result(c, 2);
	VkPastPresentationTimingInfoEXT pi = {
	        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_INFO_EXT,
	        .flags = VK_PAST_PRESENTATION_TIMING_ALLOW_OUT_OF_ORDER_RESULTS_BIT_EXT,
	        .swapchain = c->h.swapchain};
	VkPastPresentationTimingPropertiesEXT pp = {
	        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_PROPERTIES_EXT};
	CHECK_VK(c->GetPastPresentationTimingEXT(c->h.device, &pi, &pp));
	VkResult shrink = c->SetSwapchainPresentTimingQueueSizeEXT(c->h.device, c->h.swapchain, 0);
	uint32_t index;
	VkFence fence;
	VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	CHECK_VK(vkCreateFence(c->h.device, &fci, NULL, &fence));
	VkResult acquire =
	        vkAcquireNextImageKHR(c->h.device, c->h.swapchain, 0, VK_NULL_HANDLE, fence, &index);
	if (acquire == VK_SUCCESS)
		vkWaitForFences(c->h.device, 1, &fence, VK_TRUE, UINT64_MAX);
	vkDestroyFence(c->h.device, fence, NULL);
	printf("conf: failed-present results=%u available_after=%u shrink_to_0=%d acquire_after=%d\n",
	       c->result_count, pp.presentationTimingCount, shrink, acquire);
	destroy(c);
	return 0;
}

int main(int argc, char **argv)
{
	struct conf c = {0};
	const char *scenario = argc > 1 ? argv[1] : "conformance";
	int frames = argc > 2 ? atoi(argv[2]) : 240;

	setvbuf(stdout, NULL, _IOLBF, 0);
	create_device(&c);
	if (!strcmp(scenario, "conformance"))
		return scenario_conformance(&c, frames);
	if (!strcmp(scenario, "failed-present"))
		return scenario_failed_present(&c);
	fprintf(stderr, "conf: unknown scenario %s\n", scenario);
	return 2;
}
