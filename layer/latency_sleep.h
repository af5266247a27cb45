/* latency_sleep.h — VK_NV_low_latency2 in lowlat: offered to the app when the driver lacks it, and
 * the app's latency sleep made lowlat's wait point for its swapchain.
 *
 * Why: DXVK (dxvk.latencySleep = True) and vkd3d-proton call vkLatencySleepNV on the game thread,
 * the one thread whose wait moves input sampling later; vkQueuePresentKHR runs on their submit
 * thread, where a wait reaches the game only frames later. So where the app sleeps through the
 * extension, lowlat releases it there ("latency-sleep" wait point) and its present no longer waits.
 *
 * Modes per device (struct lowlat_latency_device.mode):
 *  - emulated: the app enabled the extension, the driver lacks it (lowlat lists it only where the
 *    device has VK_KHR_present_id or present_id2, which it depends on, and not with
 *    `enabled: false`). lowlat strips it from the device
 *    create info and its structs from every call it reaches, implements every command, and signals
 *    the app's timeline semaphore itself (a host signal) at the release time. The precise wait runs
 *    on the thread that waits for that value in vkWaitSemaphores (the game thread in DXVK); a
 *    signaler thread per device sends any signal nobody waits for, so none is ever lost. Each value
 *    is sent once, by whoever claimed it in the book (latency_book.h), and in value order.
 *    Swapchains whose app sleeps this way are released on lowlat's CPU grid; their presents carry
 *    no display targets (not yet on the refresh grid).
 *  - native: the driver has it. Everything passes through; lowlat's own cap, where it applies, is
 *    waited inside the app's vkLatencySleepNV before calling down (the driver's sleep then has
 *    nothing left to wait for at lowlat's cap, and still enforces the app's minimumIntervalUs,
 *    which lowlat leaves to it). Chosen over rewriting minimumIntervalUs: the app's value stays what
 *    the driver sees, and lowlat's grid (not the driver's interval) decides the release.
 *  - off: the app did not enable it; no hook of this file is handed out (vkGetInstanceProcAddr still
 *    hands out the extension's commands, which then check their device).
 *
 * The wait point's bookkeeping (lowlat_latency_point_*: release on the grids, the log's wait, the
 * fallback to the present, the one-line notes) is shared with anti_lag.c, whose vkAntiLagUpdateAMD
 * at the input stage is a wait point of the same kind ("anti-lag").
 *
 * Built only against headers that define VK_NV_low_latency2; with older ones (Debian 12's 1.3.239)
 * the functions below are stubs and the extension is never offered.
 */
#ifndef LOWLAT_LATENCY_SLEEP_H
#define LOWLAT_LATENCY_SLEEP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "chain.h"
#include "latency_book.h"
#include "pace.h"
#include "pace_display.h"

enum lowlat_latency_mode {
	LOWLAT_LATENCY_OFF,
	LOWLAT_LATENCY_EMULATED,
	LOWLAT_LATENCY_NATIVE,
};

/* Where the app's game thread sleeps for a swapchain, lowlat's wait point there (the present's wait is
 * then skipped): vkLatencySleepNV (latency_sleep.c) or vkAntiLagUpdateAMD at its input stage
 * (anti_lag.c). */
enum lowlat_wait_point {
	LOWLAT_POINT_PRESENT, /* none of them: the present (or the app's present wait) waits */
	LOWLAT_POINT_LATENCY_SLEEP,
	LOWLAT_POINT_ANTI_LAG,
};

/* Presents without a latency sleep after which the swapchain's wait point is its present again.
 * DXVK presents once between two sleeps (it sleeps only after the previous present returned);
 * 3 leaves room for a late sleep without flipping the wait point back and forth. */
#define LOWLAT_SLEEPLESS_PRESENTS 3

/* Latency reports kept per swapchain for vkGetLatencyTimingsNV: the spec's own limit (64). */
#define LOWLAT_LATENCY_REPORTS 64

/* One frame's markers, in microseconds on CLOCK_MONOTONIC; 0 where the app set none. */
struct lowlat_latency_report {
	uint64_t present_id;
	uint64_t input_us, sim_start_us, sim_end_us, submit_start_us, submit_end_us, present_start_us,
	        present_end_us;
};

/* Per swapchain. Every field is guarded by the device's latency lock (the game thread sleeps, the
 * submit thread presents, and either may set the mode). */
struct lowlat_swapchain_latency {
	/* The app sleeps for it (vkLatencySleepNV, or vkAntiLagUpdateAMD with this swapchain the
	 * device's anti-lag one): lowlat waits there, not in present. */
	enum lowlat_wait_point point;
	enum lowlat_wait_point last_point; /* the latest it slept at, for the summary */
	/* Presents since its latest sleep: an app that stops sleeping (DXVK turns latency sleep off
	 * when the game's Reflex setting does) gets the present's wait back after a few. */
	uint32_t presents_since_sleep;
	bool announced;
	uint64_t point_presents; /* presents seen by the wait-point check: the busiest gets anti-lag's */
	bool low_latency_mode, boost;
	bool stack_limiters;           /* the swapchain's config's, copied here under the lock by present.c */
	uint32_t min_interval_us;      /* the app's minimumIntervalUs */
	struct lowlat_pacer app_pacer; /* its grid */
	bool app_paces_told;           /* the one line saying lowlat adds no cap over the app's */
	/* The latest sleep's wait, for the log record of the present that follows it. */
	bool have_wait;
	int64_t wait_begin_ns, wait_end_ns, target_ns;
	/* On the display grid (VK_EXT_present_timing; present.c plans, lowlat_latency_plan): the
	 * releases the presents planned, one taken per sleep and counted to the frame it lets start
	 * (pace_display.h); claim_ordinal: the latest sleep's claim, 0 when it took none. */
	struct lowlat_display_claims claims;
	uint64_t claim_ordinal;
	uint64_t sleeps, paced_sleeps;
	struct lowlat_latency_report reports[LOWLAT_LATENCY_REPORTS];
	uint32_t report_next, report_count;
};

/* Per device. The lock guards the book, the thread's state and every swapchain's latency state; no
 * other lock is taken while holding it, and it is never held while sleeping or calling down. */
struct lowlat_latency_device {
	enum lowlat_latency_mode mode;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* the book changed, or the thread is to stop; CLOCK_MONOTONIC */
	struct lowlat_owed_book book;
	bool thread_started, stop;
	pthread_t thread;
	/* VK_AMD_anti_lag enabled by the app and offered below (anti_lag.c), and the swapchain its
	 * input-stage calls pace: the device's busiest (its anti-lag data names none). */
	bool anti_lag;
	uint64_t anti_lag_swapchain;
	/* vkSignalSemaphore/vkWaitSemaphores/vkGetSemaphoreCounterValue below, core or KHR names. */
	PFN_vkSignalSemaphore signal;
	PFN_vkWaitSemaphores wait;
	PFN_vkGetSemaphoreCounterValue counter;
};

struct lowlat_instance;
struct lowlat_device;
struct lowlat_swapchain;

/* Device creation: a copy of the app's create info without VK_NV_low_latency2 when the driver
 * lacks it (emulated), else the app's own; mode says which. */
struct lowlat_latency_setup {
	VkDeviceCreateInfo info;
	const char **names; /* allocated for the copy, NULL otherwise */
	enum lowlat_latency_mode mode;
};

#ifdef VK_NV_low_latency2

void lowlat_latency_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                 const VkDeviceCreateInfo *app, struct lowlat_latency_setup *s);
void lowlat_latency_device_setup_fini(struct lowlat_latency_setup *s);
/* After the device was created (dispatch loaded) / before it is destroyed. */
void lowlat_latency_device_init(struct lowlat_device *dev, enum lowlat_latency_mode mode);
void lowlat_latency_device_fini(struct lowlat_device *dev);

/* Swapchain creation: the app's create info, or a copy without VkSwapchainLatencyCreateInfoNV
 * (emulated devices), in *out; storage for the copy in *copy. */
const VkSwapchainCreateInfoKHR *lowlat_latency_swapchain_info(struct lowlat_device *dev,
                                                              const VkSwapchainCreateInfoKHR *app,
                                                              VkSwapchainCreateInfoKHR *copy,
                                                              struct lowlat_chain_storage *storage);
void lowlat_latency_swapchain_init(struct lowlat_swapchain *sc);
/* Before the swapchain is destroyed: sends the signals still owed for its sleeps. */
void lowlat_latency_swapchain_fini(struct lowlat_device *dev, struct lowlat_swapchain *sc);

/* At present, for each swapchain of the call: true when its wait point is the latency sleep (the
 * present then does not wait for it); then the latest sleep's wait for the log, if any. */
bool lowlat_latency_owns_wait(struct lowlat_device *dev, struct lowlat_swapchain *sc);
bool lowlat_latency_take_wait(struct lowlat_device *dev, struct lowlat_swapchain *sc, int64_t *begin_ns,
                              int64_t *end_ns, int64_t *target_ns);
/* At present, for a swapchain whose wait point is the sleep: its sleeps' releases on the display
 * grid, a lead before the next present's target and before the one after (0, 0: on lowlat's CPU
 * grid, the pacer's). */
void lowlat_latency_plan(struct lowlat_device *dev, struct lowlat_swapchain *sc, int64_t release_ns,
                         int64_t after_ns);
/* At present, on entry: true when the swapchain's sleeps take display releases; *start_ns is then
 * the end of the latest sleep, once (the start of the frame now presented), LOWLAT_LOG_UNKNOWN when
 * no sleep is left to take. */
bool lowlat_latency_frame_start(struct lowlat_device *dev, struct lowlat_swapchain *sc, int64_t *start_ns);
/* Lock around the pacer of a swapchain whose device has the extension on (present.c's deadline):
 * the game thread's sleep and the submit thread's present may then both use it. */
void lowlat_latency_pacer_lock(struct lowlat_device *dev);
void lowlat_latency_pacer_unlock(struct lowlat_device *dev);
/* One sleep of the app at wait point `point` for sc, the device's latency lock held: the release on
 * lowlat's grid (and on the app's own, app_cap_mfps, where app_here: lowlat keeps the app's cap
 * itself; else the layer below does), the wait recorded for the log, the point made sc's. *paced:
 * a limiter set the release; *say: the lines to print once the lock is released
 * (lowlat_latency_point_say). */
struct lowlat_point_say {
	bool announce, app_told, app_rules;
	uint32_t width, height; /* the swapchain's, copied under the lock */
};
int64_t lowlat_latency_point_sleep_locked(struct lowlat_device *dev, struct lowlat_swapchain *sc,
                                          enum lowlat_wait_point point, bool app_here, int64_t now_ns,
                                          bool *paced, struct lowlat_point_say *say);
/* how: the words after the point's name in its line; app_cap: the app's own cap in words. */
void lowlat_latency_point_say(enum lowlat_wait_point point, const struct lowlat_point_say *say,
                              const char *how, const char *app_cap);
/* The point's precise sleep, on the calling thread, with that thread's own sleeper. */
void lowlat_latency_sleep_until(int64_t deadline_ns);
/* The latest sleep's end, for the log, once the precise sleep returned (looked up again: the app may
 * have destroyed the swapchain meanwhile where its call named none). */
void lowlat_latency_point_woke(struct lowlat_device *dev, VkSwapchainKHR swapchain, int64_t end_ns);

/* The summary line's words about the wait point, "" when the swapchain never slept. */
void lowlat_latency_summary(struct lowlat_device *dev, const struct lowlat_swapchain *sc, char *dst,
                            size_t size);

/* The hook for a device or instance function of the extension (or vkWaitSemaphores, vkQueueSubmit*
 * for emulated devices), NULL when the name is none of them. mode: the device's, or -1 from
 * vkGetInstanceProcAddr (every hook then checks its device). */
PFN_vkVoidFunction lowlat_latency_device_hook(const char *name, int mode);
PFN_vkVoidFunction lowlat_latency_instance_hook(const char *name);
/* Whether name is one of the extension's commands, which lowlat implements even where the driver
 * below has no such function. */
bool lowlat_latency_provides(const char *name);

#else

static inline void lowlat_latency_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                               const VkDeviceCreateInfo *app, struct lowlat_latency_setup *s)
{
	(void)inst;
	(void)physical;
	*s = (struct lowlat_latency_setup){.info = *app};
}
static inline void lowlat_latency_device_setup_fini(struct lowlat_latency_setup *s)
{
	(void)s;
}
static inline void lowlat_latency_device_init(struct lowlat_device *dev, enum lowlat_latency_mode mode)
{
	(void)dev;
	(void)mode;
}
static inline void lowlat_latency_device_fini(struct lowlat_device *dev)
{
	(void)dev;
}
static inline const VkSwapchainCreateInfoKHR *
lowlat_latency_swapchain_info(struct lowlat_device *dev, const VkSwapchainCreateInfoKHR *app,
                              VkSwapchainCreateInfoKHR *copy, struct lowlat_chain_storage *storage)
{
	(void)dev;
	(void)copy;
	(void)storage;
	return app;
}
static inline void lowlat_latency_swapchain_init(struct lowlat_swapchain *sc)
{
	(void)sc;
}
static inline void lowlat_latency_swapchain_fini(struct lowlat_device *dev, struct lowlat_swapchain *sc)
{
	(void)dev;
	(void)sc;
}
static inline bool lowlat_latency_owns_wait(struct lowlat_device *dev, struct lowlat_swapchain *sc)
{
	(void)dev;
	(void)sc;
	return false;
}
static inline bool lowlat_latency_take_wait(struct lowlat_device *dev, struct lowlat_swapchain *sc,
                                            int64_t *begin_ns, int64_t *end_ns, int64_t *target_ns)
{
	(void)dev;
	(void)sc;
	(void)begin_ns;
	(void)end_ns;
	(void)target_ns;
	return false;
}
static inline void lowlat_latency_plan(struct lowlat_device *dev, struct lowlat_swapchain *sc,
                                       int64_t release_ns, int64_t after_ns)
{
	(void)dev;
	(void)sc;
	(void)release_ns;
	(void)after_ns;
}
static inline bool lowlat_latency_frame_start(struct lowlat_device *dev, struct lowlat_swapchain *sc,
                                              int64_t *start_ns)
{
	(void)dev;
	(void)sc;
	(void)start_ns;
	return false;
}
static inline void lowlat_latency_pacer_lock(struct lowlat_device *dev)
{
	(void)dev;
}
static inline void lowlat_latency_pacer_unlock(struct lowlat_device *dev)
{
	(void)dev;
}
static inline void lowlat_latency_summary(struct lowlat_device *dev, const struct lowlat_swapchain *sc,
                                          char *dst, size_t size)
{
	(void)dev;
	(void)sc;
	if (size)
		dst[0] = '\0';
}
static inline PFN_vkVoidFunction lowlat_latency_device_hook(const char *name, int mode)
{
	(void)name;
	(void)mode;
	return NULL;
}
static inline PFN_vkVoidFunction lowlat_latency_instance_hook(const char *name)
{
	(void)name;
	return NULL;
}
static inline bool lowlat_latency_provides(const char *name)
{
	(void)name;
	return false;
}

#endif

#endif
