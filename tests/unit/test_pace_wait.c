/* test_pace_wait.c — the "present-wait" level's phase (layer/brain/pace_wait.c) on made-up first-pixel
 * times: the grid learned from their spacing (with a repeat and wake-up jitter), releases just in
 * time for a grid point while that is the cap's interval and at the CPU deadline otherwise, the lead
 * shortened by frames on time and lengthened by a late one. */
#include "brain/pace_wait.h"
#include "check.h"

#define REFRESH 8333333ll /* 120 Hz */

static uint64_t seed = 1;

/* 10-90 us: when the waiting thread sees a first pixel after it went out. */
static int64_t wake_ns(void)
{
	seed = seed * 6364136223846793005ull + 1442695040888963407ull;
	return 10000 + (int64_t)(seed >> 33) % 80000;
}

static void test_grid_learned(void)
{
	struct lowlat_pw_phase p = {0};
	/* Frames on every refresh but one shown for two (a repeat). */
	const int64_t refreshes[] = {0, 1, 2, 4, 5, 6, 7, 8};

	/* Until enough spacings, the CPU grid's deadline is the release. */
	CHECK_EQ_I64(lowlat_pw_phase_release(&p, 123, REFRESH), 123);
	for (int i = 0; i < 8; i++)
		lowlat_pw_phase_shown(&p, (1000 + refreshes[i]) * REFRESH + wake_ns());
	CHECK(p.period_ns > REFRESH - 100000 && p.period_ns < REFRESH + 100000);
	/* The first lead is half a period. */
	CHECK(p.lead_ns > REFRESH / 2 - 100000 && p.lead_ns < REFRESH / 2 + 100000);
	CHECK_EQ_I64(p.hits + p.misses, 0);
	/* The phase follows the samples' early edge: within their latency of the refresh start. */
	CHECK(p.vblank_ns >= 1008 * REFRESH && p.vblank_ns <= 1008 * REFRESH + 90000);
	/* A cap whose interval is not the period (60 fps here): the CPU deadline, no target. */
	CHECK_EQ_I64(lowlat_pw_phase_release(&p, 1009 * REFRESH + 5, 2 * REFRESH), 1009 * REFRESH + 5);
	CHECK_EQ_I64(p.target_ns, 0);
	/* 117 fps (2.5% off the period): the grid. */
	lowlat_pw_phase_release(&p, 1009 * REFRESH, 1000000000ll / 117);
	CHECK(p.target_ns != 0);
}

static void test_release_and_lead(void)
{
	struct lowlat_pw_phase p = {0};
	int64_t t = 0, release, first_lead;

	for (int i = 0; i < 6; i++)
		lowlat_pw_phase_shown(&p, (t += REFRESH));
	CHECK_EQ_I64(p.period_ns, REFRESH);
	first_lead = p.lead_ns;
	/* Released just in time for the first grid point at or after earliest + lead. */
	release = lowlat_pw_phase_release(&p, t + 1000000, REFRESH);
	CHECK_EQ_I64(p.target_ns, t + REFRESH);
	CHECK_EQ_I64(release, t + REFRESH - p.lead_ns);
	CHECK(release >= t + 1000000);
	/* Shown on that refresh: a hit, the lead a little shorter. */
	lowlat_pw_phase_shown(&p, t + REFRESH + 50000);
	CHECK_EQ_I64(p.hits, 1);
	CHECK(p.lead_ns < first_lead && p.lead_ns > first_lead - REFRESH / 100);
	/* Many on time, each seen 10-90 us after its refresh start: the lead shrinks to its floor, a
	 * 16th of a period, never below, and the grid stays the display's. */
	t += REFRESH;
	for (int i = 0; i < 2000; i++) {
		release = lowlat_pw_phase_release(&p, t, REFRESH);
		CHECK(release >= t && p.target_ns >= t && p.target_ns <= t + 2 * REFRESH);
		/* The refresh start nearest its target: the display's own grid. */
		t = (p.target_ns + REFRESH / 2) / REFRESH * REFRESH;
		lowlat_pw_phase_shown(&p, t + wake_ns());
	}
	CHECK_EQ_I64(p.misses, 0);
	CHECK_EQ_I64(p.lead_ns, p.period_ns / 16);
	CHECK(p.period_ns > REFRESH - 20000 && p.period_ns < REFRESH + 20000);
	CHECK(p.vblank_ns >= t && p.vblank_ns < t + 90000);
	/* One late (shown a refresh after its target): an eighth of a period more. */
	int64_t before = p.lead_ns, period = p.period_ns;
	lowlat_pw_phase_release(&p, t, REFRESH);
	lowlat_pw_phase_shown(&p, p.target_ns + REFRESH + 30000);
	CHECK_EQ_I64(p.misses, 1);
	CHECK_EQ_I64(p.lead_ns, before + period / 8);
	/* A wait that did not block leaves the aim unknown: the next sample judges nothing. */
	lowlat_pw_phase_release(&p, p.vblank_ns, REFRESH);
	lowlat_pw_phase_forget(&p);
	lowlat_pw_phase_shown(&p, p.vblank_ns + 5 * REFRESH);
	CHECK_EQ_I64(p.misses, 1);
}

int main(void)
{
	RUN(test_grid_learned);
	RUN(test_release_and_lead);
	return check_result();
}
