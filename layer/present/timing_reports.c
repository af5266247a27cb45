/* timing_reports.c — what the display reports about each present (VK_EXT_present_timing): the
 * presents whose reports are still to come, reading the reports back at every present, and what
 * each one says: the frame's ready time (the release lead's sample), the refresh it went out on
 * (the grid's phase), whether it made the refresh it was planned for (the release margin), a queue
 * behind V-Sync, a frame late for its refresh. Every time is converted to CLOCK_MONOTONIC through
 * the swapchain's calibrated stage clocks (present_clock.h). A driver whose reports contradict
 * themselves, or stop, is not trusted: the swapchain goes on without them, said once.
 *
 * The reports of a swapchain's presents come back in present order (lowlat never asks for them
 * out of order), so they are matched to its pending presents by place.
 */
#include "present_timing.h"

#ifdef VK_EXT_present_timing

#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "brain/timing.h"
#include "clock.h"
#include "live.h"
#include "log.h"
#include "message.h"
#include "present_call.h"
#include "swapchain.h"
#include "timing_reports.h"

/* A present whose report has not come this long after it was made: the reports stopped (Mesa keeps
 * the results slot of a present that failed, and reports in order stop behind it for good). */
#define REPORT_STALL_NS 500000000ll /* 500 ms */

/* Reports that stopped: lowlat forgets its pending presents and asks for no more, and paces on the
 * grid it knows (the latency-frames cap, which needs reports, is then off). */
static void check_stalled(struct lowlat_swapchain *sc)
{
	struct lowlat_swapchain_timing *t = &sc->timing;
	int64_t now_ns = lowlat_now_ns();

	if (!t->pending_count || !t->stage_queries)
		return;
	const struct lowlat_pending_present *oldest = &t->pending[t->pending_first];
	if (now_ns - oldest->frame.present_ns < REPORT_STALL_NS || now_ns - t->report_ns < REPORT_STALL_NS)
		return;
	t->pending_count = 0;
	t->stage_queries = 0;
	sc->latency_off = true;
	lowlat_msg("swapchain %ux%u: the display stopped reporting its presents (after a present failed, a "
	           "driver may keep its report slot); lowlat paces on the refresh it knows, without reports",
	           sc->extent.width, sc->extent.height);
}

/* The k-th oldest pending present (k < pending_count). */
static struct lowlat_pending_present *pending_at(struct lowlat_swapchain_timing *t, uint32_t k)
{
	return &t->pending[(t->pending_first + k) % LOWLAT_PENDING_MAX];
}

/* The k-th oldest pending present, taken off the list: a copy, in *out. False when there is none.
 * k is 0 unless the driver completed a present before an older one (see lowlat_timing_update). */
static bool pending_take(struct lowlat_swapchain_timing *t, uint32_t k, struct lowlat_pending_present *out)
{
	if (k >= t->pending_count)
		return false;
	*out = *pending_at(t, k);
	/* The older ones move up a place over it. */
	for (uint32_t i = k; i > 0; i--)
		*pending_at(t, i) = *pending_at(t, i - 1);
	t->pending_first = (t->pending_first + 1) % LOWLAT_PENDING_MAX;
	t->pending_count--;
	return true;
}

/* A stage's time as lowlat's signed nanoseconds; 0 (the stage did not happen) for one out of range. */
static int64_t stage_time_ns(const VkPresentStageTimeEXT *st)
{
	return st->time > (uint64_t)INT64_MAX ? 0 : (int64_t)st->time;
}

/* The report of a present the app asked stage times for, kept for its own
 * vkGetPastPresentationTimingEXT: as the driver gave it, with the app's stages only. The oldest is
 * dropped when the app never reads them (the driver would have refused its next queries). */
static void keep_for_app(struct lowlat_swapchain_timing *t, const VkPastPresentationTimingEXT *result,
                         uint32_t app_queries)
{
	if (!t->app_lock.ready)
		return;
	pthread_mutex_lock(&t->app_lock.mutex);
	if (t->app_count == LOWLAT_APP_QUEUE_MAX) {
		t->app_first = (t->app_first + 1) % LOWLAT_APP_QUEUE_MAX;
		t->app_count--;
	}
	struct lowlat_app_report *a = &t->app_reports[(t->app_first + t->app_count++) % LOWLAT_APP_QUEUE_MAX];
	*a = (struct lowlat_app_report){.present_id = result->presentId,
	                                .target_time = result->targetTime,
	                                .domain_id = result->timeDomainId,
	                                .domain = result->timeDomain};
	for (uint32_t s = 0; s < result->presentStageCount && a->count < 4; s++) {
		const VkPresentStageTimeEXT *st = &result->pPresentStages[s];
		if (st->stage & app_queries) {
			a->stage[a->count].stage = st->stage;
			a->stage[a->count++].time = st->time;
		}
	}
	pthread_mutex_unlock(&t->app_lock.mutex);
}

/* The frame's latency for `lowlat status`, whole and in parts (live.h): its GPU work done at
 * ready_ns (0: not reported; a frame done before its present call counts 0 there), shown at out_ns
 * by the swapchain's phase stage. */
static void live_latency(struct lowlat_swapchain *sc, const struct lowlat_pending_present *p,
                         int64_t ready_ns, int64_t out_ns)
{
	const struct lowlat_tb_frame *fr = &p->frame;
	int64_t done = ready_ns ? (ready_ns > fr->present_ns ? ready_ns : fr->present_ns) : 0;
	const int64_t parts[LOWLAT_LIVE_PARTS] = {
	        [LOWLAT_LIVE_TOTAL] = out_ns - fr->start_ns,
	        [LOWLAT_LIVE_GAME] = fr->present_ns - fr->start_ns,
	        [LOWLAT_LIVE_GPU] = done ? done - fr->present_ns : -1,
	        [LOWLAT_LIVE_DISPLAY] = out_ns - (done ? done : fr->present_ns),
	};
	const char *until =
	        sc->timing.phase_stage == VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT ? "visible"
	        : sc->timing.phase_stage == VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT   ? "out"
	                                                                                     : "dequeued";
	lowlat_live_latency(sc->cap.live, parts, until);
}

static void take_result(struct lowlat_swapchain *sc, const VkPastPresentationTimingEXT *result, uint32_t k)
{
	struct lowlat_swapchain_timing *t = &sc->timing;
	struct lowlat_pending_present taken, *p = &taken;
	int64_t ready_ns = 0, out_ns = 0;

	if (!pending_take(t, k, &taken))
		return;
	if (p->app_queries)
		keep_for_app(t, result, p->app_queries);
	if (p->foreign)
		return; /* the app's own timing info: its times are not on lowlat's clocks */
	for (uint32_t s = 0; s < result->presentStageCount; s++) {
		const VkPresentStageTimeEXT *st = &result->pPresentStages[s];
		/* On CLOCK_MONOTONIC; 0: the stage did not happen (a dropped request never reaches the
		 * screen), or it has no offset. */
		int64_t time_ns = lowlat_clock_to_monotonic(&t->clocks, st->stage, stage_time_ns(st));
		enum lowlat_log_stage stage;

		if (!time_ns)
			continue;
		switch (st->stage) {
		case VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT:
			stage = LOWLAT_LOG_STAGE_QUEUE_DONE;
			ready_ns = time_ns;
			break;
		case VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT: stage = LOWLAT_LOG_STAGE_LATCHED; break;
		case VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT:
			stage = LOWLAT_LOG_STAGE_PIXEL_OUT;
			break;
		case VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT:
			stage = LOWLAT_LOG_STAGE_PIXEL_VISIBLE;
			break;
		default: continue;
		}
		if (st->stage == t->phase_stage)
			out_ns = time_ns;
		if (p->current && t->early_count < sizeof(t->early) / sizeof(t->early[0])) {
			t->early[t->early_count].stage = stage;
			t->early[t->early_count++].time_ns = time_ns;
		} else {
			lowlat_log_display_frame(sc->log, p->log_frame, stage, time_ns);
		}
	}
	t->report_ns = lowlat_now_ns();
	uint32_t news = lowlat_tb_report(&t->brain, &p->frame, ready_ns, out_ns);
	if (news & LOWLAT_TB_UNTRUSTED)
		lowlat_timing_give_up(sc, "its present reports contradict themselves (frames shown before "
		                          "they were presented, or before the frame before them)");
	if (news & LOWLAT_TB_CONTRADICTS)
		return;
	if (news & LOWLAT_TB_NO_TARGETS)
		lowlat_msg(
		        "swapchain %ux%u: the driver shows frames before their target times (%.1f ms early); "
		        "lowlat sets no more targets and paces on the display's reports alone",
		        sc->extent.width, sc->extent.height, (double)(p->frame.target_ns - out_ns) * 1e-6);
	if (news & LOWLAT_TB_RELAXED_AT_TARGET)
		LOWLAT_INFO("swapchain %ux%u: the driver shows FIFO_RELAXED frames at their target times, "
		            "mid-refresh: their targets move to %lld us before the refresh",
		            sc->extent.width, sc->extent.height, LOWLAT_RELAXED_LEAD_NS / 1000);
	if (news & LOWLAT_TB_PHASE_UNSEEN)
		lowlat_msg("swapchain %ux%u: no FIFO_RELAXED frame has waited for a refresh yet, so lowlat "
		           "guesses where refreshes start, and frames may tear at one place on the screen "
		           "until one does; V-Sync without tearing (FIFO) has no such guess",
		           sc->extent.width, sc->extent.height);
	if (news & LOWLAT_TB_PHASE_SEEN)
		lowlat_msg("swapchain %ux%u: a FIFO_RELAXED frame waited for a refresh: targets are on the "
		           "display's refresh grid from now on",
		           sc->extent.width, sc->extent.height);
	t->current_taken = t->current_taken || p->current;
	/* What `lowlat status` shows as latency: the frame's start to its first pixel (or to when the
	 * compositor took it, where that is all the driver reports), and its parts. */
	if (out_ns && p->frame.start_ns != LOWLAT_LOG_UNKNOWN && out_ns > p->frame.start_ns)
		live_latency(sc, p, ready_ns, out_ns);
}

/* A report still incomplete (asked for with VK_PAST_PRESENTATION_TIMING_ALLOW_PARTIAL_RESULTS_BIT_EXT)
 * of the k-th oldest pending present, whose GPU work may have ended already: a FIFO frame whose work
 * ended after the refresh it targets has missed it, and the brain moves the next frame on with it
 * (brain/timing.h, lowlat_tb_partial), refreshes before that frame is shown. */
static void take_partial(struct lowlat_swapchain *sc, const VkPastPresentationTimingEXT *result, uint32_t k)
{
	struct lowlat_swapchain_timing *t = &sc->timing;
	int64_t ready_ns = 0;

	if (k >= t->pending_count)
		return;
	for (uint32_t s = 0; s < result->presentStageCount; s++)
		if (result->pPresentStages[s].stage == VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT)
			ready_ns = lowlat_clock_to_monotonic(&t->clocks,
			                                     VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT,
			                                     stage_time_ns(&result->pPresentStages[s]));
	lowlat_tb_partial(&t->brain, &pending_at(t, k)->frame, ready_ns);
}

/* Results fetched per call. Each carries up to four stage times. */
#define RESULTS_PER_CALL 16

void lowlat_timing_update(struct lowlat_swapchain *sc)
{
	struct lowlat_device *dev = sc->device;
	struct lowlat_swapchain_timing *t = &sc->timing;
	VkPastPresentationTimingEXT results[RESULTS_PER_CALL];
	VkPresentStageTimeEXT stages[RESULTS_PER_CALL][4];

	if (!t->active)
		return;
	if (!t->brain.refresh_known && !lowlat_timing_properties(sc) && t->unusable[0]) {
		lowlat_timing_give_up(sc, "%s", t->unusable);
		return;
	}
	if (lowlat_clock_due(&t->clocks, lowlat_now_ns()) && !lowlat_timing_calibrate(sc)) {
		lowlat_timing_give_up(sc, "its present-stage clocks could no longer be calibrated");
		return;
	}
	/* Drain: everything complete so far, so the driver's queue never fills with our results. A
	 * bounded number of rounds: the queue holds at most LOWLAT_PENDING_MAX. */
	for (uint32_t round = 0; round <= LOWLAT_PENDING_MAX / RESULTS_PER_CALL; round++) {
		VkPastPresentationTimingInfoEXT info = {
		        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_INFO_EXT,
		        .flags = VK_PAST_PRESENTATION_TIMING_ALLOW_PARTIAL_RESULTS_BIT_EXT,
		        .swapchain = sc->handle};
		VkPastPresentationTimingPropertiesEXT props = {
		        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_PROPERTIES_EXT,
		        .presentationTimingCount = RESULTS_PER_CALL,
		        .pPresentationTimings = results};
		VkResult r;

		for (uint32_t i = 0; i < RESULTS_PER_CALL; i++)
			results[i] = (VkPastPresentationTimingEXT){
			        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_EXT,
			        .presentStageCount = 4,
			        .pPresentStages = stages[i]};
		r = dev->vk.GetPastPresentationTimingEXT(dev->handle, &info, &props);
		if (r != VK_SUCCESS && r != VK_INCOMPLETE)
			break;
		/* Results come in present order, the incomplete ones too (they keep their slots and
		 * come again): k is the place among the pending presents of the next one. A complete
		 * one after an incomplete one (a driver that finished a present before an older one)
		 * is matched by that place all the same. */
		uint32_t k = 0;
		for (uint32_t i = 0; i < props.presentationTimingCount; i++) {
			if (results[i].reportComplete)
				take_result(sc, &results[i], k);
			else
				take_partial(sc, &results[i], k++);
		}
		lowlat_lock_take(&t->app_lock);
		t->reported_properties_counter = props.timingPropertiesCounter;
		t->reported_domains_counter = props.timeDomainsCounter;
		lowlat_lock_give(&t->app_lock);
		if (props.timingPropertiesCounter != t->properties_counter && !lowlat_timing_properties(sc) &&
		    t->unusable[0]) {
			lowlat_timing_give_up(sc, "%s", t->unusable);
			return;
		}
		/* New time domains: the one in use may be gone, or its clocks moved. */
		if (props.timeDomainsCounter != t->domains_counter) {
			t->domains_counter = props.timeDomainsCounter;
			if (!lowlat_timing_calibrate(sc)) {
				lowlat_timing_give_up(sc, "its time domain went away");
				return;
			}
		}
		if (!t->active)
			return;
		/* An incomplete one ends the news: those not fetched yet are younger, and the next
		 * round would begin with the same incomplete ones again. */
		if (r == VK_SUCCESS || k)
			break;
	}
	check_stalled(sc);
}

/* Polls every LOWLAT_SHOWN_POLL_FRACTION of a refresh, at least LOWLAT_SHOWN_POLL_MIN_NS
 * (brain/timing.h). */
bool lowlat_timing_wait_shown(struct lowlat_swapchain *sc, uint32_t unshown, int64_t deadline_ns)
{
	struct lowlat_swapchain_timing *t = &sc->timing;
	int64_t poll_ns;

	if (!t->active || !t->brain.refresh_known)
		return false;
	poll_ns = t->brain.refresh_ns / LOWLAT_SHOWN_POLL_FRACTION;
	if (poll_ns < LOWLAT_SHOWN_POLL_MIN_NS)
		poll_ns = LOWLAT_SHOWN_POLL_MIN_NS;
	for (;;) {
		int64_t now_ns;
		lowlat_timing_update(sc);
		if (t->pending_count <= unshown)
			return true;
		now_ns = lowlat_now_ns();
		if (now_ns >= deadline_ns)
			return false;
		struct timespec ts = {
		        .tv_nsec = (long)(deadline_ns - now_ns < poll_ns ? deadline_ns - now_ns : poll_ns)};
		nanosleep(&ts, NULL);
	}
}

void lowlat_timing_push(struct lowlat_frame *f, uint32_t queries)
{
	struct lowlat_swapchain *sc = f->sc;
	struct lowlat_swapchain_timing *t = &sc->timing;

	/* Full only if the app asked for stage times on more presents than it has room for, which the
	 * driver refuses (refuse_app_full covers a call of one swapchain). */
	if (t->pending_count == LOWLAT_PENDING_MAX) {
		lowlat_tb_presented(&t->brain, true, f->display_target_ns, NULL);
		return;
	}
	struct lowlat_pending_present *p =
	        &t->pending[(t->pending_first + t->pending_count) % LOWLAT_PENDING_MAX];
	bool hand_off = t->sample_start_ns != LOWLAT_LOG_UNKNOWN;
	VkPresentModeKHR mode = sc->current_mode;

	*p = (struct lowlat_pending_present){
	        .frame =
	                {
	                        .start_ns = hand_off ? t->sample_start_ns : sc->frame_start_ns,
	                        .blocked_ns = hand_off ? 0 : sc->acquire_blocked_ns,
	                        .present_ns = f->call->t.entry_ns,
	                        .target_ns = f->display_target_ns,
	                        .ask_ns = f->display_ask_ns,
	                        .vblank_latch = mode == VK_PRESENT_MODE_FIFO_KHR ||
	                                        mode == VK_PRESENT_MODE_FIFO_LATEST_READY_KHR,
	                        .relaxed = mode == VK_PRESENT_MODE_FIFO_RELAXED_KHR,
	                        .fifo = mode == VK_PRESENT_MODE_FIFO_KHR,
	                },
	        .log_frame = LOWLAT_LOG_UNKNOWN,
	        .current = true,
	        .app_queries = f->app_queries & queries,
	        .foreign = f->foreign,
	};
	lowlat_tb_presented(&t->brain, true, f->display_target_ns, &p->frame);
	t->pending_count++;
	t->pushed = true;
}

void lowlat_timing_logged(struct lowlat_swapchain *sc, int64_t row)
{
	struct lowlat_swapchain_timing *t = &sc->timing;
	struct lowlat_pending_present *latest =
	        t->pushed && !t->current_taken
	                ? &t->pending[(t->pending_first + t->pending_count - 1) % LOWLAT_PENDING_MAX]
	                : NULL;

	if (row != LOWLAT_LOG_UNKNOWN) {
		/* Its reports go into this row: now if they came inside this call, else when they come. */
		for (uint32_t s = 0; s < t->early_count; s++)
			lowlat_log_display_frame(sc->log, row, (enum lowlat_log_stage)t->early[s].stage,
			                         t->early[s].time_ns);
		if (latest)
			latest->log_frame = row;
	}
	if (latest)
		latest->current = false;
	t->pushed = t->current_taken = false;
	t->early_count = 0;
}

uint32_t lowlat_timing_app_outstanding(struct lowlat_swapchain_timing *t)
{
	uint32_t n = 0;

	lowlat_lock_take(&t->app_lock);
	n = t->app_count;
	lowlat_lock_give(&t->app_lock);
	for (uint32_t k = 0; k < t->pending_count; k++)
		n += pending_at(t, k)->app_queries != 0;
	return n;
}

/* The swapchain of a call of the app's present-timing functions, when lowlat reads its reports. */
static struct lowlat_swapchain *timed_swapchain(struct lowlat_device *dev, VkSwapchainKHR swapchain)
{
	struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, swapchain);

	return sc && sc->timing.active ? sc : NULL;
}

/* Hands out the app's reports (lowlat_GetPastPresentationTimingEXT), under app_lock. */
static VkResult app_reports(struct lowlat_swapchain_timing *t,
                            VkPastPresentationTimingPropertiesEXT *properties)
{
	properties->timingPropertiesCounter = t->reported_properties_counter;
	properties->timeDomainsCounter = t->reported_domains_counter;
	if (!properties->pPresentationTimings) {
		properties->presentationTimingCount = t->app_count;
		return VK_SUCCESS;
	}
	uint32_t n = properties->presentationTimingCount < t->app_count ? properties->presentationTimingCount
	                                                                : t->app_count;
	for (uint32_t i = 0; i < n; i++) {
		const struct lowlat_app_report *a =
		        &t->app_reports[(t->app_first + i) % LOWLAT_APP_QUEUE_MAX];
		VkPastPresentationTimingEXT *out = &properties->pPresentationTimings[i];
		uint32_t stages = 0;

		out->presentId = a->present_id;
		out->targetTime = a->target_time;
		out->timeDomain = (VkTimeDomainKHR)a->domain;
		out->timeDomainId = a->domain_id;
		out->reportComplete = VK_TRUE;
		for (uint32_t s = 0; s < a->count && stages < out->presentStageCount; s++) {
			if (out->pPresentStages)
				out->pPresentStages[stages] = (VkPresentStageTimeEXT){
				        .stage = a->stage[s].stage, .time = a->stage[s].time};
			stages++;
		}
		out->presentStageCount = stages;
	}
	properties->presentationTimingCount = n;
	t->app_first = (t->app_first + n) % LOWLAT_APP_QUEUE_MAX;
	t->app_count -= n;
	return t->app_count ? VK_INCOMPLETE : VK_SUCCESS;
}

/* The app's reports, from those lowlat kept: complete ones only, in present order, each taken once,
 * as the driver's own would be. The app's VkPastPresentationTimingPropertiesEXT carries the
 * driver's latest counters. lowlat drains the driver's queue on the present path (at every present
 * and in its waits), not here: vkd3d-proton calls this from its swapchain-sync thread while its
 * queue thread presents, and a drain here would run lowlat's reports into its plan from two threads
 * at once, and call vkGetSwapchainTimingPropertiesEXT, whose swapchain the app must synchronise,
 * beside the app's present. */
VKAPI_ATTR VkResult VKAPI_CALL
lowlat_GetPastPresentationTimingEXT(VkDevice device, const VkPastPresentationTimingInfoEXT *info,
                                    VkPastPresentationTimingPropertiesEXT *properties)
{
	struct lowlat_device *dev = lowlat_device_of(device);
	struct lowlat_swapchain *sc;

	if (!dev || !dev->vk.GetPastPresentationTimingEXT) {
		LOWLAT_WARN_ONCE("vkGetPastPresentationTimingEXT called on a device without it; returning "
		                 "VK_ERROR_DEVICE_LOST");
		return VK_ERROR_DEVICE_LOST;
	}
	if (!info || !properties || !(sc = lowlat_swapchain_of(dev, info->swapchain)) ||
	    !sc->timing.app_lock.ready)
		return dev->vk.GetPastPresentationTimingEXT(device, info, properties);
	struct lowlat_swapchain_timing *t = &sc->timing;
	pthread_mutex_lock(&t->app_lock.mutex);
	if (!t->active) {
		pthread_mutex_unlock(&t->app_lock.mutex);
		return dev->vk.GetPastPresentationTimingEXT(device, info, properties);
	}
	VkResult result = app_reports(t, properties);
	pthread_mutex_unlock(&t->app_lock.mutex);
	return result;
}

/* The driver's queue holds lowlat's reports and the app's: never smaller than lowlat needs. The
 * app's own size bounds nothing else (lowlat keeps its reports as its queue would). */
VKAPI_ATTR VkResult VKAPI_CALL lowlat_SetSwapchainPresentTimingQueueSizeEXT(VkDevice device,
                                                                            VkSwapchainKHR swapchain,
                                                                            uint32_t size)
{
	struct lowlat_device *dev = lowlat_device_of(device);

	if (!dev || !dev->vk.SetSwapchainPresentTimingQueueSizeEXT) {
		LOWLAT_WARN_ONCE("vkSetSwapchainPresentTimingQueueSizeEXT called on a device without it; "
		                 "returning VK_ERROR_DEVICE_LOST");
		return VK_ERROR_DEVICE_LOST;
	}
	struct lowlat_swapchain *sc = timed_swapchain(dev, swapchain);
	if (!sc)
		return dev->vk.SetSwapchainPresentTimingQueueSizeEXT(device, swapchain, size);
	/* The driver's queue holds lowlat's results and the app's: the app's part is its size. */
	struct lowlat_swapchain_timing *t = &sc->timing;
	if (size > LOWLAT_APP_QUEUE_MAX) {
		LOWLAT_WARN_ONCE("the app asks for a present-timing results queue of %u; lowlat keeps "
		                 "%u of the app's results at a time",
		                 size, LOWLAT_APP_QUEUE_MAX);
		size = LOWLAT_APP_QUEUE_MAX;
	}
	if (size < lowlat_timing_app_outstanding(t))
		return VK_NOT_READY; /* as the spec has it: the queue stays as it was */
	VkResult result = dev->vk.SetSwapchainPresentTimingQueueSizeEXT(device, swapchain,
	                                                                LOWLAT_TIMING_QUEUE_SIZE + size);
	if (result == VK_SUCCESS)
		t->app_queue_size = size;
	return result;
}

#endif
