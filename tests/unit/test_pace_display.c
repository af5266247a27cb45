/* test_pace_display — the refresh-grid rule, refresh arithmetic, the ready-time prediction and the
 * claim rule of wait points away from the present. */
#include "brain/grid.h"
#include "brain/pace_display.h"
#include "check.h"

#define US  1000ll    /* ns */
#define MS  1000000ll /* ns */
#define P99 LOWLAT_READY_PERCENTILE

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

/* 117 fps on 120 Hz: each target the first refresh at or after the time grid's deadline, but never
 * the previous frame's refresh or one before it. A present after its target is given the next
 * refresh; the grid's following deadline (an interval on, 8.547 ms) then falls before that
 * refresh, and the frame after must go a refresh later, not on the same one. */
static void time_grid_targets(void)
{
	int64_t r = 8333333, v = 1000 * MS, interval = 8547009;

	/* The usual step: one refresh; every 40th or so: two. */
	CHECK_EQ_I64(lowlat_time_grid_target(v + 100 * US, v, v, r, interval), v + r);
	CHECK_EQ_I64(lowlat_time_grid_target(v + r + 10 * US, v, v, r, interval), v + 2 * r);
	CHECK_EQ_I64(lowlat_time_grid_target(v + r, v, v, r, interval), v + r);
	/* None before: the deadline's refresh. */
	CHECK_EQ_I64(lowlat_time_grid_target(v + 100 * US, INT64_MIN, v, r, interval), v + r);
	CHECK_EQ_I64(lowlat_time_grid_target(v - 3 * r, INT64_MIN, v, r, interval), v - 3 * r);
	/* The previous present came late: planned for v, given v + r. The next deadline, an interval
	 * after v's, falls before v + r: the target is v + 2r, not v + r again. */
	CHECK_EQ_I64(lowlat_time_grid_target(v - 50 * US + interval, v + r, v, r, interval), v + 2 * r);
	/* Far behind (catching up; the grid restarts elsewhere, the rule only keeps frames apart). */
	CHECK_EQ_I64(lowlat_time_grid_target(v - 5 * r, v + r, v, r, interval), v + 2 * r);
	/* The previous target a few ns off a refresh start (a rounded duration) is that refresh. */
	CHECK_EQ_I64(lowlat_time_grid_target(v + 100 * US, v + r + 3, v, r, interval), v + 2 * r);
	CHECK_EQ_I64(lowlat_time_grid_target(v + 100 * US, v + r - 3, v, r, interval), v + 2 * r);
	CHECK_EQ_I64(lowlat_time_grid_target(v + r + 100 * US, v + r - 3, v, r, interval), v + 2 * r);
	/* Catching up (deadlines behind the previous target) steps by the cap's short step: at
	 * 117 on 120 Hz one refresh; at 50 on 144 Hz (20 ms, 2.88 refreshes: steps of 3 and 2) two,
	 * never one. */
	const int64_t r144 = 6944444, interval50 = 20 * MS;
	CHECK_EQ_I64(lowlat_time_grid_target(v - 5 * r144, v, v, r144, interval50), v + 2 * r144);
	CHECK_EQ_I64(lowlat_time_grid_target(v + 2 * r144 - 10 * US, v, v, r144, interval50), v + 2 * r144);
	CHECK_EQ_I64(lowlat_time_grid_target(v + 2 * r144 + 10 * US, v, v, r144, interval50), v + 3 * r144);
	/* A cap above the refresh rate off the refresh grid cannot be (n = 1 there), but an interval
	 * under a refresh still steps one. */
	CHECK_EQ_I64(lowlat_time_grid_target(v - 5 * r, v, v, r, r / 2), v + r);
}

static void margins(void)
{
	CHECK_EQ_I64(lowlat_display_margin_ns(8 * MS, 1), 8 * MS / 64);
	CHECK_EQ_I64(lowlat_display_margin_ns(8 * MS, 0), 8 * MS / 64); /* the time grid */
	CHECK_EQ_I64(lowlat_display_margin_ns(8 * MS, 2), 1 * MS);      /* a divisor's cadence */
	CHECK_EQ_I64(lowlat_display_margin_ns(8 * MS, 3), 1 * MS);
}

/* The release margin on a fixed-rate display: at refresh/n caps (n >= 2) from refresh/8, up
 * refresh/8 a miss, down a refresh/64 per 64 frames on time, one miss in 512 frames holding it; at
 * the refresh rate and on the time grid from refresh/64, up as much a miss, down as much per 256
 * frames on time, one miss in 256 holding it; never above refresh/2. */
static void miss_margin_cadence(void)
{
	struct lowlat_miss_margin m = {0};
	const int64_t r = 8 * MS, step = r / 64;

	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 2), r / 8);
	/* Frames on time at the floor stay there. */
	for (int i = 0; i < 1000; i++)
		lowlat_miss_note(&m, false, 2, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 2), r / 8);
	lowlat_miss_note(&m, true, 2, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 2), r / 8 + 8 * step);
	/* A miss restarts the calm count: 63 on time, a miss, 63 on time: no step down yet. */
	for (int i = 0; i < 63; i++)
		lowlat_miss_note(&m, false, 2, false, 0);
	lowlat_miss_note(&m, true, 2, false, 0);
	for (int i = 0; i < 63; i++)
		lowlat_miss_note(&m, false, 2, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 2), r / 8 + 16 * step);
	lowlat_miss_note(&m, false, 2, false, 0); /* the 64th */
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 2), r / 8 + 15 * step);
	/* A burst of misses stops at half a refresh. */
	for (int i = 0; i < 10; i++)
		lowlat_miss_note(&m, true, 2, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 2), r / 2);
	CHECK_EQ_I64(lowlat_miss_margin_max_ns(&m, r), r / 2);
	CHECK_EQ_I64(m.misses, 12);
	/* One miss in 512 frames balances: from any level, it stays within a raise of where it was. */
	for (int round = 0; round < 20; round++) {
		lowlat_miss_note(&m, true, 2, false, 0);
		for (int i = 0; i < 511; i++)
			lowlat_miss_note(&m, false, 2, false, 0);
	}
	CHECK(lowlat_miss_margin_ns(&m, r, 2) >= r / 2 - 9 * step);
	/* A calm machine: back at the floor within 24 x 64 frames. */
	for (int i = 0; i < 24 * LOWLAT_MARGIN_CALM_FRAMES; i++)
		lowlat_miss_note(&m, false, 2, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 2), r / 8);
	/* One miss in 128 frames (too many): it climbs to the top and stays. */
	for (int round = 0; round < 20; round++) {
		lowlat_miss_note(&m, true, 2, false, 0);
		for (int i = 0; i < 127; i++)
			lowlat_miss_note(&m, false, 2, false, 0);
	}
	CHECK(lowlat_miss_margin_ns(&m, r, 2) >= r / 2 - 2 * step);
	/* The steps scale with the refresh: at 540 Hz the top is still half a refresh. */
	CHECK(lowlat_miss_margin_ns(&m, refresh_of(540000), 2) <= refresh_of(540000) / 2);
}

/* In plain FIFO at the refresh rate a miss raises the margin two steps and counts once; at
 * refresh/n (n >= 2) the mode changes nothing. */
static void miss_margin_fifo(void)
{
	struct lowlat_miss_margin m = {0}, c = {0};
	const int64_t r = 8 * MS, step = r / 64;

	lowlat_miss_note(&m, true, 1, true, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 1), 3 * step);
	CHECK_EQ_I64(m.misses, 1);
	lowlat_miss_note(&m, true, 1, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 1), 4 * step);
	lowlat_miss_note(&c, true, 2, true, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&c, r, 2), r / 8 + 8 * step);
}

static void miss_margin_refresh_rate(void)
{
	struct lowlat_miss_margin m = {0};
	const int64_t r = 8 * MS, step = r / 64;

	/* From a refresh/64 (n = 0 where the cap leaves no refresh empty takes the same rule), up a
	 * refresh/64 a miss, down one per 256 on time. */
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 1), step);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 0), step);
	for (int i = 0; i < 1000; i++)
		lowlat_miss_note(&m, false, 1, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 1), step);
	lowlat_miss_note(&m, true, 1, false, 0);
	lowlat_miss_note(&m, true, 1, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 1), 3 * step);
	for (int i = 0; i < 255; i++)
		lowlat_miss_note(&m, false, 1, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 1), 3 * step);
	lowlat_miss_note(&m, false, 1, false, 0); /* the 256th */
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 1), 2 * step);
	/* Misses in a row: half a refresh at most, floor included. */
	for (int i = 0; i < 40; i++)
		lowlat_miss_note(&m, true, 0, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 0), r / 2);
	CHECK_EQ_I64(lowlat_miss_margin_max_ns(&m, r), r / 2);
	CHECK_EQ_I64(m.misses, 42);
	/* One miss in 256 frames holds it near where it was; one in 1024 lets it fall to the floor. */
	for (int round = 0; round < 20; round++) {
		lowlat_miss_note(&m, true, 1, false, 0);
		for (int i = 0; i < 255; i++)
			lowlat_miss_note(&m, false, 1, false, 0);
	}
	CHECK(lowlat_miss_margin_ns(&m, r, 1) >= r / 2 - 2 * step);
	for (int round = 0; round < 20; round++) {
		lowlat_miss_note(&m, true, 1, false, 0);
		for (int i = 0; i < 1023; i++)
			lowlat_miss_note(&m, false, 1, false, 0);
	}
	CHECK(lowlat_miss_margin_ns(&m, r, 1) <= 2 * step);
	/* The cap moves to refresh/2: the floor rises to refresh/8 and the total stays at most the top;
	 * steps above the new top go first. */
	for (int i = 0; i < 40; i++)
		lowlat_miss_note(&m, true, 1, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 2), r / 2);
	for (int i = 0; i < 64; i++)
		lowlat_miss_note(&m, false, 2, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 2), r / 2);
	for (int i = 0; i < 64; i++)
		lowlat_miss_note(&m, false, 2, false, 0);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 2), r / 2 - step);
}

/* How often a cap leaves a refresh empty, and the time grid's margin stepping down after that many
 * frames on time (117 on 120 Hz: every 40th), at least 16 and at most 256. */
static void miss_margin_time_grid(void)
{
	const int64_t r = refresh_of(120000), step = r / 64;

	CHECK_EQ_I64(lowlat_empty_every(117000, r), 40);
	CHECK_EQ_I64(lowlat_empty_every(100000, r), 6);
	CHECK_EQ_I64(lowlat_empty_every(119000, r), 120);
	CHECK_EQ_I64(lowlat_empty_every(119900, r), 0); /* within the grid's tolerance */
	CHECK_EQ_I64(lowlat_empty_every(120000, r), 0);
	CHECK_EQ_I64(lowlat_empty_every(144000, r), 0);
	CHECK_EQ_I64(lowlat_empty_every(0, r), 0); /* no cap */

	const int64_t every[] = {40, 6, 120, 1000, 0}, calm[] = {40, 16, 120, 256, 256};
	for (size_t k = 0; k < sizeof(every) / sizeof(every[0]); k++) {
		struct lowlat_miss_margin m = {0};
		lowlat_miss_note(&m, true, 0, false, every[k]);
		for (int i = 0; i < calm[k] - 1; i++)
			lowlat_miss_note(&m, false, 0, false, every[k]);
		CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 0), 2 * step);
		lowlat_miss_note(&m, false, 0, false, every[k]);
		CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 0), step);
	}
	/* At n >= 1 the cap's empty refreshes change nothing. */
	struct lowlat_miss_margin m = {0};
	lowlat_miss_note(&m, true, 1, false, 40);
	for (int i = 0; i < 40; i++)
		lowlat_miss_note(&m, false, 1, false, 40);
	CHECK_EQ_I64(lowlat_miss_margin_ns(&m, r, 1), 2 * step);
}

static void prediction(void)
{
	struct lowlat_ready_window w = {0};

	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS, P99), -1);
	/* Nothing measured: one refresh plus the margin. */
	CHECK_EQ_I64(lowlat_display_lead_ns(&w, 8 * MS, lowlat_display_margin_ns(8 * MS, 1), P99),
	             8 * MS + 8 * MS / 64);
	/* One sample: itself. */
	lowlat_ready_note(&w, 5 * MS);
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS, P99), 5 * MS);
	CHECK_EQ_I64(lowlat_display_lead_ns(&w, 8 * MS, lowlat_display_margin_ns(8 * MS, 1), P99),
	             8 * MS + 8 * MS / 64); /* too few yet */
	/* 100 samples: the 99th smallest, the second largest (5 ms + 95 ns is the largest). */
	for (int i = 1; i < 100; i++)
		lowlat_ready_note(&w, (5 - (i % 5)) * MS + i); /* a shuffled 1..5 ms */
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS, P99), 5 * MS + 90);
	CHECK_EQ_I64(lowlat_display_lead_ns(&w, 8 * MS, lowlat_display_margin_ns(8 * MS, 1), P99),
	             5 * MS + 90 + 8 * MS / 64);
	w = (struct lowlat_ready_window){0};
	for (int i = 0; i < LOWLAT_READY_WINDOW; i++)
		lowlat_ready_note(&w, 2 * MS + ((i * 97) % LOWLAT_READY_WINDOW) *
		                                       US); /* 2.000 .. 2.255 ms, shuffled */
	/* The 99th percentile of 256 is the 254th smallest: 2.253 ms. */
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS, P99), 2 * MS + 253 * US);
	CHECK_EQ_I64(lowlat_display_lead_ns(&w, 8 * MS, lowlat_display_margin_ns(8 * MS, 1), P99),
	             2 * MS + 253 * US + 8 * MS / 64);
	/* Stalls (beyond 2 x p90 + refresh/2 = 2 x 2.230 + 4 = 8.46 ms) do not count, however many of
	 * the rare ones there are... */
	for (int i = 0; i < 10; i++)
		lowlat_ready_note(&w, 30 * MS);
	CHECK(lowlat_ready_predict(&w, 8 * MS, P99) < 3 * MS);
	/* ...but slower frames within the bound do, from the third on (the 254th of 256). */
	lowlat_ready_note(&w, 8 * MS);
	lowlat_ready_note(&w, 8 * MS);
	CHECK(lowlat_ready_predict(&w, 8 * MS, P99) < 3 * MS);
	lowlat_ready_note(&w, 8 * MS);
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS, P99), 8 * MS);
	/* Heavy frames one time in eight are the workload: they raise the 90th percentile's bound and
	 * are covered. */
	w = (struct lowlat_ready_window){0};
	for (int i = 0; i < LOWLAT_READY_WINDOW; i++)
		lowlat_ready_note(&w, i % 8 ? 2 * MS : 20 * MS);
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS, P99), 20 * MS);
	/* Everything leaves with the window: adapting down within LOWLAT_READY_WINDOW frames. */
	for (int i = 0; i < LOWLAT_READY_WINDOW; i++)
		lowlat_ready_note(&w, 1 * MS);
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS, P99), 1 * MS);
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

/* At a cap of the refresh rate and off the refresh grid the prediction leaves a busy host's few
 * slow frames to the margin, which learns from the misses they cause; at a divisor's cadence it
 * covers them. */
static void prediction_at_refresh_rate(void)
{
	struct lowlat_ready_window w = {0};
	int64_t margin = lowlat_display_margin_ns(8 * MS, 1);

	CHECK_EQ_I64(lowlat_ready_percentile(1), 95);
	CHECK_EQ_I64(lowlat_ready_percentile(0), 95);
	CHECK_EQ_I64(lowlat_ready_percentile(2), P99);
	/* 2 ms frames, 4 of 256 at 5 ms (within the stall bound of 2 x 2 + 4 = 8 ms). */
	for (int i = 0; i < LOWLAT_READY_WINDOW; i++)
		lowlat_ready_note(&w, i % 64 == 5 ? 5 * MS : 2 * MS + (i % 7) * US);
	CHECK_EQ_I64(lowlat_display_lead_ns(&w, 8 * MS, margin, lowlat_ready_percentile(2)), 5 * MS + margin);
	CHECK_EQ_I64(lowlat_display_lead_ns(&w, 8 * MS, margin, lowlat_ready_percentile(1)),
	             2 * MS + 6 * US + margin);
	/* 13 of 256 (5%) are the workload's at the 95th too: 10 more, one of the 4 leaving. */
	for (int i = 0; i < 10; i++)
		lowlat_ready_note(&w, 5 * MS);
	CHECK_EQ_I64(lowlat_ready_predict(&w, 8 * MS, lowlat_ready_percentile(1)), 5 * MS);
}

/* A model of DXVK's threads at frame latency L, event by event, with the claims of
 * pace_display.h in between. Frames 1..L start at once (the app thread needs app_ns for each); the
 * frame thread waits for frame j to be shown (at its target: every frame is on time here) and for
 * its own previous claim, claims a release and sleeps until it, which lets frame j + L start; frame
 * f is presented r_ns[f] after its start (in order) and gets the next target. */
enum { MODEL_FRAMES = 40 };
#define MODEL_STEP      8333333ll
#define MODEL_T0        (20 * MS)
#define MODEL_TARGET(k) (MODEL_T0 + (int64_t)(k)*MODEL_STEP)

struct model {
	int latency;
	int64_t lead, app_ns, r_ns[MODEL_FRAMES + 1];
	int64_t plan_ns; /* from a present's entry to its plan */
	/* Out: each frame's start, and the start its present was told. */
	int64_t start[MODEL_FRAMES + 1], told[MODEL_FRAMES + 1];
};

static void model_run(struct model *m)
{
	struct lowlat_display_claims c = {0};
	int64_t present[MODEL_FRAMES + 1] = {0}, release[MODEL_FRAMES + 1] = {0};
	int64_t end[MODEL_FRAMES + 1] = {0};
	uint64_t ordinal[MODEL_FRAMES + 1] = {0};
	int L = m->latency, next_present = 1, next_plan = 1, next_take = 1, next_end = 1;

	for (int f = 1; f <= MODEL_FRAMES; f++)
		m->start[f] = m->told[f] = -1;
	for (int f = 1; f <= L; f++)
		m->start[f] = (f - 1) * m->app_ns;
	for (;;) {
		/* The earliest next event of each kind, if its time is known yet. */
		int64_t tp = INT64_MAX, tt = INT64_MAX, te = INT64_MAX, tl = INT64_MAX;
		if (next_present <= MODEL_FRAMES && m->start[next_present] >= 0) {
			tp = m->start[next_present] + m->r_ns[next_present];
			if (next_present > 1 && tp < present[next_present - 1])
				tp = present[next_present - 1];
		}
		/* The wait for frame j returns once it was shown, which may be before its present
		 * planned (lowlat plans once the driver's present returned). */
		if (next_take + L <= MODEL_FRAMES && next_take < next_present && next_plan > 1 &&
		    (next_take == 1 || next_end > next_take - 1)) {
			tt = MODEL_TARGET(next_take);
			if (next_take > 1 && end[next_take - 1] > tt)
				tt = end[next_take - 1];
		}
		if (next_end < next_take)
			te = end[next_end];
		if (next_plan < next_present)
			tl = present[next_plan] + m->plan_ns;
		if (tp == INT64_MAX && tt == INT64_MAX && te == INT64_MAX && tl == INT64_MAX)
			break;
		if (tl <= tp && tl <= tt && tl <= te) {
			/* Present k, a while after its entry, plans the next two releases. */
			int k = next_plan++;
			lowlat_display_claims_plan(&c, MODEL_TARGET(k + 1) - m->lead,
			                           MODEL_TARGET(k + 2) - m->lead);
		} else if (te <= tp && te <= tt) {
			/* Claim j's sleep ends: frame j + L starts (once the app thread is free). */
			int j = next_end++, f = j + L;
			lowlat_display_claims_ended(&c, ordinal[j], end[j]);
			int64_t s = end[j];
			if (m->start[f - 1] + m->app_ns > s)
				s = m->start[f - 1] + m->app_ns;
			m->start[f] = s;
		} else if (tp <= tt) {
			/* Present k's entry: told its start. */
			int k = next_present++;
			present[k] = tp;
			if (c.on) {
				int64_t told = lowlat_display_claims_present(&c);
				m->told[k] = told ? told : -1;
			}
		} else {
			int j = next_take++;
			release[j] = lowlat_display_claims_take(&c, &ordinal[j]);
			end[j] = release[j] > tt ? release[j] : tt;
		}
	}
}

static void model_init(struct model *m, int latency, int64_t lead, int64_t r, int64_t app)
{
	*m = (struct model){.latency = latency, .lead = lead, .app_ns = app};
	for (int f = 0; f <= MODEL_FRAMES; f++)
		m->r_ns[f] = r;
}

/* Every frame a claim released after the first few starts exactly a lead before its own target,
 * and its present is told that start. */
static void model_check(const struct model *m, int first)
{
	for (int f = first; f <= MODEL_FRAMES; f++) {
		CHECK_EQ_I64(m->start[f], MODEL_TARGET(f) - m->lead);
		CHECK_EQ_I64(m->told[f], m->start[f]);
	}
}

static void claims_follow_frames(void)
{
	struct model m;

	for (int latency = 1; latency <= 4; latency++) {
		/* Steady: each frame presented well within a frame of its start. */
		model_init(&m, latency, 3 * MS, 2 * MS, 500 * US);
		model_run(&m);
		model_check(&m, 2 * latency + 2);
		/* Each present plans 1.5 ms after its entry, and frame j is shown 0.5 ms after
		 * frame j + 1's present came: claims fall between entries and plans. */
		model_init(&m, latency, 3 * MS, 2 * MS, 500 * US);
		m.plan_ns = 1500 * US;
		m.r_ns[0] = 0;
		for (int f = 1; f <= MODEL_FRAMES; f++)
			m.r_ns[f] = m.lead - 500 * US;
		model_run(&m);
		model_check(&m, 2 * latency + 2);
		/* A lead longer than a frame (a busy host's) needs the engine to start a frame before
		 * the previous one is shown: L >= 2. */
		if (latency == 1)
			continue;
		/* One present comes more than a frame after its start: the claim then sees two frames
		 * started and not presented. Every frame after it still starts a lead before its own
		 * target, not one frame early. */
		model_init(&m, latency, 12 * MS, 2 * MS, 500 * US);
		m.r_ns[20] = 10 * MS;
		model_run(&m);
		model_check(&m, 2 * latency + 2);
		/* Every present a frame and more after its start (the game's and DXVK's CS thread
		 * pipelined): the start-up frames show the count. */
		model_init(&m, latency, 12 * MS, 10 * MS, 500 * US);
		model_run(&m);
		model_check(&m, 2 * latency + 2);
	}
}

/* The counts themselves: claims start afresh when the plans do, and their frames are found. */
static void claims_count(void)
{
	struct lowlat_display_claims c = {0};
	uint64_t o1, o2, o3;

	lowlat_display_claims_plan(&c, 100 * MS, 108 * MS);
	CHECK(c.on);
	/* The first claim, no present since: the next target's release. */
	CHECK_EQ_I64(lowlat_display_claims_take(&c, &o1), 100 * MS);
	lowlat_display_claims_ended(&c, o1, 100 * MS);
	/* Its frame's present is told its start, and plans on. */
	CHECK_EQ_I64(lowlat_display_claims_present(&c), 100 * MS);
	lowlat_display_claims_plan(&c, 108 * MS, 116 * MS);
	/* Two claims before the next present: each frame the next target. */
	CHECK_EQ_I64(lowlat_display_claims_take(&c, &o2), 108 * MS);
	lowlat_display_claims_ended(&c, o2, 108 * MS);
	CHECK_EQ_I64(lowlat_display_claims_take(&c, &o3), 116 * MS);
	/* An app whose waits do not gate its frames: never more than LOWLAT_CLAIM_AHEAD_MAX ahead. */
	uint64_t o;
	for (int i = 0; i < 10; i++)
		lowlat_display_claims_take(&c, &o);
	CHECK_EQ_I64(lowlat_display_claims_take(&c, &o), 108 * MS + LOWLAT_CLAIM_AHEAD_MAX * 8 * MS);
	/* A present that plans none turns the claims off; the next plan starts them afresh, and a
	 * claim taken before that counts for nothing when it ends. */
	lowlat_display_claims_plan(&c, 0, 0);
	CHECK(!c.on);
	lowlat_display_claims_plan(&c, 140 * MS, 148 * MS);
	lowlat_display_claims_ended(&c, o3, 116 * MS);
	CHECK_EQ_I64(lowlat_display_claims_take(&c, &o), 140 * MS);
	/* A present whose frame no claim released (it started before the claims did) is told 0. */
	lowlat_display_claims_restart(&c);
	CHECK_EQ_I64(lowlat_display_claims_present(&c), 0);
}

int main(void)
{
	RUN(grid_rule);
	RUN(refresh_arithmetic);
	RUN(time_grid_targets);
	RUN(margins);
	RUN(miss_margin_cadence);
	RUN(miss_margin_refresh_rate);
	RUN(miss_margin_fifo);
	RUN(miss_margin_time_grid);
	RUN(prediction);
	RUN(prediction_at_refresh_rate);
	RUN(claims_follow_frames);
	RUN(claims_count);
	return check_result();
}
