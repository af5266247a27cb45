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

#define CHECK_VK(call)                                                                                       \
	do {                                                                                                 \
		VkResult r_ = (call);                                                                        \
		if (r_ != VK_SUCCESS) {                                                                      \
			fprintf(stderr, "latency_sleep: %s:%d: %s = %d\n", __FILE__, __LINE__, #call, r_);   \
			exit(1);                                                                             \
		}                                                                                            \
	} while (0)

#define MAX_IMAGES 8
/* Frames in flight between the game thread and the submit thread: DXVK's one, with
 * dxgi.maxFrameLatency = 1. */
#define POLL_NS 100000 /* 100 us between counter polls in `poll` mode */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void fail(const char *what)
{
	fprintf(stderr, "latency_sleep: %s\n", what);
	exit(1);
}

struct app {
	VkInstance instance;
	VkPhysicalDevice physical;
	VkDevice device;
	VkQueue queue;
	VkSurfaceKHR surface;
	VkSwapchainKHR swapchain;
	uint32_t image_count;
	VkImage images[MAX_IMAGES];
	VkCommandPool pool;
	VkCommandBuffer cmds[MAX_IMAGES];
	VkSemaphore acquired[MAX_IMAGES], rendered[MAX_IMAGES];
	VkFence done[MAX_IMAGES];
	VkFence image_fence[MAX_IMAGES];
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
	const char *instance_exts[] = {VK_KHR_SURFACE_EXTENSION_NAME, VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME,
	                               VK_KHR_GET_SURFACE_CAPABILITIES_2_EXTENSION_NAME};
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                         .pApplicationName = "latency_sleep",
	                         .apiVersion = VK_API_VERSION_1_3};
	VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	                            .pApplicationInfo = &app,
	                            .enabledExtensionCount = 3,
	                            .ppEnabledExtensionNames = instance_exts};
	CHECK_VK(vkCreateInstance(&ici, NULL, &a->instance));
	uint32_t n = 1;
	VkResult r = vkEnumeratePhysicalDevices(a->instance, &n, &a->physical);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || !n)
		fail("no physical device");
	VkHeadlessSurfaceCreateInfoEXT hs = {.sType = VK_STRUCTURE_TYPE_HEADLESS_SURFACE_CREATE_INFO_EXT};
	CHECK_VK(vkCreateHeadlessSurfaceEXT(a->instance, &hs, NULL, &a->surface));

	/* The extension must be listed, also when the app's array is too small for the whole list. */
	uint32_t count = 0;
	CHECK_VK(vkEnumerateDeviceExtensionProperties(a->physical, NULL, &count, NULL));
	VkExtensionProperties *props = calloc(count, sizeof(*props));
	uint32_t fewer = count - 1;
	if (!props ||
	    vkEnumerateDeviceExtensionProperties(a->physical, NULL, &fewer, props) != VK_INCOMPLETE ||
	    fewer != count - 1)
		fail("vkEnumerateDeviceExtensionProperties with a short array did not return VK_INCOMPLETE");
	CHECK_VK(vkEnumerateDeviceExtensionProperties(a->physical, NULL, &count, props));
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
		vkGetPhysicalDeviceFeatures2(a->physical, &f2);
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
	float priority = 1.0f;
	VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                               .queueFamilyIndex = 0,
	                               .queueCount = 1,
	                               .pQueuePriorities = &priority};
	VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                          .pNext = &v12,
	                          .queueCreateInfoCount = 1,
	                          .pQueueCreateInfos = &qci,
	                          .enabledExtensionCount = 3,
	                          .ppEnabledExtensionNames = device_exts};
	CHECK_VK(vkCreateDevice(a->physical, &dci, NULL, &a->device));
	vkGetDeviceQueue(a->device, 0, 0, &a->queue);
	if (a->anti_lag) {
		a->AntiLagUpdateAMD =
		        (PFN_vkAntiLagUpdateAMD)vkGetDeviceProcAddr(a->device, "vkAntiLagUpdateAMD");
		if (!a->AntiLagUpdateAMD)
			fail("vkAntiLagUpdateAMD is not reachable");
	}
	a->SetLatencySleepModeNV =
	        (PFN_vkSetLatencySleepModeNV)vkGetDeviceProcAddr(a->device, "vkSetLatencySleepModeNV");
	a->LatencySleepNV = (PFN_vkLatencySleepNV)vkGetDeviceProcAddr(a->device, "vkLatencySleepNV");
	a->SetLatencyMarkerNV =
	        (PFN_vkSetLatencyMarkerNV)vkGetDeviceProcAddr(a->device, "vkSetLatencyMarkerNV");
	a->GetLatencyTimingsNV =
	        (PFN_vkGetLatencyTimingsNV)vkGetDeviceProcAddr(a->device, "vkGetLatencyTimingsNV");
	if (!a->anti_lag && (!a->SetLatencySleepModeNV || !a->LatencySleepNV || !a->SetLatencyMarkerNV ||
	                     !a->GetLatencyTimingsNV))
		fail("the VK_NV_low_latency2 commands are not reachable");

	/* The surface's low-latency present modes, first in the chain (the usual place). */
	VkPresentModeKHR modes[8];
	VkLatencySurfaceCapabilitiesNV lc = {.sType = VK_STRUCTURE_TYPE_LATENCY_SURFACE_CAPABILITIES_NV};
	VkSurfaceCapabilities2KHR caps = {.sType = VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_2_KHR,
	                                  .pNext = &lc};
	VkPhysicalDeviceSurfaceInfo2KHR si = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SURFACE_INFO_2_KHR,
	                                      .surface = a->surface};
	if (a->anti_lag) {
		/* No VK_NV_low_latency2 here: the struct would be invalid. */
		caps.pNext = NULL;
		CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilities2KHR(a->physical, &si, &caps));
		lc.presentModeCount = 1;
		modes[0] = VK_PRESENT_MODE_FIFO_KHR;
	} else
		CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilities2KHR(a->physical, &si, &caps));
	if (!lc.presentModeCount || lc.presentModeCount > 8)
		fail("VkLatencySurfaceCapabilitiesNV gave no present modes");
	lc.pPresentModes = modes;
	if (!a->anti_lag)
		CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilities2KHR(a->physical, &si, &caps));
	bool fifo = false;
	for (uint32_t i = 0; i < lc.presentModeCount; i++)
		fifo = fifo || modes[i] == VK_PRESENT_MODE_FIFO_KHR;
	if (!fifo || !caps.surfaceCapabilities.minImageCount)
		fail("VkLatencySurfaceCapabilitiesNV lacks FIFO, or the capabilities were not filled");
	if (!a->anti_lag)
		printf("latency_sleep: %u low-latency present modes\n", lc.presentModeCount);

	VkSwapchainLatencyCreateInfoNV latency = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_LATENCY_CREATE_INFO_NV,
	                                          .latencyModeEnable = VK_TRUE};
	uint32_t images =
	        caps.surfaceCapabilities.minImageCount < 3 ? 3 : caps.surfaceCapabilities.minImageCount;
	VkSwapchainCreateInfoKHR ci = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
	        .pNext = a->anti_lag ? NULL : &latency,
	        .surface = a->surface,
	        .minImageCount = images,
	        .imageFormat = VK_FORMAT_B8G8R8A8_UNORM,
	        .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
	        .imageExtent = {64, 64},
	        .imageArrayLayers = 1,
	        .imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
	        .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
	        .preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
	        .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
	        .presentMode = VK_PRESENT_MODE_FIFO_KHR,
	        .clipped = VK_TRUE,
	};
	if (caps.surfaceCapabilities.currentExtent.width != UINT32_MAX)
		ci.imageExtent = caps.surfaceCapabilities.currentExtent;
	CHECK_VK(vkCreateSwapchainKHR(a->device, &ci, NULL, &a->swapchain));
	a->image_count = MAX_IMAGES;
	CHECK_VK(vkGetSwapchainImagesKHR(a->device, a->swapchain, &a->image_count, a->images));

	VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
	CHECK_VK(vkCreateCommandPool(a->device, &pci, NULL, &a->pool));
	VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                  .commandPool = a->pool,
	                                  .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                  .commandBufferCount = a->image_count};
	CHECK_VK(vkAllocateCommandBuffers(a->device, &ai, a->cmds));
	for (uint32_t i = 0; i < a->image_count; i++) {
		VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
		VkImageMemoryBarrier b = {
		        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		        .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
		        .newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
		        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		        .image = a->images[i],
		        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
		};
		CHECK_VK(vkBeginCommandBuffer(a->cmds[i], &bi));
		vkCmdPipelineBarrier(a->cmds[i], VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
		                     VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL, 0, NULL, 1, &b);
		CHECK_VK(vkEndCommandBuffer(a->cmds[i]));
	}
	for (uint32_t i = 0; i < MAX_IMAGES; i++) {
		VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
		VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
		                         .flags = VK_FENCE_CREATE_SIGNALED_BIT};
		CHECK_VK(vkCreateSemaphore(a->device, &sci, NULL, &a->acquired[i]));
		CHECK_VK(vkCreateSemaphore(a->device, &sci, NULL, &a->rendered[i]));
		CHECK_VK(vkCreateFence(a->device, &fci, NULL, &a->done[i]));
	}
	VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
	                                  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
	VkSemaphoreCreateInfo tci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
	CHECK_VK(vkCreateSemaphore(a->device, &tci, NULL, &a->latency));
}

/* A VK_NV_low_latency2 marker for frame id; none in the antilag modes. */
static void marker(struct app *a, uint64_t id, VkLatencyMarkerNV m)
{
	if (a->anti_lag)
		return;
	VkSetLatencyMarkerInfoNV info = {
	        .sType = VK_STRUCTURE_TYPE_SET_LATENCY_MARKER_INFO_NV, .presentID = id, .marker = m};
	a->SetLatencyMarkerNV(a->device, a->swapchain, &info);
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
	a->AntiLagUpdateAMD(a->device, &d);
}

/* Frame `id` on the submit thread: acquire, submit, present. */
static void present_frame(struct app *a, uint64_t id)
{
	uint32_t slot = (uint32_t)(id % MAX_IMAGES), index;

	CHECK_VK(vkWaitForFences(a->device, 1, &a->done[slot], VK_TRUE, UINT64_MAX));
	CHECK_VK(vkResetFences(a->device, 1, &a->done[slot]));
	CHECK_VK(vkAcquireNextImageKHR(a->device, a->swapchain, UINT64_MAX, a->acquired[slot], VK_NULL_HANDLE,
	                               &index));
	if (a->image_fence[index])
		CHECK_VK(vkWaitForFences(a->device, 1, &a->image_fence[index], VK_TRUE, UINT64_MAX));
	a->image_fence[index] = a->done[slot];
	marker(a, id, VK_LATENCY_MARKER_RENDERSUBMIT_START_NV);
	VkLatencySubmissionPresentIdNV latency = {.sType = VK_STRUCTURE_TYPE_LATENCY_SUBMISSION_PRESENT_ID_NV,
	                                          .presentID = id};
	VkSemaphoreSubmitInfo wait = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
	                              .semaphore = a->acquired[slot],
	                              .stageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT};
	VkSemaphoreSubmitInfo signal = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
	                                .semaphore = a->rendered[slot],
	                                .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
	VkCommandBufferSubmitInfo cmd = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
	                                 .commandBuffer = a->cmds[index]};
	VkSubmitInfo2 submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
	                        .pNext = a->anti_lag ? NULL : &latency,
	                        .waitSemaphoreInfoCount = 1,
	                        .pWaitSemaphoreInfos = &wait,
	                        .commandBufferInfoCount = 1,
	                        .pCommandBufferInfos = &cmd,
	                        .signalSemaphoreInfoCount = 1,
	                        .pSignalSemaphoreInfos = &signal};
	CHECK_VK(vkQueueSubmit2(a->queue, 1, &submit, a->done[slot]));
	marker(a, id, VK_LATENCY_MARKER_RENDERSUBMIT_END_NV);
	VkPresentIdKHR pid = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR, .swapchainCount = 1, .pPresentIds = &id};
	VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
	                       .pNext = &pid,
	                       .waitSemaphoreCount = 1,
	                       .pWaitSemaphores = &a->rendered[slot],
	                       .swapchainCount = 1,
	                       .pSwapchains = &a->swapchain,
	                       .pImageIndices = &index};
	if (a->anti_lag)
		anti_lag_update(a, id, VK_ANTI_LAG_STAGE_PRESENT_AMD, a->max_fps, a->off);
	CHECK_VK(vkQueuePresentKHR(a->queue, &pi));
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
	CHECK_VK(a->LatencySleepNV(a->device, a->swapchain, &info));
	if (!poll) {
		VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		                          .semaphoreCount = 1,
		                          .pSemaphores = &a->latency,
		                          .pValues = &id};
		CHECK_VK(vkWaitSemaphores(a->device, &wi, 2000000000ull /* 2 s: longer than any sleep */));
		return;
	}
	int64_t give_up = now_ns() + 2000000000ll;
	uint64_t value = 0;
	for (;;) {
		CHECK_VK(vkGetSemaphoreCounterValue(a->device, a->latency, &value));
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
	a->GetLatencyTimingsNV(a->device, a->swapchain, &mi);
	VkLatencyTimingsFrameReportNV reports[64];
	uint32_t n = mi.timingCount < 64 ? mi.timingCount : 64;
	for (uint32_t i = 0; i < n; i++)
		reports[i] = (VkLatencyTimingsFrameReportNV){
		        .sType = VK_STRUCTURE_TYPE_LATENCY_TIMINGS_FRAME_REPORT_NV};
	mi.timingCount = n;
	mi.pTimings = reports;
	a->GetLatencyTimingsNV(a->device, a->swapchain, &mi);
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
		CHECK_VK(a.SetLatencySleepModeNV(a.device, a.swapchain, &mode));
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

	CHECK_VK(vkDeviceWaitIdle(a.device));
	vkDestroySemaphore(a.device, a.latency, NULL);
	for (uint32_t i = 0; i < MAX_IMAGES; i++) {
		vkDestroySemaphore(a.device, a.acquired[i], NULL);
		vkDestroySemaphore(a.device, a.rendered[i], NULL);
		vkDestroyFence(a.device, a.done[i], NULL);
	}
	vkDestroyCommandPool(a.device, a.pool, NULL);
	vkDestroySwapchainKHR(a.device, a.swapchain, NULL);
	vkDestroyDevice(a.device, NULL);
	vkDestroySurfaceKHR(a.instance, a.surface, NULL);
	vkDestroyInstance(a.instance, NULL);
	return 0;
}
