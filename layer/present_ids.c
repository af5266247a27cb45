/* present_ids.c — lowlat's present ids and present wait; see present_ids.h. */
#include "present_ids.h"

#include <stdlib.h>

#include "chain.h"
#include "clock.h"
#include "message.h"

void lowlat_ids_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                             struct lowlat_device_info *d, struct lowlat_ids_device_setup *s)
{
	uint32_t count;
	VkExtensionProperties *props;
	bool id, wait;

	*s = (struct lowlat_ids_device_setup){0};
	if (!lowlat_device_info_has(d, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) {
		s->reason = "no VK_KHR_swapchain";
		return;
	}
	if (!inst->features2) {
		s->reason = "the instance lacks VK_KHR_get_physical_device_properties2";
		return;
	}
	if (!(props = lowlat_device_extensions(inst, physical, &count))) {
		s->reason = "the device's extensions could not be listed";
		return;
	}
	id = lowlat_extensions_have(props, count, VK_KHR_PRESENT_ID_EXTENSION_NAME);
	wait = lowlat_extensions_have(props, count, VK_KHR_PRESENT_WAIT_EXTENSION_NAME);
	free(props);
	if (!id || !wait) {
		s->reason =
		        id ? "the device lacks VK_KHR_present_wait" : "the device lacks VK_KHR_present_id";
		return;
	}
	VkPhysicalDevicePresentWaitFeaturesKHR wait_supported = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR};
	VkPhysicalDevicePresentIdFeaturesKHR id_supported = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR, .pNext = &wait_supported};
	VkPhysicalDeviceFeatures2 features2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
	                                       .pNext = &id_supported};
	inst->features2(physical, &features2);
	if (!id_supported.presentId || !wait_supported.presentWait) {
		s->reason = "the device does not support the present id and present wait features";
		return;
	}
	/* Into structs of ours, or ORed into copies of the app's (create_info.h). */
	const VkPhysicalDevicePresentIdFeaturesKHR id_features = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR, .presentId = VK_TRUE};
	const VkPhysicalDevicePresentWaitFeaturesKHR wait_features = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR, .presentWait = VK_TRUE};
	if ((s->reason = lowlat_device_info_enable(d, &id_features, sizeof(id_features))) ||
	    (s->reason = lowlat_device_info_enable(d, &wait_features, sizeof(wait_features))))
		return;
	if (!lowlat_device_info_add(d, VK_KHR_PRESENT_ID_EXTENSION_NAME) ||
	    !lowlat_device_info_add(d, VK_KHR_PRESENT_WAIT_EXTENSION_NAME)) {
		s->reason = "out of memory";
		return;
	}
	s->enable = true;
}

/* The app's id for swapchain i of a present: its VkPresentIdKHR, else its VkPresentId2KHR. */
static uint64_t app_id_of(const VkPresentIdKHR *id1, const void *id2, uint32_t i)
{
	if (id1 && id1->pPresentIds && i < id1->swapchainCount)
		return id1->pPresentIds[i];
#ifdef VK_KHR_present_id2
	const VkPresentId2KHR *ids2 = id2;
	if (ids2 && ids2->pPresentIds && i < ids2->swapchainCount)
		return ids2->pPresentIds[i];
#else
	(void)id2;
#endif
	return 0;
}

/* The copy's chain with the app's id struct of `type` (found in it) pointing at lowlat's ids. */
static const void *replace_ids(const void *head, VkStructureType type, struct lowlat_chain_storage *storage,
                               struct lowlat_ids_present *p, uint32_t n)
{
	const void *found = lowlat_chain_find(head, type);
	void *copy;

	if (!found)
		return head;
	head = lowlat_chain_copy_to(head, found, storage, &copy);
	if (!head)
		return NULL;
	/* VkPresentIdKHR and VkPresentId2KHR have the same layout past the header. */
	((VkPresentIdKHR *)copy)->swapchainCount = n;
	((VkPresentIdKHR *)copy)->pPresentIds = p->ids;
	return head;
}

const VkPresentInfoKHR *lowlat_ids_present(struct lowlat_device *dev, const VkPresentInfoKHR *info,
                                           struct lowlat_ids_present *p)
{
	const VkPresentIdKHR *id1 = lowlat_chain_find(info->pNext, VK_STRUCTURE_TYPE_PRESENT_ID_KHR);
	const void *id2 = NULL;
	uint32_t n = info->swapchainCount;
	bool owned = false;

#ifdef VK_KHR_present_id2
	id2 = lowlat_chain_find(info->pNext, VK_STRUCTURE_TYPE_PRESENT_ID_2_KHR);
#endif
	for (uint32_t i = 0; i < n; i++) {
		struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
		if (sc) {
			sc->present_id = 0;
			owned = owned || sc->ids_owned;
		}
	}
	if (!owned)
		return info;

	struct lowlat_chain_storage storage = {.buffer = p->storage, .size = sizeof(p->storage)};
	const void *head = n <= LOWLAT_IDS_PRESENT_SWAPCHAINS_MAX ? info->pNext : NULL;
	if (head && id1)
		head = replace_ids(head, VK_STRUCTURE_TYPE_PRESENT_ID_KHR, &storage, p, n);
#ifdef VK_KHR_present_id2
	if (head && id2)
		head = replace_ids(head, VK_STRUCTURE_TYPE_PRESENT_ID_2_KHR, &storage, p, n);
#endif
	if (n > LOWLAT_IDS_PRESENT_SWAPCHAINS_MAX || (!head && (id1 || id2))) {
		/* The driver would see the app's ids mixed with lowlat's, out of order: those swapchains
		 * give their ids back to the app for good, and leave the "present-wait" level. */
		for (uint32_t i = 0; i < n; i++) {
			struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
			if (sc && sc->ids_owned) {
				sc->ids_owned = false;
				lowlat_msg("swapchain %ux%u: a present lowlat cannot copy (more than %d "
				           "swapchains, or a "
				           "structure it does not know before the app's present ids); its "
				           "ids are the "
				           "app's again, and it is paced on the CPU clock",
				           sc->extent.width, sc->extent.height,
				           LOWLAT_IDS_PRESENT_SWAPCHAINS_MAX);
			}
		}
		return info;
	}
	if (!id1 && !id2) {
		p->id = (VkPresentIdKHR){.sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR,
		                         .pNext = info->pNext,
		                         .swapchainCount = n,
		                         .pPresentIds = p->ids};
		head = &p->id;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
		uint64_t app = app_id_of(id1, id2, i);
		p->ids[i] = sc && sc->ids_owned ? (sc->present_id = lowlat_id_map_issue(&sc->ids, app)) : app;
	}
	p->info = *info;
	p->info.pNext = head;
	return &p->info;
}

/* One wait down the chain for lowlat's id `id`, v1 or v2 as the app called it. */
static VkResult wait_down(struct lowlat_device *dev, VkSwapchainKHR swapchain, uint64_t id, uint64_t timeout,
                          const void *wait2_info)
{
#ifdef VK_KHR_present_wait2
	if (wait2_info) {
		VkPresentWait2InfoKHR copy = *(const VkPresentWait2InfoKHR *)wait2_info;
		copy.presentId = id;
		copy.timeout = timeout;
		return dev->vk.WaitForPresent2KHR(dev->handle, swapchain, &copy);
	}
#else
	(void)wait2_info;
#endif
	return dev->vk.WaitForPresentKHR(dev->handle, swapchain, id, timeout);
}

VkResult lowlat_ids_wait(struct lowlat_device *dev, struct lowlat_swapchain *sc, VkSwapchainKHR swapchain,
                         uint64_t app_id, uint64_t timeout, const void *wait2_info)
{
	/* UINT64_MAX: no timeout. */
	int64_t deadline_ns =
	        timeout >= (uint64_t)INT64_MAX / 2 ? INT64_MAX : lowlat_now_ns() + (int64_t)timeout;
	uint64_t ours;

	if (!sc || !sc->ids_owned || !app_id)
		return wait_down(dev, swapchain, app_id, timeout, wait2_info);
	/* No present with an app id at or above app_id yet: wait for the next present of ours to be
	 * shown, then look again. Each round ends with a present shown (or the app's timeout), so
	 * this never spins; the app's id is reached once a present at or above it is shown. */
	while (!lowlat_id_map_translate(&sc->ids, app_id, &ours)) {
		int64_t left = deadline_ns - lowlat_now_ns();
		VkResult r = wait_down(
		        dev, swapchain, ours + 1,
		        deadline_ns == INT64_MAX ? UINT64_MAX : (uint64_t)(left > 0 ? left : 0), wait2_info);
		if (r != VK_SUCCESS)
			return r;
	}
	int64_t left = deadline_ns - lowlat_now_ns();
	return wait_down(dev, swapchain, ours,
	                 deadline_ns == INT64_MAX ? UINT64_MAX : (uint64_t)(left > 0 ? left : 0), wait2_info);
}

VkResult lowlat_ids_wait_shown(struct lowlat_swapchain *sc, uint64_t id, int64_t timeout_ns)
{
	struct lowlat_device *dev = sc->device;

	return dev->vk.WaitForPresentKHR(dev->handle, sc->handle, id,
	                                 (uint64_t)(timeout_ns > 0 ? timeout_ns : 0));
}
