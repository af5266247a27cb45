/* pace_display.c — the refresh-grid rule, the time grid's targets on it, the ready-time prediction; see
 * pace_display.h. */
#include "pace_display.h"

#include <string.h>

#include "grid.h"

int64_t lowlat_refresh_multiple(uint32_t mfps, int64_t refresh_ns)
{
	int64_t per_refresh, n, diff;

	if (!mfps || refresh_ns <= 0)
		return 0;
	/* r = LOWLAT_NS_MFPS / (mfps * refresh_ns); everything below is scaled by per_refresh = mfps *
	 * refresh_ns (<= 1e7 * 1e9, no overflow) to stay in integers. */
	per_refresh = (int64_t)mfps * refresh_ns;
	/* r <= 1 + tolerance: a frame every refresh. */
	if (LOWLAT_NS_MFPS * 1000000 / (1000000 + LOWLAT_REFRESH_GRID_TOLERANCE_PPM) <= per_refresh)
		return 1;
	n = (2 * LOWLAT_NS_MFPS + per_refresh) / (2 * per_refresh); /* round(r) */
	diff = LOWLAT_NS_MFPS - n * per_refresh;
	if (diff < 0)
		diff = -diff;
	/* |r - n| <= tolerance * n, times per_refresh: diff <= tolerance * n * per_refresh. diff is at
	 * most per_refresh / 2 <= 5e15 / 2, so diff * 1e6 could overflow: divide the other side. */
	if (diff <= n * per_refresh / 1000000 * LOWLAT_REFRESH_GRID_TOLERANCE_PPM)
		return n;
	return 0;
}

int64_t lowlat_time_grid_target(int64_t deadline_ns, int64_t prev_ns, int64_t vblank_ns, int64_t refresh_ns,
                                int64_t interval_ns)
{
	int64_t target = lowlat_refresh_at_or_after(deadline_ns, vblank_ns, refresh_ns);
	int64_t step = interval_ns / refresh_ns;

	if (step < 1)
		step = 1;
	/* The previous target is a refresh start give or take the rounding of the duration: the
	 * nearest refresh start a short step after it. */
	if (prev_ns != INT64_MIN) {
		int64_t first = lowlat_refresh_nearest(prev_ns + step * refresh_ns, vblank_ns, refresh_ns);
		if (target < first)
			target = first;
	}
	return target;
}

/* The position of the first sorted sample >= v (binary search). */
static uint32_t lower_bound(const int64_t *sorted, uint32_t n, int64_t v)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sorted[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void lowlat_ready_note(struct lowlat_ready_window *w, int64_t sample_ns)
{
	uint32_t i;

	/* A full window first forgets its oldest sample, in the sorted copy too: O(window) moves, a
	 * few hundred ns per present. */
	if (w->count == LOWLAT_READY_WINDOW) {
		i = lower_bound(w->sorted_ns, w->count, w->sample_ns[w->next]);
		memmove(&w->sorted_ns[i], &w->sorted_ns[i + 1], (w->count - i - 1) * sizeof(w->sorted_ns[0]));
		w->count--;
	}
	i = lower_bound(w->sorted_ns, w->count, sample_ns);
	memmove(&w->sorted_ns[i + 1], &w->sorted_ns[i], (w->count - i) * sizeof(w->sorted_ns[0]));
	w->sorted_ns[i] = sample_ns;
	w->count++;
	w->sample_ns[w->next] = sample_ns;
	w->next = (w->next + 1) % LOWLAT_READY_WINDOW;
}

/* The nearest-rank p-th percentile of the first n sorted samples (n > 0). */
static int64_t percentile(const int64_t *sorted, uint32_t n, uint32_t p)
{
	uint32_t rank = (p * n + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

uint32_t lowlat_ready_percentile(int64_t n)
{
	return n <= 1 ? LOWLAT_READY_PERCENTILE_REFRESH : LOWLAT_READY_PERCENTILE;
}

int64_t lowlat_ready_predict(const struct lowlat_ready_window *w, int64_t refresh_ns, uint32_t p)
{
	int64_t stall_ns;
	uint32_t kept;

	if (!w->count)
		return -1;
	stall_ns = LOWLAT_READY_STALL_FACTOR * percentile(w->sorted_ns, w->count, 90) + refresh_ns / 2;
	/* The samples at or below the bound; the 90th percentile itself always is. */
	kept = lower_bound(w->sorted_ns, w->count, stall_ns + 1);
	return percentile(w->sorted_ns, kept, p);
}

/* The margin's rule at a cap of refresh/n (pace_display.h): at n >= 2 the player chose an even
 * cadence, which a miss breaks for two frames; at n = 1 a miss costs one repeated refresh; at n = 0
 * a late frame takes a refresh the cap leaves empty, one every empty_every frames (0: none). */
struct miss_rule {
	uint32_t floor_steps, raise_steps, calm_frames;
};

static struct miss_rule miss_rule(int64_t n, int64_t empty_every)
{
	struct miss_rule rule = {LOWLAT_MARGIN_FLOOR_STEPS, LOWLAT_MARGIN_RAISE_STEPS,
	                         LOWLAT_MARGIN_CALM_FRAMES};

	if (n >= 2)
		return (struct miss_rule){LOWLAT_MARGIN_FLOOR_STEPS_CADENCE,
		                          LOWLAT_MARGIN_RAISE_STEPS_CADENCE,
		                          LOWLAT_MARGIN_CALM_FRAMES_CADENCE};
	if (n == 0 && empty_every > 0 && empty_every < LOWLAT_MARGIN_CALM_FRAMES)
		rule.calm_frames = empty_every > LOWLAT_MARGIN_CALM_FRAMES_MIN
		                           ? (uint32_t)empty_every
		                           : LOWLAT_MARGIN_CALM_FRAMES_MIN;
	return rule;
}

int64_t lowlat_empty_every(uint32_t mfps, int64_t refresh_ns)
{
	/* Frames per refresh, mfps * refresh_ns, in units of 1e-12 (<= 1e7 * 1e9, no overflow); the
	 * share of refreshes left empty is 1 less that. */
	const int64_t one = 1000000000000;
	int64_t empty;

	if (!mfps || refresh_ns <= 0)
		return 0;
	empty = one - (int64_t)mfps * refresh_ns;
	/* At the refresh rate within the grid's tolerance (the refresh duration's own rounding
	 * included), or above it: none. empty <= 1e12, so empty * 1e6 does not overflow. */
	if (empty * 1000000 <= one * LOWLAT_REFRESH_GRID_TOLERANCE_PPM)
		return 0;
	return (one + empty / 2) / empty;
}

int64_t lowlat_display_margin_ns(int64_t refresh_ns, int64_t n)
{
	return miss_rule(n, 0).floor_steps * (refresh_ns / LOWLAT_MARGIN_STEP_DIVISOR);
}

/* Floor and steps above it, in all, at most the top. */
static uint32_t total_steps(const struct lowlat_miss_margin *m, int64_t n)
{
	uint32_t total = miss_rule(n, 0).floor_steps + m->steps;

	return total < LOWLAT_MARGIN_TOP_STEPS ? total : LOWLAT_MARGIN_TOP_STEPS;
}

void lowlat_miss_note(struct lowlat_miss_margin *m, bool missed, int64_t n, bool fifo, int64_t empty_every)
{
	struct miss_rule rule = miss_rule(n, empty_every);

	if (fifo && n <= 1)
		rule.raise_steps = LOWLAT_MARGIN_RAISE_STEPS_FIFO;
	uint32_t top = LOWLAT_MARGIN_TOP_STEPS - rule.floor_steps;

	if (missed) {
		m->misses++;
		m->calm = 0;
		m->steps += rule.raise_steps;
		if (m->steps > top)
			m->steps = top;
		if (total_steps(m, n) > m->max_steps)
			m->max_steps = total_steps(m, n);
	} else if (++m->calm >= rule.calm_frames) {
		m->calm = 0;
		/* A cap changed to a higher floor leaves steps above the top: they go first. */
		if (m->steps > top)
			m->steps = top;
		else if (m->steps)
			m->steps--;
	}
}

int64_t lowlat_miss_margin_ns(const struct lowlat_miss_margin *m, int64_t refresh_ns, int64_t n)
{
	return total_steps(m, n) * (refresh_ns / LOWLAT_MARGIN_STEP_DIVISOR);
}

int64_t lowlat_miss_margin_max_ns(const struct lowlat_miss_margin *m, int64_t refresh_ns)
{
	return m->max_steps * (refresh_ns / LOWLAT_MARGIN_STEP_DIVISOR);
}

int64_t lowlat_display_lead_ns(const struct lowlat_ready_window *w, int64_t refresh_ns, int64_t margin_ns,
                               uint32_t percentile)
{
	int64_t predicted = lowlat_ready_predict(w, refresh_ns, percentile);

	if (w->count < LOWLAT_READY_MIN_SAMPLES && predicted < refresh_ns)
		predicted = refresh_ns;
	return predicted + margin_ns;
}

void lowlat_display_claims_restart(struct lowlat_display_claims *c)
{
	c->base = c->ended = c->taken;
	c->presents = c->planned = c->offset = 0;
}

void lowlat_display_claims_plan(struct lowlat_display_claims *c, int64_t release_ns, int64_t after_ns)
{
	bool was_on = c->on;

	c->on = after_ns != 0;
	c->plan_ns[0] = release_ns;
	c->plan_ns[1] = after_ns;
	c->planned = c->presents;
	if (c->on && !was_on)
		lowlat_display_claims_restart(c);
}

int64_t lowlat_display_claims_present(struct lowlat_display_claims *c)
{
	uint64_t ended = c->ended - c->base;

	c->presents++;
	/* Its frame's claim, if any, ended before this present: the offset is at least this. */
	if (c->presents > ended && c->presents - ended > c->offset)
		c->offset = c->presents - ended;
	if (c->presents <= c->offset)
		return 0; /* a frame that started before the claims did */
	uint64_t ordinal = c->base + c->presents - c->offset;
	const struct lowlat_claim_start *s = &c->starts[ordinal % LOWLAT_CLAIM_STARTS];
	return s->ordinal == ordinal ? s->end_ns : 0;
}

int64_t lowlat_display_claims_take(struct lowlat_display_claims *c, uint64_t *ordinal)
{
	*ordinal = ++c->taken;
	int64_t k = (int64_t)(c->taken - c->base + c->offset) - (int64_t)c->planned - 1;
	if (k < 0)
		k = 0; /* the offset is still being learned: at least the next target */
	if (k > LOWLAT_CLAIM_AHEAD_MAX)
		k = LOWLAT_CLAIM_AHEAD_MAX;
	return c->plan_ns[0] + k * (c->plan_ns[1] - c->plan_ns[0]);
}

void lowlat_display_claims_ended(struct lowlat_display_claims *c, uint64_t ordinal, int64_t end_ns)
{
	if (ordinal <= c->base || ordinal > c->taken)
		return; /* taken before the claims restarted */
	c->starts[ordinal % LOWLAT_CLAIM_STARTS] = (struct lowlat_claim_start){ordinal, end_ns};
	if (ordinal > c->ended)
		c->ended = ordinal;
}
