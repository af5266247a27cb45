/* present.c — swapchain tracking and the present path.
 *
 * Owns struct lowlat_swapchain: created after the driver creates the swapchain, destroyed before
 * the driver destroys it. The present hook is where pacing happens; the pacing decision itself
 * lives in pace.c and knows nothing of Vulkan, the waiting in timing.c.
 *
 * Pacing: each swapchain has its own pacer and sleeper. One vkQueuePresentKHR call waits once,
 * until the latest deadline among its swapchains: their images are handed down together, so the
 * call cannot honour one swapchain's cap without holding the others too, and waiting for the
 * latest keeps every one of them at or under its cap. Late: the frame is handed down first and the call
 * returns at the deadline, so the app starts its next frame, and samples input, as late as the cap allows.
 * Early: the wait comes first and the frame is handed down at the deadline. No lock of ours is held while
 * waiting or calling down: swapchain lookups take the device map's lock only for the lookup.
 *
 * Display-aware pacing (late method, where the swapchain has VK_EXT_present_timing; see
 * present_timing.c and pace_display.h): each present carries an absolute target display time, on
 * the refresh grid when the cap is at or near refresh/n, else on the time grid moved to the next
 * refresh (VRR: the time grid itself). The late wait still releases the app, now at the next
 * frame's target minus the predicted frame-start-to-ready time. Targets go only into FIFO,
 * FIFO_RELAXED and FIFO_LATEST_READY presents (the spec allows no others), only when every
 * swapchain of the call has the present-timing flag, and never when the app chains its own
 * VkPresentTimingsInfoEXT. A swapchain without present timing may still be paced on the screen's
 * refresh clock ("drm", present_refresh.c: releases on a refresh source's grid, no targets);
 * anything else is paced on the CPU clock as before ("cpu"). pacing_level_choose picks the level.
 *
 * The "present-wait" level (swapchains without present timing on a device with present_id and
 * present_wait; pacing_level_select chooses the level): the driver sees lowlat's own present ids
 * (present_ids.h), the latency-frames cap waits for frame N+1-k with vkWaitForPresentKHR inside
 * this call, and the waits' returns phase the release to the refresh (pace_wait.h).
 *
 * Settings come from the config module (config.h): each swapchain keeps a copy and refreshes it at
 * its presents when the process's config changed (a file reload, `lowlat ctl`). The present log
 * (log.c) gets one record per present when the config turns it on.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>

#include "chain.h"
#include "clock.h"
#include "config.h"
#include "hooks.h"
#include "latency_sleep.h"
#include "log.h"
#include "message.h"
#include "objects.h"
#include "pace.h"
#include "pace_display.h"
#include "pace_grid.h"
#include "present_ids.h"
#include "present_mode.h"
#include "present_refresh.h"
#include "present_timing.h"
#include "present_wait.h"

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

	if (sc->timing.drains)
		snprintf(drains, sizeof(drains), ", %" PRIu64 " display queue drains", sc->timing.drains);
	lowlat_latency_summary(sc->device, sc, wait_point, sizeof(wait_point));
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
	if (sc->timing.miss_margin.misses && sc->timing.margin_ns >= 0)
		LOWLAT_INFO("swapchain %ux%u: %" PRIu64 " frames missed the refresh they were planned for; "
		            "release margin fixed at %.0f us (LOWLAT_BENCH_LEAD_MARGIN_US)",
		            sc->extent.width, sc->extent.height, sc->timing.miss_margin.misses,
		            (double)sc->timing.margin_ns * 1e-3);
	else if (sc->timing.miss_margin.misses)
		LOWLAT_INFO(
		        "swapchain %ux%u: %" PRIu64 " frames missed the refresh they were planned for; "
		        "release margin %.0f us at the end (at most %.0f us)",
		        sc->extent.width, sc->extent.height, sc->timing.miss_margin.misses,
		        (double)lowlat_miss_margin_ns(&sc->timing.miss_margin, sc->timing.refresh_ns,
		                                      sc->timing.target_n) *
		                1e-3,
		        (double)lowlat_miss_margin_max_ns(&sc->timing.miss_margin, sc->timing.refresh_ns) *
		                1e-3);
	if (sc->timing.cadence_moves)
		LOWLAT_INFO("swapchain %ux%u: %" PRIu64 " frames moved on after the frame before them "
		            "missed its refresh",
		            sc->extent.width, sc->extent.height, sc->timing.cadence_moves);
	if (sc->level == LOWLAT_LEVEL_PRESENT_WAIT && (sc->pw_phase.hits || sc->pw_phase.misses))
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

/* A swapchain hook's device and the function it calls down to. Every device is tracked from its
 * creation, so these are missing only when the app calls a swapchain function it fetched with
 * vkGetInstanceProcAddr on a device that did not enable VK_KHR_swapchain (invalid use): say so once
 * and return an error the entry point may return, rather than call a NULL pointer in the game. */
#define LOWLAT_HOOK_DEVICE(dev, handle, function, error)                                                     \
	struct lowlat_device *dev = lowlat_device_of(handle);                                                \
	if (!dev || !dev->vk.function) {                                                                     \
		LOWLAT_WARN_ONCE("vk" #function " called on a device without VK_KHR_swapchain enabled; "     \
		                 "returning " #error);                                                       \
		return error;                                                                                \
	}

/* Brings the swapchain's copy of the settings, and its pacer, up to the process's config. Called on
 * the thread presenting to it, which alone uses its pacer; costs an atomic load when nothing
 * changed. */
static void swapchain_refresh(struct lowlat_swapchain *sc)
{
	uint64_t generation = lowlat_config_global_get(sc->config_generation, &sc->config);

	if (generation == sc->config_generation)
		return;
	sc->config_generation = generation;
	uint32_t mfps = sc->config.enabled ? lowlat_fps_to_mfps(sc->config.fps) : 0;
	const struct lowlat_instance *inst = sc->device->instance;
	/* The engine limits its own frame rate: a second cap would fight it for every frame's start. */
	if (mfps && inst->engine_limits && !sc->config.stack_limiters) {
		LOWLAT_WARN_ONCE("%s limits its own frame rate (%s); lowlat adds no cap of its own "
		                 "(stack_limiters: false)",
		                 inst->engine_name, inst->engine_limit);
		mfps = 0;
	}
	/* The game thread's latency sleep may use the pacer too (latency_sleep.c), and reads the
	 * stacking setting there: both change under its lock. */
	lowlat_latency_pacer_lock(sc->device);
	lowlat_pacer_set_mfps(&sc->pacer, mfps);
	sc->latency.stack_limiters = sc->config.stack_limiters;
	lowlat_latency_pacer_unlock(sc->device);
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
 *  - "drm": the refresh clock of the screen's CRTC (present_refresh.h), releases on its grid;
 *  - "cpu": the time grid of the plain late limiter.
 * An app that drives present timing itself stays on "cpu": its targets place its frames, and a
 * release phased for the next refresh would fight them. */
static void pacing_level_select(struct lowlat_swapchain *sc, const char *timing_why)
{
	struct lowlat_device *dev = sc->device;
	const char *wait_why = NULL;
	char drm_why[192];

	if (!timing_why)
		timing_why = "unknown";
	if (sc->timing.active) {
		sc->level = LOWLAT_LEVEL_TIMING;
		LOWLAT_INFO("swapchain %ux%u: pacing level \"timing\" (VK_EXT_present_timing: target display "
		            "times on the refresh grid)",
		            sc->extent.width, sc->extent.height);
		return;
	}
	sc->level = LOWLAT_LEVEL_CPU;
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
	else if (!sc->ids.lock_ready)
		wait_why = "out of resources";
	if (!wait_why) {
		sc->level = LOWLAT_LEVEL_PRESENT_WAIT;
		sc->ids_owned = true;
		LOWLAT_INFO("swapchain %ux%u: pacing level \"present-wait\" (fallback from \"timing\": %s)",
		            sc->extent.width, sc->extent.height, timing_why);
		return;
	}
	if (lowlat_refresh_swapchain_init(sc, drm_why, sizeof(drm_why))) {
		sc->level = LOWLAT_LEVEL_DRM;
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
	lowlat_latency_swapchain_init(sc);
	lowlat_pw_init(&sc->present_wait);
	lowlat_id_map_init(&sc->ids);
	swapchain_refresh(sc);
	/* A swapchain replacing another (a resize; DXVK and vkd3d-proton recreate without
	 * oldSwapchain) continues the device's latest release: its first frame is paced like any. */
	int64_t prev_release = atomic_load_explicit(&dev->last_release_ns, memory_order_relaxed);
	if (prev_release && sc->pacer.mfps && lowlat_now_ns() - prev_release < LOWLAT_MAX_WAIT_NS) {
		lowlat_pacer_restart_at(&sc->pacer, prev_release);
		sc->last_release_ns = prev_release;
	}
	sc->frame_start_ns = sc->target_ns = sc->display_target_ns = LOWLAT_LOG_UNKNOWN;
	fallback = setup.timing ? lowlat_timing_swapchain_init(sc, setup.stage_queries) : setup.reason;
	/* Before the insert: the app's waiting thread may look it up from then on. */
	pacing_level_select(sc, fallback);

	if (!lowlat_map_insert(&dev->swapchains, (uint64_t)*out, sc)) {
		LOWLAT_WARN_ONCE("out of memory tracking a swapchain; its presents pass through");
		lowlat_pw_fini(&sc->present_wait);
		lowlat_id_map_fini(&sc->ids);
		lowlat_refresh_swapchain_fini(sc);
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
	return VK_SUCCESS;
}

static void swapchain_forget(struct lowlat_device *dev, struct lowlat_swapchain *sc)
{
	lowlat_latency_swapchain_fini(dev, sc);
	swapchain_summary(sc);
	lowlat_refresh_swapchain_fini(sc);
	lowlat_pw_fini(&sc->present_wait);
	lowlat_id_map_fini(&sc->ids);
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

void lowlat_present_device_teardown(struct lowlat_device *dev)
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

static bool present_failed(VkResult result)
{
	/* SUBOPTIMAL still presented the image. */
	return result < 0;
}

/* Brings the swapchain's pacer to the current setting (on the presenting thread, which owns it)
 * and returns its deadline for this frame. */
/* The swapchain's deadline for this frame, its settings brought up to date first. */
static int64_t swapchain_deadline(struct lowlat_swapchain *sc, int64_t now_ns)
{
	uint64_t reanchors = sc->pacer.reanchors;
	int64_t deadline;

	swapchain_refresh(sc);
	lowlat_latency_pacer_lock(sc->device);
	/* The display grid paced the previous frame: this one is an interval after that release. */
	if (sc->last_release_display)
		lowlat_pacer_restart_at(&sc->pacer, sc->last_release_ns);
	deadline = lowlat_pacer_next_deadline(&sc->pacer, now_ns);
	sc->last_release_display = false;
	lowlat_latency_pacer_unlock(sc->device);
	if (sc->pacer.reanchors != reanchors)
		LOWLAT_DEBUG("frame %" PRIu64 " was %.2f ms behind its deadline: pacing restarts from it",
		             sc->presents, (double)sc->pacer.behind_ns * 1e-6);
	sc->target_ns = sc->pacer.mfps ? deadline : LOWLAT_LOG_UNKNOWN;
	return deadline;
}

static void count_present(struct lowlat_swapchain *sc, VkResult r, int64_t t_ns)
{
	if (present_failed(r)) {
		sc->present_errors++;
		return;
	}
	if (!sc->presents++)
		sc->first_present_ns = t_ns;
	sc->last_present_ns = t_ns;
}

/* The one wait of a present call: until the latest deadline of its swapchains, with the sleeper
 * (adaptive tail state) of the swapchain that set it. */
struct present_wait {
	int64_t deadline_ns;
	struct lowlat_swapchain *sc;
	bool cpu_grid; /* the deadline is sc's CPU grid's (swapchain_deadline), not a display's */
};

/* The release this swapchain asked for, where the next path or swapchain continues from. */
static void note_release(struct lowlat_swapchain *sc, int64_t release_ns)
{
	sc->last_release_ns = release_ns;
	atomic_store_explicit(&sc->device->last_release_ns, release_ns, memory_order_relaxed);
}

static void wait_consider(struct present_wait *w, struct lowlat_swapchain *sc, int64_t deadline_ns,
                          bool cpu_grid)
{
	note_release(sc, deadline_ns);
	if (!w->sc || deadline_ns > w->deadline_ns) {
		w->deadline_ns = deadline_ns;
		w->sc = sc;
		w->cpu_grid = cpu_grid;
	}
}

/* Waits for the call's deadline (begin_ns: when the wait began) and returns when it ended. A wait
 * for a CPU-grid deadline that ended late (this thread was preempted past it) moves that grid to
 * the actual release (pace.h, lowlat_pacer_released); a present that came after its deadline did
 * not wait and leaves its grid alone, as do the display's grids, whose phase is the refresh's. */
static int64_t wait_do(const struct present_wait *w, int64_t begin_ns)
{
	int64_t end_ns;

	if (!w->sc)
		return lowlat_now_ns();
	struct lowlat_clock clock = lowlat_system_clock(&w->sc->sleeper);
	clock.sleep_until_ns(clock.ctx, w->deadline_ns);
	end_ns = lowlat_now_ns();
	if (w->cpu_grid && w->deadline_ns > begin_ns && end_ns > w->deadline_ns) {
		lowlat_latency_pacer_lock(w->sc->device);
		bool moved = lowlat_pacer_released(&w->sc->pacer, w->deadline_ns, end_ns);
		lowlat_latency_pacer_unlock(w->sc->device);
		if (moved)
			note_release(w->sc, end_ns);
	}
	return end_ns;
}

/* Counts the call for the summary line, timestamped when our wait ended (t_ns): in late mode when
 * the app gets control back, in early mode when the frame is handed to the driver. Either way the
 * cadence the method shapes, and the same instants the pacer's grid and its time lost refer to. */
static void count_presents(struct lowlat_device *dev, const VkPresentInfoKHR *info, VkResult result,
                           int64_t t_ns)
{
	for (uint32_t i = 0; i < info->swapchainCount; i++) {
		struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
		if (sc)
			count_present(sc, info->pResults ? info->pResults[i] : result, t_ns);
	}
}

/* When a present call's steps happened, for the log. */
struct present_times {
	int64_t entry_ns, wait_begin_ns, wait_end_ns, driver_ns, return_ns;
};

/* One log record per swapchain of the call (log.c copies it into a ring: no I/O here), and the
 * start of each swapchain's next frame: when this call returns to the app. */
static void log_presents(struct lowlat_device *dev, const VkPresentInfoKHR *info,
                         const struct present_times *t)
{
	for (uint32_t i = 0; i < info->swapchainCount; i++) {
		struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
		struct lowlat_swapchain_timing *tm;
		struct lowlat_log_record rec;

		if (!sc)
			continue;
		/* A swapchain whose wait point is the app's latency sleep: its wait is that sleep's, and
		 * its frame started when the sleep released the app. */
		int64_t sleep_begin, sleep_end, sleep_target;
		bool slept = lowlat_latency_take_wait(dev, sc, &sleep_begin, &sleep_end, &sleep_target);
		tm = &sc->timing;
		if (sc->log) {
			lowlat_log_record_init(&rec);
			rec.frame_start_ns = sc->frame_start_ns;
			rec.present_ns = t->entry_ns;
			rec.wait_begin_ns = t->wait_begin_ns;
			rec.wait_end_ns = t->wait_end_ns;
			rec.driver_ns = t->driver_ns;
			/* Its wait is made later, at the app's present wait, and written in then. */
			if (sc->release_queued)
				rec.wait_begin_ns = rec.wait_end_ns = LOWLAT_LOG_UNKNOWN;
			rec.target_ns = sc->target_ns;
			if (slept) {
				rec.frame_start_ns = sleep_end;
				rec.wait_begin_ns = sleep_begin;
				rec.wait_end_ns = sleep_end;
				rec.target_ns = sleep_target;
			}
			rec.present_mode = sc->current_mode;
			rec.fallback = !sc->pacer.mfps ? LOWLAT_LOG_FALLBACK_OFF
			               : sc->pw_paced  ? LOWLAT_LOG_FALLBACK_WAIT
			                               : LOWLAT_LOG_FALLBACK_CPU;
			if (sc->timing.refresh_known)
				rec.refresh_ns = sc->timing.refresh_ns;
			if (sc->display_target_ns != LOWLAT_LOG_UNKNOWN) {
				/* The requested display time, and the lead its release allowed for. */
				rec.target_ns = sc->display_target_ns;
				rec.predicted_ready_ns = sc->timing.frame_lead_ns;
				rec.fallback = LOWLAT_LOG_FALLBACK_TIMING;
			}
			lowlat_refresh_log(sc, &rec);
			int64_t frame = lowlat_log_present(sc->log, &rec);
			/* The release this present queued for the app's present wait, and the waits made
			 * there for earlier presents, go into their rows. */
			if (sc->release_queued)
				lowlat_pw_set_log_frame(sc, frame);
			lowlat_pw_log(sc);
			/* Its display feedback goes into this row: now if it came inside this call, else
			 * when it comes. */
			for (uint32_t s = 0; s < tm->early_count; s++)
				lowlat_log_display_frame(sc->log, frame,
				                         (enum lowlat_log_stage)tm->early[s].stage,
				                         tm->early[s].time_ns);
			if (tm->pushed && !tm->current_taken)
				tm->pending[(tm->pending_first + tm->pending_count - 1) %
				            LOWLAT_TIMING_QUEUE_SIZE]
				        .log_frame = frame;
		}
		if (tm->pushed && !tm->current_taken)
			tm->pending[(tm->pending_first + tm->pending_count - 1) % LOWLAT_TIMING_QUEUE_SIZE]
			        .current = false;
		tm->pushed = tm->current_taken = false;
		tm->early_count = 0;
		sc->release_queued = sc->pw_paced = sc->cap_elsewhere = false;
		sc->target_ns = sc->display_target_ns = LOWLAT_LOG_UNKNOWN;
		sc->frame_start_ns = t->return_ns;
		sc->acquire_blocked_ns = 0;
	}
}

/* ---- display-aware pacing (VK_EXT_present_timing) ---- */

/* Swapchains one call can time: its timing infos and results live on the stack. A call presenting
 * more is paced on the CPU clock. */
#define TIMED_SWAPCHAINS_MAX 8

static bool is_fifo(VkPresentModeKHR mode)
{
	return mode == VK_PRESENT_MODE_FIFO_KHR || mode == VK_PRESENT_MODE_FIFO_RELAXED_KHR ||
	       mode == VK_PRESENT_MODE_FIFO_LATEST_READY_KHR;
}

/* The mode swapchain i of a present is presented in: its VkSwapchainPresentModeInfoKHR entry
 * (swapchain_maintenance1 switches per present), else the swapchain's latest. */
static VkPresentModeKHR present_mode_of(const VkPresentInfoKHR *info, uint32_t i,
                                        const struct lowlat_swapchain *sc)
{
	const VkSwapchainPresentModeInfoEXT *modes =
	        lowlat_chain_find(info->pNext, VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODE_INFO_EXT);

	if (modes && modes->pPresentModes && i < modes->swapchainCount)
		return modes->pPresentModes[i];
	return sc->current_mode;
}

/* Whether the swapchain's frames are paced on the display: its presents carry targets. The late
 * wait releases the app a lead before the following target; the early one hands the frame down a
 * lead before its own. */
static bool display_paced(const struct lowlat_swapchain *sc)
{
	const struct lowlat_swapchain_timing *t = &sc->timing;

	return t->active && t->refresh_known && (t->vrr || t->have_vblank) && sc->pacer.mfps &&
	       is_fifo(sc->current_mode);
}

/* The target of the present after the latest one, when the latest one missed its refresh (it was
 * shown late with no queue ahead of it, or its GPU work ended after that refresh: late_out_ns is
 * then the refresh it can make); otherwise target itself (cadence_follow_late says why):
 *  - at a cap of refresh/n (n >= 2), moved on as far as the late one is late, so that the late one
 *    is shown for its n refreshes. One n or more refreshes late moves nothing: the next frame
 *    keeps its refresh;
 *  - on the time grid of a fixed-rate display, moved to the refresh after the late one where it
 *    was planned for the refresh the late one now takes.
 * At n = 1 nothing moves: the next frame is shown in the late one's place. */
static int64_t cadence_target(const struct lowlat_swapchain_timing *t, int64_t target)
{
	if (t->target_n == 1 || t->vrr || !t->late_seq || t->late_seq != t->pushed_seq)
		return target;
	int64_t half = t->refresh_ns / 2;
	if (!t->target_n) {
		int64_t late_out = lowlat_refresh_nearest(t->late_out_ns, t->vblank_ns, t->refresh_ns);
		return target > late_out - half && target < late_out + half ? late_out + t->refresh_ns
		                                                            : target;
	}
	int64_t after_late = lowlat_refresh_nearest(t->late_out_ns + t->target_n * t->refresh_ns,
	                                            t->vblank_ns, t->refresh_ns);
	if (target < after_late - half && after_late - target < t->target_n * t->refresh_ns)
		return after_late;
	return target;
}

#ifdef VK_EXT_present_timing
/* A copy of the app's present info with our VkPresentTimingsInfoEXT in front of its chain. */
struct timed_present {
	VkPresentInfoKHR info;
	VkPresentTimingsInfoEXT timings;
	VkPresentTimingInfoEXT timing[TIMED_SWAPCHAINS_MAX];
	VkResult results[TIMED_SWAPCHAINS_MAX];
};

/* Reads every swapchain's display feedback and, when the whole call can carry timing info, fills
 * tp with this present's targets. Returns whether tp is to be presented instead of info. */
static bool timing_prepare(struct lowlat_device *dev, const VkPresentInfoKHR *info, int64_t now_ns,
                           struct timed_present *tp)
{
	bool timed = info->swapchainCount <= TIMED_SWAPCHAINS_MAX &&
	             !lowlat_chain_find(info->pNext, VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT);

	for (uint32_t i = 0; i < info->swapchainCount; i++) {
		struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);

		/* Every swapchain of a present with timing info must have the flag (and ours its domain). */
		if (!sc || !sc->timing.active) {
			timed = false;
			continue;
		}
		sc->display_target_ns = sc->timing.sample_start_ns = LOWLAT_LOG_UNKNOWN;
		sc->timing.pushed = sc->timing.judge_miss = false;
		lowlat_timing_update(sc);
	}
	if (!timed)
		return false;

	*tp = (struct timed_present){.info = *info};
	tp->timings = (VkPresentTimingsInfoEXT){.sType = VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT,
	                                        .pNext = info->pNext,
	                                        .swapchainCount = info->swapchainCount,
	                                        .pTimingInfos = tp->timing};
	tp->info.pNext = &tp->timings;
	tp->info.pResults = tp->results;
	for (uint32_t i = 0; i < info->swapchainCount; i++) {
		struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
		struct lowlat_swapchain_timing *t = &sc->timing;
		VkPresentTimingInfoEXT *ti = &tp->timing[i];

		*ti = (VkPresentTimingInfoEXT){.sType = VK_STRUCTURE_TYPE_PRESENT_TIMING_INFO_EXT,
		                               .timeDomainId = t->domain_id,
		                               .targetTimeDomainPresentStage = t->target_stage};
		/* Stage times for every present while our list of pending ones has room: it mirrors the
		 * driver's results queue, which is as large, so that queue never fills. */
		if (t->pending_count < LOWLAT_TIMING_QUEUE_SIZE)
			ti->presentStageQueries = t->stage_queries;
		/* The target planned at the previous present, only in the modes that allow one. */
		if (display_paced(sc) && t->have_target) {
			int64_t target = t->target_ns;
			/* On a fixed-rate display, whether the frame makes its refresh tunes the margin:
			 * judged here when it comes too late for it, from the display's report otherwise. */
			t->judge_miss = t->target_judged && target >= now_ns;
			if (t->target_judged && target < now_ns)
				lowlat_miss_note(&t->miss_margin, true, t->target_n);
			/* The previous present missed its refresh and its report came after this frame's
			 * release (cadence_follow_late): this frame moves on after it all the same, a
			 * refresh of latency for the late one's cadence, or for its being shown at all. */
			int64_t moved = cadence_target(t, target);
			if (moved != target) {
				target = moved;
				t->cadence_moves++;
			}
			/* The app presents after its target: the frame goes at the first refresh it can, and
			 * the grid continues from there. */
			if (target < now_ns)
				target = t->vrr ? now_ns
				                : lowlat_refresh_at_or_after(now_ns, t->vblank_ns,
				                                             t->refresh_ns);
			ti->targetTime = (uint64_t)target;
			/* On a fixed grid the target is a refresh start computed from a rounded refresh
			 * duration: nearest, so a few ns either side still mean that refresh. */
			if (!t->vrr)
				ti->flags = VK_PRESENT_TIMING_INFO_PRESENT_AT_NEAREST_REFRESH_CYCLE_BIT_EXT;
			sc->display_target_ns = target;
			sc->timing.frame_lead_ns = t->lead_ns;
		}
		t->have_target = false;
	}
	return true;
}

/* Presents the copy. A swapchain whose results queue was full is refused with
 * VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT, an error the app (which never asked for timing) cannot
 * expect: present again without stage queries. The refused present's semaphore waits did execute
 * (the spec counts its queue operations as enqueued), so the retry waits on nothing. Only when
 * every swapchain of the call was refused: the app's per-swapchain pNext arrays cannot be split. */
static VkResult timing_present(struct lowlat_device *dev, VkQueue queue, const VkPresentInfoKHR *app,
                               struct timed_present *tp)
{
	VkResult result = dev->vk.QueuePresentKHR(queue, &tp->info);
	bool all_full = true;

	for (uint32_t i = 0; i < app->swapchainCount; i++)
		all_full = all_full && tp->results[i] == VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT;
	if (all_full) {
		LOWLAT_DEBUG("present-timing results queue full; presenting again without stage queries");
		for (uint32_t i = 0; i < app->swapchainCount; i++)
			tp->timing[i].presentStageQueries = 0;
		tp->info.waitSemaphoreCount = 0;
		tp->info.pWaitSemaphores = NULL;
		result = dev->vk.QueuePresentKHR(queue, &tp->info);
	}
	for (uint32_t i = 0; i < app->swapchainCount; i++) {
		struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, app->pSwapchains[i]);
		struct lowlat_swapchain_timing *t = &sc->timing;

		if (app->pResults)
			app->pResults[i] = tp->results[i];
		if (tp->results[i] < 0) {
			sc->display_target_ns = t->prev_target_ns = LOWLAT_LOG_UNKNOWN;
			continue;
		}
		if (sc->display_target_ns != LOWLAT_LOG_UNKNOWN)
			sc->timed_presents++;
		t->prev_target_ns = sc->display_target_ns;
		/* Its results will come back in present order: note what they will be matched with. */
		if (tp->timing[i].presentStageQueries) {
			struct lowlat_pending_present *p =
			        &t->pending[(t->pending_first + t->pending_count) % LOWLAT_TIMING_QUEUE_SIZE];
			*p = (struct lowlat_pending_present){
			        .log_frame = LOWLAT_LOG_UNKNOWN,
			        .frame_start_ns = t->sample_start_ns != LOWLAT_LOG_UNKNOWN
			                                  ? t->sample_start_ns
			                                  : sc->frame_start_ns,
			        .blocked_ns =
			                t->sample_start_ns != LOWLAT_LOG_UNKNOWN ? 0 : sc->acquire_blocked_ns,
			        .vblank_latch = sc->current_mode == VK_PRESENT_MODE_FIFO_KHR ||
			                        sc->current_mode == VK_PRESENT_MODE_FIFO_LATEST_READY_KHR,
			        .relaxed = sc->current_mode == VK_PRESENT_MODE_FIFO_RELAXED_KHR,
			        .target_ns = sc->display_target_ns,
			        .judged = t->judge_miss && sc->display_target_ns != LOWLAT_LOG_UNKNOWN,
			        .seq = ++t->pushed_seq,
			        .current = true,
			};
			t->pending_count++;
			t->pushed = true;
		}
	}
	return result;
}
#endif

/* The late pacing point of a display-paced swapchain: plans the next present's target and returns
 * when to release the app for it (the target minus the lead). */
static int64_t display_release_locked(struct lowlat_swapchain *sc, int64_t now_ns);

/* The pacer is shared with the game thread's latency sleep where the device has VK_NV_low_latency2
 * on (latency_sleep.c): its lock around the grid's arithmetic, nothing else. */
static int64_t display_release(struct lowlat_swapchain *sc, int64_t now_ns)
{
	int64_t release;

	lowlat_latency_pacer_lock(sc->device);
	release = display_release_locked(sc, now_ns);
	lowlat_latency_pacer_unlock(sc->device);
	return release;
}

static int64_t display_release_locked(struct lowlat_swapchain *sc, int64_t now_ns)
{
	struct lowlat_swapchain_timing *t = &sc->timing;
	int64_t refresh = t->refresh_ns;
	int64_t n = t->vrr ? 0 : lowlat_refresh_multiple(sc->pacer.mfps, refresh);
	/* The margin follows misses on the refresh grid; on the time grid and on VRR it is the floor
	 * (pace_display.h says why). */
	bool adapts = n >= 1;
	int64_t margin = t->margin_ns >= 0 ? t->margin_ns
	                 : adapts          ? lowlat_miss_margin_ns(&t->miss_margin, refresh, n)
	                                   : lowlat_display_margin_ns(refresh, n);
	int64_t lead = lowlat_display_lead_ns(&t->ready, refresh, margin, lowlat_ready_percentile(n));
	struct lowlat_grid_plan plan;

	if (t->backlog_refreshes)
		LOWLAT_DEBUG("swapchain %ux%u: frames wait %" PRId64 " refresh(es) in the display's queue; "
		             "draining it",
		             sc->extent.width, sc->extent.height, t->backlog_refreshes);
	lowlat_grid_plan(&sc->pacer,
	                 &(struct lowlat_grid_in){
	                         .refresh_ns = refresh,
	                         .vblank_ns = t->vblank_ns,
	                         .vrr = t->vrr,
	                         .n = n,
	                         .lead_ns = lead,
	                         .now_ns = now_ns,
	                         .current_ns = sc->display_target_ns,
	                         .cpu_release_ns = sc->last_release_display ? 0 : sc->last_release_ns,
	                         .backlog_refreshes = t->backlog_refreshes,
	                 },
	                 &plan);
	if (t->backlog_refreshes) {
		t->drain_seq = t->pushed_seq;
		t->backlog_refreshes = 0;
		t->drains++;
	}
	t->target_ns = plan.target_ns;
	t->after_release_ns = plan.after_ns - lead;
	t->lead_ns = lead;
	t->target_judged = adapts;
	t->target_n = n;
	t->have_target = true;
	sc->last_release_display = true;
	return plan.target_ns - lead;
}

/* Whether a present's late release is planned on the display grid (present timing) or on the
 * refresh grid (the "drm" level): then *release_ns is that release, and *after_ns the release for
 * the frame after it, which a wait point away from the present may claim first (pace_display.h).
 * Otherwise both are 0 (no plan: the claims stop). */
static bool grid_release(struct lowlat_swapchain *sc, bool timed, int64_t now_ns, int64_t *release_ns,
                         int64_t *after_ns)
{
	if (timed && display_paced(sc)) {
		*release_ns = display_release(sc, now_ns);
		*after_ns = sc->timing.after_release_ns;
		return true;
	}
	if (lowlat_refresh_paced(sc)) {
		*release_ns = lowlat_refresh_release(sc, now_ns);
		*after_ns = sc->refresh.after_release_ns;
		return true;
	}
	*release_ns = *after_ns = 0;
	return false;
}

/* The early method on the display: swapchain i of a present that can carry timing info (no more
 * swapchains than one call can time, none without the flag, the app attaching none), paced on the
 * display. */
static bool early_display_paced(const VkPresentInfoKHR *info, uint32_t i, struct lowlat_swapchain *sc)
{
#ifndef VK_EXT_present_timing
	(void)info;
	(void)i;
	(void)sc;
	return false;
#else
	if (info->swapchainCount > TIMED_SWAPCHAINS_MAX ||
	    lowlat_chain_find(info->pNext, VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT))
		return false;
	for (uint32_t j = 0; j < info->swapchainCount; j++) {
		const struct lowlat_swapchain *other = lowlat_swapchain_of(sc->device, info->pSwapchains[j]);
		if (!other || !other->timing.active)
			return false;
	}
	/* Its settings are current: the call's first loop refreshed every swapchain of it. */
	return display_paced(sc) && is_fifo(present_mode_of(info, i, sc));
#endif
}

/* The early method's hand-off on the display: this present's target, n refreshes after the previous
 * present's (or the first refresh it can make), becomes the target timing_prepare attaches; the
 * frame goes down the lead before it, the lead being the predicted hand-off-to-ready time plus the
 * margin (display_release plans exactly that, from the previous present's target). */
static int64_t early_display_handoff(struct lowlat_swapchain *sc, int64_t now_ns)
{
	int64_t handoff;

	sc->display_target_ns = sc->timing.prev_target_ns;
	handoff = display_release(sc, now_ns);
	sc->target_ns = sc->timing.target_ns;
	sc->display_target_ns = LOWLAT_LOG_UNKNOWN;
	return handoff;
}

/* The app targets display times itself (VkPresentTimingsInfoEXT with a target): it paces itself. */
static bool app_sets_targets(const VkPresentInfoKHR *info)
{
#ifdef VK_EXT_present_timing
	const VkPresentTimingsInfoEXT *timings =
	        lowlat_chain_find(info->pNext, VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT);
	for (uint32_t i = 0; timings && timings->pTimingInfos && i < timings->swapchainCount; i++)
		if (timings->pTimingInfos[i].targetTime)
			return true;
#else
	(void)info;
#endif
	return false;
}

/* How long the latency-frames cap waits for the display to report a frame shown, in refreshes
 * after its target (or after now, when later): a frame on time is reported within one; four let a
 * frame that missed its refresh be shown up to three later before lowlat stops waiting (the display
 * or driver is then stalled, and the app must not be). */
#define LATENCY_TIMEOUT_REFRESHES 4
#define LATENCY_TIMEOUT_TEXT      "4 refreshes of its target" /* LATENCY_TIMEOUT_REFRESHES, said */

/* Timed-out waits in a row after which a swapchain's latency cap is turned off: a display that
 * reports nothing any more would otherwise cost every frame the whole timeout. */
#define LATENCY_TIMEOUTS_MAX 8

/* How long the "present-wait" level's latency cap waits for a frame to be shown: four of the cap's
 * intervals (a frame on time is shown within one, the refresh being unknown on this level), and
 * never under 100 ms, which covers four refreshes down to 40 Hz when the cap is above the refresh
 * rate. Beyond that the display or driver is stalled, and the app must not be. */
#define PW_LATENCY_TIMEOUT_INTERVALS 4
#define PW_LATENCY_TIMEOUT_MIN_NS    100000000ll /* 100 ms */

/* The gave-up count and its lines, shared by both levels' latency caps. */
static void latency_timed_out(struct lowlat_swapchain *sc, uint32_t k, const char *within)
{
	sc->latency_timeouts++;
	if (++sc->latency_timeouts_in_row == LATENCY_TIMEOUTS_MAX) {
		sc->latency_off = true;
		lowlat_msg("swapchain %ux%u: %d waits in a row for the display to report a frame "
		           "shown timed "
		           "out; max_latency_frames is off for this swapchain",
		           sc->extent.width, sc->extent.height, LATENCY_TIMEOUTS_MAX);
	}
	LOWLAT_WARN_ONCE("swapchain %ux%u: frame %" PRIu64 " was not reported shown within %s; released "
	                 "the app anyway (max_latency_frames %u; counted in the swapchain's summary)",
	                 sc->extent.width, sc->extent.height, sc->presents, within, k);
}

/* A wait for a present that returned within this found its frame already shown: its return is
 * the call's own cost, not a refresh start, so it is no sample of the grid. (A frame that goes out
 * within 50 us of the call only costs the one sample.) */
#define PW_BLOCKED_MIN_NS 50000ll /* 50 us */

/* Whether this present of a swapchain on the "present-wait" level gets its latency-frames cap
 * (k = max_latency_frames > 0, while lowlat caps it, late method, FIFO-family present). Not where
 * the app's latency sleep or its own present wait on another thread is the wait point: a wait here
 * would stall its submit thread. */
static bool present_wait_capped(struct lowlat_device *dev, struct lowlat_swapchain *sc)
{
	return sc->level == LOWLAT_LEVEL_PRESENT_WAIT && sc->ids_owned && sc->present_id &&
	       sc->config.max_latency_frames && sc->pacer.mfps && !sc->latency_off &&
	       sc->config.method == LOWLAT_METHOD_LATE && is_fifo(sc->current_mode) &&
	       !lowlat_latency_owns_wait(dev, sc);
}

/* The "present-wait" level's release, inside the app's present call (the app's external
 * synchronisation of the swapchain covers lowlat's wait: the spec makes both commands externally
 * synchronise it): first the latency-frames cap, frame N+1-k shown by lowlat's own
 * vkWaitForPresentKHR for that frame's id (lowlat's ids go up by one a present), bounded by the
 * timeout; then, with k = 1, the CPU grid's deadline moved to just in time for the first refresh
 * it can make (pace_wait.h), the wait's return being that refresh's start. */
static int64_t present_wait_release(struct lowlat_swapchain *sc, int64_t deadline_ns)
{
	uint32_t k = sc->config.max_latency_frames;
	int64_t timeout_ns = PW_LATENCY_TIMEOUT_INTERVALS * lowlat_pacer_interval_ns(&sc->pacer);
	int64_t begin_ns, end_ns;
	char within[48];

	if (sc->present_id < k)
		return deadline_ns;
	if (timeout_ns < PW_LATENCY_TIMEOUT_MIN_NS)
		timeout_ns = PW_LATENCY_TIMEOUT_MIN_NS;
	if (timeout_ns > LOWLAT_MAX_WAIT_NS)
		timeout_ns = LOWLAT_MAX_WAIT_NS;
	begin_ns = lowlat_now_ns();
	VkResult r = lowlat_ids_wait_shown(sc, sc->present_id - (k - 1), timeout_ns);
	end_ns = lowlat_now_ns();
	if (r == VK_SUCCESS) {
		sc->latency_waits++;
		sc->latency_timeouts_in_row = 0;
		if (k == 1 && end_ns - begin_ns >= PW_BLOCKED_MIN_NS)
			lowlat_pw_phase_shown(&sc->pw_phase, end_ns);
		else
			lowlat_pw_phase_forget(&sc->pw_phase);
	} else {
		lowlat_pw_phase_forget(&sc->pw_phase);
		if (r == VK_TIMEOUT) {
			snprintf(within, sizeof(within), "%.0f ms", (double)timeout_ns * 1e-6);
			latency_timed_out(sc, k, within);
		}
		/* OUT_OF_DATE, SURFACE_LOST, DEVICE_LOST: the frame will not be shown; the app learns it
		 * at its next call on the swapchain, which this release lets it make at once. */
		return deadline_ns;
	}
	if (k != 1)
		return deadline_ns;
	/* The pacing deadline the log shows is the one used. */
	sc->target_ns = lowlat_pw_phase_release(&sc->pw_phase, deadline_ns > end_ns ? deadline_ns : end_ns,
	                                        lowlat_pacer_interval_ns(&sc->pacer));
	return sc->target_ns;
}

/* A frame presented in time for its refresh but not ready for it (its GPU work ended late) is shown
 * a refresh or more late, and the frame after it moves on with it where that keeps what the cap
 * asks for:
 *  - at a cap of refresh/n, n >= 2, every frame is shown for n refreshes. If the next frame kept
 *    its target, the late one would be shown for n - 1 and the one before it for n + 1: two frames
 *    off the cadence. Moved as far as the late one is late, only the one before it is;
 *  - on the time grid of a fixed-rate display (117 on 120 Hz) the next frame is often planned for
 *    the refresh the late one now takes, and in FIFO_LATEST_READY would replace it: a frame drawn
 *    and never shown, and a repeated refresh the grid does not win back. Moved a refresh on, the
 *    late frame is shown, and the frames after it follow a refresh behind their grid points until
 *    the cap's own repeat, whose refresh they take back (the slack of pace_display.h): the late
 *    frame costs the refresh it missed and nothing more.
 * At the next frame's release (after the wait) the late one's report is read: the end of its GPU
 * work comes in an incomplete report as soon as the driver has it (present_timing.c,
 * take_partial), its first pixel once it is shown. Then the next target moves, and the release
 * with it. Known only by the next frame's present, just its target moves (timing_prepare), a
 * refresh of latency for that frame. At n = 1 nothing moves: FIFO_LATEST_READY shows the next
 * frame in the late one's stead, the newest frame on the first refresh it can have. */
static void cadence_follow_late(struct lowlat_swapchain *sc)
{
	struct lowlat_swapchain_timing *t = &sc->timing;

	if (!t->active || !t->pushed || !t->have_target || t->target_n == 1 || sc->release_queued ||
	    sc->cap_elsewhere || !display_paced(sc))
		return;
	lowlat_timing_update(sc);
	int64_t moved = cadence_target(t, t->target_ns);
	if (moved == t->target_ns)
		return;
	t->after_release_ns += moved - t->target_ns;
	t->target_ns = moved;
	t->cadence_moves++;
	lowlat_sleep_until_ns(&sc->sleeper, moved - t->lead_ns);
}

/* The latency-frames cap (max_latency_frames = k, while lowlat caps, on swapchains with present
 * timing or present wait), at the late pacing point: before the app may start frame N+1, frame
 * N+1-k must have been reported shown; with k = 1, the frame just presented. Its display feedback is polled
 * inside this present call (the swapchain is externally synchronised here), never longer than the timeout, so
 * a display that stops reporting cannot hang the game.
 *
 * One exception, in FIFO_LATEST_READY: frame N missed its refresh (its target has passed and it is
 * not shown) while frame N+1's target is a later refresh. Waiting for N to be shown would release
 * N+1 a refresh late, so it would miss its own refresh too: one late frame would cost the next one
 * a whole refresh of latency as well (measured with tools/bench-display at 120 Hz, 2 ms frames:
 * each miss left the next frame 8.0 ms from start to first pixel instead of 3.5). Released on its
 * grid instead, N+1 is ready first and the display shows it in N's place (latest ready wins; N is
 * skipped), so nothing stands in the queue behind V-Sync. So there N may stay unshown: one frame
 * more than k, and only a frame that is already late. */
static bool latency_late_frame_superseded(const VkPresentInfoKHR *info, uint32_t i,
                                          const struct lowlat_swapchain *sc, int64_t now_ns)
{
	const struct lowlat_swapchain_timing *t = &sc->timing;

	return present_mode_of(info, i, sc) == VK_PRESENT_MODE_FIFO_LATEST_READY_KHR &&
	       sc->display_target_ns != LOWLAT_LOG_UNKNOWN && sc->display_target_ns <= now_ns &&
	       t->have_target && t->target_ns > sc->display_target_ns;
}

static void latency_cap(struct lowlat_device *dev, const VkPresentInfoKHR *info, VkResult result)
{
	for (uint32_t i = 0; i < info->swapchainCount; i++) {
		struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
		struct lowlat_swapchain_timing *t;
		uint32_t k, unshown;
		int64_t now_ns, base_ns, deadline_ns;

		if (!sc || present_failed(info->pResults ? info->pResults[i] : result))
			continue;
		t = &sc->timing;
		k = sc->config.max_latency_frames;
		/* Its cap came with its release (present_wait_release). Or the wait point is away from
		 * the present, at the app's present wait or latency sleep on the display grid: the
		 * release there is timed after the earlier frames' targets, and a wait here would hold
		 * the app's submit thread. */
		if (sc->level == LOWLAT_LEVEL_PRESENT_WAIT || sc->release_queued || sc->cap_elsewhere)
			continue;
		/* Only a present whose report is to come (it asked for stage times) can be waited for. */
		if (!k || !sc->pacer.mfps || !t->active || !t->pushed || !t->refresh_known || sc->latency_off)
			continue;
		/* Usually the pacing wait already outlasted the frame's way to the screen. */
		lowlat_timing_update(sc);
		if (t->pending_count <= k - 1)
			continue;
		now_ns = lowlat_now_ns();
		unshown = k - 1;
		if (latency_late_frame_superseded(info, i, sc, now_ns)) {
			sc->latency_superseded++;
			if (t->pending_count <= k)
				continue;
			/* Frames before the late one are unshown too: wait for those. */
			unshown = k;
		}
		base_ns = sc->display_target_ns != LOWLAT_LOG_UNKNOWN && sc->display_target_ns > now_ns
		                  ? sc->display_target_ns
		                  : now_ns;
		deadline_ns = base_ns + LATENCY_TIMEOUT_REFRESHES * t->refresh_ns;
		if (deadline_ns > now_ns + LOWLAT_MAX_WAIT_NS)
			deadline_ns = now_ns + LOWLAT_MAX_WAIT_NS;
		if (lowlat_timing_wait_shown(sc, unshown, deadline_ns)) {
			sc->latency_waits++;
			sc->latency_timeouts_in_row = 0;
			continue;
		}
		latency_timed_out(sc, k, LATENCY_TIMEOUT_TEXT);
	}
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	LOWLAT_HOOK_DEVICE(dev, queue, QueuePresentKHR, VK_ERROR_DEVICE_LOST)
	struct lowlat_swapchain *first = NULL;
	struct present_wait wait = {0};
	struct present_times t = {.entry_ns = lowlat_now_ns()};
	struct lowlat_mode_present mp;
	struct lowlat_ids_present ids;
	bool timed = false;
	VkResult result;

	lowlat_config_global_tick(t.entry_ns);
	/* Every swapchain's settings up to date, then its present mode for this present (a copy of the
	 * present info when lowlat states or changes modes; present_mode.h). */
	for (uint32_t i = 0; i < info->swapchainCount; i++) {
		struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
		if (sc) {
			swapchain_refresh(sc);
			/* The app's present wait or latency sleep released this frame on the display grid
			 * or the refresh grid: it started then, not when the previous present returned
			 * (which waited for nothing). Both count the present; a sleeping app's sleeps are
			 * its wait point. */
			int64_t wait_start, sleep_start;
			bool waited = lowlat_pw_frame_start(sc, &wait_start);
			if (lowlat_latency_frame_start(dev, sc, &sleep_start))
				sc->frame_start_ns = sleep_start;
			else if (waited)
				sc->frame_start_ns = wait_start;
			/* After the frame's start is known: the "drm" level's lead is measured from it. */
			lowlat_refresh_present(sc, t.entry_ns);
		}
	}
	info = lowlat_mode_present(dev, info, &mp);
	/* The app's own present ids, for its present wait's wait point (present_wait.c); the driver
	 * gets lowlat's on swapchains whose ids it owns (present_ids.h). */
	const VkPresentInfoKHR *app_ids = info;
	info = lowlat_ids_present(dev, info, &ids);
	/* The call's method is its first tracked swapchain's. Every swapchain follows the one process
	 * config, so they differ only for the one present at which a change reaches them. */
	for (uint32_t i = 0; i < info->swapchainCount && !first; i++)
		if ((first = lowlat_swapchain_of(dev, info->pSwapchains[i])))
			swapchain_refresh(first);

	bool app_targets = first && app_sets_targets(info) && !first->config.stack_limiters;
	if (app_targets && !first->app_targets_told) {
		first->app_targets_told = true;
		lowlat_msg("swapchain %ux%u: the app sets its own present-timing targets; lowlat adds no cap "
		           "of its own (stack_limiters: false)",
		           first->extent.width, first->extent.height);
	}

	if (first && first->config.method == LOWLAT_METHOD_EARLY) {
		t.wait_begin_ns = t.entry_ns;
		for (uint32_t i = 0; i < info->swapchainCount; i++) {
			struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
			if (!sc || app_targets)
				continue;
			/* The early method's hand-off is in the present: the sleeps go on the CPU grid. */
			if (lowlat_latency_owns_wait(dev, sc)) {
				lowlat_latency_plan(dev, sc, 0, 0);
				continue;
			}
			/* On the display: the frame is handed down a lead before its own target, planned
			 * from the previous present's (the display's feedback read first, as the late
			 * path's present does before it plans). */
			lowlat_timing_update(sc);
			if (early_display_paced(info, i, sc))
				wait_consider(&wait, sc, early_display_handoff(sc, t.wait_begin_ns), false);
			else
				wait_consider(&wait, sc, swapchain_deadline(sc, t.wait_begin_ns), true);
		}
		t.wait_end_ns = wait_do(&wait, t.wait_begin_ns);
#ifdef VK_EXT_present_timing
		struct timed_present tp;
		timed = timing_prepare(dev, info, t.wait_end_ns, &tp);
		/* The early lead covers hand-off to ready: its samples start here. */
		for (uint32_t i = 0; timed && i < info->swapchainCount; i++)
			lowlat_swapchain_of(dev, info->pSwapchains[i])->timing.sample_start_ns =
			        t.wait_end_ns;
		result = timed ? timing_present(dev, queue, info, &tp) : dev->vk.QueuePresentKHR(queue, info);
#else
		result = dev->vk.QueuePresentKHR(queue, info);
#endif
		t.driver_ns = t.return_ns = lowlat_now_ns();
		count_presents(dev, info, result, t.wait_end_ns);
	} else {
#ifdef VK_EXT_present_timing
		struct timed_present tp;
		timed = timing_prepare(dev, info, t.entry_ns, &tp);
		result = timed ? timing_present(dev, queue, info, &tp) : dev->vk.QueuePresentKHR(queue, info);
#else
		result = dev->vk.QueuePresentKHR(queue, info);
#endif
		t.driver_ns = t.wait_begin_ns = lowlat_now_ns();
		for (uint32_t i = 0; i < info->swapchainCount; i++) {
			struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
			VkResult r = info->pResults ? info->pResults[i] : result;

			/* A frame that was not shown (out of date, surface lost) is not paced: the app is
			 * about to recreate the swapchain or quit, and a wait would only delay that. */
			if (!sc || present_failed(r) || app_targets)
				continue;
			/* Its wait is in the app's latency sleep, on the game thread: on the display grid
			 * or the refresh grid the sleeps to come are planned here (each frame released a
			 * lead before its own target or vblank), and on the display grid the frame's
			 * latency cap is the sleep's timing. */
			int64_t release, after;
			if (lowlat_latency_owns_wait(dev, sc)) {
				sc->cap_elsewhere =
				        grid_release(sc, timed, t.wait_begin_ns, &release, &after);
				lowlat_latency_plan(dev, sc, release, after);
				continue;
			}
			/* On the display grid this present's pacing target is its display target. */
			if (timed && display_paced(sc))
				sc->target_ns = sc->display_target_ns;
			bool cpu_grid = !grid_release(sc, timed, t.wait_begin_ns, &release, &after);
			if (cpu_grid)
				release = swapchain_deadline(sc, t.wait_begin_ns);
			/* In FIFO modes the app may wait for its presents on another thread: then the
			 * release is waited for there (present_wait.c), and this present returns at once.
			 * On the display grid and the refresh grid the claim picks the target or vblank its
			 * frame will get (present_wait.h), and its end is that frame's start. Not on the CPU
			 * clock of a swapchain with present timing that does not know its refresh yet: its
			 * lead is learned from when each frame starts, which is this present's return only
			 * when the release is waited for here. */
			sc->release_queued = sc->pacer.mfps &&
			                     (after != 0 || (!sc->timing.active && !sc->refresh.released)) &&
			                     is_fifo(present_mode_of(info, i, sc)) &&
			                     lowlat_pw_queue(sc, lowlat_pw_present_id(app_ids, i), release,
			                                     after, LOWLAT_LOG_UNKNOWN);
			if (sc->release_queued) {
				note_release(sc, release);
			} else {
				lowlat_pw_waits_here(sc);
				if ((sc->pw_paced = present_wait_capped(dev, sc)))
					release = present_wait_release(sc, release);
				wait_consider(&wait, sc, release, cpu_grid && !sc->pw_paced);
			}
		}
		wait_do(&wait, t.wait_begin_ns);
		for (uint32_t i = 0; i < info->swapchainCount; i++) {
			struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
			if (sc && !app_targets)
				cadence_follow_late(sc);
		}
		latency_cap(dev, info, result);
		t.wait_end_ns = t.return_ns = lowlat_now_ns();
		count_presents(dev, info, result, t.wait_end_ns);
	}
	log_presents(dev, info, &t);
	return result;
}
