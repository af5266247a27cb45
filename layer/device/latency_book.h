/* latency_book.h — the pure part of lowlat's VK_NV_low_latency2: which timeline-semaphore signals
 * lowlat owes the app, and when a latency sleep's release falls.
 *
 * No Vulkan, no clock, no locks: latency_sleep.c holds the device's lock around every call and
 * passes the time in, so tests drive this with plain numbers. Semaphores and swapchains are their
 * 64-bit handle values (non-dispatchable handles are 64-bit on 32-bit builds too, so they are cast
 * straight to and from uint64_t, never through a pointer-sized integer). Time is int64 ns on
 * CLOCK_MONOTONIC.
 *
 * An owed signal is added by vkLatencySleepNV (semaphore, value, release time). Whoever signals it
 * claims it first (a thread waiting for it in vkWaitSemaphores, or the device's signaler thread when
 * nobody waits), so each value is signalled once; a signal of value V also satisfies every owed
 * value <= V of the same semaphore, which are then dropped rather than signalled lower afterwards
 * (a timeline may only be signalled upwards).
 */
#ifndef LOWLAT_LATENCY_BOOK_H
#define LOWLAT_LATENCY_BOOK_H

#include <stdbool.h>
#include <stdint.h>

/* Owed signals per device. A latency sleep is released within one frame interval (at most 1 s,
 * the longest wait lowlat makes), and an app sleeps once per frame per swapchain, so a handful are
 * outstanding; 32 leaves room for several swapchains and an app that never waits. */
#define LOWLAT_OWED_MAX 32

struct lowlat_owed {
	uint64_t semaphore, value;
	uint64_t swapchain; /* whose sleep it ends, for the log */
	int64_t release_ns;
	int64_t tolerance_ns; /* of a wait for release_ns (clock.h) */
	bool claimed;         /* someone is about to signal it: nobody else may */
};

struct lowlat_owed_book {
	struct lowlat_owed items[LOWLAT_OWED_MAX];
	uint32_t count;
};

/* Adds an owed signal; false when the book is full (the caller then signals it at once). */
bool lowlat_owed_add(struct lowlat_owed_book *book, const struct lowlat_owed *owed);

/* The owed signal a wait for (semaphore, value) ends at: the unclaimed one of that semaphore with
 * the smallest value >= value. -1 when there is none (nothing of ours, or already claimed). */
int lowlat_owed_for_wait(const struct lowlat_owed_book *book, uint64_t semaphore, uint64_t value);

/* The unclaimed owed signal with the earliest release, -1 when none. */
int lowlat_owed_earliest(const struct lowlat_owed_book *book);

/* true while another claimed signal of the same semaphore with a lower value is still to be sent:
 * the claimer of item i must wait for it, or its own, higher signal would make that one invalid. */
bool lowlat_owed_lower_claimed(const struct lowlat_owed_book *book, int i);

/* The claimed item i was signalled (or found already satisfied): removes it and every unclaimed owed
 * signal of its semaphore with a value <= its own, which that signal satisfied. Returns how many
 * were removed. Indices of other items may change. */
uint32_t lowlat_owed_done(struct lowlat_owed_book *book, int i);

/* The owed signal (semaphore, value), claimed or not; -1 when there is none. */
int lowlat_owed_find(const struct lowlat_owed_book *book, uint64_t semaphore, uint64_t value);

/* Removes the unclaimed owed signals of semaphore with a value below value (a signal of value will
 * satisfy them); returns how many. */
uint32_t lowlat_owed_drop_lower(struct lowlat_owed_book *book, uint64_t semaphore, uint64_t value);

/* The unclaimed owed signals of a swapchain that is going away: due at release_ns (0: at once)
 * and no longer the swapchain's. Returns how many. */
uint32_t lowlat_owed_release_swapchain(struct lowlat_owed_book *book, uint64_t swapchain, int64_t release_ns);

/* Removes every owed signal of a swapchain's that nobody claimed, for the caller to signal (the
 * swapchain is going away); copies them to out (room for LOWLAT_OWED_MAX) and returns how many. */
uint32_t lowlat_owed_take_swapchain(struct lowlat_owed_book *book, uint64_t swapchain,
                                    struct lowlat_owed *out);

/* Which grids decide a latency sleep's release. own_mfps: lowlat's cap (0 = off); app_mfps: the
 * app's minimumIntervalUs as a cap (0 = none). Without stacking only one limiter is in charge: the
 * lower cap (the longer interval), so the app's interval is still kept when lowlat's cap is lower,
 * and lowlat's cap never runs on top of a lower one of the app's. DXVK passes its own frame limit
 * (and under V-Sync its refresh-rate limit) as minimumIntervalUs. */
void lowlat_latency_grids(uint32_t own_mfps, uint32_t app_mfps, bool stack, bool *use_own, bool *use_app);

/* When a latency sleep releases the app.
 *
 * own_ns: lowlat's deadline on its cap's grid, have_own false when lowlat's cap is off.
 * app_ns: the deadline on the app's own minimumIntervalUs grid, have_app false when it set none.
 * stack: the `stack_limiters` setting. With both a cap of lowlat's and one of the app's, lowlat's
 * applies only when stacking is asked for (the later of the two then); otherwise the app's alone.
 * Returns the release time; a value <= now means "at once", and *paced says whether any limiter set
 * it. */
int64_t lowlat_latency_release_ns(bool have_own, int64_t own_ns, bool have_app, int64_t app_ns, bool stack,
                                  int64_t now_ns, bool *paced);

/* minimumIntervalUs (microseconds between presents) as a cap in millihertz for the pacer: 0 for
 * none; intervals beyond 1 s (below 1 fps) are held at 1 fps, lowlat's longest wait. */
uint32_t lowlat_interval_us_to_mfps(uint32_t interval_us);

#endif
