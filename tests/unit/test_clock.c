/* test_clock — clock.c's waiter. On a fake timeline (the sleeper's base clock): where it sleeps,
 * how long it spins, how its lead and tail follow the overshoots it meets, and that a covered
 * tolerance never spins. On the real clock, behaviour only: it never returns before the deadline,
 * a wait too long is cut at the cap, the thread's timer slack is given back. No precision bounds on
 * the real clock: this machine is shared and noisy; tools/bench-limiter measures. */
#include <sys/prctl.h>

#include "check.h"
#include "clock.h"

#define US 1000ll /* ns */

/* ---- the fake timeline ---------------------------------------------------------------------- */

/* Each kernel sleep wakes late by the next overshoot of a script (cycled); each clock read but the
 * first of a wait and the first after a sleep advances time by 1 us: the spin. */
struct fake {
	int64_t now_ns;
	const int64_t *overshoots;
	int n_overshoots, next;
	int sleeps;
	int64_t sleep_targets[4]; /* of the current wait */
	bool quiet_read;
	int64_t spun_ns;
};

static int64_t fake_now(void *ctx)
{
	struct fake *f = ctx;

	if (!f->quiet_read) {
		f->now_ns += US;
		f->spun_ns += US;
	}
	f->quiet_read = false;
	return f->now_ns;
}

static void fake_sleep(void *ctx, int64_t deadline_ns, int64_t tolerance_ns)
{
	struct fake *f = ctx;

	(void)tolerance_ns;
	if (f->sleeps < 4)
		f->sleep_targets[f->sleeps] = deadline_ns;
	f->sleeps++;
	f->now_ns = (deadline_ns > f->now_ns ? deadline_ns : f->now_ns) + f->overshoots[f->next];
	f->next = (f->next + 1) % f->n_overshoots;
	f->quiet_read = true;
}

static struct fake timeline;
static const struct lowlat_clock fake_base = {fake_now, fake_sleep, &timeline};

/* One wait of interval_ns from now on the fake timeline, through the sleeper's clock: returns how
 * late it ended. */
static int64_t fake_wait(struct lowlat_sleeper *s, int64_t interval_ns, int64_t tolerance_ns)
{
	int64_t deadline = timeline.now_ns + interval_ns;
	struct lowlat_clock clock = lowlat_system_clock(s);

	timeline.sleeps = 0;
	timeline.spun_ns = 0;
	timeline.quiet_read = true;
	clock.sleep_until_ns(clock.ctx, deadline, tolerance_ns);
	return timeline.now_ns - deadline;
}

/* An adaptive sleeper on the fake timeline, its sleeps waking late by the script. */
static void fake_sleeper(struct lowlat_sleeper *s, const int64_t *overshoots, int n)
{
	timeline = (struct fake){.now_ns = 1000000 * US, .overshoots = overshoots, .n_overshoots = n};
	lowlat_sleeper_init(s);
	s->base = &fake_base;
}

/* A fresh sleeper whose every sleep wakes overshoot_ns late, and its first wait, of a 60 fps frame:
 * returns how late it ended. */
static int64_t first_wait(struct lowlat_sleeper *s, const int64_t *overshoot_ns, int64_t tolerance_ns)
{
	fake_sleeper(s, overshoot_ns, 1);
	return fake_wait(s, 16667 * US, tolerance_ns);
}

/* ---- on the fake timeline ------------------------------------------------------------------- */

/* Every sleep wakes 40 us late: a long sleep to the lead, a short one to the tail, a spin of the
 * tail less the overshoot, and the return at the deadline (to the spin's 1 us step). */
static void two_sleeps_then_spin(void)
{
	static const int64_t o[] = {40 * US};
	struct lowlat_sleeper s;
	int64_t late = first_wait(&s, o, LOWLAT_WAIT_PRECISE);

	CHECK_EQ_I64(timeline.sleeps, 2);
	CHECK_EQ_I64(timeline.sleep_targets[1] - timeline.sleep_targets[0],
	             LOWLAT_LEAD_INITIAL_NS - LOWLAT_TAIL_INITIAL_NS);
	CHECK_EQ_I64(late, 0);
	CHECK_EQ_I64(timeline.spun_ns, LOWLAT_TAIL_INITIAL_NS - 40 * US);
}

/* The tail learns the short sleep's overshoot: with short sleeps waking 30 us late and 1 in 16
 * waking 200 us late, it covers all but the 16 largest of the window (the 200 us ones when there
 * are at most 16 of them), so the spin comes down to the margin over 30 us. */
static void tail_follows_short_sleeps(void)
{
	/* Sleeps alternate long, short: even entries are the long sleeps' overshoots. */
	static int64_t o[32];
	struct lowlat_sleeper s;

	for (int i = 0; i < 32; i++)
		o[i] = i % 2 ? 30 * US : 80 * US;
	o[31] = 200 * US; /* one short sleep in 16 */
	fake_sleeper(&s, o, 32);
	int64_t worst = 0;
	for (int i = 0; i < 3 * LOWLAT_SLEEPER_WINDOW; i++) {
		timeline.next = timeline.next / 2 * 2; /* each wait starts with its long sleep */
		int64_t late = fake_wait(&s, 16667 * US, LOWLAT_WAIT_PRECISE);
		worst = late > worst ? late : worst;
		CHECK(late >= 0);
	}
	/* 16 per window of 200 us: the 16 escapes; the tail is the 17th largest, 30 us, plus 5 us. */
	CHECK_EQ_I64(s.tail_ns, 35 * US);
	/* The lead covers the long sleeps' 80 us over the tail, with its 20 us margin. */
	CHECK_EQ_I64(s.lead_ns, 35 * US + 80 * US + 20 * US);
	/* A steady short sleep ends 5 us before the deadline: 5 us of spin. */
	timeline.next = 0; /* a long sleep of 80 us, a short one of 30 */
	fake_wait(&s, 16667 * US, LOWLAT_WAIT_PRECISE);
	CHECK_EQ_I64(timeline.spun_ns, 5 * US);
	/* The escapes are late by the overshoot beyond the tail, no more. */
	CHECK_EQ_I64(worst, 200 * US - 35 * US);
}

/* With 32 short sleeps of 200 us in the window the tail covers them: late by nothing. */
static void tail_covers_common_overshoots(void)
{
	static int64_t o[16];
	struct lowlat_sleeper s;

	for (int i = 0; i < 16; i++)
		o[i] = i % 2 ? 30 * US : 80 * US;
	o[15] = 200 * US; /* one short sleep in 8: 32 per window */
	fake_sleeper(&s, o, 16);
	for (int i = 0; i < 2 * LOWLAT_SLEEPER_WINDOW; i++)
		fake_wait(&s, 16667 * US, LOWLAT_WAIT_PRECISE);
	CHECK_EQ_I64(s.tail_ns, 205 * US);
	int64_t worst = 0;
	for (int i = 0; i < 64; i++) {
		int64_t late = fake_wait(&s, 16667 * US, LOWLAT_WAIT_PRECISE);
		worst = late > worst ? late : worst;
	}
	CHECK_EQ_I64(worst, 0);
}

/* Preemptions (beyond 1 ms) do not pin the tail at its maximum; when they are common (more than 1
 * in 16), spinning buys nothing and the tail drops to its floor. */
static void preemptions_do_not_pin_the_tail(void)
{
	static int64_t rare[64], common[16];
	struct lowlat_sleeper s;

	for (int i = 0; i < 64; i++)
		rare[i] = 30 * US;
	rare[63] = 5000 * US;
	fake_sleeper(&s, rare, 64);
	for (int i = 0; i < 2 * LOWLAT_SLEEPER_WINDOW; i++)
		fake_wait(&s, 16667 * US, LOWLAT_WAIT_PRECISE);
	CHECK_EQ_I64(s.tail_ns, 35 * US);

	for (int i = 0; i < 16; i++)
		common[i] = 300 * US;
	common[15] = common[13] = 5000 * US; /* 1 in 8 short or long sleeps */
	fake_sleeper(&s, common, 16);
	for (int i = 0; i < 2 * LOWLAT_SLEEPER_WINDOW; i++)
		fake_wait(&s, 16667 * US, LOWLAT_WAIT_PRECISE);
	CHECK_EQ_I64(s.tail_ns, LOWLAT_TAIL_MIN_NS);
}

/* COVERED: one sleep to the deadline, no spin, late by the overshoot; its overshoots still teach
 * the lead. A tolerance smaller than the tail shortens the spin by that much. */
static void tolerance(void)
{
	static const int64_t o[] = {60 * US};
	struct lowlat_sleeper s;
	int64_t late = first_wait(&s, o, LOWLAT_WAIT_COVERED);

	CHECK_EQ_I64(timeline.sleeps, 1);
	CHECK_EQ_I64(timeline.spun_ns, 0);
	CHECK_EQ_I64(late, 60 * US);
	CHECK_EQ_I64(s.first.count, 1);
	CHECK_EQ_I64(s.second.count, 0);

	late = first_wait(&s, o, 30 * US);
	CHECK_EQ_I64(timeline.sleeps, 2);
	/* The short sleep ends tail - 30 us before the deadline and wakes 60 us later: late by
	 * 60 - (100 - 30) < 0, so it spins the 10 us left. */
	CHECK_EQ_I64(late, 0);
	CHECK_EQ_I64(timeline.spun_ns, 10 * US);
}

/* A wait shorter than the lead skips the long sleep; one shorter than the tail only spins. */
static void short_waits(void)
{
	static const int64_t o[] = {20 * US};
	struct lowlat_sleeper s;

	fake_sleeper(&s, o, 1);
	fake_wait(&s, 200 * US, LOWLAT_WAIT_PRECISE);
	CHECK_EQ_I64(timeline.sleeps, 1);
	fake_wait(&s, 50 * US, LOWLAT_WAIT_PRECISE);
	CHECK_EQ_I64(timeline.sleeps, 0);
	CHECK_EQ_I64(timeline.spun_ns, 50 * US);
}

/* A fixed sleeper (not adaptive, lead 0): one sleep to deadline - tail, whatever it meets. */
static void fixed_sleeper(void)
{
	static const int64_t o[] = {900 * US};
	struct lowlat_sleeper s;

	timeline = (struct fake){.now_ns = 1000000 * US, .overshoots = o, .n_overshoots = 1};
	s = (struct lowlat_sleeper){.base = &fake_base, .tail_ns = 123 * US};
	for (int i = 0; i < 300; i++) {
		fake_wait(&s, 16667 * US, LOWLAT_WAIT_PRECISE);
		CHECK_EQ_I64(timeline.sleeps, 1);
	}
	CHECK_EQ_I64(s.tail_ns, 123 * US);
	CHECK_EQ_I64(s.lead_ns, 0);
}

/* ---- on the real clock ---------------------------------------------------------------------- */

static void never_wakes_early(void)
{
	struct lowlat_sleeper s;
	struct lowlat_clock clock;
	uint32_t seed = 42;

	lowlat_sleeper_init(&s);
	clock = lowlat_system_clock(&s);
	for (int i = 0; i < 200; i++) {
		seed = seed * 1103515245u + 12345u;
		/* 0..2 ms: waits longer and shorter than the lead and the tail, some pure spin. */
		int64_t deadline = clock.now_ns(clock.ctx) + (int64_t)(seed >> 8) % (2000 * US);
		clock.sleep_until_ns(clock.ctx, deadline, i % 3 ? LOWLAT_WAIT_PRECISE : LOWLAT_WAIT_COVERED);
		CHECK(clock.now_ns(clock.ctx) >= deadline);
	}
	CHECK(s.tail_ns >= LOWLAT_TAIL_MIN_NS && s.tail_ns <= LOWLAT_TAIL_MAX_NS);
	CHECK(s.lead_ns > s.tail_ns && s.lead_ns <= LOWLAT_LEAD_MAX_NS);
	CHECK(s.first.count > 0 && s.second.count > 0);
}

static void fixed_tails_never_wake_early(void)
{
	static const int64_t tails[] = {0, 100 * US, 5000 * US};
	struct lowlat_sleeper s;

	for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
		s = (struct lowlat_sleeper){.tail_ns = tails[t]};
		for (int i = 0; i < 20; i++) {
			int64_t deadline = lowlat_now_ns() + 500 * US;
			lowlat_sleep_until_ns(&s, deadline, LOWLAT_WAIT_PRECISE);
			CHECK(lowlat_now_ns() >= deadline);
		}
		CHECK_EQ_I64(s.tail_ns, tails[t]); /* not adaptive: left as set */
	}
	/* No sleeper at all: the initial lead and tail, same guarantee. */
	int64_t deadline = lowlat_now_ns() + 500 * US;
	lowlat_sleep_until_ns(NULL, deadline, LOWLAT_WAIT_PRECISE);
	CHECK(lowlat_now_ns() >= deadline);
}

static void past_deadline_returns(void)
{
	struct lowlat_sleeper s;

	lowlat_sleeper_init(&s);
	lowlat_sleep_until_ns(&s, lowlat_now_ns() - 1000 * US, LOWLAT_WAIT_PRECISE);
	lowlat_sleep_until_ns(&s, INT64_MIN, LOWLAT_WAIT_COVERED);
	CHECK_EQ_I64(s.first.count + s.second.count, 0); /* nothing slept, nothing measured */
}

/* A deadline an hour away returns after the 1 s cap (if it did not, the test would time out). */
static void long_wait_is_capped(void)
{
	struct lowlat_sleeper s;
	int64_t start;

	lowlat_sleeper_init(&s);
	start = lowlat_now_ns();
	lowlat_sleep_until_ns(&s, start + 3600 * 1000000000ll, LOWLAT_WAIT_PRECISE);
	CHECK(lowlat_now_ns() >= start + LOWLAT_MAX_WAIT_NS);
	start = lowlat_now_ns();
	lowlat_sleep_until_ns(&s, INT64_MAX, LOWLAT_WAIT_COVERED);
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
	lowlat_sleep_until_ns(&s, lowlat_now_ns() + 2000 * US, LOWLAT_WAIT_PRECISE);
	CHECK_EQ_I64(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), before);
	lowlat_sleep_until_ns(&s, lowlat_now_ns() + 2000 * US, LOWLAT_WAIT_COVERED);
	CHECK_EQ_I64(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), before);
}

int main(void)
{
	RUN(two_sleeps_then_spin);
	RUN(tail_follows_short_sleeps);
	RUN(tail_covers_common_overshoots);
	RUN(preemptions_do_not_pin_the_tail);
	RUN(tolerance);
	RUN(short_waits);
	RUN(fixed_sleeper);
	RUN(never_wakes_early);
	RUN(fixed_tails_never_wake_early);
	RUN(past_deadline_returns);
	RUN(long_wait_is_capped);
	RUN(timer_slack_restored);
	return check_result();
}
