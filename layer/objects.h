/* objects.h — what lowlat knows about each Vulkan object it has seen, and how to find it.
 *
 * Dispatchable handles (instance, physical device, device, queue) are found by their *dispatch key*,
 * the loader's dispatch-table pointer stored in the first word of every dispatchable object: a
 * physical device shares its instance's key and a queue shares its device's, so a queue finds its
 * device without a queue map. Swapchains live in a map per device.
 *
 * Lifetime: an object is inserted after the driver created it and removed before the driver
 * destroys it. Vulkan requires the app to externally synchronise destruction with every other use
 * of the object, so a pointer returned by a lookup stays valid for the duration of the call that
 * looked it up.
 *
 * Lock order: the global instance map, then the global device map, then a device's own lock.
 * No lock is held while calling down the chain or while sleeping.
 */
#ifndef LOWLAT_OBJECTS_H
#define LOWLAT_OBJECTS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "dispatch.h"
#include "id_map.h"
#include "latency_sleep.h"
#include "lowlat_config.h"
#include "pace.h"
#include "pace_display.h"
#include "pace_wait.h"
#include "plumbing.h"
#include "present_wait.h"
#include "refresh.h"

struct lowlat_log; /* log.h */

struct lowlat_instance {
	VkInstance handle;
	struct instance_dispatch vk;
	uint32_t api_version;
	char app_name[128];
	char engine_name[64];
	/* Instance extensions present timing needs (present_timing.c): VK_KHR_get_surface_capabilities2,
	 * and vkGetPhysicalDeviceFeatures2 (Vulkan 1.1 or VK_KHR_get_physical_device_properties2), the
	 * app's or added by lowlat. */
	bool surface_caps2;
	PFN_vkGetPhysicalDeviceFeatures2 features2;
	/* DXVK or vkd3d-proton limits its own frame rate (engine.h): why, for the one line saying so. */
	bool engine_limits;
	char engine_limit[96];
	/* VK_KHR_ or VK_EXT_surface_maintenance1 as enabled (the app's or lowlat's), NULL when neither:
	 * present-mode compatibility queries, and the form a device's swapchain_maintenance1 must match. */
	const char *surface_maint1;
};

struct lowlat_device {
	VkDevice handle;
	VkPhysicalDevice physical;
	struct lowlat_instance *instance;
	struct device_dispatch vk;
	VkAllocationCallbacks allocator;
	bool has_allocator;
	/* VK_KHR_swapchain is enabled and every function the present hooks need was found. When false
	 * the device only gets pass-through pointers. */
	bool hooked;
	/* VK_EXT_present_timing: enabled by lowlat (timing), or by the app itself (app_timing: lowlat
	 * then never adds or changes target times); when neither, why not (timing_reason, a constant
	 * string, for the one line each swapchain prints about its pacing level). */
	bool timing, app_timing;
	const char *timing_reason;
	/* Present modes (present_mode.c): FIFO_LATEST_READY and swapchain_maintenance1 (per-present
	 * modes) enabled, the app's or lowlat's; mode_reason says why not FIFO_LATEST_READY,
	 * switch_reason why not swapchain_maintenance1 (constant strings). */
	bool latest_ready, maintenance1;
	const char *mode_reason, *switch_reason;
	/* VK_KHR_present_id and present_wait with their features (present_ids.c), the app's or
	 * lowlat's: the "present-wait" pacing level is possible; when not, why (a constant string). */
	bool present_wait;
	const char *present_wait_reason;
	/* The latest release of the app by any of its swapchains (CLOCK_MONOTONIC ns, 0 before one): a
	 * swapchain created to replace another (DXVK recreates without oldSwapchain) continues its
	 * grid from there instead of letting its first frame go unpaced. Written by presenting
	 * threads, hence atomic; relaxed: it is a time, not a guard for other data. */
	_Atomic int64_t last_release_ns;
	struct lowlat_map swapchains;         /* VkSwapchainKHR -> struct lowlat_swapchain */
	struct lowlat_latency_device latency; /* VK_NV_low_latency2 (latency_sleep.c) */
};

/* A present whose display feedback (VK_EXT_present_timing stage times) is still to come. */
struct lowlat_pending_present {
	int64_t log_frame;      /* its row in the present log, LOWLAT_LOG_UNKNOWN when not logged */
	int64_t frame_start_ns; /* when the app began the frame: the start of its ready-time sample */
	int64_t blocked_ns;     /* of that, the time the app spent blocked in acquiring an image */
	bool vblank_latch;      /* FIFO/FIFO_LATEST_READY: its first pixel out is a refresh start */
	bool relaxed;           /* FIFO_RELAXED: a refresh start too, unless it was late and tore */
	int64_t target_ns;      /* the display time it asked for, LOWLAT_LOG_UNKNOWN when none */
	uint64_t seq;           /* its place among the swapchain's pending presents, from 1 */
	/* Its target is a refresh of a fixed-rate display and it was presented in time for it: whether
	 * it made that refresh feeds the release margin (pace_display.h, lowlat_miss_margin). */
	bool judged;
	/* Pushed by the present call still in progress, whose log row is not written yet (the
	 * latency-frames cap can read its report inside that call). */
	bool current;
};

/* Pending presents per swapchain; also the size of the driver's timing results queue we ask for.
 * Results come back a few frames after the present (FIFO: the queue depth plus one refresh), and
 * they are drained at every present, so 64 is more than a swapchain can have outstanding. */
#define LOWLAT_TIMING_QUEUE_SIZE 64u

/* Display-aware pacing state of a swapchain (present.c, present_timing.c). Used only inside the
 * app's calls on the swapchain, which Vulkan requires to be externally synchronised. */
struct lowlat_swapchain_timing {
	/* Created with VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT and a CLOCK_MONOTONIC time domain
	 * found: its presents may carry timing info. */
	bool active;
	uint64_t domain_id;
	uint32_t stage_queries, target_stage; /* VkPresentStageFlagsEXT */
	/* The display's refresh, once the driver reported it (it may answer VK_NOT_READY until the
	 * first present); properties_counter tells when it changed. */
	bool refresh_known, vrr;
	int64_t refresh_ns;
	uint64_t properties_counter;
	/* A known refresh start (the latest first-pixel-out of a FIFO latch): the grid's phase. */
	bool have_vblank;
	int64_t vblank_ns;
	/* The next present's target display time, computed at the previous present. */
	bool have_target;
	int64_t target_ns;
	int64_t lead_ns; /* the release lead that target allowed for (the log's predicted_ready_ns) */
	int64_t after_release_ns; /* the release for the target after it (present_wait.h) */
	bool target_judged;       /* that target is on a fixed-rate display's refresh grid (n >= 1) */
	int64_t target_n;         /* the cap's refresh multiple it was planned at (0: the time grid) */
	/* The early method plans each present's own target, from the one before: that target, kept
	 * past the call (LOWLAT_LOG_UNKNOWN after a present without one). */
	int64_t prev_target_ns;
	/* The early method's ready-time samples start at the hand-off, the end of its wait before the
	 * present goes down (what its lead must cover); LOWLAT_LOG_UNKNOWN: at the frame's start. */
	int64_t sample_start_ns;
	bool judge_miss; /* this call's present carries such a target, presented in time for it */
	struct lowlat_ready_window ready;
	struct lowlat_miss_margin miss_margin;
	struct lowlat_pending_present pending[LOWLAT_TIMING_QUEUE_SIZE];
	uint32_t pending_first, pending_count;
	bool pushed;         /* this call added a pending present, whose log frame is still to set */
	uint64_t pushed_seq; /* pending presents pushed so far (the seq of the latest) */
	/* A queue behind V-Sync (present.c, display_release): frames ready in time for their targets
	 * went out backlog_refreshes refreshes late, so as many frames wait ahead of each new one.
	 * Presents up to drain_seq were made before the last drain and still report the old queue. */
	int64_t backlog_refreshes;
	uint64_t drain_seq, drains;
	int64_t prev_out_ns; /* first pixel out of the latest present reported shown, 0 before one */
	/* The release lead's margin over the predicted ready time; -1: the default, which scales with
	 * the refresh (pace_display.h). Set only by LOWLAT_BENCH_LEAD_MARGIN_US, a knob for
	 * tools/bench-display's latency-versus-repeats curve, not a setting. */
	int64_t margin_ns;
	/* The stage times of this call's own present when its report came inside the call (the
	 * latency-frames cap), kept for its log row: stage is an enum lowlat_log_stage. */
	bool current_taken;
	uint32_t early_count;
	struct {
		int stage;
		int64_t time_ns;
	} early[4];
	int64_t frame_lead_ns; /* the lead the current present's release allowed for, for the log */
	/* The latest present that missed its refresh on a fixed-rate display: presented in time for
	 * a refresh of the refresh grid but shown a refresh or more later, no queue ahead of it, or
	 * reported ready after its target (an incomplete report). Its seq (0: none yet) and its first
	 * pixel out, or the refresh it can make. The next present's target moves on with it
	 * (present.c, cadence_target). */
	uint64_t late_seq;
	int64_t late_out_ns;
	uint64_t cadence_moves; /* for the summary */
};

/* How a swapchain is paced (present.c, pacing_level_select): chosen once at creation, from the best
 * down; each level says once why not the one above it. */
enum lowlat_pacing_level {
	LOWLAT_LEVEL_TIMING,       /* VK_EXT_present_timing: target display times */
	LOWLAT_LEVEL_PRESENT_WAIT, /* present-wait completion times: lowlat's ids, the latency cap */
	LOWLAT_LEVEL_DRM,          /* the refresh clock of a refresh source (present_refresh.h) */
	LOWLAT_LEVEL_CPU,          /* the CPU time grid of the plain late limiter */
};

/* How a swapchain's present mode is chosen (present_mode.h). */
enum lowlat_mode_policy {
	LOWLAT_MODES_KEEP,   /* the mode it was created with (the app's, or chosen once at creation) */
	LOWLAT_MODES_FORCED, /* an explicit present_mode, at creation and in every per-present mode */
	LOWLAT_MODES_SWITCH, /* auto with swapchain_maintenance1: FIFO or FIFO_LATEST_READY per present */
};

struct lowlat_swapchain_modes {
	enum lowlat_mode_policy policy;
	VkPresentModeKHR app_mode; /* the app's latest: its create mode, then its per-present modes */
	VkPresentModeKHR forced;   /* LOWLAT_MODES_FORCED */
};

struct lowlat_swapchain {
	VkSwapchainKHR handle;
	struct lowlat_device *device;
	VkExtent2D extent;
	VkFormat format;
	/* The mode the driver created it with (lowlat's choice, which may differ from the app's). */
	VkPresentModeKHR present_mode;
	/* The mode of its latest present (VkSwapchainPresentModeInfoKHR may switch it per present). */
	VkPresentModeKHR current_mode;
	struct lowlat_swapchain_modes modes;
	uint32_t image_count;

	/* Counters for the summary line. Written only by the thread presenting to this swapchain,
	 * which Vulkan requires to be externally synchronised. */
	uint64_t presents;
	uint64_t present_errors;
	uint64_t timed_presents; /* presents that carried a display target (present_timing) */
	/* The latency-frames cap (max_latency_frames): releases it held back until an earlier frame was
	 * shown, and those of them that gave up waiting (timed out). */
	uint64_t latency_waits, latency_timeouts;
	/* Releases it let go with the frame just presented late and unshown, in FIFO_LATEST_READY,
	 * where the next frame takes its place (present.c, latency_late_frame_superseded); those that
	 * waited for an earlier frame first are in latency_waits too. */
	uint64_t latency_superseded;
	uint32_t latency_timeouts_in_row; /* reset by a wait that ends in time */
	bool latency_off;                 /* given up: the display stopped reporting (present.c) */
	int64_t first_present_ns, last_present_ns;

	/* Pacing state, used only by the thread presenting to this swapchain (externally synchronised
	 * like the counters above), never shared between swapchains: two swapchains of one device may
	 * present from two threads at once. `config` is this swapchain's copy of the process's
	 * settings, refreshed at its presents when config_generation falls behind (config.h). */
	struct lowlat_pacer pacer;
	struct lowlat_sleeper sleeper;
	struct lowlat_config config;
	uint64_t config_generation;

	/* The present log (log.c), NULL when logging is off; frame_start_ns is when the app got
	 * control back from its previous present, the start of the frame being presented. */
	struct lowlat_log *log;
	int64_t frame_start_ns;
	/* Time the app spent inside vkAcquireNextImage(2)KHR on this swapchain since frame_start_ns:
	 * waiting for the display to give an image back, which is no part of the frame's own work
	 * (present_timing.c takes it out of the ready-time sample). Written by whichever thread
	 * acquires; Vulkan requires acquires and presents of one swapchain to be externally
	 * synchronised, so they never overlap. */
	int64_t acquire_blocked_ns;
	int64_t target_ns; /* this present's pacing deadline, LOWLAT_LOG_UNKNOWN when not paced */
	/* This present's display target (present_timing), LOWLAT_LOG_UNKNOWN when it carries none. */
	int64_t display_target_ns;

	struct lowlat_swapchain_timing timing;
	/* The "drm" pacing level: the refresh clock of the screen (present_refresh.c). */
	struct lowlat_swapchain_refresh refresh;

	enum lowlat_pacing_level level;
	/* The "present-wait" level: the driver sees only lowlat's present ids on this swapchain
	 * (present_ids.h); present_id is the id of the present in progress, 0 when it has none of
	 * ours. ids_owned is written by the present thread only before the swapchain is published
	 * and when a present cannot be copied (it then stays false). */
	_Atomic bool ids_owned; /* atomic: the app's waiting thread reads it */
	struct lowlat_id_map ids;
	uint64_t present_id;
	/* The level's phase against the refresh, from lowlat's own waits (pace_wait.h); present
	 * thread only. */
	struct lowlat_pw_phase pw_phase;
	bool pw_paced; /* this present's release went through the level's wait (the log's "wait") */

	/* This swapchain's latest release of the app, and whether the display grid (true) or the CPU
	 * pacer set it: a present that switches paths (a per-present mode change, the refresh becoming
	 * known) continues from it rather than restarting from "now". */
	int64_t last_release_ns;
	bool last_release_display;
	/* The app's own present wait as the wait point (present_wait.c), and whether this present's
	 * release was queued there. */
	struct lowlat_present_wait present_wait;
	bool release_queued;
	/* This present's latency-frames cap is its wait point's (the app's latency sleep on the display
	 * grid), not waited for in the present. */
	bool cap_elsewhere;
	/* VK_NV_low_latency2: the app's sleep mode and the latency-sleep wait point (latency_sleep.c). */
	struct lowlat_swapchain_latency latency;
	/* The app set its own present-timing targets: said once that lowlat adds no cap over them. */
	bool app_targets_told;
};

/* Global maps keyed by dispatch key. */
extern struct lowlat_map lowlat_instances;
extern struct lowlat_map lowlat_devices;

static inline struct lowlat_instance *lowlat_instance_of(const void *instance_or_physical_device)
{
	return lowlat_map_find(&lowlat_instances, lowlat_dispatch_key(instance_or_physical_device));
}

static inline struct lowlat_device *lowlat_device_of(const void *device_or_queue)
{
	return lowlat_map_find(&lowlat_devices, lowlat_dispatch_key(device_or_queue));
}

static inline struct lowlat_swapchain *lowlat_swapchain_of(struct lowlat_device *device,
                                                           VkSwapchainKHR swapchain)
{
	return lowlat_map_find(&device->swapchains, (uint64_t)swapchain);
}

/* "FIFO", "MAILBOX", ...: a VkPresentModeKHR's name without its prefix, NULL for a mode lowlat
 * does not know. (lowlat_present_mode_name, lowlat_config.h, names the config's own setting.) Takes an
 * integer so log records (int64) and VkPresentModeKHR both fit. */
const char *lowlat_vk_present_mode_name(int64_t mode);

/* Fill a dispatch table from the next layer's Get*ProcAddr. */
void lowlat_load_instance_dispatch(struct instance_dispatch *vk, VkInstance instance,
                                   PFN_vkGetInstanceProcAddr gipa);
void lowlat_load_device_dispatch(struct device_dispatch *vk, VkDevice device, PFN_vkGetDeviceProcAddr gdpa);

#endif
