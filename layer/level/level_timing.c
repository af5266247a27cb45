/* level_timing.c — the "timing" pacing level: each present carries a target display time
 * (VK_EXT_present_timing), on the refresh grid when the cap is at or near refresh/n, else on the
 * time grid moved to the next refresh (VRR: the time grid itself), planned by the level's brain
 * (brain/timing.h) from the display's reports (timing_reports.c). The late wait releases the app the
 * predicted frame-start-to-ready time before the next target; the early one hands the frame down that lead
 * before its own. Targets go only into FIFO, FIFO_RELAXED and FIFO_LATEST_READY presents (the spec
 * allows no others), only when every swapchain of the call has the present-timing flag, and in
 * place of an app's own target only where that is earlier than the cap's grid (present_timing.c;
 * the early method leaves an app's timing info alone). After the wait the level keeps the
 * latency-frames cap from the display's reports, and moves the next frame on after a late one.
 * See level.h. */
#include <inttypes.h>

#include "brain/timing.h"
#include "clock.h"
#include "level.h"
#include "log.h"
#include "message.h"
#include "present_call.h"
#include "present_timing.h"
#include "swapchain.h"
#include "swapchain_cap.h"
#include "wait_point.h"

/* LOWLAT_LATENCY_TIMEOUT_REFRESHES (brain/timing.h), said. */
#define LATENCY_TIMEOUT_TEXT "4 refreshes of its target"

/* Whether the swapchain's frames are paced on the display: its presents carry targets. */
static bool display_paced(const struct lowlat_swapchain *sc)
{
	return sc->timing.active && lowlat_tb_ready(&sc->timing.brain) && sc->pacer.mfps &&
	       lowlat_mode_is_fifo(sc->current_mode);
}

/* The brain's release for the next target after current_ns (this present's target,
 * LOWLAT_LOG_UNKNOWN when it has none), on the swapchain's pacer under the lock the game thread's
 * latency sleep shares it by; the grid continues from the CPU pacer's latest release where that
 * set it. */
static int64_t display_release(struct lowlat_swapchain *sc, int64_t now_ns, int64_t current_ns,
                               int64_t *after_ns)
{
	struct lowlat_timing_brain *b = &sc->timing.brain;

	if (b->backlog_refreshes)
		LOWLAT_DEBUG("swapchain %ux%u: frames wait %" PRId64 " refresh(es) in the display's queue; "
		             "draining it",
		             sc->extent.width, sc->extent.height, b->backlog_refreshes);
	lowlat_point_pacer_lock(sc->device);
	int64_t release = lowlat_tb_release(b, &sc->pacer, sc->last_release_display ? 0 : sc->last_release_ns,
	                                    now_ns, current_ns, after_ns);
	sc->last_release_display = true;
	lowlat_point_pacer_unlock(sc->device);
	return release;
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
		int64_t after;
		f->release_ns = display_release(sc, now_ns, sc->timing.brain.prev_target_ns, &after);
		f->target_ns = sc->timing.brain.target_ns;
		f->after_ns = 0;
	} else {
		if (!f->call->timed || !display_paced(sc))
			return false;
		/* This present's pacing target is its display target. */
		f->target_ns = f->display_target_ns;
		f->release_ns = display_release(sc, now_ns, f->display_target_ns, &f->after_ns);
	}
	f->grid = true;
	return true;
}

int64_t lowlat_timing_target(struct lowlat_frame *f, int64_t now_ns)
{
	struct lowlat_swapchain *sc = f->sc;

	return lowlat_tb_target(&sc->timing.brain, now_ns, display_paced(sc),
	                        lowlat_timing_mode(sc->current_mode));
}

/* A frame presented in time for its refresh but not ready for it (its GPU work ended late) is shown
 * a refresh or more late, and the frame after it moves on with it where that keeps what the cap
 * asks for (brain/timing.c, cadence_target): at refresh/n the late one keeps its n refreshes rather than
 * putting two frames off the cadence; on the time grid it is shown rather than replaced in FIFO_LATEST_READY
 * by the next frame planned for the refresh it now takes. At the next frame's release (after the wait) the
 * late one's report is read: the end of its GPU work comes in an incomplete report as soon as the driver has
 * it, its first pixel once it is shown. Then the next target moves, and the release with it. Known only by
 * the next frame's present, just its target moves (lowlat_timing_target), a refresh of latency for that
 * frame. */
static void follow_late(struct lowlat_frame *f)
{
	struct lowlat_swapchain *sc = f->sc;

	if (!sc->timing.pushed || f->queued || f->cap_elsewhere || !display_paced(sc))
		return;
	lowlat_timing_update(sc);
	int64_t release = lowlat_tb_follow_late(&sc->timing.brain);
	if (release)
		lowlat_sleep_until_ns(&sc->sleeper, release, LOWLAT_WAIT_COVERED);
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
	struct lowlat_timing_brain *b = &t->brain;
	uint32_t k = sc->config.max_latency_frames, unshown;
	int64_t now_ns, base_ns, deadline_ns;

	if (f->queued || f->cap_elsewhere || f->result < 0)
		return;
	/* Only a present whose report is to come (it asked for stage times) can be waited for. */
	if (!k || !sc->pacer.mfps || !t->pushed || !b->refresh_known || sc->latency_off)
		return;
	/* Usually the pacing wait already outlasted the frame's way to the screen. */
	lowlat_timing_update(sc);
	if (t->pending_count <= k - 1)
		return;
	now_ns = lowlat_now_ns();
	unshown = k - 1;
	/* In FIFO_LATEST_READY, frame N missed its refresh (its target has passed and it is not
	 * shown) while frame N+1's target is a later refresh. Waiting for N to be shown would release
	 * N+1 a refresh late, so it would miss its own refresh too. Released on its grid instead, N+1
	 * is ready first and the display shows it in N's place (latest ready wins; N is skipped), so
	 * nothing stands in the queue behind V-Sync: N may stay unshown, one frame more than k, and
	 * only a late one. */
	if (lowlat_tb_superseded(b, f->display_target_ns, lowlat_timing_mode(sc->current_mode), now_ns)) {
		sc->latency_superseded++;
		if (t->pending_count <= k)
			return;
		/* Frames before the late one are unshown too: wait for those. */
		unshown = k;
	}
	base_ns = f->display_target_ns != LOWLAT_LOG_UNKNOWN && f->display_target_ns > now_ns
	                  ? f->display_target_ns
	                  : now_ns;
	deadline_ns = base_ns + LOWLAT_LATENCY_TIMEOUT_REFRESHES * b->refresh_ns;
	if (deadline_ns > now_ns + LOWLAT_MAX_WAIT_NS)
		deadline_ns = now_ns + LOWLAT_MAX_WAIT_NS;
	if (lowlat_timing_wait_shown(sc, unshown, deadline_ns)) {
		lowlat_tb_held(b, lowlat_now_ns());
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
	const struct lowlat_timing_brain *b = &f->sc->timing.brain;

	if (b->refresh_known)
		rec->refresh_ns = b->refresh_ns;
	if (f->display_target_ns != LOWLAT_LOG_UNKNOWN) {
		/* The requested display time, and the lead its release allowed for. */
		rec->target_ns = f->display_target_ns;
		rec->predicted_ready_ns = b->frame_lead_ns;
		rec->fallback = LOWLAT_LOG_FALLBACK_TIMING;
	}
}

static void done(struct lowlat_frame *f, int64_t row)
{
	lowlat_timing_logged(f->sc, row);
}

/* Every release of the level: while it does not know the refresh yet, on the CPU clock, its lead
 * is learned from each frame's start too. */
static bool starts_at_return(const struct lowlat_frame *f)
{
	(void)f;
	return true;
}

const struct lowlat_level lowlat_level_timing = {
        .name = "timing",
        .grid = grid,
        .starts_at_return = starts_at_return,
        .settle = settle,
        .log = log_row,
        .done = done,
};
