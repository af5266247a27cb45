/* level_drm.c — the "drm" pacing level (see level_drm.h): the refresh source of each swapchain
 * without present timing, its grid, the release planned on it, and when its frames are ready. */
#include "level_drm.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "brain/grid.h"
#include "brain/pace.h"
#include "brain/pace_display.h"
#include "brain/pace_grid.h"
#include "clock.h"
#include "level.h"
#include "log.h"
#include "message.h"
#include "present_call.h"
#include "swapchain.h"
#include "wait_point.h"

bool lowlat_refresh_swapchain_init(struct lowlat_swapchain *sc, char *why, size_t why_size)
{
	struct lowlat_swapchain_refresh *r = &sc->refresh;
	struct lowlat_refresh_sample first;
	int64_t now_ns;

	*r = (struct lowlat_swapchain_refresh){0};
	lowlat_ready_fences_init(&r->fences);
	snprintf(r->what, sizeof(r->what), "swapchain %ux%u", sc->extent.width, sc->extent.height);
	if (!lowlat_refresh_open(&r->source, getenv("LOWLAT_REFRESH_SOURCE"), why, why_size))
		return false;
	now_ns = lowlat_now_ns();
	if (!lowlat_refresh_read(&r->source, now_ns, &first)) {
		snprintf(why, why_size, "%s gave no vblank time", r->source.name);
		lowlat_refresh_close(&r->source);
		return false;
	}
	lowlat_refresh_grid_note(&r->grid, &first);
	if (!r->grid.known) {
		snprintf(why, why_size, "%s has no fixed refresh period", r->source.name);
		lowlat_refresh_close(&r->source);
		return false;
	}
	r->sampled_ns = now_ns;
	r->active = true;
	return true;
}

void lowlat_refresh_swapchain_fini(struct lowlat_swapchain *sc)
{
	if (sc->refresh.active) {
		lowlat_ready_fences_fini(sc->device, &sc->refresh.fences);
		lowlat_refresh_close(&sc->refresh.source);
	}
	sc->refresh.active = false;
}

/* The next frame's target on the screen's refresh grid (pace_grid.h) from the level's observations
 * in *in, on the swapchain's pacer, under the lock the game thread's latency sleep shares it by;
 * the grid continues from the CPU pacer's latest release where that set it. */
static void grid_plan(struct lowlat_swapchain *sc, struct lowlat_grid_in *in, struct lowlat_grid_plan *plan)
{
	lowlat_point_pacer_lock(sc->device);
	in->cpu_release_ns = sc->last_release_display ? 0 : sc->last_release_ns;
	lowlat_grid_plan(&sc->pacer, in, plan);
	sc->last_release_display = true;
	lowlat_point_pacer_unlock(sc->device);
}

/* Reads the source again: the phase moves to the newest vblank. */
static void resample(struct lowlat_swapchain *sc, int64_t now_ns)
{
	struct lowlat_swapchain_refresh *r = &sc->refresh;
	struct lowlat_refresh_sample s;
	bool was_known = r->grid.known;

	r->sampled_ns = now_ns;
	if (!lowlat_refresh_read(&r->source, now_ns, &s)) {
		r->grid.known = false;
		if (!r->lost_told) {
			r->lost_told = true;
			LOWLAT_INFO(
			        "swapchain %ux%u: %s stopped answering (the screen is off?); paced on the "
			        "CPU clock until it answers again",
			        sc->extent.width, sc->extent.height, r->source.name);
		}
		return;
	}
	enum lowlat_refresh_update u = lowlat_refresh_grid_note(&r->grid, &s);
	if (u == LOWLAT_REFRESH_UPDATE_MOVED && was_known)
		LOWLAT_DEBUG("swapchain %ux%u: the vblank of %s is off the grid (%" PRId64
		             " ns period); paced on the CPU clock until two readings agree",
		             sc->extent.width, sc->extent.height, r->source.name, s.period_ns);
	/* A grid found again continues from the CPU pacer's releases (present.c). */
	if (!r->grid.known)
		r->have_target = false;
}

static bool refresh_mode(VkPresentModeKHR mode)
{
	return mode == VK_PRESENT_MODE_FIFO_KHR || mode == VK_PRESENT_MODE_FIFO_RELAXED_KHR ||
	       mode == VK_PRESENT_MODE_FIFO_LATEST_READY_KHR || mode == VK_PRESENT_MODE_MAILBOX_KHR;
}

/* Whether this present's release is planned on the refresh grid: the late method only, in the modes
 * that wait for a vblank (an IMMEDIATE present is shown at once, whatever the phase). */
static bool paced(const struct lowlat_swapchain *sc)
{
	return sc->refresh.active && sc->refresh.grid.known && sc->pacer.mfps &&
	       sc->config.method == LOWLAT_METHOD_LATE && refresh_mode(sc->current_mode);
}

/* On the present's entry: the frame's release-to-ready sample begun, its fence submitted, the grid
 * read again when due. */
static void observe(struct lowlat_frame *f)
{
	struct lowlat_swapchain *sc = f->sc;
	struct lowlat_swapchain_refresh *r = &sc->refresh;
	int64_t entry_ns = f->call->t.entry_ns;

	if (!r->active)
		return;
	r->released = false;
	r->ready_seen_ns = LOWLAT_LOG_UNKNOWN;
	r->present_ns = entry_ns;
	/* The frame's own time: from the release (this swapchain's previous present returned there,
	 * the grid having planned it) to this present, or to the end of its GPU work where the
	 * present's wait sees that (hold), taken when the present is over (done). */
	r->sample_due = r->have_target && sc->last_release_display &&
	                sc->frame_start_ns != LOWLAT_LOG_UNKNOWN && entry_ns > sc->frame_start_ns;
	r->sample_end_ns = entry_ns;
	r->fences.current = -1;
	if (r->sample_due && paced(sc))
		lowlat_ready_fence_submit(sc->device, f->call->queue, &r->fences, r->what);
	if (entry_ns - r->sampled_ns >=
	    (r->grid.known ? LOWLAT_REFRESH_RESAMPLE_NS : LOWLAT_REFRESH_RETRY_NS))
		resample(sc, entry_ns);
}

/* The release lead: the "timing" level's prediction (a high percentile plus a margin), but at most
 * the fastest measured frame plus one refresh. Without display targets a frame is shown at the
 * first vblank after it is ready, so the frames that land on the planned vblank are those ready
 * within the refresh before it: a lead longer than that shows a fast frame a refresh early, as
 * surely a miss as a slow frame shown late. When release-to-present times spread over more than a
 * refresh (a loaded machine: 0.3 to 9 ms for vkcube under validation on 2 shared cores, p99 8.9 ms
 * at 120 Hz) the window is put over the fast end, where most frames are; the rare slow one is late.
 * Before any sample: one refresh, which catches every frame that takes less. */
static int64_t refresh_lead_ns(const struct lowlat_ready_window *w, int64_t period_ns)
{
	int64_t lead = lowlat_display_lead_ns(w, period_ns, period_ns / LOWLAT_REFRESH_MARGIN_DIVISOR,
	                                      LOWLAT_READY_PERCENTILE);
	int64_t fastest = w->count ? w->sorted_ns[0] : 0;

	return lead < fastest + period_ns ? lead : fastest + period_ns;
}

static int64_t release(struct lowlat_frame *f, int64_t now_ns)
{
	struct lowlat_swapchain *sc = f->sc;
	struct lowlat_swapchain_refresh *r = &sc->refresh;
	int64_t period = r->grid.period_ns, vblank = r->grid.vblank_ns;
	int64_t lead = refresh_lead_ns(&r->ready, period);
	int64_t current = INT64_MIN;
	struct lowlat_grid_plan plan;

	if (r->have_target && sc->last_release_display) {
		/* The vblank the frame just presented was released for; presented after it, the frame
		 * makes the first refresh after its present at best, and the grid continues from there. */
		current = r->target_ns;
		if (current < r->present_ns)
			current = lowlat_refresh_at_or_after(r->present_ns, vblank, period);
		f->target_ns = current;
		r->frame_lead_ns = r->lead_ns;
	}
	grid_plan(sc,
	          &(struct lowlat_grid_in){
	                  .refresh_ns = period,
	                  .vblank_ns = vblank,
	                  .n = lowlat_refresh_multiple(sc->pacer.mfps, period),
	                  .lead_ns = lead,
	                  .now_ns = now_ns,
	                  .current_ns = current,
	          },
	          &plan);
	r->target_ns = plan.target_ns;
	r->after_release_ns = plan.after_ns - lead;
	r->have_target = true;
	r->lead_ns = lead;
	r->released = true;
	return plan.target_ns - lead;
}

/* The late pacing point on the refresh grid: the vblank of the next frame, its release that vblank
 * less the lead, and the release for the vblank after it. */
static bool grid(struct lowlat_frame *f, int64_t now_ns)
{
	if (f->call->early || !paced(f->sc))
		return false;
	f->release_ns = release(f, now_ns);
	f->after_ns = f->sc->refresh.after_release_ns;
	f->grid = true;
	return true;
}

/* Inside the present, before the call's wait for the release: the frame's fence, until that
 * release at most. A frame done during the wait is ready then; one not done by the release, at
 * least then; one done before the wait began, when the driver's present returned at the latest:
 * close where that call is quick, and the truth where it waits for the frame's work (lavapipe's
 * present waits for its semaphores on the CPU, so its return follows the frame's GPU work).
 * Never before the present's entry. */
static int64_t hold(struct lowlat_frame *f, int64_t release_ns)
{
	struct lowlat_swapchain_refresh *r = &f->sc->refresh;
	int64_t ready_ns;
	enum lowlat_ready_seen seen =
	        lowlat_ready_fence_wait(f->sc->device, &r->fences, release_ns, &ready_ns);

	if (seen != LOWLAT_READY_NONE && ready_ns > r->sample_end_ns)
		r->sample_end_ns = ready_ns;
	r->ready_seen_ns =
	        seen == LOWLAT_READY_BEFORE || seen == LOWLAT_READY_AT ? ready_ns : LOWLAT_LOG_UNKNOWN;
	return release_ns;
}

/* The present is over: the frame's sample, less the time the app spent blocked in acquiring an
 * image, which is the display's doing, not the frame's work. */
static void done(struct lowlat_frame *f, int64_t row)
{
	struct lowlat_swapchain *sc = f->sc;
	struct lowlat_swapchain_refresh *r = &sc->refresh;

	(void)row;
	if (!r->active || !r->sample_due)
		return;
	r->sample_due = false;
	int64_t sample = r->sample_end_ns - sc->frame_start_ns - sc->acquire_blocked_ns;
	lowlat_ready_note(&r->ready, sample > 0 ? sample : 0);
}

/* The log row: fallback "drm", its lead and the refresh, when it was paced on the grid. */
static void log_row(const struct lowlat_frame *f, struct lowlat_log_record *rec)
{
	const struct lowlat_swapchain_refresh *r = &f->sc->refresh;

	if (!r->active || !r->released)
		return;
	rec->fallback = LOWLAT_LOG_FALLBACK_DRM;
	rec->refresh_ns = r->grid.period_ns;
	/* The frame's GPU work done by then, from its ready fence (ready_fence.h). */
	rec->queue_done_ns = r->ready_seen_ns;
	/* The vblank planned for the frame, also where its release was the app's latency sleep's
	 * (whose row would otherwise hold that release as its target). */
	if (f->target_ns != LOWLAT_LOG_UNKNOWN) {
		rec->target_ns = f->target_ns;
		rec->predicted_ready_ns = r->frame_lead_ns;
	}
}

/* A release planned on the refresh grid: its lead is learned from each frame's start. */
static bool starts_at_return(const struct lowlat_frame *f)
{
	return f->sc->refresh.released;
}

const struct lowlat_level lowlat_level_drm = {
        .name = "drm",
        .observe = observe,
        .grid = grid,
        .hold = hold,
        .starts_at_return = starts_at_return,
        .log = log_row,
        .done = done,
};
