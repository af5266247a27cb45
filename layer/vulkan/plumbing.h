/* plumbing.h — what any Vulkan layer of this project needs, lowlat and the virtual display alike:
 * a small thread-safe handle map, the dispatch key of a dispatchable handle, the loader's link
 * structs that carry the next layer's Get*ProcAddr, and allocation through the app's allocator.
 * Nothing here knows what the layer is for. */
#ifndef LOWLAT_PLUMBING_H
#define LOWLAT_PLUMBING_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

/* A map from a 64-bit key (a handle, a dispatch key; never 0) to a pointer: open addressing with
 * linear probing in a power-of-two table kept at most half full, so a lookup is a hash and, as a
 * rule, one probe. Every operation takes the map's mutex. */
struct lowlat_map {
	pthread_mutex_t lock;
	struct lowlat_map_item {
		uint64_t key; /* 0: a free slot */
		void *value;
	} * items;
	uint32_t count, capacity;
};

#define LOWLAT_MAP_INIT                                                                                      \
	{                                                                                                    \
		.lock = PTHREAD_MUTEX_INITIALIZER                                                            \
	}

/* A mutex whose creation may fail: the object it guards then goes without what needs it (its
 * functions check `ready`), rather than failing the app's call. */
struct lowlat_lock {
	pthread_mutex_t mutex;
	bool ready;
};

static inline void lowlat_lock_init(struct lowlat_lock *l)
{
	l->ready = pthread_mutex_init(&l->mutex, NULL) == 0;
}

/* Takes and gives back the mutex where it was made; where not, the caller goes on unlocked, as an
 * object whose lock failed goes without what needs it. */
static inline void lowlat_lock_take(struct lowlat_lock *l)
{
	if (l->ready)
		pthread_mutex_lock(&l->mutex);
}

static inline void lowlat_lock_give(struct lowlat_lock *l)
{
	if (l->ready)
		pthread_mutex_unlock(&l->mutex);
}

static inline void lowlat_lock_fini(struct lowlat_lock *l)
{
	if (l->ready)
		pthread_mutex_destroy(&l->mutex);
	l->ready = false;
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

/* Allocation through the app's allocator when it gave one (the spec asks layers to honour it),
 * else the C heap. Always zeroed. */
void *lowlat_alloc(const VkAllocationCallbacks *allocator, size_t size, VkSystemAllocationScope scope);
void lowlat_free(const VkAllocationCallbacks *allocator, void *memory);

/* The loader-owned link struct in a create info's pNext chain, which the layer interface requires a
 * layer to advance (and lowlat puts back) around its call down; NULL when the loader sent none. */
VkLayerInstanceCreateInfo *lowlat_find_instance_link(const VkInstanceCreateInfo *info);
VkLayerDeviceCreateInfo *lowlat_find_device_link(const VkDeviceCreateInfo *info);

#endif
