/* pace_display.c — the refresh-grid rule and the ready-time prediction; see pace_display.h. */
#include "pace_display.h"

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

/* The largest samples the percentile can reach into: n - rank + 1 <= ceil(n / 100) + 1. */
#define TOP_MAX (LOWLAT_READY_WINDOW * (100 - LOWLAT_READY_PERCENTILE) / 100 + 2)

int64_t lowlat_ready_predict(const struct lowlat_ready_window *w)
{
	int64_t top[TOP_MAX]; /* the k largest so far, largest first */
	uint32_t n = w->count, rank, k, have = 0;

	if (!n)
		return -1;
	/* Nearest rank: the ceil(p/100 * n)-th smallest, i.e. the k-th largest. One pass keeping the k
	 * largest: O(n * k) with k <= 4, cheap enough for every present. */
	rank = (LOWLAT_READY_PERCENTILE * n + 99) / 100;
	if (!rank)
		rank = 1;
	k = n - rank + 1;
	for (uint32_t i = 0; i < n; i++) {
		int64_t v = w->sample_ns[i];
		uint32_t j;
		if (have == k && v <= top[k - 1])
			continue;
		if (have < k)
			have++;
		for (j = have - 1; j > 0 && top[j - 1] < v; j--)
			top[j] = top[j - 1];
		top[j] = v;
	}
	return top[k - 1];
}

int64_t lowlat_display_margin_ns(int64_t refresh_ns)
{
	return refresh_ns / LOWLAT_LEAD_MARGIN_DIVISOR;
}

int64_t lowlat_display_lead_ns(const struct lowlat_ready_window *w, int64_t refresh_ns, int64_t margin_ns)
{
	int64_t predicted = lowlat_ready_predict(w);

	if (w->count < LOWLAT_READY_MIN_SAMPLES && predicted < refresh_ns)
		predicted = refresh_ns;
	return predicted + margin_ns;
}
