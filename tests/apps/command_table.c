/* command_table.c — every command of every extension lowlat passes through, provides or hides must
 * resolve to a function the app can call, whichever way the extension came to the device.
 *
 *   command_table [--headless]
 *
 * Two devices in turn on the first physical device that presents to the surface (an X window, or
 * with --headless a VK_EXT_headless_surface, which the virtual display makes): one with
 * VK_KHR_swapchain alone, one with every extension of the table below that the device lists (and
 * the instance extensions and features they depend on). On each, for every command of the table
 * whose extension is enabled, or whose core version the device has, vkGetDeviceProcAddr and
 * vkGetInstanceProcAddr must both return a function; instance-level commands must come from
 * vkGetInstanceProcAddr and never from vkGetDeviceProcAddr. Then the commands of
 * VK_NV_low_latency2 and VK_AMD_anti_lag are called on a swapchain: a latency sleep's semaphore
 * value must be signalled within a second. The table must name every function lowlat's dispatch
 * table calls (layer/vulkan/dispatch.h), so a function lowlat starts to use cannot go unchecked.
 *
 * Prints `command_table: listed: NAMES` (the table's device extensions the device lists) and
 * `command_table: N commands resolved, M called`; exits 1 with `command_table: FAIL: ...` on the
 * first failure, 2 on bad usage.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "dispatch.h"

#define CHECK_VK(call)                                                                                       \
	do {                                                                                                 \
		VkResult r_ = (call);                                                                        \
		if (r_ != VK_SUCCESS)                                                                        \
			fail("%s returned %s", #call, result_name(r_));                                      \
	} while (0)

static void fail(const char *format, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fail(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	fputs("command_table: FAIL: ", stderr);
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
	va_end(args);
	exit(1);
}

/* Where a command comes from: a device or instance extension, or a core version ("1.2"). */
struct source {
	const char *name;
	bool instance; /* an instance-level command (vkGetInstanceProcAddr only) */
	const char *commands[8];
};

static const struct source sources[] = {
        {"1.0",
         true,
         {"vkGetInstanceProcAddr", "vkDestroyInstance", "vkCreateDevice", "vkGetPhysicalDeviceProperties",
          "vkEnumerateDeviceExtensionProperties"}},
        {"1.1", true, {"vkGetPhysicalDeviceFeatures2"}},
        {VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME, true, {"vkGetPhysicalDeviceFeatures2KHR"}},
        {VK_KHR_SURFACE_EXTENSION_NAME, true, {"vkGetPhysicalDeviceSurfacePresentModesKHR"}},
        {VK_KHR_GET_SURFACE_CAPABILITIES_2_EXTENSION_NAME,
         true,
         {"vkGetPhysicalDeviceSurfaceCapabilities2KHR"}},
        {"1.0",
         false,
         {"vkGetDeviceProcAddr", "vkDestroyDevice", "vkQueueSubmit", "vkCreateFence", "vkDestroyFence",
          "vkResetFences", "vkGetFenceStatus", "vkWaitForFences"}},
        {"1.2", false, {"vkSignalSemaphore", "vkWaitSemaphores", "vkGetSemaphoreCounterValue"}},
        {"1.3", false, {"vkQueueSubmit2"}},
        {VK_KHR_SWAPCHAIN_EXTENSION_NAME,
         false,
         {"vkCreateSwapchainKHR", "vkDestroySwapchainKHR", "vkGetSwapchainImagesKHR", "vkAcquireNextImageKHR",
          "vkQueuePresentKHR"}},
        /* With Vulkan 1.1 (or VK_KHR_device_group, which lowlat never needs). */
        {VK_KHR_SWAPCHAIN_EXTENSION_NAME "@1.1", false, {"vkAcquireNextImage2KHR"}},
        {VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME,
         false,
         {"vkSignalSemaphoreKHR", "vkWaitSemaphoresKHR", "vkGetSemaphoreCounterValueKHR"}},
        {VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME, false, {"vkQueueSubmit2KHR"}},
        {VK_KHR_PRESENT_WAIT_EXTENSION_NAME, false, {"vkWaitForPresentKHR"}},
        {VK_KHR_PRESENT_WAIT_2_EXTENSION_NAME, false, {"vkWaitForPresent2KHR"}},
        {VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME, false, {"vkGetCalibratedTimestampsKHR"}},
        {VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME, false, {"vkGetCalibratedTimestampsEXT"}},
        {VK_EXT_PRESENT_TIMING_EXTENSION_NAME,
         false,
         {"vkSetSwapchainPresentTimingQueueSizeEXT", "vkGetSwapchainTimingPropertiesEXT",
          "vkGetSwapchainTimeDomainPropertiesEXT", "vkGetPastPresentationTimingEXT"}},
        {VK_NV_LOW_LATENCY_2_EXTENSION_NAME,
         false,
         {"vkSetLatencySleepModeNV", "vkLatencySleepNV", "vkSetLatencyMarkerNV", "vkGetLatencyTimingsNV",
          "vkQueueNotifyOutOfBandNV"}},
        {VK_AMD_ANTI_LAG_EXTENSION_NAME, false, {"vkAntiLagUpdateAMD"}},
        {VK_EXT_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME, false, {"vkReleaseSwapchainImagesEXT"}},
        {VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME, false, {"vkReleaseSwapchainImagesKHR"}},
};
#define SOURCE_COUNT (sizeof(sources) / sizeof(sources[0]))

/* Extensions enabled with the ones they depend on: present ids for waits and NV_low_latency2. */
static const char *const dependencies[] = {VK_KHR_PRESENT_ID_EXTENSION_NAME,
                                           VK_KHR_PRESENT_ID_2_EXTENSION_NAME};

static bool in_table(const char *command)
{
	for (size_t s = 0; s < SOURCE_COUNT; s++)
		for (size_t c = 0; c < 8 && sources[s].commands[c]; c++)
			if (!strcmp(sources[s].commands[c], command))
				return true;
	return false;
}

/* Every function lowlat calls down the chain is in the table. */
static void check_coverage(void)
{
#define NAME(name) "vk" #name,
	static const char *const lowlat_calls[] = {LOWLAT_INSTANCE_FUNCTIONS(NAME)
	                                                   LOWLAT_DEVICE_FUNCTIONS(NAME)};
#undef NAME
	for (size_t i = 0; i < sizeof(lowlat_calls) / sizeof(lowlat_calls[0]); i++)
		if (!in_table(lowlat_calls[i]))
			fail("%s (layer/vulkan/dispatch.h) is not in this test's table: "
			     "add it with its extension",
			     lowlat_calls[i]);
}

struct names {
	const char *list[32];
	uint32_t count;
};

static bool has(const struct names *n, const char *name)
{
	for (uint32_t i = 0; i < n->count; i++)
		if (!strcmp(n->list[i], name))
			return true;
	return false;
}

static void add(struct names *n, const char *name)
{
	if (!has(n, name) && n->count < sizeof(n->list) / sizeof(n->list[0]))
		n->list[n->count++] = name;
}

/* The table's extensions (and dependencies) that LISTED names, with their static storage. */
static void listed_of(const VkExtensionProperties *props, uint32_t count, struct names *out, bool instance)
{
	for (uint32_t i = 0; i < count; i++) {
		for (size_t s = 0; s < SOURCE_COUNT; s++)
			if (sources[s].instance == instance &&
			    !strcmp(sources[s].name, props[i].extensionName))
				add(out, sources[s].name);
		for (size_t d = 0; !instance && d < sizeof(dependencies) / sizeof(dependencies[0]); d++)
			if (!strcmp(dependencies[d], props[i].extensionName))
				add(out, dependencies[d]);
	}
}

static uint32_t version_of(const char *name)
{
	const char *at = strchr(name, '@');
	unsigned major, minor;

	if (sscanf(at ? at + 1 : name, "%u.%u", &major, &minor) != 2)
		return 0;
	return VK_MAKE_API_VERSION(0, major, minor, 0);
}

/* Whether SOURCE's commands exist here: its version reached, its extension enabled (both for
 * "EXT@1.1"). */
static bool available(const struct source *source, const struct names *enabled, uint32_t version)
{
	const char *at = strchr(source->name, '@');
	char ext[VK_MAX_EXTENSION_NAME_SIZE];
	uint32_t need = version_of(source->name);

	if (!at && need)
		return version >= need;
	snprintf(ext, sizeof(ext), "%.*s", at ? (int)(at - source->name) : (int)strlen(source->name),
	         source->name);
	return has(enabled, ext) && version >= need;
}

struct run {
	VkInstance instance;
	VkSurfaceKHR surface;
	VkPhysicalDevice physical;
	uint32_t family, version;
	struct names instance_exts;
	VkExtent2D window_size;
	unsigned resolved, called;
};

/* Resolves every command of the table that ENABLED (device extensions) makes available. */
static void resolve_all(struct run *r, VkDevice device, const struct names *enabled)
{
	for (size_t s = 0; s < SOURCE_COUNT; s++) {
		const struct source *src = &sources[s];
		bool on = src->instance ? (version_of(src->name) ? r->version >= version_of(src->name)
		                                                 : has(&r->instance_exts, src->name))
		                        : available(src, enabled, r->version);
		for (size_t c = 0; c < 8 && src->commands[c]; c++) {
			const char *name = src->commands[c];
			PFN_vkVoidFunction from_device = vkGetDeviceProcAddr(device, name);
			PFN_vkVoidFunction from_instance = vkGetInstanceProcAddr(r->instance, name);
			if (src->instance && from_device)
				fail("vkGetDeviceProcAddr answered the instance-level %s", name);
			if (!on)
				continue;
			if (!from_instance || (!src->instance && !from_device))
				fail("%s (%s enabled) resolves to NULL through vkGet%sProcAddr", name,
				     src->name, from_instance ? "Device" : "Instance");
			r->resolved++;
		}
	}
}

#define GET(device, name) ((PFN_##name)vkGetDeviceProcAddr(device, #name))

/* Calls VK_NV_low_latency2's commands as vkd3d-proton and DXVK do: the swapchain's sleep mode,
 * a sleep whose semaphore value must then be signalled, the markers, the timings, out-of-band. */
static void call_low_latency(struct run *r, VkDevice device, VkQueue queue, VkSwapchainKHR swapchain)
{
	const VkSemaphoreTypeCreateInfo timeline = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
	                                            .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
	const VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
	                                   .pNext = &timeline};
	const VkLatencySleepModeInfoNV mode = {.sType = VK_STRUCTURE_TYPE_LATENCY_SLEEP_MODE_INFO_NV,
	                                       .lowLatencyMode = VK_TRUE};
	VkSemaphore semaphore;

	CHECK_VK(vkCreateSemaphore(device, &sci, NULL, &semaphore));
	CHECK_VK(GET(device, vkSetLatencySleepModeNV)(device, swapchain, &mode));
	const VkLatencySleepInfoNV sleep = {
	        .sType = VK_STRUCTURE_TYPE_LATENCY_SLEEP_INFO_NV, .signalSemaphore = semaphore, .value = 1};
	CHECK_VK(GET(device, vkLatencySleepNV)(device, swapchain, &sleep));
	const VkSemaphoreWaitInfo wait = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
	                                  .semaphoreCount = 1,
	                                  .pSemaphores = &semaphore,
	                                  .pValues = &sleep.value};
	VkResult waited = vkWaitSemaphores(device, &wait, 1000000000ull /* 1 s */);
	if (waited != VK_SUCCESS)
		fail("the latency sleep's semaphore value was not signalled within 1 s (%s)",
		     result_name(waited));
	const VkSetLatencyMarkerInfoNV marker = {.sType = VK_STRUCTURE_TYPE_SET_LATENCY_MARKER_INFO_NV,
	                                         .presentID = 1,
	                                         .marker = VK_LATENCY_MARKER_SIMULATION_START_NV};
	GET(device, vkSetLatencyMarkerNV)(device, swapchain, &marker);
	VkGetLatencyMarkerInfoNV timings = {.sType = VK_STRUCTURE_TYPE_GET_LATENCY_MARKER_INFO_NV};
	GET(device, vkGetLatencyTimingsNV)(device, swapchain, &timings);
	const VkOutOfBandQueueTypeInfoNV oob = {.sType = VK_STRUCTURE_TYPE_OUT_OF_BAND_QUEUE_TYPE_INFO_NV,
	                                        .queueType = VK_OUT_OF_BAND_QUEUE_TYPE_RENDER_NV};
	GET(device, vkQueueNotifyOutOfBandNV)(queue, &oob);
	vkDestroySemaphore(device, semaphore, NULL);
	r->called += 5;
}

static void call_anti_lag(struct run *r, VkDevice device)
{
	const VkAntiLagDataAMD data = {.sType = VK_STRUCTURE_TYPE_ANTI_LAG_DATA_AMD,
	                               .mode = VK_ANTI_LAG_MODE_OFF_AMD};

	GET(device, vkAntiLagUpdateAMD)(device, &data);
	r->called++;
}

/* Feature structs for what ENABLED needs, chained from *head; each one the device has, turned on. */
struct features {
	VkPhysicalDeviceVulkan12Features v12;
	VkPhysicalDevicePresentIdFeaturesKHR id;
	VkPhysicalDevicePresentWaitFeaturesKHR wait;
	VkPhysicalDevicePresentId2FeaturesKHR id2;
	VkPhysicalDevicePresentWait2FeaturesKHR wait2;
	VkPhysicalDevicePresentTimingFeaturesEXT timing;
	VkPhysicalDeviceAntiLagFeaturesAMD anti_lag;
	VkPhysicalDeviceSwapchainMaintenance1FeaturesKHR maintenance1;
};

static void *features_for(const struct run *r, const struct names *enabled, struct features *f)
{
	void *head = NULL;

	*f = (struct features){0};
#define CHAIN(member, stype, ext)                                                                            \
	if (!(ext) || has(enabled, ext)) {                                                                   \
		f->member.sType = stype;                                                                     \
		f->member.pNext = head;                                                                      \
		head = &f->member;                                                                           \
	}
	CHAIN(v12, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
	      r->version >= VK_API_VERSION_1_2 ? NULL : "-")
	CHAIN(id, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR, VK_KHR_PRESENT_ID_EXTENSION_NAME)
	CHAIN(wait, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR,
	      VK_KHR_PRESENT_WAIT_EXTENSION_NAME)
	CHAIN(id2, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR,
	      VK_KHR_PRESENT_ID_2_EXTENSION_NAME)
	CHAIN(wait2, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR,
	      VK_KHR_PRESENT_WAIT_2_EXTENSION_NAME)
	CHAIN(timing, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT,
	      VK_EXT_PRESENT_TIMING_EXTENSION_NAME)
	CHAIN(anti_lag, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ANTI_LAG_FEATURES_AMD,
	      VK_AMD_ANTI_LAG_EXTENSION_NAME)
	CHAIN(maintenance1, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_KHR,
	      has(enabled, VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME)
	              ? VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME
	              : VK_EXT_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME)
#undef CHAIN
	if (!head)
		return NULL;
	VkPhysicalDeviceFeatures2 query = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
	                                   .pNext = head};
	vkGetPhysicalDeviceFeatures2(r->physical, &query);
	/* Only what the checks use is kept on; the rest as the device has it (queried above). */
	f->v12 = (VkPhysicalDeviceVulkan12Features){
	        .sType = f->v12.sType, .pNext = f->v12.pNext, .timelineSemaphore = f->v12.timelineSemaphore};
	return head;
}

/* One device with ENABLED, its commands resolved and, where enabled, called. */
static void check_device(struct run *r, const struct names *enabled)
{
	struct features features;
	void *chain = features_for(r, enabled, &features);
	VkDevice device;
	VkQueue queue;

	CHECK_VK(device_create_with(r->physical, r->family, enabled->list, enabled->count, chain, NULL,
	                            &device));
	vkGetDeviceQueue(device, r->family, 0, &queue);
	resolve_all(r, device, enabled);

	bool low_latency = has(enabled, VK_NV_LOW_LATENCY_2_EXTENSION_NAME);
	if (low_latency && r->version >= VK_API_VERSION_1_2 && !features.v12.timelineSemaphore)
		fail("VK_NV_low_latency2 is listed on a device without timeline semaphores");
	if (low_latency) {
		const struct swapchain_params params = {
		        .physical = r->physical, .surface = r->surface, .window_size = r->window_size};
		VkSwapchainKHR swapchain;
		VkExtent2D extent;
		CHECK_VK(swapchain_create(device, &params, NULL, &swapchain, &extent));
		call_low_latency(r, device, queue, swapchain);
		vkDestroySwapchainKHR(device, swapchain, NULL);
	}
	if (has(enabled, VK_AMD_ANTI_LAG_EXTENSION_NAME) && features.anti_lag.antiLag)
		call_anti_lag(r, device);
	vkDestroyDevice(device, NULL);
}

static void list_of(struct run *r, struct names *listed)
{
	VkExtensionProperties props[512];
	uint32_t count = sizeof(props) / sizeof(props[0]);

	CHECK_VK(vkEnumerateDeviceExtensionProperties(r->physical, NULL, &count, props));
	listed_of(props, count, listed, false);
}

int main(int argc, char **argv)
{
	bool headless = argc == 2 && !strcmp(argv[1], "--headless");
	struct xdisplay *x = NULL;
	struct run r = {.window_size = {64, 48}};

	if (argc > 2 || (argc == 2 && !headless)) {
		fprintf(stderr, "usage: command_table [--headless]\n");
		return 2;
	}
	check_coverage();

	/* The instance extensions of the table that the loader lists. */
	VkExtensionProperties props[128];
	uint32_t count = sizeof(props) / sizeof(props[0]);
	CHECK_VK(vkEnumerateInstanceExtensionProperties(NULL, &count, props));
	listed_of(props, count, &r.instance_exts, true);
	static const char *const maintenance[] = {"VK_KHR_surface_maintenance1",
	                                          "VK_EXT_surface_maintenance1"};
	for (uint32_t i = 0; i < count; i++)
		for (size_t m = 0; m < 2; m++)
			if (!strcmp(props[i].extensionName, maintenance[m]))
				add(&r.instance_exts, maintenance[m]);
	struct names extra = r.instance_exts;
	for (uint32_t i = 0; i < extra.count; i++)
		if (!strcmp(extra.list[i], VK_KHR_SURFACE_EXTENSION_NAME))
			extra.list[i] = extra.list[--extra.count];
	add(&r.instance_exts, VK_KHR_SURFACE_EXTENSION_NAME);
	const struct instance_params ip = {.app_name = "command_table",
	                                   .api_version = VK_API_VERSION_1_3,
	                                   .headless = headless,
	                                   .extra = extra.list,
	                                   .extra_count = extra.count};
	CHECK_VK(instance_create_with(&ip, NULL, &r.instance));
	if (headless) {
		CHECK_VK(surface_create_headless(r.instance, NULL, &r.surface));
	} else {
		xcb_window_t window;
		if (!(x = xdisplay_open()) || !(window = xdisplay_create_window(x, 64, 48)))
			fail("no X window");
		CHECK_VK(surface_create(r.instance, x, window, NULL, &r.surface));
	}
	CHECK_VK(physical_device_pick(r.instance, r.surface, &r.physical, &r.family));
	VkPhysicalDeviceProperties device_props;
	vkGetPhysicalDeviceProperties(r.physical, &device_props);
	r.version =
	        device_props.apiVersion < VK_API_VERSION_1_3 ? device_props.apiVersion : VK_API_VERSION_1_3;

	struct names listed = {0}, swapchain_only = {0};
	list_of(&r, &listed);
	add(&swapchain_only, VK_KHR_SWAPCHAIN_EXTENSION_NAME);
	add(&listed, VK_KHR_SWAPCHAIN_EXTENSION_NAME);
	printf("command_table: listed:");
	for (uint32_t i = 0; i < listed.count; i++)
		printf(" %s", listed.list[i]);
	printf("\n");

	check_device(&r, &swapchain_only);
	check_device(&r, &listed);

	vkDestroySurfaceKHR(r.instance, r.surface, NULL);
	vkDestroyInstance(r.instance, NULL);
	if (x)
		xdisplay_close(x);
	printf("command_table: %u commands resolved, %u called\n", r.resolved, r.called);
	return 0;
}
