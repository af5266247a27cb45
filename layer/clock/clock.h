/* clock.h — the time seam: reading CLOCK_MONOTONIC and waiting until an absolute deadline.
 *
 * All time is signed 64-bit nanoseconds on CLOCK_MONOTONIC; names end in _ns. The pacing core
 * (pace.c) never reads a clock or sleeps: it takes now_ns and returns deadlines. Whoever drives it
 * does so through a struct lowlat_clock, which tests replace with a fake timeline.
 *
 * The system implementation (clock.c) sleeps in two steps and spins the last few microseconds
 * only where the caller needs the deadline to the microsecond; its per-thread state is a struct
 * lowlat_sleeper (one per swapchain or thread, never shared between threads).
 */
#ifndef LOWLAT_CLOCK_H
#define LOWLAT_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct lowlat_clock {
	int64_t (*now_ns)(void *ctx);
	/* Returns at or after deadline_ns (or after the wait cap; see clock.c), never before.
	 * tolerance_ns: how late it may return without harm (below). */
	void (*sleep_until_ns)(void *ctx, int64_t deadline_ns, int64_t tolerance_ns);
	void *ctx;
};

/* Tolerances. PRECISE: the wake-up is the frame's release on the CPU clock, whose intervals are
 * what the player sees, so the machine's wake-up error is spun away. COVERED: the caller's own lead
 * already absorbs the wake-up error (the display-paced levels plan a release a margin before the
 * refresh, learned from how late releases really were), so one plain sleep does, with no spin. */
#define LOWLAT_WAIT_PRECISE 0ll
#define LOWLAT_WAIT_COVERED INT64_MAX

/* Longest single wait. A bad deadline (a bug, a bogus config) must never freeze a game: the player
 * must still be able to quit. 1 s is longer than any frame interval lowlat accepts (>= 1 fps). */
#define LOWLAT_MAX_WAIT_NS 1000000000ll /* 1 s */

/* Bounds of the spin tail (clock.c). Overshoots beyond the maximum are preemptions, which no spin
 * of bounded cost hides. */
#define LOWLAT_TAIL_MIN_NS     10000ll   /* 10 us */
#define LOWLAT_TAIL_MAX_NS     1000000ll /* 1 ms */
#define LOWLAT_TAIL_INITIAL_NS 100000ll  /* 100 us, until the window has data */
/* Bounds of the lead of the first sleep over the second (clock.c). */
#define LOWLAT_LEAD_MIN_NS     100000ll  /* 100 us */
#define LOWLAT_LEAD_MAX_NS     2000000ll /* 2 ms */
#define LOWLAT_LEAD_INITIAL_NS 300000ll  /* 300 us, until the window has data */

/* Recent wake-ups each step's rule looks at: about 4 s at 60 fps, 1.8 s at 144. */
#define LOWLAT_SLEEPER_WINDOW 256

struct lowlat_overshoots {
	int32_t ns[LOWLAT_SLEEPER_WINDOW]; /* how late a sleep woke, clamped to int32 */
	uint32_t count, next;
};

struct lowlat_sleeper {
	/* The kernel's clock and plain absolute sleep, tolerance ignored (NULL: CLOCK_MONOTONIC and
	 * clock_nanosleep); tests put a fake timeline here. */
	const struct lowlat_clock *base;
	/* true: lead_ns and tail_ns follow the measured wake-ups; false: they stay as set (the
	 * benchmark's fixed rows; lead_ns 0 is a single sleep to deadline - tail_ns). */
	bool adaptive;
	/* true: leave the thread's timer slack alone (benchmark rows without the 1 ns slack). */
	bool keep_timer_slack;
	/* Recent wake-ups the tail may leave uncovered, of LOWLAT_SLEEPER_WINDOW (0: the default). */
	uint32_t escapes;
	/* Benchmark variants (clock.c, lowlat_sleeper_init): one sleep then the spin, as before the
	 * two steps; a tolerance every wait gets at least. */
	bool one_sleep;
	int64_t min_tolerance_ns;
	/* The first sleep ends lead_ns before the deadline, the second tail_ns before it; an adaptive
	 * lead is the tail, the long sleep's overshoot first_ns that it covers, and a margin. */
	int64_t lead_ns, tail_ns, first_ns;
	struct lowlat_overshoots first, second;
};

/* CLOCK_MONOTONIC now. */
int64_t lowlat_now_ns(void);

/* The adaptive sleeper, on the system clock, with its initial lead and tail. */
void lowlat_sleeper_init(struct lowlat_sleeper *sleeper);

/* Waits until deadline_ns (absolute, CLOCK_MONOTONIC), at most LOWLAT_MAX_WAIT_NS from now, and
 * returns as soon after it as tolerance_ns asks. Returns at once when the deadline has passed.
 * Lowers the calling thread's timer slack to 1 ns for the sleep and restores it. */
void lowlat_sleep_until_ns(struct lowlat_sleeper *sleeper, int64_t deadline_ns, int64_t tolerance_ns);

/* The system clock, its sleeps going through sleeper. */
struct lowlat_clock lowlat_system_clock(struct lowlat_sleeper *sleeper);

#endif
