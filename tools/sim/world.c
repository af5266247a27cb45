/* world.c — one simulated run: the app's frames, the host's sleeps and stalls, the present call,
 * the display; and what the run measured. See sim.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "brain/grid.h"
#include "brain/pace_display.h"
#include "clock.h"
#include "sim.h"

/* Where virtual time starts: far enough from 0 that no time the brain keeps reads as "none". */
#define SIM_START_NS 1000000000ll

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A standard normal draw (Box-Muller, one of the pair). */
static double gauss(uint64_t *state)
{
	double u = (double)((next_random(state) >> 11) + 1) / 9007199254740992.0;
	double v = (double)(next_random(state) >> 11) / 9007199254740992.0;
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

int64_t sim_cap_multiple(const struct sim_config *cfg)
{
	if (cfg->vrr_min_mhz)
		return 0;
	int64_t refresh = lowlat_rate_period_ns(cfg->rate_mhz);
	return lowlat_refresh_multiple((uint32_t)llround(cfg->fps * 1000.0), refresh);
}

static void on_event(void *user, const struct vd_event *ev)
{
	struct sim *s = user;
	struct sim_frame *f =
	        ev->request.seq && ev->request.seq <= s->count ? &s->frames[ev->request.seq - 1] : NULL;

	switch (ev->kind) {
	case VD_EV_SHOWN:
	case VD_EV_REPLACED:
	case VD_EV_SKIPPED: {
		/* The platform's report of the dequeue, as the virtual display makes it (vd_swapchain.c). */
		int64_t reported = vd_model_reported_time(&s->model, ev->request.dequeued_ns);
		if (!f)
			break;
		f->fated = true;
		f->shown = ev->kind == VD_EV_SHOWN;
		f->fate_ns = ev->time_ns;
		f->refresh = ev->refresh;
		f->out_ns = f->shown ? reported : 0;
		if (f->shown)
			vd_model_shown(&s->model, ev->refresh, reported);
		break;
	}
	case VD_EV_RELEASED: s->free_images++; break;
	case VD_EV_REPEAT: break;
	}
}

void sim_display(struct sim *s)
{
	vd_engine_advance(&s->engine, s->now);
}

/* An absolute sleep, the thread's timer slack slack_ns (1 ns counts as none). */
static void sleep_abs(struct sim *s, int64_t deadline_ns, int64_t slack_ns)
{
	s->sleeps++;
	if (deadline_ns > s->now)
		s->now = deadline_ns + slack_ns + sim_host_wake_late(&s->host);
}

void sim_sleep_until(struct sim *s, int64_t deadline_ns)
{
	sleep_abs(s, deadline_ns, 0);
}

void sim_sleep_for(struct sim *s, int64_t duration_ns)
{
	s->sleeps++;
	if (duration_ns > 0)
		s->now += duration_ns + SIM_DEFAULT_TIMER_SLACK_NS + sim_host_wake_late(&s->host);
}

/* lowlat's sleeper on the world's time: a kernel sleep wakes as the host says, and every clock
 * read of a spin moves time on a step, which the spin costs in CPU. A spinning thread is held off
 * by the host's stalls as the app's work is (the trace's stalls are what a spinning thread saw):
 * the stall delays the release and costs no CPU, the thread not running. */
static int64_t clock_now(void *ctx)
{
	struct sim *s = ctx;

	if (s->spin_read) {
		s->now = sim_host_run(&s->host, s->now, SIM_SPIN_STEP_NS);
		s->spin_ns += SIM_SPIN_STEP_NS;
	}
	s->spin_read = true;
	return s->now;
}

static void clock_sleep(void *ctx, int64_t deadline_ns, int64_t tolerance_ns)
{
	struct sim *s = ctx;

	/* clock.c lowers the thread's slack to 1 ns for the sleep unless the sleeper keeps it. */
	(void)tolerance_ns;
	sleep_abs(s, deadline_ns, s->sleeper->keep_timer_slack ? SIM_DEFAULT_TIMER_SLACK_NS : 0);
	s->spin_read = false;
}

struct lowlat_clock sim_lowlat_clock(struct sim *s, const struct lowlat_sleeper *sleeper)
{
	s->sleeper = sleeper;
	return (struct lowlat_clock){.now_ns = clock_now, .sleep_until_ns = clock_sleep, .ctx = s};
}

/* The app acquires an image: it waits for the display to give one back. */
static void acquire(struct sim *s)
{
	sim_display(s);
	while (!s->free_images) {
		int64_t v = vd_engine_next_vblank_ns(&s->engine);
		s->now = v > s->now ? v : s->now + 1;
		sim_display(s);
	}
	s->free_images--;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

void sim_sort_i64(int64_t *v, uint64_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
}

int64_t sim_percentile(const int64_t *sorted, uint64_t n, double pct)
{
	if (!n)
		return 0;
	uint64_t rank = (uint64_t)ceil(pct / 100.0 * (double)n);
	return sorted[rank ? rank - 1 : 0];
}

static double percentile_ms(const int64_t *sorted, uint64_t n, double pct)
{
	return (double)sim_percentile(sorted, n, pct) * 1e-6;
}

static void measure(const struct sim *s, struct sim_result *res)
{
	const struct sim_config *cfg = s->cfg;
	uint64_t from = cfg->warmup < cfg->frames ? cfg->warmup : 0;
	int64_t *lat = malloc((cfg->frames - from + 1) * sizeof(*lat));
	uint64_t n = 0, shown = 0, off = 0, judged = 0, torn = 0;
	int64_t first_refresh = -1, last_refresh = -1, prev_refresh = -1;
	int64_t multiple = sim_cap_multiple(cfg);
	double per = (double)cfg->rate_mhz / 1000.0 / cfg->fps; /* refreshes a frame */

	*res = (struct sim_result){.first_off = -1, .first_late = -1, .first_torn = -1};
	for (uint64_t i = from; i < s->count; i++) {
		const struct sim_frame *f = &s->frames[i];
		if (!f->fated)
			continue;
		int64_t planned = f->planned_ns ? f->planned_ns : f->target_ns;
		if (res->first_late < 0 && planned && (!f->shown || f->fate_ns > planned + s->period_ns / 2))
			res->first_late = (int64_t)i;
		if (!f->shown) {
			res->dropped++;
			continue;
		}
		if (lat)
			lat[n++] = f->fate_ns - f->start_ns;
		/* Torn mid-refresh: out after the refresh began, and well before the next one. */
		if (!cfg->vrr_min_mhz) {
			int64_t begin = vd_refresh_start_ns(cfg->rate_mhz, f->refresh);
			int64_t next = vd_refresh_start_ns(cfg->rate_mhz, f->refresh + 1);
			if (f->fate_ns > begin && next - f->fate_ns > SIM_TEAR_EDGE_NS) {
				torn++;
				if (res->first_torn < 0)
					res->first_torn = (int64_t)i;
			}
		}
		if (first_refresh < 0)
			first_refresh = f->refresh;
		else
			shown++;
		if (prev_refresh >= 0 && !cfg->vrr_min_mhz) {
			int64_t d = f->refresh - prev_refresh;
			bool bad = multiple ? d != multiple
			                    : (d < (int64_t)floor(per) || d > (int64_t)ceil(per));
			judged++;
			if (bad) {
				off++;
				if (res->first_off < 0)
					res->first_off = (int64_t)i;
			}
		}
		prev_refresh = last_refresh = f->refresh;
	}
	if (lat) {
		sim_sort_i64(lat, n);
		res->p50_ms = percentile_ms(lat, n, 50);
		res->p99_ms = percentile_ms(lat, n, 99);
		double sum = 0;
		for (uint64_t i = 0; i < n; i++)
			sum += (double)lat[i];
		res->mean_ms = n ? sum / (double)n * 1e-6 : 0;
		free(lat);
	}
	res->measured = n;
	/* Refreshes between the first and last measured frames that showed no new frame, beyond those
	 * the cap asks for (117 on 120 Hz: one in 40). */
	int64_t refreshes = last_refresh - first_refresh;
	if (refreshes > 0) {
		double empty = (double)(refreshes - (int64_t)shown);
		double expected = cfg->vrr_min_mhz ? 0 : (double)refreshes * fmax(0.0, 1.0 - 1.0 / per);
		res->repeats_pct = fmax(0.0, empty - expected) / (double)refreshes * 100.0;
	}
	res->off_pct = judged ? (double)off / (double)judged * 100.0 : 0;
	res->mid_tears_pct = n ? (double)torn / (double)n * 100.0 : 0;
	res->wait_cpu_us = s->count ? ((double)s->spin_ns + (double)s->sleeps * SIM_SLEEP_CPU_NS) /
	                                      (double)s->count * 1e-3
	                            : 0;
}

bool sim_run(const struct sim_config *cfg, const struct sim_policy *p, struct sim_frame *frames,
             struct sim_result *res)
{
	struct sim s = {
	        .cfg = cfg, .policy = p, .frames = frames, .now = SIM_START_NS, .free_images = cfg->images};
	int64_t gpu_free = 0;

	memset(frames, 0, cfg->frames * sizeof(*frames));
	s.rng = cfg->seed * 0x9e3779b97f4a7c15ull + 7;
	sim_host_init(&s.host, cfg->trace, cfg->seed);
	vd_engine_init(&s.engine, cfg->rate_mhz, s.now, on_event, &s);
	if (cfg->vrr_min_mhz)
		vd_engine_set_vrr(&s.engine, cfg->vrr_min_mhz);
	vd_model_init(&s.model, cfg->profile, cfg->rate_mhz, cfg->vrr_min_mhz, true, 0x5eed0000ull);
	s.period_ns = (int64_t)vd_model_period_ns(&s.model);
	s.app_mode = cfg->immediate ? VD_MODE_IMMEDIATE : cfg->relaxed ? VD_MODE_FIFO_RELAXED : VD_MODE_FIFO;
	s.fifo_mode = !cfg->relaxed && !cfg->immediate && cfg->profile->fifo_latest_ready &&
	                              (cfg->profile->modes & VD_MODE_BIT(VD_MODE_FIFO_LATEST_READY))
	                      ? VD_MODE_FIFO_LATEST_READY
	                      : s.app_mode;
	if (!p->init(&s))
		return false;
	for (uint64_t i = 0; i < cfg->frames; i++) {
		struct sim_frame *f = &frames[i];
		f->start_ns = s.now;
		acquire(&s);
		f->blocked_ns = s.now - f->start_ns;
		double scale = 1.0 + cfg->jitter * gauss(&s.rng);
		int64_t work = (int64_t)((double)cfg->render_ns * (scale < 0.1 ? 0.1 : scale));
		s.now = sim_host_run(&s.host, s.now, work);
		sim_display(&s);
		f->present_ns = s.now;
		f->ready_ns = (s.now > gpu_free ? s.now : gpu_free) + cfg->gpu_ns;
		gpu_free = f->ready_ns;
		struct vd_request req = {
		        .mode = s.fifo_mode, .image = (uint32_t)(i % cfg->images), .queued_ns = s.now};
		s.count = i + 1;
		p->request(&s, f, &req);
		f->seq = vd_engine_queue(&s.engine, &req);
		vd_engine_set_ready(&s.engine, f->seq, f->ready_ns);
		s.now += cfg->present_ns;
		sim_display(&s);
		p->release(&s, f);
	}
	/* The last frames reach the screen. */
	s.now += 8 * s.period_ns + cfg->gpu_ns;
	sim_display(&s);
	measure(&s, res);
	if (p->fini)
		p->fini(&s);
	return true;
}
