/* vd_latency.h — VK_NV_low_latency2 as a driver offers it, for profiles that model one (the nvidia
 * profile: NVIDIA's driver has offered the extension since its 545 line).
 *
 * What the spec asks, and no more: vkLatencySleepNV returns at once and the app's timeline semaphore
 * is signalled at the sleep's end, by a thread of the display's; with low latency mode on and a
 * minimumIntervalUs, sleeps end no closer together than that interval (NVIDIA's own scheduling
 * from the GPU's load is not modelled: every other sleep ends at once). Markers are kept per
 * present id and reported by vkGetLatencyTimingsNV with their times; the driver's own stages
 * (OS queue, GPU) are 0. VkLatencySurfaceCapabilitiesNV lists the surface's present modes.
 */
#ifndef VD_LATENCY_H
#define VD_LATENCY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

/* Frames whose markers a swapchain keeps (vkGetLatencyTimingsNV reports at most 64). */
#define VD_LATENCY_FRAMES 16

struct vd_latency_swapchain {
	bool mode;            /* VkLatencySleepModeInfoNV::lowLatencyMode (off until set) */
	uint32_t interval_us; /* ... minimumIntervalUs */
	int64_t last_end_ns;  /* when the latest sleep ended */
	struct vd_latency_frame {
		uint64_t present_id;
		uint64_t us[VK_LATENCY_MARKER_OUT_OF_BAND_PRESENT_END_NV + 1]; /* by marker; 0: not set */
	} frames[VD_LATENCY_FRAMES];
	uint32_t next_frame;
};

struct vd_device;

/* Device creation (the app enabled the extension) and destruction: the signaler thread. */
bool vd_latency_init(struct vd_device *dev);
void vd_latency_fini(struct vd_device *dev);

VKAPI_ATTR VkResult VKAPI_CALL vd_SetLatencySleepModeNV(VkDevice device, VkSwapchainKHR swapchain,
                                                        const VkLatencySleepModeInfoNV *info);
VKAPI_ATTR VkResult VKAPI_CALL vd_LatencySleepNV(VkDevice device, VkSwapchainKHR swapchain,
                                                 const VkLatencySleepInfoNV *info);
VKAPI_ATTR void VKAPI_CALL vd_SetLatencyMarkerNV(VkDevice device, VkSwapchainKHR swapchain,
                                                 const VkSetLatencyMarkerInfoNV *info);
VKAPI_ATTR void VKAPI_CALL vd_GetLatencyTimingsNV(VkDevice device, VkSwapchainKHR swapchain,
                                                  VkGetLatencyMarkerInfoNV *info);
VKAPI_ATTR void VKAPI_CALL vd_QueueNotifyOutOfBandNV(VkQueue queue, const VkOutOfBandQueueTypeInfoNV *info);

#endif
