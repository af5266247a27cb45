/* present_clock.c — stage clocks against CLOCK_MONOTONIC; see present_clock.h. */
#include "present_clock.h"

int lowlat_stage_index(uint32_t stage)
{
	for (int i = 0; i < LOWLAT_STAGES; i++)
		if (stage == 1u << i)
			return i;
	return -1;
}

/* a * b / 1e9 without overflow for |a| up to hours of ns and |b| up to LOWLAT_CLOCK_DRIFT_MAX_PPB. */
static int64_t scale_ppb(int64_t a, int64_t ppb)
{
	return a / 1000000000 * ppb + a % 1000000000 * ppb / 1000000000;
}

void lowlat_clock_note(struct lowlat_stage_clocks *c, uint32_t stage, int64_t stage_ns, int64_t monotonic_ns)
{
	int i = lowlat_stage_index(stage);
	int64_t offset = stage_ns - monotonic_ns;

	if (i < 0)
		return;
	/* The rate from the previous calibration, where it lies far enough back to measure one. */
	if ((c->calibrated & stage) && monotonic_ns - c->at_ns[i] >= LOWLAT_CLOCK_CALIBRATE_NS / 2) {
		int64_t span = monotonic_ns - c->at_ns[i];
		int64_t ppb = (offset - c->offset_ns[i]) * 1000000 / (span / 1000);
		c->drift_ppb[i] =
		        ppb > LOWLAT_CLOCK_DRIFT_MAX_PPB || ppb < -LOWLAT_CLOCK_DRIFT_MAX_PPB ? 0 : ppb;
	}
	c->offset_ns[i] = offset;
	c->at_ns[i] = monotonic_ns;
	c->calibrated |= stage;
	c->calibrated_ns = monotonic_ns;
}

int64_t lowlat_clock_to_monotonic(const struct lowlat_stage_clocks *c, uint32_t stage, int64_t stage_ns)
{
	int i = lowlat_stage_index(stage);

	if (c->monotonic)
		return stage_ns;
	if (i < 0 || !(c->calibrated & stage) || !stage_ns)
		return 0;
	/* stage = m + offset + (m - at) * drift: m first without the drift, then with it (the drift
	 * term changes by a few ns between the two). */
	int64_t m = stage_ns - c->offset_ns[i];
	return stage_ns - c->offset_ns[i] - scale_ppb(m - c->at_ns[i], c->drift_ppb[i]);
}

int64_t lowlat_clock_from_monotonic(const struct lowlat_stage_clocks *c, uint32_t stage, int64_t monotonic_ns)
{
	int i = lowlat_stage_index(stage);

	if (c->monotonic)
		return monotonic_ns;
	if (i < 0 || !(c->calibrated & stage))
		return 0;
	return monotonic_ns + c->offset_ns[i] + scale_ppb(monotonic_ns - c->at_ns[i], c->drift_ppb[i]);
}

bool lowlat_clock_due(const struct lowlat_stage_clocks *c, int64_t now_ns)
{
	return !c->monotonic && (!c->calibrated_ns || now_ns - c->calibrated_ns >= LOWLAT_CLOCK_CALIBRATE_NS);
}
