/* present_chain.h — the app's present chain, scanned once; what goes down, built once.
 *
 * On a present's entry lowlat walks the app's VkPresentInfoKHR chain once and keeps the structs it
 * reads or may replace: present ids (v1 and v2), per-present modes and present timings. The steps
 * of the present (present_mode.c, present_ids.c, present_timing.c) then put their own struct of a
 * kind in place of the app's, or in front of the chain where the app chains none, and the chain
 * that goes down is built once, as the driver is called, from what the walk kept (the app's chain
 * is not walked again): the app's structs from the head to the last one replaced are copied and
 * relinked, everything after it is shared. The app's structs are never written.
 */
#ifndef LOWLAT_PRESENT_CHAIN_H
#define LOWLAT_PRESENT_CHAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "vk_compat.h"

enum lowlat_link {
	LOWLAT_LINK_ID,      /* VkPresentIdKHR */
	LOWLAT_LINK_ID2,     /* VkPresentId2KHR */
	LOWLAT_LINK_MODE,    /* VkSwapchainPresentModeInfoKHR */
	LOWLAT_LINK_TIMINGS, /* VkPresentTimingsInfoEXT */
	LOWLAT_LINKS
};

/* The copies of the app's structs in front of the last one replaced live here (the present path
 * allocates nothing); a chain whose structs there need more cannot take a replacement. */
#define LOWLAT_PRESENT_CHAIN_BYTES 1024
/* The app's structs the walk keeps in order, for the build; a struct of a kind further down cannot
 * be replaced. */
#define LOWLAT_PRESENT_CHAIN_LINKS 32

struct lowlat_present_chain {
	const void *app[LOWLAT_LINKS]; /* the app's struct of each kind (its first), NULL: none */
	/* Whether lowlat may put its own struct of the kind in place of the app's: every struct in
	 * front of it has a size lowlat knows (chain.h) and fits LOWLAT_PRESENT_CHAIN_BYTES, and it
	 * is among the first LOWLAT_PRESENT_CHAIN_LINKS. */
	bool replaceable[LOWLAT_LINKS];
	unsigned position[LOWLAT_LINKS]; /* the app's struct's place in its chain, from 0 */
	const VkBaseInStructure *links[LOWLAT_PRESENT_CHAIN_LINKS]; /* the app's structs, in order */
	VkBaseOutStructure *put[LOWLAT_LINKS]; /* lowlat's struct of the kind, NULL: the app's */
	_Alignas(16) unsigned char storage[LOWLAT_PRESENT_CHAIN_BYTES];
};

/* The one walk of the app's chain on a present's entry; clears what was put. */
void lowlat_present_chain_scan(struct lowlat_present_chain *c, const void *app_chain);

/* Whether a struct of the kind can go down as lowlat's: the app chains none, or its own can be
 * replaced. */
static inline bool lowlat_present_chain_can_put(const struct lowlat_present_chain *c, enum lowlat_link kind)
{
	return !c->app[kind] || c->replaceable[kind];
}

/* lowlat's struct s (of the kind, its pNext set by the build) goes down in place of the app's, or in
 * front of the chain where the app chains none. Only where lowlat_present_chain_can_put. */
static inline void lowlat_present_chain_put(struct lowlat_present_chain *c, enum lowlat_link kind, void *s)
{
	c->put[kind] = s;
}

/* The chain to hand down: the app's own when nothing was put, else the app's with lowlat's structs
 * in place (the app's structs in front of the last one replaced copied into storage, from the
 * scan's links). Built once per present, after every step has put what it puts. */
const void *lowlat_present_chain_build(struct lowlat_present_chain *c, const void *app_chain);

#endif
