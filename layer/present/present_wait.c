/* present_wait.c — the app's present wait as lowlat's wait point; see present_wait.h. */
#include "present_wait.h"

#include <string.h>

#include "chain.h"
#include "clock.h"
#include "log.h"
#include "message.h"
#include "objects.h"
#include "present_ids.h"
#include "swapchain.h"
#include "wait_point.h"

void lowlat_pw_init(struct lowlat_present_wait *pw)
{
	*pw = (struct lowlat_present_wait){0};
	lowlat_lock_init(&pw->lock);
}

void lowlat_pw_fini(struct lowlat_present_wait *pw)
{
	lowlat_lock_fini(&pw->lock);
}

/* The one line (rate-limited) saying the swapchain's wait point moved to the app's present wait,
 * or back to the present. */
static void say_point(const struct lowlat_swapchain *sc, bool here)
{
	LOWLAT_INFO_LIMITED("swapchain %ux%u: wait point %s", sc->extent.width, sc->extent.height,
	                    here ? "\"present-wait\" (the app waits for its presents on another thread; "
	                           "lowlat's wait moves there, in FIFO presents)"
	                         : "\"present\" again (the app no longer waits for its presents)");
}

bool lowlat_pw_queue(struct lowlat_swapchain *sc, uint64_t present_id, int64_t release_ns, int64_t after_ns,
                     int64_t log_frame)
{
	struct lowlat_present_wait *pw = &sc->present_wait;
	bool queued = false, revert = false;

	if (!pw->lock.ready)
		return false;
	pthread_mutex_lock(&pw->lock.mutex);
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
	pthread_mutex_unlock(&pw->lock.mutex);
	if (revert)
		say_point(sc, false);
	return queued;
}

void lowlat_pw_waits_here(struct lowlat_swapchain *sc)
{
	struct lowlat_present_wait *pw = &sc->present_wait;

	if (!pw->lock.ready)
		return;
	pthread_mutex_lock(&pw->lock.mutex);
	if (pw->claims.on)
		lowlat_display_claims_plan(&pw->claims, 0, 0);
	pthread_mutex_unlock(&pw->lock.mutex);
}

bool lowlat_pw_frame_start(struct lowlat_swapchain *sc, int64_t *start_ns)
{
	struct lowlat_present_wait *pw = &sc->present_wait;
	bool display;

	*start_ns = LOWLAT_LOG_UNKNOWN;
	if (!pw->lock.ready)
		return false;
	pthread_mutex_lock(&pw->lock.mutex);
	display = pw->active && pw->claims.on;
	if (display) {
		int64_t start = lowlat_display_claims_present(&pw->claims);
		if (start)
			*start_ns = start;
	}
	pthread_mutex_unlock(&pw->lock.mutex);
	return display;
}

void lowlat_pw_set_log_frame(struct lowlat_swapchain *sc, int64_t log_frame)
{
	struct lowlat_present_wait *pw = &sc->present_wait;

	if (!pw->lock.ready)
		return;
	pthread_mutex_lock(&pw->lock.mutex);
	/* Still waiting to be claimed: the latest queued release is this present's. */
	if (pw->pending_count &&
	    pw->last == (pw->pending_first + pw->pending_count - 1) % LOWLAT_PW_UNCLAIMED)
		pw->pending[pw->last].log_frame = log_frame;
	pthread_mutex_unlock(&pw->lock.mutex);
}

void lowlat_pw_log(struct lowlat_swapchain *sc)
{
	struct lowlat_present_wait *pw = &sc->present_wait;
	struct lowlat_pw_done done[LOWLAT_PW_UNCLAIMED];
	uint32_t n;

	if (!pw->lock.ready || !sc->log)
		return;
	pthread_mutex_lock(&pw->lock.mutex);
	n = pw->done_count;
	memcpy(done, pw->done, n * sizeof(done[0]));
	pw->done_count = 0;
	pthread_mutex_unlock(&pw->lock.mutex);
	for (uint32_t i = 0; i < n; i++) {
		lowlat_log_display_frame(sc->log, done[i].log_frame, LOWLAT_LOG_STAGE_PRESENT_WAIT,
		                         done[i].returned_ns);
		lowlat_log_display_frame(sc->log, done[i].log_frame, LOWLAT_LOG_STAGE_WAIT_BEGIN,
		                         done[i].begin_ns);
		lowlat_log_display_frame(sc->log, done[i].log_frame, LOWLAT_LOG_STAGE_WAIT_END,
		                         done[i].end_ns);
	}
}

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
	if (!pw->lock.ready || lowlat_point_owns_wait(dev, sc))
		return;
	pthread_mutex_lock(&pw->lock.mutex);
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
	pthread_mutex_unlock(&pw->lock.mutex);
	if (announce)
		say_point(sc, true);
	if (!claimed)
		return;
	int64_t begin_ns = lowlat_now_ns();
	lowlat_point_sleep_until(r.release_ns, display ? LOWLAT_WAIT_COVERED : LOWLAT_WAIT_PRECISE);
	int64_t end_ns = lowlat_now_ns();
	pthread_mutex_lock(&pw->lock.mutex);
	pw->paced += r.release_ns > begin_ns;
	if (display)
		lowlat_display_claims_ended(&pw->claims, ordinal, end_ns);
	if (r.log_frame != LOWLAT_LOG_UNKNOWN && pw->done_count < LOWLAT_PW_UNCLAIMED)
		pw->done[pw->done_count++] = (struct lowlat_pw_done){.log_frame = r.log_frame,
		                                                     .returned_ns = returned_ns,
		                                                     .begin_ns = begin_ns,
		                                                     .end_ns = end_ns};
	pthread_mutex_unlock(&pw->lock.mutex);
}

/* Both present waits: the app's id, translated where lowlat owns the swapchain's ids
 * (present_ids.h), then the wait point, which claims releases by the app's ids. wait2_info: the
 * app's VkPresentWait2InfoKHR, NULL for vkWaitForPresentKHR. */
static VkResult present_wait(struct lowlat_device *dev, VkSwapchainKHR swapchain, uint64_t present_id,
                             uint64_t timeout, const void *wait2_info)
{
	struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, swapchain);
	VkResult result = lowlat_ids_wait(dev, sc, swapchain, present_id, timeout, wait2_info);

	if (result == VK_SUCCESS && sc)
		wait_point(dev, sc, present_id, lowlat_now_ns());
	return result;
}

/* The hooks are handed out only for devices lowlat paces whose chain has the function. */
VKAPI_ATTR VkResult VKAPI_CALL lowlat_WaitForPresentKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                        uint64_t present_id, uint64_t timeout)
{
	LOWLAT_HOOK_DEVICE(dev, device, WaitForPresentKHR, VK_ERROR_DEVICE_LOST)
	return present_wait(dev, swapchain, present_id, timeout, NULL);
}

#ifdef VK_KHR_present_wait2
VKAPI_ATTR VkResult VKAPI_CALL lowlat_WaitForPresent2KHR(VkDevice device, VkSwapchainKHR swapchain,
                                                         const VkPresentWait2InfoKHR *info)
{
	LOWLAT_HOOK_DEVICE(dev, device, WaitForPresent2KHR, VK_ERROR_DEVICE_LOST)
	if (!info)
		return dev->vk.WaitForPresent2KHR(device, swapchain, info);
	return present_wait(dev, swapchain, info->presentId, info->timeout, info);
}
#endif
