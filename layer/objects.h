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
#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "dispatch.h"
#include "lowlat_config.h"
#include "pace.h"
#include "pace_display.h"
#include "plumbing.h"

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
	struct lowlat_map swapchains; /* VkSwapchainKHR -> struct lowlat_swapchain */
};

/* A present whose display feedback (VK_EXT_present_timing stage times) is still to come. */
struct lowlat_pending_present {
	int64_t log_frame;      /* its row in the present log, LOWLAT_LOG_UNKNOWN when not logged */
	int64_t frame_start_ns; /* when the app began the frame: the start of its ready-time sample */
	bool vblank_latch;      /* FIFO/FIFO_LATEST_READY: its first pixel out is a refresh start */
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
	struct lowlat_ready_window ready;
	struct lowlat_pending_present pending[LOWLAT_TIMING_QUEUE_SIZE];
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
	int64_t frame_lead_ns; /* the lead the current present's release allowed for, for the log */
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
	int64_t target_ns; /* this present's pacing deadline, LOWLAT_LOG_UNKNOWN when not paced */
	/* This present's display target (present_timing), LOWLAT_LOG_UNKNOWN when it carries none. */
	int64_t display_target_ns;

	struct lowlat_swapchain_timing timing;
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
