/* swapchain_cap.c — a swapchain's cap: resolved against its display's rate, said once; see
 * swapchain_cap.h. Runs on the thread presenting to the swapchain (externally synchronised). */
#include "swapchain_cap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brain/pace.h"
#include "clock.h"
#include "config.h"
#include "config_global.h"
#include "fps_refresh.h"
#include "level.h"
#include "live.h"
#include "message.h"
#include "objects.h"
#include "swapchain.h"

static const char *level_name(const struct lowlat_level *level)
{
	return level ? level->name : lowlat_level_cpu.name;
}

/* The display's rate as the swapchain knows it now: 0 when unknown. */
static enum lowlat_rate_source display_rate(const struct lowlat_swapchain *sc, int64_t *refresh_ns, bool *vrr)
{
	*vrr = false;
	if (sc->timing.active && sc->timing.brain.refresh_known) {
		*refresh_ns = sc->timing.brain.refresh_ns;
		*vrr = sc->timing.brain.vrr;
		return LOWLAT_RATE_TIMING;
	}
	if (sc->refresh.active && sc->refresh.grid.sampled && sc->refresh.grid.period_ns > 0) {
		*refresh_ns = sc->refresh.grid.period_ns;
		return LOWLAT_RATE_DRM;
	}
	if (sc->cap.pw_period_ns) {
		*refresh_ns = sc->cap.pw_period_ns;
		return LOWLAT_RATE_PRESENT_WAIT;
	}
	*refresh_ns = 0;
	return LOWLAT_RATE_UNKNOWN;
}

/* The levels that report a rate after the first presents; "drm" knows it at creation, "cpu" never. */
static bool can_learn(const struct lowlat_swapchain *sc)
{
	return sc->cap.created && !sc->cap.learn_over &&
	       (sc->level == &lowlat_level_timing || sc->level == &lowlat_level_present_wait);
}

static int compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The refresh in the first pixels' spacings lowlat's own present waits saw (pace_wait.h) while the
 * game ran uncapped: each spacing is a whole number of refreshes, one when the frame kept up, plus
 * the waking threads' jitter. The spacings of one refresh are those under 1.5 times the shortest
 * that another agrees with (within 1/20: one short outlier does not count); their median is the
 * refresh. 0 until the ring of spacings is full. (pace_wait.c's own period, the median of all of
 * them, is two refreshes or a mix as soon as half the frames miss one.) */
static int64_t pw_refresh_ns(const struct lowlat_pw_phase *p)
{
	int64_t shortest = 0, one[LOWLAT_PW_SPACINGS];
	uint32_t n = 0;

	if (p->spacing_count < LOWLAT_PW_SPACINGS)
		return 0;
	for (uint32_t i = 0; i < LOWLAT_PW_SPACINGS; i++) {
		int64_t a = p->spacing_ns[i];
		for (uint32_t j = 0; j < LOWLAT_PW_SPACINGS; j++) {
			int64_t d = p->spacing_ns[j] - a;
			if (j != i && (d < 0 ? -d : d) <= a / 20 && (!shortest || a < shortest))
				shortest = a;
		}
	}
	for (uint32_t i = 0; shortest && i < LOWLAT_PW_SPACINGS; i++)
		if (p->spacing_ns[i] < shortest + shortest / 2)
			one[n++] = p->spacing_ns[i];
	if (!n)
		return 0;
	qsort(one, n, sizeof(one[0]), compare_i64);
	return one[n / 2];
}

bool lowlat_cap_stale(struct lowlat_swapchain *sc)
{
	struct lowlat_swapchain_cap *c = &sc->cap;
	int64_t refresh_ns;
	bool vrr;

	if (c->dirty)
		return true;
	if (sc->config.fps_base == LOWLAT_FPS_ABSOLUTE || !sc->config.enabled)
		return false;
	/* Uncapped, the frames of a game that keeps up are shown every refresh: their spacing, which
	 * lowlat's own present waits see, is the refresh. Capped, it would be the cap's. */
	if (c->provisional && sc->level == &lowlat_level_present_wait && !c->pw_period_ns)
		c->pw_period_ns = pw_refresh_ns(&sc->pw_phase);
	display_rate(sc, &refresh_ns, &vrr);
	if (refresh_ns != c->refresh_ns || vrr != c->vrr)
		return true;
	return c->provisional && c->learn_until_ns && lowlat_now_ns() >= c->learn_until_ns;
}

/* "60", "59.94", "141.5": a cap in millihertz as fps, without trailing zeros. */
static void fps_text(uint32_t mfps, char *dst, size_t size)
{
	size_t len = (size_t)snprintf(dst, size, "%.3f", mfps / (double)LOWLAT_MFPS_PER_FPS);

	while (len > 1 && len < size && dst[len - 1] == '0')
		dst[--len] = '\0';
	if (len > 1 && len < size && dst[len - 1] == '.')
		dst[--len] = '\0';
}

/* "(refresh/2 of 120 Hz, from present timing)" for a cap relative to the refresh; "" otherwise. */
static void relative_text(const struct lowlat_swapchain *sc, char *dst, size_t size)
{
	const struct lowlat_swapchain_cap *c = &sc->cap;
	char spec[48], hz[32];

	dst[0] = '\0';
	if (sc->config.fps_base == LOWLAT_FPS_ABSOLUTE)
		return;
	lowlat_fps_describe(&sc->config, false, spec, sizeof(spec));
	if (!c->refresh_ns) {
		snprintf(dst, size, " (%s of an assumed 60 Hz: %s)", spec,
		         sc->level == &lowlat_level_cpu
		                 ? "pacing level \"cpu\" does not learn the display's refresh rate"
		                 : "the display's refresh rate was not reported within 1 s");
		return;
	}
	fps_text((uint32_t)(lowlat_refresh_hz(c->refresh_ns) * LOWLAT_MFPS_PER_FPS + 0.5), hz, sizeof(hz));
	switch (c->source) {
	case LOWLAT_RATE_TIMING:
		snprintf(dst, size, " (%s of %s Hz%s, from present timing)", spec, hz,
		         c->vrr ? ", the variable refresh's fastest" : "");
		break;
	case LOWLAT_RATE_DRM:
		snprintf(dst, size, " (%s of %s Hz, from %s)", spec, hz, sc->refresh.source.name);
		break;
	case LOWLAT_RATE_PRESENT_WAIT:
		snprintf(dst, size, " (%s of %s Hz, measured by present waits)", spec, hz);
		break;
	case LOWLAT_RATE_UNKNOWN: break;
	}
}

/* "paced on the CPU clock (the device lacks VK_EXT_present_timing)": the level, and when it is not
 * "timing" the reason that matters most, why not. */
static void pacing_text(const struct lowlat_swapchain *sc, char *dst, size_t size)
{
	const char *why = sc->cap.timing_why;

	if (sc->level == &lowlat_level_timing)
		snprintf(dst, size, "paced on the display's refresh (present timing)");
	else if (sc->level == &lowlat_level_present_wait)
		snprintf(dst, size, "paced on the refreshes its present waits show (%s)", why);
	else if (sc->level == &lowlat_level_drm)
		snprintf(dst, size, "paced on the screen's refresh clock, %s (%s)", sc->refresh.source.name,
		         why);
	else
		snprintf(dst, size, "paced on the CPU clock (%s)", why);
}

/* The swapchain's line: the first cap, at the default level; later changes at LOWLAT_VERBOSE=1. */
static void tell(struct lowlat_swapchain *sc, uint32_t mfps, bool refused)
{
	struct lowlat_swapchain_cap *c = &sc->cap;
	char fps[32], relative[320], pacing[384];

	if (!c->created || c->provisional)
		return;
	if (c->told && mfps == c->told_mfps)
		return;
	fps_text(mfps, fps, sizeof(fps));
	relative_text(sc, relative, sizeof(relative));
	if (refused) {
		/* A share of the refresh under 1 fps: a bad value, said like one. */
		LOWLAT_WARN_LIMITED("%ux%u: not capped, as fps%s comes to under 1 fps", sc->extent.width,
		                    sc->extent.height, relative);
	} else if (!c->told && mfps) {
		pacing_text(sc, pacing, sizeof(pacing));
		LOWLAT_WARN_LIMITED("%ux%u: capped at %s fps%s, %s", sc->extent.width, sc->extent.height, fps,
		                    relative, pacing);
	} else if (c->told) {
		if (mfps)
			LOWLAT_INFO_LIMITED("%ux%u: capped at %s fps now%s", sc->extent.width,
			                    sc->extent.height, fps, relative);
		else
			LOWLAT_INFO_LIMITED("%ux%u: not capped now", sc->extent.width, sc->extent.height);
	} else {
		return;
	}
	c->told = c->told || mfps;
	c->told_mfps = mfps;
}

uint32_t lowlat_cap_mfps(struct lowlat_swapchain *sc)
{
	struct lowlat_swapchain_cap *c = &sc->cap;
	const struct lowlat_config *cfg = &sc->config;
	uint32_t mfps;
	double fps;

	c->dirty = false;
	c->provisional = false;
	if (!cfg->enabled) {
		fps = 0;
	} else if (cfg->fps_base == LOWLAT_FPS_ABSOLUTE) {
		fps = cfg->fps;
	} else {
		c->source = display_rate(sc, &c->refresh_ns, &c->vrr);
		if (!c->refresh_ns && (!c->created || can_learn(sc))) {
			int64_t now_ns = lowlat_now_ns();
			if (c->created && !c->learn_until_ns)
				c->learn_until_ns = now_ns + LOWLAT_CAP_LEARN_NS;
			c->provisional = !c->created || now_ns < c->learn_until_ns;
			c->learn_over = !c->provisional;
		}
		/* Uncapped while the rate is learned: the cap's largest value paces nothing. */
		fps = c->provisional ? LOWLAT_FPS_MAX : lowlat_fps_resolve(cfg, c->refresh_ns);
	}
	mfps = lowlat_fps_to_mfps(fps);
	const struct lowlat_device *dev = sc->device;
	/* The engine or MangoHud limits the frame rate: a second cap would fight it for every frame's
	 * start, so one rules unless the player stacks them; either way lowlat says which. */
	if (mfps && dev->engine_limits && !cfg->stack_limiters) {
		LOWLAT_WARN_ONCE("%s; lowlat adds no cap of its own (stack_limiters: false)",
		                 dev->engine_limit);
		mfps = 0;
	} else {
		if (mfps && dev->engine_limits && !c->provisional)
			LOWLAT_WARN_ONCE("%s; lowlat's cap of %g fps applies as well (stack_limiters: true): "
			                 "the lower one rules",
			                 dev->engine_limit, fps);
		tell(sc, mfps, cfg->enabled && cfg->fps_base != LOWLAT_FPS_ABSOLUTE && !fps);
	}
	if (c->created)
		lowlat_live_cap(c->live, c->provisional ? 0 : mfps, cfg, level_name(sc->level));
	return mfps;
}

void lowlat_cap_created(struct lowlat_swapchain *sc, const char *timing_why)
{
	struct lowlat_swapchain_cap *c = &sc->cap;

	c->created = true;
	c->dirty = true;
	c->timing_why = timing_why ? timing_why : "unknown";
	lowlat_config_global_started();
	c->live = lowlat_live_claim(sc->extent.width, sc->extent.height);
	lowlat_live_cap(c->live, 0, &sc->config, level_name(sc->level));
}

void lowlat_cap_present(struct lowlat_swapchain *sc, int64_t t_ns)
{
	lowlat_live_present(sc->cap.live, t_ns);
}

void lowlat_cap_destroyed(struct lowlat_swapchain *sc)
{
	lowlat_live_release(sc->cap.live);
	sc->cap.live = NULL;
}

/* Timed-out waits in a row after which a swapchain's latency cap is turned off: a display that
 * reports nothing any more would otherwise cost every frame the whole timeout. */
#define LATENCY_TIMEOUTS_MAX 8

void lowlat_swapchain_cap_timed_out(struct lowlat_swapchain *sc, uint32_t k, const char *within)
{
	sc->latency_timeouts++;
	if (++sc->latency_timeouts_in_row == LATENCY_TIMEOUTS_MAX) {
		sc->latency_off = true;
		LOWLAT_WARN_LIMITED("swapchain %ux%u: %d waits in a row for the display to report a frame "
		                    "shown timed out; max_latency_frames is off for this swapchain",
		                    sc->extent.width, sc->extent.height, LATENCY_TIMEOUTS_MAX);
	}
	LOWLAT_WARN_ONCE("swapchain %ux%u: frame %" PRIu64 " was not reported shown within %s; released "
	                 "the app anyway (max_latency_frames %u; counted in the swapchain's summary)",
	                 sc->extent.width, sc->extent.height, sc->presents, within, k);
}
