/* wait_point.h — the app's game thread as lowlat's wait point: its VK_NV_low_latency2 sleep
 * (latency_sleep.c) or its anti-lag input call (anti_lag.c).
 *
 * DXVK and vkd3d-proton sleep on the game thread, the one thread whose wait moves input sampling
 * later, while vkQueuePresentKHR runs on their submit thread, where a wait reaches the game only
 * frames later. So where the app sleeps that way, lowlat releases it there and the swapchain's
 * presents no longer wait. This file keeps that wait point: which swapchain's releases it takes,
 * the releases the presents plan for it on a display grid (pace_display.h's claims), the sleep on
 * the calling thread, the log's record of it and its lines. It needs no extension headers: the
 * extensions' own commands are in latency_sleep.c and anti_lag.c.
 *
 * Lock: the device's latency lock (latency_sleep.h) guards every swapchain's state below.
 */
#ifndef LOWLAT_WAIT_POINT_H
#define LOWLAT_WAIT_POINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "wait_point_state.h"

struct lowlat_device;
struct lowlat_swapchain;

void lowlat_point_swapchain_init(struct lowlat_swapchain *sc);

/* At present, for each swapchain of the call: true when its wait point is the app's sleep (the
 * present then does not wait for it); then the latest sleep's wait for the log, if any. */
bool lowlat_point_owns_wait(struct lowlat_device *dev, struct lowlat_swapchain *sc);
bool lowlat_point_take_wait(struct lowlat_device *dev, struct lowlat_swapchain *sc, int64_t *begin_ns,
                            int64_t *end_ns, int64_t *target_ns);
/* At present, for a swapchain whose wait point is the sleep: its sleeps' releases on the display
 * grid, a lead before the next present's target and before the one after (0, 0: on lowlat's CPU
 * grid, the pacer's). */
void lowlat_point_plan(struct lowlat_device *dev, struct lowlat_swapchain *sc, int64_t release_ns,
                       int64_t after_ns);
/* At present, on entry: true when the swapchain's sleeps take display releases; *start_ns is then
 * the end of the latest sleep, once (the start of the frame now presented), LOWLAT_LOG_UNKNOWN when
 * no sleep is left to take. */
bool lowlat_point_frame_start(struct lowlat_device *dev, struct lowlat_swapchain *sc, int64_t *start_ns);
/* Lock around the pacer of a swapchain whose device has a wait point of this kind (the levels'
 * plans, the CPU grid): the game thread's sleep and the submit thread's present may then both use
 * it. */
void lowlat_point_pacer_lock(struct lowlat_device *dev);
void lowlat_point_pacer_unlock(struct lowlat_device *dev);
/* One sleep of the app at wait point `point` for sc, the device's latency lock held: the release on
 * lowlat's grid (and on the app's own, app_cap_mfps, where app_here: lowlat keeps the app's cap
 * itself; else the layer below does), the wait recorded for the log, the point made sc's. *paced:
 * a limiter set the release; *tolerance_ns: the sleep's tolerance (clock.h), LOWLAT_WAIT_COVERED
 * where the release is a display target's, whose lead covers a plain sleep's error; *say: the
 * lines to print once the lock is released (lowlat_point_say). */
struct lowlat_point_say {
	bool announce, app_told, app_rules;
	uint32_t width, height; /* the swapchain's, copied under the lock */
};
int64_t lowlat_point_sleep_locked(struct lowlat_swapchain *sc, enum lowlat_wait_point point, bool app_here,
                                  int64_t now_ns, bool *paced, int64_t *tolerance_ns,
                                  struct lowlat_point_say *say);
/* how: the words after the point's name in its line; app_cap: the app's own cap in words. */
void lowlat_point_say(enum lowlat_wait_point point, const struct lowlat_point_say *say, const char *how,
                      const char *app_cap);
/* A wait point's sleep, on the app's calling thread (its game thread, or the thread that
 * waits for its presents), with that thread's own sleeper: threads never share one; tolerance_ns
 * as lowlat_sleep_until_ns's (clock.h). */
void lowlat_point_sleep_until(int64_t deadline_ns, int64_t tolerance_ns);
/* The latest sleep's end, for the log, once the precise sleep returned (looked up again: the app may
 * have destroyed the swapchain meanwhile where its call named none). */
void lowlat_point_woke(struct lowlat_device *dev, VkSwapchainKHR swapchain, int64_t end_ns);

/* The summary line's words about the wait point, "" when the swapchain never slept. */
void lowlat_point_summary(struct lowlat_device *dev, const struct lowlat_swapchain *sc, char *dst,
                          size_t size);

/* The swapchain's latest sleep ended (the lock held): for its log record, and on the display grid
 * as the start of the frame it released. */
void lowlat_point_wait_ended_locked(struct lowlat_swapchain *sc, int64_t end_ns);

#endif
