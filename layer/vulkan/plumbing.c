/* plumbing.c — the handle map, allocation and loader links; see plumbing.h. */
#include "plumbing.h"

#include <stdlib.h>
#include <string.h>

/* The slot of key, or the free slot where it would go; the table is never full. */
static uint32_t slot_of(const struct lowlat_map *map, uint64_t key)
{
	uint32_t mask = map->capacity - 1;
	/* Handles are pointers or counters: Fibonacci hashing spreads their low and high bits alike. */
	uint32_t i = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;

	while (map->items[i].key && map->items[i].key != key)
		i = (i + 1) & mask;
	return i;
}

/* Doubles the table (or makes the first one); false when out of memory. */
static bool grow(struct lowlat_map *map)
{
	uint32_t capacity = map->capacity ? map->capacity * 2 : 8;
	struct lowlat_map_item *old = map->items;
	uint32_t old_capacity = map->capacity;

	map->items = calloc(capacity, sizeof(*map->items));
	if (!map->items) {
		map->items = old;
		return false;
	}
	map->capacity = capacity;
	for (uint32_t i = 0; i < old_capacity; i++)
		if (old[i].key)
			map->items[slot_of(map, old[i].key)] = old[i];
	free(old);
	return true;
}

bool lowlat_map_insert(struct lowlat_map *map, uint64_t key, void *value)
{
	bool ok = true;

	pthread_mutex_lock(&map->lock);
	if ((map->count + 1) * 2 > map->capacity && !grow(map)) {
		ok = false;
		goto out;
	}
	/* A driver may reuse a destroyed handle's value: the new object wins. */
	struct lowlat_map_item *item = &map->items[slot_of(map, key)];
	map->count += !item->key;
	*item = (struct lowlat_map_item){key, value};
out:
	pthread_mutex_unlock(&map->lock);
	return ok;
}

void *lowlat_map_find(struct lowlat_map *map, uint64_t key)
{
	void *value = NULL;

	pthread_mutex_lock(&map->lock);
	if (map->count)
		value = map->items[slot_of(map, key)].value;
	pthread_mutex_unlock(&map->lock);
	return value;
}

/* Empties slot i and moves up the entries after it that probed past it (backward-shift deletion:
 * no tombstones, so lookups stay short however many objects come and go). */
static void *remove_at_locked(struct lowlat_map *map, uint32_t i)
{
	uint32_t mask = map->capacity - 1;
	void *value = map->items[i].value;

	map->items[i] = (struct lowlat_map_item){0};
	for (uint32_t j = (i + 1) & mask; map->items[j].key; j = (j + 1) & mask) {
		struct lowlat_map_item moved = map->items[j];
		map->items[j] = (struct lowlat_map_item){0};
		map->items[slot_of(map, moved.key)] = moved;
	}
	/* The global maps outlive every object: release the table when the last object goes, or each
	 * load/unload of the layer (a game may create and destroy Vulkan instances) would leak it. */
	if (!--map->count) {
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
	if (map->count) {
		uint32_t i = slot_of(map, key);
		if (map->items[i].key)
			value = remove_at_locked(map, i);
	}
	pthread_mutex_unlock(&map->lock);
	return value;
}

void *lowlat_map_pop(struct lowlat_map *map)
{
	void *value = NULL;

	pthread_mutex_lock(&map->lock);
	for (uint32_t i = 0; i < map->capacity && !value; i++)
		if (map->items[i].key)
			value = remove_at_locked(map, i);
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

/* The loader-owned link struct of `type` in a create info's chain, which the layer interface
 * requires a layer to advance. VkLayerInstanceCreateInfo and VkLayerDeviceCreateInfo share their
 * layout up to `function`, which tells the link from the loader's other structs of that type. */
static void *find_link(const void *chain, VkStructureType type)
{
	for (const VkBaseInStructure *s = chain; s; s = s->pNext) {
		const VkLayerInstanceCreateInfo *link = (const void *)s;
		if (s->sType == type && link->function == VK_LAYER_LINK_INFO)
			return (void *)link;
	}
	return NULL;
}

VkLayerInstanceCreateInfo *lowlat_find_instance_link(const VkInstanceCreateInfo *info)
{
	return find_link(info->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
}

VkLayerDeviceCreateInfo *lowlat_find_device_link(const VkDeviceCreateInfo *info)
{
	return find_link(info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
}
