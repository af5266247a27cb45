/* level_timing.c — the "timing" pacing level: each present carries a target display time
 * (VK_EXT_present_timing), on the refresh grid when the cap is at or near refresh/n, else on the
 * time grid moved to the next refresh (VRR: the time grid itself), planned with pace_grid.h from
 * the display's reports (present_timing.c). The late wait releases the app the predicted
 * frame-start-to-ready time before the next target; the early one hands the frame down that lead
 * before its own. Targets go only into FIFO, FIFO_RELAXED and FIFO_LATEST_READY presents (the spec
 * allows no others), only when every swapchain of the call has the present-timing flag, and in
 * place of an app's own target only where that is earlier than the cap's grid (present_timing.c;
 * the early method leaves an app's timing info alone). After the wait the level keeps the
 * latency-frames cap from the display's reports, and moves the next frame on after a late one.
 * See level.h. */
#include <inttypes.h>

#include "clock.h"
#include "level.h"
#include "log.h"
#include "message.h"
#include "pace_display.h"
#include "pace_grid.h"
#include "present_call.h"
#include "present_timing.h"
#include "swapchain.h"
#include "wait_point.h"

/* How long the latency-frames cap waits for the display to report a frame shown, in refreshes
 * after its target (or after now, when later): a frame on time is reported within one; four let a
 * frame that missed its refresh be shown up to three later before lowlat stops waiting (the display
 * or driver is then stalled, and the app must not be). */
#define LATENCY_TIMEOUT_REFRESHES 4
#define LATENCY_TIMEOUT_TEXT      "4 refreshes of its target" /* LATENCY_TIMEOUT_REFRESHES, said */

/* Whether the swapchain's frames are paced on the display: its presents carry targets. */
static bool display_paced(const struct lowlat_swapchain *sc)
{
	const struct lowlat_swapchain_timing *t = &sc->timing;

	return t->active && t->refresh_known && (t->vrr || t->have_vblank) && sc->pacer.mfps &&
	       lowlat_mode_is_fifo(sc->current_mode);
}

/* The target of the present after the latest one, when the latest one missed its refresh (it was
 * shown late with no queue ahead of it, or its GPU work ended after that refresh: late_out_ns is
 * then the refresh it can make); otherwise target itself (settle says why):
 *  - at a cap of refresh/n (n >= 2), moved on as far as the late one is late, so that the late one
 *    is shown for its n refreshes. One n or more refreshes late moves nothing;
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

/* Plans the next target after current_ns (this present's target, INT64_MIN when it has none) and
 * returns when to release the app for it (the target minus the lead). The margin follows misses
 * on the refresh grid; on the time grid and on VRR it is the floor (pace_display.h says why). */
static int64_t display_release(struct lowlat_swapchain *sc, int64_t now_ns, int64_t current_ns)
{
	struct lowlat_swapchain_timing *t = &sc->timing;
	int64_t refresh = t->refresh_ns;
	int64_t n = t->vrr ? 0 : lowlat_refresh_multiple(sc->pacer.mfps, refresh);
	bool adapts = n >= 1;
	int64_t margin = t->margin_ns >= 0 ? t->margin_ns
	                 : adapts          ? lowlat_miss_margin_ns(&t->miss_margin, refresh, n)
	                                   : lowlat_display_margin_ns(refresh, n);
	int64_t lead = lowlat_display_lead_ns(&t->ready, refresh, margin, lowlat_ready_percentile(n));
	struct lowlat_grid_plan plan;

	/* Without targets (Mesa's Wayland WSI without commit-timing) FIFO shows a frame on the first
	 * refresh after it is ready: one released more than a refresh before its target can be ready
	 * for the refresh before it, and be shown a refresh early, the next one then a refresh late. A
	 * release a refresh before the target at the earliest keeps the cadence; a frame that needs
	 * longer is shown a refresh late every time, evenly. */
	if (t->targets == LOWLAT_TARGETS_NONE && n >= 2 && lead > refresh)
		lead = refresh;

	if (t->backlog_refreshes)
		LOWLAT_DEBUG("swapchain %ux%u: frames wait %" PRId64 " refresh(es) in the display's queue; "
		             "draining it",
		             sc->extent.width, sc->extent.height, t->backlog_refreshes);
	lowlat_swapchain_grid_plan(sc,
	                           &(struct lowlat_grid_in){
	                                   .refresh_ns = refresh,
	                                   .vblank_ns = t->vblank_ns,
	                                   .vrr = t->vrr,
	                                   .n = n,
	                                   .lead_ns = lead,
	                                   .now_ns = now_ns,
	                                   .current_ns = current_ns,
	                                   .backlog_refreshes = t->backlog_refreshes,
	                           },
	                           &plan);
	if (t->backlog_refreshes) {
		/* Presents made before this drain still report the old queue (present_timing.c). */
		t->drain_seq = t->pushed_seq;
		t->backlog_refreshes = 0;
		t->drains++;
	}
	t->target_ns = plan.target_ns;
	t->after_release_ns = plan.after_ns - lead;
	t->lead_ns = lead;
	t->target_judged = adapts;
	t->target_held = false;
	t->target_n = n;
	t->have_target = true;
	return plan.target_ns - lead;
}

/* The early method on the display: the call can carry timing info (no app timings, every
 * swapchain with the flag) and this swapchain is paced on the display in a FIFO mode. */
static bool early_display_paced(const struct lowlat_frame *f)
{
	const struct lowlat_present_call *c = f->call;

	if (c->app_timings)
		return false;
	for (uint32_t j = 0; j < c->count; j++)
		if (!c->frames[j].sc || !c->frames[j].sc->timing.active)
			return false;
	return display_paced(f->sc);
}

/* The release on the display grid. Late: the next present's target planned from this one's, and
 * the app released the lead before it. Early: this present's target, n refreshes after the
 * previous present's (or the first refresh it can make), which the hand-down attaches; the frame
 * goes down the lead before it, the lead being the predicted hand-off-to-ready time plus the
 * margin. */
static bool grid(struct lowlat_frame *f, int64_t now_ns)
{
	struct lowlat_swapchain *sc = f->sc;

	if (f->call->early) {
		/* The display's reports read first, as the late path's hand-down does before it plans. */
		lowlat_timing_update(sc);
		if (!early_display_paced(f))
			return false;
		f->release_ns = display_release(sc, now_ns, sc->timing.prev_target_ns);
		f->target_ns = sc->timing.target_ns;
		f->after_ns = 0;
	} else {
		if (!f->call->timed || !display_paced(sc))
			return false;
		/* This present's pacing target is its display target. */
		f->target_ns = f->display_target_ns;
		f->release_ns = display_release(sc, now_ns, f->display_target_ns);
		f->after_ns = sc->timing.after_release_ns;
	}
	f->grid = true;
	return true;
}

int64_t lowlat_timing_target(struct lowlat_frame *f, int64_t now_ns)
{
	struct lowlat_swapchain *sc = f->sc;
	struct lowlat_swapchain_timing *t = &sc->timing;
	int64_t target;

	if (!display_paced(sc) || !t->have_target) {
		t->have_target = false;
		return LOWLAT_LOG_UNKNOWN;
	}
	target = t->target_ns;
	t->have_target = false;
	/* On a fixed-rate display, whether the frame makes its refresh tunes the margin: judged here
	 * when it comes too late for it, from the display's report otherwise. Not a frame the latency
	 * cap held behind a late one: in FIFO that one takes this frame's refresh, and the lead had no
	 * say (the late one's miss already raised the margin for both, pace_display.h). */
	t->judge_miss = t->target_judged && target >= now_ns;
	if (t->target_judged && target < now_ns && !t->target_held)
		lowlat_miss_note(&t->miss_margin, true, t->target_n,
		                 sc->current_mode == VK_PRESENT_MODE_FIFO_KHR);
	t->target_held = false;
	/* The previous present missed its refresh and its report came after this frame's release
	 * (settle): this frame moves on after it all the same, a refresh of latency for the late
	 * one's cadence, or for its being shown at all. */
	int64_t moved = cadence_target(t, target);
	if (moved != target) {
		target = moved;
		t->cadence_moves++;
	}
	/* The app presents after its target: the frame goes at the first refresh it can, and the
	 * grid continues from there. */
	if (target < now_ns)
		target = t->vrr ? now_ns : lowlat_refresh_at_or_after(now_ns, t->vblank_ns, t->refresh_ns);
	t->frame_lead_ns = t->lead_ns;
	return target;
}

/* A frame presented in time for its refresh but not ready for it (its GPU work ended late) is shown
 * a refresh or more late, and the frame after it moves on with it where that keeps what the cap
 * asks for (cadence_target): at refresh/n the late one keeps its n refreshes rather than putting
 * two frames off the cadence; on the time grid it is shown rather than replaced in
 * FIFO_LATEST_READY by the next frame planned for the refresh it now takes. At the next frame's
 * release (after the wait) the late one's report is read: the end of its GPU work comes in an
 * incomplete report as soon as the driver has it, its first pixel once it is shown. Then the next
 * target moves, and the release with it. Known only by the next frame's present, just its target
 * moves (lowlat_timing_target), a refresh of latency for that frame. */
static void follow_late(struct lowlat_frame *f)
{
	struct lowlat_swapchain *sc = f->sc;
	struct lowlat_swapchain_timing *t = &sc->timing;

	if (!t->pushed || !t->have_target || t->target_n == 1 || f->queued || f->cap_elsewhere ||
	    !display_paced(sc))
		return;
	lowlat_timing_update(sc);
	int64_t moved = cadence_target(t, t->target_ns);
	if (moved == t->target_ns)
		return;
	t->after_release_ns += moved - t->target_ns;
	t->target_ns = moved;
	t->cadence_moves++;
	lowlat_sleep_until_ns(&sc->sleeper, moved - t->lead_ns, LOWLAT_WAIT_COVERED);
}

/* In FIFO_LATEST_READY, frame N missed its refresh (its target has passed and it is not shown)
 * while frame N+1's target is a later refresh. Waiting for N to be shown would release N+1 a
 * refresh late, so it would miss its own refresh too. Released on its grid instead, N+1 is ready
 * first and the display shows it in N's place (latest ready wins; N is skipped), so nothing stands
 * in the queue behind V-Sync: N may stay unshown, one frame more than k, and only a late one. */
static bool late_frame_superseded(const struct lowlat_frame *f, int64_t now_ns)
{
	const struct lowlat_swapchain *sc = f->sc;
	const struct lowlat_swapchain_timing *t = &sc->timing;

	return sc->current_mode == VK_PRESENT_MODE_FIFO_LATEST_READY_KHR &&
	       f->display_target_ns != LOWLAT_LOG_UNKNOWN && f->display_target_ns <= now_ns &&
	       t->have_target && t->target_ns > f->display_target_ns;
}

/* The latency-frames cap (max_latency_frames = k, while lowlat caps), at the late pacing point:
 * before the app may start frame N+1, frame N+1-k must have been reported shown; with k = 1, the
 * frame just presented. The display's reports are polled inside this present call (the swapchain
 * is externally synchronised here), never longer than the timeout, so a display that stops
 * reporting cannot hang the game. Not where the wait point is away from the present (the app's
 * present wait, its latency sleep on the display grid): the release there is timed after the
 * earlier frames' targets, and a wait here would hold the app's submit thread. */
static void latency_cap(struct lowlat_frame *f)
{
	struct lowlat_swapchain *sc = f->sc;
	struct lowlat_swapchain_timing *t = &sc->timing;
	uint32_t k = sc->config.max_latency_frames, unshown;
	int64_t now_ns, base_ns, deadline_ns;

	if (f->queued || f->cap_elsewhere || f->result < 0)
		return;
	/* Only a present whose report is to come (it asked for stage times) can be waited for. */
	if (!k || !sc->pacer.mfps || !t->pushed || !t->refresh_known || sc->latency_off)
		return;
	/* Usually the pacing wait already outlasted the frame's way to the screen. */
	lowlat_timing_update(sc);
	if (t->pending_count <= k - 1)
		return;
	now_ns = lowlat_now_ns();
	unshown = k - 1;
	if (late_frame_superseded(f, now_ns)) {
		sc->latency_superseded++;
		if (t->pending_count <= k)
			return;
		/* Frames before the late one are unshown too: wait for those. */
		unshown = k;
	}
	base_ns = f->display_target_ns != LOWLAT_LOG_UNKNOWN && f->display_target_ns > now_ns
	                  ? f->display_target_ns
	                  : now_ns;
	deadline_ns = base_ns + LATENCY_TIMEOUT_REFRESHES * t->refresh_ns;
	if (deadline_ns > now_ns + LOWLAT_MAX_WAIT_NS)
		deadline_ns = now_ns + LOWLAT_MAX_WAIT_NS;
	if (lowlat_timing_wait_shown(sc, unshown, deadline_ns)) {
		t->target_held = t->have_target && lowlat_now_ns() > t->target_ns - t->lead_ns;
		sc->latency_waits++;
		sc->latency_timeouts_in_row = 0;
		return;
	}
	lowlat_swapchain_cap_timed_out(sc, k, LATENCY_TIMEOUT_TEXT);
}

static void settle(struct lowlat_frame *f)
{
	if (f->call->early)
		return;
	follow_late(f);
	latency_cap(f);
}

static void log_row(const struct lowlat_frame *f, struct lowlat_log_record *rec)
{
	const struct lowlat_swapchain_timing *t = &f->sc->timing;

	if (t->refresh_known)
		rec->refresh_ns = t->refresh_ns;
	if (f->display_target_ns != LOWLAT_LOG_UNKNOWN) {
		/* The requested display time, and the lead its release allowed for. */
		rec->target_ns = f->display_target_ns;
		rec->predicted_ready_ns = t->frame_lead_ns;
		rec->fallback = LOWLAT_LOG_FALLBACK_TIMING;
	}
}

static void done(struct lowlat_frame *f, int64_t row)
{
	lowlat_timing_logged(f->sc, row);
}

const struct lowlat_level lowlat_level_timing = {
        .name = "timing",
        .grid = grid,
        .settle = settle,
        .log = log_row,
        .done = done,
};
