/* test_brain_timing — the "timing" level's brain (layer/brain/timing.c) on reports written by hand:
 * where a FIFO_RELAXED display's refreshes start, and what it tells the caller about that; whether
 * an app's own targets stand against the cap's grid. */
#include "brain/grid.h"
#include "brain/timing.h"
#include "check.h"

#define US      1000ll    /* ns */
#define MS      1000000ll /* ns */
#define REFRESH 8333333ll /* 120 Hz */

/* One FIFO_RELAXED present with target and ask (LOWLAT_LOG_UNKNOWN: none), presented at present,
 * ready at ready and shown at out; returns the report's news. */
static uint32_t relaxed(struct lowlat_timing_brain *b, int64_t present, int64_t target, int64_t ask,
                        int64_t ready, int64_t out)
{
	struct lowlat_tb_frame fr = {.start_ns = LOWLAT_LOG_UNKNOWN, .relaxed = true};

	lowlat_tb_presented(b, true, target, &fr);
	fr.present_ns = present;
	fr.target_ns = target;
	fr.ask_ns = ask;
	return lowlat_tb_report(b, &fr, ready, out);
}

/* A display that shows FIFO_RELAXED frames at their targets, torn, and tore the first frame too:
 * nothing shows where refreshes start, and the brain says its phase is a guess, once; a frame that
 * then waits for a refresh puts it right, and the brain says so. */
static void phase_unseen_then_seen(void)
{
	struct lowlat_timing_brain b;
	uint32_t news;

	lowlat_tb_init(&b, LOWLAT_TARGETS_ABSOLUTE, -1);
	lowlat_tb_refresh(&b, REFRESH, false);
	/* The first frame, no target, torn 3 ms into a refresh as soon as it was ready. */
	news = relaxed(&b, 100 * MS, LOWLAT_LOG_UNKNOWN, LOWLAT_LOG_UNKNOWN, 101 * MS, 101 * MS);
	CHECK_EQ_I64(news, 0);
	CHECK(lowlat_tb_ready(&b));
	CHECK(b.vblank_guessed);
	/* Ready well before its target, shown at the time asked for (half a refresh before the
	 * target): the display shows FIFO_RELAXED frames at their targets, and the phase is a guess. */
	int64_t target = 101 * MS + 2 * REFRESH;
	news = relaxed(&b, 110 * MS, target, target - REFRESH / 2, 111 * MS, target - REFRESH / 2);
	CHECK_EQ_I64(news, LOWLAT_TB_RELAXED_AT_TARGET | LOWLAT_TB_PHASE_UNSEEN);
	CHECK(b.vblank_guessed);
	/* Torn at its target again (200 us before it now): nothing new, said once. */
	target += 2 * REFRESH;
	news = relaxed(&b, 125 * MS, target, target - 200 * US, 126 * MS, target - 200 * US);
	CHECK_EQ_I64(news, 0);
	CHECK(b.vblank_guessed);
	/* This one went out 1.5 ms after both its ready time and its target: it waited for a refresh,
	 * which puts the grid right. */
	target += 2 * REFRESH;
	int64_t vblank = target + 1300 * US;
	news = relaxed(&b, 140 * MS, target, target - 200 * US, target - 200 * US, vblank);
	CHECK_EQ_I64(news, LOWLAT_TB_PHASE_SEEN);
	CHECK(!b.vblank_guessed);
	CHECK_EQ_I64(b.vblank_ns, vblank);
	/* Later frames torn at their targets say nothing more. */
	target = vblank + 2 * REFRESH;
	news = relaxed(&b, vblank + 10 * MS, target, target - 200 * US, vblank + 11 * MS, target - 200 * US);
	CHECK_EQ_I64(news, 0);
}

/* Where a frame waited for a refresh before the display first showed one at its target, the phase
 * is known, and only the tearing at targets is news. */
static void phase_seen_first(void)
{
	struct lowlat_timing_brain b;
	uint32_t news;

	lowlat_tb_init(&b, LOWLAT_TARGETS_ABSOLUTE, -1);
	lowlat_tb_refresh(&b, REFRESH, false);
	int64_t vblank = 100 * MS + REFRESH;
	/* Ready 2 ms before a refresh and out at it: it waited. */
	news = relaxed(&b, 100 * MS, LOWLAT_LOG_UNKNOWN, LOWLAT_LOG_UNKNOWN, vblank - 2 * MS, vblank);
	CHECK_EQ_I64(news, 0);
	CHECK(!b.vblank_guessed);
	int64_t target = vblank + 2 * REFRESH;
	news = relaxed(&b, vblank + 5 * MS, target, target - REFRESH / 2, vblank + 6 * MS,
	               target - REFRESH / 2);
	CHECK_EQ_I64(news, LOWLAT_TB_RELAXED_AT_TARGET);
}

/* A targeted frame that was late and tore when ready, while the phase is a guess, leaves it a
 * guess too: said, though the display keeps frames on time to their refresh. */
static void late_on_a_guess(void)
{
	struct lowlat_timing_brain b;

	lowlat_tb_init(&b, LOWLAT_TARGETS_ABSOLUTE, -1);
	lowlat_tb_refresh(&b, REFRESH, false);
	CHECK_EQ_I64(relaxed(&b, 100 * MS, LOWLAT_LOG_UNKNOWN, LOWLAT_LOG_UNKNOWN, 101 * MS, 101 * MS), 0);
	int64_t target = 101 * MS + 2 * REFRESH;
	int64_t ready = target + 1 * MS;
	CHECK_EQ_I64(relaxed(&b, 110 * MS, target, target - REFRESH / 2, ready, ready),
	             LOWLAT_TB_PHASE_UNSEEN);
	/* The next one waits: the phase is seen. */
	target += 2 * REFRESH;
	CHECK_EQ_I64(relaxed(&b, 125 * MS, target, target - REFRESH / 2, target - 3 * MS, target),
	             LOWLAT_TB_PHASE_SEEN);
}

/* One FIFO present of an app that sets its own targets, as the layer makes it (present_timing.c,
 * then the release's plan): lowlat's target for it, the app's weighed against that, the present
 * with the target that went down (the app's where it stands, else lowlat's), the next plan. Fills
 * *fr for its report; returns whether the app's target stood. */
static bool app_present(struct lowlat_timing_brain *b, struct lowlat_pacer *pacer, int64_t now,
                        int64_t theirs, struct lowlat_tb_frame *fr)
{
	int64_t target = lowlat_tb_target(b, now, true, LOWLAT_TB_FIFO), shown, after;
	bool stands = lowlat_tb_app_target(b, theirs, &shown);

	if (!stands)
		shown = target;
	*fr = (struct lowlat_tb_frame){.start_ns = now - 5 * MS,
	                               .present_ns = now,
	                               .target_ns = shown,
	                               .ask_ns = LOWLAT_LOG_UNKNOWN,
	                               .vblank_latch = true,
	                               .fifo = true};
	lowlat_tb_presented(b, true, shown, fr);
	lowlat_tb_release(b, pacer, 0, now, shown, &after);
	return stands;
}

/* An app that sets its own targets at the cap's rate (60 fps on 120 Hz: every other refresh, its
 * own timeline, as vkd3d_like --target-fps does) and one frame that misses its refresh. The cap's
 * grid keeps a late frame's n refreshes (the next target a refresh on), but the app's timeline
 * does not move, and its next target, a refresh it can still make, is no faster than the cap: it
 * stands, and so does every later one. (Weighed against the grid moved on, each later target was
 * a refresh earlier than lowlat's and was moved there, for good.) */
static void app_targets_after_late_frame(void)
{
	struct lowlat_timing_brain b;
	struct lowlat_pacer pacer;
	struct lowlat_tb_frame fr;
	const int late = 10, frames = 30;
	int stood = 0, first_moved = 0;

	lowlat_tb_init(&b, LOWLAT_TARGETS_ABSOLUTE, -1);
	lowlat_tb_refresh(&b, REFRESH, false);
	lowlat_pacer_init(&pacer);
	lowlat_pacer_set_mfps(&pacer, 60000);
	/* The first present, shown at a refresh start, gives the grid its phase; the grid goes on from
	 * it, in phase with the app's timeline. */
	int64_t vblank = 100 * MS, after;
	fr = (struct lowlat_tb_frame){.start_ns = LOWLAT_LOG_UNKNOWN,
	                              .present_ns = vblank - 10 * MS,
	                              .target_ns = LOWLAT_LOG_UNKNOWN,
	                              .ask_ns = LOWLAT_LOG_UNKNOWN,
	                              .vblank_latch = true,
	                              .fifo = true};
	lowlat_tb_presented(&b, true, LOWLAT_LOG_UNKNOWN, &fr);
	lowlat_tb_report(&b, &fr, vblank - 8 * MS, vblank);
	CHECK(lowlat_tb_ready(&b));
	lowlat_tb_release(&b, &pacer, 0, vblank - 5 * MS, vblank, &after);
	for (int k = 1; k <= frames; k++) {
		/* The app asks for its refresh 500 us in (nearest), presenting 7 ms ahead of it, after
		 * the frame before was shown. */
		int64_t refresh = vblank + 2 * k * REFRESH;
		bool stands = app_present(&b, &pacer, refresh - 7 * MS, refresh + 500 * US, &fr);
		stood += stands;
		if (!stands && !first_moved)
			first_moved = k;
		/* Ready 3 ms before the refresh it went down for, shown there; the late one is ready 2 ms
		 * after it, and shown at the next. */
		int64_t ready = k == late ? fr.target_ns + 2 * MS : fr.target_ns - 3 * MS;
		lowlat_tb_report(&b, &fr, ready, lowlat_refresh_at_or_after(ready, vblank, REFRESH));
		if (stands)
			CHECK_EQ_I64(fr.target_ns, refresh);
	}
	CHECK_EQ_I64(first_moved, 0);
	CHECK_EQ_I64(stood, frames);
	/* The late frame's successor went at the app's refresh, one after the late one: no frame was
	 * moved on. */
	CHECK_EQ_I64(b.cadence_moves, 0);
}

int main(void)
{
	RUN(phase_unseen_then_seen);
	RUN(phase_seen_first);
	RUN(late_on_a_guess);
	RUN(app_targets_after_late_frame);
	return check_result();
}
