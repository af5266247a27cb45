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

#include "common.h"

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

static bool target_surface_create(struct target *t, struct xdisplay *x)
{
	t->window = xdisplay_create_window(x, (uint16_t)window_size[t->index].width,
	                                   (uint16_t)window_size[t->index].height);
	if (!t->window)
		return false;
	TRY(t, "vkCreateXcbSurfaceKHR", surface_create(instance, x, t->window, NULL, &t->surface));
	return true;
}

/* The first physical device with a queue family that can clear images and present to the first
 * target's surface, which must present to every other's too. Both devices are created on it: that
 * is the case under test. */
static bool targets_physical_device_pick(struct target *targets)
{
	VkPhysicalDevice physical;
	uint32_t family;
	VkResult r = physical_device_pick(instance, targets[0].surface, &physical, &family);

	if (r != VK_SUCCESS && r != VK_ERROR_INITIALIZATION_FAILED)
		return failed(NULL, "physical_device_pick", r);
	for (int i = 1; r == VK_SUCCESS && i < DEVICE_COUNT; i++) {
		VkBool32 supported = VK_FALSE;

		TRY(NULL, "vkGetPhysicalDeviceSurfaceSupportKHR",
		    vkGetPhysicalDeviceSurfaceSupportKHR(physical, family, targets[i].surface, &supported));
		if (!supported)
			r = VK_ERROR_INITIALIZATION_FAILED;
	}
	if (r != VK_SUCCESS) {
		fprintf(stderr, "multi_swapchain: no physical device can clear images and present to both "
		                "windows\n");
		return false;
	}
	for (int i = 0; i < DEVICE_COUNT; i++) {
		targets[i].physical = physical;
		targets[i].family = family;
	}
	return true;
}

static bool target_device_create(struct target *t)
{
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

	TRY(t, "vkCreateDevice", device_create(t->physical, t->family, NULL, &t->device));
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
static bool target_swapchain_create(struct target *t)
{
	const VkSemaphoreCreateInfo semaphore = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	VkSwapchainKHR old = t->swapchain;
	/* FIFO: the one mode every implementation has. */
	const struct swapchain_params params = {
	        .physical = t->physical,
	        .surface = t->surface,
	        .window_size = window_size[t->index],
	        .mode = VK_PRESENT_MODE_FIFO_KHR,
	        .old = old,
	};
	uint32_t image_count;
	VkResult r;

	r = swapchain_create(t->device, &params, NULL, &t->swapchain, &t->extent);
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
		return target_swapchain_create(t);
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
		return failed(t, "vkAcquireNextImageKHR", r);
	/* A suboptimal image was still acquired (and its semaphore will signal): present it first. */
	stale = r == VK_SUBOPTIMAL_KHR;

	/* Reset only now: had the acquire failed, the next wait on this never-submitted fence would hang. */
	TRY(t, "vkResetFences", vkResetFences(t->device, 1, &f->done));
	TRY(t, "vkResetCommandBuffer", vkResetCommandBuffer(f->cmd, 0));
	TRY(t, "vkBeginCommandBuffer", vkBeginCommandBuffer(f->cmd, &begin));
	record_clear(f->cmd, t->images[image], t->frames_done, t->index ? 1.0f : 0.25f);
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
		return target_swapchain_create(t);
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
	VkResult r;

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
	if (!x)
		goto out;
	r = instance_create("multi_swapchain", NULL, &instance);
	if (r != VK_SUCCESS) {
		failed(NULL, "vkCreateInstance", r);
		goto out;
	}
	for (int i = 0; i < DEVICE_COUNT; i++)
		if (!target_surface_create(&targets[i], x))
			goto out;
	if (!targets_physical_device_pick(targets))
		goto out;
	for (int i = 0; i < DEVICE_COUNT; i++)
		if (!target_device_create(&targets[i]) || !target_swapchain_create(&targets[i]))
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
