/* vd_chain.c — pNext chain surgery on copies; see vd_chain.h. */
#include "vd_chain.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vk_layer.h>

#include "vd_layer.h"

/* The generated table covers vulkan_core.h; the loader's own link structs come from vk_layer.h. */
static size_t node_size(VkStructureType type)
{
	switch ((int)type) {
	case VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO: return sizeof(VkLayerInstanceCreateInfo);
	case VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO: return sizeof(VkLayerDeviceCreateInfo);
	default: return vd_struct_size(type);
	}
}

const void *vd_chain_find(const void *chain, VkStructureType type)
{
	for (const VkBaseInStructure *s = chain; s; s = s->pNext)
		if (s->sType == type)
			return s;
	return NULL;
}

VkResult vd_chain_strip(const void *chain, vd_drop_fn drop, void *user, const void **out, void **storage)
{
	const VkBaseInStructure *last_dropped = NULL;
	size_t total = 0;
	char *buffer, *at;
	VkBaseInStructure *prev = NULL;

	*out = chain;
	*storage = NULL;
	for (const VkBaseInStructure *s = chain; s; s = s->pNext)
		if (drop(s, user))
			last_dropped = s;
	if (!last_dropped)
		return VK_SUCCESS;
	for (const VkBaseInStructure *s = chain; s != last_dropped; s = s->pNext) {
		if (drop(s, user))
			continue;
		size_t size = node_size(s->sType);
		if (!size) {
			vd_msg("cannot copy a pNext struct of type %d (not in vulkan_core.h)", (int)s->sType);
			return VK_ERROR_INITIALIZATION_FAILED;
		}
		total += (size + 15) & ~(size_t)15;
	}
	buffer = at = malloc(total ? total : 1);
	if (!buffer)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	*out = last_dropped->pNext;
	for (const VkBaseInStructure *s = chain; s != last_dropped; s = s->pNext) {
		if (drop(s, user))
			continue;
		size_t size = node_size(s->sType);
		VkBaseInStructure *copy = (VkBaseInStructure *)at;
		memcpy(copy, s, size);
		copy->pNext = last_dropped->pNext;
		if (prev)
			prev->pNext = copy;
		else
			*out = copy;
		prev = copy;
		at += (size + 15) & ~(size_t)15;
	}
	*storage = buffer;
	return VK_SUCCESS;
}
