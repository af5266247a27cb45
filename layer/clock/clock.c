/* clock.c — CLOCK_MONOTONIC and waiting to an absolute deadline; see clock.h.
 *
 * A sleeping thread wakes late: by its timer slack (lowered to 1 ns for the wait) plus the
 * scheduler's and, on a VM, the hypervisor's latency. A precise wait therefore sleeps in two
 * steps and spins the rest: a long sleep to lead_ns before the deadline, a short one to tail_ns
 * before it, then a spin with a CPU-relax hint. The short sleep wakes far more precisely than the
 * long one, so the spin, the only part that burns CPU, covers only the short sleep's error. Both
 * steps learn from their own recent overshoots; docs/rationale.md has the measurements behind the
 * rules. Absolute deadlines cannot drift the way relative sleeps do.
 */
#include "clock.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#define NS_PER_S 1000000000ll

/* The tail covers all but the `escapes` largest short-sleep overshoots of the window: each one it
 * leaves out is a release late by the excess. Covering more costs a spin as long as the rarer
 * overshoot on every frame. 16 of 256 (the 94th percentile) keeps lowlat's CPU per frame about
 * MangoHud's; docs/rationale.md compares 4, 8 and 16. */
#define LOWLAT_TAIL_ESCAPES 16
/* The lead need only cover most long-sleep overshoots: one beyond it lands in the tail or a little
 * after it, which costs at most a tail's spin, or a late release when it is longer than the lead. */
#define LOWLAT_LEAD_ESCAPES (LOWLAT_SLEEPER_WINDOW / 10)
/* Over the kth largest overshoot: the spin's own clock reads, and the wake-up path after the
 * overshoot was measured. */
#define LOWLAT_TAIL_MARGIN_NS 5000ll  /* 5 us */
#define LOWLAT_LEAD_MARGIN_NS 20000ll /* 20 us */
/* Samples before a step adapts: with fewer, the kth largest says little. */
#define LOWLAT_MIN_SAMPLES 16
/* Overloaded when more than 1 in this many recent short sleeps overshot beyond any tail: spinning
 * buys nothing then and takes CPU from the game's own threads, so the tail drops to its floor. */
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

static void kernel_sleep_abs_ns(int64_t deadline_ns)
{
	struct timespec ts = {.tv_sec = deadline_ns / NS_PER_S, .tv_nsec = deadline_ns % NS_PER_S};

	/* A signal handler interrupts the sleep; the deadline is absolute, so sleeping again is exact. */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* A benchmark knob's value in [0, max], or -1 where unset or not a number. */
static long long bench_knob(const char *name, long long max)
{
	const char *text = getenv(name);
	char *end;
	long long v;

	if (!text || !*text)
		return -1;
	v = strtoll(text, &end, 10);
	return *end || v < 0 || v > max ? -1 : v;
}

/* The benchmark's variants (tools/bench-limiter --lowlat-variant), read where a sleeper starts
 * (swapchain creation, a thread's first wait), never on the present path: LOWLAT_BENCH_TAIL_ESCAPES
 * (0..31), LOWLAT_BENCH_ONE_SLEEP (1: no first sleep), LOWLAT_BENCH_TOLERANCE_US (every wait's
 * tolerance at least this). Not settings: a player has no use for them. */
static void bench_variant(struct lowlat_sleeper *s)
{
	long long v;

	if ((v = bench_knob("LOWLAT_BENCH_TAIL_ESCAPES", LOWLAT_SLEEPER_WINDOW / 8 - 1)) >= 0)
		s->escapes = (uint32_t)v;
	s->one_sleep = bench_knob("LOWLAT_BENCH_ONE_SLEEP", 1) == 1;
	if ((v = bench_knob("LOWLAT_BENCH_TOLERANCE_US", 1000000)) >= 0)
		s->min_tolerance_ns = v * 1000;
}

void lowlat_sleeper_init(struct lowlat_sleeper *s)
{
	*s = (struct lowlat_sleeper){.adaptive = true,
	                             .lead_ns = LOWLAT_LEAD_INITIAL_NS,
	                             .tail_ns = LOWLAT_TAIL_INITIAL_NS,
	                             .first_ns = LOWLAT_LEAD_INITIAL_NS - LOWLAT_TAIL_INITIAL_NS -
	                                         LOWLAT_LEAD_MARGIN_NS};
	bench_variant(s);
}

static void note(struct lowlat_overshoots *o, int64_t overshoot_ns)
{
	if (overshoot_ns > INT32_MAX)
		overshoot_ns = INT32_MAX;
	o->ns[o->next] = (int32_t)overshoot_ns;
	o->next = (o->next + 1) % LOWLAT_SLEEPER_WINDOW;
	if (o->count < LOWLAT_SLEEPER_WINDOW)
		o->count++;
}

/* The kth largest overshoot (k >= 1) at most max_ns, or 0 with fewer than k of them; counts those
 * beyond max_ns (preemptions, which must not pin a step at its maximum) in *beyond. */
static int64_t kth_largest(const struct lowlat_overshoots *o, uint32_t k, int64_t max_ns, uint32_t *beyond)
{
	int32_t top[LOWLAT_SLEEPER_WINDOW / 8]; /* descending; k is at most its size */
	uint32_t n = 0;

	*beyond = 0;
	for (uint32_t i = 0; i < o->count; i++) {
		int32_t v = o->ns[i];
		uint32_t j;

		if (v > max_ns) {
			++*beyond;
			continue;
		}
		if (n == k && v <= top[k - 1])
			continue;
		j = n < k ? n++ : k - 1;
		for (; j > 0 && top[j - 1] < v; j--)
			top[j] = top[j - 1];
		top[j] = v;
	}
	return n == k ? top[k - 1] : 0;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The lead: the tail, then all but the LOWLAT_LEAD_ESCAPES largest long-sleep overshoots. */
static void set_lead(struct lowlat_sleeper *s)
{
	s->lead_ns = clamp(s->tail_ns + s->first_ns + LOWLAT_LEAD_MARGIN_NS, s->tail_ns + LOWLAT_LEAD_MIN_NS,
	                   LOWLAT_LEAD_MAX_NS);
}

/* The tail: all but the escapes largest short-sleep overshoots, or the floor when preemptions are
 * common. */
static void adapt_tail(struct lowlat_sleeper *s)
{
	uint32_t k = s->escapes ? s->escapes : LOWLAT_TAIL_ESCAPES, beyond;
	int64_t tail;

	if (s->second.count < LOWLAT_MIN_SAMPLES)
		return;
	if (k >= LOWLAT_SLEEPER_WINDOW / 8)
		k = LOWLAT_SLEEPER_WINDOW / 8 - 1;
	tail = kth_largest(&s->second, k + 1, LOWLAT_TAIL_MAX_NS, &beyond) + LOWLAT_TAIL_MARGIN_NS;
	if (beyond * LOWLAT_OVERLOAD_FRACTION > s->second.count)
		tail = LOWLAT_TAIL_MIN_NS;
	s->tail_ns = clamp(tail, LOWLAT_TAIL_MIN_NS, LOWLAT_TAIL_MAX_NS);
	set_lead(s);
}

static void adapt_lead(struct lowlat_sleeper *s)
{
	uint32_t beyond;

	if (s->first.count < LOWLAT_MIN_SAMPLES)
		return;
	s->first_ns = kth_largest(&s->first, LOWLAT_LEAD_ESCAPES + 1, LOWLAT_LEAD_MAX_NS, &beyond);
	set_lead(s);
}

static int64_t now_of(const struct lowlat_sleeper *s)
{
	return s && s->base ? s->base->now_ns(s->base->ctx) : lowlat_now_ns();
}

/* Sleeps to wake_ns and returns when it woke; an adaptive sleeper learns from the overshoot (in
 * the time the spin after it has to spare). */
static int64_t sleep_step(struct lowlat_sleeper *s, int64_t wake_ns, bool first)
{
	int64_t woke;

	if (s && s->base) {
		s->base->sleep_until_ns(s->base->ctx, wake_ns, LOWLAT_WAIT_PRECISE);
	} else {
		/* Timer slack is per thread and the app's; 0 would mean "reset to default", so 1 ns is
		 * the smallest. The lowered slack only matters while we sleep, so it is restored. */
		int old_slack = s && s->keep_timer_slack ? -1 : prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
		bool lowered = old_slack > 1 && prctl(PR_SET_TIMERSLACK, 1ul, 0, 0, 0) == 0;

		kernel_sleep_abs_ns(wake_ns);
		if (lowered)
			prctl(PR_SET_TIMERSLACK, (unsigned long)old_slack, 0, 0, 0);
	}
	woke = now_of(s);
	if (s && s->adaptive) {
		note(first ? &s->first : &s->second, woke - wake_ns);
		if (first)
			adapt_lead(s);
		else
			adapt_tail(s);
	}
	return woke;
}

void lowlat_sleep_until_ns(struct lowlat_sleeper *s, int64_t deadline_ns, int64_t tolerance_ns)
{
	int64_t now = now_of(s);
	int64_t lead = s ? s->lead_ns : LOWLAT_LEAD_INITIAL_NS;
	int64_t tail = s ? s->tail_ns : LOWLAT_TAIL_INITIAL_NS;

	if (deadline_ns <= now)
		return;
	if (deadline_ns - now > LOWLAT_MAX_WAIT_NS)
		deadline_ns = now + LOWLAT_MAX_WAIT_NS;
	if (tolerance_ns < 0)
		tolerance_ns = 0;
	if (s && tolerance_ns < s->min_tolerance_ns)
		tolerance_ns = s->min_tolerance_ns;

	if (tolerance_ns >= lead && tolerance_ns >= tail) {
		/* The caller's margin covers a plain sleep's error: one sleep, no spin. */
		sleep_step(s, deadline_ns, true);
		return;
	}
	tail = tail > tolerance_ns ? tail - tolerance_ns : 0;
	if (lead > tail && !(s && s->one_sleep) && deadline_ns - lead > now)
		now = sleep_step(s, deadline_ns - lead, true);
	if (deadline_ns - tail > now)
		now = sleep_step(s, deadline_ns - tail, false);
	/* The spin is bounded by the tail (<= 1 ms), and by nothing when a sleep overshot. */
	while (now < deadline_ns) {
		cpu_relax();
		now = now_of(s);
	}
}

static int64_t system_now_ns(void *ctx)
{
	return now_of(ctx);
}

static void system_sleep_until_ns(void *ctx, int64_t deadline_ns, int64_t tolerance_ns)
{
	lowlat_sleep_until_ns(ctx, deadline_ns, tolerance_ns);
}

struct lowlat_clock lowlat_system_clock(struct lowlat_sleeper *sleeper)
{
	return (struct lowlat_clock){
	        .now_ns = system_now_ns, .sleep_until_ns = system_sleep_until_ns, .ctx = sleeper};
}
