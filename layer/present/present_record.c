/* present_record.c — counts, log rows and the next frame's start after a present; see
 * present_record.h. */
#include "present_record.h"

#include "level.h"
#include "log.h"
#include "present_call.h"
#include "present_wait.h"
#include "swapchain.h"
#include "swapchain_cap.h"
#include "wait_point.h"

/* Counted when the wait ended (t_ns): in late mode when the app gets control back, in early mode
 * when the frame goes down. Either way the cadence the method shapes, and the same instants the
 * pacer's grid and its time lost refer to. SUBOPTIMAL still presented the image. */
static void count(struct lowlat_swapchain *sc, VkResult result, int64_t t_ns)
{
	if (result < 0) {
		sc->present_errors++;
		return;
	}
	if (!sc->presents++)
		sc->first_present_ns = t_ns;
	sc->last_present_ns = t_ns;
	lowlat_cap_present(sc, t_ns);
}

/* The frame's log row. A swapchain whose wait point is the app's latency sleep: its wait is that
 * sleep's, and its frame started when the sleep released the app; one whose release was queued
 * for the app's present wait gets that wait written in when it is made. */
static int64_t log_row(const struct lowlat_frame *f, const struct lowlat_call_times *t, bool slept,
                       int64_t sleep_begin, int64_t sleep_end, int64_t sleep_target)
{
	struct lowlat_swapchain *sc = f->sc;
	struct lowlat_log_record rec;

	lowlat_log_record_init(&rec);
	rec.frame_start_ns = sc->frame_start_ns;
	rec.present_ns = t->entry_ns;
	rec.wait_begin_ns = t->wait_begin_ns;
	rec.wait_end_ns = t->wait_end_ns;
	rec.driver_ns = t->driver_ns;
	if (f->queued)
		rec.wait_begin_ns = rec.wait_end_ns = LOWLAT_LOG_UNKNOWN;
	rec.target_ns = f->target_ns;
	if (slept) {
		rec.frame_start_ns = sleep_end;
		rec.wait_begin_ns = sleep_begin;
		rec.wait_end_ns = sleep_end;
		rec.target_ns = sleep_target;
	}
	rec.present_mode = sc->current_mode;
	rec.fallback = sc->pacer.mfps ? LOWLAT_LOG_FALLBACK_CPU : LOWLAT_LOG_FALLBACK_OFF;
	if (sc->level->log)
		sc->level->log(f, &rec);
	return lowlat_log_present(sc->log, &rec);
}

void lowlat_present_record(struct lowlat_present_call *call)
{
	for (uint32_t i = 0; i < call->count; i++) {
		struct lowlat_frame *f = &call->frames[i];
		struct lowlat_swapchain *sc = f->sc;
		int64_t sleep_begin, sleep_end, sleep_target, row = LOWLAT_LOG_UNKNOWN;

		if (!sc)
			continue;
		count(sc, f->result, call->t.wait_end_ns);
		bool slept = lowlat_point_take_wait(call->dev, sc, &sleep_begin, &sleep_end, &sleep_target);
		if (sc->log) {
			row = log_row(f, &call->t, slept, sleep_begin, sleep_end, sleep_target);
			/* The release queued for the app's present wait, and the waits made there for
			 * earlier presents, go into their rows. */
			if (f->queued)
				lowlat_pw_set_log_frame(sc, row);
			lowlat_pw_log(sc);
		}
		if (sc->level->done)
			sc->level->done(f, row);
		sc->frame_start_ns = call->t.return_ns;
		sc->acquire_blocked_ns = 0;
	}
}
