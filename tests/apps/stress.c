/* stress.c — many threads presenting while swapchains and devices come and go under them.
 *
 * Two devices on one physical device, two windows and swapchains per device, two threads per
 * swapchain: 8 threads presenting to 4 swapchains. Each thread destroys and recreates its swapchain
 * at random (with or without oldSwapchain); the main thread, meanwhile, stops one device's threads,
 * destroys that device while the other device's threads go on presenting, then recreates it and
 * starts its threads again, alternating between the devices until the time is up. Rendering is a
 * clear with the transitions and semaphores the spec requires, so the run must be silent under the
 * Khronos validation layer, and under TSan/ASan with lowlat above it.
 *
 * The app synchronises what Vulkan says it must: lavapipe has one queue per device, so a device's
 * threads take its queue lock around submits, presents and waits for idle; the two threads of a
 * swapchain take its lock around a whole frame (acquire, record, present) and around recreating it.
 * lowlat sees calls on one device from four threads and on both devices at once, and devices
 * destroyed while the other's calls are in flight.
 *
 *   stress [SECONDS]    runs for SECONDS (default 10, at most 600), then prints
 *   stress: 8 threads, 10 s: device0 N frames, device1 N frames, N swapchain recreates, N device recreates
 *
 * Exit status 0 on success; 1 with a `stress: ...` message on stderr on any failure; 2 on bad usage.
 *
 * Caps change by live reload under the running threads: tests/e2e/stress.sh rewrites the game's
 * config file meanwhile and checks that the cap held.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#define DEVICE_COUNT       2
#define CHAINS_PER_DEVICE  2
#define THREADS_PER_CHAIN  2
#define THREADS_PER_DEVICE (CHAINS_PER_DEVICE * THREADS_PER_CHAIN)
#define MAX_IMAGES         8
#define DEFAULT_SECONDS    10
/* Lavapipe under Xvfb completes a frame in well under a millisecond; a wait this long is a hang. */
#define WAIT_TIMEOUT_NS 5000000000ull /* 5 s */
/* A thread recreates its swapchain after one frame in this many, on average. */
#define RECREATE_ONE_IN 40
/* How long a device stays up before it is destroyed, and down before it comes back. */
#define DEVICE_UP_NS   1500000000ll /* 1.5 s */
#define DEVICE_DOWN_NS 200000000ll  /* 200 ms: the other device presents alone meanwhile */

struct device;

struct chain {
	struct device *dev;
	int index;
	xcb_window_t window;
	VkSurfaceKHR surface; /* lives as long as the instance */
	VkExtent2D window_size;
	/* Vulkan requires the swapchain (acquire, present, destroy) to be externally synchronised:
	 * held by one of the chain's threads for a whole frame or a recreate. */
	pthread_mutex_t lock;
	VkSwapchainKHR swapchain;
	uint32_t image_count;
	VkImage images[MAX_IMAGES];
	/* One per image: a present's wait on it is known to be over when the image is acquired again. */
	VkSemaphore rendered[MAX_IMAGES];
	unsigned recreates;
};

struct worker {
	struct chain *chain;
	pthread_t thread;
	unsigned seed;
	VkCommandPool pool; /* command pools are externally synchronised: one per thread */
	VkCommandBuffer cmd;
	VkSemaphore acquired;
	VkFence done;
	unsigned frames;
	bool failed;
};

struct device {
	int index;
	VkDevice device;
	VkQueue queue;
	/* The device's only queue: submits, presents and vkDeviceWaitIdle (which needs every queue of
	 * the device externally synchronised). Taken after a chain lock, never before. */
	pthread_mutex_t queue_lock;
	struct chain chains[CHAINS_PER_DEVICE];
	struct worker workers[THREADS_PER_DEVICE];
	atomic_bool stop;
	unsigned frames; /* of workers that have finished */
	unsigned recreates;
};

static VkInstance instance;
static VkPhysicalDevice physical;
static uint32_t family;
static atomic_bool failed_any;

static bool failed(const struct device *d, const char *what, VkResult r)
{
	fprintf(stderr, "stress: device%d: %s: %s (%d)\n", d ? d->index : -1, what, result_name(r), r);
	atomic_store(&failed_any, true);
	return false;
}

#define TRY(d, what, call)                                                                                   \
	do {                                                                                                 \
		VkResult try_r_ = (call);                                                                    \
		if (try_r_ != VK_SUCCESS)                                                                    \
			return failed(d, what, try_r_);                                                      \
	} while (0)

static void sleep_ns(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
	nanosleep(&ts, NULL);
}

static void device_wait_idle(struct device *d)
{
	pthread_mutex_lock(&d->queue_lock);
	/* The result does not matter here: destroying is allowed whatever it is. */
	vkDeviceWaitIdle(d->device);
	pthread_mutex_unlock(&d->queue_lock);
}

static void images_destroy(struct chain *c)
{
	for (uint32_t i = 0; i < c->image_count; i++)
		vkDestroySemaphore(c->dev->device, c->rendered[i], NULL);
	c->image_count = 0;
}

/* Replaces the chain's swapchain (or makes the first). With the chain lock held. Half the time the
 * new one is created with oldSwapchain set and the old one destroyed after; otherwise the old one
 * goes first, as a game tearing down its swapchain on a mode change does. */
static bool swapchain_recreate(struct chain *c, bool with_old)
{
	const VkSemaphoreCreateInfo semaphore = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	struct device *d = c->dev;
	struct swapchain_params params = {
	        .physical = physical,
	        .surface = c->surface,
	        .window_size = c->window_size,
	        .mode = VK_PRESENT_MODE_FIFO_KHR,
	};
	VkSwapchainKHR old = c->swapchain;
	VkExtent2D extent;
	VkResult r;

	if (old) {
		c->recreates++;
		if (with_old) {
			params.old = old;
		} else {
			/* Without VK_KHR_swapchain_maintenance1 an idle device is the portable proof that
			 * the presentation engine is done with the images and their semaphores. */
			device_wait_idle(d);
			images_destroy(c);
			vkDestroySwapchainKHR(d->device, old, NULL);
			old = VK_NULL_HANDLE;
		}
	}
	r = swapchain_create(d->device, &params, NULL, &c->swapchain, &extent);
	if (old) {
		device_wait_idle(d);
		images_destroy(c);
		vkDestroySwapchainKHR(d->device, old, NULL);
	}
	if (r != VK_SUCCESS) {
		c->swapchain = VK_NULL_HANDLE;
		return failed(d, "vkCreateSwapchainKHR", r);
	}
	uint32_t count = MAX_IMAGES;
	TRY(d, "vkGetSwapchainImagesKHR",
	    vkGetSwapchainImagesKHR(d->device, c->swapchain, &count, c->images));
	for (; c->image_count < count; c->image_count++)
		TRY(d, "vkCreateSemaphore",
		    vkCreateSemaphore(d->device, &semaphore, NULL, &c->rendered[c->image_count]));
	return true;
}

static bool worker_setup(struct worker *w)
{
	struct device *d = w->chain->dev;
	const VkCommandPoolCreateInfo pool = {
	        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	        .queueFamilyIndex = family,
	};
	const VkSemaphoreCreateInfo semaphore = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	/* Signalled, so the first wait returns at once. */
	const VkFenceCreateInfo fence = {
	        .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
	        .flags = VK_FENCE_CREATE_SIGNALED_BIT,
	};

	TRY(d, "vkCreateCommandPool", vkCreateCommandPool(d->device, &pool, NULL, &w->pool));
	const VkCommandBufferAllocateInfo alloc = {
	        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	        .commandPool = w->pool,
	        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	        .commandBufferCount = 1,
	};
	TRY(d, "vkAllocateCommandBuffers", vkAllocateCommandBuffers(d->device, &alloc, &w->cmd));
	TRY(d, "vkCreateSemaphore", vkCreateSemaphore(d->device, &semaphore, NULL, &w->acquired));
	TRY(d, "vkCreateFence", vkCreateFence(d->device, &fence, NULL, &w->done));
	return true;
}

static void worker_teardown(struct worker *w)
{
	VkDevice device = w->chain->dev->device;

	/* The last submit may still run; the result no longer matters. */
	vkWaitForFences(device, 1, &w->done, VK_TRUE, WAIT_TIMEOUT_NS);
	vkDestroyFence(device, w->done, NULL);
	vkDestroySemaphore(device, w->acquired, NULL);
	vkDestroyCommandPool(device, w->pool, NULL); /* frees the command buffer with it */
	w->done = VK_NULL_HANDLE;
	w->acquired = VK_NULL_HANDLE;
	w->pool = VK_NULL_HANDLE;
}

/* One acquire-clear-present round on the worker's swapchain, with the chain lock held. */
static bool frame(struct worker *w)
{
	struct chain *c = w->chain;
	struct device *d = c->dev;
	const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	const VkCommandBufferBeginInfo begin = {
	        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	uint32_t image;
	VkResult r;

	if (!c->swapchain && !swapchain_recreate(c, false))
		return false;
	TRY(d, "vkWaitForFences", vkWaitForFences(d->device, 1, &w->done, VK_TRUE, WAIT_TIMEOUT_NS));
	r = vkAcquireNextImageKHR(d->device, c->swapchain, WAIT_TIMEOUT_NS, w->acquired, VK_NULL_HANDLE,
	                          &image);
	if (r == VK_ERROR_OUT_OF_DATE_KHR)
		return swapchain_recreate(c, true);
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
		return failed(d, "vkAcquireNextImageKHR", r);
	bool stale = r == VK_SUBOPTIMAL_KHR;

	TRY(d, "vkResetFences", vkResetFences(d->device, 1, &w->done));
	TRY(d, "vkResetCommandBuffer", vkResetCommandBuffer(w->cmd, 0));
	TRY(d, "vkBeginCommandBuffer", vkBeginCommandBuffer(w->cmd, &begin));
	record_clear(w->cmd, c->images[image], w->frames, (float)c->index / 4.0f);
	TRY(d, "vkEndCommandBuffer", vkEndCommandBuffer(w->cmd));

	const VkSubmitInfo submit = {
	        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	        .waitSemaphoreCount = 1,
	        .pWaitSemaphores = &w->acquired,
	        .pWaitDstStageMask = &wait_stage,
	        .commandBufferCount = 1,
	        .pCommandBuffers = &w->cmd,
	        .signalSemaphoreCount = 1,
	        .pSignalSemaphores = &c->rendered[image],
	};
	const VkPresentInfoKHR present = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
	        .waitSemaphoreCount = 1,
	        .pWaitSemaphores = &c->rendered[image],
	        .swapchainCount = 1,
	        .pSwapchains = &c->swapchain,
	        .pImageIndices = &image,
	};
	pthread_mutex_lock(&d->queue_lock);
	r = vkQueueSubmit(d->queue, 1, &submit, w->done);
	VkResult p = r == VK_SUCCESS ? vkQueuePresentKHR(d->queue, &present) : VK_SUCCESS;
	pthread_mutex_unlock(&d->queue_lock);
	if (r != VK_SUCCESS)
		return failed(d, "vkQueueSubmit", r);
	if (p != VK_SUCCESS && p != VK_SUBOPTIMAL_KHR && p != VK_ERROR_OUT_OF_DATE_KHR)
		return failed(d, "vkQueuePresentKHR", p);
	if (p >= 0)
		w->frames++;
	if (stale || p != VK_SUCCESS || rand_r(&w->seed) % RECREATE_ONE_IN == 0)
		return swapchain_recreate(c, rand_r(&w->seed) % 2);
	return true;
}

static void *worker_loop(void *arg)
{
	struct worker *w = arg;
	struct device *d = w->chain->dev;

	if (!worker_setup(w)) {
		w->failed = true;
		return NULL;
	}
	while (!atomic_load(&d->stop) && !atomic_load(&failed_any)) {
		pthread_mutex_lock(&w->chain->lock);
		bool ok = frame(w);
		pthread_mutex_unlock(&w->chain->lock);
		if (!ok) {
			w->failed = true;
			break;
		}
	}
	worker_teardown(w);
	return NULL;
}

static bool device_up(struct device *d, unsigned seed_base)
{
	int started = 0;

	TRY(d, "vkCreateDevice", device_create(physical, family, NULL, &d->device));
	vkGetDeviceQueue(d->device, family, 0, &d->queue);
	atomic_store(&d->stop, false);
	for (; started < THREADS_PER_DEVICE; started++) {
		struct worker *w = &d->workers[started];

		*w = (struct worker){
		        .chain = &d->chains[started / THREADS_PER_CHAIN],
		        .seed = seed_base + (unsigned)started,
		};
		int err = pthread_create(&w->thread, NULL, worker_loop, w);
		if (err) {
			fprintf(stderr, "stress: pthread_create: %s\n", strerror(err));
			atomic_store(&failed_any, true);
			break;
		}
	}
	return started == THREADS_PER_DEVICE;
}

/* Stops the device's threads, then destroys its swapchains and the device, while the other device's
 * threads go on. Safe on a device that is already down. */
static bool device_down(struct device *d)
{
	bool ok = true;

	if (!d->device)
		return true;
	atomic_store(&d->stop, true);
	for (int i = 0; i < THREADS_PER_DEVICE; i++) {
		struct worker *w = &d->workers[i];

		if (!w->chain)
			continue;
		pthread_join(w->thread, NULL);
		ok = ok && !w->failed;
		d->frames += w->frames;
		w->chain = NULL;
	}
	vkDeviceWaitIdle(d->device);
	for (int i = 0; i < CHAINS_PER_DEVICE; i++) {
		struct chain *c = &d->chains[i];

		images_destroy(c);
		vkDestroySwapchainKHR(d->device, c->swapchain, NULL);
		c->swapchain = VK_NULL_HANDLE;
	}
	vkDestroyDevice(d->device, NULL);
	d->device = VK_NULL_HANDLE;
	return ok;
}

static bool parse_seconds(int argc, char **argv, unsigned *seconds)
{
	char *end;
	unsigned long n;

	*seconds = DEFAULT_SECONDS;
	if (argc < 2)
		return true;
	n = strtoul(argv[1], &end, 10);
	/* At least 2 s, so that a device goes down (after DEVICE_UP_NS) and comes back at least once. */
	if (argc > 2 || *end || n < 2 || n > 600) {
		fprintf(stderr, "usage: stress [SECONDS]   (2..600, default %d)\n", DEFAULT_SECONDS);
		return false;
	}
	*seconds = (unsigned)n;
	return true;
}

int main(int argc, char **argv)
{
	static struct device devices[DEVICE_COUNT];
	struct xdisplay *x = NULL;
	unsigned seconds, cycles = 0, recreates = 0;
	bool ok = false;
	VkResult r;

	if (!parse_seconds(argc, argv, &seconds))
		return 2;
	x = xdisplay_open();
	if (!x)
		return 1;
	r = instance_create("stress", NULL, &instance);
	if (r != VK_SUCCESS) {
		failed(NULL, "vkCreateInstance", r);
		goto out;
	}
	for (int i = 0; i < DEVICE_COUNT; i++) {
		struct device *d = &devices[i];

		d->index = i;
		pthread_mutex_init(&d->queue_lock, NULL);
		for (int j = 0; j < CHAINS_PER_DEVICE; j++) {
			struct chain *c = &d->chains[j];

			c->dev = d;
			c->index = i * CHAINS_PER_DEVICE + j;
			/* Distinct sizes, so lowlat's summary lines tell the swapchains apart. */
			c->window_size =
			        (VkExtent2D){64 + 16 * (uint32_t)c->index, 48 + 16 * (uint32_t)c->index};
			pthread_mutex_init(&c->lock, NULL);
			c->window = xdisplay_create_window(x, (uint16_t)c->window_size.width,
			                                   (uint16_t)c->window_size.height);
			if (!c->window)
				goto out;
			r = surface_create(instance, x, c->window, NULL, &c->surface);
			if (r != VK_SUCCESS) {
				failed(d, "vkCreateXcbSurfaceKHR", r);
				goto out;
			}
		}
	}
	/* One physical device and family for all: lavapipe's only one. Each surface is asked too. */
	r = physical_device_pick(instance, devices[0].chains[0].surface, &physical, &family);
	if (r != VK_SUCCESS) {
		failed(NULL, "picking a physical device", r);
		goto out;
	}
	for (int i = 0; i < DEVICE_COUNT * CHAINS_PER_DEVICE; i++) {
		VkBool32 supported = VK_FALSE;
		struct chain *c = &devices[i / CHAINS_PER_DEVICE].chains[i % CHAINS_PER_DEVICE];

		r = vkGetPhysicalDeviceSurfaceSupportKHR(physical, family, c->surface, &supported);
		if (r != VK_SUCCESS || !supported) {
			fprintf(stderr, "stress: window %d cannot be presented to from queue family %u\n", i,
			        family);
			goto out;
		}
	}

	for (int i = 0; i < DEVICE_COUNT; i++)
		if (!device_up(&devices[i], 1000u * (unsigned)i))
			goto out;
	const int64_t deadline_ns = now_ns() + (int64_t)seconds * 1000000000;
	/* Alternate: one device goes down, stays down a while with the other presenting, comes back. */
	while (!atomic_load(&failed_any) && now_ns() + DEVICE_UP_NS + DEVICE_DOWN_NS < deadline_ns) {
		struct device *d = &devices[cycles % DEVICE_COUNT];

		sleep_ns(DEVICE_UP_NS);
		if (!device_down(d))
			break;
		sleep_ns(DEVICE_DOWN_NS);
		cycles++;
		if (!device_up(d, 1000u * (cycles + 1)))
			break;
	}
	while (!atomic_load(&failed_any) && now_ns() < deadline_ns)
		sleep_ns(10000000); /* 10 ms */
	ok = true;
	for (int i = 0; i < DEVICE_COUNT; i++)
		ok = device_down(&devices[i]) && ok;
	ok = ok && !atomic_load(&failed_any) && cycles >= 1;
	for (int i = 0; i < DEVICE_COUNT; i++)
		for (int j = 0; j < CHAINS_PER_DEVICE; j++)
			recreates += devices[i].chains[j].recreates;
	if (ok)
		printf("stress: %d threads, %u s: device0 %u frames, device1 %u frames, %u swapchain "
		       "recreates, "
		       "%u device recreates\n",
		       DEVICE_COUNT * THREADS_PER_DEVICE, seconds, devices[0].frames, devices[1].frames,
		       recreates, cycles);

out:
	for (int i = 0; i < DEVICE_COUNT; i++) {
		device_down(&devices[i]);
		for (int j = 0; j < CHAINS_PER_DEVICE; j++) {
			if (instance)
				vkDestroySurfaceKHR(instance, devices[i].chains[j].surface, NULL);
			xdisplay_destroy_window(x, devices[i].chains[j].window);
		}
	}
	if (instance)
		vkDestroyInstance(instance, NULL);
	xdisplay_close(x);
	if (!ok)
		fprintf(stderr, "stress: FAILED\n");
	return ok ? 0 : 1;
}
