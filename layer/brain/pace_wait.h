/* pace_wait.h — the "present-wait" pacing level's phase against the refresh: a pure function of
 * when lowlat's own present waits returned (no Vulkan, no clock; present.c feeds it).
 *
 * Why: this level has no display times, but a present wait that blocks returns when the frame's
 * first pixel is out, i.e. at a refresh start (plus the waking thread's latency). Those returns
 * give a grid: its phase, and its period, the frames' median spacing. While that period is the
 * cap's interval (within 5%: the cap sets when frames are shown; at a cap near refresh/n it is n
 * refreshes), the release goes at (the first grid point at or after the earliest allowed release +
 * lead) - lead, so a frame starts just in time for its refresh rather than at an arbitrary phase of
 * the scan-out. The refresh itself is not known on this level (frames shown every other refresh
 * never show it), so other caps are released on the CPU grid alone. Nothing says when a
 * frame's GPU work is done here, so the lead is found by trial: a frame shown on the refresh it
 * was released for shortens it a little, one shown a refresh or more later lengthens it a lot.
 */
#ifndef LOWLAT_PACE_WAIT_H
#define LOWLAT_PACE_WAIT_H

#include <stdbool.h>
#include <stdint.h>

/* Spacings of successive first pixels the refresh duration is estimated from: enough for a median
 * that ignores the odd repeat or stall, few enough to follow a change of mode within 16 frames. */
#define LOWLAT_PW_SPACINGS 15
/* Spacings needed before the grid is used at all. */
#define LOWLAT_PW_SPACINGS_MIN 4

struct lowlat_pw_phase {
	int64_t vblank_ns; /* the latest first pixel, 0 before one */
	int64_t period_ns; /* the median spacing of successive first pixels, 0 until known */
	int64_t spacing_ns[LOWLAT_PW_SPACINGS];
	uint32_t spacing_count, spacing_next;
	int64_t lead_ns;   /* how long before its refresh a frame is released; 0 until the refresh is known */
	int64_t target_ns; /* the refresh the latest release aimed at, 0 when none */
	uint64_t hits, misses;
};

/* The first pixel of the frame the latest release was made for, at shown_ns (a wait that blocked
 * until it was shown). */
void lowlat_pw_phase_shown(struct lowlat_pw_phase *p, int64_t shown_ns);

/* A present whose wait did not block (its frame was shown before lowlat waited) or failed: the
 * latest release's aim is unknown. */
void lowlat_pw_phase_forget(struct lowlat_pw_phase *p);

/* When to release the app, at or after earliest_ns (the CPU grid's deadline, or now when later), at a
 * cap of interval_ns: just in time for the first grid point it can make; earliest_ns itself while
 * the grid is unknown or its period is not the cap's interval. */
int64_t lowlat_pw_phase_release(struct lowlat_pw_phase *p, int64_t earliest_ns, int64_t interval_ns);

#endif
