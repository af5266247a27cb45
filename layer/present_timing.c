/* present_timing.c — VK_EXT_present_timing behind the app's back; see present_timing.h.
 *
 * Owns: which instance and device extensions lowlat adds (always to copies of the app's create
 * infos; the app's structs and pNext chains are never written), the present-timing flag on a copy
 * of the swapchain create info, the swapchain's timing setup, and reading the display's feedback.
 * The pacing decisions made from that feedback are in pace_display.c and present.c.
 *
 * On this level lowlat attaches no present ids of its own (the "present-wait" level does, on
 * swapchains without present timing: present_ids.h): the results of a swapchain's presents come back in
 * present order (we never ask for VK_PAST_PRESENTATION_TIMING_ALLOW_OUT_OF_ORDER_RESULTS_BIT_EXT),
 * so they are matched to our pending presents by order, and ids the app attaches itself
 * (VK_KHR_present_id, present_id2) reach the driver untouched.
 */
#include "present_timing.h"

#ifdef VK_EXT_present_timing

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chain.h"
#include "clock.h"
#include "live.h"
#include "log.h"
#include "message.h"
#include "present_call.h"
#include "swapchain.h"

/* Which of the extensions present timing needs the device offers. */
static const char *device_support(struct lowlat_instance *inst, VkPhysicalDevice physical)
{
	static const char *const needed[] = {
	        VK_EXT_PRESENT_TIMING_EXTENSION_NAME,
	        VK_KHR_PRESENT_ID_2_EXTENSION_NAME,
	        VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME,
	};
	static const char *const missing[] = {
	        "the device lacks VK_EXT_present_timing",
	        "the device lacks VK_KHR_present_id2",
	        "the device lacks VK_KHR_calibrated_timestamps",
	};
	uint32_t count;
	VkExtensionProperties *props = lowlat_device_extensions(inst, physical, &count);
	const char *reason = NULL;

	if (!props)
		return "the device's extensions could not be listed";
	for (uint32_t n = 0; n < sizeof(needed) / sizeof(needed[0]) && !reason; n++)
		if (!lowlat_extensions_have(props, count, needed[n]))
			reason = missing[n];
	free(props);
	return reason;
}

void lowlat_timing_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                struct lowlat_device_info *d, struct lowlat_device_setup *s)
{
	*s = (struct lowlat_device_setup){0};
	if (lowlat_device_info_has(d, VK_EXT_PRESENT_TIMING_EXTENSION_NAME)) {
		s->app_timing = true;
		s->reason = "the app drives VK_EXT_present_timing itself";
		return;
	}
	if (!lowlat_device_info_has(d, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) {
		s->reason = "no VK_KHR_swapchain";
		return;
	}
	if (!inst->surface_caps2 || !inst->features2) {
		s->reason = "the instance lacks VK_KHR_get_surface_capabilities2 or "
		            "VK_KHR_get_physical_device_properties2";
		return;
	}
	if ((s->reason = device_support(inst, physical)))
		return;
	VkPhysicalDevicePresentTimingFeaturesEXT supported = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT};
	lowlat_device_features(inst, physical, &supported);
	if (!supported.presentTiming || !supported.presentAtAbsoluteTime) {
		s->reason = "the device does not support present timing with absolute target times";
		return;
	}
	/* Into our own struct, or ORed into a copy of one the app chains (create_info.h). */
	const VkPhysicalDevicePresentTimingFeaturesEXT features = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT,
	        .presentTiming = VK_TRUE,
	        .presentAtAbsoluteTime = VK_TRUE,
	};
	if ((s->reason = lowlat_device_info_enable(d, &features, sizeof(features))))
		return;
	if (!lowlat_device_info_add(d, VK_EXT_PRESENT_TIMING_EXTENSION_NAME) ||
	    !lowlat_device_info_add(d, VK_KHR_PRESENT_ID_2_EXTENSION_NAME) ||
	    !lowlat_device_info_add(d, VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME)) {
		s->reason = "out of memory";
		return;
	}
	s->enable = true;
}

/* The stages lowlat asks for: when the GPU work was done (the ready time it predicts) and when the
 * image went out (the grid's phase, and the log's latency). The other two go to the log. */
#define WANTED_STAGES                                                                                        \
	(VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT | VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT |         \
	 VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT |                                                    \
	 VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT)
#define NEEDED_STAGES                                                                                        \
	(VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT | VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT)

void lowlat_timing_swapchain_setup(struct lowlat_device *dev, const VkSwapchainCreateInfoKHR *app,
                                   struct lowlat_swapchain_setup *s)
{
	struct lowlat_instance *inst = dev->instance;

	*s = (struct lowlat_swapchain_setup){.info = *app, .reason = dev->timing_reason};
	if (!dev->timing)
		return;
	VkPresentTimingSurfaceCapabilitiesEXT timing = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_TIMING_SURFACE_CAPABILITIES_EXT};
	VkSurfaceCapabilities2KHR caps = {.sType = VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_2_KHR,
	                                  .pNext = &timing};
	VkPhysicalDeviceSurfaceInfo2KHR surface = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SURFACE_INFO_2_KHR, .surface = app->surface};
	if (!inst->vk.GetPhysicalDeviceSurfaceCapabilities2KHR ||
	    inst->vk.GetPhysicalDeviceSurfaceCapabilities2KHR(dev->physical, &surface, &caps) != VK_SUCCESS) {
		s->reason = "the surface's present-timing capabilities could not be read";
		return;
	}
	if (!timing.presentTimingSupported || !timing.presentAtAbsoluteTimeSupported) {
		s->reason = "the surface does not support present timing with absolute target times";
		return;
	}
	if ((timing.presentStageQueries & NEEDED_STAGES) != NEEDED_STAGES) {
		s->reason = "the surface reports neither when a frame is ready nor when it is shown";
		return;
	}
	s->stage_queries = timing.presentStageQueries & WANTED_STAGES;
	s->info.flags |= VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT;
	s->timing = true;
	s->reason = NULL;
}

/* Reads the refresh duration; false while the driver cannot tell yet (VK_NOT_READY). */
static bool read_properties(struct lowlat_swapchain *sc)
{
	struct lowlat_device *dev = sc->device;
	VkSwapchainTimingPropertiesEXT props = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_TIMING_PROPERTIES_EXT};
	uint64_t counter = 0;

	if (dev->vk.GetSwapchainTimingPropertiesEXT(dev->handle, sc->handle, &props, &counter) !=
	            VK_SUCCESS ||
	    !props.refreshDuration || props.refreshDuration > (uint64_t)LOWLAT_MAX_WAIT_NS)
		return false;
	sc->timing.refresh_ns = (int64_t)props.refreshDuration;
	/* refreshInterval UINT64_MAX: variable refresh; refreshDuration is then the shortest one. */
	sc->timing.vrr = props.refreshInterval == UINT64_MAX;
	sc->timing.properties_counter = counter;
	sc->timing.refresh_known = true;
	/* A new rate invalidates the phase and the planned target. */
	sc->timing.have_vblank = sc->timing.have_target = false;
	return true;
}

/* LOWLAT_BENCH_LEAD_MARGIN_US (objects.h, margin_ns): -1 when unset or not a number of us. */
static int64_t bench_margin_ns(void)
{
	const char *text = getenv("LOWLAT_BENCH_LEAD_MARGIN_US");
	char *end;
	long us;

	if (!text || !*text)
		return -1;
	us = strtol(text, &end, 10);
	if (*end || us < 0 || us > 100000) {
		LOWLAT_WARN_ONCE(
		        "LOWLAT_BENCH_LEAD_MARGIN_US=%s is not 0 to 100000 (us); using the default margin",
		        text);
		return -1;
	}
	return us * 1000ll;
}

const char *lowlat_timing_swapchain_init(struct lowlat_swapchain *sc, uint32_t stage_queries)
{
	struct lowlat_device *dev = sc->device;
	struct lowlat_swapchain_timing *t = &sc->timing;
	VkTimeDomainKHR domains[16];
	uint64_t ids[16];
	VkSwapchainTimeDomainPropertiesEXT props = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_TIME_DOMAIN_PROPERTIES_EXT,
	        .timeDomainCount = 16,
	        .pTimeDomains = domains,
	        .pTimeDomainIds = ids};
	const struct device_dispatch *vk = &dev->vk;
	bool found = false;
	VkResult r;

	if (!vk->SetSwapchainPresentTimingQueueSizeEXT || !vk->GetSwapchainTimingPropertiesEXT ||
	    !vk->GetSwapchainTimeDomainPropertiesEXT || !vk->GetPastPresentationTimingEXT)
		return "the driver lacks present-timing functions";
	if (vk->SetSwapchainPresentTimingQueueSizeEXT(dev->handle, sc->handle, LOWLAT_TIMING_QUEUE_SIZE) !=
	    VK_SUCCESS)
		return "the present-timing results queue could not be sized";
	/* VK_INCOMPLETE with more than 16 domains still lists the first 16. */
	r = vk->GetSwapchainTimeDomainPropertiesEXT(dev->handle, sc->handle, &props, NULL);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return "the swapchain's time domains could not be read";
	/* lowlat's time is CLOCK_MONOTONIC; another domain would need calibration (not done yet). */
	for (uint32_t i = 0; i < props.timeDomainCount && !found; i++) {
		if (domains[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR) {
			t->domain_id = ids[i];
			found = true;
		}
	}
	if (!found)
		return "the swapchain offers no CLOCK_MONOTONIC time domain";
	t->stage_queries = stage_queries;
	t->target_stage = VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT;
	t->active = true;
	t->prev_target_ns = t->sample_start_ns = LOWLAT_LOG_UNKNOWN;
	t->margin_ns = bench_margin_ns();
	read_properties(sc); /* may have to wait for the first present */
	return NULL;
}

/* The k-th oldest pending present (k < pending_count). */
static struct lowlat_pending_present *pending_at(struct lowlat_swapchain_timing *t, uint32_t k)
{
	return &t->pending[(t->pending_first + k) % LOWLAT_TIMING_QUEUE_SIZE];
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
	t->pending_first = (t->pending_first + 1) % LOWLAT_TIMING_QUEUE_SIZE;
	t->pending_count--;
	return true;
}

/* How much later than its ready time a FIFO_RELAXED image must go out to count as having waited
 * for a refresh: a torn present goes out as soon as it is ready (the virtual display: at exactly
 * that time; real hardware: within the scan-out's own latency, tens of us). */
#define LOWLAT_TEAR_SLACK_NS 100000ll /* 100 us */

/* A stage's time as lowlat's signed nanoseconds; 0 (the stage did not happen) for one out of range. */
static int64_t stage_time_ns(const VkPresentStageTimeEXT *st)
{
	return st->time > (uint64_t)INT64_MAX ? 0 : (int64_t)st->time;
}

static void take_result(struct lowlat_swapchain *sc, const VkPastPresentationTimingEXT *result, uint32_t k)
{
	struct lowlat_swapchain_timing *t = &sc->timing;
	struct lowlat_pending_present taken, *p = &taken;
	int64_t ready_ns = 0, out_ns = 0;

	if (!pending_take(t, k, &taken))
		return;
	for (uint32_t s = 0; s < result->presentStageCount; s++) {
		const VkPresentStageTimeEXT *st = &result->pPresentStages[s];
		int64_t time_ns = stage_time_ns(st);
		enum lowlat_log_stage stage;

		/* 0: the stage did not happen (a dropped request never reaches the screen). */
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
			out_ns = time_ns;
			break;
		case VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT:
			stage = LOWLAT_LOG_STAGE_PIXEL_VISIBLE;
			break;
		default: continue;
		}
		if (p->current && t->early_count < sizeof(t->early) / sizeof(t->early[0])) {
			t->early[t->early_count].stage = stage;
			t->early[t->early_count++].time_ns = time_ns;
		} else {
			lowlat_log_display_frame(sc->log, p->log_frame, stage, time_ns);
		}
	}
	t->current_taken = t->current_taken || p->current;
	/* The sample: from the frame's start (the app released) to its GPU work done, less the time
	 * the app waited for the display to hand it an image. That wait is what a release too early
	 * costs (frames queued ahead hold the images), not work; counting it would make the next
	 * release earlier still, until every image is queued and each frame waits a whole queue. */
	if (ready_ns && p->frame_start_ns != LOWLAT_LOG_UNKNOWN &&
	    ready_ns - p->blocked_ns > p->frame_start_ns)
		lowlat_ready_note(&t->ready, ready_ns - p->blocked_ns - p->frame_start_ns);
	/* What `lowlat status` shows as latency: the frame's start to its first pixel. */
	if (out_ns && p->frame_start_ns != LOWLAT_LOG_UNKNOWN && out_ns > p->frame_start_ns)
		lowlat_live_latency(sc->cap.live, out_ns - p->frame_start_ns);
	/* A frame that went out a refresh or more after its target while the refresh it was meant for
	 * showed the frame before it waited behind that frame in the FIFO queue (a start-up burst, or
	 * one late frame: everything after it then queues a refresh behind). Every later frame waits as
	 * long, so its latency is that many refreshes too high, for good: present.c drains the queue by
	 * holding the next release back once. A frame that was simply not ready in time finds the
	 * refresh before its target's showing an older frame, and is no queue. Until the presents made
	 * before a drain have reported, their lateness says nothing new. */
	if (p->target_ns != LOWLAT_LOG_UNKNOWN && out_ns && t->prev_out_ns && p->vblank_latch &&
	    p->seq > t->drain_seq && t->refresh_known) {
		int64_t half = t->refresh_ns / 2, late = out_ns - p->target_ns;
		int64_t backlog = (late + half) / t->refresh_ns;
		if (late > half && t->prev_out_ns >= p->target_ns - half && backlog > t->backlog_refreshes)
			t->backlog_refreshes = backlog;
	}
	/* On a fixed-rate display: did it make the refresh it was planned for? Not shown at all (a
	 * later frame replaced it) is a miss too. A frame late behind a queue is the queue's fault,
	 * drained above, not the margin's. */
	if (p->judged && t->refresh_known) {
		int64_t half = t->refresh_ns / 2;
		bool queued = out_ns && t->prev_out_ns >= p->target_ns - half;
		if (!out_ns || out_ns <= p->target_ns + half || !queued)
			lowlat_miss_note(&t->miss_margin, !out_ns || out_ns > p->target_ns + half,
			                 t->target_n);
		if (out_ns > p->target_ns + half && !queued) {
			t->late_seq = p->seq;
			t->late_out_ns = out_ns;
		}
	}
	if (out_ns)
		t->prev_out_ns = out_ns;
	/* A FIFO latch starts a refresh: the grid's phase. So does a FIFO_RELAXED one that was ready
	 * before it went out (it waited for the refresh); one that went out as it became ready was
	 * late and tore mid-refresh. An app presenting only in FIFO_RELAXED (DXVK with a sync
	 * interval and tearing allowed) thus gets the display grid too. */
	bool waited = p->relaxed && ready_ns && out_ns > ready_ns + LOWLAT_TEAR_SLACK_NS;
	/* Until one did, any FIFO_RELAXED image gives a first guess: at a cap at the refresh rate the
	 * CPU pacer's frames may arrive at the same phase each time and all tear, and only a target
	 * (with PRESENT_AT_NEAREST_REFRESH_CYCLE) makes them wait for a refresh; the first that does
	 * replaces the guess. */
	bool guess = p->relaxed && !t->have_vblank;
	if (out_ns && (p->vblank_latch || waited || guess) && (!t->have_vblank || out_ns > t->vblank_ns)) {
		t->vblank_ns = out_ns;
		t->have_vblank = true;
	}
}

/* A report still incomplete (asked for with VK_PAST_PRESENTATION_TIMING_ALLOW_PARTIAL_RESULTS_BIT_EXT)
 * of the k-th oldest pending present, whose GPU work may have ended already. On a fixed-rate
 * display a FIFO frame whose work ended after the refresh it targets has missed that refresh; it
 * goes out at the first one after, unless a later frame planned for that same refresh replaces it
 * (FIFO_LATEST_READY). Known here, refreshes before that frame is shown, the next frame's plan can
 * move on a refresh with it (present.c, cadence_target) and the late frame is shown rather than
 * dropped. Only the report says so: a present not yet reported ready is not taken for a late one,
 * as a driver may report late or not at all. */
static void take_partial(struct lowlat_swapchain *sc, const VkPastPresentationTimingEXT *result, uint32_t k)
{
	struct lowlat_swapchain_timing *t = &sc->timing;
	const struct lowlat_pending_present *p;
	int64_t ready_ns = 0;

	if (k >= t->pending_count || !t->refresh_known || t->vrr || !t->have_vblank)
		return;
	p = pending_at(t, k);
	if (p->target_ns == LOWLAT_LOG_UNKNOWN || !p->vblank_latch || p->seq == t->late_seq)
		return;
	for (uint32_t s = 0; s < result->presentStageCount; s++)
		if (result->pPresentStages[s].stage == VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT)
			ready_ns = stage_time_ns(&result->pPresentStages[s]);
	/* The target is a refresh start give or take the rounding of the refresh duration. */
	if (!ready_ns || ready_ns <= lowlat_refresh_nearest(p->target_ns, t->vblank_ns, t->refresh_ns))
		return;
	t->late_seq = p->seq;
	t->late_out_ns = lowlat_refresh_at_or_after(ready_ns, t->vblank_ns, t->refresh_ns);
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
	if (!t->refresh_known)
		read_properties(sc);
	/* Drain: everything complete so far, so the driver's queue never fills with our results. A
	 * bounded number of rounds: the queue holds at most LOWLAT_TIMING_QUEUE_SIZE. */
	for (uint32_t round = 0; round <= LOWLAT_TIMING_QUEUE_SIZE / RESULTS_PER_CALL; round++) {
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
			return;
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
		if (props.timingPropertiesCounter != t->properties_counter)
			read_properties(sc);
		/* An incomplete one ends the news: those not fetched yet are younger, and the next
		 * round would begin with the same incomplete ones again. */
		if (r == VK_SUCCESS || k)
			return;
	}
}

/* How often the latency-frames cap looks for the display's report: a 32nd of a refresh (0.26 ms
 * at 120 Hz, 58 us at 540 Hz), so the release comes at most that late after the first pixel, and
 * the waiting thread wakes at most 32 times a refresh. Never below 50 us: a sleep's own wake-up
 * error (~100 us at p50 on the test VMs) makes a shorter poll only burn CPU. */
#define SHOWN_POLL_FRACTION 32
#define SHOWN_POLL_MIN_NS   50000ll /* 50 us */

bool lowlat_timing_wait_shown(struct lowlat_swapchain *sc, uint32_t unshown, int64_t deadline_ns)
{
	struct lowlat_swapchain_timing *t = &sc->timing;
	int64_t poll_ns;

	if (!t->active || !t->refresh_known)
		return false;
	poll_ns = t->refresh_ns / SHOWN_POLL_FRACTION;
	if (poll_ns < SHOWN_POLL_MIN_NS)
		poll_ns = SHOWN_POLL_MIN_NS;
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

/* The app chains VkPresentTimingsInfoEXT (call->app_timings), and with a target time (app_targets):
 * it places its frames itself. */
void lowlat_timing_app_chain(struct lowlat_present_call *call)
{
	const VkPresentTimingsInfoEXT *timings =
	        lowlat_chain_find(call->app->pNext, VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT);

	call->app_timings = timings != NULL;
	for (uint32_t i = 0; timings && timings->pTimingInfos && i < timings->swapchainCount; i++)
		if (timings->pTimingInfos[i].targetTime)
			call->app_targets = true;
}

/* A copy of the present info with lowlat's VkPresentTimingsInfoEXT in front of its chain. */
struct timed_present {
	VkPresentInfoKHR info;
	VkPresentTimingsInfoEXT timings;
	VkPresentTimingInfoEXT timing[LOWLAT_CALL_SWAPCHAINS_MAX];
	VkResult results[LOWLAT_CALL_SWAPCHAINS_MAX];
};

/* Reads every swapchain's reports and, when the whole call can carry timing info (every swapchain
 * has the flag, the app chains none of its own), fills tp with this present's targets. */
static bool prepare(struct lowlat_present_call *call, int64_t now_ns, struct timed_present *tp)
{
	bool timed = !call->app_timings;

	for (uint32_t i = 0; i < call->count; i++) {
		struct lowlat_swapchain *sc = call->frames[i].sc;
		if (!sc || !sc->timing.active) {
			timed = false;
			continue;
		}
		sc->timing.sample_start_ns = LOWLAT_LOG_UNKNOWN;
		sc->timing.pushed = sc->timing.judge_miss = false;
		lowlat_timing_update(sc);
	}
	if (!timed)
		return false;
	*tp = (struct timed_present){.info = *call->down};
	tp->timings = (VkPresentTimingsInfoEXT){.sType = VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT,
	                                        .pNext = call->down->pNext,
	                                        .swapchainCount = call->count,
	                                        .pTimingInfos = tp->timing};
	tp->info.pNext = &tp->timings;
	tp->info.pResults = tp->results;
	for (uint32_t i = 0; i < call->count; i++) {
		struct lowlat_frame *f = &call->frames[i];
		struct lowlat_swapchain_timing *t = &f->sc->timing;
		VkPresentTimingInfoEXT *ti = &tp->timing[i];

		*ti = (VkPresentTimingInfoEXT){.sType = VK_STRUCTURE_TYPE_PRESENT_TIMING_INFO_EXT,
		                               .timeDomainId = t->domain_id,
		                               .targetTimeDomainPresentStage = t->target_stage};
		/* Stage times for every present while our list of pending ones has room: it mirrors the
		 * driver's results queue, which is as large, so that queue never fills. */
		if (t->pending_count < LOWLAT_TIMING_QUEUE_SIZE)
			ti->presentStageQueries = t->stage_queries;
		f->display_target_ns = lowlat_timing_target(f, now_ns);
		if (f->display_target_ns != LOWLAT_LOG_UNKNOWN) {
			ti->targetTime = (uint64_t)f->display_target_ns;
			/* On a fixed grid the target is a refresh start computed from a rounded refresh
			 * duration: nearest, so a few ns either side still mean that refresh. */
			if (!t->vrr)
				ti->flags = VK_PRESENT_TIMING_INFO_PRESENT_AT_NEAREST_REFRESH_CYCLE_BIT_EXT;
		}
		/* The early method's lead covers hand-off to ready: its samples start here. */
		if (call->early)
			t->sample_start_ns = now_ns;
	}
	return true;
}

/* Its results will come back in present order: what they will be matched with. */
static void push_pending(struct lowlat_frame *f)
{
	struct lowlat_swapchain *sc = f->sc;
	struct lowlat_swapchain_timing *t = &sc->timing;
	struct lowlat_pending_present *p =
	        &t->pending[(t->pending_first + t->pending_count) % LOWLAT_TIMING_QUEUE_SIZE];

	*p = (struct lowlat_pending_present){
	        .log_frame = LOWLAT_LOG_UNKNOWN,
	        .frame_start_ns =
	                t->sample_start_ns != LOWLAT_LOG_UNKNOWN ? t->sample_start_ns : sc->frame_start_ns,
	        .blocked_ns = t->sample_start_ns != LOWLAT_LOG_UNKNOWN ? 0 : sc->acquire_blocked_ns,
	        .vblank_latch = sc->current_mode == VK_PRESENT_MODE_FIFO_KHR ||
	                        sc->current_mode == VK_PRESENT_MODE_FIFO_LATEST_READY_KHR,
	        .relaxed = sc->current_mode == VK_PRESENT_MODE_FIFO_RELAXED_KHR,
	        .target_ns = f->display_target_ns,
	        .judged = t->judge_miss && f->display_target_ns != LOWLAT_LOG_UNKNOWN,
	        .seq = ++t->pushed_seq,
	        .current = true,
	};
	t->pending_count++;
	t->pushed = true;
}

/* A swapchain whose results queue was full is refused with VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT,
 * an error the app (which never asked for timing) cannot expect: present again without stage
 * queries. The refused present's semaphore waits did execute (the spec counts its queue operations
 * as enqueued), so the retry waits on nothing. Only when every swapchain of the call was refused:
 * the app's per-swapchain pNext arrays cannot be split. */
bool lowlat_timing_present(struct lowlat_present_call *call, int64_t now_ns)
{
	struct lowlat_device *dev = call->dev;
	struct timed_present tp;
	bool all_full = true;

	if (!(call->timed = prepare(call, now_ns, &tp)))
		return false;
	call->result = dev->vk.QueuePresentKHR(call->queue, &tp.info);
	for (uint32_t i = 0; i < call->count; i++)
		all_full = all_full && tp.results[i] == VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT;
	if (all_full) {
		LOWLAT_DEBUG("present-timing results queue full; presenting again without stage queries");
		for (uint32_t i = 0; i < call->count; i++)
			tp.timing[i].presentStageQueries = 0;
		tp.info.waitSemaphoreCount = 0;
		tp.info.pWaitSemaphores = NULL;
		call->result = dev->vk.QueuePresentKHR(call->queue, &tp.info);
	}
	for (uint32_t i = 0; i < call->count; i++) {
		struct lowlat_frame *f = &call->frames[i];
		struct lowlat_swapchain_timing *t = &f->sc->timing;

		if (call->app->pResults)
			call->app->pResults[i] = tp.results[i];
		if (tp.results[i] < 0) {
			f->display_target_ns = t->prev_target_ns = LOWLAT_LOG_UNKNOWN;
			continue;
		}
		if (f->display_target_ns != LOWLAT_LOG_UNKNOWN)
			f->sc->timed_presents++;
		t->prev_target_ns = f->display_target_ns;
		if (tp.timing[i].presentStageQueries)
			push_pending(f);
	}
	return true;
}

void lowlat_timing_logged(struct lowlat_swapchain *sc, int64_t row)
{
	struct lowlat_swapchain_timing *t = &sc->timing;
	struct lowlat_pending_present *latest =
	        t->pushed && !t->current_taken
	                ? &t->pending[(t->pending_first + t->pending_count - 1) % LOWLAT_TIMING_QUEUE_SIZE]
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

#endif
