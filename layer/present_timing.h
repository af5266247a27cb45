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

#include "create_info.h"
#include "objects.h"

/* Device creation: VK_EXT_present_timing, its dependencies and its feature struct added to the
 * copy of the app's VkDeviceCreateInfo (create_info.h), when the device offers them and the app
 * does not use present timing itself. enable says whether they were added; reason says why not. */
struct lowlat_device_setup {
	bool enable, app_timing;
	const char *reason;
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

void lowlat_timing_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                struct lowlat_device_info *d, struct lowlat_device_setup *s);

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

/* The latency-frames cap, inside the app's present call: polls the display's results (as
 * lowlat_timing_update) until at most `unshown` of the swapchain's presents with stage queries are
 * still to be reported (each report comes once its first pixel is out, or it was dropped), or
 * until deadline_ns. Returns whether it got there; false also when nothing can be waited for. */
bool lowlat_timing_wait_shown(struct lowlat_swapchain *sc, uint32_t unshown, int64_t deadline_ns);

#else

static inline void lowlat_timing_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                              struct lowlat_device_info *d, struct lowlat_device_setup *s)
{
	(void)inst;
	(void)physical;
	(void)d;
	*s = (struct lowlat_device_setup){.reason = "lowlat was built without VK_EXT_present_timing headers"};
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
static inline bool lowlat_timing_wait_shown(struct lowlat_swapchain *sc, uint32_t unshown,
                                            int64_t deadline_ns)
{
	(void)sc;
	(void)unshown;
	(void)deadline_ns;
	return false;
}

#endif

#endif
