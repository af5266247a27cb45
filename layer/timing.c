/* timing.c — CLOCK_MONOTONIC and precise waiting to an absolute deadline; see clock.h.
 *
 * The wait is a hybrid: clock_nanosleep(TIMER_ABSTIME) to (deadline - tail), then a spin with a
 * CPU-relax hint until the deadline. Sleeping to an absolute deadline cannot drift the way a
 * relative sleep does when the thread is preempted between reading the clock and sleeping.
 *
 * Why a tail, and why adaptive: the kernel wakes a sleeping thread late by its timer slack (50 us
 * by default, which we lower to 1 ns for the wait) plus scheduling latency, which on a VM is large
 * and varies between machines. A fixed tail is either too short for a noisy VM (late frames) or
 * burns CPU on a quiet machine. So the tail tracks the largest overshoot this sleeper measured
 * over its last LOWLAT_SLEEPER_WINDOW sleeps, bounded to [50 us, 1 ms].
 *
 * Measured on the 2-core build VM with tests/bench/sleep_precision (16.6 ms waits) and
 * tools/bench-limiter; the numbers and the choice are at LOWLAT_TAIL_MARGIN_DIVISOR below.
 *
 * Tried and not taken: a short scheduler slice for the sleep. Linux 6.12+ takes a per-thread EEVDF
 * slice request in sched_attr.sched_runtime (SCHED_OTHER, no privilege), and a woken thread with a
 * short slice gets an early deadline, so it should preempt a busy CPU's thread instead of waiting
 * for the next tick. Lowered to 100 us for the sleep and restored on waking, it won in a bare loop
 * (16.7 ms waits, 3 ms of work after each, two busy threads; 2026-12-01, kernel 6.18, HZ 250): 0.3-2.2%
 * of waits woke over 100 us late against 16-21%. With real clients it did not: vkcube at 60 fps
 * beside two busy loops, 10 interleaved rounds, 34 of 2390 releases over 100 us late with it and
 * 23 without; frame_cost (3 ms frames) 83 of 2276 against 40. The late wake-ups it left were a
 * whole tick (4.05 ms): a woken thread that is not yet eligible (it ran more than its share) does
 * not preempt whatever its slice. */
#include "clock.h"

#include <errno.h>
#include <sys/prctl.h>
#include <time.h>

#define NS_PER_S 1000000000ll

/* Measured with tests/bench/sleep_precision (16.6 ms waits, methods taking turns) on the shared
 * 2-core VM, 2026-11-30, while other sessions ran vkcube benchmarks. Wake-up error after the
 * deadline in us (never before it), thread CPU time per wait in us.
 *
 * Load average ~2 (--waits 1000, an earlier benchmark with a fixed order, where a method's wake-up
 * can be delayed by the CPU its predecessor spun):
 *   method      p50   p90    p99   p99.9   cpu/wait  mean tail
 *   plain       107   347  11152   40533      31.7
 *   slack1ns     57   253   7396   28194      36.8
 *   tail100us   0.2   215   7406   95214      69.7      100
 *   tail200us   0.2    33  17301   42817     155.6      200
 *   tail300us   0.2    35   7961   33117     244.4      300
 *   adaptive    0.2    35   4994   50439     564.1      666   (p99 rule, before the overload rule)
 * Load average 6-7.7 (--waits 800, shuffled order):
 *   plain       100  1795  12642   58082      22.7
 *   slack1ns     50  1732  19301  138736      26.6
 *   tail100us   0.2  1589  12332   24890      61.3      100
 *   tail200us   0.2  2090  23575   60956     126.4      200
 *   tail500us   0.2  1430  14674   28103     359.0      500
 *   tail1000us  0.2   497  13671   22249     771.7     1000
 *   adaptive    1.4  1884  34119   83680      33.3       53   (overload rule: floor)
 * A less loaded run: slack1ns p50 90 / p99 387 / p99.9 3671; tail200us p99 408; FACTS.md has
 * slack1ns p99 ~150 us on an idle machine.
 *
 * Reading: the 1 ns slack halves the median overshoot; any tail brings the median to ~0; the tail
 * must exceed the overshoot's upper percentiles to fix the p90/p99, and those move by 3x and more
 * with the machine's load. So the tail adapts, bounded [50 us, 1 ms], shrinking to the 50 us floor
 * where sleeps are precise. Past ~1 ms the waits are preemptions no spin hides; when they are common
 * (the overload rule below) the p99 is lost anyway and a 1 ms spin per frame (6% of a core at
 * 60 fps, 14% at 144) would only take CPU from the game's own threads, so the tail drops to its
 * floor: on the overloaded machine above, fixed tails up to 500 us bought nothing at p90 and only a
 * 1 ms tail did, for 23x the CPU of the floor.
 *
 * Why the largest overshoot and not a percentile. An overshoot the tail does not cover spoils two
 * frame intervals, the late one and the short one after it (deadlines stay on their grid), so for
 * the frame-interval p99 to be clean fewer than 1 in 200 sleeps may escape the tail. A tail at the
 * 2nd-largest of the last 128 (the first version) lets about 2 in 129 escape when overshoots are
 * independent, which puts 3% of the intervals, and so the p99, among the misses: bench-limiter on a
 * quiet machine measured lowlat's interval-error p99 at 34 / 42 / 115 us (60 / 144 / 37.5 fps) with
 * it, p50 0-1 us. The largest of 256 lets about 1 in 257 escape, and the margin over it (below)
 * makes those rarer still and shrinks what escapes. The cost is a tail nearer the top of the
 * distribution: on an idle machine (overshoot p99 ~150 us) about 200-250 us of spin per frame, 1.5%
 * of a core at 60 fps; one long overshoot holds it up for LOWLAT_SLEEPER_WINDOW sleeps at most. */
/* The margin over that largest overshoot: a quarter of it, for the overshoots the window has not
 * yet seen (their tail is long: p99.9 is several times the p99), plus a fixed 10 us for the spin's
 * own clock reads and the wake-up path after the overshoot was measured. */
#define LOWLAT_TAIL_MARGIN_DIVISOR 4
#define LOWLAT_TAIL_MARGIN_NS      10000ll /* 10 us */
/* Samples before the tail adapts: with fewer the largest says little. */
#define LOWLAT_TAIL_MIN_SAMPLES 16
/* Overloaded when more than 1 in this many recent sleeps overshot beyond any tail. */
#define LOWLAT_OVERLOAD_FRACTION 16

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__) || (defined(__arm__) && __ARM_ARCH >= 7)
	__asm__ volatile("yield");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

int64_t lowlat_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

void lowlat_sleeper_init(struct lowlat_sleeper *s)
{
	*s = (struct lowlat_sleeper){.adaptive = true, .tail_ns = LOWLAT_TAIL_INITIAL_NS};
}

/* The largest overshoot in the window among those a tail could hide: an overshoot beyond
 * LOWLAT_TAIL_MAX_NS is a preemption (another process had the CPU), which no bounded spin rescues,
 * so it must not pin the tail, and the CPU it burns, at the maximum. Counts those in *unhideable. */
static int64_t largest_hideable_ns(const struct lowlat_sleeper *s, uint32_t *unhideable)
{
	int32_t largest = 0;

	*unhideable = 0;
	for (uint32_t i = 0; i < s->count; i++) {
		int32_t v = s->overshoot_ns[i];

		if (v > LOWLAT_TAIL_MAX_NS)
			++*unhideable;
		else if (v > largest)
			largest = v;
	}
	return largest;
}

void lowlat_sleeper_note_overshoot(struct lowlat_sleeper *s, int64_t overshoot_ns)
{
	uint32_t unhideable;
	int64_t tail;

	if (overshoot_ns > INT32_MAX)
		overshoot_ns = INT32_MAX;
	s->overshoot_ns[s->next] = (int32_t)overshoot_ns;
	s->next = (s->next + 1) % LOWLAT_SLEEPER_WINDOW;
	if (s->count < LOWLAT_SLEEPER_WINDOW)
		s->count++;
	/* Too few samples for a percentile: keep the initial tail. */
	if (!s->adaptive || s->count < LOWLAT_TAIL_MIN_SAMPLES)
		return;
	tail = largest_hideable_ns(s, &unhideable);
	tail += tail / LOWLAT_TAIL_MARGIN_DIVISOR + LOWLAT_TAIL_MARGIN_NS;
	/* An overloaded machine: preemptions no tail can hide are common (see the load 6-7.7 table). */
	if (unhideable * LOWLAT_OVERLOAD_FRACTION > s->count)
		tail = LOWLAT_TAIL_MIN_NS;
	if (tail < LOWLAT_TAIL_MIN_NS)
		tail = LOWLAT_TAIL_MIN_NS;
	if (tail > LOWLAT_TAIL_MAX_NS)
		tail = LOWLAT_TAIL_MAX_NS;
	s->tail_ns = tail;
}

static void sleep_abs_ns(int64_t deadline_ns)
{
	struct timespec ts = {.tv_sec = deadline_ns / NS_PER_S, .tv_nsec = deadline_ns % NS_PER_S};

	/* A signal handler interrupts the sleep; the deadline is absolute, so sleeping again is exact. */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void lowlat_sleep_until_ns(struct lowlat_sleeper *s, int64_t deadline_ns)
{
	int64_t now = lowlat_now_ns();
	int64_t tail = s ? s->tail_ns : LOWLAT_TAIL_INITIAL_NS;
	int64_t wake_ns;

	if (deadline_ns <= now)
		return;
	if (deadline_ns - now > LOWLAT_MAX_WAIT_NS)
		deadline_ns = now + LOWLAT_MAX_WAIT_NS;

	wake_ns = deadline_ns - tail;
	if (wake_ns > now) {
		/* Timer slack is per thread and the app's; 0 would mean "reset to default", so 1 ns is the
		 * smallest. The lowered slack only matters while we sleep, so it is restored right after. */
		int old_slack = s && s->keep_timer_slack ? -1 : prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
		bool lowered = old_slack > 1 && prctl(PR_SET_TIMERSLACK, 1ul, 0, 0, 0) == 0;

		sleep_abs_ns(wake_ns);
		now = lowlat_now_ns();
		if (lowered)
			prctl(PR_SET_TIMERSLACK, (unsigned long)old_slack, 0, 0, 0);
		if (s)
			lowlat_sleeper_note_overshoot(s, now - wake_ns);
	}
	/* The spin is bounded by the tail (<= 1 ms), and by nothing when the sleep overshot. */
	while (now < deadline_ns) {
		cpu_relax();
		now = lowlat_now_ns();
	}
}

static int64_t system_now_ns(void *ctx)
{
	(void)ctx;
	return lowlat_now_ns();
}

static void system_sleep_until_ns(void *ctx, int64_t deadline_ns)
{
	lowlat_sleep_until_ns(ctx, deadline_ns);
}

struct lowlat_clock lowlat_system_clock(struct lowlat_sleeper *sleeper)
{
	return (struct lowlat_clock){
	        .now_ns = system_now_ns, .sleep_until_ns = system_sleep_until_ns, .ctx = sleeper};
}
