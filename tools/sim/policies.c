/* policies.c — the limiters the simulator runs side by side; see sim.h.
 *
 *   lowlat         the layer's "timing" level: its brain (layer/brain/timing.h) and CPU pacer
 *                  (layer/brain/pace.h), the very objects the layer links, driven in the order the
 *                  layer's present hook drives them (layer/hooks/present.c, level_timing.c,
 *                  timing_reports.c): reports read, this present's target, the hand-down, the
 *                  release on the grid (or the CPU pacer's before the grid is known), the wait with
 *                  lowlat's own sleeper (layer/clock/clock.c), the late frame followed, and the
 *                  latency-frames cap (max_latency_frames 1, the default).
 *   oracle         the best fixed lead in hindsight: each frame is released a fixed lead before
 *                  the refresh the cap's grid gives it, and asks for that refresh as lowlat does
 *                  where the profile takes absolute targets.
 *   mangohud-late  MangoHud's limiter, fps_limit_method=late, as its src/fps_limiter.h has it:
 *                  after the present, sleep_for(interval - (time since its last sleep ended) -
 *                  overhead), overhead being the last sleep's oversleep (0 beyond half an
 *                  interval); the app's mode (FIFO unless the world says otherwise), no
 *                  targets, the thread's default timer slack.
 *   floor          a bare absolute sleep to each point of the cap's grid, timer slack 1 ns; the
 *                  app's mode.
 *   lowlat-cpu     the layer's "cpu" level (layer/level/level_cpu.c): the CPU pacer's deadline, a
 *                  precise wait to it, a late wake-up told to the pacer; the wait is lowlat's
 *                  sleeper or, for the sleep curve, one sleep and a fixed spin tail. The app's mode.
 */
#include <math.h>
#include <stdlib.h>

#include "brain/pace.h"
#include "brain/timing.h"
#include "clock.h"
#include "sim.h"

/* ---- lowlat ---- */

struct lowlat {
	struct lowlat_timing_brain brain;
	struct lowlat_pacer pacer;
	struct lowlat_sleeper sleeper;
	struct lowlat_clock clock;
	struct lowlat_tb_frame *tb; /* each frame as the brain knows it */
	uint64_t reported;          /* frames whose complete report was read */
	uint64_t properties_counter;
	int64_t last_release_ns;
	bool last_release_display;
};

static enum lowlat_tb_mode tb_mode(enum vd_mode m)
{
	switch (m) {
	case VD_MODE_FIFO: return LOWLAT_TB_FIFO;
	case VD_MODE_FIFO_RELAXED: return LOWLAT_TB_FIFO_RELAXED;
	case VD_MODE_FIFO_LATEST_READY: return LOWLAT_TB_FIFO_LATEST_READY;
	default: return LOWLAT_TB_OTHER;
	}
}

static bool lowlat_init(struct sim *s)
{
	struct lowlat *l = calloc(1, sizeof(*l));
	const struct vd_profile *p = s->cfg->profile;

	if (!l || !(l->tb = calloc(s->cfg->frames, sizeof(*l->tb)))) {
		free(l);
		return false;
	}
	lowlat_tb_init(&l->brain,
	               p->absolute   ? LOWLAT_TARGETS_ABSOLUTE
	               : p->relative ? LOWLAT_TARGETS_RELATIVE
	                             : LOWLAT_TARGETS_NONE,
	               -1);
	lowlat_pacer_init(&l->pacer);
	lowlat_pacer_set_mfps(&l->pacer, lowlat_fps_to_mfps(s->cfg->fps));
	lowlat_sleeper_init(&l->sleeper);
	l->clock = sim_lowlat_clock(s, &l->sleeper);
	l->sleeper.base = &l->clock;
	s->state = l;
	return true;
}

static void lowlat_fini(struct sim *s)
{
	struct lowlat *l = s->state;

	free(l->tb);
	free(l);
}

/* lowlat_timing_update: the refresh the display reports, then its reports, complete ones in
 * present order and (where the profile gives them) partial ones of the frames still to come. */
static void lowlat_update(struct sim *s)
{
	struct lowlat *l = s->state;
	uint64_t duration, interval;

	sim_display(s);
	if (!l->brain.refresh_known || s->model.refresh.counter != l->properties_counter) {
		vd_model_refresh(&s->model, &duration, &interval);
		l->properties_counter = s->model.refresh.counter;
		if (duration)
			lowlat_tb_refresh(&l->brain, (int64_t)duration, interval == UINT64_MAX);
	}
	while (l->reported < s->count && s->frames[l->reported].fated) {
		const struct sim_frame *f = &s->frames[l->reported];
		lowlat_tb_report(&l->brain, &l->tb[l->reported], f->ready_ns, f->out_ns);
		l->reported++;
	}
	if (!s->cfg->profile->partial)
		return;
	for (uint64_t i = l->reported; i < s->count; i++)
		if (s->frames[i].ready_ns <= s->now)
			lowlat_tb_partial(&l->brain, &l->tb[i], s->frames[i].ready_ns);
}

static bool lowlat_paced(const struct lowlat *l)
{
	return lowlat_tb_ready(&l->brain) && l->pacer.mfps;
}

static void lowlat_request(struct sim *s, struct sim_frame *f, struct vd_request *req)
{
	struct lowlat *l = s->state;
	struct lowlat_timing_brain *b = &l->brain;
	enum lowlat_tb_mode mode = tb_mode(req->mode);
	uint64_t i = (uint64_t)(f - s->frames);
	int64_t ask = LOWLAT_LOG_UNKNOWN;

	lowlat_update(s);
	/* Judged against the target the brain planned, before it moves it for a present that came
	 * late. */
	f->planned_ns = b->have_target && lowlat_paced(l) ? b->target_ns : 0;
	int64_t target = lowlat_tb_target(b, s->now, lowlat_paced(l), mode);
	if (target != LOWLAT_LOG_UNKNOWN) {
		int64_t a = lowlat_tb_ask(b, target, mode);
		if (b->targets == LOWLAT_TARGETS_ABSOLUTE) {
			if (vd_model_target(&s->model, false, false, a, req) == VD_TARGET_TAKEN)
				ask = a;
		} else if (b->targets == LOWLAT_TARGETS_RELATIVE && b->prev_target_ns != LOWLAT_LOG_UNKNOWN) {
			int64_t before = lowlat_tb_relative_base(b);
			if (a > before &&
			    vd_model_target(&s->model, true, false, a - before, req) != VD_TARGET_UNOFFERED)
				ask = a;
		}
	}
	f->target_ns = target == LOWLAT_LOG_UNKNOWN ? 0 : target;
	l->tb[i] = (struct lowlat_tb_frame){
	        .start_ns = f->start_ns,
	        .blocked_ns = f->blocked_ns,
	        .present_ns = s->now,
	        .target_ns = target,
	        .ask_ns = ask,
	        .vblank_latch = req->mode == VD_MODE_FIFO || req->mode == VD_MODE_FIFO_LATEST_READY,
	        .relaxed = req->mode == VD_MODE_FIFO_RELAXED,
	        .fifo = req->mode == VD_MODE_FIFO,
	};
	lowlat_tb_presented(b, true, target, &l->tb[i]);
}

/* The latency-frames cap at 1: the app starts its next frame once the frame just presented was
 * reported shown (level_timing.c, latency_cap). */
static void lowlat_latency_cap(struct sim *s, struct sim_frame *f)
{
	struct lowlat *l = s->state;
	struct lowlat_timing_brain *b = &l->brain;
	uint64_t unshown = 0;

	if (!l->pacer.mfps || !b->refresh_known)
		return;
	lowlat_update(s);
	if (s->count - l->reported == 0)
		return;
	int64_t target = f->target_ns ? f->target_ns : LOWLAT_LOG_UNKNOWN;
	if (lowlat_tb_superseded(b, target, tb_mode(s->fifo_mode), s->now)) {
		if (s->count - l->reported <= 1)
			return;
		unshown = 1;
	}
	int64_t base = f->target_ns > s->now ? f->target_ns : s->now;
	int64_t deadline = base + LOWLAT_LATENCY_TIMEOUT_REFRESHES * b->refresh_ns;
	int64_t poll = b->refresh_ns / LOWLAT_SHOWN_POLL_FRACTION;
	if (poll < LOWLAT_SHOWN_POLL_MIN_NS)
		poll = LOWLAT_SHOWN_POLL_MIN_NS;
	for (;;) {
		lowlat_update(s);
		if (s->count - l->reported <= unshown) {
			lowlat_tb_held(b, s->now);
			return;
		}
		if (s->now >= deadline)
			return;
		sim_sleep_for(s, deadline - s->now < poll ? deadline - s->now : poll);
	}
}

static void lowlat_release(struct sim *s, struct sim_frame *f)
{
	struct lowlat *l = s->state;
	struct lowlat_timing_brain *b = &l->brain;
	int64_t release, begin = s->now;
	bool grid = lowlat_paced(l);

	if (grid) {
		int64_t after;
		release = lowlat_tb_release(b, &l->pacer, l->last_release_display ? 0 : l->last_release_ns,
		                            s->now, f->target_ns ? f->target_ns : LOWLAT_LOG_UNKNOWN, &after);
		l->last_release_display = true;
	} else {
		if (l->last_release_display)
			lowlat_pacer_restart_at(&l->pacer, l->last_release_ns);
		release = lowlat_pacer_next_deadline(&l->pacer, s->now);
		l->last_release_display = false;
	}
	l->last_release_ns = release;
	f->release_ns = release;
	s->spin_read = false;
	lowlat_sleep_until_ns(&l->sleeper, release, grid ? LOWLAT_WAIT_COVERED : LOWLAT_WAIT_PRECISE);
	if (!grid && release > begin && s->now > release &&
	    lowlat_pacer_released(&l->pacer, release, s->now)) {
		l->last_release_ns = s->now;
		l->last_release_display = false;
	}
	if (!grid)
		return;
	/* After the wait: the frame that missed its refresh, then the latency-frames cap. */
	lowlat_update(s);
	int64_t moved = lowlat_tb_follow_late(b);
	if (moved) {
		s->spin_read = false;
		lowlat_sleep_until_ns(&l->sleeper, moved, LOWLAT_WAIT_COVERED);
	}
	lowlat_latency_cap(s, f);
}

const struct sim_policy sim_lowlat = {
        .name = "lowlat",
        .init = lowlat_init,
        .request = lowlat_request,
        .release = lowlat_release,
        .fini = lowlat_fini,
};

/* ---- lowlat-cpu ---- */

struct lowlat_cpu {
	struct lowlat_pacer pacer;
	struct lowlat_sleeper sleeper;
	struct lowlat_clock clock;
};

static bool lowlat_cpu_init(struct sim *s)
{
	struct lowlat_cpu *c = calloc(1, sizeof(*c));

	if (!c)
		return false;
	lowlat_pacer_init(&c->pacer);
	lowlat_pacer_set_mfps(&c->pacer, lowlat_fps_to_mfps(s->cfg->fps));
	if (s->policy->tail_ns == SIM_TAIL_ADAPTIVE)
		lowlat_sleeper_init(&c->sleeper);
	else /* lead 0: no first sleep; one sleep to the deadline less the tail, then the spin */
		c->sleeper = (struct lowlat_sleeper){.tail_ns = s->policy->tail_ns};
	c->sleeper.keep_timer_slack = s->policy->keep_timer_slack;
	c->clock = sim_lowlat_clock(s, &c->sleeper);
	c->sleeper.base = &c->clock;
	s->state = c;
	return true;
}

/* The app's own mode, and no target. */
static void app_mode(struct sim *s, struct sim_frame *f, struct vd_request *req)
{
	(void)f;
	req->mode = s->app_mode;
}

/* present.c's late wait on the CPU grid: the deadline, the precise wait, then lowlat_cpu_woke. */
static void lowlat_cpu_release(struct sim *s, struct sim_frame *f)
{
	struct lowlat_cpu *c = s->state;
	int64_t begin = s->now;

	f->release_ns = lowlat_pacer_next_deadline(&c->pacer, s->now);
	s->spin_read = false;
	lowlat_sleep_until_ns(&c->sleeper, f->release_ns, LOWLAT_WAIT_PRECISE);
	if (f->release_ns > begin && s->now > f->release_ns)
		lowlat_pacer_released(&c->pacer, f->release_ns, s->now);
}

static void free_state(struct sim *s)
{
	free(s->state);
}

const struct sim_policy sim_lowlat_cpu = {
        .name = "lowlat-cpu",
        .init = lowlat_cpu_init,
        .request = app_mode,
        .release = lowlat_cpu_release,
        .fini = free_state,
        .tail_ns = SIM_TAIL_ADAPTIVE,
};

/* ---- the cap's grid, for the oracle and the floor ---- */

struct grid {
	double interval_ns;
	int64_t origin_ns;
	int64_t k;
};

static int64_t grid_point(const struct grid *g, int64_t k)
{
	return g->origin_ns + (int64_t)llround((double)k * g->interval_ns);
}

/* The next point at or after t: one after the last, or, past it by more than an interval, a fresh
 * grid from t (a limiter that falls behind does not catch up in a burst). */
static int64_t grid_next(struct grid *g, int64_t t)
{
	int64_t p = grid_point(g, ++g->k);

	if (t - p > (int64_t)g->interval_ns) {
		g->origin_ns = t;
		g->k = 0;
		return t;
	}
	return p;
}

/* ---- floor ---- */

static bool floor_init(struct sim *s)
{
	struct grid *g = calloc(1, sizeof(*g));

	if (!g)
		return false;
	g->interval_ns = 1e9 / s->cfg->fps;
	g->origin_ns = s->now;
	s->state = g;
	return true;
}

static void floor_release(struct sim *s, struct sim_frame *f)
{
	f->release_ns = grid_next(s->state, s->now);
	sim_sleep_until(s, f->release_ns);
}

const struct sim_policy sim_floor = {
        .name = "floor",
        .init = floor_init,
        .request = app_mode,
        .release = floor_release,
        .fini = free_state,
};

/* ---- mangohud-late ---- */

struct mangohud {
	int64_t target, overhead, frame_end;
};

static bool mangohud_init(struct sim *s)
{
	struct mangohud *m = calloc(1, sizeof(*m));

	if (!m)
		return false;
	/* fpsLimiter: int64_t(1'000'000'000.0f / tar), in float. */
	m->target = (int64_t)(1000000000.0f / (float)s->cfg->fps);
	s->state = m;
	return true;
}

static void mangohud_release(struct sim *s, struct sim_frame *f)
{
	struct mangohud *m = s->state;
	int64_t work = s->now - m->frame_end;
	int64_t sleep = m->target - (work < 0 ? 0 : work) - m->overhead;

	f->release_ns = s->now + (sleep > 0 ? sleep : 0);
	if (sleep > 0) {
		int64_t t0 = s->now;
		sim_sleep_for(s, sleep);
		int64_t over = s->now - t0 - sleep;
		m->overhead = over < 0 || over > m->target / 2 ? 0 : over;
	}
	m->frame_end = s->now;
}

const struct sim_policy sim_mangohud_late = {
        .name = "mangohud-late",
        .init = mangohud_init,
        .request = app_mode,
        .release = mangohud_release,
        .fini = free_state,
};

/* ---- oracle ---- */

/* The next frame's refresh on the cap's grid, chosen at its release: n refreshes after the last at
 * refresh/n, else the first refresh at or after the time grid's next point (VRR: that point); a
 * frame that cannot make it (its release has passed) takes the first one it can. */
struct oracle {
	struct grid grid;
	int64_t multiple, last_target, next_target;
};

static int64_t refresh_at_or_after(const struct sim *s, int64_t t)
{
	int64_t k = vd_refresh_at(s->cfg->rate_mhz, t);

	if (vd_refresh_start_ns(s->cfg->rate_mhz, k) < t)
		k++;
	return vd_refresh_start_ns(s->cfg->rate_mhz, k);
}

static bool oracle_init(struct sim *s)
{
	struct oracle *o = calloc(1, sizeof(*o));

	if (!o)
		return false;
	o->grid.interval_ns = 1e9 / s->cfg->fps;
	o->grid.origin_ns = s->now;
	o->multiple = sim_cap_multiple(s->cfg);
	s->state = o;
	return true;
}

static void oracle_request(struct sim *s, struct sim_frame *f, struct vd_request *req)
{
	struct oracle *o = s->state;
	const struct vd_profile *p = s->cfg->profile;
	int64_t target = o->next_target;

	if (!target)
		return;
	f->target_ns = target;
	o->last_target = target;
	/* As lowlat asks: not before half a refresh ahead of it (VRR: the flip itself). Where the
	 * profile takes absolute targets only: a frame released a fixed lead before its refresh
	 * arrives in time for it without one. */
	if (p->absolute)
		vd_model_target(&s->model, false, false,
		                s->cfg->vrr_min_mhz ? target : target - s->period_ns / 2, req);
}

static void oracle_release(struct sim *s, struct sim_frame *f)
{
	struct oracle *o = s->state;
	int64_t lead = s->policy->lead_ns, target;

	if (o->multiple && o->last_target) {
		target = o->last_target + o->multiple * s->period_ns;
		target = refresh_at_or_after(s, target - s->period_ns / 2);
	} else {
		target = grid_next(&o->grid, s->now + lead);
		if (!s->cfg->vrr_min_mhz)
			target = refresh_at_or_after(s, target);
	}
	if (o->last_target && !s->cfg->vrr_min_mhz && target <= o->last_target)
		target = o->last_target + s->period_ns;
	/* Too late for it: the first refresh the frame can make. */
	if (target - lead < s->now) {
		target = s->now + lead;
		if (!s->cfg->vrr_min_mhz)
			target = refresh_at_or_after(s, target);
	}
	o->next_target = target;
	f->release_ns = target - lead;
	sim_sleep_until(s, f->release_ns);
}

const struct sim_policy sim_oracle = {
        .name = "oracle",
        .init = oracle_init,
        .request = oracle_request,
        .release = oracle_release,
        .fini = free_state,
};
