/* vd_present.c — the app's side of a virtual display swapchain: acquire (an image the display does
 * not hold, signalled without queue work), present (the wait submission with its ready timestamp,
 * and the pNext extras: present ids, per-present modes, present fences, timing), present wait,
 * releasing images, and VK_EXT_present_timing's queries. See vd_swapchain.h for the states.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vd_chain.h"
#include "vd_swapchain.h"

/* ---- acquire ---- */

/* Signals the app's semaphore and fence without queue work: a temporary import of an already
 * signalled SYNC_FD (-1). */
static VkResult signal_by_import(struct vd_device *dev, VkSemaphore semaphore, VkFence fence,
                                 const char **what)
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
		*what = "vkImportSemaphoreFdKHR";
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
		*what = "vkImportFenceFdKHR";
		r = dev->vk.ImportFenceFdKHR(dev->handle, &fi);
		if (r != VK_SUCCESS)
			return r;
	}
	return VK_SUCCESS;
}

/* Every submission of the display's goes through here: on the signal queue, which can be the app's
 * first queue, acquire's submissions and present's must not overlap (vd_layer.h). */
static VkResult queue_submit(struct vd_device *dev, VkQueue queue, uint32_t count,
                             const VkSubmitInfo *submits, VkFence fence)
{
	VkResult r;

	pthread_mutex_lock(&dev->signal_lock);
	r = dev->vk.QueueSubmit(queue, count, submits, fence);
	pthread_mutex_unlock(&dev->signal_lock);
	return r;
}

/* The same with queue work, for a driver that refuses the -1 (NVIDIA's 580 did, 2026-12-04): an
 * empty submission on the display's signal queue (vd_layer.h). */
static VkResult signal_by_submit(struct vd_device *dev, VkSemaphore semaphore, VkFence fence)
{
	const VkSubmitInfo submit = {
	        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	        .signalSemaphoreCount = semaphore ? 1 : 0,
	        .pSignalSemaphores = &semaphore,
	};

	return queue_submit(dev, dev->signal_queue, 1, &submit, fence);
}

/* LOWLAT_VDISPLAY_ACQUIRE_SUBMIT=1: the fallback from the start, to test it on a driver without the
 * refusal. */
static bool submit_forced(void)
{
	const char *v = getenv("LOWLAT_VDISPLAY_ACQUIRE_SUBMIT");
	return v && !strcmp(v, "1");
}

static VkResult signal_acquire(struct vd_device *dev, VkSemaphore semaphore, VkFence fence)
{
	int how = __atomic_load_n(&dev->signal_by_submit, __ATOMIC_ACQUIRE);
	const char *what = "";
	VkResult r;

	if (!semaphore && !fence)
		return VK_SUCCESS;
	if (how != 2 && !submit_forced()) {
		r = signal_by_import(dev, semaphore, fence, &what);
		if (r == VK_SUCCESS || how == 1 || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
			if (r == VK_SUCCESS)
				__atomic_store_n(&dev->signal_by_submit, 1, __ATOMIC_RELEASE);
			return r;
		}
		/* Refused on first use: that driver cannot take -1. A semaphore imported before a fence
		 * refused stays signalled, so the submission below signals only what is left. */
		if (!strcmp(what, "vkImportFenceFdKHR"))
			semaphore = VK_NULL_HANDLE;
		vd_msg("acquire: %s refused a SYNC_FD of -1 (VkResult %d); acquire signals by an empty "
		       "submission on %s from now on",
		       what, r,
		       dev->signal_queue_private ? "a queue of the display's own" : "the app's first queue");
	}
	if (__atomic_exchange_n(&dev->signal_by_submit, 2, __ATOMIC_ACQ_REL) != 2 && submit_forced())
		vd_msg("LOWLAT_VDISPLAY_ACQUIRE_SUBMIT=1: acquire signals by an empty submission on %s",
		       dev->signal_queue_private ? "a queue of the display's own" : "the app's first queue");
	return signal_by_submit(dev, semaphore, fence);
}

static VkResult acquire(struct vd_device *dev, VkSwapchainKHR swapchain, uint64_t timeout,
                        VkSemaphore semaphore, VkFence fence, uint32_t *index)
{
	struct vd_swapchain *sc = vd_swapchain_of(dev, swapchain);
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
		if (sc->retired || sc->broken) {
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
		vd_abs_timespec(until, &ts);
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

uint32_t vd_queue_family(struct vd_device *dev, VkQueue queue)
{
	uintptr_t v = (uintptr_t)lowlat_map_find(&dev->queues, (uint64_t)(uintptr_t)queue);
	return v ? (uint32_t)(v - 1) : dev->default_family;
}

/* The time domain a present's timeDomainId names, which its results are reported in. */
static VkTimeDomainKHR present_domain(const struct vd_swapchain *sc, uint64_t id)
{
	const struct vd_profile *p = sc->profile;

	if (p->domains == VD_DOMAINS_MONOTONIC)
		return VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR;
	if (p->domains == VD_DOMAINS_STAGE_AND_SWAPCHAIN && id == p->swapchain_domain_id)
		return VK_TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT;
	return VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT;
}

/* Takes a results slot for a present that asked for stage times (under the swapchain lock). */
static void add_timing_slot(struct vd_swapchain *sc, uint64_t seq, uint64_t present_id,
                            const VkPresentTimingInfoEXT *timing)
{
	vd_timing_add(&sc->timing, seq, present_id, timing->targetTime, timing->presentStageQueries,
	              present_domain(sc, timing->timeDomainId), timing->timeDomainId);
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
	r = prepare_commands(sc, vd_queue_family(dev, queue));
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
	sc->last_seq = img->seq;
	if (timing && timing->presentStageQueries)
		add_timing_slot(sc, img->seq, req.present_id, timing);
	pthread_mutex_unlock(&sc->lock);

	VkSubmitInfo si = *waits;
	si.commandBufferCount = 1;
	si.pCommandBuffers = &img->cmd;
	r = queue_submit(dev, queue, 1, &si, img->fence);

	pthread_mutex_lock(&sc->lock);
	if (r == VK_SUCCESS) {
		img->submitted = true;
	} else {
		vd_engine_cancel(&sc->engine, img->seq);
		vd_timing_cancel(&sc->timing, img->seq);
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

/* Says once that the app asked for a target kind the profile does not offer (invalid usage:
 * VUID-VkPresentTimingInfoEXT-targetTime-12236 and -12237); the target is ignored. */
static void unoffered_target(const struct vd_swapchain *sc, bool relative)
{
	static bool told;

	if (!__atomic_exchange_n(&told, true, __ATOMIC_RELAXED))
		vd_msg("profile %s offers no %s targets: the target of a present is ignored",
		       sc->profile->name, relative ? "relative" : "absolute");
}

/* The request's target on CLOCK_MONOTONIC, from the app's in its stage's clock, as the profile
 * takes it (vd_model.h). */
static void target_for(const struct vd_swapchain *sc, const VkPresentTimingInfoEXT *t, struct vd_request *req)
{
	bool relative = t->flags & VK_PRESENT_TIMING_INFO_PRESENT_AT_RELATIVE_TIME_BIT_EXT;
	bool nearest = t->flags & VK_PRESENT_TIMING_INFO_PRESENT_AT_NEAREST_REFRESH_CYCLE_BIT_EXT;
	int64_t target = t->targetTime > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)t->targetTime;

	if (!relative) {
		/* Absolute: in the clock of targetTimeDomainPresentStage (a stage-local domain) or of the
		 * swapchain. Every display stage of a vblank latch happens at the vblank. */
		uint32_t stage = VD_STAGE_PIXEL_OUT;
		if (present_domain(sc, t->timeDomainId) == VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT &&
		    t->targetTimeDomainPresentStage)
			stage = (uint32_t)__builtin_ctz(t->targetTimeDomainPresentStage);
		target = vd_swapchain_from_stage(sc, stage, target);
	}
	if (vd_model_target(&sc->model, relative, nearest, target, req) == VD_TARGET_UNOFFERED)
		unoffered_target(sc, relative);
}

static void request_for(const struct present_extras *x, const struct vd_swapchain *sc, uint32_t i,
                        struct vd_request *req)
{
	memset(req, 0, sizeof(*req));
	req->mode = sc->mode;
	if (x->modes && i < x->modes->swapchainCount)
		req->mode = vd_mode_of(x->modes->pPresentModes[i]);
	if (x->id && x->id->pPresentIds && i < x->id->swapchainCount)
		req->present_id = x->id->pPresentIds[i];
	if (x->id2 && x->id2->pPresentIds && i < x->id2->swapchainCount)
		req->present_id = x->id2->pPresentIds[i];
	const VkPresentTimingInfoEXT *t = timing_for(x, i);
	if (t && t->targetTime)
		target_for(sc, t, req);
}

/* Whether this present fails (under the swapchain lock): the swapchain is out of date, a retired
 * one refuses presents in this profile, or it is the one LOWLAT_VDISPLAY_FAIL_PRESENT names. */
static bool present_fails(struct vd_swapchain *sc)
{
	bool fails;

	pthread_mutex_lock(&sc->lock);
	sc->presents++;
	fails = sc->broken || (sc->retired && sc->profile->fail_retired) ||
	        (sc->fail_present && sc->presents == sc->fail_present);
	pthread_mutex_unlock(&sc->lock);
	return fails;
}

/* A present that fails after the presentation engine took it: Mesa takes the results slot before
 * the platform present (wsi_common_queue_present), so in its profiles the slot stays and never
 * completes. The image is the swapchain's again; the swapchain stays out of date. */
static void present_failed(struct vd_swapchain *sc, uint32_t index, const VkPresentTimingInfoEXT *timing)
{
	pthread_mutex_lock(&sc->lock);
	if (sc->profile->leak_failed_slot && timing && timing->presentStageQueries &&
	    !vd_timing_full(&sc->timing))
		add_timing_slot(sc, 0 /* no request: never completes */, 0, timing);
	if (index < sc->image_count && sc->images[index].state == IMG_ACQUIRED)
		sc->images[index].state = IMG_FREE;
	if (!sc->broken)
		vd_msg("swapchain %u: a present failed with VK_ERROR_OUT_OF_DATE_KHR (%s)", sc->id,
		       sc->retired ? "the swapchain is retired" : "LOWLAT_VDISPLAY_FAIL_PRESENT");
	sc->broken = true;
	pthread_cond_broadcast(&sc->cond);
	pthread_mutex_unlock(&sc->lock);
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
		struct vd_swapchain *sc = vd_swapchain_of(dev, info->pSwapchains[i]);
		VkSubmitInfo waits = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
		struct vd_request req;
		VkResult r = VK_ERROR_SURFACE_LOST_KHR;

		if (!waited) {
			waits.waitSemaphoreCount = info->waitSemaphoreCount;
			waits.pWaitSemaphores = info->pWaitSemaphores;
			waits.pWaitDstStageMask = stages;
		}
		if (sc) {
			pthread_mutex_lock(&sc->lock);
			sc->presenter = pthread_self();
			sc->has_presenter = true;
			pthread_mutex_unlock(&sc->lock);
		}
		const VkPresentTimingInfoEXT *timing = timing_for(&x, i);
		if (sc && timing && timing->presentStageQueries && timing_queue_full(sc)) {
			/* The request is refused, but as for the other errors the spec lists for a
			 * rejected present, its semaphore waits still execute. */
			r = waited ? VK_SUCCESS : queue_submit(dev, queue, 1, &waits, VK_NULL_HANDLE);
			if (r == VK_SUCCESS)
				waited = true;
			r = r == VK_SUCCESS ? VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT : r;
			if (info->pResults)
				info->pResults[i] = r;
			if (result == VK_SUCCESS)
				result = r;
			continue;
		}
		if (sc && present_fails(sc)) {
			/* Its semaphore waits execute, as for the other failed presents. */
			r = waited ? VK_SUCCESS : queue_submit(dev, queue, 1, &waits, VK_NULL_HANDLE);
			if (r == VK_SUCCESS)
				waited = true;
			present_failed(sc, info->pImageIndices[i], timing);
			if (x.fences && i < x.fences->swapchainCount && x.fences->pFences[i])
				queue_submit(dev, queue, 0, NULL, x.fences->pFences[i]);
			r = VK_ERROR_OUT_OF_DATE_KHR;
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
			r = queue_submit(dev, queue, 0, NULL, x.fences->pFences[i]);
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

/* LOWLAT_VDISPLAY_WAIT_STALL_AFTER=N: once request N was queued, no present wait succeeds any more
 * (each runs to its timeout: a display whose completion reports stopped; tests a layer's
 * timeouts). 0: never. */
static uint64_t wait_stall_after(void)
{
	const char *v = getenv("LOWLAT_VDISPLAY_WAIT_STALL_AFTER");
	return v ? strtoull(v, NULL, 10) : 0;
}

static VkResult wait_for_present(struct vd_device *dev, VkSwapchainKHR swapchain, uint64_t id,
                                 uint64_t timeout)
{
	struct vd_swapchain *sc = vd_swapchain_of(dev, swapchain);
	int64_t deadline = timeout < (uint64_t)INT64_MAX / 2 ? vd_now_ns() + (int64_t)timeout : 0;
	VkResult r = VK_SUCCESS;
	uint64_t stall_after = wait_stall_after();

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	pthread_mutex_lock(&sc->lock);
	while (sc->shown_present_id < id || (stall_after && sc->last_seq > stall_after)) {
		struct timespec ts;
		if (sc->retired) {
			r = VK_ERROR_OUT_OF_DATE_KHR;
			break;
		}
		if (timeout == 0 || (deadline && vd_now_ns() >= deadline)) {
			r = VK_TIMEOUT;
			break;
		}
		vd_abs_timespec(deadline ? deadline : vd_now_ns() + 1000000000, &ts);
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
	struct vd_swapchain *sc = vd_swapchain_of(vd_device_of(device), info->swapchain);

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
	struct vd_swapchain *sc = vd_swapchain_of(vd_device_of(device), swapchain);
	VkResult r;

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	pthread_mutex_lock(&sc->lock);
	r = vd_timing_resize(&sc->timing, size);
	pthread_mutex_unlock(&sc->lock);
	return r;
}

/* vkGetSwapchainTimingPropertiesEXT and vkGetSwapchainTimeDomainPropertiesEXT take a swapchain the
 * app must synchronise with its other calls on it, vkQueuePresentKHR among them (vk.xml, externsync
 * "true"). A layer between cannot see the app's locks, so it may make such a call only inside the
 * app's own calls on that swapchain. This display's test apps make them on the thread that presents
 * (vkd3d-proton in its present callback, dxgi_vk_swap_chain_update_present_timing): one from another
 * thread after the first present is said once, and the end-to-end tests fail on that line. Called
 * under sc->lock. */
static void off_present_thread(struct vd_swapchain *sc, const char *call)
{
	if (!sc->has_presenter || pthread_equal(sc->presenter, pthread_self()) || sc->told_off_thread)
		return;
	sc->told_off_thread = true;
	fprintf(stderr, "vdisplay: %s on swapchain %u from a thread other than the one presenting to it\n",
	        call, sc->id);
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetSwapchainTimingPropertiesEXT(VkDevice device, VkSwapchainKHR swapchain,
                                                                  VkSwapchainTimingPropertiesEXT *props,
                                                                  uint64_t *counter)
{
	struct vd_swapchain *sc = vd_swapchain_of(vd_device_of(device), swapchain);
	VkResult r = VK_SUCCESS;

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	/* refreshDuration: the shortest refresh (the maximum rate), rounded to the ns; the grid itself
	 * is exact. refreshInterval: the same on a fixed-rate display, UINT64_MAX ("variable") with VRR;
	 * 0 ("unknown") where the profile's platform cannot tell. What each profile reports when, and
	 * its counter, are the profile's (vd_swapchain.c, profile_state and refresh_feedback). */
	pthread_mutex_lock(&sc->lock);
	off_present_thread(sc, "vkGetSwapchainTimingPropertiesEXT");
	vd_model_refresh(&sc->model, &props->refreshDuration, &props->refreshInterval);
	if (counter)
		*counter = sc->model.refresh.counter;
	/* "Some platforms may not provide timing properties until after at least one image has been
	 * presented": the spec profile is such a platform (VK_NOT_READY). */
	if (sc->profile->refresh == VD_REFRESH_NOT_READY && !sc->model.refresh.counter)
		r = VK_NOT_READY;
	pthread_mutex_unlock(&sc->lock);
	return r;
}

/* The time domains of a profile, in order, with their ids. */
static uint32_t profile_domains(const struct vd_profile *p, VkTimeDomainKHR domains[2], uint64_t ids[2])
{
	switch (p->domains) {
	case VD_DOMAINS_MONOTONIC:
		domains[0] = VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR;
		ids[0] = 0;
		return 1;
	case VD_DOMAINS_STAGE_AND_SWAPCHAIN:
		domains[1] = VK_TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT;
		ids[1] = p->swapchain_domain_id;
		/* fallthrough */
	case VD_DOMAINS_STAGE_LOCAL:
		domains[0] = VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT;
		ids[0] = p->stage_domain_id;
		return p->domains == VD_DOMAINS_STAGE_LOCAL ? 1 : 2;
	}
	return 0;
}

VKAPI_ATTR VkResult VKAPI_CALL
vd_GetSwapchainTimeDomainPropertiesEXT(VkDevice device, VkSwapchainKHR swapchain,
                                       VkSwapchainTimeDomainPropertiesEXT *props, uint64_t *counter)
{
	struct vd_swapchain *sc = vd_swapchain_of(vd_device_of(device), swapchain);
	VkTimeDomainKHR domains[2];
	uint64_t ids[2];
	uint32_t n, written;

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	pthread_mutex_lock(&sc->lock);
	off_present_thread(sc, "vkGetSwapchainTimeDomainPropertiesEXT");
	pthread_mutex_unlock(&sc->lock);
	/* The domains never change: the counter stays 1. */
	if (counter)
		*counter = 1;
	n = profile_domains(sc->profile, domains, ids);
	if (!props->pTimeDomains && !props->pTimeDomainIds) {
		props->timeDomainCount = n;
		return VK_SUCCESS;
	}
	written = props->timeDomainCount < n ? props->timeDomainCount : n;
	for (uint32_t i = 0; i < written; i++) {
		if (props->pTimeDomains)
			props->pTimeDomains[i] = domains[i];
		if (props->pTimeDomainIds)
			props->pTimeDomainIds[i] = ids[i];
	}
	props->timeDomainCount = written;
	return written < n ? VK_INCOMPLETE : VK_SUCCESS;
}

/* LOWLAT_VDISPLAY_TIMING_STALL_AFTER=N: once request N was queued, no present-timing result is
 * reported any more (tests a layer's timeouts). 0: never. */
static uint64_t timing_stall_after(void)
{
	const char *v = getenv("LOWLAT_VDISPLAY_TIMING_STALL_AFTER");
	return v ? strtoull(v, NULL, 10) : 0;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetPastPresentationTimingEXT(VkDevice device,
                                                               const VkPastPresentationTimingInfoEXT *info,
                                                               VkPastPresentationTimingPropertiesEXT *props)
{
	struct vd_swapchain *sc = vd_swapchain_of(vd_device_of(device), info->swapchain);
	uint64_t stall_after = timing_stall_after();
	VkResult r;

	if (!sc)
		return VK_ERROR_SURFACE_LOST_KHR;
	pthread_mutex_lock(&sc->lock);
	props->timingPropertiesCounter = sc->model.refresh.counter;
	props->timeDomainsCounter = 1;
	if (stall_after && sc->last_seq > stall_after) {
		/* A display whose reports stopped: nothing is ever complete again. */
		pthread_mutex_unlock(&sc->lock);
		props->presentationTimingCount = 0;
		return VK_SUCCESS;
	}
	const struct vd_timing_clocks clocks = {
	        .supported = sc->profile->stages,
	        .partial = sc->profile->partial,
	        .to_stage = vd_swapchain_to_stage,
	        .user = sc,
	};
	r = vd_timing_collect(&sc->timing, &clocks, info->flags, props);
	pthread_mutex_unlock(&sc->lock);
	return r;
}
