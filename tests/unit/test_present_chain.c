/* test_present_chain.c — the app's present chain scanned once, and what goes down built once
 * (layer/present/present_chain.c): lowlat's structs in place of the app's or in front of its chain, the
 * app's structs in front of the last one replaced copied, the rest shared, the app's structs never
 * written, a chain with a struct lowlat cannot copy left as it is; and the walks of a chain that
 * make one present, counted (chain.h's lowlat_chain_walks): one, the scan, whatever is replaced. */
#include <string.h>

#include "chain.h"
#include "check.h"
#include "present_chain.h"

/* A struct no header lowlat knows defines: its size is unknown, so it cannot be copied. */
#define UNKNOWN_STYPE ((VkStructureType)1000999000)

static const void *next(const void *s)
{
	return ((const VkBaseInStructure *)s)->pNext;
}

static VkStructureType type(const void *s)
{
	return ((const VkBaseInStructure *)s)->sType;
}

/* Nothing put: the app's chain goes down as it is, after one walk. */
static void test_nothing_put(void)
{
	VkPresentRegionsKHR regions = {.sType = VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR};
	VkPresentIdKHR id = {.sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR, .pNext = &regions};
	struct lowlat_present_chain c;

	lowlat_chain_walks = 0;
	lowlat_present_chain_scan(&c, &id);
	CHECK(c.app[LOWLAT_LINK_ID] == &id && !c.app[LOWLAT_LINK_MODE] && !c.app[LOWLAT_LINK_TIMINGS]);
	CHECK(lowlat_present_chain_build(&c, &id) == &id);
	CHECK_EQ_I64(lowlat_chain_walks, 1);
}

/* lowlat's struct of a kind the app chains none of (its type does not matter to the build). */
#define MY_STYPE VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODE_INFO_EXT

/* App: regions -> id -> group [-> timings] -> tail. lowlat replaces id (and timings) and adds one
 * of its own: mine -> regions' -> lowlat's id -> group' [-> lowlat's timings] -> the app's tail. */
static void test_replace_and_add(void)
{
	VkPresentRegionsKHR tail = {.sType = VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR};
#ifdef VK_EXT_present_timing
	VkPresentTimingsInfoEXT timings = {.sType = VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT,
	                                   .pNext = &tail};
	VkPresentTimingsInfoEXT my_timings = timings;
	const void *after_group = &timings;
#else
	const void *after_group = &tail;
#endif
	VkDeviceGroupPresentInfoKHR group = {.sType = VK_STRUCTURE_TYPE_DEVICE_GROUP_PRESENT_INFO_KHR,
	                                     .pNext = after_group};
	uint64_t app_ids[1] = {7}, ours[1] = {1};
	VkPresentIdKHR id = {.sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR,
	                     .pNext = &group,
	                     .swapchainCount = 1,
	                     .pPresentIds = app_ids};
	VkPresentRegionsKHR regions = {.sType = VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR, .pNext = &id};
	VkPresentRegionsKHR regions_before = regions;
	VkPresentIdKHR id_before = id, my_id = id;
	VkDeviceGroupPresentInfoKHR group_before = group;
	VkBaseOutStructure mine = {.sType = MY_STYPE};
	struct lowlat_present_chain c;

	lowlat_chain_walks = 0;
	lowlat_present_chain_scan(&c, &regions);
	CHECK(c.app[LOWLAT_LINK_ID] == &id && !c.app[LOWLAT_LINK_MODE] && !c.app[LOWLAT_LINK_ID2]);
	CHECK(lowlat_present_chain_can_put(&c, LOWLAT_LINK_ID) &&
	      lowlat_present_chain_can_put(&c, LOWLAT_LINK_MODE));
	my_id.pPresentIds = ours;
	lowlat_present_chain_put(&c, LOWLAT_LINK_ID, &my_id);
	lowlat_present_chain_put(&c, LOWLAT_LINK_MODE, &mine);
#ifdef VK_EXT_present_timing
	CHECK(c.app[LOWLAT_LINK_TIMINGS] == &timings &&
	      lowlat_present_chain_can_put(&c, LOWLAT_LINK_TIMINGS));
	lowlat_present_chain_put(&c, LOWLAT_LINK_TIMINGS, &my_timings);
#endif
	const void *head = lowlat_present_chain_build(&c, &regions);

	/* NULL: a copy of the app's struct (of that type), not the app's own. Without present timing
	 * the id is the last struct replaced: the group after it is the app's own, shared. */
	const void *want[] = {&mine, NULL,        &my_id,
#ifdef VK_EXT_present_timing
	                      NULL,  &my_timings,
#else
	                      &group,
#endif
	                      &tail};
	const VkStructureType types[] = {MY_STYPE,
	                                 VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR,
	                                 VK_STRUCTURE_TYPE_PRESENT_ID_KHR,
	                                 VK_STRUCTURE_TYPE_DEVICE_GROUP_PRESENT_INFO_KHR,
#ifdef VK_EXT_present_timing
	                                 VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT,
#endif
	                                 VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR};
	const void *s = head;
	for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++, s = next(s)) {
		CHECK(s != NULL);
		if (!s)
			return;
		CHECK_EQ_I64(type(s), types[i]);
		if (want[i])
			CHECK(s == want[i]);
		else
			CHECK(s != &regions && s != &group);
	}
	CHECK(s == NULL);
	CHECK(((const VkPresentIdKHR *)next(next(head)))->pPresentIds == ours);
	/* The app's structs are never written. */
	CHECK(!memcmp(&regions_before, &regions, sizeof(regions)) && !memcmp(&id_before, &id, sizeof(id)) &&
	      !memcmp(&group_before, &group, sizeof(group)));
	/* One walk: the build copies from what the scan kept. */
	CHECK_EQ_I64(lowlat_chain_walks, 1);
}

/* A struct lowlat cannot copy in front of the app's ids: they cannot be replaced; lowlat's structs of
 * kinds the app chains none of still go in front, and the app's chain is shared whole. */
static void test_unknown_struct(void)
{
	VkPresentIdKHR id = {.sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR};
	VkBaseInStructure unknown = {.sType = UNKNOWN_STYPE, .pNext = (const VkBaseInStructure *)&id};
	VkPresentRegionsKHR regions = {.sType = VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR, .pNext = &unknown};
	VkBaseOutStructure mine = {.sType = MY_STYPE};
	struct lowlat_present_chain c;

	lowlat_present_chain_scan(&c, &regions);
	CHECK(c.app[LOWLAT_LINK_ID] == &id && !lowlat_present_chain_can_put(&c, LOWLAT_LINK_ID));
	CHECK(lowlat_present_chain_can_put(&c, LOWLAT_LINK_MODE));
	lowlat_present_chain_put(&c, LOWLAT_LINK_MODE, &mine);
	const void *head = lowlat_present_chain_build(&c, &regions);
	CHECK(head == &mine && next(head) == &regions);
}

/* More structs in front than the copies' room: the one behind them cannot be replaced. */
static void test_room(void)
{
	VkPresentRegionsKHR regions[LOWLAT_PRESENT_CHAIN_BYTES / sizeof(VkPresentRegionsKHR) + 1];
	VkPresentIdKHR id = {.sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR};
	const void *head = &id;
	struct lowlat_present_chain c;

	for (unsigned i = 0; i < sizeof(regions) / sizeof(regions[0]); i++) {
		regions[i] =
		        (VkPresentRegionsKHR){.sType = VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR, .pNext = head};
		head = &regions[i];
	}
	lowlat_present_chain_scan(&c, head);
	CHECK(c.app[LOWLAT_LINK_ID] == &id && !lowlat_present_chain_can_put(&c, LOWLAT_LINK_ID));
}

int main(void)
{
	RUN(test_nothing_put);
	RUN(test_replace_and_add);
	RUN(test_unknown_struct);
	RUN(test_room);
	return check_result();
}
