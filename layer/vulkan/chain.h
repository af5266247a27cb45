/* chain.h — pNext chains: finding a structure, and copies of a chain with one structure replaced.
 *
 * lowlat never writes the app's structures. To change a structure the app chains (OR a feature bit
 * into its VkPhysicalDevice*Features, rewrite its VkSwapchainPresentModeInfoKHR) it copies every
 * structure from the head of the chain down to that one, links the copies, and points the last copy
 * at the rest of the app's chain, which is shared, not copied. Copying needs each structure's size,
 * known here only for the structures apps chain to the create, present and submit infos lowlat changes; a
 * chain with an unknown structure in front of the one to change cannot be copied, and the caller
 * says so and leaves that change out.
 */
#ifndef LOWLAT_CHAIN_H
#define LOWLAT_CHAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "vk_compat.h"

/* Walks of a pNext chain this thread made (each function here, and present_chain.c): counted for
 * the test that holds a present to one scan and one copy of the app's chain. */
extern _Thread_local unsigned lowlat_chain_walks;

/* The first structure of the type in the chain, NULL when there is none. */
const void *lowlat_chain_find(const void *chain, VkStructureType type);

/* Whether the chain has a structure of the type. */
static inline bool lowlat_chain_has(const void *chain, VkStructureType type)
{
	return lowlat_chain_find(chain, type) != NULL;
}

/* The size of a structure lowlat can copy, 0 for one it does not know. */
size_t lowlat_chain_struct_size(VkStructureType type);

/* Where lowlat_chain_copy_to puts its copies: a caller-provided buffer (the present path allocates
 * nothing), or, with heap set, the C heap (create calls), freed by lowlat_chain_storage_fini. */
struct lowlat_chain_storage {
	unsigned char *buffer;
	size_t size, used;
	bool heap;
	void *blocks[16]; /* heap blocks, freed at fini */
	unsigned block_count;
};

/* A copy of the structure s in storage (its pNext still the app's); NULL when its size is unknown or
 * storage ran out. */
VkBaseOutStructure *lowlat_chain_storage_copy(struct lowlat_chain_storage *storage, const void *s);

/* Copies the chain from `chain` down to and including `target` (which must be in it) into
 * storage; returns the new head and sets *copy to the copy of target, whose fields the caller may
 * then change. NULL when a structure in between has an unknown size or storage ran out. */
const void *lowlat_chain_copy_to(const void *chain, const void *target, struct lowlat_chain_storage *storage,
                                 void **copy);

/* The chain with every structure of `type` left out, in *out (NULL where nothing else is left): the
 * structures in front of the last of them are copied into storage and relinked, the rest is
 * shared. false when one of those cannot be copied (unknown size, storage full); the caller then
 * hands the chain down as it was and says so. A chain without such a structure comes back as it is. */
bool lowlat_chain_without(const void *chain, VkStructureType type, struct lowlat_chain_storage *storage,
                          const void **out);

void lowlat_chain_storage_fini(struct lowlat_chain_storage *storage);

#endif
