/* objects.c — the object maps, allocation and dispatch-table loading; see objects.h. */
#include "objects.h"

#include <stdlib.h>
#include <string.h>

struct lowlat_map lowlat_instances = LOWLAT_MAP_INIT;
struct lowlat_map lowlat_devices = LOWLAT_MAP_INIT;

bool lowlat_map_insert(struct lowlat_map *map, uint64_t key, void *value)
{
	bool ok = true;

	pthread_mutex_lock(&map->lock);
	for (uint32_t i = 0; i < map->count; i++) {
		if (map->items[i].key == key) {
			/* A driver may reuse a destroyed handle's value: the new object wins. */
			map->items[i].value = value;
			goto out;
		}
	}
	if (map->count == map->capacity) {
		uint32_t capacity = map->capacity ? map->capacity * 2 : 8;
		void *items = realloc(map->items, capacity * sizeof(*map->items));
		if (!items) {
			ok = false;
			goto out;
		}
		map->items = items;
		map->capacity = capacity;
	}
	map->items[map->count++] = (struct lowlat_map_item){key, value};
out:
	pthread_mutex_unlock(&map->lock);
	return ok;
}

void *lowlat_map_find(struct lowlat_map *map, uint64_t key)
{
	void *value = NULL;

	pthread_mutex_lock(&map->lock);
	for (uint32_t i = 0; i < map->count; i++) {
		if (map->items[i].key == key) {
			value = map->items[i].value;
			break;
		}
	}
	pthread_mutex_unlock(&map->lock);
	return value;
}

static void *remove_at_locked(struct lowlat_map *map, uint32_t i)
{
	void *value = map->items[i].value;
	map->items[i] = map->items[--map->count];
	/* The global maps outlive every object: release the array when the last object goes, or each
	 * load/unload of the layer (a game may create and destroy Vulkan instances) would leak it. */
	if (!map->count) {
		free(map->items);
		map->items = NULL;
		map->capacity = 0;
	}
	return value;
}

void *lowlat_map_remove(struct lowlat_map *map, uint64_t key)
{
	void *value = NULL;

	pthread_mutex_lock(&map->lock);
	for (uint32_t i = 0; i < map->count; i++) {
		if (map->items[i].key == key) {
			value = remove_at_locked(map, i);
			break;
		}
	}
	pthread_mutex_unlock(&map->lock);
	return value;
}

void *lowlat_map_pop(struct lowlat_map *map)
{
	void *value = NULL;

	pthread_mutex_lock(&map->lock);
	if (map->count)
		value = remove_at_locked(map, map->count - 1);
	pthread_mutex_unlock(&map->lock);
	return value;
}

void lowlat_map_fini(struct lowlat_map *map)
{
	free(map->items);
	map->items = NULL;
	map->count = map->capacity = 0;
	pthread_mutex_destroy(&map->lock);
}

void *lowlat_alloc(const VkAllocationCallbacks *allocator, size_t size, VkSystemAllocationScope scope)
{
	void *memory;

	if (!allocator)
		return calloc(1, size);
	memory = allocator->pfnAllocation(allocator->pUserData, size, 16, scope);
	if (memory)
		memset(memory, 0, size);
	return memory;
}

void lowlat_free(const VkAllocationCallbacks *allocator, void *memory)
{
	if (!allocator)
		free(memory);
	else if (memory)
		allocator->pfnFree(allocator->pUserData, memory);
}

void lowlat_load_instance_dispatch(struct instance_dispatch *vk, VkInstance instance,
                                   PFN_vkGetInstanceProcAddr gipa)
{
#define LOWLAT_LOAD(name) vk->name = (PFN_vk##name)gipa(instance, "vk" #name);
	LOWLAT_INSTANCE_FUNCTIONS(LOWLAT_LOAD)
#undef LOWLAT_LOAD
}

void lowlat_load_device_dispatch(struct device_dispatch *vk, VkDevice device, PFN_vkGetDeviceProcAddr gdpa)
{
#define LOWLAT_LOAD(name) vk->name = (PFN_vk##name)gdpa(device, "vk" #name);
	LOWLAT_DEVICE_FUNCTIONS(LOWLAT_LOAD)
#undef LOWLAT_LOAD
}

const char *lowlat_vk_present_mode_name(int64_t mode)
{
	/* On an integer: with headers older than FIFO_LATEST_READY its value is not in the enum. */
	switch (mode) {
	case VK_PRESENT_MODE_IMMEDIATE_KHR: return "IMMEDIATE";
	case VK_PRESENT_MODE_MAILBOX_KHR: return "MAILBOX";
	case VK_PRESENT_MODE_FIFO_KHR: return "FIFO";
	case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return "FIFO_RELAXED";
	case VK_PRESENT_MODE_FIFO_LATEST_READY_KHR: return "FIFO_LATEST_READY";
	default: return NULL;
	}
}
