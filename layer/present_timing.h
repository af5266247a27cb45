/* present_timing.h — lowlat's use of VK_EXT_present_timing: enabling it behind the app's back,
 * swapchains created for it, and the display's feedback read back at each present.
 *
 * Built only against headers that define VK_EXT_present_timing; with older ones (Debian 12's
 * 1.3.239) every function below is a static-inline stub that says "not available", so callers carry
 * no #ifdef and such a build paces on the CPU clock ("cpu") as before.
 */
#ifndef LOWLAT_PRESENT_TIMING_H
#define LOWLAT_PRESENT_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "objects.h"

/* A copy of the app's VkInstanceCreateInfo with the instance extensions present timing needs
 * added: VK_KHR_get_surface_capabilities2 (when the app enabled VK_KHR_surface, which it depends
 * on) and, for an instance below Vulkan 1.1, VK_KHR_get_physical_device_properties2. */
struct lowlat_instance_setup {
	VkInstanceCreateInfo info;
	const char **names; /* the copy's extension list, allocated; NULL when nothing was added */
	bool surface_caps2, properties2;
};

/* Device creation: a copy of the app's VkDeviceCreateInfo with VK_EXT_present_timing, its
 * dependencies and its feature struct added, when the device offers them and the app does not use
 * present timing itself. enable says whether to use the copy; reason says why not otherwise. */
struct lowlat_device_setup {
	VkDeviceCreateInfo info;
	const char **names;
	bool enable, app_timing;
	const char *reason;
#ifdef VK_EXT_present_timing
	VkPhysicalDevicePresentTimingFeaturesEXT features;
#endif
};

/* Swapchain creation: a copy of the app's create info with the present-timing flag, when the
 * surface supports it on a device with present timing enabled by lowlat. */
struct lowlat_swapchain_setup {
	VkSwapchainCreateInfoKHR info;
	bool timing;
	const char *reason;
	uint32_t stage_queries; /* the stages the surface reports */
};

#ifdef VK_EXT_present_timing

bool lowlat_timing_instance_setup(const VkInstanceCreateInfo *app, struct lowlat_instance_setup *s);
void lowlat_timing_instance_setup_fini(struct lowlat_instance_setup *s);

void lowlat_timing_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                const VkDeviceCreateInfo *app, struct lowlat_device_setup *s);
void lowlat_timing_device_setup_fini(struct lowlat_device_setup *s);

void lowlat_timing_swapchain_setup(struct lowlat_device *dev, const VkSwapchainCreateInfoKHR *app,
                                   struct lowlat_swapchain_setup *s);

/* After the driver created the swapchain with the flag: sizes the results queue, finds the
 * CLOCK_MONOTONIC time domain, tries the refresh duration. Sets sc->timing.active, or leaves it
 * false and returns why. */
const char *lowlat_timing_swapchain_init(struct lowlat_swapchain *sc, uint32_t stage_queries);

/* At each present, inside the app's call (the swapchain is externally synchronised there): reads
 * the refresh duration if not known yet or changed, and drains the display's results, feeding the
 * ready-time prediction, the grid's phase and the log. */
void lowlat_timing_update(struct lowlat_swapchain *sc);

#else

static inline bool lowlat_timing_instance_setup(const VkInstanceCreateInfo *app,
                                                struct lowlat_instance_setup *s)
{
	*s = (struct lowlat_instance_setup){.info = *app};
	return false;
}
static inline void lowlat_timing_instance_setup_fini(struct lowlat_instance_setup *s)
{
	(void)s;
}
static inline void lowlat_timing_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                              const VkDeviceCreateInfo *app, struct lowlat_device_setup *s)
{
	(void)inst;
	(void)physical;
	(void)app;
	*s = (struct lowlat_device_setup){.reason = "lowlat was built without VK_EXT_present_timing headers"};
}
static inline void lowlat_timing_device_setup_fini(struct lowlat_device_setup *s)
{
	(void)s;
}
static inline void lowlat_timing_swapchain_setup(struct lowlat_device *dev,
                                                 const VkSwapchainCreateInfoKHR *app,
                                                 struct lowlat_swapchain_setup *s)
{
	*s = (struct lowlat_swapchain_setup){.info = *app, .reason = dev->timing_reason};
}
static inline const char *lowlat_timing_swapchain_init(struct lowlat_swapchain *sc, uint32_t stage_queries)
{
	(void)sc;
	(void)stage_queries;
	return "lowlat was built without VK_EXT_present_timing headers";
}
static inline void lowlat_timing_update(struct lowlat_swapchain *sc)
{
	(void)sc;
}

#endif

#endif
