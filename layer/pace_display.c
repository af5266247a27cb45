/* pace_display.c — the refresh-grid rule and the ready-time prediction; see pace_display.h. */
#include "pace_display.h"

#include <string.h>

/* Nanoseconds per second times millihertz per hertz (as in pace.c): cap interval = NS_MFPS / mfps. */
#define NS_MFPS 1000000000000ll

int64_t lowlat_refresh_multiple(uint32_t mfps, int64_t refresh_ns)
{
	int64_t per_refresh, n, diff;

	if (!mfps || refresh_ns <= 0)
		return 0;
	/* r = NS_MFPS / (mfps * refresh_ns); everything below is scaled by per_refresh = mfps *
	 * refresh_ns (<= 1e7 * 1e9, no overflow) to stay in integers. */
	per_refresh = (int64_t)mfps * refresh_ns;
	/* r <= 1 + tolerance: a frame every refresh. */
	if (NS_MFPS * 1000000 / (1000000 + LOWLAT_REFRESH_GRID_TOLERANCE_PPM) <= per_refresh)
		return 1;
	n = (2 * NS_MFPS + per_refresh) / (2 * per_refresh); /* round(r) */
	diff = NS_MFPS - n * per_refresh;
	if (diff < 0)
		diff = -diff;
	/* |r - n| <= tolerance * n, times per_refresh: diff <= tolerance * n * per_refresh. diff is at
	 * most per_refresh / 2 <= 5e15 / 2, so diff * 1e6 could overflow: divide the other side. */
	if (diff <= n * per_refresh / 1000000 * LOWLAT_REFRESH_GRID_TOLERANCE_PPM)
		return n;
	return 0;
}

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

void lowlat_ready_note(struct lowlat_ready_window *w, int64_t sample_ns)
{
	w->sample_ns[w->next] = sample_ns;
	w->next = (w->next + 1) % LOWLAT_READY_WINDOW;
	if (w->count < LOWLAT_READY_WINDOW)
		w->count++;
}

int64_t lowlat_ready_predict(const struct lowlat_ready_window *w)
{
	int64_t sorted[LOWLAT_READY_WINDOW];
	uint32_t n = w->count, rank;

	if (!n)
		return -1;
	/* Insertion sort of at most 128 values, once a frame: a few microseconds at worst. */
	memcpy(sorted, w->sample_ns, n * sizeof(sorted[0]));
	for (uint32_t i = 1; i < n; i++) {
		int64_t v = sorted[i];
		uint32_t j = i;
		for (; j > 0 && sorted[j - 1] > v; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = v;
	}
	/* Nearest rank: ceil(p/100 * n) - 1, at least 0. */
	rank = (LOWLAT_READY_PERCENTILE * n + 99) / 100;
	return sorted[rank ? rank - 1 : 0];
}

int64_t lowlat_display_lead_ns(const struct lowlat_ready_window *w, int64_t refresh_ns)
{
	int64_t predicted = lowlat_ready_predict(w);

	if (predicted < 0)
		predicted = refresh_ns;
	return predicted + refresh_ns / LOWLAT_LEAD_MARGIN_DIVISOR;
}
