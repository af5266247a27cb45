/* grid.c — the refresh grid: refreshes around a time, a mode's period, the ideal display's
 * vblanks, the choice among screens and the grid kept from readings; see grid.h. */
#include "grid.h"

/* floor(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

int64_t lowlat_refresh_at_or_after(int64_t t_ns, int64_t vblank_ns, int64_t refresh_ns)
{
	int64_t k = floor_div(t_ns - vblank_ns, refresh_ns);
	int64_t start = vblank_ns + k * refresh_ns;

	return start < t_ns ? start + refresh_ns : start;
}

int64_t lowlat_refresh_nearest(int64_t t_ns, int64_t vblank_ns, int64_t refresh_ns)
{
	return vblank_ns + floor_div(t_ns - vblank_ns + refresh_ns / 2, refresh_ns) * refresh_ns;
}

int64_t lowlat_mode_period_ns(uint32_t clock_khz, uint32_t htotal, uint32_t vtotal, bool interlace,
                              bool dblscan, uint32_t vscan)
{
	/* period = den / num seconds with num = clock in Hz (times 2 when interlaced), den = pixels per
	 * refresh (times 2 for double scan, times vscan): ns = den * 1e9 / num, rounded. den <= 65535^2
	 * * 2 * 255 (< 2.2e12) and 1e6 / kHz in the same step: den * 1e6 / clock_khz, no overflow as
	 * den * 1e6 < 2.2e18. */
	int64_t num = (int64_t)clock_khz, den = (int64_t)htotal * vtotal;

	if (!clock_khz || !htotal || !vtotal)
		return 0;
	if (interlace)
		num *= 2;
	if (dblscan)
		den *= 2;
	if (vscan > 1)
		den *= vscan;
	return (den * 1000000 + num / 2) / num;
}

int64_t lowlat_rate_period_ns(int64_t rate_mhz)
{
	return (LOWLAT_NS_MFPS + rate_mhz / 2) / rate_mhz;
}

int64_t lowlat_fixed_vblank_ns(int64_t rate_mhz, int64_t t_ns, uint64_t *k_out)
{
	/* k = floor(t * rate / 1e12), split so nothing overflows 64 bits for t up to ~290 years:
	 * t = s * 1e9 + r, t * rate / 1e12 = s * rate / 1000 + r * rate / 1e12. */
	int64_t s = t_ns / 1000000000, r = t_ns % 1000000000;
	int64_t a = s * rate_mhz; /* millirefreshes in whole seconds, < 1e10 * 1e6 */
	int64_t k = a / 1000 + ((a % 1000) * 1000000000 + r * rate_mhz) / LOWLAT_NS_MFPS;
	int64_t start;

	/* start(k) = floor(k * 1e12 / rate), split as k = q * rate + m: q * 1e12 + floor(m * 1e12 / rate),
	 * m < rate <= 1e6 so m * 1e12 < 1e18. The floors can leave k one off: settle it. */
	for (;;) {
		start = k / rate_mhz * LOWLAT_NS_MFPS + (k % rate_mhz) * LOWLAT_NS_MFPS / rate_mhz;
		if (start > t_ns) {
			k--;
			continue;
		}
		int64_t next = (k + 1) / rate_mhz * LOWLAT_NS_MFPS +
		               ((k + 1) % rate_mhz) * LOWLAT_NS_MFPS / rate_mhz;
		if (next <= t_ns) {
			k++;
			continue;
		}
		break;
	}
	if (k_out)
		*k_out = (uint64_t)k;
	return start;
}

int lowlat_refresh_choose(const int64_t *period_ns, const bool *vrr, unsigned count)
{
	int chosen = -1;

	for (unsigned i = 0; i < count; i++)
		if (!vrr[i] && period_ns[i] > 0 && (chosen < 0 || period_ns[i] < period_ns[chosen]))
			chosen = (int)i;
	return chosen;
}

enum lowlat_refresh_update lowlat_refresh_grid_note(struct lowlat_refresh_grid *g,
                                                    const struct lowlat_refresh_sample *s)
{
	if (s->period_ns <= 0) {
		*g = (struct lowlat_refresh_grid){0};
		return LOWLAT_REFRESH_UPDATE_NONE;
	}
	if (!g->sampled) {
		*g = (struct lowlat_refresh_grid){.sampled = true,
		                                  .known = true,
		                                  .period_ns = s->period_ns,
		                                  .vblank_ns = s->vblank_ns,
		                                  .sequence = s->sequence};
		return LOWLAT_REFRESH_UPDATE_FIRST;
	}
	/* The refreshes between the two samples, each one period long: their span must match (see
	 * LOWLAT_REFRESH_JITTER_PPM). A sequence that went backwards (a reset counter) is a huge
	 * unsigned count and fails. */
	uint64_t count = s->sequence - g->sequence;
	int64_t span = s->vblank_ns - g->vblank_ns;
	bool on_grid = s->period_ns == g->period_ns && count <= (uint64_t)INT32_MAX && span >= 0;

	if (on_grid) {
		int64_t expected = (int64_t)count * g->period_ns;
		int64_t err = span > expected ? span - expected : expected - span;
		on_grid = err <= g->period_ns / 1000 * LOWLAT_REFRESH_JITTER_PPM / 1000 +
		                         span / 1000 * LOWLAT_REFRESH_DRIFT_PPM / 1000;
	}
	g->period_ns = s->period_ns;
	g->vblank_ns = s->vblank_ns;
	g->sequence = s->sequence;
	g->known = on_grid;
	return on_grid ? LOWLAT_REFRESH_UPDATE_OK : LOWLAT_REFRESH_UPDATE_MOVED;
}
