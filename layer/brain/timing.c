/* timing.c — the brain of the "timing" pacing level; see timing.h. No Vulkan, no clock. */
#include "timing.h"

#include <stdlib.h>

#include "grid.h"
#include "pace_grid.h"

/* A refresh that moved by less than this is the same display (Mesa's X11 WSI re-estimates the rate
 * from each frame's timestamps and reports every move of a microsecond or more): the grid keeps its
 * phase and targets. 0.2%: 17 us at 120 Hz, far under a mode change. */
#define REFRESH_SAME_PPM 2000

void lowlat_tb_init(struct lowlat_timing_brain *b, enum lowlat_target_kind targets, int64_t margin_ns)
{
	*b = (struct lowlat_timing_brain){
	        .targets = targets,
	        .prev_target_ns = LOWLAT_LOG_UNKNOWN,
	        .grid_ns = LOWLAT_LOG_UNKNOWN,
	        .margin_ns = margin_ns,
	};
}

void lowlat_tb_refresh(struct lowlat_timing_brain *b, int64_t refresh_ns, bool vrr)
{
	bool same = b->refresh_known && vrr == b->vrr &&
	            llabs(refresh_ns - b->refresh_ns) <= b->refresh_ns / 1000000 * REFRESH_SAME_PPM;

	b->refresh_ns = refresh_ns;
	b->vrr = vrr;
	if (!same)
		b->have_vblank = b->have_target = false;
	b->refresh_known = true;
}

bool lowlat_tb_ready(const struct lowlat_timing_brain *b)
{
	return b->refresh_known && (b->vrr || b->have_vblank);
}

/* The target of the present after the latest one, when the latest one missed its refresh (it was
 * shown late with no queue ahead of it, or its GPU work ended after that refresh: late_out_ns is
 * then the refresh it can make); otherwise target itself (lowlat_tb_follow_late says why):
 *  - at a cap of refresh/n (n >= 2), moved on as far as the late one is late, so that the late one
 *    is shown for its n refreshes. One n or more refreshes late moves nothing;
 *  - on the time grid of a fixed-rate display, moved to the refresh after the late one where it
 *    was planned for the refresh the late one now takes.
 * At n = 1 nothing moves: the next frame is shown in the late one's place. */
static int64_t cadence_target(const struct lowlat_timing_brain *b, int64_t target)
{
	if (b->target_n == 1 || b->vrr || !b->late_seq || b->late_seq != b->seq)
		return target;
	int64_t half = b->refresh_ns / 2;
	if (!b->target_n) {
		int64_t late_out = lowlat_refresh_nearest(b->late_out_ns, b->vblank_ns, b->refresh_ns);
		return target > late_out - half && target < late_out + half ? late_out + b->refresh_ns
		                                                            : target;
	}
	int64_t after_late = lowlat_refresh_nearest(b->late_out_ns + b->target_n * b->refresh_ns,
	                                            b->vblank_ns, b->refresh_ns);
	if (target < after_late - half && after_late - target < b->target_n * b->refresh_ns)
		return after_late;
	return target;
}

int64_t lowlat_tb_target(struct lowlat_timing_brain *b, int64_t now_ns, bool paced, enum lowlat_tb_mode mode)
{
	int64_t target;

	b->judge_miss = false;
	b->grid_ns = LOWLAT_LOG_UNKNOWN;
	if (!paced || !b->have_target) {
		b->have_target = false;
		return LOWLAT_LOG_UNKNOWN;
	}
	target = b->target_ns;
	int64_t grid = b->planned_ns;
	b->have_target = false;
	/* On a fixed-rate display, whether the frame makes its refresh tunes the margin: judged here
	 * when it comes too late for it, from the display's report otherwise. Not a frame the latency
	 * cap held behind a late one: in FIFO that one takes this frame's refresh, and the lead had no
	 * say (the late one's miss already raised the margin for both, pace_display.h). */
	b->judge_miss = b->target_judged && target >= now_ns;
	if (b->target_judged && target < now_ns && !b->target_held)
		lowlat_miss_note(&b->miss_margin, true, b->target_n, mode == LOWLAT_TB_FIFO,
		                 b->target_empty_every);
	b->target_held = false;
	/* The previous present missed its refresh and its report came after this frame's release
	 * (lowlat_tb_follow_late): this frame moves on after it all the same, a refresh of latency for
	 * the late one's cadence, or for its being shown at all. */
	int64_t moved = cadence_target(b, target);
	if (moved != target) {
		target = moved;
		b->cadence_moves++;
	}
	/* The app presents after its target: the frame goes at the first refresh it can, and the
	 * grid continues from there. */
	if (target < now_ns || grid < now_ns) {
		int64_t first =
		        b->vrr ? now_ns : lowlat_refresh_at_or_after(now_ns, b->vblank_ns, b->refresh_ns);
		target = target < now_ns ? first : target;
		grid = grid < now_ns ? first : grid;
	}
	b->frame_lead_ns = b->lead_ns;
	b->grid_ns = grid;
	b->frame_moved = target != grid;
	return target;
}

bool lowlat_tb_app_target(struct lowlat_timing_brain *b, int64_t theirs_ns, int64_t *shown_ns)
{
	*shown_ns = LOWLAT_LOG_UNKNOWN;
	if (b->grid_ns == LOWLAT_LOG_UNKNOWN)
		return true;
	/* Against the grid as planned. A late frame moves lowlat's next target on to keep its n
	 * refreshes (cadence_target), but the app's timeline does not move: weighed against the moved
	 * target, the app's next one would be a refresh early and replaced, the grid would go on from
	 * lowlat's, and every later target of the app's would be moved a refresh, until another late
	 * frame. */
	if (theirs_ns == LOWLAT_LOG_UNKNOWN || theirs_ns < b->grid_ns - b->refresh_ns / 2)
		return false;
	*shown_ns = b->vrr ? theirs_ns : lowlat_refresh_nearest(theirs_ns, b->vblank_ns, b->refresh_ns);
	/* The frame goes where the app asked: it was not moved on after all (the summary's count). */
	if (b->frame_moved) {
		b->frame_moved = false;
		b->cadence_moves--;
	}
	return true;
}

int64_t lowlat_tb_ask(const struct lowlat_timing_brain *b, int64_t target_ns, enum lowlat_tb_mode mode)
{
	/* On a fixed grid the target is a refresh start, and the driver is asked not to show the frame
	 * before the middle of the cycle ahead of it: the first refresh at or after that is the one
	 * meant, with half a refresh of room either way for the rounding of a refresh duration, a
	 * driver that rounds to the nearest refresh, and one that sleeps to the target before it
	 * queues the frame (Arm's WSI layer; Mesa on XWayland). The spec's NEAREST_REFRESH_CYCLE says
	 * the same less plainly, and Arm ignores it. A FIFO_RELAXED frame may get less room
	 * (LOWLAT_RELAXED_LEAD_NS). On VRR the target is the flip itself. */
	int64_t room = b->refresh_ns / 2;

	if (mode == LOWLAT_TB_FIFO_RELAXED && b->relaxed_at_target && room > LOWLAT_RELAXED_LEAD_NS)
		room = LOWLAT_RELAXED_LEAD_NS;
	return b->vrr ? target_ns : target_ns - room;
}

int64_t lowlat_tb_relative_base(const struct lowlat_timing_brain *b)
{
	/* A frame shown late then delays only itself: planning from its target would put every later
	 * frame as late again; one shown early (a FIFO_RELAXED frame let go before its refresh) would
	 * put every later frame earlier still. */
	if (b->prev_out_ns && b->prev_out_seq == b->seq)
		return b->prev_out_ns;
	return b->prev_target_ns;
}

void lowlat_tb_presented(struct lowlat_timing_brain *b, bool ok, int64_t target_ns,
                         struct lowlat_tb_frame *fr)
{
	bool judge = b->judge_miss;

	b->judge_miss = false;
	b->prev_target_ns = ok ? target_ns : LOWLAT_LOG_UNKNOWN;
	if (!ok || !fr)
		return;
	fr->seq = ++b->seq;
	fr->judged = judge && target_ns != LOWLAT_LOG_UNKNOWN;
}

/* Whether the report of fr, first pixel out_ns (0: not shown), fits what the brain knows: shown
 * after it was presented, after the frame before it, and not half a refresh before its absolute
 * target. Frames shown before their targets LOWLAT_BAD_REPORTS_MAX times in a row make the brain
 * stop setting targets (the driver ignores them), and pace on the reports alone. */
static uint32_t sanity(struct lowlat_timing_brain *b, const struct lowlat_tb_frame *fr, int64_t out_ns)
{
	if (!out_ns)
		return 0;
	if (out_ns < fr->present_ns - LOWLAT_REPORT_SLACK_NS ||
	    (b->prev_out_ns && out_ns < b->prev_out_ns - LOWLAT_REPORT_SLACK_NS))
		return ++b->bad_reports == LOWLAT_BAD_REPORTS_MAX
		               ? LOWLAT_TB_CONTRADICTS | LOWLAT_TB_UNTRUSTED
		               : LOWLAT_TB_CONTRADICTS;
	b->bad_reports = 0;
	bool early = b->targets == LOWLAT_TARGETS_ABSOLUTE && fr->target_ns != LOWLAT_LOG_UNKNOWN &&
	             b->refresh_known && out_ns < fr->target_ns - b->refresh_ns / 2;
	b->early_shows = early ? b->early_shows + 1 : 0;
	if (b->early_shows == LOWLAT_BAD_REPORTS_MAX) {
		b->targets = LOWLAT_TARGETS_NONE;
		return LOWLAT_TB_NO_TARGETS;
	}
	return 0;
}

/* A FIFO latch starts a refresh: the grid's phase. So does a FIFO_RELAXED one that went out at a
 * time neither its ready time nor its target explains: after both (it waited for the refresh), or
 * well before its target though ready (a driver that latches up to a quarter refresh early, Mesa on
 * XWayland, or rounds to the nearest refresh). One that went out as soon as it was both ready and
 * let go was late, or shown at its target, and tore mid-refresh. An app presenting only in
 * FIFO_RELAXED (DXVK with a sync interval and tearing allowed) thus gets the display grid too,
 * where the driver keeps such frames to a refresh. Returns LOWLAT_TB_RELAXED_AT_TARGET when it
 * first sees a FIFO_RELAXED frame shown at its target. */
static uint32_t phase(struct lowlat_timing_brain *b, const struct lowlat_tb_frame *fr, int64_t ready_ns,
                      int64_t out_ns)
{
	uint32_t news = 0;
	bool asked = fr->ask_ns != LOWLAT_LOG_UNKNOWN;
	int64_t earliest_ns = asked && fr->ask_ns > ready_ns ? fr->ask_ns : ready_ns;
	bool waited = fr->relaxed && ready_ns && out_ns > earliest_ns + LOWLAT_TEAR_SLACK_NS;
	/* Only while the phase is a guess (below): a driver that shows FIFO_RELAXED frames that much
	 * before their targets, torn, would otherwise move the grid back by as much every frame. */
	bool latched_early = fr->relaxed && ready_ns && asked && b->vblank_guessed &&
	                     out_ns > ready_ns + LOWLAT_TEAR_SLACK_NS &&
	                     out_ns + LOWLAT_TEAR_SLACK_NS < fr->ask_ns;

	/* One that was ready well before its target and went out at that time, mid-refresh: this
	 * driver shows FIFO_RELAXED frames at their targets (LOWLAT_RELAXED_LEAD_NS). */
	if (fr->relaxed && !b->relaxed_at_target && out_ns && ready_ns && asked &&
	    ready_ns + LOWLAT_TEAR_SLACK_NS < fr->ask_ns &&
	    llabs(out_ns - fr->ask_ns) <= LOWLAT_TEAR_SLACK_NS &&
	    fr->ask_ns + LOWLAT_TEAR_SLACK_NS < fr->target_ns) {
		b->relaxed_at_target = true;
		news |= LOWLAT_TB_RELAXED_AT_TARGET;
	}
	/* Until one did, any FIFO_RELAXED image gives a first guess: at a cap at the refresh rate the
	 * CPU pacer's frames may arrive at the same phase each time and all tear, and only a target
	 * (with PRESENT_AT_NEAREST_REFRESH_CYCLE) makes them wait for a refresh; the first that does
	 * replaces the guess. */
	bool seen = fr->vblank_latch || waited || latched_early;
	bool guess = fr->relaxed && !b->have_vblank && !seen;
	/* A targeted FIFO_RELAXED frame that tore while the phase is a guess: lowlat's targets sit on
	 * that guess. Where the display tears such frames (at their targets, or when ready if late),
	 * only a frame that waited for a refresh shows where one starts, and at a cap below the
	 * refresh rate none may ever come. Said once. */
	if (fr->relaxed && asked && out_ns && !seen && b->vblank_guessed && !b->phase_told) {
		b->phase_told = b->phase_unseen = true;
		news |= LOWLAT_TB_PHASE_UNSEEN;
	}
	if (out_ns && (seen || guess) && (!b->have_vblank || out_ns > b->vblank_ns)) {
		b->vblank_ns = out_ns;
		b->have_vblank = true;
		b->vblank_guessed = guess;
		if (!guess && b->phase_unseen) {
			b->phase_unseen = false;
			news |= LOWLAT_TB_PHASE_SEEN;
		}
	}
	return news;
}

uint32_t lowlat_tb_report(struct lowlat_timing_brain *b, const struct lowlat_tb_frame *fr, int64_t ready_ns,
                          int64_t out_ns)
{
	uint32_t news = sanity(b, fr, out_ns);

	if (news & LOWLAT_TB_CONTRADICTS)
		return news;
	/* The sample: from the frame's start (the app released) to its GPU work done, less the time
	 * the app waited for the display to hand it an image. That wait is what a release too early
	 * costs (frames queued ahead hold the images), not work; counting it would make the next
	 * release earlier still, until every image is queued and each frame waits a whole queue. */
	if (ready_ns && fr->start_ns != LOWLAT_LOG_UNKNOWN && ready_ns - fr->blocked_ns > fr->start_ns)
		lowlat_ready_note(&b->ready, ready_ns - fr->blocked_ns - fr->start_ns);
	/* A frame that went out a refresh or more after its target while the refresh it was meant for
	 * showed the frame before it waited behind that frame in the FIFO queue (a start-up burst, or
	 * one late frame: everything after it then queues a refresh behind). Every later frame waits as
	 * long, so its latency is that many refreshes too high, for good: the next release is held
	 * back once to drain the queue. A frame that was simply not ready in time finds the refresh
	 * before its target's showing an older frame, and is no queue. Until the presents made before
	 * a drain have reported, their lateness says nothing new. */
	if (fr->target_ns != LOWLAT_LOG_UNKNOWN && out_ns && b->prev_out_ns && fr->vblank_latch &&
	    fr->seq > b->drain_seq && b->refresh_known) {
		int64_t half = b->refresh_ns / 2, late = out_ns - fr->target_ns;
		int64_t backlog = (late + half) / b->refresh_ns;
		if (late > half && b->prev_out_ns >= fr->target_ns - half && backlog > b->backlog_refreshes)
			b->backlog_refreshes = backlog;
	}
	/* On a fixed-rate display: did it make the refresh it was planned for? Not shown at all (a
	 * later frame replaced it) is a miss too. A frame late behind a queue is the queue's fault,
	 * drained above, not the margin's. */
	if (fr->judged && b->refresh_known) {
		int64_t half = b->refresh_ns / 2;
		bool queued = out_ns && b->prev_out_ns >= fr->target_ns - half;
		if (!out_ns || out_ns <= fr->target_ns + half || !queued)
			lowlat_miss_note(&b->miss_margin, !out_ns || out_ns > fr->target_ns + half,
			                 b->target_n, fr->fifo, b->target_empty_every);
		if (out_ns > fr->target_ns + half && !queued) {
			b->late_seq = fr->seq;
			b->late_out_ns = out_ns;
		}
	}
	if (out_ns) {
		b->prev_out_ns = out_ns;
		b->prev_out_seq = fr->seq;
	}
	return news | phase(b, fr, ready_ns, out_ns);
}

void lowlat_tb_partial(struct lowlat_timing_brain *b, const struct lowlat_tb_frame *fr, int64_t ready_ns)
{
	if (!b->refresh_known || b->vrr || !b->have_vblank)
		return;
	if (fr->target_ns == LOWLAT_LOG_UNKNOWN || !fr->vblank_latch || fr->seq == b->late_seq)
		return;
	/* The target is a refresh start give or take the rounding of the refresh duration. Only the
	 * report says the frame is late: a present not yet reported ready is not taken for a late
	 * one, as a driver may report late or not at all. */
	if (!ready_ns || ready_ns <= lowlat_refresh_nearest(fr->target_ns, b->vblank_ns, b->refresh_ns))
		return;
	b->late_seq = fr->seq;
	b->late_out_ns = lowlat_refresh_at_or_after(ready_ns, b->vblank_ns, b->refresh_ns);
}

int64_t lowlat_tb_release(struct lowlat_timing_brain *b, struct lowlat_pacer *pacer, int64_t cpu_release_ns,
                          int64_t now_ns, int64_t current_ns, int64_t *after_ns)
{
	int64_t refresh = b->refresh_ns;
	int64_t n = b->vrr ? 0 : lowlat_refresh_multiple(pacer->mfps, refresh);
	/* On a fixed-rate display the margin follows misses, on the refresh grid and on the time grid
	 * alike: each target is a refresh, and a frame that misses it repeats the one before. On VRR
	 * the floor: a late frame flips late, and no refresh is repeated (pace_display.h). */
	bool adapts = !b->vrr;
	int64_t margin = b->margin_ns >= 0 ? b->margin_ns
	                 : adapts          ? lowlat_miss_margin_ns(&b->miss_margin, refresh, n)
	                                   : lowlat_display_margin_ns(refresh, n);
	int64_t lead = lowlat_display_lead_ns(&b->ready, refresh, margin, lowlat_ready_percentile(n));
	struct lowlat_grid_plan plan;

	/* Without targets (Mesa's Wayland WSI without commit-timing) FIFO shows a frame on the first
	 * refresh after it is ready: one released more than a refresh before its target can be ready
	 * for the refresh before it, and be shown a refresh early, the next one then a refresh late. A
	 * release a refresh before the target at the earliest keeps the cadence; a frame that needs
	 * longer is shown a refresh late every time, evenly. */
	if (b->targets == LOWLAT_TARGETS_NONE && n >= 2 && lead > refresh)
		lead = refresh;
	lowlat_grid_plan(pacer,
	                 &(struct lowlat_grid_in){
	                         .refresh_ns = refresh,
	                         .vblank_ns = b->vblank_ns,
	                         .vrr = b->vrr,
	                         .n = n,
	                         .lead_ns = lead,
	                         .now_ns = now_ns,
	                         .current_ns = current_ns == LOWLAT_LOG_UNKNOWN ? INT64_MIN : current_ns,
	                         .cpu_release_ns = cpu_release_ns,
	                         .backlog_refreshes = b->backlog_refreshes,
	                 },
	                 &plan);
	if (b->backlog_refreshes) {
		/* Presents made before this drain still report the old queue. */
		b->drain_seq = b->seq;
		b->backlog_refreshes = 0;
		b->drains++;
	}
	b->target_ns = b->planned_ns = plan.target_ns;
	b->after_release_ns = plan.after_ns - lead;
	b->lead_ns = lead;
	b->target_judged = adapts;
	b->target_held = false;
	b->target_n = n;
	b->target_empty_every = lowlat_empty_every(pacer->mfps, refresh);
	b->have_target = true;
	*after_ns = b->after_release_ns;
	return plan.target_ns - lead;
}

int64_t lowlat_tb_follow_late(struct lowlat_timing_brain *b)
{
	if (!b->have_target || b->target_n == 1)
		return 0;
	int64_t moved = cadence_target(b, b->target_ns);
	if (moved == b->target_ns)
		return 0;
	b->after_release_ns += moved - b->target_ns;
	b->target_ns = moved;
	b->cadence_moves++;
	return moved - b->lead_ns;
}

bool lowlat_tb_superseded(const struct lowlat_timing_brain *b, int64_t target_ns, enum lowlat_tb_mode mode,
                          int64_t now_ns)
{
	return mode == LOWLAT_TB_FIFO_LATEST_READY && target_ns != LOWLAT_LOG_UNKNOWN &&
	       target_ns <= now_ns && b->have_target && b->target_ns > target_ns;
}

void lowlat_tb_held(struct lowlat_timing_brain *b, int64_t now_ns)
{
	b->target_held = b->have_target && now_ns > b->target_ns - b->lead_ns;
}
