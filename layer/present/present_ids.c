/* present_ids.c — lowlat's present ids and present wait; see present_ids.h. */
#include "present_ids.h"

#include <stdlib.h>

#include "clock.h"
#include "message.h"
#include "swapchain.h"

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
	lowlat_device_features(inst, physical, &id_supported);
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

void lowlat_ids_app_ids(struct lowlat_present_call *call)
{
	/* VkPresentId2KHR has VkPresentIdKHR's layout past the header. */
	const VkPresentIdKHR *id1 = call->chain.app[LOWLAT_LINK_ID], *id2 = call->chain.app[LOWLAT_LINK_ID2];

	for (uint32_t i = 0; i < call->count; i++) {
		uint64_t id = 0;
		if (id1 && id1->pPresentIds && i < id1->swapchainCount)
			id = id1->pPresentIds[i];
		else if (id2 && id2->pPresentIds && i < id2->swapchainCount)
			id = id2->pPresentIds[i];
		call->frames[i].app_id = id;
	}
}

/* lowlat's ids in a copy of the app's struct of the kind (or a VkPresentIdKHR of its own where the
 * app chains no ids), put in the chain that goes down. */
static void put_ids(struct lowlat_present_call *call, enum lowlat_link kind, VkPresentIdKHR *s,
                    struct lowlat_ids_present *p)
{
	const VkPresentIdKHR *app = call->chain.app[kind];

	*s = app ? *app : (VkPresentIdKHR){.sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR};
	s->swapchainCount = call->count;
	s->pPresentIds = p->ids;
	lowlat_present_chain_put(&call->chain, kind, s);
}

void lowlat_ids_present(struct lowlat_present_call *call, struct lowlat_ids_present *p)
{
	struct lowlat_present_chain *chain = &call->chain;
	uint32_t n = call->count;
	bool owned = false;

	for (uint32_t i = 0; i < n; i++) {
		struct lowlat_swapchain *sc = call->frames[i].sc;
		if (sc) {
			sc->present_id = 0;
			owned = owned || sc->ids_owned;
		}
	}
	if (!owned)
		return;

	if (!lowlat_present_chain_can_put(chain, LOWLAT_LINK_ID) ||
	    !lowlat_present_chain_can_put(chain, LOWLAT_LINK_ID2)) {
		/* The driver would see the app's ids mixed with lowlat's, out of order: those swapchains
		 * give their ids back to the app for good, and leave the "present-wait" level. */
		for (uint32_t i = 0; i < n; i++) {
			struct lowlat_swapchain *sc = call->frames[i].sc;
			if (sc && sc->ids_owned) {
				sc->ids_owned = false;
				LOWLAT_WARN_LIMITED(
				        "swapchain %ux%u: a present lowlat cannot copy (a structure it does "
				        "not know before the app's present ids); its ids are the app's "
				        "again, and it is paced on the CPU clock",
				        sc->extent.width, sc->extent.height);
			}
		}
		return;
	}
	if (chain->app[LOWLAT_LINK_ID] || !chain->app[LOWLAT_LINK_ID2])
		put_ids(call, LOWLAT_LINK_ID, &p->id, p);
	if (chain->app[LOWLAT_LINK_ID2])
		put_ids(call, LOWLAT_LINK_ID2, &p->id2, p);
	for (uint32_t i = 0; i < n; i++) {
		struct lowlat_frame *f = &call->frames[i];
		p->ids[i] = f->sc && f->sc->ids_owned
		                    ? (f->sc->present_id = lowlat_id_map_issue(&f->sc->ids, f->app_id))
		                    : f->app_id;
	}
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
