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
#include "present_clock.h"

struct lowlat_instance;
struct lowlat_device;
struct lowlat_swapchain;

/* A present whose display feedback (VK_EXT_present_timing stage times) is still to come. */
struct lowlat_pending_present {
	struct lowlat_tb_frame frame; /* as the brain knows it (brain/timing.h) */
	int64_t log_frame;            /* its row in the present log, LOWLAT_LOG_UNKNOWN when not logged */
	/* Pushed by the present call still in progress, whose log row is not written yet (the
	 * latency-frames cap can read its report inside that call). */
	bool current;
	/* The stages the app asked for itself, whose times it reads back through lowlat
	 * (lowlat_GetPastPresentationTimingEXT); foreign: the present went down with the app's own
	 * timing info (its target or its time domain), its report is the app's alone. */
	uint32_t app_queries;
	bool foreign;
};

/* A report kept for the app, as the driver gave it (its time domain, the app's stages only): the
 * app's vkGetPastPresentationTimingEXT takes them off in present order. */
struct lowlat_app_report {
	uint64_t present_id, target_time, domain_id;
	int32_t domain; /* VkTimeDomainKHR */
	uint32_t count;
	struct {
		uint32_t stage; /* VkPresentStageFlagBitsEXT */
		uint64_t time;
	} stage[4];
};

/* Pending presents per swapchain; also the size of the driver's timing results queue we ask for.
 * Results come back a few frames after the present (FIFO: the queue depth plus one refresh), and
 * they are drained at every present, so 64 is more than a swapchain can have outstanding. */
#define LOWLAT_TIMING_QUEUE_SIZE 64u
/* An app that asks for stage times itself sizes its own queue on top (vkd3d-proton: 16), up to this
 * many; lowlat keeps it as the driver would: at its size, the app's next present asking for stage
 * times is refused with VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT. */
#define LOWLAT_APP_QUEUE_MAX 64u
/* Pending presents: lowlat's own and the app's. */
#define LOWLAT_PENDING_MAX (LOWLAT_TIMING_QUEUE_SIZE + LOWLAT_APP_QUEUE_MAX)

/* A swapchain's present-timing state: what its reports said, and the "timing" level's plan
 * (level_timing.c). Used only inside the app's calls on the swapchain, which Vulkan requires to be
 * externally synchronised. */
struct lowlat_swapchain_timing {
	/* Created with VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT, a time domain chosen and its clocks
	 * calibrated: its presents may carry timing info. */
	bool active;
	VkTimeDomainEXT domain; /* the EXT spelling: Debian 12's headers predate the KHR one */
	uint64_t domain_id, domains_counter;
	struct lowlat_stage_clocks clocks;
	/* The stages it asks for, and the one that gives the grid's phase, whose clock its absolute
	 * targets are on. */
	uint32_t stage_queries, phase_stage;
	/* The level's plan: targets, the release lead, the grid's phase, all the reports taught. */
	struct lowlat_timing_brain brain;
	/* Why the reported refresh cannot be paced on, "" while it can. */
	char unusable[96];
	/* When the latest complete report came: reports that stop (a results slot a failed present
	 * keeps, in Mesa) are noticed from it. */
	int64_t report_ns;
	/* The app's own reports (an app that enabled present timing itself), and the counters the
	 * driver's latest answer carried, which the app's answers carry too. */
	struct lowlat_app_report app_reports[LOWLAT_APP_QUEUE_MAX];
	uint32_t app_first, app_count;
	uint32_t app_queue_size; /* the size the app set (0 until it does, as for the driver) */
	uint64_t reported_properties_counter, reported_domains_counter;
	/* properties_counter tells when the driver's refresh changed. */
	uint64_t properties_counter;
	/* The early method's ready-time samples start at the hand-off, the end of its wait before the
	 * present goes down (what its lead must cover); LOWLAT_LOG_UNKNOWN: at the frame's start. */
	int64_t sample_start_ns;
	struct lowlat_pending_present pending[LOWLAT_PENDING_MAX];
	uint32_t pending_first, pending_count;
	bool pushed; /* this call added a pending present, whose log frame is still to set */
	/* The stage times of this call's own present when its report came inside the call (the
	 * latency-frames cap), kept for its log row: stage is an enum lowlat_log_stage. */
	bool current_taken;
	uint32_t early_count;
	struct {
		int stage;
		int64_t time_ns;
	} early[4];
};

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
