/* vd_swapchain.c — swapchains of the virtual display: real driver images, acquire, present, and the
 * scan-out thread that drives the presentation engine (scanout.c) on the ideal refresh grid.
 *
 * A present submits, on the app's queue, a wait on the app's semaphores followed by a command buffer
 * that writes a timestamp, and signals a fence of ours. The timestamp, converted to CLOCK_MONOTONIC,
 * is the request's ready time: the moment its GPU work was complete. The scan-out thread learns it
 * when the fence signals (its own wake-up latency does not matter) and replays the display up to the
 * time it last checked, so the history is what an exact display would have done.
 *
 * Image states: FREE -> (acquire) ACQUIRED -> (present) QUEUED -> SHOWN -> FREE when the display lets
 * go of it (a newer image latched, or it was replaced/skipped). Guarded by the swapchain lock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scanout.h"
#include "vd_chain.h"
#include "vd_layer.h"
#include "vd_log.h"
#include "vd_timing.h"

#define VD_MAX_IMAGES 16

enum image_state { IMG_FREE, IMG_ACQUIRED, IMG_QUEUED, IMG_SHOWN };

struct vd_image {
	VkImage image;
	VkDeviceMemory memory;
	VkFence fence;       /* signalled by the present submission, after the timestamp */
	VkCommandBuffer cmd; /* resets and writes query `index`: the ready timestamp */
	enum image_state state;
	uint64_t seq;   /* its request while QUEUED */
	bool submitted; /* the present submission was made and its fence not yet seen signalled */
};

struct vd_swapchain {
	struct vd_device *dev;
	uint32_t id;
	enum vd_mode mode;
	uint32_t image_count;
	struct vd_image images[VD_MAX_IMAGES];
	VkQueryPool queries;
	VkCommandPool pool; /* made at the first present, for that queue's family */
	uint32_t pool_family;
	int64_t device_offset_ns; /* CLOCK_MONOTONIC = ticks * period + offset */
	uint32_t next_acquire;    /* acquire looks for a free image from here, round robin */

	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC; an image was released or shown, a request queued, or quit */
	pthread_t thread;
	bool quit, retired;
	struct vd_engine engine;
	uint64_t shown_present_id;     /* the highest present id whose image reached the screen */
	struct vd_timing_queue timing; /* VK_EXT_present_timing results */
};

static uint32_t next_swapchain_id = 1; /* under the device map lock is not needed: atomic add */

static int64_t display_rate_mhz(void)
{
	const char *text = getenv("LOWLAT_VDISPLAY_HZ");
	int64_t rate;

	if (!text || !*text)
		return 60000;
	rate = vd_parse_rate_mhz(text);
	if (!rate) {
		vd_msg("LOWLAT_VDISPLAY_HZ=%s is not a rate in Hz (1..1000); using 60", text);
		return 60000;
	}
	return rate;
}

/* LOWLAT_VDISPLAY_VRR_MIN_HZ: the display is variable-rate between it and LOWLAT_VDISPLAY_HZ. */
static int64_t display_vrr_min_mhz(int64_t rate_mhz)
{
	const char *text = getenv("LOWLAT_VDISPLAY_VRR_MIN_HZ");
	int64_t min;

	if (!text || !*text)
		return 0;
	min = vd_parse_rate_mhz(text);
	if (!min || min >= rate_mhz) {
		vd_msg("LOWLAT_VDISPLAY_VRR_MIN_HZ=%s is not a rate below LOWLAT_VDISPLAY_HZ; fixed rate",
		       text);
		return 0;
	}
	return min;
}

static enum vd_mode mode_of(VkPresentModeKHR mode)
{
	switch (mode) {
	case VK_PRESENT_MODE_IMMEDIATE_KHR: return VD_MODE_IMMEDIATE;
	case VK_PRESENT_MODE_MAILBOX_KHR: return VD_MODE_MAILBOX;
	case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return VD_MODE_FIFO_RELAXED;
	case VK_PRESENT_MODE_FIFO_LATEST_READY_KHR: return VD_MODE_FIFO_LATEST_READY;
	default: return VD_MODE_FIFO;
	}
}

static struct vd_swapchain *swapchain_of(struct vd_device *dev, VkSwapchainKHR handle)
{
	return handle ? vd_map_find(&dev->swapchains, (uint64_t)handle) : NULL;
}

static void abs_timespec(int64_t t_ns, struct timespec *ts)
{
	ts->tv_sec = t_ns / 1000000000;
	ts->tv_nsec = t_ns % 1000000000;
}

/* ---- the display's events (called by the engine, under the swapchain lock) ---- */

static void on_event(void *user, const struct vd_event *ev)
{
	struct vd_swapchain *sc = user;
	struct vd_image *img = &sc->images[ev->request.image];

	vd_timing_event(&sc->timing, ev);
	switch (ev->kind) {
	case VD_EV_SHOWN:
		img->state = IMG_SHOWN;
		/* Present wait: the id is reached when its image is on screen (first pixel out). */
		if (ev->request.present_id > sc->shown_present_id) {
			sc->shown_present_id = ev->request.present_id;
			pthread_cond_broadcast(&sc->cond);
		}
		vd_log_event(sc->id, sc->engine.rate_mhz, sc->engine.vrr_min_mhz, "shown", ev);
		break;
	case VD_EV_REPLACED:
		vd_log_event(sc->id, sc->engine.rate_mhz, sc->engine.vrr_min_mhz, "replaced", ev);
		break;
	case VD_EV_SKIPPED:
		vd_log_event(sc->id, sc->engine.rate_mhz, sc->engine.vrr_min_mhz, "skipped", ev);
		break;
	case VD_EV_REPEAT:
		vd_log_event(sc->id, sc->engine.rate_mhz, sc->engine.vrr_min_mhz, "repeat", ev);
		break;
	case VD_EV_RELEASED:
		if (img->seq == ev->request.seq && (img->state == IMG_SHOWN || img->state == IMG_QUEUED)) {
			img->state = IMG_FREE;
			pthread_cond_broadcast(&sc->cond);
		}
		break;
	}
}

/* ---- the scan-out thread ---- */

static int64_t ready_time_ns(struct vd_swapchain *sc, uint32_t index)
{
	struct vd_device *dev = sc->dev;
	uint64_t ticks = 0;

	/* The fence signalled after the timestamp was written: the result is there, WAIT is a formality. */
	if (dev->vk.GetQueryPoolResults(dev->handle, sc->queries, index, 1, sizeof(ticks), &ticks,
	                                sizeof(ticks),
	                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
		return vd_now_ns();
	return (int64_t)((double)ticks * dev->timestamp_period) + sc->device_offset_ns;
}

static void *scanout_main(void *arg)
{
	struct vd_swapchain *sc = arg;
	struct vd_device *dev = sc->dev;

	pthread_mutex_lock(&sc->lock);
	while (!sc->quit) {
		uint32_t pending[VD_MAX_IMAGES], n = 0, oldest = UINT32_MAX;
		int64_t ready[VD_MAX_IMAGES];
		bool got[VD_MAX_IMAGES];

		for (uint32_t i = 0; i < sc->image_count; i++)
			if (sc->images[i].state == IMG_QUEUED && sc->images[i].submitted)
				pending[n++] = i;
		/* Taken before looking at the fences: whatever is not signalled below was not ready at
		 * the horizon (its timestamp comes after it). */
		int64_t horizon = vd_now_ns();
		pthread_mutex_unlock(&sc->lock);
		for (uint32_t k = 0; k < n; k++) {
			got[k] = dev->vk.GetFenceStatus(dev->handle, sc->images[pending[k]].fence) ==
			         VK_SUCCESS;
			if (got[k])
				ready[k] = ready_time_ns(sc, pending[k]);
		}
		pthread_mutex_lock(&sc->lock);
		for (uint32_t k = 0; k < n; k++) {
			struct vd_image *img = &sc->images[pending[k]];
			if (got[k]) {
				img->submitted = false;
				vd_engine_set_ready(&sc->engine, img->seq, ready[k]);
			}
		}
		vd_engine_advance(&sc->engine, horizon);
		if (sc->quit)
			break;

		/* Sleep until the next vblank, or until the oldest pending request becomes ready. */
		int64_t next_vblank = vd_engine_next_vblank_ns(&sc->engine);
		uint64_t oldest_seq = UINT64_MAX;
		for (uint32_t i = 0; i < sc->image_count; i++) {
			if (sc->images[i].state == IMG_QUEUED && sc->images[i].submitted &&
			    sc->images[i].seq < oldest_seq) {
				oldest_seq = sc->images[i].seq;
				oldest = i;
			}
		}
		int64_t wait = next_vblank - vd_now_ns();
		if (oldest != UINT32_MAX) {
			VkFence fence = sc->images[oldest].fence;
			pthread_mutex_unlock(&sc->lock);
			if (wait > 0)
				dev->vk.WaitForFences(dev->handle, 1, &fence, VK_TRUE, (uint64_t)wait);
			pthread_mutex_lock(&sc->lock);
		} else if (wait > 0) {
			struct timespec ts;
			abs_timespec(next_vblank, &ts);
			/* Woken early by a present; the loop then looks again. */
			pthread_cond_timedwait(&sc->cond, &sc->lock, &ts);
		}
	}
	pthread_mutex_unlock(&sc->lock);
	return NULL;
}

/* ---- creation and destruction ---- */

static uint32_t memory_type(const struct vd_device *dev, uint32_t bits)
{
	for (uint32_t i = 0; i < dev->memory.memoryTypeCount; i++)
		if ((bits & (1u << i)) &&
		    (dev->memory.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
			return i;
	for (uint32_t i = 0; i < dev->memory.memoryTypeCount; i++)
		if (bits & (1u << i))
			return i;
	return UINT32_MAX;
}

static VkResult create_image(struct vd_swapchain *sc, const VkSwapchainCreateInfoKHR *info,
                             struct vd_image *img)
{
	struct vd_device *dev = sc->dev;
	const VkAllocationCallbacks *alloc = vd_device_allocator(dev);
	VkImageFormatListCreateInfo formats = {.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO};
	VkImageCreateInfo ci = {
	        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
	        .imageType = VK_IMAGE_TYPE_2D,
	        .format = info->imageFormat,
	        .extent = {info->imageExtent.width, info->imageExtent.height, 1},
	        .mipLevels = 1,
	        .arrayLayers = info->imageArrayLayers,
	        .samples = VK_SAMPLE_COUNT_1_BIT,
	        .tiling = VK_IMAGE_TILING_OPTIMAL,
	        .usage = info->imageUsage,
	        .sharingMode = info->imageSharingMode,
	        .queueFamilyIndexCount = info->queueFamilyIndexCount,
	        .pQueueFamilyIndices = info->pQueueFamilyIndices,
	        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	VkMemoryRequirements req;
	VkResult r;

	if (info->flags & VK_SWAPCHAIN_CREATE_MUTABLE_FORMAT_BIT_KHR) {
		ci.flags |= VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
		for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
			if (s->sType == VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO) {
				formats = *(const VkImageFormatListCreateInfo *)s;
				formats.pNext = NULL;
				ci.pNext = &formats;
			}
		}
	}
	r = dev->vk.CreateImage(dev->handle, &ci, alloc, &img->image);
	if (r != VK_SUCCESS)
		return r;
	dev->vk.GetImageMemoryRequirements(dev->handle, img->image, &req);
	VkMemoryAllocateInfo ai = {
	        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	        .allocationSize = req.size,
	        .memoryTypeIndex = memory_type(dev, req.memoryTypeBits),
	};
	if (ai.memoryTypeIndex == UINT32_MAX)
		return VK_ERROR_OUT_OF_DEVICE_MEMORY;
	r = dev->vk.AllocateMemory(dev->handle, &ai, alloc, &img->memory);
	if (r != VK_SUCCESS)
		return r;
	r = dev->vk.BindImageMemory(dev->handle, img->image, img->memory, 0);
	if (r != VK_SUCCESS)
		return r;
	VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	return dev->vk.CreateFence(dev->handle, &fi, alloc, &img->fence);
}

/* CLOCK_MONOTONIC minus device time, from one calibrated sample; 0 (the device counts monotonic
 * nanoseconds, as lavapipe does) when the driver cannot calibrate. */
static int64_t device_offset_ns(struct vd_device *dev)
{
	VkCalibratedTimestampInfoKHR domains[2] = {
	        {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR,
	         .timeDomain = VK_TIME_DOMAIN_DEVICE_KHR},
	        {.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR,
	         .timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR},
	};
	uint64_t t[2], deviation;

	if (!dev->vk.GetCalibratedTimestampsEXT ||
	    dev->vk.GetCalibratedTimestampsEXT(dev->handle, 2, domains, t, &deviation) != VK_SUCCESS)
		return 0;
	return (int64_t)t[1] - (int64_t)((double)t[0] * dev->timestamp_period);
}

static void destroy_swapchain(struct vd_swapchain *sc)
{
	struct vd_device *dev = sc->dev;
	const VkAllocationCallbacks *alloc = vd_device_allocator(dev);

	pthread_mutex_lock(&sc->lock);
	sc->quit = true;
	pthread_cond_broadcast(&sc->cond);
	pthread_mutex_unlock(&sc->lock);
	/* The thread waits at most one refresh in vkWaitForFences before it sees quit. */
	pthread_join(sc->thread, NULL);

	for (uint32_t i = 0; i < sc->engine.count; i++) {
		struct vd_event ev = {.kind = VD_EV_RELEASED, .request = sc->engine.queue[i], .refresh = -1};
		ev.time_ns = vd_now_ns();
		vd_log_event(sc->id, sc->engine.rate_mhz, sc->engine.vrr_min_mhz, "unshown", &ev);
	}
	vd_log_flush();

	for (uint32_t i = 0; i < sc->image_count; i++) {
		struct vd_image *img = &sc->images[i];
		/* A present submission still in flight uses the fence and the query. */
		if (img->submitted)
			dev->vk.WaitForFences(dev->handle, 1, &img->fence, VK_TRUE, UINT64_MAX);
		if (img->fence)
			dev->vk.DestroyFence(dev->handle, img->fence, alloc);
		if (img->image)
			dev->vk.DestroyImage(dev->handle, img->image, alloc);
		if (img->memory)
			dev->vk.FreeMemory(dev->handle, img->memory, alloc);
	}
	if (sc->pool)
		dev->vk.DestroyCommandPool(dev->handle, sc->pool, alloc);
	if (sc->queries)
		dev->vk.DestroyQueryPool(dev->handle, sc->queries, alloc);
	vd_timing_fini(&sc->timing);
	pthread_cond_destroy(&sc->cond);
	pthread_mutex_destroy(&sc->lock);
	vd_free(alloc, sc);
}

VKAPI_ATTR VkResult VKAPI_CALL vd_CreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR *info,
                                                     const VkAllocationCallbacks *allocator,
                                                     VkSwapchainKHR *out)
{
	struct vd_device *dev = vd_device_of(device);
	const VkAllocationCallbacks *alloc = vd_device_allocator(dev);
	struct vd_swapchain *sc, *old;
	pthread_condattr_t attr;
	VkResult r;

	(void)allocator; /* our record lives with the device; the images use the device's allocator */
	sc = vd_alloc(alloc, sizeof(*sc), VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
	if (!sc)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	sc->dev = dev;
	sc->id = __atomic_fetch_add(&next_swapchain_id, 1, __ATOMIC_RELAXED);
	sc->mode = mode_of(info->presentMode);
	sc->image_count = info->minImageCount < 1 ? 1 : info->minImageCount;
	if (sc->image_count > VD_MAX_IMAGES)
		sc->image_count = VD_MAX_IMAGES;
	pthread_mutex_init(&sc->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&sc->cond, &attr);
	pthread_condattr_destroy(&attr);
	vd_engine_init(&sc->engine, display_rate_mhz(), vd_now_ns(), on_event, sc);
	if (display_vrr_min_mhz(sc->engine.rate_mhz))
		vd_engine_set_vrr(&sc->engine, display_vrr_min_mhz(sc->engine.rate_mhz));
	sc->device_offset_ns = device_offset_ns(dev);

	/* The thread is started last; destroy_swapchain joins it, so start a no-op one on failure. */
	sc->quit = true;
	for (uint32_t i = 0; i < sc->image_count; i++) {
		r = create_image(sc, info, &sc->images[i]);
		if (r != VK_SUCCESS)
			goto fail;
	}
	VkQueryPoolCreateInfo qi = {
	        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
	        .queryType = VK_QUERY_TYPE_TIMESTAMP,
	        .queryCount = sc->image_count,
	};
	r = dev->vk.CreateQueryPool(device, &qi, alloc, &sc->queries);
	if (r != VK_SUCCESS)
		goto fail;
	sc->quit = false;
	if (pthread_create(&sc->thread, NULL, scanout_main, sc)) {
		sc->quit = true;
		r = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto fail_nothread;
	}
	if (!vd_map_insert(&dev->swapchains, (uint64_t)(uintptr_t)sc, sc)) {
		r = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto fail_thread;
	}
	/* "oldSwapchain is retired": acquire from it fails from now on; presents of images acquired
	 * before still reach the display. */
	if ((old = swapchain_of(dev, info->oldSwapchain))) {
		pthread_mutex_lock(&old->lock);
		old->retired = true;
		pthread_cond_broadcast(&old->cond);
		pthread_mutex_unlock(&old->lock);
	}
	*out = (VkSwapchainKHR)(uintptr_t)sc;
	return VK_SUCCESS;

fail:
	if (pthread_create(&sc->thread, NULL, scanout_main, sc) == 0)
		goto fail_thread;
fail_nothread:
	/* No thread to join: release by hand. */
	for (uint32_t i = 0; i < sc->image_count; i++) {
		if (sc->images[i].fence)
			dev->vk.DestroyFence(device, sc->images[i].fence, alloc);
		if (sc->images[i].image)
			dev->vk.DestroyImage(device, sc->images[i].image, alloc);
		if (sc->images[i].memory)
			dev->vk.FreeMemory(device, sc->images[i].memory, alloc);
	}
	if (sc->queries)
		dev->vk.DestroyQueryPool(device, sc->queries, alloc);
	pthread_cond_destroy(&sc->cond);
	pthread_mutex_destroy(&sc->lock);
	vd_free(alloc, sc);
	return r;
fail_thread:
	destroy_swapchain(sc);
	return r;
}

VKAPI_ATTR void VKAPI_CALL vd_DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                  const VkAllocationCallbacks *allocator)
{
	struct vd_device *dev = vd_device_of(device);
	struct vd_swapchain *sc;

	(void)allocator;
	if (!swapchain || !(sc = vd_map_remove(&dev->swapchains, (uint64_t)swapchain)))
		return;
	destroy_swapchain(sc);
}

void vd_swapchain_device_teardown(struct vd_device *dev)
{
	for (;;) {
		struct vd_swapchain *sc = NULL;
		pthread_mutex_lock(&dev->swapchains.lock);
		if (dev->swapchains.count)
			sc = dev->swapchains.items[--dev->swapchains.count].value;
		pthread_mutex_unlock(&dev->swapchains.lock);
		if (!sc)
			break;
		vd_msg("the app destroyed its device with swapchain %u alive; destroying it", sc->id);
		destroy_swapchain(sc);
	}
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetSwapchainImagesKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                        uint32_t *count, VkImage *images)
{
	struct vd_swapchain *sc = swapchain_of(vd_device_of(device), swapchain);
	uint32_t n;

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	if (!images) {
		*count = sc->image_count;
		return VK_SUCCESS;
	}
	n = *count < sc->image_count ? *count : sc->image_count;
	for (uint32_t i = 0; i < n; i++)
		images[i] = sc->images[i].image;
	*count = n;
	return n < sc->image_count ? VK_INCOMPLETE : VK_SUCCESS;
}

VkDeviceMemory vd_swapchain_image_memory(struct vd_device *dev, VkSwapchainKHR swapchain, uint32_t index)
{
	struct vd_swapchain *sc = swapchain_of(dev, swapchain);

	return sc && index < sc->image_count ? sc->images[index].memory : VK_NULL_HANDLE;
}

/* ---- acquire ---- */

/* Signals the app's semaphore and fence without queue work: a temporary import of an already
 * signalled SYNC_FD (-1). */
static VkResult signal_acquire(struct vd_device *dev, VkSemaphore semaphore, VkFence fence)
{
	VkResult r;

	if (semaphore) {
		VkImportSemaphoreFdInfoKHR si = {
		        .sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR,
		        .semaphore = semaphore,
		        .flags = VK_SEMAPHORE_IMPORT_TEMPORARY_BIT,
		        .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
		        .fd = -1,
		};
		r = dev->vk.ImportSemaphoreFdKHR(dev->handle, &si);
		if (r != VK_SUCCESS)
			return r;
	}
	if (fence) {
		VkImportFenceFdInfoKHR fi = {
		        .sType = VK_STRUCTURE_TYPE_IMPORT_FENCE_FD_INFO_KHR,
		        .fence = fence,
		        .flags = VK_FENCE_IMPORT_TEMPORARY_BIT,
		        .handleType = VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT,
		        .fd = -1,
		};
		r = dev->vk.ImportFenceFdKHR(dev->handle, &fi);
		if (r != VK_SUCCESS)
			return r;
	}
	return VK_SUCCESS;
}

static VkResult acquire(struct vd_device *dev, VkSwapchainKHR swapchain, uint64_t timeout,
                        VkSemaphore semaphore, VkFence fence, uint32_t *index)
{
	struct vd_swapchain *sc = swapchain_of(dev, swapchain);
	int64_t deadline = 0;
	VkResult r = VK_SUCCESS;
	uint32_t found = UINT32_MAX;

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	/* A timeout past ~292 years is "forever" (UINT64_MAX included). */
	if (timeout < (uint64_t)INT64_MAX / 2)
		deadline = vd_now_ns() + (int64_t)timeout;
	pthread_mutex_lock(&sc->lock);
	for (;;) {
		if (sc->retired) {
			r = VK_ERROR_OUT_OF_DATE_KHR;
			break;
		}
		for (uint32_t k = 0; k < sc->image_count; k++) {
			uint32_t i = (sc->next_acquire + k) % sc->image_count;
			if (sc->images[i].state == IMG_FREE) {
				found = i;
				break;
			}
		}
		if (found != UINT32_MAX) {
			sc->images[found].state = IMG_ACQUIRED;
			sc->next_acquire = (found + 1) % sc->image_count;
			break;
		}
		if (timeout == 0) {
			r = VK_NOT_READY;
			break;
		}
		struct timespec ts;
		/* Forever is waited in one-second steps, which costs nothing and survives clock quirks. */
		int64_t until = deadline ? deadline : vd_now_ns() + 1000000000;
		if (deadline && vd_now_ns() >= deadline) {
			r = VK_TIMEOUT;
			break;
		}
		abs_timespec(until, &ts);
		pthread_cond_timedwait(&sc->cond, &sc->lock, &ts);
	}
	pthread_mutex_unlock(&sc->lock);
	if (r != VK_SUCCESS)
		return r;
	r = signal_acquire(dev, semaphore, fence);
	if (r != VK_SUCCESS) {
		pthread_mutex_lock(&sc->lock);
		sc->images[found].state = IMG_FREE;
		pthread_cond_broadcast(&sc->cond);
		pthread_mutex_unlock(&sc->lock);
		return r == VK_ERROR_OUT_OF_HOST_MEMORY ? r : VK_ERROR_DEVICE_LOST;
	}
	*index = found;
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_AcquireNextImageKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                      uint64_t timeout, VkSemaphore semaphore, VkFence fence,
                                                      uint32_t *index)
{
	return acquire(vd_device_of(device), swapchain, timeout, semaphore, fence, index);
}

VKAPI_ATTR VkResult VKAPI_CALL vd_AcquireNextImage2KHR(VkDevice device, const VkAcquireNextImageInfoKHR *info,
                                                       uint32_t *index)
{
	/* deviceMask: one physical device, nothing to choose. */
	return acquire(vd_device_of(device), info->swapchain, info->timeout, info->semaphore, info->fence,
	               index);
}

/* ---- present ---- */

/* Records the per-image timestamp command buffers for the family of the first queue presenting. */
static VkResult prepare_commands(struct vd_swapchain *sc, uint32_t family)
{
	struct vd_device *dev = sc->dev;
	const VkAllocationCallbacks *alloc = vd_device_allocator(dev);
	VkCommandBuffer cmds[VD_MAX_IMAGES];
	VkResult r;

	if (sc->pool) {
		if (family != sc->pool_family)
			vd_msg("presents from two queue families on one swapchain are not modelled; the "
			       "timestamps of family %u are used for both",
			       sc->pool_family);
		return VK_SUCCESS;
	}
	VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                              .queueFamilyIndex = family};
	r = dev->vk.CreateCommandPool(dev->handle, &pi, alloc, &sc->pool);
	if (r != VK_SUCCESS)
		return r;
	sc->pool_family = family;
	VkCommandBufferAllocateInfo ai = {
	        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	        .commandPool = sc->pool,
	        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	        .commandBufferCount = sc->image_count,
	};
	r = dev->vk.AllocateCommandBuffers(dev->handle, &ai, cmds);
	if (r != VK_SUCCESS)
		return r;
	for (uint32_t i = 0; i < sc->image_count; i++) {
		VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
		sc->images[i].cmd = cmds[i];
		if ((r = dev->vk.BeginCommandBuffer(cmds[i], &bi)) != VK_SUCCESS)
			return r;
		dev->vk.CmdResetQueryPool(cmds[i], sc->queries, i, 1);
		dev->vk.CmdWriteTimestamp(cmds[i], VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, sc->queries, i);
		if ((r = dev->vk.EndCommandBuffer(cmds[i])) != VK_SUCCESS)
			return r;
	}
	return VK_SUCCESS;
}

static uint32_t queue_family(struct vd_device *dev, VkQueue queue)
{
	uintptr_t v = (uintptr_t)vd_map_find(&dev->queues, (uint64_t)(uintptr_t)queue);
	return v ? (uint32_t)(v - 1) : dev->default_family;
}

/* Queues one swapchain's part of a present. `waits` carries the app's semaphores for the first
 * swapchain presented; later ones are submitted behind it on the same queue. */
static VkResult present_one(VkQueue queue, struct vd_swapchain *sc, uint32_t index, int64_t queued_ns,
                            const VkSubmitInfo *waits, const struct vd_request *extra,
                            const VkPresentTimingInfoEXT *timing)
{
	struct vd_device *dev = sc->dev;
	struct vd_image *img;
	VkResult r;

	if (index >= sc->image_count)
		return VK_ERROR_OUT_OF_DATE_KHR;
	img = &sc->images[index];
	r = prepare_commands(sc, queue_family(dev, queue));
	if (r != VK_SUCCESS)
		return r;
	/* The image is ACQUIRED: neither the scan-out thread nor an earlier submission uses its fence. */
	r = dev->vk.ResetFences(dev->handle, 1, &img->fence);
	if (r != VK_SUCCESS)
		return r;

	/* Queued before it is submitted, so the scan-out thread never misses a request that became
	 * ready before the horizon it advances to. */
	struct vd_request req = *extra;
	req.image = index;
	req.queued_ns = queued_ns;
	pthread_mutex_lock(&sc->lock);
	if (img->state != IMG_ACQUIRED || !(img->seq = vd_engine_queue(&sc->engine, &req))) {
		pthread_mutex_unlock(&sc->lock);
		vd_msg("swapchain %u: present of image %u, which the app does not hold", sc->id, index);
		return VK_ERROR_OUT_OF_DATE_KHR;
	}
	img->state = IMG_QUEUED;
	img->submitted = false;
	if (timing && timing->presentStageQueries)
		vd_timing_add(&sc->timing, img->seq, req.present_id, timing->targetTime,
		              timing->presentStageQueries);
	pthread_mutex_unlock(&sc->lock);

	VkSubmitInfo si = *waits;
	si.commandBufferCount = 1;
	si.pCommandBuffers = &img->cmd;
	r = dev->vk.QueueSubmit(queue, 1, &si, img->fence);

	pthread_mutex_lock(&sc->lock);
	if (r == VK_SUCCESS) {
		img->submitted = true;
	} else {
		vd_engine_cancel(&sc->engine, img->seq);
		img->state = IMG_FREE;
	}
	pthread_cond_broadcast(&sc->cond);
	pthread_mutex_unlock(&sc->lock);
	return r;
}

static bool timing_queue_full(struct vd_swapchain *sc)
{
	pthread_mutex_lock(&sc->lock);
	bool full = vd_timing_full(&sc->timing);
	pthread_mutex_unlock(&sc->lock);
	return full;
}

/* What the present's pNext chain says about swapchain i. */
struct present_extras {
	const VkPresentIdKHR *id;
	const VkPresentId2KHR *id2;
	const VkSwapchainPresentFenceInfoKHR *fences;
	const VkSwapchainPresentModeInfoKHR *modes;
	const VkPresentTimingsInfoEXT *timings;
};

static const VkPresentTimingInfoEXT *timing_for(const struct present_extras *x, uint32_t i)
{
	return x->timings && x->timings->pTimingInfos && i < x->timings->swapchainCount
	               ? &x->timings->pTimingInfos[i]
	               : NULL;
}

static void request_for(const struct present_extras *x, const struct vd_swapchain *sc, uint32_t i,
                        struct vd_request *req)
{
	memset(req, 0, sizeof(*req));
	req->mode = sc->mode;
	if (x->modes && i < x->modes->swapchainCount)
		req->mode = mode_of(x->modes->pPresentModes[i]);
	if (x->id && x->id->pPresentIds && i < x->id->swapchainCount)
		req->present_id = x->id->pPresentIds[i];
	if (x->id2 && x->id2->pPresentIds && i < x->id2->swapchainCount)
		req->present_id = x->id2->pPresentIds[i];
	const VkPresentTimingInfoEXT *t = timing_for(x, i);
	if (t && t->targetTime) {
		/* The display has one time domain (CLOCK_MONOTONIC), and every display stage of a
		 * vblank latch happens at the vblank, so the target's stage changes nothing. */
		req->target_kind = (t->flags & VK_PRESENT_TIMING_INFO_PRESENT_AT_RELATIVE_TIME_BIT_EXT)
		                           ? VD_TARGET_RELATIVE
		                           : VD_TARGET_ABSOLUTE;
		req->target_ns = t->targetTime > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)t->targetTime;
		req->nearest = t->flags & VK_PRESENT_TIMING_INFO_PRESENT_AT_NEAREST_REFRESH_CYCLE_BIT_EXT;
	}
}

VKAPI_ATTR VkResult VKAPI_CALL vd_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	struct vd_device *dev = vd_device_of(queue);
	int64_t queued_ns = vd_now_ns();
	VkPipelineStageFlags stages_small[16], *stages = stages_small;
	VkResult result = VK_SUCCESS;
	bool waited = false;
	struct present_extras x = {
	        .id = vd_chain_find(info->pNext, VK_STRUCTURE_TYPE_PRESENT_ID_KHR),
	        .id2 = vd_chain_find(info->pNext, VK_STRUCTURE_TYPE_PRESENT_ID_2_KHR),
	        .fences = vd_chain_find(info->pNext, VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_FENCE_INFO_KHR),
	        .modes = vd_chain_find(info->pNext, VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODE_INFO_KHR),
	        .timings = vd_chain_find(info->pNext, VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT),
	};

	if (info->waitSemaphoreCount > 16) {
		stages = malloc(info->waitSemaphoreCount * sizeof(*stages));
		if (!stages)
			return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	for (uint32_t i = 0; i < info->waitSemaphoreCount; i++)
		stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;

	for (uint32_t i = 0; i < info->swapchainCount; i++) {
		struct vd_swapchain *sc = swapchain_of(dev, info->pSwapchains[i]);
		VkSubmitInfo waits = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
		struct vd_request req;
		VkResult r = VK_ERROR_SURFACE_LOST_KHR;

		if (!waited) {
			waits.waitSemaphoreCount = info->waitSemaphoreCount;
			waits.pWaitSemaphores = info->pWaitSemaphores;
			waits.pWaitDstStageMask = stages;
		}
		const VkPresentTimingInfoEXT *timing = timing_for(&x, i);
		if (sc && timing && timing->presentStageQueries && timing_queue_full(sc)) {
			/* The request is refused, but as for the other errors the spec lists for a
			 * rejected present, its semaphore waits still execute. */
			r = waited ? VK_SUCCESS : dev->vk.QueueSubmit(queue, 1, &waits, VK_NULL_HANDLE);
			if (r == VK_SUCCESS)
				waited = true;
			r = r == VK_SUCCESS ? VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT : r;
			if (info->pResults)
				info->pResults[i] = r;
			if (result == VK_SUCCESS)
				result = r;
			continue;
		}
		if (sc) {
			request_for(&x, sc, i, &req);
			r = present_one(queue, sc, info->pImageIndices[i], queued_ns, &waits, &req, timing);
		}
		if (r == VK_SUCCESS)
			waited = true;
		/* swapchain_maintenance1 present fence: signalled once the present's wait on the
		 * semaphores is done, i.e. after the submission above, by an empty submission behind it. */
		if (r == VK_SUCCESS && x.fences && i < x.fences->swapchainCount && x.fences->pFences[i])
			r = dev->vk.QueueSubmit(queue, 0, NULL, x.fences->pFences[i]);
		if (info->pResults)
			info->pResults[i] = r;
		if (r != VK_SUCCESS && result == VK_SUCCESS)
			result = r;
	}
	if (stages != stages_small)
		free(stages);
	return result;
}

/* ---- present wait, release ---- */

static VkResult wait_for_present(struct vd_device *dev, VkSwapchainKHR swapchain, uint64_t id,
                                 uint64_t timeout)
{
	struct vd_swapchain *sc = swapchain_of(dev, swapchain);
	int64_t deadline = timeout < (uint64_t)INT64_MAX / 2 ? vd_now_ns() + (int64_t)timeout : 0;
	VkResult r = VK_SUCCESS;

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	pthread_mutex_lock(&sc->lock);
	while (sc->shown_present_id < id) {
		struct timespec ts;
		if (sc->retired) {
			r = VK_ERROR_OUT_OF_DATE_KHR;
			break;
		}
		if (timeout == 0 || (deadline && vd_now_ns() >= deadline)) {
			r = VK_TIMEOUT;
			break;
		}
		abs_timespec(deadline ? deadline : vd_now_ns() + 1000000000, &ts);
		pthread_cond_timedwait(&sc->cond, &sc->lock, &ts);
	}
	pthread_mutex_unlock(&sc->lock);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_WaitForPresentKHR(VkDevice device, VkSwapchainKHR swapchain, uint64_t id,
                                                    uint64_t timeout)
{
	return wait_for_present(vd_device_of(device), swapchain, id, timeout);
}

VKAPI_ATTR VkResult VKAPI_CALL vd_WaitForPresent2KHR(VkDevice device, VkSwapchainKHR swapchain,
                                                     const VkPresentWait2InfoKHR *info)
{
	return wait_for_present(vd_device_of(device), swapchain, info->presentId, info->timeout);
}

VKAPI_ATTR VkResult VKAPI_CALL vd_ReleaseSwapchainImagesKHR(VkDevice device,
                                                            const VkReleaseSwapchainImagesInfoKHR *info)
{
	struct vd_swapchain *sc = swapchain_of(vd_device_of(device), info->swapchain);

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	pthread_mutex_lock(&sc->lock);
	for (uint32_t i = 0; i < info->imageIndexCount; i++) {
		uint32_t index = info->pImageIndices[i];
		/* "acquired but not yet presented" images go back to the presentation engine. */
		if (index < sc->image_count && sc->images[index].state == IMG_ACQUIRED)
			sc->images[index].state = IMG_FREE;
	}
	pthread_cond_broadcast(&sc->cond);
	pthread_mutex_unlock(&sc->lock);
	return VK_SUCCESS;
}

/* ---- VK_EXT_present_timing ---- */

VKAPI_ATTR VkResult VKAPI_CALL vd_SetSwapchainPresentTimingQueueSizeEXT(VkDevice device,
                                                                        VkSwapchainKHR swapchain,
                                                                        uint32_t size)
{
	struct vd_swapchain *sc = swapchain_of(vd_device_of(device), swapchain);
	VkResult r;

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	pthread_mutex_lock(&sc->lock);
	r = vd_timing_resize(&sc->timing, size);
	pthread_mutex_unlock(&sc->lock);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetSwapchainTimingPropertiesEXT(VkDevice device, VkSwapchainKHR swapchain,
                                                                  VkSwapchainTimingPropertiesEXT *props,
                                                                  uint64_t *counter)
{
	struct vd_swapchain *sc = swapchain_of(vd_device_of(device), swapchain);

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	/* refreshDuration: the shortest refresh (the maximum rate); fractional rates round to the
	 * nearest ns, the grid itself is exact. refreshInterval: the same on a fixed-rate display,
	 * UINT64_MAX ("variable") with VRR. */
	props->refreshDuration =
	        (uint64_t)((1000000000000ll + sc->engine.rate_mhz / 2) / sc->engine.rate_mhz);
	props->refreshInterval = sc->engine.vrr_min_mhz ? UINT64_MAX : props->refreshDuration;
	if (counter)
		*counter = 1;
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
vd_GetSwapchainTimeDomainPropertiesEXT(VkDevice device, VkSwapchainKHR swapchain,
                                       VkSwapchainTimeDomainPropertiesEXT *props, uint64_t *counter)
{
	struct vd_swapchain *sc = swapchain_of(vd_device_of(device), swapchain);

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	if (counter)
		*counter = 1;
	/* One domain, CLOCK_MONOTONIC, id 0: every time the display reports or accepts. */
	if (!props->pTimeDomains && !props->pTimeDomainIds) {
		props->timeDomainCount = 1;
		return VK_SUCCESS;
	}
	if (props->timeDomainCount < 1)
		return VK_INCOMPLETE;
	props->timeDomainCount = 1;
	if (props->pTimeDomains)
		props->pTimeDomains[0] = VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR;
	if (props->pTimeDomainIds)
		props->pTimeDomainIds[0] = 0;
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetPastPresentationTimingEXT(VkDevice device,
                                                               const VkPastPresentationTimingInfoEXT *info,
                                                               VkPastPresentationTimingPropertiesEXT *props)
{
	struct vd_swapchain *sc = swapchain_of(vd_device_of(device), info->swapchain);
	VkResult r;

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	pthread_mutex_lock(&sc->lock);
	r = vd_timing_collect(&sc->timing, info->flags, props);
	pthread_mutex_unlock(&sc->lock);
	return r;
}
