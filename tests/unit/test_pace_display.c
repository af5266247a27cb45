/* test_pace_display — the refresh-grid rule, refresh arithmetic and the ready-time prediction. */
#include "check.h"
#include "pace_display.h"

#define US 1000ll    /* ns */
#define MS 1000000ll /* ns */

/* Refresh duration of a rate in millihertz, rounded to the ns as VK_EXT_present_timing reports it. */
static int64_t refresh_of(int64_t mhz)
{
	return (1000000000000ll + mhz / 2) / mhz;
}

static void grid_rule(void)
{
	/* Caps at refresh/n: the refresh grid with that n. */
	CHECK_EQ_I64(lowlat_refresh_multiple(60000, refresh_of(120000)), 2);
	CHECK_EQ_I64(lowlat_refresh_multiple(120000, refresh_of(120000)), 1);
	CHECK_EQ_I64(lowlat_refresh_multiple(40000, refresh_of(120000)), 3);
	CHECK_EQ_I64(lowlat_refresh_multiple(72000, refresh_of(144000)), 2);
	CHECK_EQ_I64(lowlat_refresh_multiple(30000, refresh_of(60000)), 2);
	/* Near refresh/n, within 0.5%: 60 on 119.88 Hz, 59.94 on 120 Hz, 60.2 on 120 Hz. */
	CHECK_EQ_I64(lowlat_refresh_multiple(60000, refresh_of(119880)), 2);
	CHECK_EQ_I64(lowlat_refresh_multiple(59940, refresh_of(120000)), 2);
	CHECK_EQ_I64(lowlat_refresh_multiple(60200, refresh_of(120000)), 2);
	CHECK_EQ_I64(lowlat_refresh_multiple(119500, refresh_of(120000)), 1);
	/* At or above the refresh rate: every refresh. */
	CHECK_EQ_I64(lowlat_refresh_multiple(144000, refresh_of(120000)), 1);
	CHECK_EQ_I64(lowlat_refresh_multiple(1000000, refresh_of(60000)), 1);
	/* Just under refresh, or between multiples: the time grid. */
	CHECK_EQ_I64(lowlat_refresh_multiple(117000, refresh_of(120000)), 0);
	CHECK_EQ_I64(lowlat_refresh_multiple(119000, refresh_of(120000)), 0);
	CHECK_EQ_I64(lowlat_refresh_multiple(50000, refresh_of(144000)), 0);
	CHECK_EQ_I64(lowlat_refresh_multiple(59000, refresh_of(120000)), 0);
	CHECK_EQ_I64(lowlat_refresh_multiple(61000, refresh_of(120000)), 0);
	/* The edges of the 0.5%: 2 * 0.995 and 2 * 1.005 refreshes. */
	CHECK_EQ_I64(lowlat_refresh_multiple(60301, refresh_of(120000)), 2);
	CHECK_EQ_I64(lowlat_refresh_multiple(60310, refresh_of(120000)), 0);
	CHECK_EQ_I64(lowlat_refresh_multiple(59702, refresh_of(120000)), 2);
	CHECK_EQ_I64(lowlat_refresh_multiple(59690, refresh_of(120000)), 0);
	/* Extremes: 1 fps on 540 Hz, 10000 fps, and nonsense. */
	CHECK_EQ_I64(lowlat_refresh_multiple(1000, refresh_of(540000)), 540);
	CHECK_EQ_I64(lowlat_refresh_multiple(10000000, refresh_of(60000)), 1);
	CHECK_EQ_I64(lowlat_refresh_multiple(0, refresh_of(60000)), 0);
	CHECK_EQ_I64(lowlat_refresh_multiple(60000, 0), 0);
}

static void refresh_arithmetic(void)
{
	int64_t r = 8333333, v = 1000 * MS;

	CHECK_EQ_I64(lowlat_refresh_at_or_after(v, v, r), v);
	CHECK_EQ_I64(lowlat_refresh_at_or_after(v + 1, v, r), v + r);
	CHECK_EQ_I64(lowlat_refresh_at_or_after(v + 5 * r - 1, v, r), v + 5 * r);
	CHECK_EQ_I64(lowlat_refresh_at_or_after(v - r + 1, v, r), v);
	CHECK_EQ_I64(lowlat_refresh_at_or_after(v - 3 * r, v, r), v - 3 * r);
	CHECK_EQ_I64(lowlat_refresh_nearest(v + r / 2 - 1, v, r), v);
	CHECK_EQ_I64(lowlat_refresh_nearest(v + r / 2 + 1, v, r), v + r);
	CHECK_EQ_I64(lowlat_refresh_nearest(v + 7 * r + 3 * US, v, r), v + 7 * r);
	CHECK_EQ_I64(lowlat_refresh_nearest(v - 2 * r - 3 * US, v, r), v - 2 * r);
}

static void margins(void)
{
	CHECK_EQ_I64(lowlat_display_margin_ns(8 * MS, 1), 8 * MS / 64);
	CHECK_EQ_I64(lowlat_display_margin_ns(8 * MS, 0), 8 * MS / 64); /* the time grid */
	CHECK_EQ_I64(lowlat_display_margin_ns(8 * MS, 2), 1 * MS);      /* a divisor's cadence */
	CHECK_EQ_I64(lowlat_display_margin_ns(8 * MS, 3), 1 * MS);
}

static void prediction(void)
{
	struct lowlat_ready_window w = {0};

	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS), -1);
	/* Nothing measured: one refresh plus the margin. */
	CHECK_EQ_I64(lowlat_display_lead_ns(&w, 8 * MS, lowlat_display_margin_ns(8 * MS, 1)),
	             8 * MS + 8 * MS / 64);
	/* One sample: itself. */
	lowlat_ready_note(&w, 5 * MS);
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS), 5 * MS);
	CHECK_EQ_I64(lowlat_display_lead_ns(&w, 8 * MS, lowlat_display_margin_ns(8 * MS, 1)),
	             8 * MS + 8 * MS / 64); /* too few yet */
	/* 100 samples: the 99th smallest, the second largest (5 ms + 95 ns is the largest). */
	for (int i = 1; i < 100; i++)
		lowlat_ready_note(&w, (5 - (i % 5)) * MS + i); /* a shuffled 1..5 ms */
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS), 5 * MS + 90);
	CHECK_EQ_I64(lowlat_display_lead_ns(&w, 8 * MS, lowlat_display_margin_ns(8 * MS, 1)),
	             5 * MS + 90 + 8 * MS / 64);
	w = (struct lowlat_ready_window){0};
	for (int i = 0; i < LOWLAT_READY_WINDOW; i++)
		lowlat_ready_note(&w, 2 * MS + ((i * 97) % LOWLAT_READY_WINDOW) *
		                                       US); /* 2.000 .. 2.255 ms, shuffled */
	/* The 99th percentile of 256 is the 254th smallest: 2.253 ms. */
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS), 2 * MS + 253 * US);
	CHECK_EQ_I64(lowlat_display_lead_ns(&w, 8 * MS, lowlat_display_margin_ns(8 * MS, 1)),
	             2 * MS + 253 * US + 8 * MS / 64);
	/* Stalls (beyond 2 x p90 + refresh/2 = 2 x 2.230 + 4 = 8.46 ms) do not count, however many of
	 * the rare ones there are... */
	for (int i = 0; i < 10; i++)
		lowlat_ready_note(&w, 30 * MS);
	CHECK(lowlat_ready_predict(&w, 8 * MS) < 3 * MS);
	/* ...but slower frames within the bound do, from the third on (the 254th of 256). */
	lowlat_ready_note(&w, 8 * MS);
	lowlat_ready_note(&w, 8 * MS);
	CHECK(lowlat_ready_predict(&w, 8 * MS) < 3 * MS);
	lowlat_ready_note(&w, 8 * MS);
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS), 8 * MS);
	/* Heavy frames one time in eight are the workload: they raise the 90th percentile's bound and
	 * are covered. */
	w = (struct lowlat_ready_window){0};
	for (int i = 0; i < LOWLAT_READY_WINDOW; i++)
		lowlat_ready_note(&w, i % 8 ? 2 * MS : 20 * MS);
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS), 20 * MS);
	/* Everything leaves with the window: adapting down within LOWLAT_READY_WINDOW frames. */
	for (int i = 0; i < LOWLAT_READY_WINDOW; i++)
		lowlat_ready_note(&w, 1 * MS);
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS), 1 * MS);
	/* The sorted copy follows the ring exactly: a long pseudo-random run, checked against a full
	 * sort of the ring at the end. */
	uint32_t seed = 7;
	for (int i = 0; i < 5000; i++) {
		seed = seed * 1103515245u + 12345u;
		lowlat_ready_note(&w, (int64_t)(seed >> 12) % (3 * MS));
	}
	for (uint32_t i = 1; i < w.count; i++)
		CHECK(w.sorted_ns[i - 1] <= w.sorted_ns[i]);
	int64_t ring_sum = 0, sorted_sum = 0;
	for (uint32_t i = 0; i < w.count; i++) {
		ring_sum += w.sample_ns[i];
		sorted_sum += w.sorted_ns[i];
	}
	CHECK_EQ_I64(ring_sum, sorted_sum);
}

int main(void)
{
	RUN(grid_rule);
	RUN(refresh_arithmetic);
	RUN(margins);
	RUN(prediction);
	return check_result();
}
