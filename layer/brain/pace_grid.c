/* pace_grid.c — the refresh-grid planner; see pace_grid.h. */
#include "pace_grid.h"

#include "grid.h"
#include "pace_display.h"

void lowlat_grid_plan(struct lowlat_pacer *pacer, const struct lowlat_grid_in *in,
                      struct lowlat_grid_plan *out)
{
	int64_t refresh = in->refresh_ns, interval = lowlat_pacer_interval_ns(pacer);
	int64_t earliest = in->now_ns, next, after;

	if (in->cpu_release_ns && in->cpu_release_ns + interval > earliest)
		earliest = in->cpu_release_ns + interval;
	if (in->n && in->current_ns != INT64_MIN) {
		/* n refreshes after the current frame's, in phase with the refresh starts the display
		 * reports (the rounded duration alone would drift). */
		next = lowlat_refresh_nearest(in->current_ns + in->n * refresh, in->vblank_ns, refresh);
		after = next + in->n * refresh;
	} else if (in->n) {
		/* Starting the refresh grid: the first refresh the next frame can make. */
		next = lowlat_refresh_at_or_after(earliest + in->lead_ns, in->vblank_ns, refresh);
		after = next + in->n * refresh;
	} else {
		/* The time grid paces ready times: the pacer is given when the next frame would be ready
		 * if released now, and its deadline is that frame's target. From the CPU pacer, its grid
		 * moves into ready times: the last release plus the lead. On a fixed-rate display the
		 * grid may trail its points by some refreshes before it restarts, taking them back at
		 * the cap's own repeats (pace_display.h). */
		if (in->cpu_release_ns)
			lowlat_pacer_restart_at(pacer, in->cpu_release_ns + in->lead_ns);
		int64_t ready = in->now_ns + in->lead_ns;
		next = lowlat_pacer_next_predicted_deadline(
		        pacer, ready, in->vrr ? 0 : LOWLAT_TIME_GRID_TRAIL_REFRESHES * refresh);
		after = next + interval;
		if (!in->vrr) {
			next = lowlat_time_grid_target(next < ready ? ready : next, in->current_ns,
			                               in->vblank_ns, refresh, interval);
			after = lowlat_time_grid_target(after, next, in->vblank_ns, refresh, interval);
		} else if (in->current_ns != INT64_MIN && next < in->current_ns + refresh) {
			/* A variable-rate display shows frames at least its shortest refresh apart: a
			 * target sooner after the one before (the grid catching up a late release, a
			 * shorter lead) would be held there all the same, its input sampled early. */
			next = in->current_ns + refresh;
			after = next + interval;
		}
	}
	if (in->backlog_refreshes) {
		/* Hold the app back that many refreshes once, so the display shows the queued frames
		 * meanwhile and the next one, released just in time again, finds the queue empty. */
		int64_t delay = in->backlog_refreshes * refresh;
		if (!in->n)
			lowlat_pacer_delay(pacer, delay);
		next += delay;
		after += delay;
	}
	out->target_ns = next;
	out->after_ns = after;
}
