/* robust.c — a Vulkan client that survives every error a layer or driver may hand it, for the
 * fault-injection, failing-allocator and memory tests of lowlat.
 *
 *   robust faults FRAMES [ROUNDS]
 *                          present until FRAMES presents succeeded, rebuilding whatever an error
 *                          takes away (swapchain on OUT_OF_DATE/SUBOPTIMAL, surface on SURFACE_LOST,
 *                          device on DEVICE_LOST, a failed create is retried). Every result other than
 *                          VK_SUCCESS is printed as `robust: vkFunction -> VK_RESULT`, so a test can
 *                          compare what reached the app with what tests/faults injected.
 *                          With ROUNDS, stops (successfully) after that many rounds at the latest.
 *   robust alloc [N]       instance, surface, device and swapchain with counting allocators, a few
 *                          presents, teardown; the Nth allocation through them fails. Without N, a
 *                          run without failure finds lowlat's allocations, then each of them and a
 *                          sample of the others (all with ROBUST_ALLOC_EVERY=1) is failed in a run of
 *                          its own. A failure must reach the app as VK_ERROR_OUT_OF_HOST_MEMORY, and
 *                          after every run each allocator must have freed all it allocated, through
 *                          itself (lowlat's blocks are told apart by the caller's library).
 *   robust memory PRESENTS the allocators' live allocations and the process heap after a warm-up and
 *                          after PRESENTS more presents: lowlat's blocks (through the app's
 *                          allocators, and from malloc where the build can count them) must end
 *                          where they began, and the heap and RSS may grow by MEMORY_HEAP_GROWTH_MAX
 *                          and MEMORY_RSS_GROWTH_MAX_KIB at most.
 *
 * Exit status 0 on success; 1 with a `robust: ...` message on stderr on failure; 2 on bad usage.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define MAX_IMAGES 8
/* Lavapipe under Xvfb completes a frame in well under a millisecond; a wait this long is a hang. */
#define WAIT_TIMEOUT_NS 5000000000ull /* 5 s */
#define WINDOW_WIDTH    64            /* pixels: small, since only the number of presents matters */
#define WINDOW_HEIGHT   48

/* ---- counting, failing allocators ---------------------------------------------------------------- */

/* One per kind of object, so a pointer freed through the wrong allocator is caught. Each block carries
 * a header naming its allocator and whether lowlat asked for it. */
struct header {
	uint64_t magic;
	struct counter *owner;
	size_t size;
	size_t offset; /* from the start of the system block to the user pointer */
	bool lowlat;
	char library[40];           /* basename of the caller's library, for leak reports */
	struct header *prev, *next; /* in the owner's list of live blocks */
};

struct counter {
	const char *name;
	pthread_mutex_t lock; /* the driver may allocate from its own threads */
	long live, allocations, frees;
	size_t live_bytes;
	long lowlat_live, lowlat_allocations; /* the blocks lowlat allocated */
	struct header blocks;                 /* list head of the live blocks */
};

#define HEADER_MAGIC 0x6c6f776c6174ull /* "lowlat" */
#define HEADER_SPACE 128               /* bytes; >= sizeof(struct header) and a power of two */

/* Blocks that others (the loader, the driver) never freed: kept reachable, so LeakSanitizer does not
 * pin them on this app, and counted for the summary. */
static struct header *foreign_leaks;
static long foreign_leak_count;
static char foreign_leak_libraries[128];

/* Allocation attempts through every allocator, counted from 1; attempt number fail_at fails. */
static atomic_long attempts;
static long fail_at;
static atomic_long failures;
/* What the failed attempt was: lowlat's or not, and its scope. */
static bool failed_lowlat;
static VkSystemAllocationScope failed_scope;

/* While recording, the attempt numbers of lowlat's allocations are kept, so that each can be failed. */
static bool recording;
/* Set while the app records commands: those allocations are neither counted nor failed. Mesa 22.3's
 * lavapipe (Debian 12) dereferences NULL when one fails, and recording is no business of lowlat's. */
static atomic_bool recording_commands;
static pthread_mutex_t recorded_lock = PTHREAD_MUTEX_INITIALIZER;
static long recorded[64];
static unsigned recorded_count;

static struct counter counters[3] = {
        {.name = "instance", .lock = PTHREAD_MUTEX_INITIALIZER},
        {.name = "device", .lock = PTHREAD_MUTEX_INITIALIZER},
        {.name = "swapchain", .lock = PTHREAD_MUTEX_INITIALIZER},
};
static VkAllocationCallbacks allocators[3];
static bool bad_free;

static struct header *header_of(void *memory)
{
	return (struct header *)((char *)memory - sizeof(struct header));
}

/* Whether CALLER (a return address) is in lowlat's library: lowlat calls the app's allocator
 * directly from lowlat_alloc, so the allocation callback returns into it. */
static const char *library_of(const void *caller)
{
	Dl_info info;
	const char *slash;

	if (!dladdr(caller, &info) || !info.dli_fname)
		return "?";
	slash = strrchr(info.dli_fname, '/');
	return slash ? slash + 1 : info.dli_fname;
}

static void *allocate(struct counter *c, size_t size, size_t alignment, VkSystemAllocationScope scope,
                      const char *library)
{
	bool lowlat = !strcmp(library, "libVkLayer_lowlat.so");
	size_t offset = alignment > HEADER_SPACE ? alignment : HEADER_SPACE;
	long attempt = recording_commands ? 0 : atomic_fetch_add(&attempts, 1) + 1;
	void *raw;

	if (attempt && attempt == fail_at) {
		failed_lowlat = lowlat;
		failed_scope = scope;
		atomic_fetch_add(&failures, 1);
		return NULL;
	}
	if (lowlat && recording) {
		pthread_mutex_lock(&recorded_lock);
		if (recorded_count < sizeof(recorded) / sizeof(recorded[0]))
			recorded[recorded_count++] = attempt;
		pthread_mutex_unlock(&recorded_lock);
	}
	if (posix_memalign(&raw, offset, offset + size))
		return NULL;
	char *memory = (char *)raw + offset;
	struct header *h = header_of(memory);
	*h = (struct header){
	        .magic = HEADER_MAGIC, .owner = c, .size = size, .offset = offset, .lowlat = lowlat};
	snprintf(h->library, sizeof(h->library), "%s", library);
	pthread_mutex_lock(&c->lock);
	h->next = c->blocks.next;
	h->prev = &c->blocks;
	h->next->prev = h;
	c->blocks.next = h;
	c->live++;
	c->allocations++;
	c->live_bytes += size;
	c->lowlat_live += lowlat;
	c->lowlat_allocations += lowlat;
	pthread_mutex_unlock(&c->lock);
	return memory;
}

static void *VKAPI_CALL counted_alloc(void *user, size_t size, size_t alignment,
                                      VkSystemAllocationScope scope)
{
	return allocate(user, size, alignment, scope, library_of(__builtin_return_address(0)));
}

static void VKAPI_CALL counted_free(void *user, void *memory)
{
	struct counter *c = user;
	struct header *h;

	if (!memory)
		return;
	h = header_of(memory);
	if (h->magic != HEADER_MAGIC || h->owner != c) {
		fprintf(stderr,
		        "robust: a block freed through the %s allocator was not allocated by it (%s)\n",
		        c->name, h->magic == HEADER_MAGIC ? h->owner->name : "not ours at all");
		bad_free = true;
		return;
	}
	/* A block set aside as leaked (counters_balanced) freed after all: it stays on that list. */
	if (!h->prev)
		return;
	h->magic = 0;
	pthread_mutex_lock(&c->lock);
	h->prev->next = h->next;
	h->next->prev = h->prev;
	c->live--;
	c->frees++;
	c->live_bytes -= h->size;
	c->lowlat_live -= h->lowlat;
	pthread_mutex_unlock(&c->lock);
	free((char *)memory - h->offset);
}

static void *VKAPI_CALL counted_realloc(void *user, void *old, size_t size, size_t alignment,
                                        VkSystemAllocationScope scope)
{
	const char *library = library_of(__builtin_return_address(0));
	void *memory;

	if (!old)
		return allocate(user, size, alignment, scope, library);
	if (!size) {
		counted_free(user, old);
		return NULL;
	}
	memory = allocate(user, size, alignment, scope, library);
	if (!memory)
		return NULL;
	size_t keep = header_of(old)->size < size ? header_of(old)->size : size;
	memcpy(memory, old, keep);
	counted_free(user, old);
	return memory;
}

static void allocators_init(void)
{
	for (int i = 0; i < 3; i++) {
		counters[i].blocks.next = counters[i].blocks.prev = &counters[i].blocks;
		allocators[i] = (VkAllocationCallbacks){
		        .pUserData = &counters[i],
		        .pfnAllocation = counted_alloc,
		        .pfnReallocation = counted_realloc,
		        .pfnFree = counted_free,
		};
	}
}

/* ---- the app ---------------------------------------------------------------------------------- */

struct app {
	const VkAllocationCallbacks *instance_allocator, *device_allocator, *swapchain_allocator;
	struct xdisplay *x;
	xcb_window_t window;
	VkInstance instance;
	VkSurfaceKHR surface;
	VkPhysicalDevice physical;
	uint32_t family;
	VkDevice device;
	VkQueue queue;
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkSemaphore acquired;
	VkFence done;
	VkSwapchainKHR swapchain;
	VkPresentModeKHR mode;
	uint32_t image_count;
	VkImage images[MAX_IMAGES];
	VkSemaphore rendered[MAX_IMAGES];
	unsigned presents;
	unsigned instances, devices, swapchains; /* created, for the summary */
};

/* Prints a result other than VK_SUCCESS in the form the tests grep for, and passes it on. */
static VkResult report(const char *function, VkResult r)
{
	if (r != VK_SUCCESS)
		fprintf(stderr, "robust: %s -> %s\n", function, result_name(r));
	return r;
}

static void swapchain_down(struct app *a)
{
	if (!a->swapchain)
		return;
	/* Without VK_KHR_swapchain_maintenance1, an idle device is the portable proof that the
	 * presentation engine is done with the images and with the semaphores their presents waited on.
	 * Its result does not matter: the device may be lost, and destroying is allowed then. */
	vkDeviceWaitIdle(a->device);
	for (uint32_t i = 0; i < a->image_count; i++)
		vkDestroySemaphore(a->device, a->rendered[i], a->device_allocator);
	a->image_count = 0;
	vkDestroySwapchainKHR(a->device, a->swapchain, a->swapchain_allocator);
	a->swapchain = VK_NULL_HANDLE;
}

static void device_down(struct app *a)
{
	if (!a->device)
		return;
	swapchain_down(a);
	vkDeviceWaitIdle(a->device);
	vkDestroyFence(a->device, a->done, a->device_allocator);
	vkDestroySemaphore(a->device, a->acquired, a->device_allocator);
	vkDestroyCommandPool(a->device, a->pool, a->device_allocator);
	vkDestroyDevice(a->device, a->device_allocator);
	a->done = VK_NULL_HANDLE;
	a->acquired = VK_NULL_HANDLE;
	a->pool = VK_NULL_HANDLE;
	a->cmd = VK_NULL_HANDLE;
	a->device = VK_NULL_HANDLE;
}

static void surface_down(struct app *a)
{
	if (!a->surface)
		return;
	device_down(a); /* the device was picked for this surface */
	vkDestroySurfaceKHR(a->instance, a->surface, a->instance_allocator);
	a->surface = VK_NULL_HANDLE;
}

static void instance_down(struct app *a)
{
	if (!a->instance)
		return;
	surface_down(a);
	vkDestroyInstance(a->instance, a->instance_allocator);
	a->instance = VK_NULL_HANDLE;
}

/* The device's queue, command buffer and frame synchronisation. */
static VkResult device_setup(struct app *a)
{
	const VkCommandPoolCreateInfo pool = {
	        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	        .queueFamilyIndex = a->family,
	};
	const VkSemaphoreCreateInfo semaphore = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	/* Signalled, so the first frame's wait returns at once. */
	const VkFenceCreateInfo fence = {
	        .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
	        .flags = VK_FENCE_CREATE_SIGNALED_BIT,
	};
	VkCommandBufferAllocateInfo cmd = {
	        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	        .commandBufferCount = 1,
	};
	VkResult r;

	vkGetDeviceQueue(a->device, a->family, 0, &a->queue);
	r = vkCreateCommandPool(a->device, &pool, a->device_allocator, &a->pool);
	if (report("vkCreateCommandPool", r))
		return r;
	cmd.commandPool = a->pool;
	if ((r = report("vkAllocateCommandBuffers", vkAllocateCommandBuffers(a->device, &cmd, &a->cmd))))
		return r;
	r = vkCreateSemaphore(a->device, &semaphore, a->device_allocator, &a->acquired);
	if (report("vkCreateSemaphore", r))
		return r;
	return report("vkCreateFence", vkCreateFence(a->device, &fence, a->device_allocator, &a->done));
}

static VkResult device_up(struct app *a)
{
	VkResult r;

	r = report("vkCreateDevice", device_create(a->physical, a->family, a->device_allocator, &a->device));
	if (r == VK_SUCCESS) {
		a->devices++;
		if ((r = device_setup(a)) != VK_SUCCESS)
			device_down(a); /* a half-built device is rebuilt whole */
		return r;
	}
	/* The faults layer and the spec's creates leave no handle; a leftover would be destroyed twice. */
	if (a->device) {
		fprintf(stderr, "robust: vkCreateDevice failed but left a handle behind\n");
		exit(1);
	}
	return r;
}

static VkResult swapchain_up(struct app *a)
{
	const VkSemaphoreCreateInfo semaphore = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	const struct swapchain_params params = {
	        .physical = a->physical,
	        .surface = a->surface,
	        .window_size = {WINDOW_WIDTH, WINDOW_HEIGHT},
	        .mode = a->mode,
	};
	VkExtent2D extent;
	VkResult r;

	r = report("vkCreateSwapchainKHR",
	           swapchain_create(a->device, &params, a->swapchain_allocator, &a->swapchain, &extent));
	if (r != VK_SUCCESS) {
		if (a->swapchain) {
			fprintf(stderr, "robust: vkCreateSwapchainKHR failed but left a handle behind\n");
			exit(1);
		}
		return r;
	}
	a->swapchains++;
	uint32_t count = MAX_IMAGES;
	r = vkGetSwapchainImagesKHR(a->device, a->swapchain, &count, a->images);
	if (r == VK_INCOMPLETE) {
		fprintf(stderr, "robust: more than %d swapchain images\n", MAX_IMAGES);
		exit(1);
	}
	while (r == VK_SUCCESS && a->image_count < count) {
		r = vkCreateSemaphore(a->device, &semaphore, a->device_allocator,
		                      &a->rendered[a->image_count]);
		if (r == VK_SUCCESS)
			a->image_count++;
	}
	if (r != VK_SUCCESS) {
		report("vkGetSwapchainImagesKHR or vkCreateSemaphore", r);
		swapchain_down(a); /* a half-built swapchain is rebuilt whole */
	}
	return r;
}

/* Builds whatever is missing, from the instance down to the swapchain. */
static VkResult app_up(struct app *a)
{
	VkResult r;

	if (!a->instance) {
		r = report("vkCreateInstance",
		           instance_create("robust", a->instance_allocator, &a->instance));
		if (r != VK_SUCCESS) {
			if (a->instance) {
				fprintf(stderr, "robust: vkCreateInstance failed but left a handle behind\n");
				exit(1);
			}
			return r;
		}
		a->instances++;
	}
	if (!a->surface) {
		r = surface_create(a->instance, a->x, a->window, a->instance_allocator, &a->surface);
		if (report("vkCreateXcbSurfaceKHR", r))
			return r;
		r = physical_device_pick(a->instance, a->surface, &a->physical, &a->family);
		if (report("physical_device_pick", r)) {
			surface_down(a);
			return r;
		}
	}
	if (!a->device && (r = device_up(a)) != VK_SUCCESS)
		return r;
	if (!a->swapchain && (r = swapchain_up(a)) != VK_SUCCESS)
		return r;
	return VK_SUCCESS;
}

/* One acquire-clear-present round. Returns the first result that is not VK_SUCCESS (after the
 * present, SUBOPTIMAL too), which the caller answers by rebuilding. */
static VkResult frame(struct app *a)
{
	const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	const VkCommandBufferBeginInfo begin = {
	        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	uint32_t image;
	VkResult r, acquire;

	if ((r = report("vkWaitForFences",
	                vkWaitForFences(a->device, 1, &a->done, VK_TRUE, WAIT_TIMEOUT_NS))))
		return r;
	acquire = vkAcquireNextImageKHR(a->device, a->swapchain, WAIT_TIMEOUT_NS, a->acquired, VK_NULL_HANDLE,
	                                &image);
	report("vkAcquireNextImageKHR", acquire);
	/* A suboptimal image was still acquired and its semaphore will be signalled: present it. */
	if (acquire != VK_SUCCESS && acquire != VK_SUBOPTIMAL_KHR)
		return acquire;
	/* Reset only now: had the acquire failed, the next wait on this never-submitted fence would hang. */
	if ((r = report("vkResetFences", vkResetFences(a->device, 1, &a->done))))
		return r;
	atomic_store(&recording_commands, true);
	r = report("vkBeginCommandBuffer", vkBeginCommandBuffer(a->cmd, &begin));
	if (r == VK_SUCCESS) {
		record_clear(a->cmd, a->images[image], a->presents, 0.5f);
		r = report("vkEndCommandBuffer", vkEndCommandBuffer(a->cmd));
	}
	atomic_store(&recording_commands, false);
	if (r != VK_SUCCESS)
		return r;
	const VkSubmitInfo submit = {
	        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	        .waitSemaphoreCount = 1,
	        .pWaitSemaphores = &a->acquired,
	        .pWaitDstStageMask = &wait_stage,
	        .commandBufferCount = 1,
	        .pCommandBuffers = &a->cmd,
	        .signalSemaphoreCount = 1,
	        .pSignalSemaphores = &a->rendered[image],
	};
	if ((r = report("vkQueueSubmit", vkQueueSubmit(a->queue, 1, &submit, a->done))))
		return r;
	const VkPresentInfoKHR present = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
	        .waitSemaphoreCount = 1,
	        .pWaitSemaphores = &a->rendered[image],
	        .swapchainCount = 1,
	        .pSwapchains = &a->swapchain,
	        .pImageIndices = &image,
	};
	r = report("vkQueuePresentKHR", vkQueuePresentKHR(a->queue, &present));
	/* Counted as lowlat counts presents: SUBOPTIMAL was shown, errors were not. */
	if (r >= 0)
		a->presents++;
	return r != VK_SUCCESS ? r : acquire;
}

/* Takes down what R says is gone; the next app_up() rebuilds it. False for a result no app can
 * recover from, or one that should never have come. */
static bool recover(struct app *a, VkResult r)
{
	switch ((int)r) {
	case VK_SUCCESS: return true;
	case VK_SUBOPTIMAL_KHR:
	case VK_ERROR_OUT_OF_DATE_KHR: swapchain_down(a); return true;
	case VK_ERROR_SURFACE_LOST_KHR: surface_down(a); return true;
	case VK_ERROR_DEVICE_LOST: device_down(a); return true;
	/* A create failed and left nothing (the *_up functions take down what they half built): it is
	 * retried. */
	case VK_ERROR_OUT_OF_HOST_MEMORY:
	case VK_ERROR_OUT_OF_DEVICE_MEMORY:
	case VK_ERROR_INITIALIZATION_FAILED: return true;
	default: return false;
	}
}

/* Stops after FRAMES successful presents or ROUNDS rounds (0: a bound that only a loop reaches,
 * which fails the run). */
static int run_faults(struct app *a, unsigned frames, unsigned rounds)
{
	unsigned round = 0;
	/* Every injected fault costs at most a few rounds; a run this much longer is a loop. */
	unsigned max_rounds = rounds ? rounds : 4 * frames + 100;
	VkResult r;

	while (a->presents < frames && round < max_rounds) {
		round++;
		r = app_up(a);
		if (r == VK_SUCCESS)
			r = frame(a);
		if (!recover(a, r)) {
			fprintf(stderr, "robust: cannot recover from %s\n", result_name(r));
			return 1;
		}
	}
	printf("robust: %u presents in %u rounds, %u instances, %u devices, %u swapchains created\n",
	       a->presents, round, a->instances, a->devices, a->swapchains);
	if (!rounds && a->presents < frames) {
		fprintf(stderr, "robust: still not %u presents after %u rounds\n", frames, round);
		return 1;
	}
	return 0;
}

/* After everything was destroyed: lowlat's blocks must all be freed. Blocks of others still live are
 * leaks of the loader or the driver, which lowlat cannot fix; they are set aside and reported in the
 * summary (a run without lowlat shows the same). */
static bool counters_balanced(long fail)
{
	bool ok = !bad_free;

	for (int i = 0; i < 3; i++) {
		struct counter *c = &counters[i];

		pthread_mutex_lock(&c->lock);
		if (c->lowlat_live) {
			fprintf(stderr,
			        "robust: alloc %ld: lowlat did not free %ld of its blocks from the %s "
			        "allocator\n",
			        fail, c->lowlat_live, c->name);
			ok = false;
		}
		while (c->blocks.next != &c->blocks) {
			struct header *h = c->blocks.next;

			c->blocks.next = h->next;
			h->next->prev = &c->blocks;
			c->live--;
			c->live_bytes -= h->size;
			h->next = foreign_leaks;
			h->prev = NULL; /* set aside: see counted_free */
			foreign_leaks = h;
			foreign_leak_count++;
			if (!strstr(foreign_leak_libraries, h->library) &&
			    strlen(foreign_leak_libraries) + strlen(h->library) + 2 <
			            sizeof(foreign_leak_libraries)) {
				if (*foreign_leak_libraries)
					strcat(foreign_leak_libraries, " ");
				strcat(foreign_leak_libraries, h->library);
			}
			fprintf(stderr,
			        "robust: alloc %ld: %s leaked a block of %zu bytes from the %s allocator\n",
			        fail, h->library, h->size, c->name);
		}
		pthread_mutex_unlock(&c->lock);
	}
	return ok;
}

/* A short life: everything up, a few presents, everything down, with allocation N failing (none when
 * N is 0). A failure must reach the app as VK_ERROR_OUT_OF_HOST_MEMORY: from lowlat's own instance and
 * device records certainly; a swapchain record lowlat cannot allocate only costs that swapchain its
 * pacing (present.c passes it through), so that run must present as usual. Afterwards every allocator
 * must have freed all it allocated. */
#define ALLOC_RUN_PRESENTS 3

static int alloc_run(struct app *a, long n)
{
	VkResult r = VK_SUCCESS;
	bool out_of_memory = false;
	int rounds = 0;

	fail_at = n;
	atomic_store(&attempts, 0);
	atomic_store(&failures, 0);
	for (int i = 0; i < 3; i++)
		counters[i].allocations = counters[i].frees = counters[i].lowlat_allocations = 0;
	a->presents = 0;
	while (a->presents < ALLOC_RUN_PRESENTS && rounds++ < 4 * ALLOC_RUN_PRESENTS) {
		r = app_up(a);
		if (r == VK_SUCCESS)
			r = frame(a);
		if (r == VK_ERROR_OUT_OF_HOST_MEMORY) {
			out_of_memory = true;
			break; /* the point of the run; tearing down checks the rest */
		}
		/* lavapipe answers a surface-support query it cannot allocate for with "unsupported",
		 * which leaves the app without a device (the same without lowlat). */
		bool driver_said_no = r == VK_ERROR_INITIALIZATION_FAILED && atomic_load(&failures) &&
		                      !failed_lowlat && !a->physical;
		if (driver_said_no)
			break;
		if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR && r != VK_ERROR_OUT_OF_DATE_KHR) {
			fprintf(stderr, "robust: alloc %ld: %s where only OUT_OF_HOST_MEMORY may come\n", n,
			        result_name(r));
			return 1;
		}
		recover(a, r);
	}
	instance_down(a);
	a->physical = VK_NULL_HANDLE;
	if (out_of_memory && !atomic_load(&failures)) {
		fprintf(stderr, "robust: alloc %ld: OUT_OF_HOST_MEMORY with no allocation failed\n", n);
		return 1;
	}
	if (atomic_load(&failures) && failed_lowlat) {
		bool record = failed_scope == VK_SYSTEM_ALLOCATION_SCOPE_OBJECT;

		if (record ? a->presents < ALLOC_RUN_PRESENTS : !out_of_memory) {
			fprintf(stderr,
			        "robust: alloc %ld: lowlat's allocation (scope %d) failed and the app %s\n",
			        n, failed_scope,
			        record ? "could not present" : "did not get OUT_OF_HOST_MEMORY");
			return 1;
		}
	}
	return counters_balanced(n) ? 0 : 1;
}

/* Runs the whole life once without failure, recording which allocations are lowlat's, then fails
 * each of those in turn, and every STRIDEth of all the others (the loader's and the driver's, which
 * lowlat must pass on as they come): ALLOC_SAMPLES runs of them. With EVERY, all the others too
 * (several thousand runs, ~20 s on lavapipe): the plain build does that; the sanitizer builds
 * sample. 50 samples: 150 took over 240 s under ASan with validation on a busy 2-core machine. */
#define ALLOC_SAMPLES 50

static int run_alloc(struct app *a, long only, bool every)
{
	long total, stride, runs = 0, lowlat_runs = 0;
	long lowlat_per_allocator[3];

	a->instance_allocator = &allocators[0];
	a->device_allocator = &allocators[1];
	a->swapchain_allocator = &allocators[2];
	if (only)
		return alloc_run(a, only);
	recording = true;
	if (alloc_run(a, 0))
		return 1;
	recording = false;
	if (a->presents < ALLOC_RUN_PRESENTS) {
		fprintf(stderr, "robust: the run with no failed allocation presented %u times\n",
		        a->presents);
		return 1;
	}
	total = atomic_load(&attempts);
	for (int i = 0; i < 3; i++)
		lowlat_per_allocator[i] = counters[i].lowlat_allocations;
	if (!recorded_count) {
		fprintf(stderr,
		        "robust: lowlat allocated nothing through the app's allocators: was it loaded?\n");
		return 1;
	}
	stride = every ? 1 : total / ALLOC_SAMPLES + 1;
	for (long n = 1; n <= total; n++) {
		bool lowlats = false;

		for (unsigned i = 0; i < recorded_count; i++)
			lowlats |= recorded[i] == n;
		if (!lowlats && n % stride)
			continue;
		if (alloc_run(a, n))
			return 1;
		runs++;
		lowlat_runs += lowlats;
	}
	printf("robust: alloc: %ld allocations per run, %u of them lowlat's (instance %ld, device %ld, "
	       "swapchain %ld); %ld runs failed one each (all %ld of lowlat's, and of the rest 1 in %ld); "
	       "lowlat freed all it allocated, each through its own allocator; others leaked %ld blocks "
	       "(%s)\n",
	       total, recorded_count, lowlat_per_allocator[0], lowlat_per_allocator[1],
	       lowlat_per_allocator[2], runs, lowlat_runs, stride, foreign_leak_count,
	       *foreign_leak_libraries ? foreign_leak_libraries : "none");
	return 0;
}

/* ---- lowlat's own malloc blocks ---------------------------------------------------------------- */

/* lowlat allocates what is not a Vulkan object's (its maps, pNext copies, the log's buffers) with
 * malloc. This program's malloc family stands in for glibc's (which it calls through __libc_*; glibc
 * supports that), and keeps the blocks whose caller is in lowlat's library, from when
 * heap_count_start finds it loaded, in a set. Not in sanitizer builds, whose runtime owns malloc
 * (LeakSanitizer checks the heap at exit there). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define COUNT_LOWLAT_HEAP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define COUNT_LOWLAT_HEAP 0
#endif
#endif
#ifndef COUNT_LOWLAT_HEAP
#define COUNT_LOWLAT_HEAP 1
#endif

#if COUNT_LOWLAT_HEAP
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *old, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *memory);

/* Open addressing with linear probing; at most half full (beyond, heap_overflow says the count is
 * not to be trusted). Guarded by a spin lock: malloc may be called anywhere, and the lock never
 * allocates. */
#define HEAP_SLOTS_LOG2 16
#define HEAP_SLOTS      (1u << HEAP_SLOTS_LOG2)
static uintptr_t heap_blocks[HEAP_SLOTS];
static long heap_count, heap_added;
static bool heap_overflow;
static atomic_flag heap_lock = ATOMIC_FLAG_INIT;
static atomic_bool heap_counting;
static uintptr_t lowlat_text_lo, lowlat_text_hi;

static void heap_lock_take(void)
{
	while (atomic_flag_test_and_set_explicit(&heap_lock, memory_order_acquire))
		;
}

static void heap_lock_give(void)
{
	atomic_flag_clear_explicit(&heap_lock, memory_order_release);
}

static size_t heap_slot(uintptr_t p)
{
	return (size_t)(((uint64_t)p >> 4) * 0x9e3779b97f4a7c15ull >> (64 - HEAP_SLOTS_LOG2));
}

static bool from_lowlat(const void *caller)
{
	uintptr_t a = (uintptr_t)caller;
	return atomic_load_explicit(&heap_counting, memory_order_acquire) && a >= lowlat_text_lo &&
	       a < lowlat_text_hi;
}

static void heap_add(void *memory)
{
	heap_lock_take();
	if (heap_count >= (long)HEAP_SLOTS / 2) {
		heap_overflow = true;
	} else {
		size_t i = heap_slot((uintptr_t)memory);
		while (heap_blocks[i])
			i = (i + 1) & (HEAP_SLOTS - 1);
		heap_blocks[i] = (uintptr_t)memory;
		heap_count++;
		heap_added++;
	}
	heap_lock_give();
}

/* Removes memory if it is in the set (backward-shift deletion keeps probing exact); true if it was. */
static bool heap_remove(void *memory)
{
	bool found = false;

	if (!atomic_load_explicit(&heap_counting, memory_order_acquire))
		return false;
	heap_lock_take();
	size_t i = heap_slot((uintptr_t)memory);
	while (heap_blocks[i] && heap_blocks[i] != (uintptr_t)memory)
		i = (i + 1) & (HEAP_SLOTS - 1);
	if (heap_blocks[i]) {
		found = true;
		heap_count--;
		for (size_t j = i;;) {
			j = (j + 1) & (HEAP_SLOTS - 1);
			if (!heap_blocks[j])
				break;
			size_t k = heap_slot(heap_blocks[j]);
			/* Move j's entry into the hole at i unless its home k lies cyclically in (i, j]. */
			if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
				heap_blocks[i] = heap_blocks[j];
				i = j;
			}
		}
		heap_blocks[i] = 0;
	}
	heap_lock_give();
	return found;
}

void *malloc(size_t size)
{
	void *p = __libc_malloc(size);
	if (p && from_lowlat(__builtin_return_address(0)))
		heap_add(p);
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p = __libc_calloc(n, size);
	if (p && from_lowlat(__builtin_return_address(0)))
		heap_add(p);
	return p;
}

/* A block lowlat reallocates stays counted if it was; a new one (old NULL) counts if lowlat asked. */
void *realloc(void *old, size_t size)
{
	bool counted = old ? heap_remove(old) : from_lowlat(__builtin_return_address(0));
	void *p = __libc_realloc(old, size);
	if (p && counted)
		heap_add(p);
	else if (!p && counted && old && size)
		heap_add(old); /* the old block is still there */
	return p;
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
	if (alignment < sizeof(void *) || (alignment & (alignment - 1)))
		return EINVAL;
	void *p = __libc_memalign(alignment, size);
	if (!p)
		return ENOMEM;
	if (from_lowlat(__builtin_return_address(0)))
		heap_add(p);
	*out = p;
	return 0;
}

void *aligned_alloc(size_t alignment, size_t size)
{
	void *p = __libc_memalign(alignment, size);
	if (p && from_lowlat(__builtin_return_address(0)))
		heap_add(p);
	return p;
}

void free(void *memory)
{
	if (memory)
		heap_remove(memory);
	__libc_free(memory);
}

static int find_lowlat_text(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "libVkLayer_lowlat.so"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			lowlat_text_lo = info->dlpi_addr + ph->p_vaddr;
			lowlat_text_hi = lowlat_text_lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* Starts counting lowlat's malloc blocks, lowlat being loaded (an instance exists). */
static bool heap_count_start(void)
{
	if (!dl_iterate_phdr(find_lowlat_text, NULL))
		return false;
	atomic_store_explicit(&heap_counting, true, memory_order_release);
	return true;
}

/* lowlat's malloc blocks now, or -1 where not counted; *added: how many it allocated so far. */
static long lowlat_heap_blocks(long *added)
{
	long n;

	heap_lock_take();
	n = heap_overflow ? -1 : heap_count;
	*added = heap_added;
	heap_lock_give();
	return n;
}
#else
static bool heap_count_start(void)
{
	return false;
}

static long lowlat_heap_blocks(long *added)
{
	*added = 0;
	return -1;
}
#endif

static long heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();
	return (long)(m.uordblks + m.hblkhd);
}

static long rss_kib(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

#define MEMORY_WARMUP_PRESENTS 1000
/* Bounds on the whole process's growth over the measured presents (lavapipe, the loader and Xlib
 * included), plain builds only: a sanitizer's allocator keeps freed memory in quarantine. Measured
 * over 100,000 presents: heap +336 bytes, RSS +0 to +64 KiB. A leak of one block per present, the
 * smallest malloc chunk being 32 bytes (16 on 32-bit), is 3.2 MB (1.6 MB) over the same run: the
 * heap bound catches one in 50 presents, the RSS bound one a present, above page-granular noise. */
#define MEMORY_HEAP_GROWTH_MAX    (64l * 1024)
#define MEMORY_RSS_GROWTH_MAX_KIB 1024l

/* Presents COUNT times, rebuilding on the way as the app would. */
static bool present_times(struct app *a, unsigned count)
{
	VkResult r;

	a->presents = 0;
	while (a->presents < count) {
		r = app_up(a);
		if (r == VK_SUCCESS)
			r = frame(a);
		if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR && r != VK_ERROR_OUT_OF_DATE_KHR) {
			fprintf(stderr, "robust: memory: %s\n", result_name(r));
			return false;
		}
		recover(a, r);
	}
	return true;
}

static int run_memory(struct app *a, unsigned presents)
{
	long live_before[3], lowlat_before[3], heap_before, rss_before, heap_after, rss_after;
	long malloc_before, malloc_after, added_before, added_after;
	bool sanitized = !COUNT_LOWLAT_HEAP;
	int rc = 0;

	a->instance_allocator = &allocators[0];
	a->device_allocator = &allocators[1];
	a->swapchain_allocator = &allocators[2];
	/* The fastest mode the surface has: only the number of presents matters here. */
	a->mode = VK_PRESENT_MODE_IMMEDIATE_KHR;
	if (app_up(a) != VK_SUCCESS)
		return 1;
	if (COUNT_LOWLAT_HEAP && !heap_count_start()) {
		fprintf(stderr, "robust: memory: lowlat's library is not loaded: is the layer on?\n");
		return 1;
	}
	if (!present_times(a, MEMORY_WARMUP_PRESENTS))
		return 1;
	vkDeviceWaitIdle(a->device);
	for (int i = 0; i < 3; i++) {
		live_before[i] = counters[i].live;
		lowlat_before[i] = counters[i].lowlat_live;
	}
	malloc_before = lowlat_heap_blocks(&added_before);
	heap_before = heap_in_use();
	rss_before = rss_kib();
	if (!present_times(a, presents))
		return 1;
	vkDeviceWaitIdle(a->device);
	malloc_after = lowlat_heap_blocks(&added_after);
	heap_after = heap_in_use();
	rss_after = rss_kib();
	char bounds[96] = "none on heap and RSS under a sanitizer (its allocator keeps freed memory)";
	if (!sanitized)
		snprintf(bounds, sizeof(bounds), "heap %+ld bytes, RSS %+ld KiB", MEMORY_HEAP_GROWTH_MAX,
		         MEMORY_RSS_GROWTH_MAX_KIB);
	printf("robust: memory: %u presents after %d warm-up: live allocations instance %ld -> %ld, "
	       "device %ld -> %ld, swapchain %ld -> %ld; heap in use %ld -> %ld bytes (%+ld); RSS %ld -> "
	       "%ld KiB (%+ld); %u swapchains; bounds: %s\n",
	       presents, MEMORY_WARMUP_PRESENTS, live_before[0], counters[0].live, live_before[1],
	       counters[1].live, live_before[2], counters[2].live, heap_before, heap_after,
	       heap_after - heap_before, rss_before, rss_after, rss_after - rss_before, a->swapchains,
	       bounds);
	if (malloc_before >= 0 && malloc_after >= 0) {
		printf("robust: memory: lowlat's malloc blocks: %ld -> %ld (%ld allocated over the run)\n",
		       malloc_before, malloc_after, added_after - added_before);
		if (malloc_after != malloc_before) {
			fprintf(stderr, "robust: memory: lowlat holds %+ld malloc blocks after the run\n",
			        malloc_after - malloc_before);
			rc = 1;
		}
	} else {
		printf("robust: memory: lowlat's malloc blocks not counted (%s)\n",
		       sanitized ? "a sanitizer's runtime owns malloc" : "more than the set holds");
		rc = sanitized ? rc : 1;
	}
	if (!sanitized && heap_after - heap_before > MEMORY_HEAP_GROWTH_MAX) {
		fprintf(stderr, "robust: memory: the heap grew by %ld bytes, more than %ld\n",
		        heap_after - heap_before, MEMORY_HEAP_GROWTH_MAX);
		rc = 1;
	}
	if (!sanitized && rss_after - rss_before > MEMORY_RSS_GROWTH_MAX_KIB) {
		fprintf(stderr, "robust: memory: RSS grew by %ld KiB, more than %ld\n",
		        rss_after - rss_before, MEMORY_RSS_GROWTH_MAX_KIB);
		rc = 1;
	}
	if (rc)
		return rc;
	/* Only lowlat's blocks must stay put: lavapipe may hold a transient block or two at either end. */
	for (int i = 0; i < 3; i++) {
		printf("robust: memory: lowlat's live blocks in the %s allocator: %ld -> %ld\n",
		       counters[i].name, lowlat_before[i], counters[i].lowlat_live);
		if (counters[i].lowlat_live != lowlat_before[i]) {
			fprintf(stderr,
			        "robust: memory: lowlat's live blocks in the %s allocator moved over the "
			        "run\n",
			        counters[i].name);
			return 1;
		}
	}
	instance_down(a);
	return counters_balanced(0) ? 0 : 1;
}

static bool parse_count(const char *text, long min, long max, long *out)
{
	char *end;
	long n = strtol(text, &end, 10);

	if (*end || n < min || n > max)
		return false;
	*out = n;
	return true;
}

int main(int argc, char **argv)
{
	struct app a = {.mode = VK_PRESENT_MODE_FIFO_KHR};
	long n = 0, rounds = 0;
	int rc = 2;

	if (argc < 2 || argc > 4 || (argc >= 3 && !parse_count(argv[2], 1, 100000000, &n)) ||
	    (argc == 4 && (strcmp(argv[1], "faults") || !parse_count(argv[3], 0, 100000000, &rounds)))) {
		fprintf(stderr,
		        "usage: robust faults FRAMES [ROUNDS] | robust alloc [N] | robust memory PRESENTS\n");
		return 2;
	}
	allocators_init();
	a.x = xdisplay_open();
	if (!a.x || !(a.window = xdisplay_create_window(a.x, WINDOW_WIDTH, WINDOW_HEIGHT)))
		return 1;
	if (!strcmp(argv[1], "faults") && n)
		rc = run_faults(&a, (unsigned)n, (unsigned)rounds);
	else if (!strcmp(argv[1], "alloc"))
		rc = run_alloc(&a, n, getenv("ROBUST_ALLOC_EVERY") != NULL);
	else if (!strcmp(argv[1], "memory") && n)
		rc = run_memory(&a, (unsigned)n);
	else
		fprintf(stderr,
		        "usage: robust faults FRAMES [ROUNDS] | robust alloc [N] | robust memory PRESENTS\n");
	instance_down(&a);
	xdisplay_destroy_window(a.x, a.window);
	xdisplay_close(a.x);
	if (rc == 1)
		fprintf(stderr, "robust: FAILED\n");
	return rc;
}
