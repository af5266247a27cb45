/* present.c — the present hook: each vkQueuePresentKHR goes through the same steps.
 *
 *   begin     resolve what the call touches, once (present_call.h);
 *   observe   each swapchain's settings, the start of the frame being presented, what its pacing
 *             level learns from, and the present modes and ids to hand down;
 *   release   each swapchain's release, planned by its level (level.h) or on the CPU grid, given
 *             to the wait point that will keep it (the app's latency sleep or present wait, or
 *             this call), then the call's one wait and what the levels keep after it;
 *   hand down the driver's present, with lowlat's targets where the call can carry them;
 *   record    the summary counts, the log rows and the next frame's start (present_record.c).
 * Late method: hand down, then release, so the app starts its next frame as late as the cap allows.
 * Early method: release, then hand down at the release.
 *
 * One call waits once, until the latest release among its swapchains: their images go down
 * together, so the call cannot honour one swapchain's cap without holding the others too, and
 * waiting for the latest keeps every one of them at or under its cap. No lock of ours is held
 * while waiting or calling down.
 */
#include <stdatomic.h>

#include "config.h"
#include "level.h"
#include "level_cpu.h"
#include "log.h"
#include "message.h"
#include "objects.h"
#include "present.h"
#include "present_call.h"
#include "present_ids.h"
#include "present_mode.h"
#include "present_record.h"
#include "present_timing.h"
#include "present_wait.h"
#include "swapchain.h"
#include "swapchain_life.h"
#include "wait_point.h"

/* Resolves the call; false when lowlat has nothing to do with it (it then goes down untouched). */
static bool begin(struct lowlat_present_call *c, struct lowlat_device *dev, VkQueue queue,
                  const VkPresentInfoKHR *info)
{
	*c = (struct lowlat_present_call){
	        .dev = dev, .queue = queue, .app = info, .count = info->swapchainCount};
	c->t.entry_ns = lowlat_now_ns();
	if (c->count > LOWLAT_CALL_SWAPCHAINS_MAX) {
		LOWLAT_WARN_ONCE("a present of %u swapchains at once (more than %d): passed through unpaced",
		                 c->count, LOWLAT_CALL_SWAPCHAINS_MAX);
		return false;
	}
	for (uint32_t i = 0; i < c->count; i++) {
		struct lowlat_frame *f = &c->frames[i];
		*f = (struct lowlat_frame){.sc = lowlat_swapchain_of(dev, info->pSwapchains[i]),
		                           .call = c,
		                           .index = i,
		                           .target_ns = LOWLAT_LOG_UNKNOWN,
		                           .display_target_ns = LOWLAT_LOG_UNKNOWN,
		                           .display_ask_ns = LOWLAT_LOG_UNKNOWN};
		if (!c->first)
			c->first = f->sc;
	}
	if (!c->first)
		return false;
	lowlat_present_chain_scan(&c->chain, info->pNext);
	lowlat_ids_app_ids(c);
	lowlat_timing_app_chain(c);
	return true;
}

/* What each swapchain's level and wait points learn before anything goes down, then the present
 * modes and ids to hand down (present_mode.h, present_ids.h). */
static void observe(struct lowlat_present_call *c)
{
	for (uint32_t i = 0; i < c->count; i++) {
		struct lowlat_frame *f = &c->frames[i];
		struct lowlat_swapchain *sc = f->sc;
		int64_t wait_start, sleep_start;

		if (!sc)
			continue;
		lowlat_swapchain_settings(sc);
		/* The app's present wait or latency sleep released this frame on a grid: it started
		 * then, not when the previous present returned (which waited for nothing). */
		bool waited = lowlat_pw_frame_start(sc, &wait_start);
		if (lowlat_point_frame_start(c->dev, sc, &sleep_start))
			sc->frame_start_ns = sleep_start;
		else if (waited)
			sc->frame_start_ns = wait_start;
		if (sc->level->observe)
			sc->level->observe(f);
	}
	struct lowlat_swapchain *first = c->first;
	c->early = first->config.method == LOWLAT_METHOD_EARLY;
	if (c->app_targets && !first->app_targets_told) {
		first->app_targets_told = true;
		/* News for the player only when a cap was asked for. */
		if (!first->pacer.mfps)
			LOWLAT_INFO("swapchain %ux%u: the app sets its own present-timing targets",
			            first->extent.width, first->extent.height);
		else if (c->early)
			LOWLAT_WARN_LIMITED(
			        "swapchain %ux%u: the app sets its own present-timing targets; they "
			        "stay as it set them, and the cap holds on the CPU clock (method early)",
			        first->extent.width, first->extent.height);
		else
			LOWLAT_WARN_LIMITED(
			        "swapchain %ux%u: the app sets its own present-timing targets; the cap "
			        "holds over them (a target earlier than the cap's grid moves to it, a "
			        "later one stays)",
			        first->extent.width, first->extent.height);
	}
}

/* The frame's release on its level's grid, else on the CPU grid. */
static void plan(struct lowlat_frame *f, int64_t now_ns)
{
	const struct lowlat_level *level = f->sc->level;

	if (!level->grid || !level->grid(f, now_ns))
		lowlat_cpu_plan(f, now_ns);
}

/* Gives the frame's release to the wait point that keeps it. Where the app sleeps for it (its
 * latency sleep or anti-lag input call), the sleeps to come take the grid's releases (none on the
 * CPU grid: the sleep has the pacer itself), and on a display grid its latency cap too. Where the
 * app waits for its presents on another thread, in a FIFO mode, the release waits there
 * (present_wait.h). Otherwise this call waits for it. */
static void route(struct lowlat_present_call *c, struct lowlat_frame *f, int64_t now_ns)
{
	struct lowlat_swapchain *sc = f->sc;

	if (lowlat_point_owns_wait(c->dev, sc)) {
		bool grid = !c->early && sc->level->grid && sc->level->grid(f, now_ns);
		f->cap_elsewhere = grid;
		lowlat_point_plan(c->dev, sc, grid ? f->release_ns : 0, grid ? f->after_ns : 0);
		return;
	}
	plan(f, now_ns);
	/* On the CPU clock of a swapchain with present timing that does not know its refresh yet, the
	 * lead is learned from when each frame starts, which is this present's return only when the
	 * release is waited for here. */
	f->queued = !c->early && sc->pacer.mfps &&
	            (f->after_ns || !sc->level->starts_at_return || !sc->level->starts_at_return(f)) &&
	            lowlat_mode_is_fifo(sc->current_mode) &&
	            lowlat_pw_queue(sc, f->app_id, f->release_ns, f->after_ns, LOWLAT_LOG_UNKNOWN);
	if (f->queued) {
		lowlat_swapchain_released(sc, f->release_ns, f->grid);
		return;
	}
	if (!c->early) {
		lowlat_pw_waits_here(sc);
		if (sc->level->hold)
			f->release_ns = sc->level->hold(f, f->release_ns);
	}
	lowlat_swapchain_released(sc, f->release_ns, f->grid);
	if (!c->waiter || f->release_ns > c->waiter->release_ns)
		c->waiter = f;
}

/* Each paced frame's release, the call's wait for the latest, and what the levels keep after it.
 * A frame that was not shown (out of date, surface lost) is not paced: the app is about to
 * recreate the swapchain or quit, and a wait would only delay that. One whose own target stood is
 * the app's to pace: its release is planned, for the grid to go on from, and not waited for (two
 * limiters would each hold the frame for the other's deadline). */
static void release(struct lowlat_present_call *c, int64_t now_ns)
{
	c->t.wait_begin_ns = now_ns;
	for (uint32_t i = 0; i < c->count; i++) {
		struct lowlat_frame *f = &c->frames[i];
		if (!f->sc || f->result < 0)
			continue;
		if (f->app_rules) {
			plan(f, now_ns);
			lowlat_swapchain_released(f->sc, f->release_ns, f->grid);
		} else {
			route(c, f, now_ns);
		}
	}
	c->t.wait_end_ns = lowlat_now_ns();
	if (c->waiter) {
		struct lowlat_frame *w = c->waiter;
		lowlat_sleep_until_ns(&w->sc->sleeper, w->release_ns,
		                      w->grid || w->level_paced ? LOWLAT_WAIT_COVERED : LOWLAT_WAIT_PRECISE);
		c->t.wait_end_ns = lowlat_now_ns();
		if (!w->grid && !w->level_paced)
			lowlat_cpu_woke(w->sc, w->release_ns, now_ns, c->t.wait_end_ns);
	}
	if (c->early)
		return;
	for (uint32_t i = 0; i < c->count; i++) {
		struct lowlat_frame *f = &c->frames[i];
		if (f->sc && f->result >= 0 && !f->app_rules && f->sc->level->settle)
			f->sc->level->settle(f);
	}
	/* The late method's wait includes what the levels kept: the app gets control back now. */
	c->t.wait_end_ns = lowlat_now_ns();
}

/* The driver's present: with lowlat's targets where the whole call can carry them. */
static void hand_down(struct lowlat_present_call *c, int64_t now_ns)
{
	if (!lowlat_timing_present(c, now_ns))
		c->result = c->dev->vk.QueuePresentKHR(c->queue, lowlat_call_down(c));
	for (uint32_t i = 0; i < c->count; i++)
		c->frames[i].result = c->app->pResults ? c->app->pResults[i] : c->result;
	c->t.driver_ns = lowlat_now_ns();
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	LOWLAT_HOOK_DEVICE(dev, queue, QueuePresentKHR, VK_ERROR_DEVICE_LOST)
	struct lowlat_present_call c;
	struct lowlat_mode_present modes;
	struct lowlat_ids_present ids;

	if (!begin(&c, dev, queue, info))
		return dev->vk.QueuePresentKHR(queue, info);
	observe(&c);
	lowlat_mode_present(&c, &modes);
	lowlat_ids_present(&c, &ids);
	if (c.early) {
		release(&c, c.t.entry_ns);
		hand_down(&c, c.t.wait_end_ns);
	} else {
		hand_down(&c, c.t.entry_ns);
		release(&c, c.t.driver_ns);
	}
	c.t.return_ns = lowlat_now_ns();
	lowlat_present_record(&c);
	return c.result;
}
