/* test_pace_grid — the one refresh-grid planner ("timing" and "drm" both plan with it): the refresh
 * grid continued in phase and started, a grid taking over from the CPU pacer, the time grid on a
 * fixed-rate display and on VRR, and a backlog drained. */
#include "brain/grid.h"
#include "brain/pace_display.h"
#include "brain/pace_grid.h"
#include "check.h"

#define US 1000ll    /* ns */
#define MS 1000000ll /* ns */

static const int64_t R120 = 8333333; /* 120 Hz, rounded as VK_EXT_present_timing reports it */

static struct lowlat_grid_in at(int64_t now, int64_t n)
{
	return (struct lowlat_grid_in){.refresh_ns = R120,
	                               .vblank_ns = 1 * MS,
	                               .n = n,
	                               .lead_ns = 3 * MS,
	                               .now_ns = now,
	                               .current_ns = INT64_MIN};
}

static void refresh_grid(void)
{
	struct lowlat_pacer p;
	struct lowlat_grid_plan plan;
	struct lowlat_grid_in in = at(100 * MS, 2);

	lowlat_pacer_init(&p);
	lowlat_pacer_set_mfps(&p, 60000);
	/* Starting: the first refresh the next frame can make, now + lead at the earliest. */
	lowlat_grid_plan(&p, &in, &plan);
	CHECK_EQ_I64(plan.target_ns, lowlat_refresh_at_or_after(103 * MS, 1 * MS, R120));
	CHECK_EQ_I64(plan.after_ns, plan.target_ns + 2 * R120);
	/* Continuing: two refreshes after the current frame's, snapped to the reported phase even
	 * when the current target is a few ns off it (the rounded duration). */
	in.current_ns = lowlat_refresh_at_or_after(110 * MS, 1 * MS, R120) + 3;
	lowlat_grid_plan(&p, &in, &plan);
	CHECK_EQ_I64(plan.target_ns, in.current_ns - 3 + 2 * R120);
	/* From the CPU pacer: an interval after its release, not from now. */
	in = at(100 * MS, 2);
	in.cpu_release_ns = 99 * MS;
	lowlat_grid_plan(&p, &in, &plan);
	CHECK(plan.target_ns >= 99 * MS + lowlat_pacer_interval_ns(&p) + in.lead_ns);
	CHECK(plan.target_ns < 99 * MS + lowlat_pacer_interval_ns(&p) + in.lead_ns + R120);
	/* A backlog of 2 refreshes holds the next frame back that much, once. */
	in = at(100 * MS, 2);
	struct lowlat_grid_plan plain;
	lowlat_grid_plan(&p, &in, &plain);
	in.backlog_refreshes = 2;
	lowlat_grid_plan(&p, &in, &plan);
	CHECK_EQ_I64(plan.target_ns, plain.target_ns + 2 * R120);
}

/* 117 fps on 120 Hz: every target a refresh start, 1 or 2 refreshes after the one before, never
 * the same refresh twice, and the long-run step the cap's. */
static void time_grid(void)
{
	struct lowlat_pacer p;
	struct lowlat_grid_plan plan;
	int64_t now = 100 * MS, prev = INT64_MIN, first = 0, last = 0;
	int ones = 0, twos = 0;

	lowlat_pacer_init(&p);
	lowlat_pacer_set_mfps(&p, 117000);
	for (int i = 0; i < 1170; i++) {
		struct lowlat_grid_in in = at(now, 0);
		in.current_ns = prev;
		lowlat_grid_plan(&p, &in, &plan);
		CHECK_EQ_I64(lowlat_refresh_nearest(plan.target_ns, 1 * MS, R120), plan.target_ns);
		if (prev != INT64_MIN) {
			int64_t steps = (plan.target_ns - prev + R120 / 2) / R120;
			CHECK(steps == 1 || steps == 2);
			ones += steps == 1;
			twos += steps == 2;
		} else {
			first = plan.target_ns;
		}
		last = prev = plan.target_ns;
		now = plan.target_ns - in.lead_ns; /* released on time */
	}
	/* 1169 steps at 117 fps span 1169 / 117 s: within a refresh of it. */
	CHECK(last - first >= 1169 * 1000000000ll / 117 - R120 &&
	      last - first <= 1169 * 1000000000ll / 117 + R120);
	CHECK(ones > 1000 && twos > 20);
}

/* On a variable-rate display the time grid itself: targets an interval apart, not on refreshes. */
static void time_grid_vrr(void)
{
	struct lowlat_pacer p;
	struct lowlat_grid_plan a, b;
	struct lowlat_grid_in in = at(100 * MS, 0);

	lowlat_pacer_init(&p);
	lowlat_pacer_set_mfps(&p, 100000);
	in.vrr = true;
	in.refresh_ns = 6944444; /* 144 Hz at its fastest */
	lowlat_grid_plan(&p, &in, &a);
	in.now_ns = a.target_ns - in.lead_ns;
	in.current_ns = a.target_ns;
	lowlat_grid_plan(&p, &in, &b);
	CHECK_EQ_I64(b.target_ns - a.target_ns, 10 * MS);
	CHECK_EQ_I64(a.after_ns - a.target_ns, 10 * MS);
}

int main(void)
{
	RUN(refresh_grid);
	RUN(time_grid);
	RUN(time_grid_vrr);
	return check_result();
}
