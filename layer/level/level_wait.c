/* level_wait.c — the "present-wait" pacing level: swapchains without present timing on a device
 * with present_id and present_wait. The driver sees lowlat's own present ids (present_ids.h); the
 * latency-frames cap waits for frame N+1-k to be shown with vkWaitForPresentKHR inside the app's
 * present, and those waits' returns phase the release to the refresh (pace_wait.h). Its releases
 * are the CPU grid's, moved by that phase. See level.h. */
#include <stdio.h>

#include "brain/pace_wait.h"
#include "clock.h"
#include "level.h"
#include "log.h"
#include "present_call.h"
#include "present_ids.h"
#include "swapchain.h"
#include "swapchain_cap.h"

/* How long the latency cap waits for a frame to be shown: four of the cap's intervals (a frame on
 * time is shown within one, the refresh being unknown on this level), and never under 100 ms,
 * which covers four refreshes down to 40 Hz when the cap is above the refresh rate. Beyond that
 * the display or driver is stalled, and the app must not be. */
#define LATENCY_TIMEOUT_INTERVALS 4
#define LATENCY_TIMEOUT_MIN_NS    100000000ll /* 100 ms */

/* A wait for a present that returned within this found its frame already shown: its return is
 * the call's own cost, not a refresh start, so it is no sample of the grid. */
#define BLOCKED_MIN_NS 50000ll /* 50 us */

/* Whether this present gets the cap here: k = max_latency_frames > 0, while lowlat caps it, late
 * method, a FIFO-family present carrying one of lowlat's ids. (The present hook asks only where the
 * present itself is the wait point: a wait here would stall an app's submit thread otherwise.) */
static bool capped(const struct lowlat_swapchain *sc)
{
	return sc->ids_owned && sc->present_id && sc->config.max_latency_frames && sc->pacer.mfps &&
	       !sc->latency_off && sc->config.method == LOWLAT_METHOD_LATE &&
	       lowlat_mode_is_fifo(sc->current_mode);
}

/* The release, inside the app's present call (the app's external synchronisation of the swapchain
 * covers lowlat's wait: the spec makes both commands externally synchronise it): first the cap,
 * frame N+1-k shown by lowlat's own wait for that frame's id (lowlat's ids go up by one a
 * present), bounded by the timeout; then, with k = 1, the CPU grid's deadline moved to just in time
 * for the first refresh it can make, the wait's return being that refresh's start. */
static int64_t hold(struct lowlat_frame *f, int64_t deadline_ns)
{
	struct lowlat_swapchain *sc = f->sc;
	uint32_t k = sc->config.max_latency_frames;
	int64_t timeout_ns = LATENCY_TIMEOUT_INTERVALS * lowlat_pacer_interval_ns(&sc->pacer);
	int64_t begin_ns, end_ns;
	char within[48];

	if (!capped(sc))
		return deadline_ns;
	f->level_paced = true;
	if (sc->present_id < k)
		return deadline_ns;
	if (timeout_ns < LATENCY_TIMEOUT_MIN_NS)
		timeout_ns = LATENCY_TIMEOUT_MIN_NS;
	if (timeout_ns > LOWLAT_MAX_WAIT_NS)
		timeout_ns = LOWLAT_MAX_WAIT_NS;
	begin_ns = lowlat_now_ns();
	VkResult r = lowlat_ids_wait_shown(sc, sc->present_id - (k - 1), timeout_ns);
	end_ns = lowlat_now_ns();
	if (r != VK_SUCCESS) {
		lowlat_pw_phase_forget(&sc->pw_phase);
		if (r == VK_TIMEOUT) {
			snprintf(within, sizeof(within), "%.0f ms", (double)timeout_ns * 1e-6);
			lowlat_swapchain_cap_timed_out(sc, k, within);
		}
		/* OUT_OF_DATE, SURFACE_LOST, DEVICE_LOST: the frame will not be shown; the app learns it
		 * at its next call on the swapchain, which this release lets it make at once. */
		return deadline_ns;
	}
	sc->latency_waits++;
	sc->latency_timeouts_in_row = 0;
	if (k == 1 && end_ns - begin_ns >= BLOCKED_MIN_NS)
		lowlat_pw_phase_shown(&sc->pw_phase, end_ns);
	else
		lowlat_pw_phase_forget(&sc->pw_phase);
	if (k != 1)
		return deadline_ns;
	/* The pacing deadline the log shows is the one used. */
	f->target_ns = lowlat_pw_phase_release(&sc->pw_phase, deadline_ns > end_ns ? deadline_ns : end_ns,
	                                       lowlat_pacer_interval_ns(&sc->pacer));
	return f->target_ns;
}

static void log_row(const struct lowlat_frame *f, struct lowlat_log_record *rec)
{
	if (f->level_paced && f->sc->pacer.mfps)
		rec->fallback = LOWLAT_LOG_FALLBACK_WAIT;
}

const struct lowlat_level lowlat_level_present_wait = {
        .name = "present-wait",
        .hold = hold,
        .log = log_row,
};
