/* vd_layer.h — the virtual display layer's objects, dispatch tables and hooks.
 *
 * Dispatchable handles are found by their dispatch key (the loader's table pointer in the first
 * word); a physical device shares its instance's key and a queue its device's. Swapchains are our
 * own non-dispatchable handles: the pointer to struct vd_swapchain, never seen by the driver.
 *
 * Lock order: a swapchain's lock, then the truth log's; a map's lock is a leaf, held only inside the
 * map functions. No lock is held while calling down the chain or while waiting.
 */
#ifndef VD_LAYER_H
#define VD_LAYER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "plumbing.h"

/* Instance functions called on the next layer (the driver: this layer sits right above it). */
#define VD_INSTANCE_FUNCTIONS(F)                                                                             \
	F(GetInstanceProcAddr)                                                                               \
	F(DestroyInstance)                                                                                   \
	F(CreateDevice)                                                                                      \
	F(EnumerateDeviceExtensionProperties)                                                                \
	F(GetPhysicalDeviceMemoryProperties)                                                                 \
	F(GetPhysicalDeviceProperties)                                                                       \
	F(GetPhysicalDeviceFeatures2)                                                                        \
	F(GetPhysicalDeviceSurfacePresentModesKHR)                                                           \
	F(GetPhysicalDeviceSurfaceCapabilities2KHR)                                                          \
	F(GetPhysicalDeviceCalibrateableTimeDomainsEXT)                                                      \
	F(GetPhysicalDeviceQueueFamilyProperties)                                                            \
	F(GetPhysicalDeviceFormatProperties)                                                                 \
	F(DestroySurfaceKHR)                                                                                 \
	F(GetPhysicalDeviceSurfaceSupportKHR)                                                                \
	F(GetPhysicalDeviceSurfaceCapabilitiesKHR)                                                           \
	F(GetPhysicalDeviceSurfaceCapabilities2EXT)                                                          \
	F(GetPhysicalDeviceSurfaceFormatsKHR)                                                                \
	F(GetPhysicalDeviceSurfaceFormats2KHR)                                                               \
	F(GetPhysicalDevicePresentRectanglesKHR)

/* Device functions called on the driver. */
#define VD_DEVICE_FUNCTIONS(F)                                                                               \
	F(GetDeviceProcAddr)                                                                                 \
	F(DestroyDevice)                                                                                     \
	F(GetDeviceQueue)                                                                                    \
	F(CreateImage)                                                                                       \
	F(DestroyImage)                                                                                      \
	F(GetImageMemoryRequirements)                                                                        \
	F(AllocateMemory)                                                                                    \
	F(FreeMemory)                                                                                        \
	F(BindImageMemory)                                                                                   \
	F(CreateFence)                                                                                       \
	F(DestroyFence)                                                                                      \
	F(ResetFences)                                                                                       \
	F(WaitForFences)                                                                                     \
	F(GetFenceStatus)                                                                                    \
	F(QueueSubmit)                                                                                       \
	F(CreateCommandPool)                                                                                 \
	F(DestroyCommandPool)                                                                                \
	F(AllocateCommandBuffers)                                                                            \
	F(BeginCommandBuffer)                                                                                \
	F(EndCommandBuffer)                                                                                  \
	F(CmdResetQueryPool)                                                                                 \
	F(CmdWriteTimestamp)                                                                                 \
	F(CreateQueryPool)                                                                                   \
	F(DestroyQueryPool)                                                                                  \
	F(GetQueryPoolResults)                                                                               \
	F(ImportSemaphoreFdKHR)                                                                              \
	F(ImportFenceFdKHR)                                                                                  \
	F(CreateBuffer)                                                                                      \
	F(DestroyBuffer)                                                                                     \
	F(GetBufferMemoryRequirements)                                                                       \
	F(BindBufferMemory)                                                                                  \
	F(CmdFillBuffer)

/* Device functions the display can do without: NULL when the driver or the device's version lacks
 * them (a Vulkan 1.0 device has no vkGetDeviceQueue2); the *2 ones fall back to their KHR names. */
#define VD_DEVICE_OPTIONAL_FUNCTIONS(F)                                                                      \
	F(GetDeviceQueue2)                                                                                   \
	F(GetCalibratedTimestampsEXT)                                                                        \
	F(BindImageMemory2)                                                                                  \
	F(GetDeviceImageMemoryRequirements)                                                                  \
	F(GetDeviceImageSparseMemoryRequirements)                                                            \
	F(GetDeviceImageSubresourceLayout)                                                                   \
	F(GetDeviceGroupSurfacePresentModesKHR)                                                              \
	F(CreateSwapchainKHR)                                                                                \
	F(SignalSemaphore)

struct vd_instance_dispatch {
#define VD_DECLARE(name) PFN_vk##name name;
	VD_INSTANCE_FUNCTIONS(VD_DECLARE)
};

struct vd_device_dispatch {
	VD_DEVICE_FUNCTIONS(VD_DECLARE)
	VD_DEVICE_OPTIONAL_FUNCTIONS(VD_DECLARE)
#undef VD_DECLARE
};

/* Hooks. Instance-level ones are offered for every instance. */
#define VD_GLOBAL_HOOKS(H) H(CreateInstance)

#define VD_INSTANCE_HOOKS(H)                                                                                 \
	H(GetInstanceProcAddr)                                                                               \
	H(DestroyInstance)                                                                                   \
	H(CreateDevice)                                                                                      \
	H(EnumerateDeviceExtensionProperties)                                                                \
	H(GetPhysicalDeviceFeatures2)                                                                        \
	H(GetPhysicalDeviceSurfacePresentModesKHR)                                                           \
	H(GetPhysicalDeviceSurfaceCapabilities2KHR)                                                          \
	H(GetPhysicalDeviceCalibrateableTimeDomainsKHR)                                                      \
	H(DestroySurfaceKHR)                                                                                 \
	H(GetPhysicalDeviceSurfaceSupportKHR)                                                                \
	H(GetPhysicalDeviceSurfaceCapabilitiesKHR)                                                           \
	H(GetPhysicalDeviceSurfaceCapabilities2EXT)                                                          \
	H(GetPhysicalDeviceSurfaceFormatsKHR)                                                                \
	H(GetPhysicalDeviceSurfaceFormats2KHR)                                                               \
	H(GetPhysicalDevicePresentRectanglesKHR)

/* The display's own surfaces (vd_surface.c): handed out whatever the driver has. */
#define VD_SURFACE_CREATE_HOOKS(H) H(CreateHeadlessSurfaceEXT)

#define VD_DEVICE_CORE_HOOKS(H)                                                                              \
	H(GetDeviceProcAddr)                                                                                 \
	H(DestroyDevice)                                                                                     \
	H(GetDeviceQueue)                                                                                    \
	H(GetDeviceQueue2)                                                                                   \
	H(GetDeviceGroupSurfacePresentModesKHR)

/* Offered only to devices that enabled VK_KHR_swapchain (and took the display over). */
#define VD_DEVICE_SWAPCHAIN_HOOKS(H)                                                                         \
	H(CreateSwapchainKHR)                                                                                \
	H(DestroySwapchainKHR)                                                                               \
	H(GetSwapchainImagesKHR)                                                                             \
	H(AcquireNextImageKHR)                                                                               \
	H(AcquireNextImage2KHR)                                                                              \
	H(QueuePresentKHR)                                                                                   \
	H(WaitForPresentKHR)                                                                                 \
	H(WaitForPresent2KHR)                                                                                \
	H(ReleaseSwapchainImagesKHR)                                                                         \
	H(SetSwapchainPresentTimingQueueSizeEXT)                                                             \
	H(GetSwapchainTimingPropertiesEXT)                                                                   \
	H(GetSwapchainTimeDomainPropertiesEXT)                                                               \
	H(GetPastPresentationTimingEXT)                                                                      \
	H(GetCalibratedTimestampsKHR)

/* VK_NV_low_latency2 (vd_latency.c): offered only to display devices that enabled it, where the
 * profile offers it. */
#define VD_DEVICE_LATENCY_HOOKS(H)                                                                           \
	H(SetLatencySleepModeNV)                                                                             \
	H(LatencySleepNV)                                                                                    \
	H(SetLatencyMarkerNV)                                                                                \
	H(GetLatencyTimingsNV)                                                                               \
	H(QueueNotifyOutOfBandNV)

/* Core commands whose pNext chains can carry our swapchain handles (vd_images.c); offered to
 * display devices where the driver has the command. Their KHR aliases map to the same hooks. */
#define VD_DEVICE_CARRIER_HOOKS(H)                                                                           \
	H(CreateImage)                                                                                       \
	H(BindImageMemory2)                                                                                  \
	H(GetDeviceImageMemoryRequirements)                                                                  \
	H(GetDeviceImageSparseMemoryRequirements)                                                            \
	H(GetDeviceImageSubresourceLayout)

/* LOWLAT_VDISPLAY_GPU_FILL (vd_load.c): a fill of `bytes` added to each app submission, recorded
 * once per queue family. */
#define VD_LOAD_FAMILIES 16
struct vd_load {
	VkDeviceSize bytes; /* 0: no load */
	pthread_mutex_t lock;
	bool failed;
	VkBuffer buffer;
	VkDeviceMemory memory;
	struct vd_load_family {
		VkCommandPool pool;
		VkCommandBuffer commands;
	} family[VD_LOAD_FAMILIES];
};

struct vd_instance {
	VkInstance handle;
	struct vd_instance_dispatch vk;
};

struct vd_device {
	VkDevice handle;
	VkPhysicalDevice physical;
	struct vd_instance *instance;
	struct vd_device_dispatch vk;
	VkAllocationCallbacks allocator;
	bool has_allocator;
	/* The app enabled VK_KHR_swapchain and every function the display needs was found. */
	bool display;
	uint32_t default_family;  /* the first queue family the device was created with */
	struct lowlat_map queues; /* VkQueue -> queue family index + 1 */
	/* Acquire's fallback where the driver refuses a SYNC_FD of -1 (vd_present.c): an empty
	 * submission that signals the app's semaphore and fence, on the app's first queue. The app
	 * holds no queue while it acquires, so this breaks the queue's external synchronisation if
	 * the app submits to that queue from another thread meanwhile; none of the test apps does, and
	 * the display's own submissions (acquire's and present's) are serialised by signal_lock.
	 * LOWLAT_VDISPLAY_SIGNAL_QUEUE=own adds a queue of the display's own to the app's first family
	 * instead, where the family has one to spare: no such race, but on NVIDIA 580 the app's
	 * work then waits on another queue's semaphore, which put 1.45 ms between present and ready
	 * (50 µs on the app's queue; H200, 2026-12-04): time the display would count as render time. */
	VkQueue signal_queue;
	bool signal_queue_private;
	pthread_mutex_t signal_lock;
	int signal_by_submit;         /* 0 not yet known, 1 import -1 works, 2 submit (atomic) */
	struct lowlat_map swapchains; /* VkSwapchainKHR -> struct vd_swapchain */
	VkPhysicalDeviceMemoryProperties memory;
	float timestamp_period; /* ns per tick */
	/* Extensions the display itself provides that the app enabled (vd_features.c). */
	bool present_id, present_wait, present_id2, present_wait2, fifo_latest_ready, maintenance1;
	bool present_timing, calibrated_khr, low_latency2;
	struct vd_latency *latency; /* its signaler, where low_latency2 (vd_latency.c) */
	struct vd_load load;
};

extern struct lowlat_map vd_instances;
extern struct lowlat_map vd_devices;

static inline struct vd_instance *vd_instance_of(const void *instance_or_physical)
{
	return lowlat_map_find(&vd_instances, lowlat_dispatch_key(instance_or_physical));
}

static inline struct vd_device *vd_device_of(const void *device_or_queue)
{
	return lowlat_map_find(&vd_devices, lowlat_dispatch_key(device_or_queue));
}

static inline const VkAllocationCallbacks *vd_device_allocator(const struct vd_device *dev)
{
	return dev->has_allocator ? &dev->allocator : NULL;
}

int64_t vd_now_ns(void);

/* One stderr line prefixed `vdisplay: `. */
void vd_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Hooks. */
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vd_GetInstanceProcAddr(VkInstance instance, const char *name);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vd_GetDeviceProcAddr(VkDevice device, const char *name);
VKAPI_ATTR VkResult VKAPI_CALL vd_CreateInstance(const VkInstanceCreateInfo *info,
                                                 const VkAllocationCallbacks *allocator,
                                                 VkInstance *instance);
VKAPI_ATTR void VKAPI_CALL vd_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *allocator);
VKAPI_ATTR VkResult VKAPI_CALL vd_CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                               const VkAllocationCallbacks *allocator, VkDevice *device);
VKAPI_ATTR void VKAPI_CALL vd_DestroyDevice(VkDevice device, const VkAllocationCallbacks *allocator);
VKAPI_ATTR VkResult VKAPI_CALL vd_EnumerateDeviceExtensionProperties(VkPhysicalDevice physical,
                                                                     const char *layer, uint32_t *count,
                                                                     VkExtensionProperties *props);
VKAPI_ATTR void VKAPI_CALL vd_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index,
                                             VkQueue *queue);
VKAPI_ATTR void VKAPI_CALL vd_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info,
                                              VkQueue *queue);

VKAPI_ATTR VkResult VKAPI_CALL vd_CreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR *info,
                                                     const VkAllocationCallbacks *allocator,
                                                     VkSwapchainKHR *swapchain);
VKAPI_ATTR void VKAPI_CALL vd_DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                  const VkAllocationCallbacks *allocator);
VKAPI_ATTR VkResult VKAPI_CALL vd_GetSwapchainImagesKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                        uint32_t *count, VkImage *images);
VKAPI_ATTR VkResult VKAPI_CALL vd_AcquireNextImageKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                      uint64_t timeout, VkSemaphore semaphore, VkFence fence,
                                                      uint32_t *index);
VKAPI_ATTR VkResult VKAPI_CALL vd_AcquireNextImage2KHR(VkDevice device, const VkAcquireNextImageInfoKHR *info,
                                                       uint32_t *index);
VKAPI_ATTR VkResult VKAPI_CALL vd_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info);
VKAPI_ATTR VkResult VKAPI_CALL vd_WaitForPresentKHR(VkDevice device, VkSwapchainKHR swapchain, uint64_t id,
                                                    uint64_t timeout);
VKAPI_ATTR VkResult VKAPI_CALL vd_WaitForPresent2KHR(VkDevice device, VkSwapchainKHR swapchain,
                                                     const VkPresentWait2InfoKHR *info);
VKAPI_ATTR VkResult VKAPI_CALL vd_ReleaseSwapchainImagesKHR(VkDevice device,
                                                            const VkReleaseSwapchainImagesInfoKHR *info);
VKAPI_ATTR VkResult VKAPI_CALL vd_SetSwapchainPresentTimingQueueSizeEXT(VkDevice device,
                                                                        VkSwapchainKHR swapchain,
                                                                        uint32_t size);
VKAPI_ATTR VkResult VKAPI_CALL vd_GetSwapchainTimingPropertiesEXT(VkDevice device, VkSwapchainKHR swapchain,
                                                                  VkSwapchainTimingPropertiesEXT *props,
                                                                  uint64_t *counter);
VKAPI_ATTR VkResult VKAPI_CALL
vd_GetSwapchainTimeDomainPropertiesEXT(VkDevice device, VkSwapchainKHR swapchain,
                                       VkSwapchainTimeDomainPropertiesEXT *props, uint64_t *counter);
VKAPI_ATTR VkResult VKAPI_CALL vd_GetPastPresentationTimingEXT(VkDevice device,
                                                               const VkPastPresentationTimingInfoEXT *info,
                                                               VkPastPresentationTimingPropertiesEXT *props);
/* vd_features.c: VK_KHR_calibrated_timestamps on the driver's EXT. */
VKAPI_ATTR VkResult VKAPI_CALL vd_GetCalibratedTimestampsKHR(VkDevice device, uint32_t count,
                                                             const VkCalibratedTimestampInfoKHR *infos,
                                                             uint64_t *timestamps, uint64_t *max_deviation);
VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceCalibrateableTimeDomainsKHR(VkPhysicalDevice physical,
                                                                               uint32_t *count,
                                                                               VkTimeDomainKHR *domains);
/* Whether one of our extensions needs the driver's VK_EXT_calibrated_timestamps. */
bool vd_own_extension_needs_calibration(const char *name);
/* Named in LOWLAT_VDISPLAY_WITHHOLD: not offered. */
bool vd_own_extension_withheld(const char *name);

/* vd_features.c: what the display advertises. */
VKAPI_ATTR void VKAPI_CALL vd_GetPhysicalDeviceFeatures2(VkPhysicalDevice physical,
                                                         VkPhysicalDeviceFeatures2 *features);
VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceSurfacePresentModesKHR(VkPhysicalDevice physical,
                                                                          VkSurfaceKHR surface,
                                                                          uint32_t *count,
                                                                          VkPresentModeKHR *modes);
VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceSurfaceCapabilities2KHR(
        VkPhysicalDevice physical, const VkPhysicalDeviceSurfaceInfo2KHR *info,
        VkSurfaceCapabilities2KHR *caps);
/* The device extensions the display adds to the driver's. */
extern const VkExtensionProperties vd_own_extensions[];
extern const uint32_t vd_own_extension_count;
bool vd_is_own_extension(const char *name);
/* LOWLAT_VDISPLAY_NO_MAINTENANCE1=1: swapchain_maintenance1 hidden (vd_layer.c). */
bool vd_no_maintenance1(void);
/* Records which of ours the app enabled. */
void vd_note_enabled_extensions(struct vd_device *dev, const VkDeviceCreateInfo *info);
/* The driver's copy of the create info's pNext: without the feature structs of our extensions. */
VkResult vd_strip_own_features(const void *chain, const void **out, void **storage);

/* vd_layer.c: the driver has every extension the display needs. */
bool vd_driver_can_display(struct vd_instance *inst, VkPhysicalDevice physical);

/* vd_surface.c: headless surfaces are the display's own; the driver never sees them. */
bool vd_surface_is_own(VkSurfaceKHR surface);
/* Fills CAPS (and the structs of its chain a driver would fill) for one of our surfaces. */
VkResult vd_surface_capabilities2(struct vd_instance *inst, VkPhysicalDevice physical,
                                  VkSurfaceCapabilities2KHR *caps);
VKAPI_ATTR VkResult VKAPI_CALL vd_CreateHeadlessSurfaceEXT(VkInstance instance,
                                                           const VkHeadlessSurfaceCreateInfoEXT *info,
                                                           const VkAllocationCallbacks *allocator,
                                                           VkSurfaceKHR *surface);
VKAPI_ATTR void VKAPI_CALL vd_DestroySurfaceKHR(VkInstance instance, VkSurfaceKHR surface,
                                                const VkAllocationCallbacks *allocator);
VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceSurfaceSupportKHR(VkPhysicalDevice physical,
                                                                     uint32_t family, VkSurfaceKHR surface,
                                                                     VkBool32 *supported);
VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceSurfaceCapabilitiesKHR(VkPhysicalDevice physical,
                                                                          VkSurfaceKHR surface,
                                                                          VkSurfaceCapabilitiesKHR *caps);
VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceSurfaceCapabilities2EXT(VkPhysicalDevice physical,
                                                                           VkSurfaceKHR surface,
                                                                           VkSurfaceCapabilities2EXT *caps);
VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceSurfaceFormatsKHR(VkPhysicalDevice physical,
                                                                     VkSurfaceKHR surface, uint32_t *count,
                                                                     VkSurfaceFormatKHR *formats);
VKAPI_ATTR VkResult VKAPI_CALL
vd_GetPhysicalDeviceSurfaceFormats2KHR(VkPhysicalDevice physical, const VkPhysicalDeviceSurfaceInfo2KHR *info,
                                       uint32_t *count, VkSurfaceFormat2KHR *formats);
VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDevicePresentRectanglesKHR(VkPhysicalDevice physical,
                                                                        VkSurfaceKHR surface, uint32_t *count,
                                                                        VkRect2D *rects);
VKAPI_ATTR VkResult VKAPI_CALL vd_GetDeviceGroupSurfacePresentModesKHR(
        VkDevice device, VkSurfaceKHR surface, VkDeviceGroupPresentModeFlagsKHR *modes);

/* vd_images.c */
VKAPI_ATTR VkResult VKAPI_CALL vd_CreateImage(VkDevice device, const VkImageCreateInfo *info,
                                              const VkAllocationCallbacks *allocator, VkImage *image);
VKAPI_ATTR VkResult VKAPI_CALL vd_BindImageMemory2(VkDevice device, uint32_t count,
                                                   const VkBindImageMemoryInfo *infos);
VKAPI_ATTR void VKAPI_CALL vd_GetDeviceImageMemoryRequirements(VkDevice device,
                                                               const VkDeviceImageMemoryRequirements *info,
                                                               VkMemoryRequirements2 *requirements);
VKAPI_ATTR void VKAPI_CALL
vd_GetDeviceImageSparseMemoryRequirements(VkDevice device, const VkDeviceImageMemoryRequirements *info,
                                          uint32_t *count, VkSparseImageMemoryRequirements2 *requirements);
VKAPI_ATTR void VKAPI_CALL vd_GetDeviceImageSubresourceLayout(VkDevice device,
                                                              const VkDeviceImageSubresourceInfo *info,
                                                              VkSubresourceLayout2 *layout);

/* vd_swapchain.c: the memory of a swapchain image, VK_NULL_HANDLE when there is no such image. */
VkDeviceMemory vd_swapchain_image_memory(struct vd_device *dev, VkSwapchainKHR swapchain, uint32_t index);

/* vd_swapchain.c: destroys the swapchains an app leaked, before its device goes. */
void vd_swapchain_device_teardown(struct vd_device *dev);

/* vd_swapchain.c: a memory type among bits, device-local first; UINT32_MAX when there is none. */
uint32_t vd_memory_type(const struct vd_device *dev, uint32_t bits);

/* vd_present.c: the queue family of a queue the app got (the device's first family if unknown). */
uint32_t vd_queue_family(struct vd_device *dev, VkQueue queue);

/* vd_load.c: LOWLAT_VDISPLAY_GPU_FILL read at device creation; its objects freed at destruction;
 * the app's vkQueueSubmit with the fill added, offered only while a load is asked for. */
void vd_load_init(struct vd_device *dev);
void vd_load_fini(struct vd_device *dev);
VKAPI_ATTR VkResult VKAPI_CALL vd_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                              VkFence fence);

#endif
