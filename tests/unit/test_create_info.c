/* test_create_info.c — the create-info copies lowlat adds extensions and features to
 * (layer/device/create_info.c, layer/vulkan/chain.c): the app's structs and arrays stay as they were, a
 * feature goes into a struct of ours or a copy of the app's, a chain lowlat cannot copy is left alone. Uses
 * only structs every supported header version has. */
#include "check.h"
#include "create_info.h"
#include "plumbing.h"

#include <stdlib.h>

static const char *const app_names[] = {"VK_KHR_swapchain", "VK_KHR_present_id"};

static VkDeviceCreateInfo app_info(const void *chain)
{
	return (VkDeviceCreateInfo){.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                            .pNext = chain,
	                            .enabledExtensionCount = 2,
	                            .ppEnabledExtensionNames = app_names};
}

static const VkPhysicalDevicePresentIdFeaturesKHR want_present_id = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR, .presentId = VK_TRUE};

static void test_names(void)
{
	VkDeviceCreateInfo app = app_info(NULL);
	struct lowlat_device_info d;

	lowlat_device_info_init(&d, &app);
	CHECK(lowlat_device_info_has(&d, "VK_KHR_present_id"));
	CHECK(lowlat_device_info_add(&d, "VK_KHR_present_id")); /* already there: nothing added */
	CHECK(!d.changed && d.info.enabledExtensionCount == 2);
	CHECK(lowlat_device_info_add(&d, "VK_KHR_present_wait"));
	CHECK(lowlat_device_info_add(&d, "VK_KHR_present_wait"));
	CHECK(d.changed && d.info.enabledExtensionCount == 3);
	CHECK(d.info.ppEnabledExtensionNames != app_names);
	CHECK_STR(d.info.ppEnabledExtensionNames[2], "VK_KHR_present_wait");
	CHECK(app.enabledExtensionCount == 2 && app.ppEnabledExtensionNames == app_names);
	/* Room for LOWLAT_ADDED_EXTENSIONS_MAX added names, then a clear no. */
	static const char *const more[] = {"e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8"};
	for (int i = 0; i < LOWLAT_ADDED_EXTENSIONS_MAX - 1; i++)
		CHECK(lowlat_device_info_add(&d, more[i]));
	CHECK(!lowlat_device_info_add(&d, more[LOWLAT_ADDED_EXTENSIONS_MAX - 1]));
	CHECK(d.info.enabledExtensionCount == 2 + LOWLAT_ADDED_EXTENSIONS_MAX);
	lowlat_device_info_fini(&d);
}

/* Not chained by the app: a struct of ours in front of its chain. */
static void test_feature_added(void)
{
	VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
	VkDeviceCreateInfo app = app_info(&f2);
	struct lowlat_device_info d;

	lowlat_device_info_init(&d, &app);
	CHECK(lowlat_device_info_enable(&d, &want_present_id, sizeof(want_present_id)) == NULL);
	const VkPhysicalDevicePresentIdFeaturesKHR *ours = d.info.pNext;
	CHECK(ours && ours->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR &&
	      ours->presentId);
	CHECK(ours && ours->pNext == &f2);
	CHECK(app.pNext == &f2 && f2.pNext == NULL);
	lowlat_device_info_fini(&d);
}

/* Chained by the app with the feature off, behind structs lowlat knows: ORed into a copy, the
 * copies linked to the rest of the app's chain; the app's structs untouched. */
static void test_feature_ored(void)
{
	VkPhysicalDeviceMultiviewFeatures tail = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES};
	VkPhysicalDevicePresentIdFeaturesKHR id = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR, .pNext = &tail};
	VkPhysicalDeviceVulkan12Features v12 = {.sType =
	                                                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
	                                        .pNext = &id,
	                                        .timelineSemaphore = VK_TRUE};
	VkDeviceCreateInfo app = app_info(&v12);
	struct lowlat_device_info d;

	lowlat_device_info_init(&d, &app);
	CHECK(lowlat_device_info_enable(&d, &want_present_id, sizeof(want_present_id)) == NULL);
	const VkPhysicalDeviceVulkan12Features *c12 = d.info.pNext;
	CHECK(c12 != &v12 && c12->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES &&
	      c12->timelineSemaphore);
	const VkPhysicalDevicePresentIdFeaturesKHR *cid = c12->pNext;
	CHECK(cid != &id && cid->presentId && cid->pNext == &tail);
	CHECK(!id.presentId && v12.pNext == &id && app.pNext == &v12);
	/* Once on, asking again changes nothing. */
	const void *head = d.info.pNext;
	CHECK(lowlat_device_info_enable(&d, &want_present_id, sizeof(want_present_id)) == NULL);
	CHECK(d.info.pNext == head);
	lowlat_device_info_fini(&d);

	/* The app enables it itself: the app's chain as it is. */
	id.presentId = VK_TRUE;
	lowlat_device_info_init(&d, &app);
	CHECK(lowlat_device_info_enable(&d, &want_present_id, sizeof(want_present_id)) == NULL);
	CHECK(!d.changed && d.info.pNext == &v12);
	lowlat_device_info_fini(&d);
}

/* As the loader calls a layer: its layer link heads the chain, in front of the app's structs. The
 * copy carries a copy of the link (lowlat_CreateDevice moves that one on), the app's stays. */
static void test_feature_behind_loader_link(void)
{
	VkPhysicalDevicePresentIdFeaturesKHR id = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR};
	VkLayerDeviceLink next = {0};
	VkLayerDeviceCreateInfo link = {.sType = VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO,
	                                .pNext = &id,
	                                .function = VK_LAYER_LINK_INFO,
	                                .u.pLayerInfo = &next};
	VkDeviceCreateInfo app = app_info(&link);
	struct lowlat_device_info d;

	lowlat_device_info_init(&d, &app);
	CHECK(lowlat_device_info_enable(&d, &want_present_id, sizeof(want_present_id)) == NULL);
	const VkLayerDeviceCreateInfo *clink = d.info.pNext;
	CHECK(clink != &link && clink->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
	      clink->function == VK_LAYER_LINK_INFO && clink->u.pLayerInfo == &next);
	CHECK(lowlat_find_device_link(&d.info) == clink && lowlat_find_device_link(&app) == &link);
	const VkPhysicalDevicePresentIdFeaturesKHR *cid = clink->pNext;
	CHECK(cid != &id && cid->presentId && !id.presentId && link.pNext == &id);
	lowlat_device_info_fini(&d);
}

/* A struct of unknown size in front of the one to change: nothing changed, and why. */
static void test_feature_uncopyable(void)
{
	VkPhysicalDevicePresentIdFeaturesKHR id = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR};
	VkPhysicalDeviceMultiviewFeatures unknown = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES, .pNext = &id};
	VkDeviceCreateInfo app = app_info(&unknown);
	struct lowlat_device_info d;

	lowlat_device_info_init(&d, &app);
	CHECK(lowlat_chain_struct_size(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES) == 0);
	CHECK(lowlat_device_info_enable(&d, &want_present_id, sizeof(want_present_id)) != NULL);
	CHECK(!d.changed && d.info.pNext == &unknown && !id.presentId);
	lowlat_device_info_fini(&d);
}

/* The present path's copies go into a fixed buffer: one too small refuses. */
static void test_fixed_storage(void)
{
	VkPresentIdKHR id = {.sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR};
	VkPresentRegionsKHR regions = {.sType = VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR, .pNext = &id};
	unsigned char small[sizeof(VkPresentRegionsKHR)], big[128];
	struct lowlat_chain_storage s1 = {.buffer = small, .size = sizeof(small)};
	struct lowlat_chain_storage s2 = {.buffer = big, .size = sizeof(big)};
	void *copy = NULL;

	CHECK(lowlat_chain_find(&regions, VK_STRUCTURE_TYPE_PRESENT_ID_KHR) == &id);
	CHECK(lowlat_chain_copy_to(&regions, &id, &s1, &copy) == NULL);
	const VkPresentRegionsKHR *head = lowlat_chain_copy_to(&regions, &id, &s2, &copy);
	CHECK(head && (const void *)head != &regions && head->pNext == copy && copy != &id);
	CHECK(copy && ((VkPresentIdKHR *)copy)->pNext == NULL);
}

/* A structure left out of a chain (VkPresentIdKHR standing for the one lowlat strips): in front of
 * it copied, behind it shared, the app's untouched; every one of that type out; one lowlat cannot
 * copy in front of it refuses. */
static void test_without(void)
{
	VkPresentRegionsKHR tail = {.sType = VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR};
	VkPresentIdKHR id2 = {.sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR, .pNext = &tail};
	VkDisplayPresentInfoKHR mid = {.sType = VK_STRUCTURE_TYPE_DISPLAY_PRESENT_INFO_KHR, .pNext = &id2};
	VkPresentIdKHR id1 = {.sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR, .pNext = &mid};
	VkTimelineSemaphoreSubmitInfo head = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
	                                      .pNext = &id1};
	_Alignas(16) unsigned char buffer[256];
	struct lowlat_chain_storage s = {.buffer = buffer, .size = sizeof(buffer)};

	const VkBaseInStructure *c = NULL;
	CHECK(lowlat_chain_without(&head, VK_STRUCTURE_TYPE_PRESENT_ID_KHR, &s, (const void **)&c));
	CHECK(c && (const void *)c != &head && c->sType == head.sType);
	CHECK(c && c->pNext && (const void *)c->pNext != &mid && c->pNext->sType == mid.sType);
	CHECK(c && c->pNext && (const void *)c->pNext->pNext == &tail);
	CHECK(head.pNext == &id1 && id1.pNext == &mid && mid.pNext == &id2);
	/* Nothing of the type: the chain itself; the type first: the rest, nothing copied. */
	const void *out = NULL;
	s.used = 0;
	CHECK(lowlat_chain_without(&tail, VK_STRUCTURE_TYPE_PRESENT_ID_KHR, &s, &out) && out == &tail);
	CHECK(lowlat_chain_without(&id2, VK_STRUCTURE_TYPE_PRESENT_ID_KHR, &s, &out) && out == &tail &&
	      s.used == 0);
	/* The type alone (vkd3d-proton's submits: VkLatencySubmissionPresentIdNV and nothing else): an
	 * empty chain, which is a success, not a refusal. */
	VkPresentIdKHR alone = {.sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR};
	out = &alone;
	CHECK(lowlat_chain_without(&alone, VK_STRUCTURE_TYPE_PRESENT_ID_KHR, &s, &out) && out == NULL);
	/* A structure of unknown size in front: refused. */
	VkBaseInStructure unknown = {.sType = (VkStructureType)1000999999, .pNext = (const void *)&id2};
	CHECK(!lowlat_chain_without(&unknown, VK_STRUCTURE_TYPE_PRESENT_ID_KHR, &s, &out));
}

int main(void)
{
	RUN(test_names);
	RUN(test_feature_added);
	RUN(test_feature_ored);
	RUN(test_feature_behind_loader_link);
	RUN(test_feature_uncopyable);
	RUN(test_fixed_storage);
	RUN(test_without);
	return check_result();
}
