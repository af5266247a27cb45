/* main.c — tools/lowlat-sim's command line: one row per policy, all on the same world. See
 * docs/simulator.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brain/grid.h"
#include "sim.h"

static const char usage[] =
        "usage: lowlat-sim --profile P --hz H --fps F --render-ms R [--gpu-ms G] [--jitter PCT]\n"
        "                  [--vrr MIN_HZ] [--relaxed] [--present-us U] [--images N] [--host quiet|FILE]\n"
        "                  [--frames N] [--warmup N] [--seed S] [--policy NAME] [--frames-csv FILE]\n"
        "                  [--json]\n"
        "       lowlat-sim --sleep-curve --fps F --render-ms R [--host quiet|FILE] [--frames N]\n"
        "                  [--seed S] [--json]\n"
        "       lowlat-sim --record-host FILE [--seconds S]\n"
        "Runs lowlat's pacing brain, the best fixed lead (oracle), MangoHud's late limiter and a bare\n"
        "sleep (floor) on the virtual display's engine with driver profile P, in virtual time.\n"
        "--sleep-curve: lowlat's CPU pacer releasing an app in IMMEDIATE, its wait one sleep and a\n"
        "fixed spin tail (0 to 1000 us), then lowlat's own sleeper, a plain sleep at the default timer\n"
        "slack and MangoHud's late limiter: each wait's release error against its CPU a frame.\n";

/* The oracle's search runs on at most this many frames; the lead it finds then runs on all. */
#define ORACLE_SEARCH_FRAMES 20000
/* Repeats the oracle's lead may cost, in percent of refreshes, and frames off their refresh count,
 * in percent of frames. */
#define ORACLE_REPEATS_MAX_PCT 0.5

struct options {
	struct sim_config cfg;
	const char *host, *policy, *frames_csv, *record;
	double seconds;
	bool json, curve;
};

static bool number(const char *flag, const char *text, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	double v = strtod(text, &end);
	if (errno || end == text || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "lowlat-sim: %s %s: not a number from %g to %g\n", flag, text, lo, hi);
		return false;
	}
	*out = v;
	return true;
}

static bool parse(int argc, char **argv, struct options *o)
{
	double hz = 0, vrr = 0, render = -1, gpu = 0, jitter = 5, present = 20, images = 3;
	double frames = 100000, warmup = -1, seed = 1;
	const char *profile = NULL;

	o->seconds = 10;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool ok = true;
		if (!strcmp(a, "--json")) {
			o->json = true;
			continue;
		}
		if (!strcmp(a, "--sleep-curve")) {
			o->curve = true;
			continue;
		}
		if (!strcmp(a, "--relaxed")) {
			o->cfg.relaxed = true;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			exit(0);
		}
		if (!v) {
			fprintf(stderr, "lowlat-sim: %s needs a value\n%s", a, usage);
			return false;
		}
		i++;
		if (!strcmp(a, "--profile"))
			profile = v;
		else if (!strcmp(a, "--hz"))
			ok = number(a, v, 1, 1000, &hz);
		else if (!strcmp(a, "--fps"))
			ok = number(a, v, 1, 10000, &o->cfg.fps);
		else if (!strcmp(a, "--render-ms"))
			ok = number(a, v, 0, 1000, &render);
		else if (!strcmp(a, "--gpu-ms"))
			ok = number(a, v, 0, 1000, &gpu);
		else if (!strcmp(a, "--jitter"))
			ok = number(a, v, 0, 100, &jitter);
		else if (!strcmp(a, "--vrr"))
			ok = number(a, v, 1, 1000, &vrr);
		else if (!strcmp(a, "--present-us"))
			ok = number(a, v, 0, 100000, &present);
		else if (!strcmp(a, "--images"))
			ok = number(a, v, 2, 8, &images);
		else if (!strcmp(a, "--frames"))
			ok = number(a, v, 10, 1e8, &frames);
		else if (!strcmp(a, "--warmup"))
			ok = number(a, v, 0, 1e8, &warmup);
		else if (!strcmp(a, "--seed"))
			ok = number(a, v, 0, 1e15, &seed);
		else if (!strcmp(a, "--host"))
			o->host = v;
		else if (!strcmp(a, "--policy"))
			o->policy = v;
		else if (!strcmp(a, "--frames-csv"))
			o->frames_csv = v;
		else if (!strcmp(a, "--record-host"))
			o->record = v;
		else if (!strcmp(a, "--seconds"))
			ok = number(a, v, 0.1, 3600, &o->seconds);
		else {
			fprintf(stderr, "lowlat-sim: unknown option %s\n%s", a, usage);
			return false;
		}
		if (!ok)
			return false;
	}
	if (o->record)
		return true;
	/* The curve's app presents in IMMEDIATE: the display neither holds it back nor is judged, so
	 * any profile and rate do. */
	if (o->curve && !profile)
		profile = "spec";
	if (o->curve && !hz)
		hz = 120;
	if (o->curve && (!o->cfg.fps || render < 0)) {
		fprintf(stderr, "lowlat-sim: --sleep-curve needs --fps and --render-ms\n%s", usage);
		return false;
	}
	if (!profile || !hz || !o->cfg.fps || render < 0) {
		fprintf(stderr, "lowlat-sim: --profile, --hz, --fps and --render-ms are needed\n%s", usage);
		return false;
	}
	if (!(o->cfg.profile = vd_profile_named(profile))) {
		fprintf(stderr, "lowlat-sim: --profile %s: not a profile (%s)\n", profile,
		        vd_profile_names());
		return false;
	}
	if (o->cfg.profile->no_surface_timing) {
		fprintf(stderr,
		        "lowlat-sim: --profile %s: its surfaces offer no present timing, and the simulator "
		        "runs "
		        "the \"timing\" level only\n",
		        profile);
		return false;
	}
	if (o->cfg.relaxed && !(o->cfg.profile->modes & VD_MODE_BIT(VD_MODE_FIFO_RELAXED))) {
		fprintf(stderr, "lowlat-sim: --relaxed: profile %s offers no FIFO_RELAXED\n", profile);
		return false;
	}
	if (vrr && vrr >= hz) {
		fprintf(stderr, "lowlat-sim: --vrr %g: the bottom of the range must be under --hz %g\n", vrr,
		        hz);
		return false;
	}
	o->cfg.rate_mhz = llround(hz * 1000);
	o->cfg.vrr_min_mhz = llround(vrr * 1000);
	o->cfg.render_ns = llround(render * 1e6);
	o->cfg.gpu_ns = llround(gpu * 1e6);
	o->cfg.jitter = jitter / 100;
	o->cfg.present_ns = llround(present * 1e3);
	o->cfg.images = (uint32_t)images;
	o->cfg.frames = (uint64_t)frames;
	o->cfg.warmup = warmup >= 0                   ? (uint64_t)warmup
	                : (uint64_t)frames / 10 < 600 ? (uint64_t)frames / 10
	                                              : 600;
	o->cfg.seed = (uint64_t)seed;
	return true;
}

/* Whether a run is within the oracle's bounds: repeats, and frames off their refresh count. */
static bool bounded(const struct sim_result *r)
{
	return r->repeats_pct <= ORACLE_REPEATS_MAX_PCT && r->off_pct <= ORACLE_REPEATS_MAX_PCT;
}

/* Whether a beats b as the oracle's lead: within the bounds and a lower mean latency, or, where
 * neither is within them, fewer repeats and frames off their refresh count. The mean, not the
 * p50: in FIFO a lead that leaves just under half the frames queued a refresh behind the one
 * before has the lowest p50 of all. */
static bool better(const struct sim_result *a, const struct sim_result *b)
{
	bool a_ok = bounded(a), b_ok = bounded(b);

	if (a_ok != b_ok)
		return a_ok;
	if (a_ok)
		return a->mean_ms < b->mean_ms;
	return a->repeats_pct + a->off_pct < b->repeats_pct + b->off_pct;
}

/* The oracle: the fixed lead, from 0 to the cap's interval, whose run is best (better()): a coarse
 * pass of a 16th of a refresh, then a fine one of 10 us around the best. */
static bool oracle_search(const struct sim_config *cfg, struct sim_frame *frames, int64_t *lead_out)
{
	struct sim_config search = *cfg;
	struct sim_policy p = sim_oracle;
	struct sim_result best = {0}, r;
	int64_t period = lowlat_rate_period_ns(cfg->rate_mhz);
	int64_t interval = (int64_t)(1e9 / cfg->fps), step = period / 16, best_lead = 0;
	bool have = false;

	if (search.frames > ORACLE_SEARCH_FRAMES)
		search.frames = ORACLE_SEARCH_FRAMES;
	for (int pass = 0; pass < 2; pass++) {
		int64_t lo = pass ? best_lead - step : 0, hi = pass ? best_lead + step : interval;
		int64_t by = pass ? 10000 : step;
		for (int64_t lead = lo < 0 ? 0 : lo; lead <= hi; lead += by) {
			p.lead_ns = lead;
			if (!sim_run(&search, &p, frames, &r))
				return false;
			if (!have || better(&r, &best)) {
				best = r;
				best_lead = lead;
				have = true;
			}
		}
	}
	*lead_out = best_lead;
	return true;
}

static void write_frames(const char *path, const struct sim_frame *frames, uint64_t n)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "lowlat-sim: cannot write %s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(f,
	        "frame,start_ns,blocked_ns,present_ns,ready_ns,target_ns,release_ns,shown,fate_ns,refresh\n");
	for (uint64_t i = 0; i < n; i++) {
		const struct sim_frame *x = &frames[i];
		fprintf(f, "%llu,%lld,%lld,%lld,%lld,%lld,%lld,%d,%lld,%lld\n", (unsigned long long)i,
		        (long long)x->start_ns, (long long)x->blocked_ns, (long long)x->present_ns,
		        (long long)x->ready_ns, (long long)x->target_ns, (long long)x->release_ns, x->shown,
		        (long long)x->fate_ns, (long long)x->refresh);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	struct options o = {0};
	const struct sim_policy *all[] = {&sim_lowlat, &sim_oracle, &sim_mangohud_late, &sim_floor};
	struct sim_result res[4];
	bool ran[4] = {false};
	int64_t oracle_lead = 0;
	struct sim_trace *trace = NULL;
	int rc = 0;

	if (!parse(argc, argv, &o))
		return 2;
	if (o.record)
		return sim_host_record(o.record, o.seconds);
	if (o.host && strcmp(o.host, "quiet")) {
		if (!(trace = sim_trace_load(o.host)))
			return 2;
		o.cfg.trace = trace;
	}
	if (o.curve) {
		rc = sim_sleep_curve(&o.cfg, trace ? trace->name : "quiet", o.json);
		sim_trace_free(trace);
		return rc;
	}
	struct sim_frame *frames = calloc(o.cfg.frames, sizeof(*frames));
	if (!frames) {
		fprintf(stderr, "lowlat-sim: out of memory for %llu frames\n",
		        (unsigned long long)o.cfg.frames);
		return 1;
	}
	for (size_t i = 0; i < 4; i++) {
		struct sim_policy p = *all[i];
		if (o.policy && strcmp(o.policy, p.name))
			continue;
		if (all[i] == &sim_oracle) {
			if (!oracle_search(&o.cfg, frames, &oracle_lead))
				goto oom;
			p.lead_ns = oracle_lead;
		}
		if (!sim_run(&o.cfg, &p, frames, &res[i]))
			goto oom;
		ran[i] = true;
		if (o.frames_csv && o.policy)
			write_frames(o.frames_csv, frames, o.cfg.frames);
	}
	if (o.policy && !ran[0] && !ran[1] && !ran[2] && !ran[3]) {
		fprintf(stderr, "lowlat-sim: --policy %s: not lowlat, oracle, mangohud-late or floor\n",
		        o.policy);
		rc = 2;
		goto out;
	}
	if (o.json) {
		printf("{\"profile\": \"%s\", \"hz\": %.3f, \"fps\": %.3f, \"vrr_min_hz\": %.3f, "
		       "\"render_ms\": %.3f, "
		       "\"gpu_ms\": %.3f, \"host\": \"%s\", \"frames\": %llu, \"seed\": %llu, "
		       "\"oracle_lead_ms\": %.3f, "
		       "\"policies\": {",
		       o.cfg.profile->name, (double)o.cfg.rate_mhz / 1000, o.cfg.fps,
		       (double)o.cfg.vrr_min_mhz / 1000, (double)o.cfg.render_ns * 1e-6,
		       (double)o.cfg.gpu_ns * 1e-6, trace ? trace->name : "quiet",
		       (unsigned long long)o.cfg.frames, (unsigned long long)o.cfg.seed,
		       (double)oracle_lead * 1e-6);
		const char *sep = "";
		for (size_t i = 0; i < 4; i++) {
			if (!ran[i])
				continue;
			printf("%s\"%s\": {\"latency_p50_ms\": %.3f, \"latency_p99_ms\": %.3f, "
			       "\"latency_mean_ms\": %.3f, \"repeats_pct\": %.3f, "
			       "\"off_refresh_pct\": %.3f, \"wait_cpu_us\": %.1f, \"dropped\": %llu, "
			       "\"first_off_frame\": %lld, "
			       "\"first_late_frame\": %lld, \"first_torn_frame\": %lld, \"mid_tears_pct\": "
			       "%.3f}",
			       sep, all[i]->name, res[i].p50_ms, res[i].p99_ms, res[i].mean_ms,
			       res[i].repeats_pct, res[i].off_pct, res[i].wait_cpu_us,
			       (unsigned long long)res[i].dropped, (long long)res[i].first_off,
			       (long long)res[i].first_late, (long long)res[i].first_torn,
			       res[i].mid_tears_pct);
			sep = ", ";
		}
		printf("}}\n");
		goto out;
	}
	printf("profile %s, %g Hz%s%s, cap %g fps, %.2f ms render, %.2f ms GPU, host %s, %llu frames (first "
	       "%llu "
	       "not measured), seed %llu\n",
	       o.cfg.profile->name, (double)o.cfg.rate_mhz / 1000, o.cfg.vrr_min_mhz ? " VRR" : "",
	       o.cfg.relaxed ? ", FIFO_RELAXED" : "", o.cfg.fps, (double)o.cfg.render_ns * 1e-6,
	       (double)o.cfg.gpu_ns * 1e-6, trace ? trace->name : "quiet", (unsigned long long)o.cfg.frames,
	       (unsigned long long)o.cfg.warmup, (unsigned long long)o.cfg.seed);
	printf("%-22s %8s %8s %8s %10s %8s %12s %12s\n", "policy", "p50 ms", "p99 ms", "mean ms", "repeats %",
	       "off %", "mid-tears %", "wait CPU us");
	for (size_t i = 0; i < 4; i++) {
		char name[40];
		if (!ran[i])
			continue;
		if (all[i] == &sim_oracle)
			snprintf(name, sizeof(name), "oracle (lead %.2f ms)", (double)oracle_lead * 1e-6);
		else
			snprintf(name, sizeof(name), "%s", all[i]->name);
		printf("%-22s %8.3f %8.3f %8.3f %10.3f %8.3f %12.3f %12.1f\n", name, res[i].p50_ms,
		       res[i].p99_ms, res[i].mean_ms, res[i].repeats_pct, res[i].off_pct,
		       res[i].mid_tears_pct, res[i].wait_cpu_us);
	}
	goto out;
oom:
	fprintf(stderr, "lowlat-sim: out of memory\n");
	rc = 1;
out:
	free(frames);
	sim_trace_free(trace);
	return rc;
}
