/* scanout.c — the presentation engine's rules on the ideal refresh grid; see scanout.h. */
#include "scanout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S_MILLI 1000000000000ll /* ns per second, times 1000 because rates are in mHz */

int64_t vd_parse_rate_mhz(const char *text)
{
	char *end;
	double hz;

	if (!text || !*text)
		return 0;
	hz = strtod(text, &end);
	/* 1 Hz .. 1000 Hz: anything else is a typo, not a display. */
	if (*end || !(hz >= 1.0 && hz <= 1000.0))
		return 0;
	return (int64_t)llround(hz * 1000.0);
}

static int64_t floor_div(__int128 a, int64_t b)
{
	__int128 q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return (int64_t)q;
}

int64_t vd_refresh_start_ns(int64_t rate_mhz, int64_t k)
{
	return floor_div((__int128)k * NS_PER_S_MILLI, rate_mhz);
}

int64_t vd_refresh_at(int64_t rate_mhz, int64_t t_ns)
{
	int64_t k = floor_div((__int128)t_ns * rate_mhz, NS_PER_S_MILLI);

	/* The floor above can be one off against the floored grid times; settle on the exact index. */
	while (vd_refresh_start_ns(rate_mhz, k + 1) <= t_ns)
		k++;
	while (vd_refresh_start_ns(rate_mhz, k) > t_ns)
		k--;
	return k;
}

static int64_t period_of(int64_t rate_mhz)
{
	return vd_refresh_start_ns(rate_mhz, 1);
}

int64_t vd_engine_period_ns(const struct vd_engine *e)
{
	if (e->vrr_min_mhz)
		return period_of(e->rate_mhz);
	return vd_refresh_start_ns(e->rate_mhz, e->next_refresh) -
	       vd_refresh_start_ns(e->rate_mhz, e->next_refresh - 1);
}

static int64_t target_of(const struct vd_engine *e, const struct vd_request *r);

int64_t vd_engine_next_vblank_ns(const struct vd_engine *e)
{
	int64_t earliest, latest, t;

	if (!e->vrr_min_mhz)
		return vd_refresh_start_ns(e->rate_mhz, e->next_refresh);
	earliest = e->last_vblank_ns + period_of(e->rate_mhz);
	latest = e->last_vblank_ns + period_of(e->vrr_min_mhz);
	if (!e->count || e->queue[0].ready_ns == VD_TIME_UNKNOWN || e->queue[0].mode == VD_MODE_IMMEDIATE)
		return latest;
	/* The display waits for the head of the queue, within its range. */
	t = e->queue[0].ready_ns;
	if (target_of(e, &e->queue[0]) > t)
		t = target_of(e, &e->queue[0]);
	return t < earliest ? earliest : t > latest ? latest : t;
}

/* When the refresh scanning out at time t started. */
static int64_t vblank_before(const struct vd_engine *e, int64_t t)
{
	if (e->vrr_min_mhz)
		return e->last_vblank_ns;
	return vd_refresh_start_ns(e->rate_mhz, vd_refresh_at(e->rate_mhz, t));
}

void vd_engine_set_vrr(struct vd_engine *e, int64_t min_mhz)
{
	e->vrr_min_mhz = min_mhz;
	/* The display counts refreshes from here; the first one may start a shortest period after
	 * the start. */
	e->last_vblank_ns = e->cursor_ns;
	e->next_refresh = 1;
}

void vd_engine_init(struct vd_engine *e, int64_t rate_mhz, int64_t start_ns, vd_event_fn emit, void *user)
{
	memset(e, 0, sizeof(*e));
	e->rate_mhz = rate_mhz;
	e->emit = emit;
	e->user = user;
	e->next_seq = 1;
	e->next_refresh = vd_refresh_at(rate_mhz, start_ns) + 1;
	e->cursor_ns = start_ns;
	/* The display has shown whatever it showed since it started: for FIFO_RELAXED, the first
	 * request is late only when a vblank passed between the start and its ready time. */
	e->last_update_ns = start_ns;
}

uint64_t vd_engine_queue(struct vd_engine *e, const struct vd_request *req)
{
	struct vd_request *r;

	if (e->count == VD_MAX_PENDING)
		return 0;
	r = &e->queue[e->count++];
	*r = *req;
	r->seq = e->next_seq++;
	r->ready_ns = VD_TIME_UNKNOWN;
	r->target_abs_ns = 0;
	r->dequeued_ns = r->first_pixel_ns = 0;
	r->refresh = -1;
	r->replaced_by = 0;
	return r->seq;
}

static struct vd_request *find(struct vd_engine *e, uint64_t seq, uint32_t *index)
{
	for (uint32_t i = 0; i < e->count; i++) {
		if (e->queue[i].seq == seq) {
			if (index)
				*index = i;
			return &e->queue[i];
		}
	}
	return NULL;
}

const struct vd_request *vd_engine_request(const struct vd_engine *e, uint64_t seq)
{
	return find((struct vd_engine *)e, seq, NULL);
}

bool vd_engine_set_ready(struct vd_engine *e, uint64_t seq, int64_t ready_ns)
{
	struct vd_request *r = find(e, seq, NULL);

	if (!r)
		return false;
	/* The caller promised nothing unknown was ready at or before the cursor; a timestamp that
	 * lands there anyway (clock read races of a few ns) is clamped, not allowed to rewrite history. */
	r->ready_ns = ready_ns > e->cursor_ns ? ready_ns : e->cursor_ns;
	if (r->ready_ns < r->queued_ns)
		r->ready_ns = r->queued_ns;
	return true;
}

static void remove_at(struct vd_engine *e, uint32_t i)
{
	memmove(&e->queue[i], &e->queue[i + 1], (e->count - i - 1) * sizeof(e->queue[0]));
	e->count--;
}

bool vd_engine_cancel(struct vd_engine *e, uint64_t seq)
{
	uint32_t i;

	if (!find(e, seq, &i))
		return false;
	remove_at(e, i);
	return true;
}

static void emit(struct vd_engine *e, enum vd_event_kind kind, int64_t t, int64_t refresh,
                 const struct vd_request *r)
{
	struct vd_event ev = {.kind = kind, .time_ns = t, .refresh = refresh, .request = *r};
	if (e->emit)
		e->emit(e->user, &ev);
}

/* The absolute target of a request at the head of the queue: a relative one counts from the first
 * pixel of the image now on screen (the previous presentation); "if the swapchain has never been
 * used to present an image, the provided targetTime is ignored". */
static int64_t target_of(const struct vd_engine *e, const struct vd_request *r)
{
	switch (r->target_kind) {
	case VD_TARGET_ABSOLUTE: return r->target_ns;
	case VD_TARGET_RELATIVE: return e->has_current ? e->last_update_ns + r->target_ns : 0;
	default: return 0;
	}
}

static bool is_ready_at(const struct vd_request *r, int64_t t)
{
	return r->ready_ns != VD_TIME_UNKNOWN && r->ready_ns <= t;
}

/* May r be latched at the vblank at time v? */
static bool latchable(const struct vd_engine *e, const struct vd_request *r, int64_t v)
{
	int64_t target;

	if (!is_ready_at(r, v))
		return false;
	target = target_of(e, r);
	if (!target || v >= target - r->early_ns)
		return true;
	/* NEAREST_REFRESH_CYCLE: the target falls in the first half of the cycle this vblank starts. */
	return r->nearest && 2 * (target - v) < vd_engine_period_ns(e);
}

static void show(struct vd_engine *e, int64_t t, int64_t refresh)
{
	struct vd_request r = e->queue[0];
	struct vd_request old = e->current;
	bool had = e->has_current;

	remove_at(e, 0);
	r.target_abs_ns = target_of(e, &r);
	r.dequeued_ns = t;
	r.first_pixel_ns = t;
	r.refresh = refresh;
	e->current = r;
	e->has_current = true;
	e->last_update_ns = t;
	e->updated_this_refresh = true;
	emit(e, VD_EV_SHOWN, t, refresh, &r);
	if (had)
		emit(e, VD_EV_RELEASED, t, refresh, &old);
}

/* Drops the head (REPLACED or SKIPPED) in favour of the request `by`. */
static void drop_head(struct vd_engine *e, enum vd_event_kind kind, int64_t t, int64_t refresh, uint64_t by)
{
	struct vd_request r = e->queue[0];

	remove_at(e, 0);
	r.target_abs_ns = target_of(e, &r);
	r.dequeued_ns = t;
	r.refresh = refresh;
	r.replaced_by = by;
	emit(e, kind, t, refresh, &r);
	emit(e, VD_EV_RELEASED, t, refresh, &r);
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* The earliest action between vblanks: an IMMEDIATE request, a late FIFO_RELAXED request, or a
 * MAILBOX replacement. Returns INT64_MAX when there is none. */
static int64_t next_action_ns(const struct vd_engine *e)
{
	const struct vd_request *h = &e->queue[0];
	int64_t t;

	if (!e->count || h->ready_ns == VD_TIME_UNKNOWN)
		return INT64_MAX;
	switch (h->mode) {
	case VD_MODE_IMMEDIATE: t = max64(h->ready_ns, target_of(e, h)); return max64(t, e->cursor_ns);
	case VD_MODE_FIFO_RELAXED:
		/* Late: no update since the last vblank before the ready time. */
		t = max64(max64(h->ready_ns, target_of(e, h)), e->cursor_ns);
		if (e->last_update_ns < vblank_before(e, t))
			return t;
		return INT64_MAX;
	case VD_MODE_MAILBOX:
		/* The pending request is replaced when the next one reaches the engine. */
		if (e->count > 1 && e->queue[1].mode == VD_MODE_MAILBOX &&
		    e->queue[1].ready_ns != VD_TIME_UNKNOWN)
			return max64(e->queue[1].ready_ns, e->cursor_ns);
		return INT64_MAX;
	default: return INT64_MAX;
	}
}

static void apply_action(struct vd_engine *e, int64_t t)
{
	/* The refresh being scanned out when the action happens. */
	int64_t refresh = e->next_refresh - 1;

	if (e->queue[0].mode == VD_MODE_MAILBOX)
		drop_head(e, VD_EV_REPLACED, t, refresh, e->queue[1].seq);
	else
		show(e, t, refresh);
}

static void vblank(struct vd_engine *e, int64_t v)
{
	int64_t k = e->next_refresh;
	uint32_t n = 0;

	if (e->count) {
		switch (e->queue[0].mode) {
		case VD_MODE_MAILBOX:
			/* Replacements that fall exactly on this vblank. */
			while (e->count > 1 && e->queue[1].mode == VD_MODE_MAILBOX &&
			       is_ready_at(&e->queue[1], v))
				drop_head(e, VD_EV_REPLACED, v, k, e->queue[1].seq);
			/* fallthrough */
		case VD_MODE_FIFO:
		case VD_MODE_FIFO_RELAXED:
		case VD_MODE_IMMEDIATE:
			if (latchable(e, &e->queue[0], v))
				show(e, v, k);
			break;
		case VD_MODE_FIFO_LATEST_READY:
			while (n < e->count && e->queue[n].mode == VD_MODE_FIFO_LATEST_READY &&
			       latchable(e, &e->queue[n], v))
				n++;
			for (uint32_t i = 0; n && i + 1 < n; i++)
				drop_head(e, VD_EV_SKIPPED, v, k, e->queue[n - 1 - i].seq);
			if (n)
				show(e, v, k);
			break;
		}
	}
	if (!e->updated_this_refresh && e->has_current)
		emit(e, VD_EV_REPEAT, v, k, &e->current);
	e->updated_this_refresh = false;
	e->next_refresh++;
	e->cursor_ns = v;
	e->last_vblank_ns = v;
}

void vd_engine_advance(struct vd_engine *e, int64_t horizon_ns)
{
	for (;;) {
		int64_t v = vd_engine_next_vblank_ns(e);
		int64_t t = next_action_ns(e);

		/* At equal times the vblank goes first: a request ready exactly at a vblank latches on it. */
		if (t < v && t <= horizon_ns) {
			apply_action(e, t);
			e->cursor_ns = t;
			continue;
		}
		if (v > horizon_ns)
			break;
		vblank(e, v);
	}
	if (horizon_ns > e->cursor_ns)
		e->cursor_ns = horizon_ns;
}
