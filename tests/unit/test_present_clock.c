/* test_present_clock.c — a swapchain's stage clocks against CLOCK_MONOTONIC (present_clock.h): each
 * stage's offset on its own, both directions of the conversion, a stage without an offset giving
 * nothing, CLOCK_MONOTONIC itself passed through, and when a calibration is due. */
#include <stdlib.h>

#include "check.h"
#include "present_clock.h"

#define QOE 0x1u /* VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT */
#define DEQ 0x2u /* ..._REQUEST_DEQUEUED_BIT_EXT */
#define OUT 0x4u /* ..._IMAGE_FIRST_PIXEL_OUT_BIT_EXT */
#define VIS 0x8u /* ..._IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT */

static void offsets(void)
{
	struct lowlat_stage_clocks c = {0};

	CHECK_EQ_I64(lowlat_stage_index(OUT), 2);
	CHECK_EQ_I64(lowlat_stage_index(OUT | QOE), -1);
	/* The GPU's clock 3 h ahead, the compositor's 20 us behind CLOCK_MONOTONIC. */
	lowlat_clock_note(&c, QOE, 10800000000000ll + 5000000000ll, 5000000000ll);
	lowlat_clock_note(&c, OUT, 4999980000ll, 5000000000ll);
	CHECK_EQ_I64(lowlat_clock_to_monotonic(&c, QOE, 10800000000000ll + 7000000000ll), 7000000000ll);
	CHECK_EQ_I64(lowlat_clock_to_monotonic(&c, OUT, 6999980000ll), 7000000000ll);
	CHECK_EQ_I64(lowlat_clock_from_monotonic(&c, OUT, 7000000000ll), 6999980000ll);
	/* A stage never calibrated, and a stage time of 0 (it did not happen): nothing. */
	CHECK_EQ_I64(lowlat_clock_to_monotonic(&c, VIS, 7000000000ll), 0);
	CHECK_EQ_I64(lowlat_clock_from_monotonic(&c, DEQ, 7000000000ll), 0);
	CHECK_EQ_I64(lowlat_clock_to_monotonic(&c, OUT, 0), 0);
	CHECK_EQ_I64(c.calibrated, QOE | OUT);
}

static void monotonic_and_due(void)
{
	struct lowlat_stage_clocks m = {.monotonic = true}, c = {0};

	CHECK_EQ_I64(lowlat_clock_to_monotonic(&m, VIS, 123), 123);
	CHECK_EQ_I64(lowlat_clock_from_monotonic(&m, DEQ, 456), 456);
	CHECK(!lowlat_clock_due(&m, 1000000000000ll));
	CHECK(lowlat_clock_due(&c, 1));
	lowlat_clock_note(&c, OUT, 10, 1000000000ll);
	CHECK(!lowlat_clock_due(&c, 1000000000ll + LOWLAT_CLOCK_CALIBRATE_NS - 1));
	CHECK(lowlat_clock_due(&c, 1000000000ll + LOWLAT_CLOCK_CALIBRATE_NS));
}

/* A stage clock 60 ppm fast: its rate from two calibrations a quarter second apart, then times
 * a quarter second on converted to within a few ns both ways (the offset alone: 15 us off). */
static void drift(void)
{
	struct lowlat_stage_clocks c = {0};
	const int64_t t0 = 1000000000000ll, base = 3600000000000ll, ppb = 60000;
	lowlat_clock_note(&c, OUT, base + t0 + (t0 - t0) * ppb / 1000000000, t0);
	int64_t t1 = t0 + LOWLAT_CLOCK_CALIBRATE_NS;
	lowlat_clock_note(&c, OUT, base + t1 + (t1 - t0) * ppb / 1000000000, t1);
	CHECK_EQ_I64(c.drift_ppb[2], ppb);
	int64_t t2 = t1 + LOWLAT_CLOCK_CALIBRATE_NS, s2 = base + t2 + (t2 - t0) * ppb / 1000000000;
	CHECK(llabs(lowlat_clock_to_monotonic(&c, OUT, s2) - t2) <= 5);
	CHECK(llabs(lowlat_clock_from_monotonic(&c, OUT, t2) - s2) <= 5);
	/* A calibration off by a stall (a rate beyond 1000 ppm) is not taken for a rate. */
	struct lowlat_stage_clocks d = {0};
	lowlat_clock_note(&d, OUT, base + t0, t0);
	lowlat_clock_note(&d, OUT, base + t1 + 5000000, t1);
	CHECK_EQ_I64(d.drift_ppb[2], 0);
}

int main(void)
{
	RUN(offsets);
	RUN(drift);
	RUN(monotonic_and_due);
	return check_result();
}
