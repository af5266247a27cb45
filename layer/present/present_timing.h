/* present_timing.h — lowlat's use of VK_EXT_present_timing: enabling it behind the app's back,
 * swapchains created for it, and the display's feedback read back at each present.
 *
 * Built only against headers that define VK_EXT_present_timing; with older ones (Debian 12's
 * 1.3.239) every function below is a static-inline stub that says "not available", so callers carry
 * no #ifdef and such a build paces on the CPU clock ("cpu") as before.
 */
#ifndef LOWLAT_PRESENT_TIMING_H
#define LOWLAT_PRESENT_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "brain/timing.h"
#include "create_info.h"
#include "present_timing_state.h"

struct lowlat_instance;
struct lowlat_device;
struct lowlat_swapchain;

/* Device creation: VK_EXT_present_timing, its dependencies and its feature struct added to the
 * copy of the app's VkDeviceCreateInfo (create_info.h), when the device offers them and the app
 * does not use present timing itself. enable says whether they were added; reason says why not. */
struct lowlat_device_setup {
	bool enable, app_timing;
	bool absolute, relative; /* the target kinds enabled (presentAt{Absolute,Relative}Time) */
	bool calibrate_khr;      /* VK_KHR_calibrated_timestamps enabled, else the EXT one */
	const char *reason;
};

/* Swapchain creation: a copy of the app's create info with the present-timing flag, when the
 * surface supports it on a device with present timing enabled by lowlat. */
struct lowlat_swapchain_setup {
	VkSwapchainCreateInfoKHR info;
	bool timing;
	const char *reason;
	uint32_t stage_queries;  /* the stages the surface reports */
	bool absolute, relative; /* the target kinds the device and the surface take */
};

struct lowlat_frame;
struct lowlat_present_call;

/* A present mode as the brain tells them apart. Compared, not switched on: with older headers
 * FIFO_LATEST_READY is not a member of the enum (vk_compat.h), and clang's -Wswitch says so. */
static inline enum lowlat_tb_mode lowlat_timing_mode(VkPresentModeKHR mode)
{
	if (mode == VK_PRESENT_MODE_FIFO_KHR)
		return LOWLAT_TB_FIFO;
	if (mode == VK_PRESENT_MODE_FIFO_RELAXED_KHR)
		return LOWLAT_TB_FIFO_RELAXED;
	if (mode == VK_PRESENT_MODE_FIFO_LATEST_READY_KHR)
		return LOWLAT_TB_FIFO_LATEST_READY;
	return LOWLAT_TB_OTHER;
}

/* The "timing" level's target for this present (level_timing.c): the one it planned at the
 * previous present, moved where the display's reports say, LOWLAT_LOG_UNKNOWN when it has none. */
int64_t lowlat_timing_target(struct lowlat_frame *f, int64_t now_ns);

/* Keeps on the created device what its setup enabled (or why not), with or without the extension's
 * headers. */
void lowlat_timing_device_created(struct lowlat_device *dev, const struct lowlat_device_setup *s);

#ifdef VK_EXT_present_timing

void lowlat_timing_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                struct lowlat_device_info *d, struct lowlat_device_setup *s);

void lowlat_timing_swapchain_setup(struct lowlat_device *dev, const VkSwapchainCreateInfoKHR *app,
                                   struct lowlat_swapchain_setup *s);

/* After the driver created the swapchain with the flag: sizes the results queue, chooses the time
 * domain and calibrates its stage clocks, tries the refresh duration. Sets sc->timing.active, or
 * leaves it false and returns why. */
const char *lowlat_timing_swapchain_init(struct lowlat_swapchain *sc,
                                         const struct lowlat_swapchain_setup *setup);

/* At the swapchain's end, whether its init ran or not. */
void lowlat_timing_swapchain_fini(struct lowlat_swapchain *sc);

/* At each present, inside the app's call (the swapchain is externally synchronised there): reads
 * the refresh duration if not known yet or changed, and drains the display's results, feeding the
 * ready-time prediction, the grid's phase and the log. */
void lowlat_timing_update(struct lowlat_swapchain *sc);

/* The latency-frames cap, inside the app's present call: polls the display's results (as
 * lowlat_timing_update) until at most `unshown` of the swapchain's presents with stage queries are
 * still to be reported (each report comes once its first pixel is out, or it was dropped), or
 * until deadline_ns. Returns whether it got there; false also when nothing can be waited for. */
bool lowlat_timing_wait_shown(struct lowlat_swapchain *sc, uint32_t unshown, int64_t deadline_ns);

/* On a present's entry: whether the app chains its own VkPresentTimingsInfoEXT, and with targets. */
void lowlat_timing_app_chain(struct lowlat_present_call *call);

/* The hand-down of a call whose every swapchain has present timing (and the app chains none of its
 * own): each present carries its target (lowlat_timing_target) and asks for stage times, and is
 * noted among its swapchain's pending presents. Sets call->timed, call->result and the app's
 * pResults; false (nothing presented) when the call cannot carry timing info. */
bool lowlat_timing_present(struct lowlat_present_call *call, int64_t now_ns);

/* After the present's log row (LOWLAT_LOG_UNKNOWN: not logged): its reports that came inside the
 * call go into that row, the pending present gets it for those to come. */
void lowlat_timing_logged(struct lowlat_swapchain *sc, int64_t row);

/* timing_reports.c: a present that asked for stage times (queries), noted among the swapchain's
 * pending presents, whose reports come back in that order. */
void lowlat_timing_push(struct lowlat_frame *f, uint32_t queries);

/* The app's results the driver's queue holds for it: those kept for it unread, and its presents
 * still pending that asked for stage times. */
uint32_t lowlat_timing_app_outstanding(struct lowlat_swapchain_timing *t);

/* The refresh the driver reports now; false while it cannot tell (or tells something lowlat
 * cannot pace on: the swapchain then gives its display timing up). */
bool lowlat_timing_properties(struct lowlat_swapchain *sc);

/* The stage clocks' offsets against CLOCK_MONOTONIC again; false when they cannot be read. */
bool lowlat_timing_calibrate(struct lowlat_swapchain *sc);

/* The swapchain stops using present timing (its reports, its clocks or its refresh cannot be
 * trusted) and is paced on the CPU clock from its next present: one line saying why. */
void lowlat_timing_give_up(struct lowlat_swapchain *sc, const char *why_fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* The pacing level's line: "absolute targets, present-stage clocks calibrated", in buf. */
const char *lowlat_timing_describe(const struct lowlat_swapchain *sc, char *buf, size_t size);

#else

static inline void lowlat_timing_app_chain(struct lowlat_present_call *call)
{
	(void)call;
}
static inline bool lowlat_timing_present(struct lowlat_present_call *call, int64_t now_ns)
{
	(void)call;
	(void)now_ns;
	return false;
}
static inline void lowlat_timing_logged(struct lowlat_swapchain *sc, int64_t row)
{
	(void)sc;
	(void)row;
}
static inline void lowlat_timing_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                              struct lowlat_device_info *d, struct lowlat_device_setup *s)
{
	(void)inst;
	(void)physical;
	(void)d;
	*s = (struct lowlat_device_setup){.reason = "lowlat was built without VK_EXT_present_timing headers"};
}
static inline void lowlat_timing_swapchain_setup(struct lowlat_device *dev,
                                                 const VkSwapchainCreateInfoKHR *app,
                                                 struct lowlat_swapchain_setup *s)
{
	(void)dev;
	*s = (struct lowlat_swapchain_setup){
	        .info = *app, .reason = "lowlat was built without VK_EXT_present_timing headers"};
}
static inline const char *lowlat_timing_swapchain_init(struct lowlat_swapchain *sc,
                                                       const struct lowlat_swapchain_setup *setup)
{
	(void)sc;
	(void)setup;
	return "lowlat was built without VK_EXT_present_timing headers";
}
static inline void lowlat_timing_swapchain_fini(struct lowlat_swapchain *sc)
{
	(void)sc;
}
static inline void lowlat_timing_update(struct lowlat_swapchain *sc)
{
	(void)sc;
}
static inline bool lowlat_timing_wait_shown(struct lowlat_swapchain *sc, uint32_t unshown,
                                            int64_t deadline_ns)
{
	(void)sc;
	(void)unshown;
	(void)deadline_ns;
	return false;
}
static inline const char *lowlat_timing_describe(const struct lowlat_swapchain *sc, char *buf, size_t size)
{
	(void)sc;
	(void)buf;
	(void)size;
	return "";
}

#endif

#endif
