/* present_ids.h — lowlat's own present ids, and present wait behind the app's back.
 *
 * Owns: enabling VK_KHR_present_id and VK_KHR_present_wait on a copy of the device create info
 * (create_info.h) where the device offers them and the app does not drive VK_EXT_present_timing;
 * the copy of each present info that gives the driver lowlat's ids (id_map.h) on swapchains whose
 * ids lowlat owns; translating the app's vkWaitForPresentKHR / vkWaitForPresent2KHR ids into
 * lowlat's (the one place: present_wait.c's hooks call lowlat_ids_wait); and lowlat's own wait for
 * a present to be shown (the "present-wait" pacing level's latency-frames cap, present.c).
 *
 * Only swapchains on the "present-wait" pacing level own their ids. Everywhere else the app's ids
 * reach the driver untouched: the "timing" level matches its results by present order
 * (present_timing.c), and the driver's own VK_NV_low_latency2 matches the app's ids in its
 * markers, so such devices never get the level (swapchain_life.c, pacing_level_select).
 */
#ifndef LOWLAT_PRESENT_IDS_H
#define LOWLAT_PRESENT_IDS_H

#include <stdbool.h>
#include <stdint.h>

#include "create_info.h"
#include "present_call.h"

struct lowlat_instance;
struct lowlat_device;
struct lowlat_swapchain;

/* Device creation: present_id and present_wait (extensions and features) on the copy, when the
 * device offers both. enable says whether the device has them (the app's or lowlat's); reason why
 * not (a constant string). */
struct lowlat_ids_device_setup {
	bool enable;
	const char *reason;
};

void lowlat_ids_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                             struct lowlat_device_info *d, struct lowlat_ids_device_setup *s);

/* lowlat's ids for a present, and the structs that carry them down; storage for lowlat_ids_present. */
struct lowlat_ids_present {
	VkPresentIdKHR id, id2; /* id2: in place of the app's VkPresentId2KHR (the same layout) */
	uint64_t ids[LOWLAT_CALL_SWAPCHAINS_MAX];
};

/* On a present's entry: each frame's app_id, from the app's VkPresentIdKHR, else its
 * VkPresentId2KHR (0: none). */
void lowlat_ids_app_ids(struct lowlat_present_call *call);

/* At each present: where a swapchain of the call owns its ids, lowlat's ids are put in the chain
 * that goes down (in place of the app's VkPresentIdKHR / VkPresentId2KHR, present_chain.h), and
 * that swapchain's sc->present_id is the id the driver sees (0 on the others). */
void lowlat_ids_present(struct lowlat_present_call *call, struct lowlat_ids_present *p);

/* The app's present wait for its id app_id (v2: its VkPresentWait2InfoKHR, else NULL), translated
 * into lowlat's ids on a swapchain that owns them (sc may be NULL: passed through). Returns what
 * the driver's wait returned. */
VkResult lowlat_ids_wait(struct lowlat_device *dev, struct lowlat_swapchain *sc, VkSwapchainKHR swapchain,
                         uint64_t app_id, uint64_t timeout, const void *wait2_info);

/* lowlat's own wait, inside the app's present call, until its present `id` was shown or
 * timeout_ns passed. */
VkResult lowlat_ids_wait_shown(struct lowlat_swapchain *sc, uint64_t id, int64_t timeout_ns);

#endif
