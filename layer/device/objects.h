/* objects.h — what lowlat knows about each instance and device it has seen, and how to find it.
 *
 * Dispatchable handles (instance, physical device, device, queue) are found by their *dispatch key*,
 * the loader's dispatch-table pointer stored in the first word of every dispatchable object: a
 * physical device shares its instance's key and a queue shares its device's, so a queue finds its
 * device without a queue map. Swapchains live in a map per device (swapchain.h).
 *
 * Lifetime: an object is inserted after the driver created it and removed before the driver
 * destroys it. Vulkan requires the app to externally synchronise destruction with every other use
 * of the object, so a pointer returned by a lookup stays valid for the duration of the call that
 * looked it up.
 *
 * Lock order: the global instance map, then the global device map, then a device's own locks.
 * No lock is held while calling down the chain or while sleeping.
 */
#ifndef LOWLAT_OBJECTS_H
#define LOWLAT_OBJECTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dispatch.h"
#include "latency_device.h"
#include "message.h"
#include "plumbing.h"

struct lowlat_instance {
	VkInstance handle;
	struct instance_dispatch vk;
	uint32_t api_version;
	char app_name[128];
	char engine_name[64];
	/* The explicit layers named to the loader (the app's and VK_INSTANCE_LAYERS), ':'-separated:
	 * a layer below may list its device extensions only when asked by its name. */
	char layers[512];
	/* Instance extensions present timing needs (present_timing.c): VK_KHR_get_surface_capabilities2,
	 * and vkGetPhysicalDeviceFeatures2 (Vulkan 1.1 or VK_KHR_get_physical_device_properties2), the
	 * app's or added by lowlat. */
	bool surface_caps2;
	PFN_vkGetPhysicalDeviceFeatures2 features2;
	/* DXVK's or vkd3d-proton's own frame limiter, and MangoHud's (engine.h), each with why, for
	 * the one line saying so (room for MangoHud's config file path). vkd3d-proton keeps its
	 * VKD3D_FRAME_RATE only on a device with present wait (engine_needs_present_wait): each device
	 * decides what holds there (lowlat_engine_device). */
	bool by_engine, by_mangohud, engine_needs_present_wait;
	char engine_why[248], mangohud_why[256];
	/* The forms of surface_maintenance1 enabled, the app's or lowlat's (LOWLAT_MAINT1_*, create_info.h):
	 * present-mode compatibility queries, and the forms a device's swapchain_maintenance1 may take. */
	unsigned surface_maint1;
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
	bool timing_absolute, timing_relative; /* the target kinds enabled */
	bool timing_calibrate_khr;             /* calibration through the KHR command, else the EXT one */
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
	/* A frame limiter of the engine's or MangoHud's holds on this device: why (engine.h). */
	bool engine_limits;
	char engine_limit[512];
	/* The latest release of the app by any of its swapchains (CLOCK_MONOTONIC ns, 0 before one): a
	 * swapchain created to replace another (DXVK recreates without oldSwapchain) continues its
	 * grid from there instead of letting its first frame go unpaced. Written by presenting
	 * threads, hence atomic; relaxed: it is a time, not a guard for other data. */
	_Atomic int64_t last_release_ns;
	struct lowlat_map swapchains;         /* VkSwapchainKHR -> struct lowlat_swapchain (swapchain.h) */
	struct lowlat_latency_device latency; /* VK_NV_low_latency2 (latency_sleep.c) */
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

/* A swapchain hook's device and the function it calls down to. Every device is tracked from its
 * creation, so these are missing only when the app calls a swapchain function it fetched with
 * vkGetInstanceProcAddr on a device that did not enable VK_KHR_swapchain (invalid use): say so once
 * and return an error the entry point may return, rather than call a NULL pointer in the game. */
#define LOWLAT_HOOK_DEVICE(dev, handle, function, error)                                                     \
	struct lowlat_device *dev = lowlat_device_of(handle);                                                \
	if (!dev || !dev->vk.function) {                                                                     \
		LOWLAT_WARN_ONCE("vk" #function " called on a device without VK_KHR_swapchain enabled; "     \
		                 "returning " #error);                                                       \
		return error;                                                                                \
	}

/* Fill a dispatch table from the next layer's Get*ProcAddr. */
void lowlat_load_instance_dispatch(struct instance_dispatch *vk, VkInstance instance,
                                   PFN_vkGetInstanceProcAddr gipa);
void lowlat_load_device_dispatch(struct device_dispatch *vk, VkDevice device, PFN_vkGetDeviceProcAddr gdpa);

#endif
