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
#include "pace.h"

/* A small map from a 64-bit key to a pointer. A game has a handful of instances, devices and
 * swapchains, so a linear scan of a dense array beats hashing and keeps the code obvious. */
struct lowlat_map {
	pthread_mutex_t lock;
	struct lowlat_map_item {
		uint64_t key;
		void *value;
	} * items;
	uint32_t count, capacity;
};

#define LOWLAT_MAP_INIT                                                                                      \
	{                                                                                                    \
		.lock = PTHREAD_MUTEX_INITIALIZER                                                            \
	}

bool lowlat_map_insert(struct lowlat_map *map, uint64_t key, void *value);
void *lowlat_map_find(struct lowlat_map *map, uint64_t key);
void *lowlat_map_remove(struct lowlat_map *map, uint64_t key);
/* Removes and returns any one value, or NULL when empty; used to drain a map at teardown. */
void *lowlat_map_pop(struct lowlat_map *map);
void lowlat_map_fini(struct lowlat_map *map);

static inline uint64_t lowlat_dispatch_key(const void *dispatchable_handle)
{
	return (uint64_t)(uintptr_t) * (void *const *)dispatchable_handle;
}

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
	 * present from two threads at once. pace_config is the setting the pacer last applied. */
	struct lowlat_pacer pacer;
	struct lowlat_sleeper sleeper;
	uint64_t pace_config;
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

/* Allocation through the app's allocator when it gave one (the spec asks layers to honour it),
 * else the C heap. Always zeroed. */
void *lowlat_alloc(const VkAllocationCallbacks *allocator, size_t size, VkSystemAllocationScope scope);
void lowlat_free(const VkAllocationCallbacks *allocator, void *memory);

/* Fill a dispatch table from the next layer's Get*ProcAddr. */
void lowlat_load_instance_dispatch(struct instance_dispatch *vk, VkInstance instance,
                                   PFN_vkGetInstanceProcAddr gipa);
void lowlat_load_device_dispatch(struct device_dispatch *vk, VkDevice device, PFN_vkGetDeviceProcAddr gdpa);

#endif
