/* timing_procs — an app that uses VK_EXT_present_timing offered by a layer, and what
 * vkGetDeviceProcAddr answers it.
 *
 *   timing_procs [--layer NAME] [--frames N]
 *   timing_procs --names-only
 *
 * Creates a headless surface and a device enabling VK_EXT_present_timing, VK_KHR_present_id2 and
 * VK_KHR_present_wait2 (and VK_KHR_calibrated_timestamps where listed), taken from the extensions
 * the driver lists and those the explicitly enabled layer NAME lists when asked by its name (Arm's
 * WSI layer lists its own only that way). Then:
 * - every command of those extensions must come back from vkGetDeviceProcAddr (a layer between
 *   the app and the one offering them must not hide them);
 * - names of instance-level commands must come back NULL from vkGetDeviceProcAddr, as the spec's
 *   table for it says;
 * - a present-timing swapchain is created and its time domains, timing properties and past timings
 *   are read through the pointers received, around N FIFO presents, each waited for with
 *   vkWaitForPresent2KHR: pointers that merely exist are not enough.
 * Exit 0 when all of that held, 1 otherwise (each failure on stderr), 77 when nothing offers
 * present timing (the environment lacks it: decided before anything is judged). --names-only makes
 * a plain device (no surface, no extension) and checks only the instance-level names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define SKIP 77

static int failures;

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "timing_procs: FAIL: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	failures++;
}

/* A result's name and number (the test apps' table lacks the newest codes). */
static const char *rname(VkResult r)
{
	static char buf[64];
	snprintf(buf, sizeof(buf), "%s (%d)", result_name(r), (int)r);
	return buf;
}

static bool listed(const VkExtensionProperties *props, uint32_t count, const char *name)
{
	for (uint32_t i = 0; i < count; i++)
		if (!strcmp(props[i].extensionName, name))
			return true;
	return false;
}

/* The driver's extensions, then the layer's (asked by its name), in one array. */
static VkExtensionProperties *device_extensions(VkPhysicalDevice physical, const char *layer, uint32_t *count)
{
	uint32_t driver = 0, own = 0;
	VkExtensionProperties *props;

	if (vkEnumerateDeviceExtensionProperties(physical, NULL, &driver, NULL) != VK_SUCCESS)
		return NULL;
	if (layer && vkEnumerateDeviceExtensionProperties(physical, layer, &own, NULL) != VK_SUCCESS)
		own = 0;
	props = calloc(driver + own + 1, sizeof(*props));
	if (!props)
		return NULL;
	if (vkEnumerateDeviceExtensionProperties(physical, NULL, &driver, props) != VK_SUCCESS ||
	    (own &&
	     vkEnumerateDeviceExtensionProperties(physical, layer, &own, props + driver) != VK_SUCCESS)) {
		free(props);
		return NULL;
	}
	*count = driver + own;
	return props;
}

struct timing {
	PFN_vkSetSwapchainPresentTimingQueueSizeEXT SetSwapchainPresentTimingQueueSizeEXT;
	PFN_vkGetSwapchainTimingPropertiesEXT GetSwapchainTimingPropertiesEXT;
	PFN_vkGetSwapchainTimeDomainPropertiesEXT GetSwapchainTimeDomainPropertiesEXT;
	PFN_vkGetPastPresentationTimingEXT GetPastPresentationTimingEXT;
	PFN_vkWaitForPresent2KHR WaitForPresent2KHR;
};

static bool load(VkDevice device, struct timing *t)
{
	bool all = true;

#define LOAD(name)                                                                                           \
	do {                                                                                                 \
		t->name = (PFN_vk##name)vkGetDeviceProcAddr(device, "vk" #name);                             \
		printf("vkGetDeviceProcAddr(vk" #name "): %s\n", t->name ? "found" : "NULL");                \
		if (!t->name) {                                                                              \
			fail("vkGetDeviceProcAddr returned NULL for an enabled extension's command",         \
			     "vk" #name);                                                                    \
			all = false;                                                                         \
		}                                                                                            \
	} while (0)
	LOAD(SetSwapchainPresentTimingQueueSizeEXT);
	LOAD(GetSwapchainTimingPropertiesEXT);
	LOAD(GetSwapchainTimeDomainPropertiesEXT);
	LOAD(GetPastPresentationTimingEXT);
	LOAD(WaitForPresent2KHR);
#undef LOAD
	return all;
}

/* The spec's table for vkGetDeviceProcAddr: anything but a device-level command is NULL. */
static void instance_names_are_null(VkDevice device)
{
	static const char *const names[] = {
	        "vkCreateInstance",
	        "vkDestroyInstance",
	        "vkCreateDevice",
	        "vkGetInstanceProcAddr",
	        "vkEnumeratePhysicalDevices",
	        "vkGetPhysicalDeviceProperties",
	        "vkEnumerateDeviceExtensionProperties",
	        "vkGetPhysicalDeviceSurfaceCapabilities2KHR",
	        "vkGetPhysicalDeviceSurfacePresentModesKHR",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (vkGetDeviceProcAddr(device, names[i]))
			fail("vkGetDeviceProcAddr returned a pointer for an instance-level command",
			     names[i]);
}

/* Reads the timings that are complete; false (after saying why) when the call fails. */
static bool read_past(VkDevice device, VkSwapchainKHR swapchain, const struct timing *t, unsigned *read_back)
{
	VkPastPresentationTimingEXT past[8];
	VkPresentStageTimeEXT stages[8];
	memset(past, 0, sizeof(past));
	for (unsigned i = 0; i < 8; i++) {
		past[i].sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_EXT;
		past[i].presentStageCount = 1;
		past[i].pPresentStages = &stages[i];
	}
	const VkPastPresentationTimingInfoEXT info = {
	        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_INFO_EXT, .swapchain = swapchain};
	VkPastPresentationTimingPropertiesEXT out = {
	        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_PROPERTIES_EXT,
	        .presentationTimingCount = 8,
	        .pPresentationTimings = past};
	VkResult r = t->GetPastPresentationTimingEXT(device, &info, &out);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
		fail("vkGetPastPresentationTimingEXT", rname(r));
		return false;
	}
	*read_back += out.presentationTimingCount;
	return true;
}

/* N presents of cleared images, each with a present id waited for through vkWaitForPresent2KHR,
 * then the past timings read back through vkGetPastPresentationTimingEXT. */
static void present_and_read(VkDevice device, uint32_t family, VkSwapchainKHR swapchain,
                             const struct timing *t, unsigned frames)
{
	VkQueue queue;
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence fence;
	VkSemaphore acquired, done;
	VkImage images[16];
	uint32_t image_count = sizeof(images) / sizeof(images[0]);
	VkResult r;

	vkGetDeviceQueue(device, family, 0, &queue);
	const VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                     .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	                                     .queueFamilyIndex = family};
	const VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                         .commandBufferCount = 1,
	                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY};
	const VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	const VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	if (vkCreateCommandPool(device, &pci, NULL, &pool) != VK_SUCCESS) {
		fail("vkCreateCommandPool", NULL);
		return;
	}
	VkCommandBufferAllocateInfo cai_pool = cai;
	cai_pool.commandPool = pool;
	vkAllocateCommandBuffers(device, &cai_pool, &cmd);
	vkCreateFence(device, &fci, NULL, &fence);
	vkCreateSemaphore(device, &sci, NULL, &acquired);
	vkCreateSemaphore(device, &sci, NULL, &done);
	vkGetSwapchainImagesKHR(device, swapchain, &image_count, images);

	if ((r = t->SetSwapchainPresentTimingQueueSizeEXT(device, swapchain, 8)) != VK_SUCCESS)
		fail("vkSetSwapchainPresentTimingQueueSizeEXT", rname(r));
	VkSwapchainTimingPropertiesEXT props = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_TIMING_PROPERTIES_EXT};
	uint64_t counter = 0;
	r = t->GetSwapchainTimingPropertiesEXT(device, swapchain, &props, &counter);
	if (r != VK_SUCCESS && r != VK_NOT_READY)
		fail("vkGetSwapchainTimingPropertiesEXT", rname(r));
	VkSwapchainTimeDomainPropertiesEXT domains = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_TIME_DOMAIN_PROPERTIES_EXT};
	r = t->GetSwapchainTimeDomainPropertiesEXT(device, swapchain, &domains, &counter);
	if (r != VK_SUCCESS || domains.timeDomainCount == 0)
		fail("vkGetSwapchainTimeDomainPropertiesEXT listed no time domain", rname(r));
	else
		printf("time domains: %u\n", domains.timeDomainCount);

	unsigned presented = 0, read_back = 0;
	for (unsigned frame = 1; frame <= frames; frame++) {
		uint32_t index;
		if ((r = vkAcquireNextImageKHR(device, swapchain, UINT64_MAX, acquired, VK_NULL_HANDLE,
		                               &index)) != VK_SUCCESS &&
		    r != VK_SUBOPTIMAL_KHR) {
			fail("vkAcquireNextImageKHR", rname(r));
			break;
		}
		const VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		                                        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
		vkBeginCommandBuffer(cmd, &begin);
		record_clear(cmd, images[index], frame, 0.5f);
		vkEndCommandBuffer(cmd);
		const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
		const VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		                             .waitSemaphoreCount = 1,
		                             .pWaitSemaphores = &acquired,
		                             .pWaitDstStageMask = &stage,
		                             .commandBufferCount = 1,
		                             .pCommandBuffers = &cmd,
		                             .signalSemaphoreCount = 1,
		                             .pSignalSemaphores = &done};
		vkQueueSubmit(queue, 1, &submit, fence);
		const uint64_t id = frame;
		const VkPresentId2KHR present_id = {
		        .sType = VK_STRUCTURE_TYPE_PRESENT_ID_2_KHR, .swapchainCount = 1, .pPresentIds = &id};
		const VkPresentTimingInfoEXT timing_info = {
		        .sType = VK_STRUCTURE_TYPE_PRESENT_TIMING_INFO_EXT,
		        .presentStageQueries = VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT};
		const VkPresentTimingsInfoEXT timings = {.sType = VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT,
		                                         .pNext = &present_id,
		                                         .swapchainCount = 1,
		                                         .pTimingInfos = &timing_info};
		const VkPresentInfoKHR present = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
		                                  .pNext = &timings,
		                                  .waitSemaphoreCount = 1,
		                                  .pWaitSemaphores = &done,
		                                  .swapchainCount = 1,
		                                  .pSwapchains = &swapchain,
		                                  .pImageIndices = &index};
		if ((r = vkQueuePresentKHR(queue, &present)) != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) {
			fail("vkQueuePresentKHR", rname(r));
			break;
		}
		const VkPresentWait2InfoKHR wait = {.sType = VK_STRUCTURE_TYPE_PRESENT_WAIT_2_INFO_KHR,
		                                    .presentId = id,
		                                    .timeout = 1000000000ull};
		if ((r = t->WaitForPresent2KHR(device, swapchain, &wait)) != VK_SUCCESS) {
			fail("vkWaitForPresent2KHR", rname(r));
			break;
		}
		vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
		vkResetFences(device, 1, &fence);
		presented++;
		/* Drained every frame: results left in the queue would fill it and fail a present. */
		if (!read_past(device, swapchain, t, &read_back))
			break;
	}

	printf("presented %u frames; %u past timings read back\n", presented, read_back);
	if (presented && !read_back)
		fail("vkGetPastPresentationTimingEXT returned no timing after the presents were waited for",
		     NULL);

	vkDeviceWaitIdle(device);
	vkDestroySemaphore(device, done, NULL);
	vkDestroySemaphore(device, acquired, NULL);
	vkDestroyFence(device, fence, NULL);
	vkDestroyCommandPool(device, pool, NULL);
}

/* A device with nothing enabled, and what vkGetDeviceProcAddr answers for instance-level names. */
static int names_only(void)
{
	const struct instance_params params = {.app_name = "timing_procs", .no_surface = true};
	VkInstance instance;
	VkPhysicalDevice physical;
	uint32_t count = 1;
	VkResult r;

	if ((r = instance_create_with(&params, NULL, &instance)) != VK_SUCCESS) {
		fprintf(stderr, "timing_procs: vkCreateInstance: %s\n", rname(r));
		return 1;
	}
	r = vkEnumeratePhysicalDevices(instance, &count, &physical);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || !count) {
		fprintf(stderr, "timing_procs: no physical device: %s\n", rname(r));
		return 1;
	}
	VkDevice device;
	if ((r = device_create_with(physical, 0, NULL, 0, NULL, NULL, &device)) != VK_SUCCESS) {
		fprintf(stderr, "timing_procs: vkCreateDevice: %s\n", rname(r));
		return 1;
	}
	instance_names_are_null(device);
	vkDestroyDevice(device, NULL);
	vkDestroyInstance(instance, NULL);
	if (!failures)
		printf("timing_procs: vkGetDeviceProcAddr answered NULL for every instance-level name\n");
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *layer = NULL;
	unsigned frames = 30;
	VkInstance instance;
	VkSurfaceKHR surface;
	VkPhysicalDevice physical;
	uint32_t family, count = 0;
	VkResult r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--layer") && i + 1 < argc)
			layer = argv[++i];
		else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			frames = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--names-only"))
			return names_only();
		else {
			fprintf(stderr, "usage: timing_procs [--layer NAME] [--frames N] | --names-only\n");
			return 2;
		}
	}
	if ((r = headless_setup(&(struct instance_params){.app_name = "timing_procs"}, &instance, &surface,
	                        &physical, &family)) != VK_SUCCESS) {
		fprintf(stderr, "timing_procs: no instance, headless surface or device for it: %s\n",
		        result_name(r));
		return 1;
	}
	VkExtensionProperties *props = device_extensions(physical, layer, &count);
	if (!props) {
		fprintf(stderr, "timing_procs: cannot list the device's extensions\n");
		return 1;
	}
	static const char *const needed[] = {
	        VK_KHR_SWAPCHAIN_EXTENSION_NAME, VK_EXT_PRESENT_TIMING_EXTENSION_NAME,
	        VK_KHR_PRESENT_ID_2_EXTENSION_NAME, VK_KHR_PRESENT_WAIT_2_EXTENSION_NAME};
	const char *names[8];
	uint32_t n = 0;
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (!listed(props, count, needed[i])) {
			printf("SKIP: %s is not offered (%s)\n", needed[i],
			       layer ? layer : "no layer named with --layer");
			return SKIP;
		}
		names[n++] = needed[i];
	}
	if (listed(props, count, VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME))
		names[n++] = VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
	free(props);

	VkPhysicalDevicePresentWait2FeaturesKHR wait2 = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR,
	        .presentWait2 = VK_TRUE};
	VkPhysicalDevicePresentId2FeaturesKHR id2 = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR,
	        .pNext = &wait2,
	        .presentId2 = VK_TRUE};
	VkPhysicalDevicePresentTimingFeaturesEXT timing = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT,
	        .pNext = &id2,
	        .presentTiming = VK_TRUE};
	VkDevice device;
	if ((r = device_create_with(physical, family, names, n, &timing, NULL, &device)) != VK_SUCCESS) {
		fprintf(stderr, "timing_procs: vkCreateDevice with VK_EXT_present_timing: %s\n",
		        result_name(r));
		return 1;
	}

	struct timing t;
	instance_names_are_null(device);
	if (load(device, &t)) {
		const struct swapchain_params params = {
		        .physical = physical,
		        .surface = surface,
		        .window_size = {64, 64},
		        .mode = VK_PRESENT_MODE_FIFO_KHR,
		        .flags = VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT |
		                 VK_SWAPCHAIN_CREATE_PRESENT_ID_2_BIT_KHR |
		                 VK_SWAPCHAIN_CREATE_PRESENT_WAIT_2_BIT_KHR,
		};
		VkSwapchainKHR swapchain;
		VkExtent2D extent;
		if ((r = swapchain_create(device, &params, NULL, &swapchain, &extent)) != VK_SUCCESS) {
			fail("vkCreateSwapchainKHR with VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT",
			     rname(r));
		} else {
			present_and_read(device, family, swapchain, &t, frames);
			vkDestroySwapchainKHR(device, swapchain, NULL);
		}
	}
	vkDestroyDevice(device, NULL);
	vkDestroySurfaceKHR(instance, surface, NULL);
	vkDestroyInstance(instance, NULL);
	if (failures)
		return 1;
	printf("timing_procs: every present-timing command was found and answered\n");
	return 0;
}
