/* plumbing.c — the handle map, allocation and loader links; see plumbing.h. */
#include "plumbing.h"

#include <stdlib.h>
#include <string.h>

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

/* The loader-owned link structs that carry the next layer's Get*ProcAddr down the chain. */
VkLayerInstanceCreateInfo *lowlat_find_instance_link(const VkInstanceCreateInfo *info)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
		const VkLayerInstanceCreateInfo *link = (const void *)s;
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
		    link->function == VK_LAYER_LINK_INFO)
			/* The loader's own struct, which the layer interface requires us to advance. */
			return (VkLayerInstanceCreateInfo *)link;
	}
	return NULL;
}

VkLayerDeviceCreateInfo *lowlat_find_device_link(const VkDeviceCreateInfo *info)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
		const VkLayerDeviceCreateInfo *link = (const void *)s;
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
		    link->function == VK_LAYER_LINK_INFO)
			return (VkLayerDeviceCreateInfo *)link;
	}
	return NULL;
}
