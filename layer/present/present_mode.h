/* present_mode.h — which present mode each swapchain and each present gets (the `present_mode`
 * setting).
 *
 * `auto` turns the app's FIFO into FIFO_LATEST_READY only while lowlat caps the swapchain (and so
 * may attach target times): a frame that is late for its refresh then replaces, rather than queues
 * behind, the one before it. When lowlat does not cap, FIFO stays FIFO, so the app keeps V-Sync
 * back-pressure (DXVK and vkd3d-proton use present wait only in FIFO). The cap can change at run
 * time, so where swapchain_maintenance1 is there the swapchain is created able to use both and each
 * present says which; without it the mode is chosen once at creation. An explicit mode is forced at
 * creation when the surface offers it.
 *
 * Built only against headers that define VK_KHR_swapchain_maintenance1, VK_KHR_surface_maintenance1
 * and VK_KHR_present_mode_fifo_latest_ready; with older ones every function is a stub and
 * swapchains keep the app's mode, which the one line per swapchain says.
 */
#ifndef LOWLAT_PRESENT_MODE_H
#define LOWLAT_PRESENT_MODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "create_info.h"
#include "present_call.h"
#include "present_mode_state.h"

struct lowlat_instance;
struct lowlat_device;
struct lowlat_config;
struct lowlat_present_call;

#if defined(VK_KHR_swapchain_maintenance1) && defined(VK_KHR_surface_maintenance1) &&                        \
        defined(VK_KHR_present_mode_fifo_latest_ready)
#define LOWLAT_HAVE_PRESENT_MODES 1
#endif

/* Device creation: FIFO_LATEST_READY and swapchain_maintenance1 (extension and feature) added to
 * the copy when the device offers them. */
struct lowlat_mode_device_setup {
	bool latest_ready, maintenance1;
	const char *reason;        /* why not FIFO_LATEST_READY */
	const char *switch_reason; /* why not swapchain_maintenance1 */
};

/* Swapchain creation: changes made to the driver's copy of the create info (`info`, already a
 * copy of the app's). */
struct lowlat_mode_swapchain_setup {
	bool changed;
	struct lowlat_swapchain_modes modes;
	VkPresentModeKHR list[8];
	VkPresentModeKHR created_mode;
	uint32_t min_image_count;
	char why[200]; /* the per-swapchain line's reason */
#ifdef LOWLAT_HAVE_PRESENT_MODES
	VkSwapchainPresentModesCreateInfoKHR create_modes;
#endif
	unsigned char storage[512];
	struct lowlat_chain_storage chain;
};

/* A present's copy with each swapchain's mode; storage for lowlat_mode_present. */
struct lowlat_mode_present {
#ifdef LOWLAT_HAVE_PRESENT_MODES
	VkSwapchainPresentModeInfoKHR modes;
#endif
	VkPresentModeKHR mode[LOWLAT_CALL_SWAPCHAINS_MAX];
};

#ifdef LOWLAT_HAVE_PRESENT_MODES

/* The forms of surface_maintenance1 to add to the instance where it offers them (create_info.h). */
#define LOWLAT_SURFACE_MAINTENANCE1_FORMS (LOWLAT_MAINT1_KHR | LOWLAT_MAINT1_EXT)

void lowlat_mode_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                              struct lowlat_device_info *d, struct lowlat_mode_device_setup *s);

/* Decides the swapchain's mode policy from the settings in force (cfg) and edits *info (lowlat's
 * copy of the app's create info) to match; s->modes is the swapchain's record to keep. */
void lowlat_mode_swapchain_setup(struct lowlat_device *dev, const struct lowlat_config *cfg,
                                 VkSwapchainCreateInfoKHR *info, struct lowlat_mode_swapchain_setup *s);

/* At each present, after every swapchain's settings were brought up to date: mp->modes, with each
 * swapchain's mode, is put in the chain that goes down where lowlat states or changes one
 * (present_chain.h), and sc->current_mode is the mode each swapchain presents in. */
void lowlat_mode_present(struct lowlat_present_call *call, struct lowlat_mode_present *mp);

#else

#define LOWLAT_SURFACE_MAINTENANCE1_FORMS 0u

static inline void lowlat_mode_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                            struct lowlat_device_info *d, struct lowlat_mode_device_setup *s)
{
	(void)inst;
	(void)physical;
	(void)d;
	*s = (struct lowlat_mode_device_setup){
	        .reason = "lowlat was built without headers for FIFO_LATEST_READY and swapchain_maintenance1",
	        .switch_reason = "lowlat was built without headers for swapchain_maintenance1"};
}
static inline void lowlat_mode_swapchain_setup(struct lowlat_device *dev, const struct lowlat_config *cfg,
                                               VkSwapchainCreateInfoKHR *info,
                                               struct lowlat_mode_swapchain_setup *s)
{
	(void)dev;
	(void)cfg;
	*s = (struct lowlat_mode_swapchain_setup){.created_mode = info->presentMode};
	s->modes.app_mode = info->presentMode;
	snprintf(s->why, sizeof(s->why),
	         "as the app asked; lowlat was built without headers for FIFO_LATEST_READY and "
	         "swapchain_maintenance1");
}
static inline void lowlat_mode_present(struct lowlat_present_call *call, struct lowlat_mode_present *mp)
{
	(void)call;
	(void)mp;
}

#endif

#endif
