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

#include "objects.h"

void lowlat_timing_device_created(struct lowlat_device *dev, const struct lowlat_device_setup *s)
{
	dev->timing = s->enable;
	dev->app_timing = s->app_timing;
	dev->timing_absolute = s->absolute;
	dev->timing_relative = s->relative;
	dev->timing_calibrate_khr = s->calibrate_khr;
	dev->timing_reason = s->reason;
}

#ifdef VK_EXT_present_timing

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chain.h"
#include "clock.h"
#include "level.h"
#include "live.h"
#include "log.h"
#include "message.h"
#include "present_call.h"
#include "swapchain.h"

/* Whether the device offers what present timing needs; NULL, or why not. The spec makes
 * VK_EXT_present_timing depend on VK_KHR_calibrated_timestamps, but a layered implementation over
 * a driver with only the older VK_EXT_calibrated_timestamps (Arm's WSI layer over lavapipe) offers
 * that instead: the same command, taken as it is (*calibrate_ext). */
static const char *device_support(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                  const char **calibrate_ext, bool *khr)
{
	uint32_t count;
	VkExtensionProperties *props = lowlat_device_extensions(inst, physical, &count);
	const char *reason = NULL;

	if (!props)
		return "the device's extensions could not be listed";
	if (!lowlat_extensions_have(props, count, VK_EXT_PRESENT_TIMING_EXTENSION_NAME))
		reason = "the device lacks VK_EXT_present_timing";
	else if (!lowlat_extensions_have(props, count, VK_KHR_PRESENT_ID_2_EXTENSION_NAME))
		reason = "the device lacks VK_KHR_present_id2";
	else if ((*khr = lowlat_extensions_have(props, count, VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME)))
		*calibrate_ext = VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
	else if (lowlat_extensions_have(props, count, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME))
		*calibrate_ext = VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
	else
		reason = "the device lacks VK_KHR_calibrated_timestamps";
	free(props);
	return reason;
}

/* The calibrated-timestamps extension an app that enables present timing itself enabled with it;
 * NULL when none (lowlat then cannot convert the display's times and leaves the app alone). */
static const char *app_calibrate_ext(const struct lowlat_device_info *d, bool *khr)
{
	if ((*khr = lowlat_device_info_has(d, VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME)))
		return VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
	if (lowlat_device_info_has(d, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME))
		return VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
	return NULL;
}

void lowlat_timing_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                struct lowlat_device_info *d, struct lowlat_device_setup *s)
{
	*s = (struct lowlat_device_setup){0};
	/* An app that enables the extension itself (vkd3d-proton does wherever it is offered) keeps
	 * its own targets; its other presents are lowlat's to pace (present_timing.h). */
	s->app_timing = lowlat_device_info_has(d, VK_EXT_PRESENT_TIMING_EXTENSION_NAME);
	if (!lowlat_device_info_has(d, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) {
		s->reason = "no VK_KHR_swapchain";
		return;
	}
	if (!inst->surface_caps2 || !inst->features2) {
		s->reason = "the instance lacks VK_KHR_get_surface_capabilities2 or "
		            "VK_KHR_get_physical_device_properties2";
		return;
	}
	const char *calibrate_ext = NULL;
	bool khr = false;
	if (s->app_timing && !(calibrate_ext = app_calibrate_ext(d, &khr))) {
		s->reason = "the app enabled VK_EXT_present_timing without VK_KHR_calibrated_timestamps";
		return;
	}
	if (!s->app_timing && (s->reason = device_support(inst, physical, &calibrate_ext, &khr)))
		return;
	VkPhysicalDevicePresentTimingFeaturesEXT supported = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT};
	lowlat_device_features(inst, physical, &supported);
	if (!supported.presentTiming) {
		s->reason = "the device does not support the presentTiming feature";
		return;
	}
	/* Every feature the device has: absolute targets where it takes them, else relative ones, else
	 * none (the level then paces on the display's reports alone). Into our own struct, or ORed into
	 * a copy of the one the app chains (create_info.h). */
	const VkPhysicalDevicePresentTimingFeaturesEXT features = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT,
	        .presentTiming = VK_TRUE,
	        .presentAtAbsoluteTime = supported.presentAtAbsoluteTime,
	        .presentAtRelativeTime = supported.presentAtRelativeTime,
	};
	if ((s->reason = lowlat_device_info_enable(d, &features, sizeof(features))))
		return;
	if (!s->app_timing && (!lowlat_device_info_add(d, VK_EXT_PRESENT_TIMING_EXTENSION_NAME) ||
	                       !lowlat_device_info_add(d, VK_KHR_PRESENT_ID_2_EXTENSION_NAME) ||
	                       !lowlat_device_info_add(d, calibrate_ext))) {
		s->reason = "out of memory";
		return;
	}
	s->absolute = supported.presentAtAbsoluteTime;
	s->relative = supported.presentAtRelativeTime;
	s->calibrate_khr = khr;
	s->enable = true;
}

/* The stages lowlat asks for, all the surface reports: one that says when the GPU work was done
 * (the ready time it predicts), one that says when the image went out or was taken for the screen
 * (the grid's phase, the frame's latency), and the rest for the log. */
#define WANTED_STAGES                                                                                        \
	(VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT | VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT |         \
	 VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT |                                                    \
	 VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT)

/* The stage that gives the grid's phase, the best the surface reports: the first pixel out (a
 * refresh start), else the first pixel visible (that plus the panel's latency), else the request
 * dequeued (XWayland's only one: the compositor took the image for the next refresh). 0: none. */
static uint32_t phase_stage(uint32_t stages)
{
	static const uint32_t order[] = {VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT,
	                                 VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT,
	                                 VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT};

	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (stages & order[i])
			return order[i];
	return 0;
}

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
	if (!timing.presentTimingSupported) {
		s->reason = "the surface does not support present timing";
		return;
	}
	if (!(timing.presentStageQueries & VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT) ||
	    !phase_stage(timing.presentStageQueries)) {
		s->reason = "the surface reports neither when a frame is ready nor when it is shown";
		return;
	}
	s->stage_queries = timing.presentStageQueries & WANTED_STAGES;
	s->absolute = dev->timing_absolute && timing.presentAtAbsoluteTimeSupported;
	s->relative = dev->timing_relative && timing.presentAtRelativeTimeSupported;
	s->info.flags |= VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT;
	s->timing = true;
	s->reason = NULL;
}

/* A refresh shorter than this is no refresh cycle (Arm's WSI layer on a headless surface reports
 * 1 ns): pacing on it would release every frame at once. The fastest displays sold refresh at
 * 540 Hz, 1.85 ms. */
#define REFRESH_MIN_NS 500000ll /* 500 us */

bool lowlat_timing_properties(struct lowlat_swapchain *sc)
{
	struct lowlat_device *dev = sc->device;
	struct lowlat_swapchain_timing *t = &sc->timing;
	VkSwapchainTimingPropertiesEXT props = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_TIMING_PROPERTIES_EXT};
	uint64_t counter = 0;

	/* VK_NOT_READY, or VK_SUCCESS with a duration of 0 (Mesa on Wayland), until the driver knows. */
	if (dev->vk.GetSwapchainTimingPropertiesEXT(dev->handle, sc->handle, &props, &counter) !=
	            VK_SUCCESS ||
	    !props.refreshDuration || props.refreshDuration > (uint64_t)LOWLAT_MAX_WAIT_NS)
		return false;
	int64_t refresh = (int64_t)props.refreshDuration;
	/* refreshInterval UINT64_MAX: variable refresh, refreshDuration the shortest; 0 (Mesa's X11 and
	 * Wayland): not known whether it varies, taken as the fixed rate it reports. */
	bool vrr = props.refreshInterval == UINT64_MAX;
	t->properties_counter = counter;
	if (refresh < REFRESH_MIN_NS) {
		snprintf(t->unusable, sizeof(t->unusable),
		         "the display reports a refresh of %" PRId64 " ns, no refresh cycle to pace on",
		         refresh);
		return false;
	}
	lowlat_tb_refresh(&t->brain, refresh, vrr);
	return true;
}

void lowlat_timing_give_up(struct lowlat_swapchain *sc, const char *why_fmt, ...)
{
	char why[256];
	va_list ap;

	if (!sc->timing.active)
		return;
	va_start(ap, why_fmt);
	vsnprintf(why, sizeof(why), why_fmt, ap);
	va_end(ap);
	/* The app's thread reads it under the lock (lowlat_GetPastPresentationTimingEXT). */
	lowlat_lock_take(&sc->timing.app_lock);
	sc->timing.active = false;
	lowlat_lock_give(&sc->timing.app_lock);
	sc->timing.pending_count = 0;
	sc->level = &lowlat_level_cpu;
	lowlat_msg("swapchain %ux%u: %s; paced on the CPU clock from now on", sc->extent.width,
	           sc->extent.height, why);
}

const char *lowlat_timing_describe(const struct lowlat_swapchain *sc, char *buf, size_t size)
{
	static const char *const kind[] = {
	        [LOWLAT_TARGETS_NONE] = "no targets (the surface takes none): releases on the reported "
	                                "refresh grid",
	        [LOWLAT_TARGETS_RELATIVE] = "targets relative to the frame before, on the refresh grid",
	        [LOWLAT_TARGETS_ABSOLUTE] = "target display times on the refresh grid",
	};
	const struct lowlat_swapchain_timing *t = &sc->timing;

	snprintf(buf, size, "%s; %s", kind[t->brain.targets],
	         t->clocks.monotonic                                   ? "times on CLOCK_MONOTONIC"
	         : t->domain == VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT ? "present-stage clocks calibrated"
	                                                               : "swapchain clock calibrated");
	return buf;
}

/* LOWLAT_BENCH_LEAD_MARGIN_US (the timing state's margin_ns): -1 when unset or not a number of us. */
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

/* The time domain lowlat's timing info names: CLOCK_MONOTONIC where the swapchain offers it (no
 * conversion), else the present-stage-local one every implementation must offer, else a
 * swapchain-local one. false when it offers none of them. */
static bool choose_domain(struct lowlat_swapchain *sc)
{
	/* An app that uses present timing itself names the present-stage-local domain (vkd3d-proton
	 * and DXVK do; every implementation has it): lowlat takes the same one, so the reports of the
	 * app's presents are on lowlat's clocks too. */
	static const VkTimeDomainKHR preferred[2][3] = {
	        {VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR, VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT,
	         VK_TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT},
	        {VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR,
	         VK_TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT}};
	struct lowlat_device *dev = sc->device;
	struct lowlat_swapchain_timing *t = &sc->timing;
	VkTimeDomainKHR domains[16];
	uint64_t ids[16];
	VkSwapchainTimeDomainPropertiesEXT props = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_TIME_DOMAIN_PROPERTIES_EXT,
	        .timeDomainCount = 16,
	        .pTimeDomains = domains,
	        .pTimeDomainIds = ids};

	/* VK_INCOMPLETE with more than 16 domains still lists the first 16. */
	VkResult r = dev->vk.GetSwapchainTimeDomainPropertiesEXT(dev->handle, sc->handle, &props,
	                                                         &t->domains_counter);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return false;
	for (unsigned p = 0; p < 3; p++) {
		for (uint32_t i = 0; i < props.timeDomainCount; i++) {
			if (domains[i] == preferred[dev->app_timing][p]) {
				t->domain = domains[i];
				t->domain_id = ids[i];
				t->clocks = (struct lowlat_stage_clocks){
				        .monotonic = domains[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR};
				return true;
			}
		}
	}
	return false;
}

bool lowlat_timing_calibrate(struct lowlat_swapchain *sc)
{
	struct lowlat_device *dev = sc->device;
	struct lowlat_swapchain_timing *t = &sc->timing;
	bool stage_local = t->domain == VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT;
	VkSwapchainCalibratedTimestampInfoEXT stage[LOWLAT_STAGES];
	VkCalibratedTimestampInfoKHR info[LOWLAT_STAGES + 1];
	uint64_t value[LOWLAT_STAGES + 1], deviation = 0;
	uint32_t bits[LOWLAT_STAGES], n = 0;

	/* The two commands are one (VK_EXT_calibrated_timestamps was promoted as it was). */
	PFN_vkGetCalibratedTimestampsKHR calibrate = dev->timing_calibrate_khr
	                                                     ? dev->vk.GetCalibratedTimestampsKHR
	                                                     : dev->vk.GetCalibratedTimestampsEXT;

	if (t->clocks.monotonic)
		return true;
	if (!calibrate)
		return false;
	/* One call: each stage asked for on its own clock (a swapchain-local domain has one clock for
	 * them all), and CLOCK_MONOTONIC. */
	for (uint32_t bit = 1; bit <= VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT; bit <<= 1) {
		if (!(t->stage_queries & bit) || (!stage_local && n))
			continue;
		bits[n] = stage_local ? bit : t->stage_queries;
		stage[n] = (VkSwapchainCalibratedTimestampInfoEXT){
		        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CALIBRATED_TIMESTAMP_INFO_EXT,
		        .swapchain = sc->handle,
		        .presentStage = stage_local ? bit : 0,
		        .timeDomainId = t->domain_id};
		info[n] = (VkCalibratedTimestampInfoKHR){
		        .sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR,
		        .pNext = &stage[n],
		        .timeDomain = t->domain};
		n++;
	}
	info[n] = (VkCalibratedTimestampInfoKHR){.sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_KHR,
	                                         .timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR};
	/* A call preempted between its readings is off by as much: one more try. */
	for (int attempt = 0; attempt < 2; attempt++) {
		if (calibrate(dev->handle, n + 1, info, value, &deviation) != VK_SUCCESS)
			return false;
		if (deviation <= (uint64_t)LOWLAT_CLOCK_DEVIATION_MAX_NS)
			break;
	}
	/* 0: the domain is gone (the spec lets the implementation say so that way). */
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t b = 1; b <= VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT; b <<= 1)
			if ((bits[i] & b) && value[i])
				lowlat_clock_note(&t->clocks, b, (int64_t)value[i], (int64_t)value[n]);
	/* Every stage lowlat plans with has an offset: the ready time's and the phase's. */
	uint32_t needed = VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT | t->phase_stage;
	return (t->clocks.calibrated & needed) == needed;
}

const char *lowlat_timing_swapchain_init(struct lowlat_swapchain *sc,
                                         const struct lowlat_swapchain_setup *setup)
{
	struct lowlat_device *dev = sc->device;
	struct lowlat_swapchain_timing *t = &sc->timing;
	const struct device_dispatch *vk = &dev->vk;

	if (!vk->SetSwapchainPresentTimingQueueSizeEXT || !vk->GetSwapchainTimingPropertiesEXT ||
	    !vk->GetSwapchainTimeDomainPropertiesEXT || !vk->GetPastPresentationTimingEXT)
		return "the driver lacks present-timing functions";
	lowlat_lock_init(&t->app_lock);
	if (!t->app_lock.ready)
		return "no mutex could be made for the app's present-timing reports";
	if (vk->SetSwapchainPresentTimingQueueSizeEXT(dev->handle, sc->handle, LOWLAT_TIMING_QUEUE_SIZE) !=
	    VK_SUCCESS)
		return "the present-timing results queue could not be sized";
	if (!choose_domain(sc))
		return "the swapchain offers no time domain lowlat can use";
	t->stage_queries = setup->stage_queries;
	t->phase_stage = phase_stage(setup->stage_queries);
	lowlat_tb_init(&t->brain,
	               setup->absolute   ? LOWLAT_TARGETS_ABSOLUTE
	               : setup->relative ? LOWLAT_TARGETS_RELATIVE
	                                 : LOWLAT_TARGETS_NONE,
	               bench_margin_ns());
	if (!lowlat_timing_calibrate(sc))
		return "the swapchain's present-stage clocks could not be calibrated against CLOCK_MONOTONIC";
	t->active = true;
	t->sample_start_ns = LOWLAT_LOG_UNKNOWN;
	/* May have to wait for the first present; a refresh lowlat cannot pace on is known now. */
	if (!lowlat_timing_properties(sc) && t->unusable[0]) {
		t->active = false;
		return t->unusable;
	}
	return NULL;
}

void lowlat_timing_swapchain_fini(struct lowlat_swapchain *sc)
{
	lowlat_lock_fini(&sc->timing.app_lock);
}

/* The app chains VkPresentTimingsInfoEXT (call->app_timings), and with a target time (app_targets),
 * which the hand-down weighs against lowlat's (lowlat_tb_app_target). */
void lowlat_timing_app_chain(struct lowlat_present_call *call)
{
	const VkPresentTimingsInfoEXT *timings = call->chain.app[LOWLAT_LINK_TIMINGS];

	call->app_timings = timings;
	for (uint32_t i = 0; timings && timings->pTimingInfos && i < timings->swapchainCount; i++)
		if (timings->pTimingInfos[i].targetTime)
			call->app_targets = true;
}

/* The present info with lowlat's VkPresentTimingsInfoEXT put in the chain (in front of the app's
 * chain, or in place of the app's own), and the results lowlat reads before the app's array. */
struct timed_present {
	VkPresentInfoKHR info;
	VkPresentTimingsInfoEXT timings;
	VkPresentTimingInfoEXT timing[LOWLAT_CALL_SWAPCHAINS_MAX];
	VkResult results[LOWLAT_CALL_SWAPCHAINS_MAX];
};

/* This present's target on the swapchain's grid (lowlat_timing_target) in the form the swapchain
 * takes: an absolute time on the phase stage's clock, a time relative to the previous present's
 * first pixel, or none (the frame then just arrives in time for it). */
static void set_target(struct lowlat_frame *f, VkPresentTimingInfoEXT *ti, int64_t target)
{
	struct lowlat_swapchain_timing *t = &f->sc->timing;
	const struct lowlat_timing_brain *b = &t->brain;

	f->display_target_ns = target;
	if (target == LOWLAT_LOG_UNKNOWN)
		return;
	int64_t ask = lowlat_tb_ask(b, target, lowlat_timing_mode(f->sc->current_mode));
	if (b->targets == LOWLAT_TARGETS_ABSOLUTE) {
		ti->targetTime = (uint64_t)lowlat_clock_from_monotonic(&t->clocks, t->phase_stage, ask);
		f->display_ask_ns = ask;
	} else if (b->targets == LOWLAT_TARGETS_RELATIVE && b->prev_target_ns != LOWLAT_LOG_UNKNOWN) {
		/* Relative to when the frame before is shown (the spec: its first pixel). */
		int64_t before = lowlat_tb_relative_base(b);
		if (ask > before) {
			ti->targetTime = (uint64_t)(ask - before);
			ti->flags = VK_PRESENT_TIMING_INFO_PRESENT_AT_RELATIVE_TIME_BIT_EXT;
			f->display_ask_ns = ask;
		}
	}
}

/* Where the app's own target asks the display to show the frame, on CLOCK_MONOTONIC:
 * LOWLAT_LOG_UNKNOWN where that cannot be known (a relative target with no previous present, a
 * stage clock not calibrated yet). A relative target counts from the previous present's first
 * pixel, as lowlat's own do (set_target). */
static int64_t app_target_ns(const struct lowlat_swapchain_timing *t, const VkPresentTimingInfoEXT *a)
{
	if (a->flags & VK_PRESENT_TIMING_INFO_PRESENT_AT_RELATIVE_TIME_BIT_EXT) {
		int64_t before = lowlat_tb_relative_base(&t->brain);
		return before == LOWLAT_LOG_UNKNOWN ? LOWLAT_LOG_UNKNOWN : before + (int64_t)a->targetTime;
	}
	/* In a stage-local domain the target is on the clock of the stage the app names. */
	uint32_t stage = t->domain == VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT ? a->targetTimeDomainPresentStage
	                                                                     : t->phase_stage;
	int64_t ns = lowlat_clock_to_monotonic(&t->clocks, stage, (int64_t)a->targetTime);
	return ns ? ns : LOWLAT_LOG_UNKNOWN;
}

/* Reads every swapchain's reports and, when the call can carry timing info, fills tp with each
 * present's: the app's own where its target stands (lowlat_tb_app_target) or it names a time domain
 * lowlat did not calibrate, lowlat's otherwise, with the stages the app asked for added to lowlat's
 * (and lowlat's to the app's). A call with a swapchain lowlat has no present timing on goes down as
 * the app made it, unless the app chains timing info itself. */
static bool prepare(struct lowlat_present_call *call, int64_t now_ns, struct timed_present *tp)
{
	const VkPresentTimingsInfoEXT *app = call->app_timings;

	for (uint32_t i = 0; i < call->count; i++) {
		struct lowlat_swapchain *sc = call->frames[i].sc;
		if (!sc || !sc->timing.active) {
			if (!app)
				return false;
			continue;
		}
		sc->timing.sample_start_ns = LOWLAT_LOG_UNKNOWN;
		sc->timing.pushed = false;
		lowlat_timing_update(sc);
	}
	if (!lowlat_present_chain_can_put(&call->chain, LOWLAT_LINK_TIMINGS)) {
		LOWLAT_WARN_ONCE(
		        "a present's chain cannot be copied (a structure lowlat does not know before the "
		        "app's present timing): such presents go down as the app made them");
		return false;
	}
	tp->timings =
	        app ? *app : (VkPresentTimingsInfoEXT){.sType = VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT};
	tp->timings.swapchainCount = call->count;
	tp->timings.pTimingInfos = tp->timing;
	lowlat_present_chain_put(&call->chain, LOWLAT_LINK_TIMINGS, &tp->timings);
	tp->info = *lowlat_call_down(call);
	tp->info.pResults = tp->results;
	for (uint32_t i = 0; i < call->count; i++) {
		struct lowlat_frame *f = &call->frames[i];
		const VkPresentTimingInfoEXT *a =
		        app && app->pTimingInfos && i < app->swapchainCount ? &app->pTimingInfos[i] : NULL;
		VkPresentTimingInfoEXT *ti = &tp->timing[i];
		struct lowlat_swapchain_timing *t = f->sc && f->sc->timing.active ? &f->sc->timing : NULL;

		f->app_queries = a ? a->presentStageQueries : 0;
		/* The app's own, as it made it: one on a time domain lowlat did not calibrate (its
		 * reports are then the app's alone), a swapchain lowlat has no timing on. */
		f->foreign = !t || (a && a->timeDomainId != t->domain_id);
		if (f->foreign) {
			*ti = a ? *a
			        : (VkPresentTimingInfoEXT){.sType =
			                                           VK_STRUCTURE_TYPE_PRESENT_TIMING_INFO_EXT};
			/* Without a target of the app's, the grid goes on all the same: the frame is
			 * released for it, and only arrives in time for it. */
			if (t && a && !a->targetTime)
				f->display_target_ns = lowlat_timing_target(f, now_ns);
			continue;
		}
		int64_t target = lowlat_timing_target(f, now_ns);
		/* Stage times for every present while our list of pending ones has room: it mirrors the
		 * driver's results queue, which is as large, so that queue never fills. */
		uint32_t queries = t->pending_count < LOWLAT_TIMING_QUEUE_SIZE ? t->stage_queries : 0;
		if (a && a->targetTime) {
			if (lowlat_tb_app_target(&t->brain, app_target_ns(t, a), &f->display_target_ns)) {
				*ti = *a;
				ti->presentStageQueries |= queries;
				f->app_rules = true;
				f->sc->app_targets_kept++;
				continue;
			}
			f->sc->app_targets_moved++;
		}
		*ti = (VkPresentTimingInfoEXT){.sType = VK_STRUCTURE_TYPE_PRESENT_TIMING_INFO_EXT,
		                               .timeDomainId = t->domain_id,
		                               .targetTimeDomainPresentStage = t->phase_stage};
		if (queries)
			ti->presentStageQueries = queries | f->app_queries;
		set_target(f, ti, target);
		/* The early method's lead covers hand-off to ready: its samples start here. */
		if (call->early)
			t->sample_start_ns = now_ns;
	}
	return true;
}

/* The app's part of the results queue is full (its size, LOWLAT_APP_QUEUE_MAX): its present asking
 * for stage times is refused as the driver would refuse it, VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT
 * and nothing shown, the semaphore waits done all the same (an empty submission that waits on them).
 * Only a call of one swapchain: the app's others cannot be refused apart from it. */
static bool refuse_app_full(struct lowlat_present_call *call)
{
	const struct lowlat_frame *f = &call->frames[0];
	const VkPresentTimingsInfoEXT *app = call->app_timings;
	VkPipelineStageFlags stages[16];

	if (call->count != 1 || !app || !app->pTimingInfos || !f->sc || !f->sc->timing.active ||
	    !app->pTimingInfos[0].presentStageQueries || call->app->waitSemaphoreCount > 16 ||
	    lowlat_timing_app_outstanding(&f->sc->timing) < f->sc->timing.app_queue_size)
		return false;
	for (uint32_t i = 0; i < call->app->waitSemaphoreCount; i++)
		stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
	const VkSubmitInfo waits = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	                            .waitSemaphoreCount = call->app->waitSemaphoreCount,
	                            .pWaitSemaphores = call->app->pWaitSemaphores,
	                            .pWaitDstStageMask = stages};
	VkResult r = waits.waitSemaphoreCount
	                     ? call->dev->vk.QueueSubmit(call->queue, 1, &waits, VK_NULL_HANDLE)
	                     : VK_SUCCESS;
	call->result = r == VK_SUCCESS ? VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT : r;
	if (call->app->pResults)
		call->app->pResults[0] = call->result;
	return true;
}

/* A swapchain whose results queue was full is refused with VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT,
 * an error an app that never asked for timing cannot expect: present again without stage queries.
 * The refused present's semaphore waits did execute (the spec counts its queue operations as
 * enqueued), so the retry waits on nothing. Only when every swapchain of the call was refused: the
 * app's per-swapchain pNext arrays cannot be split. */
bool lowlat_timing_present(struct lowlat_present_call *call, int64_t now_ns)
{
	struct lowlat_device *dev = call->dev;
	struct timed_present tp;
	bool all_full = true;

	if (refuse_app_full(call))
		return true;

	if (!(call->timed = prepare(call, now_ns, &tp)))
		return false;
	call->result = dev->vk.QueuePresentKHR(call->queue, &tp.info);
	for (uint32_t i = 0; i < call->count; i++)
		all_full = all_full && tp.results[i] == VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT;
	if (all_full && !call->app_timings) {
		LOWLAT_DEBUG("present-timing results queue full; presenting again without stage queries");
		for (uint32_t i = 0; i < call->count; i++)
			tp.timing[i].presentStageQueries = 0;
		tp.info.waitSemaphoreCount = 0;
		tp.info.pWaitSemaphores = NULL;
		call->result = dev->vk.QueuePresentKHR(call->queue, &tp.info);
	}
	for (uint32_t i = 0; i < call->count; i++) {
		struct lowlat_frame *f = &call->frames[i];

		if (call->app->pResults)
			call->app->pResults[i] = tp.results[i];
		if (!f->sc || !f->sc->timing.active)
			continue;
		struct lowlat_timing_brain *b = &f->sc->timing.brain;
		if (tp.results[i] < 0) {
			f->display_target_ns = LOWLAT_LOG_UNKNOWN;
			lowlat_tb_presented(b, false, LOWLAT_LOG_UNKNOWN, NULL);
			continue;
		}
		if (f->display_target_ns != LOWLAT_LOG_UNKNOWN)
			f->sc->timed_presents++;
		/* Every present that asked for stage times, the app's own too: lowlat's list mirrors the
		 * driver's queue of reports, which come back in present order. */
		if (tp.timing[i].presentStageQueries)
			lowlat_timing_push(f, tp.timing[i].presentStageQueries);
		else
			lowlat_tb_presented(b, true, f->display_target_ns, NULL);
	}
	return true;
}

#endif
