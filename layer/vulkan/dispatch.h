/* dispatch.h — the Vulkan functions lowlat calls down the chain, and the hooks it offers.
 *
 * Each function is named once, in an X-macro list; the same list declares the dispatch table and
 * fills it (objects.c), so a table entry cannot be declared and forgotten, or loaded twice.
 */
#ifndef LOWLAT_DISPATCH_H
#define LOWLAT_DISPATCH_H

#include "vk_compat.h"

/* Instance-level functions we call on the next layer. */
#define LOWLAT_INSTANCE_FUNCTIONS(F)                                                                         \
	F(GetInstanceProcAddr)                                                                               \
	F(DestroyInstance)                                                                                   \
	F(CreateDevice)                                                                                      \
	F(GetPhysicalDeviceProperties)                                                                       \
	F(EnumerateDeviceExtensionProperties)                                                                \
	F(GetPhysicalDeviceFeatures2)                                                                        \
	F(GetPhysicalDeviceFeatures2KHR)                                                                     \
	F(GetPhysicalDeviceSurfaceCapabilities2KHR)                                                          \
	F(GetPhysicalDeviceSurfacePresentModesKHR)

/* VK_EXT_present_timing (present_timing.c), which lowlat enables behind the app's back when the
 * driver offers it. Headers older than the extension (Debian 12's 1.3.239) leave the list empty and
 * present_timing.h stubs every use out. */
#ifdef VK_EXT_present_timing
#define LOWLAT_PRESENT_TIMING_FUNCTIONS(F)                                                                   \
	F(SetSwapchainPresentTimingQueueSizeEXT)                                                             \
	F(GetSwapchainTimingPropertiesEXT)                                                                   \
	F(GetSwapchainTimeDomainPropertiesEXT)                                                               \
	F(GetPastPresentationTimingEXT)                                                                      \
	F(GetCalibratedTimestampsKHR)                                                                        \
	F(GetCalibratedTimestampsEXT)
#else
#define LOWLAT_PRESENT_TIMING_FUNCTIONS(F)
#endif

/* VK_NV_low_latency2 (latency_sleep.c): passed through where the driver has it. */
#ifdef VK_NV_low_latency2
#define LOWLAT_LOW_LATENCY_FUNCTIONS(F)                                                                      \
	F(SetLatencySleepModeNV)                                                                             \
	F(LatencySleepNV)                                                                                    \
	F(SetLatencyMarkerNV)                                                                                \
	F(GetLatencyTimingsNV)                                                                               \
	F(QueueNotifyOutOfBandNV)
#else
#define LOWLAT_LOW_LATENCY_FUNCTIONS(F)
#endif

/* VK_AMD_anti_lag (anti_lag.c): offered by the driver or a layer below, such as Mesa's. */
#ifdef VK_AMD_anti_lag
#define LOWLAT_ANTI_LAG_FUNCTIONS(F) F(AntiLagUpdateAMD)
#else
#define LOWLAT_ANTI_LAG_FUNCTIONS(F)
#endif

/* VK_KHR_present_wait2 (present_wait.c), newer than Debian 12's headers. */
#ifdef VK_KHR_present_wait2
#define LOWLAT_PRESENT_WAIT_2_FUNCTIONS(F) F(WaitForPresent2KHR)
#else
#define LOWLAT_PRESENT_WAIT_2_FUNCTIONS(F)
#endif

/* Device-level functions we call on the next layer. A NULL entry means the driver below does not
 * have it (vkAcquireNextImage2KHR needs Vulkan 1.1 or VK_KHR_device_group). */
#define LOWLAT_DEVICE_FUNCTIONS(F)                                                                           \
	F(GetDeviceProcAddr)                                                                                 \
	F(DestroyDevice)                                                                                     \
	F(CreateSwapchainKHR)                                                                                \
	F(DestroySwapchainKHR)                                                                               \
	F(GetSwapchainImagesKHR)                                                                             \
	F(AcquireNextImageKHR)                                                                               \
	F(AcquireNextImage2KHR)                                                                              \
	F(QueuePresentKHR)                                                                                   \
	F(WaitForPresentKHR)                                                                                 \
	LOWLAT_PRESENT_WAIT_2_FUNCTIONS(F)                                                                   \
	/* Timeline semaphores and submits, for an emulated VK_NV_low_latency2 (core or KHR names). */       \
	F(SignalSemaphore)                                                                                   \
	F(SignalSemaphoreKHR)                                                                                \
	F(WaitSemaphores)                                                                                    \
	F(WaitSemaphoresKHR)                                                                                 \
	F(GetSemaphoreCounterValue)                                                                          \
	F(GetSemaphoreCounterValueKHR)                                                                       \
	F(QueueSubmit)                                                                                       \
	F(QueueSubmit2)                                                                                      \
	F(QueueSubmit2KHR)                                                                                   \
	/* Fences, for when the GPU finished a frame (ready_fence.h). */                                     \
	F(CreateFence)                                                                                       \
	F(DestroyFence)                                                                                      \
	F(ResetFences)                                                                                       \
	F(GetFenceStatus)                                                                                    \
	F(WaitForFences)                                                                                     \
	LOWLAT_LOW_LATENCY_FUNCTIONS(F)                                                                      \
	LOWLAT_ANTI_LAG_FUNCTIONS(F)                                                                         \
	LOWLAT_PRESENT_TIMING_FUNCTIONS(F)

struct instance_dispatch {
#define LOWLAT_DECLARE(name) PFN_vk##name name;
	LOWLAT_INSTANCE_FUNCTIONS(LOWLAT_DECLARE)
};

struct device_dispatch {
	LOWLAT_DEVICE_FUNCTIONS(LOWLAT_DECLARE)
#undef LOWLAT_DECLARE
};

/* The app's own present-timing calls, answered from the reports lowlat reads (timing_reports.c). */
#ifdef VK_EXT_present_timing
#define LOWLAT_PRESENT_TIMING_HOOKS(H)                                                                       \
	H(GetPastPresentationTimingEXT)                                                                      \
	H(SetSwapchainPresentTimingQueueSizeEXT)
#else
#define LOWLAT_PRESENT_TIMING_HOOKS(H)
#endif

/* Hooks: the functions lowlat intercepts. Global ones are reachable without an instance.
 * VK_NV_low_latency2's (its commands, and vkEnumerateDeviceExtensionProperties,
 * vkGetPhysicalDeviceSurfaceCapabilities2KHR, vkWaitSemaphores(KHR) and vkQueueSubmit(2) where lowlat
 * provides it) are latency_sleep.c's table, handed out by device mode (lowlat_latency_device_hook). */
#define LOWLAT_GLOBAL_HOOKS(H) H(CreateInstance)

#define LOWLAT_INSTANCE_HOOKS(H)                                                                             \
	H(GetInstanceProcAddr)                                                                               \
	H(DestroyInstance)                                                                                   \
	H(CreateDevice)

/* Answered whatever the instance, NULL or one lowlat does not know, as the loader's terminator and
 * the validation layers answer them: the loader's layer documentation fetched vkCreateDevice with a
 * NULL instance until 2020 and many layers still do, some fetch vkGetDeviceProcAddr that way, and
 * each of these works from its own arguments (the link in the create info, the device's entry). */
#define LOWLAT_ANY_INSTANCE_HOOKS(H) H(GetInstanceProcAddr) H(CreateDevice) H(GetDeviceProcAddr)

/* Every device gets these, so lowlat can forget the device when it is destroyed. */
#define LOWLAT_DEVICE_CORE_HOOKS(H)                                                                          \
	H(GetDeviceProcAddr)                                                                                 \
	H(DestroyDevice)

/* Only handed out for devices that enabled VK_KHR_swapchain, and only where the next layer has the
 * function; every other device gets the next layer's pointers and lowlat costs it nothing.
 * vkGetDeviceQueue(2) is not hooked: a queue finds its device through the dispatch key at present
 * time (the loader stores that key in a new queue only after the call returns up the chain, so a
 * hook could not even check it there). */
#define LOWLAT_DEVICE_SWAPCHAIN_HOOKS(H)                                                                     \
	H(CreateSwapchainKHR)                                                                                \
	H(DestroySwapchainKHR)                                                                               \
	H(AcquireNextImageKHR)                                                                               \
	H(AcquireNextImage2KHR)                                                                              \
	H(QueuePresentKHR)                                                                                   \
	H(WaitForPresentKHR)                                                                                 \
	LOWLAT_PRESENT_WAIT_2_FUNCTIONS(H)                                                                   \
	LOWLAT_PRESENT_TIMING_HOOKS(H)

#endif
