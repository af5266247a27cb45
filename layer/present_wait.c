/* present_wait.c — the app's present wait as lowlat's wait point; see present_wait.h. */
#include "present_wait.h"

#include <string.h>

#include "chain.h"
#include "clock.h"
#include "latency_sleep.h"
#include "log.h"
#include "message.h"
#include "objects.h"
#include "present_ids.h"
#include "swapchain.h"

void lowlat_pw_init(struct lowlat_present_wait *pw)
{
	*pw = (struct lowlat_present_wait){0};
	pw->lock_ready = pthread_mutex_init(&pw->lock, NULL) == 0;
}

void lowlat_pw_fini(struct lowlat_present_wait *pw)
{
	if (pw->lock_ready)
		pthread_mutex_destroy(&pw->lock);
	pw->lock_ready = false;
}

uint64_t lowlat_pw_present_id(const VkPresentInfoKHR *info, uint32_t i)
{
	const VkPresentIdKHR *ids = lowlat_chain_find(info->pNext, VK_STRUCTURE_TYPE_PRESENT_ID_KHR);

	if (ids && ids->pPresentIds && i < ids->swapchainCount)
		return ids->pPresentIds[i];
#ifdef VK_KHR_present_id2
	const VkPresentId2KHR *ids2 = lowlat_chain_find(info->pNext, VK_STRUCTURE_TYPE_PRESENT_ID_2_KHR);
	if (ids2 && ids2->pPresentIds && i < ids2->swapchainCount)
		return ids2->pPresentIds[i];
#endif
	return 0;
}

bool lowlat_pw_queue(struct lowlat_swapchain *sc, uint64_t present_id, int64_t release_ns, int64_t after_ns,
                     int64_t log_frame)
{
	struct lowlat_present_wait *pw = &sc->present_wait;
	bool queued = false, revert = false;

	if (!pw->lock_ready)
		return false;
	pthread_mutex_lock(&pw->lock);
	/* This swapchain is paced late in a FIFO mode: the app's present waits may take its wait. */
	pw->eligible = true;
	lowlat_display_claims_plan(&pw->claims, release_ns, after_ns);
	if (pw->active && pw->pending_count == LOWLAT_PW_UNCLAIMED) {
		/* The app stopped waiting: nobody would ever wait for these releases. */
		pw->active = false;
		pw->pending_count = 0;
		lowlat_display_claims_restart(&pw->claims);
		revert = !pw->reverted;
		pw->reverted = true;
	}
	if (pw->active) {
		pw->last = (pw->pending_first + pw->pending_count) % LOWLAT_PW_UNCLAIMED;
		pw->pending[pw->last] = (struct lowlat_pw_release){
		        .present_id = present_id, .release_ns = release_ns, .log_frame = log_frame};
		pw->pending_count++;
		queued = true;
	}
	pthread_mutex_unlock(&pw->lock);
	if (revert)
		LOWLAT_INFO_LIMITED("swapchain %ux%u: wait point \"present\" again (the app no longer waits "
		                    "for its "
		                    "presents)",
		                    sc->extent.width, sc->extent.height);
	return queued;
}

void lowlat_pw_waits_here(struct lowlat_swapchain *sc)
{
	struct lowlat_present_wait *pw = &sc->present_wait;

	if (!pw->lock_ready)
		return;
	pthread_mutex_lock(&pw->lock);
	if (pw->claims.on)
		lowlat_display_claims_plan(&pw->claims, 0, 0);
	pthread_mutex_unlock(&pw->lock);
}

bool lowlat_pw_frame_start(struct lowlat_swapchain *sc, int64_t *start_ns)
{
	struct lowlat_present_wait *pw = &sc->present_wait;
	bool display;

	*start_ns = LOWLAT_LOG_UNKNOWN;
	if (!pw->lock_ready)
		return false;
	pthread_mutex_lock(&pw->lock);
	display = pw->active && pw->claims.on;
	if (display) {
		int64_t start = lowlat_display_claims_present(&pw->claims);
		if (start)
			*start_ns = start;
	}
	pthread_mutex_unlock(&pw->lock);
	return display;
}

void lowlat_pw_set_log_frame(struct lowlat_swapchain *sc, int64_t log_frame)
{
	struct lowlat_present_wait *pw = &sc->present_wait;

	if (!pw->lock_ready)
		return;
	pthread_mutex_lock(&pw->lock);
	/* Still waiting to be claimed: the latest queued release is this present's. */
	if (pw->pending_count &&
	    pw->last == (pw->pending_first + pw->pending_count - 1) % LOWLAT_PW_UNCLAIMED)
		pw->pending[pw->last].log_frame = log_frame;
	pthread_mutex_unlock(&pw->lock);
}

void lowlat_pw_log(struct lowlat_swapchain *sc)
{
	struct lowlat_present_wait *pw = &sc->present_wait;
	struct lowlat_pw_done done[LOWLAT_PW_UNCLAIMED];
	uint32_t n;

	if (!pw->lock_ready || !sc->log)
		return;
	pthread_mutex_lock(&pw->lock);
	n = pw->done_count;
	memcpy(done, pw->done, n * sizeof(done[0]));
	pw->done_count = 0;
	pthread_mutex_unlock(&pw->lock);
	for (uint32_t i = 0; i < n; i++) {
		lowlat_log_display_frame(sc->log, done[i].log_frame, LOWLAT_LOG_STAGE_PRESENT_WAIT,
		                         done[i].returned_ns);
		lowlat_log_display_frame(sc->log, done[i].log_frame, LOWLAT_LOG_STAGE_WAIT_BEGIN,
		                         done[i].begin_ns);
		lowlat_log_display_frame(sc->log, done[i].log_frame, LOWLAT_LOG_STAGE_WAIT_END,
		                         done[i].end_ns);
	}
}

/* Each thread that waits has its own sleeper (adaptive tail state): threads never share one. */
static _Thread_local struct lowlat_sleeper thread_sleeper;
static _Thread_local bool thread_sleeper_ready;

/* After the app's present wait for id returned VK_SUCCESS: claims the releases it covers and waits
 * for the latest of them. */
static void wait_point(struct lowlat_device *dev, struct lowlat_swapchain *sc, uint64_t id,
                       int64_t returned_ns)
{
	struct lowlat_present_wait *pw = &sc->present_wait;
	bool announce = false, claimed = false, display = false;
	struct lowlat_pw_release r = {0};
	uint64_t ordinal = 0;

	/* A swapchain whose app sleeps through VK_NV_low_latency2 waits there; FIFO modes only: the
	 * only ones where DXVK waits for presents at all (and where a present is sure to be shown). */
	if (!pw->lock_ready || lowlat_latency_owns_wait(dev, sc))
		return;
	pthread_mutex_lock(&pw->lock);
	if (!pw->active && pw->eligible) {
		/* From the next present on; this one's release was waited for in its present. */
		pw->active = true;
		lowlat_display_claims_restart(&pw->claims);
		announce = !pw->announced;
		pw->announced = true;
	}
	/* Ids increase; presents without one are covered by the next wait. */
	while (pw->pending_count) {
		struct lowlat_pw_release *p = &pw->pending[pw->pending_first];
		if (p->present_id && p->present_id > id)
			break;
		r = *p;
		claimed = true;
		pw->pending_first = (pw->pending_first + 1) % LOWLAT_PW_UNCLAIMED;
		pw->pending_count--;
	}
	/* The frame this claim releases gets its own target's release (pace_display.h). */
	if ((display = claimed && pw->claims.on))
		r.release_ns = lowlat_display_claims_take(&pw->claims, &ordinal);
	pthread_mutex_unlock(&pw->lock);
	if (announce)
		LOWLAT_INFO_LIMITED("swapchain %ux%u: wait point \"present-wait\" (the app waits for its "
		                    "presents on "
		                    "another thread; lowlat's wait moves there, in FIFO presents)",
		                    sc->extent.width, sc->extent.height);
	if (!claimed)
		return;
	if (!thread_sleeper_ready) {
		lowlat_sleeper_init(&thread_sleeper);
		thread_sleeper_ready = true;
	}
	int64_t begin_ns = lowlat_now_ns();
	lowlat_sleep_until_ns(&thread_sleeper, r.release_ns);
	int64_t end_ns = lowlat_now_ns();
	pthread_mutex_lock(&pw->lock);
	pw->paced += r.release_ns > begin_ns;
	if (display)
		lowlat_display_claims_ended(&pw->claims, ordinal, end_ns);
	if (r.log_frame != LOWLAT_LOG_UNKNOWN && pw->done_count < LOWLAT_PW_UNCLAIMED)
		pw->done[pw->done_count++] = (struct lowlat_pw_done){.log_frame = r.log_frame,
		                                                     .returned_ns = returned_ns,
		                                                     .begin_ns = begin_ns,
		                                                     .end_ns = end_ns};
	pthread_mutex_unlock(&pw->lock);
}

/* The hooks are handed out only for devices lowlat paces whose chain has the function. */
VKAPI_ATTR VkResult VKAPI_CALL lowlat_WaitForPresentKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                        uint64_t present_id, uint64_t timeout)
{
	struct lowlat_device *dev = lowlat_device_of(device);
	struct lowlat_swapchain *sc;
	VkResult result;

	if (!dev || !dev->vk.WaitForPresentKHR) {
		LOWLAT_WARN_ONCE("vkWaitForPresentKHR called on a device without it; returning "
		                 "VK_ERROR_DEVICE_LOST");
		return VK_ERROR_DEVICE_LOST;
	}
	/* The app's id, translated where lowlat owns the swapchain's ids (present_ids.h); the wait
	 * point claims releases by the app's ids. */
	sc = lowlat_swapchain_of(dev, swapchain);
	result = lowlat_ids_wait(dev, sc, swapchain, present_id, timeout, NULL);
	if (result == VK_SUCCESS && sc)
		wait_point(dev, sc, present_id, lowlat_now_ns());
	return result;
}

#ifdef VK_KHR_present_wait2
VKAPI_ATTR VkResult VKAPI_CALL lowlat_WaitForPresent2KHR(VkDevice device, VkSwapchainKHR swapchain,
                                                         const VkPresentWait2InfoKHR *info)
{
	struct lowlat_device *dev = lowlat_device_of(device);
	struct lowlat_swapchain *sc;
	VkResult result;

	if (!dev || !dev->vk.WaitForPresent2KHR) {
		LOWLAT_WARN_ONCE("vkWaitForPresent2KHR called on a device without it; returning "
		                 "VK_ERROR_DEVICE_LOST");
		return VK_ERROR_DEVICE_LOST;
	}
	if (!info)
		return dev->vk.WaitForPresent2KHR(device, swapchain, info);
	sc = lowlat_swapchain_of(dev, swapchain);
	result = lowlat_ids_wait(dev, sc, swapchain, info->presentId, info->timeout, info);
	if (result == VK_SUCCESS && sc)
		wait_point(dev, sc, info->presentId, lowlat_now_ns());
	return result;
}
#endif
