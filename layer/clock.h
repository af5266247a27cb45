/* clock.h — the time seam: reading CLOCK_MONOTONIC and waiting until an absolute deadline.
 *
 * All time is signed 64-bit nanoseconds on CLOCK_MONOTONIC; names end in _ns. The pacing core
 * (pace.c) never reads a clock or sleeps: it takes now_ns and returns deadlines. Whoever drives it
 * does so through a struct lowlat_clock, which tests replace with a fake timeline.
 *
 * The system implementation (timing.c) sleeps to an absolute deadline with clock_nanosleep for most
 * of the wait and spins the last stretch (the "tail"), because a sleeping thread wakes up late by a
 * scheduler- and VM-dependent amount. The tail adapts to the overshoot it measures; its state lives
 * in a struct lowlat_sleeper, one per swapchain, so threads never share it.
 */
#ifndef LOWLAT_CLOCK_H
#define LOWLAT_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct lowlat_clock {
	int64_t (*now_ns)(void *ctx);
	/* Returns at or after deadline_ns (or after the wait cap; see timing.c), never before. */
	void (*sleep_until_ns)(void *ctx, int64_t deadline_ns);
	void *ctx;
};

/* Longest single wait. A bad deadline (a bug, a bogus config) must never freeze a game: the player
 * must still be able to quit. 1 s is longer than any frame interval lowlat accepts (>= 1 fps). */
#define LOWLAT_MAX_WAIT_NS 1000000000ll /* 1 s */

/* Bounds of the adaptive spin tail; the measurements behind them are in timing.c. */
#define LOWLAT_TAIL_MIN_NS     50000ll   /* 50 us */
#define LOWLAT_TAIL_MAX_NS     1000000ll /* 1 ms */
#define LOWLAT_TAIL_INITIAL_NS 200000ll  /* 200 us, until the window has data */

/* Recent sleep overshoots the adaptive tail looks at: about 4 s at 60 fps, 1.8 s at 144. The tail
 * covers the largest of them (timing.c), so the window sets how rare an uncovered overshoot is:
 * about 1 in 257 sleeps when they are independent. */
#define LOWLAT_SLEEPER_WINDOW 256

struct lowlat_sleeper {
	/* true: the tail follows the measured overshoot; false: tail_ns stays as set (the benchmark
	 * uses this for its fixed-tail rows, and tail_ns = 0 for a plain sleep). */
	bool adaptive;
	/* true: leave the thread's timer slack alone (benchmark rows without the 1 ns slack). */
	bool keep_timer_slack;
	int64_t tail_ns;
	/* Ring of how late clock_nanosleep woke, in ns (clamped to int32). */
	int32_t overshoot_ns[LOWLAT_SLEEPER_WINDOW];
	uint32_t count, next;
};

/* CLOCK_MONOTONIC now. */
int64_t lowlat_now_ns(void);

/* The adaptive hybrid sleeper with its initial tail. */
void lowlat_sleeper_init(struct lowlat_sleeper *sleeper);

/* Waits until deadline_ns (absolute, CLOCK_MONOTONIC), at most LOWLAT_MAX_WAIT_NS from now. Returns
 * at once when the deadline has passed. Lowers the calling thread's timer slack to 1 ns for the
 * sleep and restores it. */
void lowlat_sleep_until_ns(struct lowlat_sleeper *sleeper, int64_t deadline_ns);

/* Records how late a sleep woke and updates the adaptive tail. lowlat_sleep_until_ns calls it;
 * exposed so tests can drive the adaptation with chosen overshoots. */
void lowlat_sleeper_note_overshoot(struct lowlat_sleeper *sleeper, int64_t overshoot_ns);

/* The system clock, its sleeps going through sleeper. */
struct lowlat_clock lowlat_system_clock(struct lowlat_sleeper *sleeper);

#endif
