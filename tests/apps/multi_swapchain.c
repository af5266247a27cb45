/* multi_swapchain.c — a plain Vulkan client that exercises what a layer's per-object state can get wrong.
 *
 * One instance, two logical devices on the same physical device (so the devices share a physical
 * device, an ICD and a loader dispatch table, and only their VkDevice tells them apart), a window and
 * a swapchain for each, every frame presented from a thread other than the one that created the
 * device, and one swapchain recreated mid-run with oldSwapchain set. Rendering is a clear to a colour
 * that changes every frame, with the layout transitions and semaphores the spec requires, so the run
 * must be silent under the Khronos validation layer with or without lowlat above it.
 *
 *   multi_swapchain [FRAMES]     presents FRAMES (default 200) on each swapchain, then prints
 *   multi_swapchain: device0 200 frames, device1 200 frames, 1 recreate
 *
 * Exit status 0 on success; 1 with a `multi_swapchain: ...` message on stderr on any failure.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan_core.h>

/* xwindow.h declares the xcb types that vulkan_xcb.h names (no xcb headers in the test root). */
#include "result_name.h"
#include "xwindow.h"

#include <vulkan/vulkan_xcb.h>

#define DEVICE_COUNT     2
#define FRAMES_IN_FLIGHT 2
#define MAX_IMAGES       8
#define DEFAULT_FRAMES   200
/* Lavapipe under Xvfb completes a frame in well under a millisecond; a wait this long is a hang, and
 * failing beats hanging until meson's test timeout. */
#define WAIT_TIMEOUT_NS 5000000000ull /* 5 s */

/* Distinct window sizes, so the layer's per-swapchain summary lines tell the two devices apart. */
static const VkExtent2D window_size[DEVICE_COUNT] = {{320, 240}, {256, 192}};

struct frame {
	VkCommandBuffer cmd;
	VkSemaphore acquired; /* signalled by the acquire, waited on by this frame's submit */
	VkFence done;         /* this frame's submit finished: cmd and acquired are free again */
};

struct target {
	int index;
	VkPhysicalDevice physical;
	uint32_t family;
	VkDevice device;
	VkQueue queue;
	VkCommandPool pool;
	xcb_window_t window;
	VkSurfaceKHR surface;
	VkSurfaceFormatKHR format;

	VkSwapchainKHR swapchain;
	VkExtent2D extent;
	uint32_t image_count;
	VkImage images[MAX_IMAGES];
	/* One per image, not per frame: a present's wait on its semaphore is only known to be over
	 * when the same image is acquired again (validation's rule for semaphores and swapchains). */
	VkSemaphore rendered[MAX_IMAGES];

	struct frame frames[FRAMES_IN_FLIGHT];
	unsigned frame_index;
	unsigned frames_wanted;
	unsigned frames_done;
	unsigned recreate_at; /* frames_done at which to recreate the swapchain; 0: never */
	unsigned recreates;
	bool failed;
};

static VkInstance instance;

static bool failed(const struct target *t, const char *what, VkResult r)
{
	if (t)
		fprintf(stderr, "multi_swapchain: device%d: %s: %s (%d)\n", t->index, what, result_name(r),
		        r);
	else
		fprintf(stderr, "multi_swapchain: %s: %s (%d)\n", what, result_name(r), r);
	return false;
}

/* Any result but VK_SUCCESS fails the calling function; callers that expect others test them. */
#define TRY(t, what, call)                                                                                   \
	do {                                                                                                 \
		VkResult try_r_ = (call);                                                                    \
		if (try_r_ != VK_SUCCESS)                                                                    \
			return failed(t, what, try_r_);                                                      \
	} while (0)

static bool instance_create(void)
{
	static const char *const extensions[] = {VK_KHR_SURFACE_EXTENSION_NAME,
	                                         VK_KHR_XCB_SURFACE_EXTENSION_NAME};
	const VkApplicationInfo app = {
	        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	        .pApplicationName = "multi_swapchain",
	        .apiVersion = VK_API_VERSION_1_1,
	};
	const VkInstanceCreateInfo info = {
	        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	        .pApplicationInfo = &app,
	        .enabledExtensionCount = sizeof(extensions) / sizeof(extensions[0]),
	        .ppEnabledExtensionNames = extensions,
	};

	TRY(NULL, "vkCreateInstance", vkCreateInstance(&info, NULL, &instance));
	return true;
}

static bool surface_create(struct target *t, struct xdisplay *x)
{
	VkXcbSurfaceCreateInfoKHR info = {
	        .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
	        .connection = xdisplay_connection(x),
	};

	t->window = xdisplay_create_window(x, (uint16_t)window_size[t->index].width,
	                                   (uint16_t)window_size[t->index].height);
	if (!t->window)
		return false;
	info.window = t->window;
	TRY(t, "vkCreateXcbSurfaceKHR", vkCreateXcbSurfaceKHR(instance, &info, NULL, &t->surface));
	return true;
}

/* The first physical device with a queue family that can clear images and present to every
 * target's surface. Both devices are created on it: that is the case under test. */
static bool physical_device_pick(struct target *targets)
{
	VkPhysicalDevice physicals[16];
	uint32_t count = sizeof(physicals) / sizeof(physicals[0]);
	VkResult r = vkEnumeratePhysicalDevices(instance, &count, physicals);

	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return failed(NULL, "vkEnumeratePhysicalDevices", r);
	for (uint32_t p = 0; p < count; p++) {
		VkQueueFamilyProperties families[16];
		uint32_t family_count = sizeof(families) / sizeof(families[0]);

		vkGetPhysicalDeviceQueueFamilyProperties(physicals[p], &family_count, families);
		for (uint32_t f = 0; f < family_count; f++) {
			bool usable = families[f].queueFlags & VK_QUEUE_GRAPHICS_BIT;

			for (int i = 0; usable && i < DEVICE_COUNT; i++) {
				VkBool32 supported = VK_FALSE;

				TRY(NULL, "vkGetPhysicalDeviceSurfaceSupportKHR",
				    vkGetPhysicalDeviceSurfaceSupportKHR(physicals[p], f, targets[i].surface,
				                                         &supported));
				usable = supported;
			}
			if (!usable)
				continue;
			for (int i = 0; i < DEVICE_COUNT; i++) {
				targets[i].physical = physicals[p];
				targets[i].family = f;
			}
			return true;
		}
	}
	fprintf(stderr, "multi_swapchain: no physical device can clear images and present to both windows\n");
	return false;
}

static bool surface_format_pick(struct target *t)
{
	VkSurfaceFormatKHR formats[64];
	uint32_t count = sizeof(formats) / sizeof(formats[0]);
	VkResult r = vkGetPhysicalDeviceSurfaceFormatsKHR(t->physical, t->surface, &count, formats);

	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return failed(t, "vkGetPhysicalDeviceSurfaceFormatsKHR", r);
	if (!count) {
		fprintf(stderr, "multi_swapchain: device%d: the surface offers no format\n", t->index);
		return false;
	}
	/* Any format will do for a clear; UNORM keeps the colours what the code says they are. */
	t->format = formats[0];
	for (uint32_t i = 0; i < count; i++)
		if (formats[i].format == VK_FORMAT_B8G8R8A8_UNORM)
			t->format = formats[i];
	return true;
}

static bool device_create(struct target *t)
{
	static const char *const extensions[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
	const float priority = 1.0f;
	const VkDeviceQueueCreateInfo queue = {
	        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	        .queueFamilyIndex = t->family,
	        .queueCount = 1,
	        .pQueuePriorities = &priority,
	};
	const VkDeviceCreateInfo info = {
	        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	        .queueCreateInfoCount = 1,
	        .pQueueCreateInfos = &queue,
	        .enabledExtensionCount = sizeof(extensions) / sizeof(extensions[0]),
	        .ppEnabledExtensionNames = extensions,
	};
	const VkCommandPoolCreateInfo pool = {
	        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	        /* Each frame slot re-records its own command buffer. */
	        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	        .queueFamilyIndex = t->family,
	};
	const VkSemaphoreCreateInfo semaphore = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	/* Signalled, so the first wait on each frame slot returns at once. */
	const VkFenceCreateInfo fence = {
	        .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
	        .flags = VK_FENCE_CREATE_SIGNALED_BIT,
	};

	TRY(t, "vkCreateDevice", vkCreateDevice(t->physical, &info, NULL, &t->device));
	vkGetDeviceQueue(t->device, t->family, 0, &t->queue);
	TRY(t, "vkCreateCommandPool", vkCreateCommandPool(t->device, &pool, NULL, &t->pool));
	for (int i = 0; i < FRAMES_IN_FLIGHT; i++) {
		struct frame *f = &t->frames[i];
		const VkCommandBufferAllocateInfo alloc = {
		        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		        .commandPool = t->pool,
		        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		        .commandBufferCount = 1,
		};

		TRY(t, "vkAllocateCommandBuffers", vkAllocateCommandBuffers(t->device, &alloc, &f->cmd));
		TRY(t, "vkCreateSemaphore", vkCreateSemaphore(t->device, &semaphore, NULL, &f->acquired));
		TRY(t, "vkCreateFence", vkCreateFence(t->device, &fence, NULL, &f->done));
	}
	return true;
}

static void images_destroy(struct target *t)
{
	for (uint32_t i = 0; i < t->image_count; i++) {
		vkDestroySemaphore(t->device, t->rendered[i], NULL);
		t->rendered[i] = VK_NULL_HANDLE;
	}
	t->image_count = 0;
}

/* Creates the target's swapchain, or replaces it: the new one is created with oldSwapchain set, and
 * the old one destroyed only afterwards, as a resizing game does. */
static bool swapchain_create(struct target *t)
{
	const VkSemaphoreCreateInfo semaphore = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	VkSwapchainKHR old = t->swapchain;
	VkSurfaceCapabilitiesKHR caps;
	VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
	uint32_t image_count;
	VkResult r;

	TRY(t, "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
	    vkGetPhysicalDeviceSurfaceCapabilitiesKHR(t->physical, t->surface, &caps));
	if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT)) {
		fprintf(stderr,
		        "multi_swapchain: device%d: swapchain images cannot be cleared (no TRANSFER_DST)\n",
		        t->index);
		return false;
	}
	/* 0xFFFFFFFF: the surface takes its size from the swapchain. */
	t->extent = caps.currentExtent.width == UINT32_MAX ? window_size[t->index] : caps.currentExtent;
	/* One more than the minimum, so acquiring never waits for the presentation engine to let go. */
	image_count = caps.minImageCount + 1;
	if (caps.maxImageCount && image_count > caps.maxImageCount)
		image_count = caps.maxImageCount;
	/* The lowest supported mode; the spec guarantees at least one bit is set. */
	while (!(caps.supportedCompositeAlpha & alpha))
		alpha <<= 1;

	const VkSwapchainCreateInfoKHR info = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
	        .surface = t->surface,
	        .minImageCount = image_count,
	        .imageFormat = t->format.format,
	        .imageColorSpace = t->format.colorSpace,
	        .imageExtent = t->extent,
	        .imageArrayLayers = 1,
	        .imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT,
	        .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
	        .preTransform = caps.currentTransform,
	        .compositeAlpha = alpha,
	        /* The one mode every implementation has. */
	        .presentMode = VK_PRESENT_MODE_FIFO_KHR,
	        .clipped = VK_TRUE,
	        .oldSwapchain = old,
	};
	r = vkCreateSwapchainKHR(t->device, &info, NULL, &t->swapchain);
	if (old) {
		/* Without VK_KHR_swapchain_maintenance1 nothing says when the presentation engine is done
		 * with the old images and with the semaphores their presents waited on; an idle device is
		 * the portable guarantee. The old swapchain is retired even if creation failed. */
		VkResult idle = vkDeviceWaitIdle(t->device);

		images_destroy(t);
		vkDestroySwapchainKHR(t->device, old, NULL);
		if (idle != VK_SUCCESS)
			return failed(t, "vkDeviceWaitIdle", idle);
		t->recreates++;
	}
	if (r != VK_SUCCESS) {
		t->swapchain = VK_NULL_HANDLE;
		return failed(t, "vkCreateSwapchainKHR", r);
	}

	image_count = MAX_IMAGES;
	r = vkGetSwapchainImagesKHR(t->device, t->swapchain, &image_count, t->images);
	if (r == VK_INCOMPLETE) {
		fprintf(stderr, "multi_swapchain: device%d: more than %d swapchain images\n", t->index,
		        MAX_IMAGES);
		return false;
	}
	TRY(t, "vkGetSwapchainImagesKHR", r);
	for (; t->image_count < image_count; t->image_count++)
		TRY(t, "vkCreateSemaphore",
		    vkCreateSemaphore(t->device, &semaphore, NULL, &t->rendered[t->image_count]));
	return true;
}

static void record_clear(const struct target *t, VkCommandBuffer cmd, VkImage image, unsigned frame)
{
	const VkImageSubresourceRange range = {
	        .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
	        .levelCount = 1,
	        .layerCount = 1,
	};
	/* The previous contents are discarded (UNDEFINED); the barrier waits for the acquire semaphore's
	 * wait, which the submit places at the transfer stage. */
	VkImageMemoryBarrier barrier = {
	        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
	        .srcAccessMask = 0,
	        .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
	        .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	        .newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
	        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
	        .image = image,
	        .subresourceRange = range,
	};
	/* A ramp per channel with different periods (in frames), so every frame differs. */
	const float red = (float)(frame % 61) / 60.0f, green = (float)(frame % 97) / 96.0f;
	const VkClearColorValue colour = {.float32 = {red, green, t->index ? 1.0f : 0.25f, 1.0f}};

	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL,
	                     0, NULL, 1, &barrier);
	vkCmdClearColorImage(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &colour, 1, &range);
	/* The present waits on the render-finished semaphore, which makes the write visible to it; the
	 * barrier only has to make the layout transition happen before that semaphore is signalled. */
	barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	barrier.dstAccessMask = 0;
	barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
	barrier.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0,
	                     NULL, 0, NULL, 1, &barrier);
}

/* One acquire-clear-present round. A round whose acquire finds the swapchain out of date presents
 * nothing; it recreates the swapchain and the caller comes round again. */
static bool frame_run(struct target *t)
{
	struct frame *f = &t->frames[t->frame_index++ % FRAMES_IN_FLIGHT];
	const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	const VkCommandBufferBeginInfo begin = {
	        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	uint32_t image;
	bool stale;
	VkResult r;

	TRY(t, "vkWaitForFences", vkWaitForFences(t->device, 1, &f->done, VK_TRUE, WAIT_TIMEOUT_NS));
	r = vkAcquireNextImageKHR(t->device, t->swapchain, WAIT_TIMEOUT_NS, f->acquired, VK_NULL_HANDLE,
	                          &image);
	if (r == VK_ERROR_OUT_OF_DATE_KHR)
		return swapchain_create(t);
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
		return failed(t, "vkAcquireNextImageKHR", r);
	/* A suboptimal image was still acquired (and its semaphore will signal): present it first. */
	stale = r == VK_SUBOPTIMAL_KHR;

	/* Reset only now: had the acquire failed, the next wait on this never-submitted fence would hang. */
	TRY(t, "vkResetFences", vkResetFences(t->device, 1, &f->done));
	TRY(t, "vkResetCommandBuffer", vkResetCommandBuffer(f->cmd, 0));
	TRY(t, "vkBeginCommandBuffer", vkBeginCommandBuffer(f->cmd, &begin));
	record_clear(t, f->cmd, t->images[image], t->frames_done);
	TRY(t, "vkEndCommandBuffer", vkEndCommandBuffer(f->cmd));

	const VkSubmitInfo submit = {
	        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	        .waitSemaphoreCount = 1,
	        .pWaitSemaphores = &f->acquired,
	        .pWaitDstStageMask = &wait_stage,
	        .commandBufferCount = 1,
	        .pCommandBuffers = &f->cmd,
	        .signalSemaphoreCount = 1,
	        .pSignalSemaphores = &t->rendered[image],
	};
	TRY(t, "vkQueueSubmit", vkQueueSubmit(t->queue, 1, &submit, f->done));

	const VkPresentInfoKHR present = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
	        .waitSemaphoreCount = 1,
	        .pWaitSemaphores = &t->rendered[image],
	        .swapchainCount = 1,
	        .pSwapchains = &t->swapchain,
	        .pImageIndices = &image,
	};
	r = vkQueuePresentKHR(t->queue, &present);
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR && r != VK_ERROR_OUT_OF_DATE_KHR)
		return failed(t, "vkQueuePresentKHR", r);
	/* Counted as lowlat counts presents: SUBOPTIMAL was shown, OUT_OF_DATE was not. */
	if (r != VK_ERROR_OUT_OF_DATE_KHR)
		t->frames_done++;
	bool planned = t->recreate_at && t->frames_done == t->recreate_at;
	if (planned)
		t->recreate_at = 0;
	if (stale || r != VK_SUCCESS || planned)
		return swapchain_create(t);
	return true;
}

/* A device's whole frame loop, on a thread of its own: neither this device nor its swapchain was
 * created on this thread, which is what a layer keyed on thread-local state would get wrong. */
static void *frame_loop(void *arg)
{
	struct target *t = arg;
	VkResult r;

	while (t->frames_done < t->frames_wanted) {
		if (!frame_run(t)) {
			t->failed = true;
			break;
		}
	}
	r = vkDeviceWaitIdle(t->device);
	if (r != VK_SUCCESS) {
		failed(t, "vkDeviceWaitIdle", r);
		t->failed = true;
	}
	return NULL;
}

/* Destroys whatever exists; every handle starts out VK_NULL_HANDLE, so this serves a half-built
 * target as well as a finished one. */
static void target_destroy(struct target *t, struct xdisplay *x)
{
	if (t->device) {
		/* After a failure work may still be queued; the result no longer matters. */
		vkDeviceWaitIdle(t->device);
		images_destroy(t);
		vkDestroySwapchainKHR(t->device, t->swapchain, NULL);
		for (int i = 0; i < FRAMES_IN_FLIGHT; i++) {
			vkDestroyFence(t->device, t->frames[i].done, NULL);
			vkDestroySemaphore(t->device, t->frames[i].acquired, NULL);
		}
		/* Frees the command buffers with it. */
		vkDestroyCommandPool(t->device, t->pool, NULL);
		vkDestroyDevice(t->device, NULL);
	}
	if (instance)
		vkDestroySurfaceKHR(instance, t->surface, NULL);
	if (x)
		xdisplay_destroy_window(x, t->window);
}

static bool parse_frames(int argc, char **argv, unsigned *frames)
{
	char *end;
	unsigned long n;

	*frames = DEFAULT_FRAMES;
	if (argc < 2)
		return true;
	n = strtoul(argv[1], &end, 10);
	/* At least 2, so that the recreate falls strictly inside the run. */
	if (argc > 2 || *end || n < 2 || n > 1000000) {
		fprintf(stderr,
		        "usage: multi_swapchain [FRAMES]   (FRAMES per swapchain, 2..1000000, default %d)\n",
		        DEFAULT_FRAMES);
		return false;
	}
	*frames = (unsigned)n;
	return true;
}

int main(int argc, char **argv)
{
	struct target targets[DEVICE_COUNT] = {0};
	pthread_t threads[DEVICE_COUNT];
	int started = 0;
	struct xdisplay *x = NULL;
	unsigned frames;
	bool ok = false;

	if (!parse_frames(argc, argv, &frames))
		return 2;
	for (int i = 0; i < DEVICE_COUNT; i++) {
		targets[i].index = i;
		targets[i].frames_wanted = frames;
	}
	/* Only device0 recreates, mid-run, so one device's swapchain changes under the other's feet. */
	targets[0].recreate_at = frames / 2;

	/* Everything is created here, on the main thread; the frame loops run elsewhere. */
	x = xdisplay_open();
	if (!x || !instance_create())
		goto out;
	for (int i = 0; i < DEVICE_COUNT; i++)
		if (!surface_create(&targets[i], x))
			goto out;
	if (!physical_device_pick(targets))
		goto out;
	for (int i = 0; i < DEVICE_COUNT; i++)
		if (!surface_format_pick(&targets[i]) || !device_create(&targets[i]) ||
		    !swapchain_create(&targets[i]))
			goto out;

	for (; started < DEVICE_COUNT; started++) {
		int err = pthread_create(&threads[started], NULL, frame_loop, &targets[started]);

		if (err) {
			fprintf(stderr, "multi_swapchain: pthread_create: %s\n", strerror(err));
			break;
		}
	}
	ok = started == DEVICE_COUNT;
	for (int i = 0; i < started; i++) {
		pthread_join(threads[i], NULL);
		ok = ok && !targets[i].failed;
	}
	if (ok) {
		unsigned recreates = 0;

		for (int i = 0; i < DEVICE_COUNT; i++)
			recreates += targets[i].recreates;
		printf("multi_swapchain: device0 %u frames, device1 %u frames, %u recreate%s\n",
		       targets[0].frames_done, targets[1].frames_done, recreates, recreates == 1 ? "" : "s");
	}

out:
	for (int i = DEVICE_COUNT - 1; i >= 0; i--)
		target_destroy(&targets[i], x);
	if (instance)
		vkDestroyInstance(instance, NULL);
	xdisplay_close(x);
	if (!ok)
		fprintf(stderr, "multi_swapchain: FAILED\n");
	return ok ? 0 : 1;
}
