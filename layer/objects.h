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
#include "plumbing.h"

struct lowlat_log; /* log.h */

struct lowlat_instance {
	VkInstance handle;
	struct instance_dispatch vk;
	uint32_t api_version;
	char app_name[128];
	char engine_name[64];
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
	struct lowlat_map swapchains; /* VkSwapchainKHR -> struct lowlat_swapchain */
};

struct lowlat_swapchain {
	VkSwapchainKHR handle;
	struct lowlat_device *device;
	VkExtent2D extent;
	VkFormat format;
	VkPresentModeKHR present_mode;
	uint32_t image_count;

	/* Counters for the summary line. Written only by the thread presenting to this swapchain,
	 * which Vulkan requires to be externally synchronised. */
	uint64_t presents;
	uint64_t present_errors;
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
