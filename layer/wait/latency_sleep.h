/* latency_sleep.h — VK_NV_low_latency2 in lowlat: offered to the app when the driver lacks it, its
 * commands, and the app's vkLatencySleepNV as lowlat's wait point (wait_point.h says why).
 *
 * Modes per device (struct lowlat_latency_device.mode):
 *  - emulated: the app enabled the extension, the driver lacks it (offered only where the device
 *    has VK_KHR_present_id or present_id2, which it depends on, and not with `enabled: false`).
 *    lowlat strips it from the device create info and its structs from every call, implements every
 *    command, and signals the app's timeline semaphore itself at the release time: on the thread
 *    that waits for that value in vkWaitSemaphores (DXVK's game thread), else on a signaler thread
 *    per device, so no signal is lost; each value once and in order (latency_book.h). Also where
 *    the device's list names the extension but the driver below resolves not all its commands
 *    (the loader lists every implicit layer's manifest extensions as the driver's).
 *  - native: the driver has it. lowlat's cap is waited inside the app's vkLatencySleepNV before
 *    calling down; the driver's sleep still keeps the app's minimumIntervalUs, left as the app set it.
 *  - off: the app did not enable it; no hook of this file is handed out.
 * Built only against headers that define VK_NV_low_latency2; with older ones (Debian 12's 1.3.239)
 * the functions below are stubs and the extension is never offered.
 */
#ifndef LOWLAT_LATENCY_SLEEP_H
#define LOWLAT_LATENCY_SLEEP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "brain/pace.h"
#include "brain/pace_display.h"
#include "chain.h"
#include "latency_book.h"
#include "latency_device.h"
#include "wait_point.h"

struct lowlat_instance;
struct lowlat_device;
struct lowlat_swapchain;

/* Device creation: a copy of the app's create info without VK_NV_low_latency2 when the driver
 * lacks it (emulated), else the app's own; mode says which. */
struct lowlat_latency_setup {
	VkDeviceCreateInfo info;
	const char **names; /* allocated for the copy, NULL otherwise */
	enum lowlat_latency_mode mode;
};

#ifdef VK_NV_low_latency2

void lowlat_latency_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                 const VkDeviceCreateInfo *app, struct lowlat_latency_setup *s);
void lowlat_latency_device_setup_fini(struct lowlat_latency_setup *s);
/* After the device was created (dispatch loaded) / before it is destroyed. */
void lowlat_latency_device_init(struct lowlat_device *dev, enum lowlat_latency_mode mode);
void lowlat_latency_device_fini(struct lowlat_device *dev);

/* Swapchain creation: the app's create info, or a copy without VkSwapchainLatencyCreateInfoNV
 * (emulated devices), in *out; storage for the copy in *copy. */
const VkSwapchainCreateInfoKHR *lowlat_latency_swapchain_info(struct lowlat_device *dev,
                                                              const VkSwapchainCreateInfoKHR *app,
                                                              VkSwapchainCreateInfoKHR *copy,
                                                              struct lowlat_chain_storage *storage);
/* Before the swapchain is destroyed: sends the signals still owed for its sleeps. */
void lowlat_latency_swapchain_fini(struct lowlat_device *dev, struct lowlat_swapchain *sc);

/* The hook for a device or instance function of the extension (or vkWaitSemaphores, vkQueueSubmit*
 * for emulated devices), NULL when the name is none of them. mode: the device's, or -1 from
 * vkGetInstanceProcAddr (every hook then checks its device). */
PFN_vkVoidFunction lowlat_latency_device_hook(const char *name, int mode);
PFN_vkVoidFunction lowlat_latency_instance_hook(const char *name);
/* Whether name is one of the extension's commands, which lowlat implements even where the driver
 * below has no such function. */
bool lowlat_latency_provides(const char *name);

#else

static inline void lowlat_latency_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                               const VkDeviceCreateInfo *app, struct lowlat_latency_setup *s)
{
	(void)inst;
	(void)physical;
	*s = (struct lowlat_latency_setup){.info = *app};
}
static inline void lowlat_latency_device_setup_fini(struct lowlat_latency_setup *s)
{
	(void)s;
}
static inline void lowlat_latency_device_init(struct lowlat_device *dev, enum lowlat_latency_mode mode)
{
	(void)dev;
	(void)mode;
}
static inline void lowlat_latency_device_fini(struct lowlat_device *dev)
{
	(void)dev;
}
static inline const VkSwapchainCreateInfoKHR *
lowlat_latency_swapchain_info(struct lowlat_device *dev, const VkSwapchainCreateInfoKHR *app,
                              VkSwapchainCreateInfoKHR *copy, struct lowlat_chain_storage *storage)
{
	(void)dev;
	(void)copy;
	(void)storage;
	return app;
}
static inline void lowlat_latency_swapchain_fini(struct lowlat_device *dev, struct lowlat_swapchain *sc)
{
	(void)dev;
	(void)sc;
}
static inline PFN_vkVoidFunction lowlat_latency_device_hook(const char *name, int mode)
{
	(void)name;
	(void)mode;
	return NULL;
}
static inline PFN_vkVoidFunction lowlat_latency_instance_hook(const char *name)
{
	(void)name;
	return NULL;
}
static inline bool lowlat_latency_provides(const char *name)
{
	(void)name;
	return false;
}

#endif

#endif
