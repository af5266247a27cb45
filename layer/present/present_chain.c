/* present_chain.c — the app's present chain, scanned once; what goes down, built once. See
 * present_chain.h. */
#include "present_chain.h"

#include <stdint.h>
#include <string.h>

#include "chain.h"

/* The kind of a struct lowlat reads or replaces in a present's chain, LOWLAT_LINKS: another. */
static enum lowlat_link link_of(VkStructureType type)
{
	switch (type) {
	case VK_STRUCTURE_TYPE_PRESENT_ID_KHR: return LOWLAT_LINK_ID;
#ifdef VK_KHR_present_id2
	case VK_STRUCTURE_TYPE_PRESENT_ID_2_KHR: return LOWLAT_LINK_ID2;
#endif
#ifdef VK_KHR_swapchain_maintenance1
	case VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODE_INFO_KHR: return LOWLAT_LINK_MODE;
#endif
#ifdef VK_EXT_present_timing
	case VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT: return LOWLAT_LINK_TIMINGS;
#endif
	default: return LOWLAT_LINKS;
	}
}

void lowlat_present_chain_scan(struct lowlat_present_chain *c, const void *app_chain)
{
	size_t front = 0; /* bytes the structs in front take as copies; SIZE_MAX: one cannot be copied */
	unsigned n = 0;

	lowlat_chain_walks++;
	memset(c->app, 0, sizeof(c->app));
	memset(c->put, 0, sizeof(c->put));
	for (const VkBaseInStructure *p = app_chain; p; p = p->pNext, n++) {
		enum lowlat_link kind = link_of(p->sType);
		if (n < LOWLAT_PRESENT_CHAIN_LINKS)
			c->links[n] = p;
		if (kind != LOWLAT_LINKS && !c->app[kind]) {
			c->app[kind] = p;
			c->position[kind] = n;
			c->replaceable[kind] = n < LOWLAT_PRESENT_CHAIN_LINKS && front <= sizeof(c->storage);
		}
		size_t size = lowlat_chain_struct_size(p->sType);
		/* Rounded up as chain.c places its copies. */
		front = !size || front == SIZE_MAX ? SIZE_MAX : front + ((size + 15) & ~(size_t)15);
	}
}

const void *lowlat_present_chain_build(struct lowlat_present_chain *c, const void *app_chain)
{
	const void *head = app_chain;
	bool replaced = false;
	unsigned last = 0;

	for (int k = 0; k < LOWLAT_LINKS; k++)
		if (c->put[k] && c->app[k] && (!replaced || c->position[k] > last)) {
			replaced = true;
			last = c->position[k];
		}
	if (replaced) {
		/* The app's structs down to the last one replaced, each copied or replaced; the last
		 * link then points at the rest of the app's chain. */
		struct lowlat_chain_storage storage = {.buffer = c->storage, .size = sizeof(c->storage)};
		VkBaseOutStructure *tail = NULL;

		head = NULL;
		for (unsigned n = 0; n <= last; n++) {
			const VkBaseInStructure *p = c->links[n];
			enum lowlat_link kind = link_of(p->sType);
			VkBaseOutStructure *link = kind != LOWLAT_LINKS && c->app[kind] == p && c->put[kind]
			                                   ? c->put[kind]
			                                   : lowlat_chain_storage_copy(&storage, p);
			if (!link)
				return app_chain; /* not reached: the scan found every struct here copyable */
			if (tail)
				tail->pNext = link;
			else
				head = link;
			tail = link;
		}
		tail->pNext = (VkBaseOutStructure *)c->links[last]->pNext;
	}
	/* lowlat's structs of kinds the app chains none of go in front. */
	for (int k = LOWLAT_LINKS - 1; k >= 0; k--)
		if (c->put[k] && !c->app[k]) {
			c->put[k]->pNext = (VkBaseOutStructure *)head;
			head = c->put[k];
		}
	return head;
}
