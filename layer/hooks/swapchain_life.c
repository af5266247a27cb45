/* swapchain_life.c — swapchain records: creation with the pacing level chosen once, the settings
 * brought up to date, the summary line at destruction, and the acquire hooks' blocked time. See
 * swapchain_life.h and swapchain.h. */
#include "swapchain_life.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>

#include "brain/pace_grid.h"
#include "chain.h"
#include "config.h"
#include "config_global.h"
#include "latency_sleep.h"
#include "level.h"
#include "level_drm.h"
#include "log.h"
#include "message.h"
#include "objects.h"
#include "present_ids.h"
#include "present_mode.h"
#include "present_timing.h"
#include "present_wait.h"
#include "swapchain.h"
#include "swapchain_cap.h"
#include "wait_point.h"

static const char *present_mode_name(VkPresentModeKHR mode)
{
	const char *name = lowlat_vk_present_mode_name(mode);
	return name ? name : "other";
}

static const VkAllocationCallbacks *device_allocator(const struct lowlat_device *dev)
{
	return dev->has_allocator ? &dev->allocator : NULL;
}

static void swapchain_summary(const struct lowlat_swapchain *sc)
{
	double seconds = (double)(sc->last_present_ns - sc->first_present_ns) * 1e-9;
	/* n presents span n-1 intervals. */
	double fps = sc->presents > 1 && seconds > 0 ? (double)(sc->presents - 1) / seconds : 0;
	char limiter[160] = "limiter off", wait_point[96];

	if (sc->pacer.mfps)
		snprintf(limiter, sizeof(limiter),
		         "limiter %s at %.3f fps, %" PRIu64 " re-anchors (%.1f ms lost), %" PRIu64
		         " late releases (%.1f ms)",
		         lowlat_method_name(sc->config.method), (double)sc->pacer.mfps / LOWLAT_MFPS_PER_FPS,
		         sc->pacer.reanchors, (double)sc->pacer.lost_ns * 1e-6, sc->pacer.late_releases,
		         (double)sc->pacer.late_ns * 1e-6);
	char drains[64] = "";

	if (sc->timing.brain.drains)
		snprintf(drains, sizeof(drains), ", %" PRIu64 " display queue drains",
		         sc->timing.brain.drains);
	lowlat_point_summary(sc->device, sc, wait_point, sizeof(wait_point));
	if (sc->app_targets_kept || sc->app_targets_moved)
		LOWLAT_INFO("swapchain %ux%u: the app's present-timing targets: %" PRIu64
		            " moved to the cap's grid, %" PRIu64 " stood",
		            sc->extent.width, sc->extent.height, sc->app_targets_moved, sc->app_targets_kept);
	LOWLAT_INFO("swapchain %ux%u %s, %u images: %" PRIu64 " presents in %.3f s (%.2f fps), %" PRIu64
	            " failed; %s; %" PRIu64 " presents with display targets%s%s",
	            sc->extent.width, sc->extent.height, present_mode_name(sc->present_mode), sc->image_count,
	            sc->presents, seconds, fps, sc->present_errors, limiter, sc->timed_presents, drains,
	            wait_point);
	if (sc->latency_waits || sc->latency_timeouts || sc->latency_superseded)
		LOWLAT_INFO("swapchain %ux%u: max_latency_frames %u held %" PRIu64
		            " releases until an earlier frame "
		            "was shown, %" PRIu64 " more gave up waiting; %" PRIu64
		            " released past a late frame (FIFO_LATEST_READY)",
		            sc->extent.width, sc->extent.height, sc->config.max_latency_frames,
		            sc->latency_waits, sc->latency_timeouts, sc->latency_superseded);
	if (sc->timing.brain.miss_margin.misses && sc->timing.brain.margin_ns >= 0)
		LOWLAT_INFO("swapchain %ux%u: %" PRIu64 " frames missed the refresh they were planned for; "
		            "release margin fixed at %.0f us (LOWLAT_BENCH_LEAD_MARGIN_US)",
		            sc->extent.width, sc->extent.height, sc->timing.brain.miss_margin.misses,
		            (double)sc->timing.brain.margin_ns * 1e-3);
	else if (sc->timing.brain.miss_margin.misses)
		LOWLAT_INFO("swapchain %ux%u: %" PRIu64 " frames missed the refresh they were planned for; "
		            "release margin %.0f us at the end (at most %.0f us)",
		            sc->extent.width, sc->extent.height, sc->timing.brain.miss_margin.misses,
		            (double)lowlat_miss_margin_ns(&sc->timing.brain.miss_margin,
		                                          sc->timing.brain.refresh_ns,
		                                          sc->timing.brain.target_n) *
		                    1e-3,
		            (double)lowlat_miss_margin_max_ns(&sc->timing.brain.miss_margin,
		                                              sc->timing.brain.refresh_ns) *
		                    1e-3);
	if (sc->timing.brain.cadence_moves)
		LOWLAT_INFO("swapchain %ux%u: %" PRIu64 " frames moved on after the frame before them "
		            "missed its refresh",
		            sc->extent.width, sc->extent.height, sc->timing.brain.cadence_moves);
	if (sc->level == &lowlat_level_present_wait && (sc->pw_phase.hits || sc->pw_phase.misses))
		LOWLAT_INFO("swapchain %ux%u: present-wait phase: period %.3f ms (first pixels' spacing), "
		            "lead %.2f ms "
		            "at the end; %" PRIu64
		            " frames shown on the refresh they were released for, %" PRIu64 " later",
		            sc->extent.width, sc->extent.height, (double)sc->pw_phase.period_ns * 1e-6,
		            (double)sc->pw_phase.lead_ns * 1e-6, sc->pw_phase.hits, sc->pw_phase.misses);
	if (sc->pacer.mfps)
		LOWLAT_DEBUG("swapchain %ux%u: spin tail of the wait %.0f us at the end", sc->extent.width,
		             sc->extent.height, (double)sc->sleeper.tail_ns * 1e-3);
}

void lowlat_swapchain_settings(struct lowlat_swapchain *sc)
{
	uint64_t generation = lowlat_config_global_get(sc->config_generation, &sc->config);

	/* The cap may also follow the display's rate as the swapchain learns it. */
	if (generation == sc->config_generation && !lowlat_cap_stale(sc))
		return;
	sc->config_generation = generation;
	uint32_t mfps = lowlat_cap_mfps(sc);
	/* The game thread's latency sleep may use the pacer too (latency_sleep.c), and reads the
	 * stacking setting there: both change under its lock. */
	lowlat_point_pacer_lock(sc->device);
	lowlat_pacer_set_mfps(&sc->pacer, mfps);
	sc->latency.stack_limiters = sc->config.stack_limiters;
	lowlat_point_pacer_unlock(sc->device);
}

/* A refusal of what lowlat added is retried without it; running out of memory or losing the
 * device or surface is the app's to see, as the driver returned it. */
static bool swapchain_refused(VkResult result)
{
	return result != VK_SUCCESS && result != VK_ERROR_DEVICE_LOST &&
	       result != VK_ERROR_OUT_OF_HOST_MEMORY && result != VK_ERROR_OUT_OF_DEVICE_MEMORY &&
	       result != VK_ERROR_SURFACE_LOST_KHR;
}

/* The latency-frames cap waits until a frame was shown, which only present timing and present wait
 * report: on "drm" and "cpu" it cannot be kept (a present fence, or the present's return, only says
 * the engine took the image), and a setting that asks for it is told so once per swapchain. */
static void latency_cap_unkept(const struct lowlat_swapchain *sc, const char *level)
{
	if (sc->config.max_latency_frames && sc->pacer.mfps)
		LOWLAT_INFO("swapchain %ux%u: max_latency_frames %u is not kept on level \"%s\": nothing "
		            "reports when its frames are shown (present timing or present wait)",
		            sc->extent.width, sc->extent.height, sc->config.max_latency_frames, level);
}

/* The swapchain's pacing level, chosen once from the best down, and the one line per swapchain
 * saying which and why not the better ones (timing_why: why not "timing", unused when its setup
 * succeeded):
 *  - "timing": VK_EXT_present_timing, target display times on the refresh grid;
 *  - "present-wait": present-wait completion times, lowlat's own present ids, the latency cap;
 *  - "drm": the refresh clock of the screen's CRTC (refresh_drm.h), releases on its grid;
 *  - "cpu": the time grid of the plain late limiter.
 * An app that uses present timing itself gets "timing" too (its own targets are left alone present
 * by present, present_timing.c), or else "cpu": lowlat gave its present ids no second meaning. */
static void pacing_level_select(struct lowlat_swapchain *sc, const char *timing_why)
{
	struct lowlat_device *dev = sc->device;
	const char *wait_why = NULL;
	char drm_why[192];

	if (!timing_why)
		timing_why = "unknown";
	if (sc->timing.active) {
		char how[160];
		sc->level = &lowlat_level_timing;
		LOWLAT_INFO("swapchain %ux%u: pacing level \"timing\" (VK_EXT_present_timing: %s)",
		            sc->extent.width, sc->extent.height,
		            lowlat_timing_describe(sc, how, sizeof(how)));
		return;
	}
	sc->level = &lowlat_level_cpu;
	if (dev->app_timing) {
		LOWLAT_INFO("swapchain %ux%u: pacing level \"cpu\" (fallback from \"timing\": %s)",
		            sc->extent.width, sc->extent.height, timing_why);
		latency_cap_unkept(sc, "cpu");
		return;
	}
	if (!dev->present_wait)
		wait_why = dev->present_wait_reason ? dev->present_wait_reason : "unknown";
	else if (!dev->vk.WaitForPresentKHR)
		wait_why = "the driver lacks vkWaitForPresentKHR";
	else if (dev->latency.mode == LOWLAT_LATENCY_NATIVE)
		wait_why = "the driver's VK_NV_low_latency2 matches the app's present ids";
	else if (!sc->ids.lock.ready)
		wait_why = "out of resources";
	if (!wait_why) {
		sc->level = &lowlat_level_present_wait;
		sc->ids_owned = true;
		LOWLAT_INFO("swapchain %ux%u: pacing level \"present-wait\" (fallback from \"timing\": %s)",
		            sc->extent.width, sc->extent.height, timing_why);
		return;
	}
	if (lowlat_refresh_swapchain_init(sc, drm_why, sizeof(drm_why))) {
		sc->level = &lowlat_level_drm;
		LOWLAT_INFO("swapchain %ux%u: pacing level \"drm\" (fallback from \"timing\": %s; from "
		            "\"present-wait\": %s; the refresh clock of %s)",
		            sc->extent.width, sc->extent.height, timing_why, wait_why,
		            sc->refresh.source.name);
		latency_cap_unkept(sc, "drm");
		return;
	}
	LOWLAT_INFO("swapchain %ux%u: pacing level \"cpu\" (fallback from \"timing\": %s; from "
	            "\"present-wait\": %s; from \"drm\": %s)",
	            sc->extent.width, sc->extent.height, timing_why, wait_why, drm_why);
	latency_cap_unkept(sc, "cpu");
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_CreateSwapchainKHR(VkDevice device,
                                                         const VkSwapchainCreateInfoKHR *info,
                                                         const VkAllocationCallbacks *allocator,
                                                         VkSwapchainKHR *out)
{
	LOWLAT_HOOK_DEVICE(dev, device, CreateSwapchainKHR, VK_ERROR_INITIALIZATION_FAILED)
	struct lowlat_swapchain *sc;
	struct lowlat_swapchain_setup setup;
	struct lowlat_mode_swapchain_setup modes;
	struct lowlat_config cfg;
	VkSwapchainCreateInfoKHR timed;
	const char *fallback;
	VkResult result;

	/* Without VkSwapchainLatencyCreateInfoNV where lowlat provides VK_NV_low_latency2: the base
	 * of everything below. */
	VkSwapchainCreateInfoKHR latency_copy;
	_Alignas(16) unsigned char latency_chain_buffer[512];
	struct lowlat_chain_storage latency_chain = {.buffer = latency_chain_buffer,
	                                             .size = sizeof(latency_chain_buffer)};
	const VkSwapchainCreateInfoKHR *base =
	        lowlat_latency_swapchain_info(dev, info, &latency_copy, &latency_chain);
	/* The settings in force now decide a mode chosen once at creation. */
	lowlat_config_defaults(&cfg);
	lowlat_config_global_get(0, &cfg);
	/* The present-timing flag and lowlat's present modes on a copy of the base; what the driver
	 * refuses is retried without, the present modes first, then the flag (the base). */
	lowlat_timing_swapchain_setup(dev, base, &setup);
	timed = setup.info;
	lowlat_mode_swapchain_setup(dev, &cfg, &setup.info, &modes);
	result = dev->vk.CreateSwapchainKHR(device, setup.timing || modes.changed ? &setup.info : base,
	                                    allocator, out);
	if (modes.changed && swapchain_refused(result)) {
		modes.changed = false;
		modes.created_mode = modes.modes.app_mode = info->presentMode;
		modes.modes.policy = LOWLAT_MODES_KEEP;
		snprintf(modes.why, sizeof(modes.why),
		         "as the app asked; the driver refused lowlat's present modes");
		result = dev->vk.CreateSwapchainKHR(device, setup.timing ? &timed : base, allocator, out);
	}
	if (setup.timing && swapchain_refused(result)) {
		setup.timing = false;
		setup.reason = "the driver refused a present-timing swapchain";
		result = dev->vk.CreateSwapchainKHR(device, base, allocator, out);
	}
	if (result != VK_SUCCESS)
		return result;

	/* Our record outlives no call of the app's, so the device's allocator (object scope) is the
	 * right one; the swapchain's own may be freed by the app at destroy time. */
	sc = lowlat_alloc(device_allocator(dev), sizeof(*sc), VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
	if (!sc) {
		LOWLAT_WARN_ONCE("out of memory tracking a swapchain; its presents pass through");
		return VK_SUCCESS;
	}
	sc->handle = *out;
	sc->device = dev;
	sc->extent = info->imageExtent;
	sc->format = info->imageFormat;
	sc->present_mode = sc->current_mode = modes.created_mode;
	sc->modes = modes.modes;
	if (dev->vk.GetSwapchainImagesKHR(device, *out, &sc->image_count, NULL) != VK_SUCCESS)
		sc->image_count = info->minImageCount;
	lowlat_pacer_init(&sc->pacer);
	lowlat_sleeper_init(&sc->sleeper);
	lowlat_config_defaults(&sc->config);
	lowlat_point_swapchain_init(sc);
	lowlat_pw_init(&sc->present_wait);
	lowlat_id_map_init(&sc->ids);
	lowlat_swapchain_settings(sc);
	/* A swapchain replacing another (a resize; DXVK and vkd3d-proton recreate without
	 * oldSwapchain) continues the device's latest release: its first frame is paced like any. */
	int64_t prev_release = atomic_load_explicit(&dev->last_release_ns, memory_order_relaxed);
	if (prev_release && sc->pacer.mfps && lowlat_now_ns() - prev_release < LOWLAT_MAX_WAIT_NS) {
		lowlat_pacer_restart_at(&sc->pacer, prev_release);
		sc->last_release_ns = prev_release;
	}
	sc->frame_start_ns = LOWLAT_LOG_UNKNOWN;
	fallback = setup.timing ? lowlat_timing_swapchain_init(sc, &setup) : setup.reason;
	/* Before the insert: the app's waiting thread may look it up from then on. */
	pacing_level_select(sc, fallback);

	if (!lowlat_map_insert(&dev->swapchains, (uint64_t)*out, sc)) {
		LOWLAT_WARN_ONCE("out of memory tracking a swapchain; its presents pass through");
		lowlat_pw_fini(&sc->present_wait);
		lowlat_id_map_fini(&sc->ids);
		lowlat_refresh_swapchain_fini(sc);
		lowlat_timing_swapchain_fini(sc);
		lowlat_free(device_allocator(dev), sc);
		return VK_SUCCESS;
	}
	/* After the insert, which cannot fail past here: nothing else sees sc until we return. */
	if (sc->config.log)
		sc->log = lowlat_log_open(&(struct lowlat_log_params){
		        .dir = sc->config.log_dir, .game_key = lowlat_config_global_game_key()});
	LOWLAT_DEBUG("swapchain created: %ux%u %s, %u images", sc->extent.width, sc->extent.height,
	             present_mode_name(sc->present_mode), sc->image_count);
	/* One line per swapchain saying which present mode it got and why. */
	LOWLAT_INFO("swapchain %ux%u: present mode %s (%s)", sc->extent.width, sc->extent.height,
	            present_mode_name(sc->present_mode), modes.why);
	lowlat_cap_created(sc, fallback);
	return VK_SUCCESS;
}

static void swapchain_forget(struct lowlat_device *dev, struct lowlat_swapchain *sc)
{
	lowlat_latency_swapchain_fini(dev, sc);
	swapchain_summary(sc);
	lowlat_cap_destroyed(sc);
	lowlat_refresh_swapchain_fini(sc);
	lowlat_pw_fini(&sc->present_wait);
	lowlat_id_map_fini(&sc->ids);
	lowlat_timing_swapchain_fini(sc);
	lowlat_log_close(sc->log); /* hands the rest to the writer thread: no I/O, no wait */
	lowlat_free(device_allocator(dev), sc);
}

VKAPI_ATTR void VKAPI_CALL lowlat_DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                      const VkAllocationCallbacks *allocator)
{
	LOWLAT_HOOK_DEVICE(dev, device, DestroySwapchainKHR, /* void */)
	struct lowlat_swapchain *sc;

	if (swapchain && (sc = lowlat_map_remove(&dev->swapchains, (uint64_t)swapchain)))
		swapchain_forget(dev, sc);
	dev->vk.DestroySwapchainKHR(device, swapchain, allocator);
}

void lowlat_swapchain_device_teardown(struct lowlat_device *dev)
{
	struct lowlat_swapchain *sc;

	/* Destroying a device with live swapchains is the app's error (validation reports it); free
	 * our records so nothing leaks. */
	while ((sc = lowlat_map_pop(&dev->swapchains)))
		swapchain_forget(dev, sc);
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_AcquireNextImageKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                          uint64_t timeout, VkSemaphore semaphore,
                                                          VkFence fence, uint32_t *index)
{
	LOWLAT_HOOK_DEVICE(dev, device, AcquireNextImageKHR, VK_ERROR_DEVICE_LOST)
	struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, swapchain);
	int64_t begin_ns = sc ? lowlat_now_ns() : 0;
	VkResult result = dev->vk.AcquireNextImageKHR(device, swapchain, timeout, semaphore, fence, index);

	if (sc)
		sc->acquire_blocked_ns += lowlat_now_ns() - begin_ns;
	return result;
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_AcquireNextImage2KHR(VkDevice device,
                                                           const VkAcquireNextImageInfoKHR *info,
                                                           uint32_t *index)
{
	LOWLAT_HOOK_DEVICE(dev, device, AcquireNextImage2KHR, VK_ERROR_DEVICE_LOST)
	struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->swapchain);
	int64_t begin_ns = sc ? lowlat_now_ns() : 0;
	VkResult result = dev->vk.AcquireNextImage2KHR(device, info, index);

	if (sc)
		sc->acquire_blocked_ns += lowlat_now_ns() - begin_ns;
	return result;
}
