/* wait_point.c — the app's game-thread calls as lowlat's wait point; see wait_point.h. */
#include "wait_point.h"

#include <inttypes.h>
#include <stdio.h>

#include "clock.h"
#include "latency_book.h"
#include "latency_device.h"
#include "log.h"
#include "message.h"
#include "objects.h"
#include "swapchain.h"

void lowlat_point_swapchain_init(struct lowlat_swapchain *sc)
{
	sc->latency = (struct lowlat_swapchain_latency){0};
	lowlat_pacer_init(&sc->latency.app_pacer);
	sc->latency.wait_begin_ns = sc->latency.wait_end_ns = sc->latency.target_ns = LOWLAT_LOG_UNKNOWN;
}

void lowlat_point_wait_ended_locked(struct lowlat_swapchain *sc, int64_t end_ns)
{
	sc->latency.wait_end_ns = end_ns;
	if (sc->latency.claim_ordinal)
		lowlat_display_claims_ended(&sc->latency.claims, sc->latency.claim_ordinal, end_ns);
}

/* Whether the device has a wait point of the app's at all: the latency lock is in use then. */
static bool points(const struct lowlat_device *dev)
{
	return dev->latency.mode != LOWLAT_LATENCY_OFF || dev->latency.anti_lag;
}

static const char *point_name(enum lowlat_wait_point point)
{
	return point == LOWLAT_POINT_ANTI_LAG ? "anti-lag" : "latency-sleep";
}

bool lowlat_point_owns_wait(struct lowlat_device *dev, struct lowlat_swapchain *sc)
{
	bool owns;

	if (!points(dev))
		return false;
	pthread_mutex_lock(&dev->latency.lock);
	struct lowlat_swapchain_latency *sl = &sc->latency;
	/* The busiest swapchain is the one anti-lag's input calls pace (they name none): a
	 * replacement takes over once the old one is gone, a second window once it presents more. */
	if (dev->latency.anti_lag && dev->latency.anti_lag_swapchain != (uint64_t)sc->handle) {
		struct lowlat_swapchain *cur =
		        lowlat_swapchain_of(dev, (VkSwapchainKHR)dev->latency.anti_lag_swapchain);
		if (!cur || cur->latency.point_presents <= sl->point_presents)
			dev->latency.anti_lag_swapchain = (uint64_t)sc->handle;
	}
	sl->point_presents++;
	owns = sl->point != LOWLAT_POINT_PRESENT && sl->presents_since_sleep < LOWLAT_SLEEPLESS_PRESENTS;
	if (sl->point != LOWLAT_POINT_PRESENT && ++sl->presents_since_sleep == LOWLAT_SLEEPLESS_PRESENTS) {
		/* Said again at the next sleep. */
		enum lowlat_wait_point was = sl->point;
		sl->announced = false;
		sl->point = LOWLAT_POINT_PRESENT;
		pthread_mutex_unlock(&dev->latency.lock);
		LOWLAT_INFO_LIMITED("swapchain %ux%u: wait point \"present\" again (no %s for %u presents)",
		                    sc->extent.width, sc->extent.height,
		                    was == LOWLAT_POINT_ANTI_LAG ? "anti-lag input call" : "latency sleep",
		                    LOWLAT_SLEEPLESS_PRESENTS);
		return owns;
	}
	pthread_mutex_unlock(&dev->latency.lock);
	return owns;
}

bool lowlat_point_take_wait(struct lowlat_device *dev, struct lowlat_swapchain *sc, int64_t *begin_ns,
                            int64_t *end_ns, int64_t *target_ns)
{
	bool have;

	if (!points(dev))
		return false;
	pthread_mutex_lock(&dev->latency.lock);
	have = sc->latency.have_wait;
	*begin_ns = sc->latency.wait_begin_ns;
	*end_ns = sc->latency.wait_end_ns;
	*target_ns = sc->latency.target_ns;
	sc->latency.have_wait = false;
	pthread_mutex_unlock(&dev->latency.lock);
	return have;
}

void lowlat_point_plan(struct lowlat_device *dev, struct lowlat_swapchain *sc, int64_t release_ns,
                       int64_t after_ns)
{
	if (!points(dev))
		return;
	pthread_mutex_lock(&dev->latency.lock);
	lowlat_display_claims_plan(&sc->latency.claims, release_ns, after_ns);
	pthread_mutex_unlock(&dev->latency.lock);
}

bool lowlat_point_frame_start(struct lowlat_device *dev, struct lowlat_swapchain *sc, int64_t *start_ns)
{
	bool display;

	*start_ns = LOWLAT_LOG_UNKNOWN;
	if (!points(dev))
		return false;
	pthread_mutex_lock(&dev->latency.lock);
	struct lowlat_swapchain_latency *sl = &sc->latency;
	display = sl->claims.on && sl->point != LOWLAT_POINT_PRESENT;
	if (display) {
		int64_t start = lowlat_display_claims_present(&sl->claims);
		if (start)
			*start_ns = start;
	}
	pthread_mutex_unlock(&dev->latency.lock);
	return display;
}

void lowlat_point_pacer_lock(struct lowlat_device *dev)
{
	if (points(dev))
		pthread_mutex_lock(&dev->latency.lock);
}

void lowlat_point_pacer_unlock(struct lowlat_device *dev)
{
	if (points(dev))
		pthread_mutex_unlock(&dev->latency.lock);
}

void lowlat_point_summary(struct lowlat_device *dev, const struct lowlat_swapchain *sc, char *dst,
                          size_t size)
{
	dst[0] = '\0';
	if (!points(dev))
		return;
	pthread_mutex_lock(&dev->latency.lock);
	/* The latest point it slept at; the counts are all its sleeps'. */
	if (sc->latency.sleeps)
		snprintf(dst, size, "; wait point \"%s\": %" PRIu64 " sleeps, %" PRIu64 " paced",
		         point_name(sc->latency.last_point), sc->latency.sleeps, sc->latency.paced_sleeps);
	pthread_mutex_unlock(&dev->latency.lock);
}

/* The thread's own sleeper (adaptive tail state) for latency waits: each game thread that waits gets
 * one, so threads never share one and a swapchain going away takes nothing with it. */
static _Thread_local struct lowlat_sleeper thread_sleeper;
static _Thread_local bool thread_sleeper_ready;

void lowlat_point_sleep_until(int64_t deadline_ns, int64_t tolerance_ns)
{
	if (!thread_sleeper_ready) {
		lowlat_sleeper_init(&thread_sleeper);
		thread_sleeper_ready = true;
	}
	lowlat_sleep_until_ns(&thread_sleeper, deadline_ns, tolerance_ns);
}

int64_t lowlat_point_sleep_locked(struct lowlat_swapchain *sc, enum lowlat_wait_point point, bool app_here,
                                  int64_t now, bool *paced, int64_t *tolerance_ns,
                                  struct lowlat_point_say *say)
{
	struct lowlat_swapchain_latency *sl = &sc->latency;
	bool stack = sl->stack_limiters, own, app;

	lowlat_latency_grids(sc->pacer.mfps, sl->app_pacer.mfps, stack, &own, &app);
	app = app && app_here;
	/* Each grid advances only when it has a say (a pacer's deadline is its next frame). On the
	 * display grid lowlat's release is the one the presents planned for the frame this sleep
	 * starts, and the pacer is the present's (display_release's time grid) alone. */
	bool display = own && sl->claims.on;
	sl->claim_ordinal = 0;
	int64_t own_ns = display ? lowlat_display_claims_take(&sl->claims, &sl->claim_ordinal)
	                 : own   ? lowlat_pacer_next_deadline(&sc->pacer, now)
	                         : now;
	int64_t app_ns = app ? lowlat_pacer_next_deadline(&sl->app_pacer, now) : now;
	int64_t release = lowlat_latency_release_ns(own, own_ns, app, app_ns, true, now, paced);
	/* A display target's release has the wake-up error in its lead; the app's grid is a CPU one. */
	*tolerance_ns = display && !(app && app_ns > own_ns) ? LOWLAT_WAIT_COVERED : LOWLAT_WAIT_PRECISE;
	/* Where a recreated swapchain, or this one's present when it stops sleeping, continues. */
	lowlat_swapchain_released(sc, release, display);
	say->announce = !sl->announced || sl->point != point;
	sl->announced = true;
	sl->point = sl->last_point = point;
	sl->presents_since_sleep = 0;
	say->app_told = sc->pacer.mfps && sl->app_pacer.mfps && !stack && !sl->app_paces_told;
	say->app_rules = say->app_told && !own;
	sl->app_paces_told = sl->app_paces_told || say->app_told;
	sl->sleeps++;
	sl->paced_sleeps += *paced;
	sl->have_wait = true;
	sl->wait_begin_ns = now;
	sl->target_ns = *paced ? release : LOWLAT_LOG_UNKNOWN;
	sl->wait_end_ns = LOWLAT_LOG_UNKNOWN;
	say->width = sc->extent.width;
	say->height = sc->extent.height;
	return release;
}

void lowlat_point_say(enum lowlat_wait_point point, const struct lowlat_point_say *say, const char *how,
                      const char *app_cap)
{
	if (say->announce)
		LOWLAT_INFO_LIMITED("swapchain %ux%u: wait point \"%s\" (%s); its presents no longer wait",
		                    say->width, say->height, point_name(point), how);
	if (say->app_told)
		LOWLAT_WARN_LIMITED(
		        "swapchain %ux%u: the app limits its own frame rate (%s); %s (stack_limiters: false)",
		        say->width, say->height, app_cap,
		        say->app_rules ? "lowlat adds no cap of its own"
		                       : "lowlat's lower cap is the one limiter, on lowlat's grid");
}

void lowlat_point_woke(struct lowlat_device *dev, VkSwapchainKHR swapchain, int64_t end_ns)
{
	pthread_mutex_lock(&dev->latency.lock);
	struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, swapchain);
	if (sc)
		lowlat_point_wait_ended_locked(sc, end_ns);
	pthread_mutex_unlock(&dev->latency.lock);
}
