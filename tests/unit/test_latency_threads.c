/* test_latency_threads.c — lowlat's emulated VK_NV_low_latency2 (layer/wait/latency_sleep.c) against a
 * fake driver, with real threads, for ThreadSanitizer (`tests/run --sanitize=thread
 * latency-threads`) as much as for the plain build.
 *
 * The fake driver has one timeline semaphore, a counter under a mutex, and counts every host
 * signal that does not raise it (a value signalled twice, or a lower one: invalid in Vulkan). The
 * hooks come from lowlat_latency_device_hook as the loader would get them. Cases: the game thread
 * waits for each value (the precise wait on it); it only polls (the signaler thread signals); it
 * alternates at random between the two with the cap off, so the waiter, the sleeping call and the
 * signaler thread race for the same values; a swapchain destroyed with a sleep outstanding (its
 * signal is sent at once); and a driver that has the extension (lowlat's cap waited before its
 * sleep, the app's interval left to it). Each must end with every value signalled exactly once, upwards.
 * Then VK_AMD_anti_lag (layer/wait/anti_lag.c) against a fake layer below: the input-stage call waited
 * for lowlat's cap before the call down while another thread presents, the app's lower maxFPS left
 * to the layer below, PRESENT-stage calls passed straight down, mode OFF handing the wait back.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "anti_lag.h"
#include "check.h"
#include "clock.h"
#include "latency_sleep.h"
#include "objects.h"
#include "swapchain.h"

/* ---- the fake driver ---- */

static pthread_mutex_t sem_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sem_cond = PTHREAD_COND_INITIALIZER;
static uint64_t sem_value;
static int bad_signals; /* signals that did not raise the counter */
static int signals;

static VKAPI_ATTR VkResult VKAPI_CALL fake_signal(VkDevice device, const VkSemaphoreSignalInfo *info)
{
	(void)device;
	pthread_mutex_lock(&sem_lock);
	if (info->value <= sem_value)
		bad_signals++;
	else
		sem_value = info->value;
	signals++;
	pthread_cond_broadcast(&sem_cond);
	pthread_mutex_unlock(&sem_lock);
	return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL fake_counter(VkDevice device, VkSemaphore semaphore, uint64_t *value)
{
	(void)device;
	(void)semaphore;
	pthread_mutex_lock(&sem_lock);
	*value = sem_value;
	pthread_mutex_unlock(&sem_lock);
	return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL fake_wait(VkDevice device, const VkSemaphoreWaitInfo *info,
                                                uint64_t timeout)
{
	/* sem_cond waits on CLOCK_REALTIME (its default). */
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t until = (int64_t)now.tv_sec * 1000000000ll + now.tv_nsec +
	                (timeout > 5000000000ull ? 5000000000ll : (int64_t)timeout);
	struct timespec ts = {.tv_sec = until / 1000000000ll, .tv_nsec = until % 1000000000ll};
	VkResult r = VK_SUCCESS;

	(void)device;
	pthread_mutex_lock(&sem_lock);
	while (sem_value < info->pValues[0] && r == VK_SUCCESS)
		if (pthread_cond_timedwait(&sem_cond, &sem_lock, &ts))
			r = sem_value < info->pValues[0] ? VK_TIMEOUT : VK_SUCCESS;
	pthread_mutex_unlock(&sem_lock);
	return r;
}

/* A driver with the extension itself (native mode): its sleep signals at once, and notes when it
 * was called and the interval it was given. */
static int64_t native_calls_ns[64];
static int native_calls;
static uint32_t native_interval_us = UINT32_MAX;

static VKAPI_ATTR VkResult VKAPI_CALL fake_sleep_nv(VkDevice device, VkSwapchainKHR swapchain,
                                                    const VkLatencySleepInfoNV *info)
{
	(void)swapchain;
	if (native_calls < 64)
		native_calls_ns[native_calls++] = lowlat_now_ns();
	return fake_signal(device, &(VkSemaphoreSignalInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
	                                                    .semaphore = info->signalSemaphore,
	                                                    .value = info->value});
}

static VKAPI_ATTR VkResult VKAPI_CALL fake_sleep_mode_nv(VkDevice device, VkSwapchainKHR swapchain,
                                                         const VkLatencySleepModeInfoNV *info)
{
	(void)device;
	(void)swapchain;
	native_interval_us = info->minimumIntervalUs;
	return VK_SUCCESS;
}

/* A native driver has every command of the extension; these three do nothing here. */
static VKAPI_ATTR void VKAPI_CALL fake_marker_nv(VkDevice device, VkSwapchainKHR swapchain,
                                                 const VkSetLatencyMarkerInfoNV *info)
{
	(void)device;
	(void)swapchain;
	(void)info;
}

static VKAPI_ATTR void VKAPI_CALL fake_timings_nv(VkDevice device, VkSwapchainKHR swapchain,
                                                  VkGetLatencyMarkerInfoNV *info)
{
	(void)device;
	(void)swapchain;
	info->timingCount = 0;
}

static VKAPI_ATTR void VKAPI_CALL fake_out_of_band_nv(VkQueue queue, const VkOutOfBandQueueTypeInfoNV *info)
{
	(void)queue;
	(void)info;
}

/* A dispatchable handle: its first word is the dispatch key lowlat looks it up by. */
static void *device_key[1] = {&device_key};
static struct lowlat_device dev;
static struct lowlat_swapchain *sc;
static const VkSemaphore semaphore = (VkSemaphore)(uintptr_t)0x5e;

static PFN_vkLatencySleepNV sleep_nv;
static PFN_vkWaitSemaphores wait_hook;

static PFN_vkSetLatencySleepModeNV sleep_mode_nv;

static void setup_mode(uint32_t mfps, enum lowlat_latency_mode mode)
{
	dev = (struct lowlat_device){.handle = (VkDevice)(void *)device_key};
	dev.swapchains = (struct lowlat_map)LOWLAT_MAP_INIT;
	dev.vk.SignalSemaphore = fake_signal;
	dev.vk.WaitSemaphores = fake_wait;
	dev.vk.GetSemaphoreCounterValue = fake_counter;
	dev.vk.LatencySleepNV = fake_sleep_nv;
	dev.vk.SetLatencySleepModeNV = fake_sleep_mode_nv;
	dev.vk.SetLatencyMarkerNV = fake_marker_nv;
	dev.vk.GetLatencyTimingsNV = fake_timings_nv;
	dev.vk.QueueNotifyOutOfBandNV = fake_out_of_band_nv;
	lowlat_latency_device_init(&dev, mode);
	CHECK(lowlat_map_insert(&lowlat_devices, lowlat_dispatch_key(dev.handle), &dev));
	sc = calloc(1, sizeof(*sc));
	sc->handle = (VkSwapchainKHR)(uintptr_t)0x5c;
	sc->device = &dev;
	sc->extent = (VkExtent2D){64, 64};
	lowlat_pacer_init(&sc->pacer);
	lowlat_pacer_set_mfps(&sc->pacer, mfps);
	lowlat_config_defaults(&sc->config);
	/* Zeroed by calloc: no stacking, as present.c's refresh would copy from the defaults. */
	lowlat_point_swapchain_init(sc);
	CHECK(lowlat_map_insert(&dev.swapchains, (uint64_t)sc->handle, sc));
	sleep_nv = (PFN_vkLatencySleepNV)lowlat_latency_device_hook("vkLatencySleepNV", (int)mode);
	sleep_mode_nv =
	        (PFN_vkSetLatencySleepModeNV)lowlat_latency_device_hook("vkSetLatencySleepModeNV", (int)mode);
	wait_hook = (PFN_vkWaitSemaphores)lowlat_latency_device_hook("vkWaitSemaphores", (int)mode);
	/* A native device needs no help with its own waits. */
	CHECK(mode == LOWLAT_LATENCY_OFF ||
	      (sleep_nv && sleep_mode_nv && (mode == LOWLAT_LATENCY_NATIVE) == !wait_hook));
	native_calls = 0;
	native_interval_us = UINT32_MAX;
	pthread_mutex_lock(&sem_lock);
	sem_value = 0;
	bad_signals = signals = 0;
	pthread_mutex_unlock(&sem_lock);
}

static void setup(uint32_t mfps)
{
	setup_mode(mfps, LOWLAT_LATENCY_EMULATED);
}

static void teardown(void)
{
	lowlat_map_remove(&dev.swapchains, (uint64_t)sc->handle);
	lowlat_latency_swapchain_fini(&dev, sc);
	free(sc);
	lowlat_map_remove(&lowlat_devices, lowlat_dispatch_key(dev.handle));
	lowlat_latency_device_fini(&dev);
	lowlat_map_fini(&dev.swapchains);
}

static void sleep_once(uint64_t value)
{
	const VkLatencySleepInfoNV info = {.sType = VK_STRUCTURE_TYPE_LATENCY_SLEEP_INFO_NV,
	                                   .signalSemaphore = semaphore,
	                                   .value = value};
	CHECK(sleep_nv(dev.handle, sc->handle, &info) == VK_SUCCESS);
}

static bool wait_once(uint64_t value)
{
	const VkSemaphoreWaitInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
	                                  .semaphoreCount = 1,
	                                  .pSemaphores = &semaphore,
	                                  .pValues = &value};
	return wait_hook(dev.handle, &info, 2000000000ull) == VK_SUCCESS;
}

static bool poll_once(uint64_t value)
{
	int64_t give_up = lowlat_now_ns() + 2000000000ll;
	uint64_t v = 0;

	while (fake_counter(dev.handle, semaphore, &v) == VK_SUCCESS && v < value)
		if (lowlat_now_ns() > give_up)
			return false;
		else
			nanosleep(&(struct timespec){.tv_nsec = 100000}, NULL);
	return true;
}

#define FRAMES 40

/* At a 100 fps cap the game thread is released every 10 ms, whether it waits or polls. */
static void run_paced(bool poll)
{
	int64_t first, last = 0;

	setup(100000);
	/* From before the first sleep, where the grid is anchored: a first release that comes late
	 * (a cold thread, TSan) lets the next ones catch up on the grid, so counting from it would
	 * measure the catch-up (up to two intervals), not the cap. From the anchor it is exact. */
	first = lowlat_now_ns();
	for (uint64_t v = 1; v <= FRAMES; v++) {
		sleep_once(v);
		CHECK(poll ? poll_once(v) : wait_once(v));
		last = lowlat_now_ns();
	}
	double interval_ms = (double)(last - first) / (FRAMES - 1) * 1e-6;
	printf("     %s: %.3f ms per frame at a 100 fps cap\n", poll ? "poll" : "wait", interval_ms);
	/* Never faster than the cap; slower only by what a shared machine's stalls cost. */
	CHECK(interval_ms >= 10.0 && interval_ms < 13.0);
	teardown();
	CHECK_EQ_I64(bad_signals, 0);
	CHECK_EQ_I64(sem_value, FRAMES);
}

static void test_wait(void)
{
	run_paced(false);
}

static void test_poll(void)
{
	run_paced(true);
}

/* A second thread waits for the same values the game thread sleeps for, while the signaler thread
 * runs: every claimer races for them. */
static void *other_waiter(void *arg)
{
	(void)arg;
	for (uint64_t v = 1; v <= FRAMES * 5; v++)
		if (!wait_once(v)) {
			fprintf(stderr, "other waiter: value %" PRIu64 " not reached (counter %" PRIu64 ")\n",
			        v, sem_value);
			return (void *)1;
		}
	return NULL;
}

static void test_race(void)
{
	pthread_t other;
	unsigned seed = 1;

	setup(2000000); /* 2000 fps: releases 0.5 ms apart, so claims overlap */
	CHECK(!pthread_create(&other, NULL, other_waiter, NULL));
	for (uint64_t v = 1; v <= FRAMES * 5; v++) {
		sleep_once(v);
		CHECK(rand_r(&seed) % 2 ? wait_once(v) : poll_once(v));
	}
	void *failed;
	pthread_join(other, &failed);
	CHECK(!failed);
	teardown();
	CHECK_EQ_I64(bad_signals, 0);
	CHECK_EQ_I64(sem_value, FRAMES * 5);
}

/* The cap off: every sleep is due at once, so the sleeping call itself and the signaler thread
 * (woken by the new entry) race to send each value. Found by dxvk-wine, where a value was
 * signalled twice and lavapipe lost the device. */
static void test_due_at_once(void)
{
	setup(0);
	/* One sleep first: the signaler thread starts with it. */
	for (uint64_t v = 1; v <= 3000; v++) {
		sleep_once(v);
		if (v % 3 == 0)
			CHECK(wait_once(v));
	}
	CHECK(poll_once(3000));
	teardown();
	printf("     %d signals for 3000 values\n", signals);
	CHECK_EQ_I64(bad_signals, 0);
	CHECK_EQ_I64(sem_value, 3000);
}

/* A swapchain destroyed with a sleep a second away: its value comes at once. */
static void test_destroy(void)
{
	setup(1000); /* 1 fps */
	sleep_once(1);
	CHECK(wait_once(1)); /* the first release is at once: the grid starts there */
	sleep_once(2);
	int64_t t0 = lowlat_now_ns();
	lowlat_map_remove(&dev.swapchains, (uint64_t)sc->handle);
	lowlat_latency_swapchain_fini(&dev, sc);
	CHECK(poll_once(2));
	CHECK(lowlat_now_ns() - t0 < 100000000ll); /* well before the 1 s release */
	free(sc);
	lowlat_map_remove(&lowlat_devices, lowlat_dispatch_key(dev.handle));
	lowlat_latency_device_fini(&dev);
	lowlat_map_fini(&dev.swapchains);
	CHECK_EQ_I64(bad_signals, 0);
}

/* The driver has the extension: lowlat's cap is waited inside vkLatencySleepNV before the call
 * down (the driver's sleep is called every 10 ms at a 100 fps cap), the app's minimumIntervalUs
 * reaches the driver as it was, and with a lower cap of the app's (50 fps) lowlat adds no wait of
 * its own: the driver keeps that interval. */
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static double native_run(uint32_t interval_us)
{
	const VkLatencySleepModeInfoNV mode = {.sType = VK_STRUCTURE_TYPE_LATENCY_SLEEP_MODE_INFO_NV,
	                                       .lowLatencyMode = VK_TRUE,
	                                       .minimumIntervalUs = interval_us};
	setup_mode(100000, LOWLAT_LATENCY_NATIVE);
	CHECK(sleep_mode_nv(dev.handle, sc->handle, &mode) == VK_SUCCESS);
	CHECK_EQ_I64(native_interval_us, interval_us);
	for (uint64_t v = 1; v <= 30; v++) {
		sleep_once(v);
		const VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		                                .semaphoreCount = 1,
		                                .pSemaphores = &semaphore,
		                                .pValues = &v};
		CHECK(fake_wait(dev.handle, &wi, 1000000000ull) == VK_SUCCESS);
	}
	CHECK_EQ_I64(native_calls, 30);
	/* The median of the 29 intervals: a stall of this shared machine just before one timestamp
	 * makes one interval long and the next short, and at the first or last call it would move a
	 * mean over the whole span (9.87 ms was seen at the 100 fps cap). */
	int64_t intervals[29];
	for (int i = 0; i < 29; i++)
		intervals[i] = native_calls_ns[i + 1] - native_calls_ns[i];
	qsort(intervals, 29, sizeof(intervals[0]), cmp_i64);
	double ms = (double)intervals[14] * 1e-6;
	teardown();
	CHECK_EQ_I64(bad_signals, 0);
	return ms;
}

static void test_native(void)
{
	double capped = native_run(0), app_rules = native_run(20000);
	printf("     native: %.3f ms (median) between the driver's sleeps at lowlat's 100 fps cap, %.3f ms "
	       "under the "
	       "app's 50 fps interval (the driver's to keep)\n",
	       capped, app_rules);
	CHECK(capped > 9.9 && capped < 13.0);
	CHECK(app_rules < 2.0);
}

/* ---- VK_AMD_anti_lag ---- */

/* The layer below: notes when each call came down and what it carried. */
static int64_t below_ns[64];
static const VkAntiLagDataAMD *below_data[64];
static int below_calls;

static VKAPI_ATTR void VKAPI_CALL fake_anti_lag(VkDevice device, const VkAntiLagDataAMD *data)
{
	(void)device;
	if (below_calls < 64) {
		below_ns[below_calls] = lowlat_now_ns();
		below_data[below_calls++] = data;
	}
}

static PFN_vkAntiLagUpdateAMD anti_lag_hook;

/* The presenting thread: frames handed over by the game thread, presented (the wait-point check
 * and the log's take, as present.c makes them) while the game thread is already in its next
 * input call. */
static pthread_mutex_t frame_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t frame_cond = PTHREAD_COND_INITIALIZER;
static int handed, presented, owned;
static bool presenter_quit;

static void *presenter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&frame_lock);
	for (;;) {
		while (!presenter_quit && presented == handed)
			pthread_cond_wait(&frame_cond, &frame_lock);
		if (presented == handed)
			break;
		pthread_mutex_unlock(&frame_lock);
		bool owns = lowlat_point_owns_wait(&dev, sc);
		int64_t b, e, t;
		lowlat_point_take_wait(&dev, sc, &b, &e, &t);
		lowlat_point_pacer_lock(&dev);
		int64_t deadline = lowlat_pacer_interval_ns(&sc->pacer); /* the present path's pacer use */
		lowlat_point_pacer_unlock(&dev);
		(void)deadline;
		pthread_mutex_lock(&frame_lock);
		owned += owns;
		presented++;
		pthread_cond_broadcast(&frame_cond);
	}
	pthread_mutex_unlock(&frame_lock);
	return NULL;
}

/* FRAMES input calls (and PRESENT calls, off from frame `off_at` on, 0: never) at lowlat's 100 fps
 * cap with the app's maxFPS; returns the mean ms between the input calls that reached the layer
 * below. */
static double anti_lag_run(uint32_t max_fps, int frames, int off_at)
{
	pthread_t thread;

	setup_mode(100000, LOWLAT_LATENCY_OFF);
	dev.vk.AntiLagUpdateAMD = fake_anti_lag;
	CHECK(!lowlat_anti_lag_hook("vkAntiLagUpdateAMD", &dev)); /* not enabled: not hooked */
	lowlat_anti_lag_device_init(&dev, true);
	anti_lag_hook = (PFN_vkAntiLagUpdateAMD)lowlat_anti_lag_hook("vkAntiLagUpdateAMD", &dev);
	CHECK(anti_lag_hook && !lowlat_anti_lag_hook("vkQueuePresentKHR", &dev));
	below_calls = handed = presented = owned = 0;
	presenter_quit = false;
	CHECK(!pthread_create(&thread, NULL, presenter, NULL));
	int64_t input_ns[64];
	int inputs = 0;
	for (int k = 1; k <= frames; k++) {
		bool off = off_at && k >= off_at;
		VkAntiLagPresentationInfoAMD p = {.sType = VK_STRUCTURE_TYPE_ANTI_LAG_PRESENTATION_INFO_AMD,
		                                  .stage = VK_ANTI_LAG_STAGE_INPUT_AMD,
		                                  .frameIndex = (uint64_t)k};
		VkAntiLagDataAMD d = {.sType = VK_STRUCTURE_TYPE_ANTI_LAG_DATA_AMD,
		                      .mode = off ? VK_ANTI_LAG_MODE_OFF_AMD : VK_ANTI_LAG_MODE_ON_AMD,
		                      .maxFPS = max_fps,
		                      .pPresentationInfo = &p};
		/* One frame in flight: the previous frame's present may still be running (not after
		 * the first, which picks the swapchain to pace, nor when turning anti-lag off, so that
		 * which calls and presents were the point's is known). */
		pthread_mutex_lock(&frame_lock);
		while (presented < handed - (k == 2 || k == off_at ? 0 : 1))
			pthread_cond_wait(&frame_cond, &frame_lock);
		pthread_mutex_unlock(&frame_lock);
		int before = below_calls;
		anti_lag_hook(dev.handle, &d);
		CHECK(below_calls == before + 1 && below_data[before] == &d); /* passed down as it came */
		if (before < 64)
			input_ns[inputs++] = below_ns[before];
		/* The frame's end, before its present: straight down, never waited. */
		p.stage = VK_ANTI_LAG_STAGE_PRESENT_AMD;
		int64_t t0 = lowlat_now_ns();
		anti_lag_hook(dev.handle, &d);
		CHECK(lowlat_now_ns() - t0 < 5000000ll);
		pthread_mutex_lock(&frame_lock);
		handed++;
		pthread_cond_broadcast(&frame_cond);
		pthread_mutex_unlock(&frame_lock);
	}
	pthread_mutex_lock(&frame_lock);
	presenter_quit = true;
	pthread_cond_broadcast(&frame_cond);
	pthread_mutex_unlock(&frame_lock);
	pthread_join(thread, NULL);
	/* Every present after the first input call is the anti-lag point's, until it is turned off
	 * (the present after the first OFF waits again). */
	int expect_owned = (off_at ? off_at - 1 : frames) - 1;
	CHECK_EQ_I64(owned, expect_owned);
	CHECK_EQ_I64(sc->latency.sleeps, (off_at ? off_at - 1 : frames) - 1);
	/* The median interval between calls 1 .. last - 1: the mean over them is short by however late
	 * call 1 was (the grid holds, and a wake-up late on a loaded machine is caught up after it). */
	int last = off_at ? off_at - 1 : frames;
	int64_t intervals[64];
	int n = 0;
	for (int i = 1; i + 1 <= last - 1 && n < 64; i++)
		intervals[n++] = input_ns[i + 1] - input_ns[i];
	qsort(intervals, n, sizeof(intervals[0]), cmp_i64);
	double ms = n ? (double)intervals[n / 2] * 1e-6 : 0;
	teardown();
	return ms;
}

static void test_anti_lag(void)
{
	double capped = anti_lag_run(0, 30, 0), app_rules = anti_lag_run(50, 30, 0),
	       off = anti_lag_run(0, 30, 20);
	printf("     anti-lag: %.3f ms (median) between input calls reaching the layer below at lowlat's 100 "
	       "fps cap, "
	       "%.3f ms under the app's maxFPS 50 (the layer below's to keep), %.3f ms before OFF\n",
	       capped, app_rules, off);
	CHECK(capped > 9.9 && capped < 13.0);
	CHECK(app_rules < 2.0);
	CHECK(off > 9.9 && off < 13.0);
}

/* The sleep's tolerance: a display target's release has the wake-up error in its lead, so its
 * sleep need not spin; a release on a CPU grid (lowlat's pacer, or the app's interval ruling
 * under stack_limiters) must. */
static void test_tolerance(void)
{
	struct lowlat_point_say say;
	int64_t tolerance = -1, now = lowlat_now_ns();
	bool paced = false;

	setup(60000);
	pthread_mutex_lock(&dev.latency.lock);
	lowlat_point_sleep_locked(sc, LOWLAT_POINT_LATENCY_SLEEP, true, now, &paced, &tolerance, &say);
	CHECK(paced);
	CHECK_EQ_I64(tolerance, LOWLAT_WAIT_PRECISE);
	/* The presents planned display releases: the sleep takes the next one. */
	lowlat_display_claims_plan(&sc->latency.claims, now + 5000000, now + 21666667);
	lowlat_point_sleep_locked(sc, LOWLAT_POINT_LATENCY_SLEEP, true, now, &paced, &tolerance, &say);
	CHECK(paced);
	CHECK_EQ_I64(tolerance, LOWLAT_WAIT_COVERED);
	/* Both caps stacked, the app's 40 fps interval the later deadline: a CPU grid's release. */
	sc->latency.stack_limiters = true;
	lowlat_pacer_set_mfps(&sc->latency.app_pacer, 40000);
	lowlat_pacer_next_deadline(&sc->latency.app_pacer, now);
	int64_t release = lowlat_point_sleep_locked(sc, LOWLAT_POINT_LATENCY_SLEEP, true, now, &paced,
	                                            &tolerance, &say);
	CHECK(release > now + 21666667);
	CHECK_EQ_I64(tolerance, LOWLAT_WAIT_PRECISE);
	pthread_mutex_unlock(&dev.latency.lock);
	teardown();
}

int main(void)
{
	RUN(test_wait);
	RUN(test_poll);
	RUN(test_race);
	RUN(test_due_at_once);
	RUN(test_destroy);
	RUN(test_native);
	RUN(test_anti_lag);
	RUN(test_tolerance);
	return check_result();
}
