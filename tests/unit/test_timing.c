/* test_timing — timing.c on the real clock. Behaviour only: it never returns before the deadline,
 * a wait too long is cut at the cap, the thread's timer slack is given back, the adaptive tail stays
 * in its bounds. No precision bounds: this machine is shared and noisy; the benchmark measures. */
#include <sys/prctl.h>

#include "check.h"
#include "clock.h"

#define US 1000ll /* ns */

static void never_wakes_early(void)
{
	struct lowlat_sleeper s;
	struct lowlat_clock clock;
	uint32_t seed = 42;

	lowlat_sleeper_init(&s);
	clock = lowlat_system_clock(&s);
	for (int i = 0; i < 200; i++) {
		seed = seed * 1103515245u + 12345u;
		/* 0..2 ms: sleeps shorter and longer than the tail, and some that are pure spin. */
		int64_t deadline = clock.now_ns(clock.ctx) + (int64_t)(seed >> 8) % (2000 * US);
		clock.sleep_until_ns(clock.ctx, deadline);
		CHECK(clock.now_ns(clock.ctx) >= deadline);
	}
	CHECK(s.tail_ns >= LOWLAT_TAIL_MIN_NS && s.tail_ns <= LOWLAT_TAIL_MAX_NS);
	CHECK(s.count > 0);
}

static void fixed_tails_never_wake_early(void)
{
	static const int64_t tails[] = {0, 100 * US, 5000 * US};
	struct lowlat_sleeper s;

	for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
		s = (struct lowlat_sleeper){.tail_ns = tails[t]};
		for (int i = 0; i < 20; i++) {
			int64_t deadline = lowlat_now_ns() + 500 * US;
			lowlat_sleep_until_ns(&s, deadline);
			CHECK(lowlat_now_ns() >= deadline);
		}
		CHECK_EQ_I64(s.tail_ns, tails[t]); /* not adaptive: left as set */
	}
	/* No sleeper at all: the initial tail, same guarantee. */
	int64_t deadline = lowlat_now_ns() + 500 * US;
	lowlat_sleep_until_ns(NULL, deadline);
	CHECK(lowlat_now_ns() >= deadline);
}

static void past_deadline_returns(void)
{
	struct lowlat_sleeper s;

	lowlat_sleeper_init(&s);
	lowlat_sleep_until_ns(&s, lowlat_now_ns() - 1000 * US);
	lowlat_sleep_until_ns(&s, INT64_MIN);
	CHECK_EQ_I64(s.count, 0); /* nothing slept, nothing measured */
}

/* A deadline an hour away returns after the 1 s cap (if it did not, the test would time out). */
static void long_wait_is_capped(void)
{
	struct lowlat_sleeper s;
	int64_t start;

	lowlat_sleeper_init(&s);
	start = lowlat_now_ns();
	lowlat_sleep_until_ns(&s, start + 3600 * 1000000000ll);
	CHECK(lowlat_now_ns() >= start + LOWLAT_MAX_WAIT_NS);
	start = lowlat_now_ns();
	lowlat_sleep_until_ns(&s, INT64_MAX);
	CHECK(lowlat_now_ns() >= start + LOWLAT_MAX_WAIT_NS);
}

/* The timer slack belongs to the app's thread: lowered for the sleep, then given back. */
static void timer_slack_restored(void)
{
	struct lowlat_sleeper s;
	int before;

	lowlat_sleeper_init(&s);
	prctl(PR_SET_TIMERSLACK, 77000ul, 0, 0, 0);
	before = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	CHECK_EQ_I64(before, 77000);
	lowlat_sleep_until_ns(&s, lowlat_now_ns() + 2000 * US);
	CHECK_EQ_I64(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), before);
}

static void feed(struct lowlat_sleeper *s, int n, int64_t overshoot_ns)
{
	for (int i = 0; i < n; i++)
		lowlat_sleeper_note_overshoot(s, overshoot_ns);
}

/* The adaptation rule on chosen overshoots (no clock involved). */
static void tail_adapts(void)
{
	struct lowlat_sleeper s;

	lowlat_sleeper_init(&s);
	feed(&s, 15, 5 * US);
	CHECK_EQ_I64(s.tail_ns, LOWLAT_TAIL_INITIAL_NS); /* too few samples to judge */

	/* A quiet machine: the tail shrinks to its floor. */
	feed(&s, 200, 5 * US);
	CHECK_EQ_I64(s.tail_ns, LOWLAT_TAIL_MIN_NS);

	/* Overshoots of 120 us: the tail covers the largest with a quarter and 10 us to spare. */
	feed(&s, LOWLAT_SLEEPER_WINDOW, 120 * US);
	CHECK_EQ_I64(s.tail_ns, 160 * US);
	/* One of 200 us raises it at once, and holds it there for a whole window... */
	feed(&s, 1, 200 * US);
	CHECK_EQ_I64(s.tail_ns, 260 * US);
	feed(&s, LOWLAT_SLEEPER_WINDOW - 1, 120 * US);
	CHECK_EQ_I64(s.tail_ns, 260 * US);
	/* ...after which it has left the window. */
	feed(&s, 1, 120 * US);
	CHECK_EQ_I64(s.tail_ns, 160 * US);

	/* Rare long preemptions do not pin the tail at the maximum... */
	feed(&s, 4, 20000 * US);
	CHECK_EQ_I64(s.tail_ns, 160 * US);

	/* ...but overshoots up to 1 ms that a spin can hide raise it to the bound. */
	feed(&s, 1, 900 * US);
	CHECK_EQ_I64(s.tail_ns, LOWLAT_TAIL_MAX_NS);

	/* An overloaded machine (more than 1 in 16 sleeps preempted beyond any tail): spinning buys
	 * nothing, the tail drops to its floor. */
	feed(&s, LOWLAT_SLEEPER_WINDOW - 17, 900 * US);
	feed(&s, 17, 5000 * US);
	CHECK_EQ_I64(s.tail_ns, LOWLAT_TAIL_MIN_NS);

	/* A fixed tail never moves. */
	s = (struct lowlat_sleeper){.tail_ns = 123 * US};
	feed(&s, 300, 900 * US);
	CHECK_EQ_I64(s.tail_ns, 123 * US);
}

int main(void)
{
	RUN(never_wakes_early);
	RUN(fixed_tails_never_wake_early);
	RUN(past_deadline_returns);
	RUN(long_wait_is_capped);
	RUN(timer_slack_restored);
	RUN(tail_adapts);
	return check_result();
}
