/* vd_util.c — the small things every file of the layer uses: the handle maps, allocation through
 * the app's allocator, CLOCK_MONOTONIC, and the one way of printing a message. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vd_layer.h"

bool vd_map_insert(struct vd_map *map, uint64_t key, void *value)
{
	bool ok = true;

	pthread_mutex_lock(&map->lock);
	for (uint32_t i = 0; i < map->count; i++) {
		if (map->items[i].key == key) {
			map->items[i].value = value; /* a reused handle value: the new object wins */
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
	map->items[map->count++] = (struct vd_map_item){key, value};
out:
	pthread_mutex_unlock(&map->lock);
	return ok;
}

void *vd_map_find(struct vd_map *map, uint64_t key)
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

void *vd_map_remove(struct vd_map *map, uint64_t key)
{
	void *value = NULL;

	pthread_mutex_lock(&map->lock);
	for (uint32_t i = 0; i < map->count; i++) {
		if (map->items[i].key == key) {
			value = map->items[i].value;
			map->items[i] = map->items[--map->count];
			break;
		}
	}
	pthread_mutex_unlock(&map->lock);
	return value;
}

void vd_map_fini(struct vd_map *map)
{
	free(map->items);
	map->items = NULL;
	map->count = map->capacity = 0;
	pthread_mutex_destroy(&map->lock);
}

void *vd_alloc(const VkAllocationCallbacks *allocator, size_t size, VkSystemAllocationScope scope)
{
	void *memory;

	if (!allocator)
		return calloc(1, size);
	memory = allocator->pfnAllocation(allocator->pUserData, size, 16, scope);
	if (memory)
		memset(memory, 0, size);
	return memory;
}

void vd_free(const VkAllocationCallbacks *allocator, void *memory)
{
	if (!allocator)
		free(memory);
	else if (memory)
		allocator->pfnFree(allocator->pUserData, memory);
}

int64_t vd_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void vd_msg(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n = snprintf(line, sizeof(line), "vdisplay: ");

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* One write per line, so lines of concurrent threads never interleave. */
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}
