/* vd_chain.h — removing structs from a pNext chain without touching the app's memory.
 *
 * The nodes in front of the last removed one are copied (their sizes come from vd_struct_size(),
 * generated from vk.xml); the rest of the chain is shared with the app's. */
#ifndef VD_CHAIN_H
#define VD_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <vulkan/vulkan.h>

size_t vd_struct_size(VkStructureType type);

/* Which nodes to drop. */
typedef bool (*vd_drop_fn)(const VkBaseInStructure *node, void *user);

/* Sets *out to a chain equal to `chain` minus the dropped nodes. *storage receives memory to free()
 * afterwards (NULL when nothing was copied). Returns VK_ERROR_OUT_OF_HOST_MEMORY, or
 * VK_ERROR_INITIALIZATION_FAILED when a node to copy has a size the table does not know. */
VkResult vd_chain_strip(const void *chain, vd_drop_fn drop, void *user, const void **out, void **storage);

/* The first node of a type, or NULL. */
const void *vd_chain_find(const void *chain, VkStructureType type);

#endif
