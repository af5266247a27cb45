/* level_cpu.c — the "cpu" pacing level: the CPU time grid of the plain limiter (pace.h), which is
 * also every other level's plan for a present it cannot plan on its own grid (the refresh not
 * known yet, a present mode that takes no targets, the early method). See level.h. */
#include <inttypes.h>

#include "level.h"
#include "level_cpu.h"
#include "log.h"
#include "message.h"
#include "present_call.h"
#include "swapchain.h"
#include "wait_point.h"

void lowlat_cpu_plan(struct lowlat_frame *f, int64_t now_ns)
{
	struct lowlat_swapchain *sc = f->sc;
	uint64_t reanchors = sc->pacer.reanchors;
	int64_t deadline;

	/* The pacer is shared with the game thread's latency sleep where the device has one
	 * (latency_sleep.c): its lock around the grid's arithmetic. */
	lowlat_point_pacer_lock(sc->device);
	/* A grid paced the previous frame: this one is an interval after that release. */
	if (sc->last_release_display)
		lowlat_pacer_restart_at(&sc->pacer, sc->last_release_ns);
	deadline = lowlat_pacer_next_deadline(&sc->pacer, now_ns);
	sc->last_release_display = false;
	lowlat_point_pacer_unlock(sc->device);
	if (sc->pacer.reanchors != reanchors)
		LOWLAT_DEBUG("frame %" PRIu64 " was %.2f ms behind its deadline: pacing restarts from it",
		             sc->presents, (double)sc->pacer.behind_ns * 1e-6);
	f->release_ns = deadline;
	f->after_ns = 0;
	f->grid = false;
	f->target_ns = sc->pacer.mfps ? deadline : LOWLAT_LOG_UNKNOWN;
}

void lowlat_cpu_woke(struct lowlat_swapchain *sc, int64_t deadline_ns, int64_t begin_ns, int64_t end_ns)
{
	/* A wait that ended late (this thread was preempted past its deadline) moves the grid to the
	 * actual release (pace.h, lowlat_pacer_released); a present that came after its deadline did
	 * not wait and leaves the grid alone. */
	if (deadline_ns <= begin_ns || end_ns <= deadline_ns)
		return;
	lowlat_point_pacer_lock(sc->device);
	bool moved = lowlat_pacer_released(&sc->pacer, deadline_ns, end_ns);
	lowlat_point_pacer_unlock(sc->device);
	if (moved)
		lowlat_swapchain_released(sc, end_ns, false);
}

/* Nothing of its own to observe, hold, settle or log: the CPU grid is the fallback every present
 * gets (present.c) when its level has no grid plan. */
const struct lowlat_level lowlat_level_cpu = {.name = "cpu"};
