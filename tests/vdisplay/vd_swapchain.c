/* vd_swapchain.c — swapchains of the virtual display: real driver images, creation and destruction,
 * and the scan-out thread that drives the presentation engine (scanout.c) on the ideal refresh grid.
 *
 * A present (vd_present.c) submits, on the app's queue, a wait on the app's semaphores followed by a
 * command buffer that writes a timestamp, and signals a fence of ours. The timestamp, converted to
 * CLOCK_MONOTONIC, is the request's ready time: the moment its GPU work was complete. The scan-out
 * thread learns it when the fence signals (its own wake-up latency does not matter) and replays the
 * display up to the time it last checked, so the history is what an exact display would have done.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vd_log.h"
#include "vd_swapchain.h"

static uint32_t next_swapchain_id = 1; /* atomic: swapchains may be created on several threads */

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

/* LOWLAT_VDISPLAY_LATE_READY=K:U: every K-th request (seq K, 2K, ...) is ready U µs after its GPU
 * work really finished, as if that frame's rendering had run long: the display (and the
 * QUEUE_OPERATIONS_END time it reports) sees it ready then. Deterministic late frames, at frames
 * the test knows, for what a layer does after a frame that missed its refresh. Unset: none. */
static void late_ready(struct vd_swapchain *sc)
{
	const char *text = getenv("LOWLAT_VDISPLAY_LATE_READY");
	unsigned long every, us;
	int used = 0;

	if (!text || !*text)
		return;
	if (sscanf(text, "%lu:%lu%n", &every, &us, &used) != 2 || text[used] || !every || !us ||
	    us > 1000000) {
		vd_msg("LOWLAT_VDISPLAY_LATE_READY=%s is not K:U (every K-th request, U µs, 1..1000000); "
		       "no late frames",
		       text);
		return;
	}
	sc->late_every = every;
	sc->late_ns = (int64_t)us * 1000;
}

/* LOWLAT_VDISPLAY_UNTARGETED_READY_PHASE=U: each request without a target time is ready U µs after
 * a refresh start, at the first such time a refresh or more after its GPU work finished: shown then,
 * torn, in FIFO_RELAXED, as frames that come after a refresh has passed, at a phase the test
 * chooses (a layer's first frames, before it sets targets). Fixed-rate displays only. Unset: as
 * rendered. */
static void untargeted_ready_phase(struct vd_swapchain *sc)
{
	const char *text = getenv("LOWLAT_VDISPLAY_UNTARGETED_READY_PHASE");
	int64_t period = (int64_t)vd_swapchain_period_ns(sc);
	unsigned long us;
	int used = 0;

	sc->untargeted_phase_ns = -1;
	if (!text || !*text)
		return;
	if (sscanf(text, "%lu%n", &us, &used) != 1 || text[used] || (int64_t)us * 1000 >= period ||
	    sc->engine.vrr_min_mhz) {
		vd_msg("LOWLAT_VDISPLAY_UNTARGETED_READY_PHASE=%s is not a time in µs within a refresh of a "
		       "fixed-rate display; requests are ready as rendered",
		       text);
		return;
	}
	sc->untargeted_phase_ns = (int64_t)us * 1000;
}

/* The first time at least a refresh after ready_ns that lies phase_ns after a refresh start. */
static int64_t at_phase(const struct vd_swapchain *sc, int64_t ready_ns, int64_t phase_ns)
{
	int64_t rate = sc->engine.rate_mhz, earliest = ready_ns + (int64_t)vd_swapchain_period_ns(sc);
	int64_t k = vd_refresh_at(rate, earliest - phase_ns);

	if (vd_refresh_start_ns(rate, k) + phase_ns < earliest)
		k++;
	return vd_refresh_start_ns(rate, k) + phase_ns;
}

enum vd_mode vd_mode_of(VkPresentModeKHR mode)
{
	switch (mode) {
	case VK_PRESENT_MODE_IMMEDIATE_KHR: return VD_MODE_IMMEDIATE;
	case VK_PRESENT_MODE_MAILBOX_KHR: return VD_MODE_MAILBOX;
	case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return VD_MODE_FIFO_RELAXED;
	case VK_PRESENT_MODE_FIFO_LATEST_READY_KHR: return VD_MODE_FIFO_LATEST_READY;
	default: return VD_MODE_FIFO;
	}
}

/* ---- the profile's clocks and refresh reports ---- */

struct vd_clock vd_swapchain_clock(const struct vd_swapchain *sc, uint32_t stage)
{
	struct vd_clock c = sc->profile->clock[stage < VD_STAGES ? stage : VD_STAGE_PIXEL_OUT];

	c.offset_ns += sc->clock_extra_ns;
	return c;
}

int64_t vd_swapchain_to_stage(const void *user, uint32_t stage, int64_t monotonic_ns)
{
	const struct vd_swapchain *sc = user;
	struct vd_clock c = vd_swapchain_clock(sc, stage);

	return vd_clock_from_monotonic(&c, sc->clock_epoch_ns, monotonic_ns);
}

int64_t vd_swapchain_from_stage(const struct vd_swapchain *sc, uint32_t stage, int64_t stage_ns)
{
	struct vd_clock c = vd_swapchain_clock(sc, stage);

	return vd_clock_to_monotonic(&c, sc->clock_epoch_ns, stage_ns);
}

uint64_t vd_swapchain_period_ns(const struct vd_swapchain *sc)
{
	return (uint64_t)((1000000000000ll + sc->engine.rate_mhz / 2) / sc->engine.rate_mhz);
}

/* ---- the display's events (called by the engine, under the swapchain lock) ---- */

static void on_event(void *user, const struct vd_event *ev)
{
	struct vd_swapchain *sc = user;
	struct vd_image *img = &sc->images[ev->request.image];
	/* The truth log keeps the exact times; the results queue gets what the platform reports. */
	struct vd_event reported = *ev;

	if (ev->kind == VD_EV_SHOWN || ev->kind == VD_EV_REPLACED || ev->kind == VD_EV_SKIPPED) {
		reported.request.dequeued_ns = vd_model_reported_time(&sc->model, ev->request.dequeued_ns);
		reported.request.first_pixel_ns =
		        ev->kind == VD_EV_SHOWN ? reported.request.dequeued_ns : ev->request.first_pixel_ns;
	}
	vd_timing_event(&sc->timing, &reported);
	switch (ev->kind) {
	case VD_EV_SHOWN:
		img->state = IMG_SHOWN;
		vd_model_shown(&sc->model, ev->refresh, reported.request.first_pixel_ns);
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
				if (sc->late_every && img->seq % sc->late_every == 0)
					ready[k] += sc->late_ns;
				if (sc->untargeted_phase_ns >= 0) {
					const struct vd_request *req =
					        vd_engine_request(&sc->engine, img->seq);
					if (req && req->target_kind == VD_TARGET_NONE)
						ready[k] = at_phase(sc, ready[k], sc->untargeted_phase_ns);
				}
				vd_engine_set_ready(&sc->engine, img->seq, ready[k]);
			}
		}
		vd_engine_advance(&sc->engine, horizon);
		if (sc->quit)
			break;
		/* The queue operations of the requests still waiting for the screen: ended once their
		 * ready time is past (LOWLAT_VDISPLAY_LATE_READY puts it ahead of the fence). */
		int64_t next_ready = INT64_MAX;
		for (uint32_t i = 0; i < sc->engine.count; i++) {
			const struct vd_request *req = &sc->engine.queue[i];
			if (req->ready_ns == VD_TIME_UNKNOWN)
				continue;
			if (req->ready_ns <= horizon)
				vd_timing_queue_done(&sc->timing, req->seq, req->ready_ns);
			else if (req->ready_ns < next_ready)
				next_ready = req->ready_ns;
		}

		/* Sleep until the next vblank, the oldest pending request becomes ready, or a ready time
		 * ahead passes. */
		int64_t next_vblank = vd_engine_next_vblank_ns(&sc->engine);
		int64_t wake = next_ready < next_vblank ? next_ready : next_vblank;
		uint64_t oldest_seq = UINT64_MAX;
		for (uint32_t i = 0; i < sc->image_count; i++) {
			if (sc->images[i].state == IMG_QUEUED && sc->images[i].submitted &&
			    sc->images[i].seq < oldest_seq) {
				oldest_seq = sc->images[i].seq;
				oldest = i;
			}
		}
		int64_t wait = wake - vd_now_ns();
		if (oldest != UINT32_MAX) {
			VkFence fence = sc->images[oldest].fence;
			pthread_mutex_unlock(&sc->lock);
			VkResult r = wait > 0 ? dev->vk.WaitForFences(dev->handle, 1, &fence, VK_TRUE,
			                                              (uint64_t)wait)
			                      : VK_TIMEOUT;
			pthread_mutex_lock(&sc->lock);
			if (r < 0) {
				/* Device lost: nothing will signal again. Keep the refresh clock going
				 * without spinning; the app learns of the loss from its own calls. */
				struct timespec ts;
				vd_msg("swapchain %u: waiting for a present failed (%d)", sc->id, r);
				vd_abs_timespec(next_vblank, &ts);
				pthread_cond_timedwait(&sc->cond, &sc->lock, &ts);
			}
		} else if (wait > 0) {
			struct timespec ts;
			vd_abs_timespec(wake, &ts);
			/* Woken early by a present; the loop then looks again. */
			pthread_cond_timedwait(&sc->cond, &sc->lock, &ts);
		}
	}
	pthread_mutex_unlock(&sc->lock);
	return NULL;
}

/* LOWLAT_VDISPLAY_FAIL_PRESENT=N: the N-th present to each swapchain fails with
 * VK_ERROR_OUT_OF_DATE_KHR, as one does after the window went away, and the swapchain stays out of
 * date; what the failure does to its results slot is the profile's. Unset: none. */
static uint64_t fail_present(void)
{
	const char *v = getenv("LOWLAT_VDISPLAY_FAIL_PRESENT");
	return v ? strtoull(v, NULL, 10) : 0;
}

/* The profile's starting state: its clocks, and the refresh it reports before any feedback. */
static void profile_state(struct vd_swapchain *sc, const VkSwapchainCreateInfoKHR *info)
{
	const struct vd_profile *p = vd_profile();

	sc->profile = p;
	sc->clock_epoch_ns = vd_now_ns();
	/* Another swapchain, other clocks: 1 s and a bit per swapchain number. */
	sc->clock_extra_ns = p->per_swapchain_clocks ? (int64_t)sc->id * 1000000007ll : 0;
	sc->fail_present = fail_present();
	vd_model_init(&sc->model, p, sc->engine.rate_mhz, sc->engine.vrr_min_mhz,
	              info->flags & VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT, 0x5eed0000ull + sc->id);
}

/* ---- creation and destruction ---- */

uint32_t vd_memory_type(const struct vd_device *dev, uint32_t bits)
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
	        .memoryTypeIndex = vd_memory_type(dev, req.memoryTypeBits),
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
	lowlat_free(alloc, sc);
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

	if (!dev->display) {
		/* Handed out only to such devices for this check: the driver cannot present to ours. */
		if (!vd_surface_is_own(info->surface))
			return dev->vk.CreateSwapchainKHR(device, info, allocator, out);
		vd_msg("vkCreateSwapchainKHR: the display is off for this device and its driver cannot "
		       "present to the display's headless surface: VK_ERROR_INITIALIZATION_FAILED");
		return VK_ERROR_INITIALIZATION_FAILED;
	}
	(void)allocator; /* our record lives with the device; the images use the device's allocator */
	sc = lowlat_alloc(alloc, sizeof(*sc), VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
	if (!sc)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	sc->dev = dev;
	sc->id = __atomic_fetch_add(&next_swapchain_id, 1, __ATOMIC_RELAXED);
	sc->mode = vd_mode_of(info->presentMode);
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
	late_ready(sc);
	untargeted_ready_phase(sc);
	profile_state(sc, info);

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
	/* Named, so a scheduler trace (perf sched) tells the display from the driver's threads. */
	pthread_setname_np(sc->thread, "vd-scanout");
	if (!lowlat_map_insert(&dev->swapchains, (uint64_t)(uintptr_t)sc, sc)) {
		r = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto fail_thread;
	}
	/* "oldSwapchain is retired": acquire from it fails from now on; presents of images acquired
	 * before still reach the display. */
	if ((old = vd_swapchain_of(dev, info->oldSwapchain))) {
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
	lowlat_free(alloc, sc);
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
	if (!swapchain || !(sc = lowlat_map_remove(&dev->swapchains, (uint64_t)swapchain)))
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
	struct vd_swapchain *sc = vd_swapchain_of(vd_device_of(device), swapchain);
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
	struct vd_swapchain *sc = vd_swapchain_of(dev, swapchain);

	return sc && index < sc->image_count ? sc->images[index].memory : VK_NULL_HANDLE;
}
