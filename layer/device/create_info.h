/* create_info.h — copies of the app's VkInstanceCreateInfo and VkDeviceCreateInfo that carry what
 * lowlat adds behind its back: extension names and feature bits.
 *
 * Several modules add to one copy (present_timing.c: VK_EXT_present_timing and its dependencies;
 * present_mode.c: FIFO_LATEST_READY and swapchain_maintenance1), so the copy is built here once and
 * each module asks for its names and features. A feature goes into a struct of ours in front of the
 * app's chain, or, when the app already chains a struct of that type, is ORed into a copy of it
 * (chain.h). The app's structs and arrays are never written.
 */
#ifndef LOWLAT_CREATE_INFO_H
#define LOWLAT_CREATE_INFO_H

#include <stdbool.h>
#include <stddef.h>

#include "chain.h"
#include "vk_compat.h"

struct lowlat_instance;

/* Extension names lowlat may add to one create info, at most. */
#define LOWLAT_ADDED_EXTENSIONS_MAX 8

/* The forms of surface_maintenance1 (present-mode compatibility), each a dependency of the
 * swapchain_maintenance1 of the same form. A device may list one form only (drivers from before the
 * KHR promotion list the EXT one), so lowlat enables every form the instance offers. */
enum { LOWLAT_MAINT1_KHR = 1, LOWLAT_MAINT1_EXT = 2 };
#define LOWLAT_MAINT1_KHR_NAME "VK_KHR_surface_maintenance1"
#define LOWLAT_MAINT1_EXT_NAME "VK_EXT_surface_maintenance1"

/* A copy of the app's VkInstanceCreateInfo with the instance extensions lowlat's device-level
 * features need: VK_KHR_get_surface_capabilities2 (present timing's surface queries, and a
 * dependency of surface_maintenance1), VK_KHR_get_physical_device_properties2 below Vulkan 1.1
 * (feature queries), and the forms of surface_maintenance1 asked for. Only when the app enabled
 * VK_KHR_surface. */
struct lowlat_instance_setup {
	VkInstanceCreateInfo info;
	const char **names; /* the copy's extension list, allocated; NULL when nothing was added */
	bool surface_caps2, properties2;
	unsigned surface_maint1; /* LOWLAT_MAINT1_* enabled, the app's or ours */
};

/* Returns whether info differs from the app's. maint1: the forms of surface_maintenance1 to enable
 * besides those the app did (LOWLAT_MAINT1_*; 0 for none). */
bool lowlat_instance_setup(const VkInstanceCreateInfo *app, unsigned maint1, struct lowlat_instance_setup *s);
void lowlat_instance_setup_fini(struct lowlat_instance_setup *s);

struct lowlat_device_info {
	const VkDeviceCreateInfo *app;
	VkDeviceCreateInfo info; /* the copy; differs from *app when changed */
	const char **names;      /* allocated on the first added name */
	struct lowlat_chain_storage chain;
	bool changed;
};

void lowlat_device_info_init(struct lowlat_device_info *d, const VkDeviceCreateInfo *app);
void lowlat_device_info_fini(struct lowlat_device_info *d);

/* Whether the copy (the app's names and those added so far) enables the extension. */
bool lowlat_device_info_has(const struct lowlat_device_info *d, const char *name);

/* Adds the name unless already there. False when out of memory or out of room. */
bool lowlat_device_info_add(struct lowlat_device_info *d, const char *name);

/* Makes the copy enable every VkBool32 member that is VK_TRUE in `features` (a feature struct of
 * `size` bytes, pNext ignored). Returns NULL on success, else why not (a constant string). */
const char *lowlat_device_info_enable(struct lowlat_device_info *d, const void *features, size_t size);

/* The device's extensions (calloc'd, *count entries), NULL when they cannot be listed. */
VkExtensionProperties *lowlat_device_extensions(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                                uint32_t *count);
bool lowlat_extensions_have(const VkExtensionProperties *props, uint32_t count, const char *name);

/* Fills a chain of VkPhysicalDevice*Features structs (`features`, its head) with what the device
 * supports, through vkGetPhysicalDeviceFeatures2. */
void lowlat_device_features(struct lowlat_instance *inst, VkPhysicalDevice physical, void *features);

#endif
