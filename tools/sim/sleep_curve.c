/* sleep_curve.c — tools/lowlat-sim --sleep-curve: what a precise wait's CPU buys on a host.
 *
 * The layer's "cpu" level (lowlat-cpu) releases the app on its CPU pacer's grid, and the wait to
 * each deadline is where its precision and its CPU go. Run on one world with a range of fixed
 * waits (one sleep to the deadline less a fixed tail, then the spin), the release error and the
 * CPU per frame draw the curve of what spinning buys on that host; lowlat's own sleeper, run on the
 * same world, is a point to read against it, and MangoHud's late limiter another. See sim.h and
 * docs/simulator.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

/* The fixed tails, in us: from a bare sleep to the longest tail lowlat allows (LOWLAT_TAIL_MAX_NS,
 * clock.h), denser where the quiet host's wake-ups lie. */
static const int64_t tails_us[] = {0, 10, 20, 30, 35, 40, 45, 50, 60, 75, 100, 150, 200, 300, 500, 750, 1000};
#define TAILS (sizeof(tails_us) / sizeof(tails_us[0]))
/* The rows: the fixed tails (1 ns timer slack, as clock.c sleeps), then lowlat's sleeper, a plain
 * sleep to the deadline at the thread's default timer slack (what lowering the slack buys), and
 * MangoHud's late limiter. */
#define POINTS   (TAILS + 3)
#define LOWLAT   (TAILS)
#define PLAIN    (TAILS + 1)
#define MANGOHUD (TAILS + 2)

struct point {
	const char *name;                     /* "tail", "lowlat", "plain-sleep", "mangohud-late" */
	int64_t tail_ns;                      /* the fixed tail; -1 for the others */
	double release_us[3], interval_us[2]; /* p50, p99 (, p99.9) */
	double cpu_us;
	uint64_t waits; /* measured frames whose deadline lay ahead when the wait began */
};

/* The nearest-rank percentile of n sorted values, in us. */
static double percentile_us(const int64_t *sorted, uint64_t n, double pct)
{
	return (double)sim_percentile(sorted, n, pct) * 1e-3;
}

/* The run's release and interval errors, from the frames: a frame's actual release is the next
 * frame's start. Its release error counts only where the wait had a deadline ahead of it (an app
 * late for its deadline is released at once, which says nothing of the wait); its interval error,
 * |start to next start - 1/cap|, is tools/bench-limiter's (present return to present return). */
static void measure(const struct sim_config *cfg, const struct sim_frame *frames, struct point *pt,
                    int64_t *buf)
{
	uint64_t from = cfg->warmup + 1 < cfg->frames ? cfg->warmup : 0, n = 0;
	double interval = 1e9 / cfg->fps;

	for (uint64_t i = from; i + 1 < cfg->frames; i++) {
		const struct sim_frame *f = &frames[i];
		if (f->release_ns > f->present_ns + cfg->present_ns)
			buf[n++] = frames[i + 1].start_ns - f->release_ns;
	}
	sim_sort_i64(buf, n);
	pt->waits = n;
	pt->release_us[0] = percentile_us(buf, n, 50);
	pt->release_us[1] = percentile_us(buf, n, 99);
	pt->release_us[2] = percentile_us(buf, n, 99.9);
	n = 0;
	for (uint64_t i = from; i + 1 < cfg->frames; i++)
		buf[n++] = llabs(
		        (int64_t)llround((double)(frames[i + 1].start_ns - frames[i].start_ns) - interval));
	sim_sort_i64(buf, n);
	pt->interval_us[0] = percentile_us(buf, n, 50);
	pt->interval_us[1] = percentile_us(buf, n, 99);
}

/* Whether lowlat's point lies above the curve: some fixed tail is as cheap and as precise. As
 * cheap: a CPU a frame at most lowlat's less one sleep's, for lowlat sleeps twice a wait where the
 * tails sleep once, and the host model gives the second sleep no precision of its own. As
 * precise: a release error p99 at most lowlat's plus one spin step, the spin's resolution. *by:
 * the most precise such tail, else NULL. */
static bool above_curve(const struct point *pts, const struct point **by)
{
	const struct point *low = &pts[LOWLAT];

	*by = NULL;
	for (size_t i = 0; i < TAILS; i++) {
		const struct point *p = &pts[i];
		if (p->cpu_us <= low->cpu_us - SIM_SLEEP_CPU_NS * 1e-3 &&
		    p->release_us[1] <= low->release_us[1] + SIM_SPIN_STEP_NS * 1e-3 &&
		    (!*by || p->release_us[1] < (*by)->release_us[1]))
			*by = p;
	}
	return *by;
}

/* The app's CPU a frame: its render and its present call, the world's means. */
static double app_cpu_us(const struct sim_config *cfg)
{
	return (double)(cfg->render_ns + cfg->present_ns) * 1e-3;
}

static void print_text(const struct sim_config *cfg, const char *host, const struct point *pts)
{
	const struct point *low = &pts[LOWLAT], *mh = &pts[MANGOHUD], *by;
	double app = app_cpu_us(cfg);

	printf("sleep curve: cap %g fps, %.2f ms render, the app in IMMEDIATE, host %s, %llu frames "
	       "(first %llu not measured), seed %llu\n",
	       cfg->fps, (double)cfg->render_ns * 1e-6, host, (unsigned long long)cfg->frames,
	       (unsigned long long)cfg->warmup, (unsigned long long)cfg->seed);
	printf("%-16s %29s %19s %10s\n", "wait", "release error us", "interval error us", "wait CPU");
	printf("%-16s %9s %9s %9s %9s %9s %10s\n", "", "p50", "p99", "p99.9", "p50", "p99", "us/frame");
	for (size_t i = 0; i < POINTS; i++) {
		const struct point *p = &pts[i];
		char name[32];
		if (p->tail_ns >= 0)
			snprintf(name, sizeof(name), "tail %lld us", (long long)(p->tail_ns / 1000));
		else
			snprintf(name, sizeof(name), "%s", p->name);
		printf("%-16s %9.1f %9.1f %9.1f %9.1f %9.1f %10.1f\n", name, p->release_us[0],
		       p->release_us[1], p->release_us[2], p->interval_us[0], p->interval_us[1], p->cpu_us);
	}
	if (above_curve(pts, &by))
		printf("lowlat: release p99 %.1f us at %.1f us of CPU a frame: above the curve, tail %lld us "
		       "as cheap and as precise (p99 %.1f us at %.1f us)\n",
		       low->release_us[1], low->cpu_us, (long long)(by->tail_ns / 1000), by->release_us[1],
		       by->cpu_us);
	else
		printf("lowlat: release p99 %.1f us at %.1f us of CPU a frame: on or below the curve, no "
		       "tail as cheap (%g us less) and as precise (%g us more)\n",
		       low->release_us[1], low->cpu_us, SIM_SLEEP_CPU_NS * 1e-3, SIM_SPIN_STEP_NS * 1e-3);
	printf("goal, interval error p99: lowlat %.1f us, the floor (tail 0) %.1f, MangoHud %.1f (lowlat / "
	       "MangoHud %.3f); CPU a frame with the app's %.1f us: lowlat / MangoHud %.3f\n",
	       low->interval_us[1], pts[0].interval_us[1], mh->interval_us[1],
	       low->interval_us[1] / mh->interval_us[1], app, (app + low->cpu_us) / (app + mh->cpu_us));
}

static void print_json(const struct sim_config *cfg, const char *host, const struct point *pts)
{
	printf("{\"fps\": %.3f, \"render_ms\": %.3f, \"app_cpu_us\": %.3f, \"sleep_cpu_us\": %.3f, "
	       "\"spin_step_us\": %.3f, \"host\": \"%s\", \"frames\": %llu, \"warmup\": %llu, "
	       "\"seed\": %llu, \"points\": [",
	       cfg->fps, (double)cfg->render_ns * 1e-6, app_cpu_us(cfg), SIM_SLEEP_CPU_NS * 1e-3,
	       SIM_SPIN_STEP_NS * 1e-3, host, (unsigned long long)cfg->frames,
	       (unsigned long long)cfg->warmup, (unsigned long long)cfg->seed);
	for (size_t i = 0; i < POINTS; i++) {
		const struct point *p = &pts[i];
		printf("%s{\"wait\": \"%s\", \"tail_us\": %.3f, \"release_p50_us\": %.3f, "
		       "\"release_p99_us\": %.3f, \"release_p999_us\": %.3f, \"interval_p50_us\": %.3f, "
		       "\"interval_p99_us\": %.3f, \"wait_cpu_us\": %.3f, \"waits\": %llu}",
		       i ? ", " : "", p->name, p->tail_ns >= 0 ? (double)p->tail_ns * 1e-3 : -1.0,
		       p->release_us[0], p->release_us[1], p->release_us[2], p->interval_us[0],
		       p->interval_us[1], p->cpu_us, (unsigned long long)p->waits);
	}
	printf("]}\n");
}

int sim_sleep_curve(const struct sim_config *cfg_in, const char *host, bool json)
{
	struct sim_config cfg = *cfg_in;
	struct sim_frame *frames = calloc(cfg.frames, sizeof(*frames));
	int64_t *buf = calloc(cfg.frames, sizeof(*buf));
	struct point pts[POINTS];
	int rc = 1;

	if (!frames || !buf)
		goto out;
	cfg.immediate = true;
	for (size_t i = 0; i < POINTS; i++) {
		struct sim_policy p = i == MANGOHUD ? sim_mangohud_late : sim_lowlat_cpu;
		struct sim_result res;

		pts[i] = (struct point){.name = i < TAILS     ? "tail"
		                                : i == LOWLAT ? "lowlat"
		                                : i == PLAIN  ? "plain-sleep"
		                                              : p.name,
		                        .tail_ns = i < TAILS ? tails_us[i] * 1000 : -1};
		if (i < TAILS || i == PLAIN)
			p.tail_ns = i < TAILS ? tails_us[i] * 1000 : 0;
		p.keep_timer_slack = i == PLAIN;
		if (!sim_run(&cfg, &p, frames, &res))
			goto out;
		measure(&cfg, frames, &pts[i], buf);
		pts[i].cpu_us = res.wait_cpu_us;
	}
	if (json)
		print_json(&cfg, host, pts);
	else
		print_text(&cfg, host, pts);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "lowlat-sim: out of memory\n");
	free(frames);
	free(buf);
	return rc;
}
