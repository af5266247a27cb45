/* hooks.h — prototypes of every function lowlat intercepts. The hook tables in layer.c check each
 * one against its PFN_vk* type at compile time. */
#ifndef LOWLAT_HOOKS_H
#define LOWLAT_HOOKS_H

#include <vulkan/vulkan.h>

/* layer.c: loader plumbing. */
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL lowlat_GetInstanceProcAddr(VkInstance instance, const char *name);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL lowlat_GetDeviceProcAddr(VkDevice device, const char *name);
VKAPI_ATTR VkResult VKAPI_CALL lowlat_CreateInstance(const VkInstanceCreateInfo *info,
                                                     const VkAllocationCallbacks *allocator,
                                                     VkInstance *instance);
VKAPI_ATTR void VKAPI_CALL lowlat_DestroyInstance(VkInstance instance,
                                                  const VkAllocationCallbacks *allocator);
VKAPI_ATTR VkResult VKAPI_CALL lowlat_CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                                   const VkAllocationCallbacks *allocator, VkDevice *device);
VKAPI_ATTR void VKAPI_CALL lowlat_DestroyDevice(VkDevice device, const VkAllocationCallbacks *allocator);

/* swapchain_life.c and present.c: swapchains and presentation. */
VKAPI_ATTR VkResult VKAPI_CALL lowlat_CreateSwapchainKHR(VkDevice device,
                                                         const VkSwapchainCreateInfoKHR *info,
                                                         const VkAllocationCallbacks *allocator,
                                                         VkSwapchainKHR *swapchain);
VKAPI_ATTR void VKAPI_CALL lowlat_DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                      const VkAllocationCallbacks *allocator);
VKAPI_ATTR VkResult VKAPI_CALL lowlat_AcquireNextImageKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                          uint64_t timeout, VkSemaphore semaphore,
                                                          VkFence fence, uint32_t *index);
VKAPI_ATTR VkResult VKAPI_CALL lowlat_AcquireNextImage2KHR(VkDevice device,
                                                           const VkAcquireNextImageInfoKHR *info,
                                                           uint32_t *index);
VKAPI_ATTR VkResult VKAPI_CALL lowlat_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info);

#ifdef VK_EXT_present_timing
/* timing_reports.c: the app's own present-timing calls where lowlat reads the reports itself: it
 * answers the app from them, and keeps the driver's results queue as large as it needs. */
VKAPI_ATTR VkResult VKAPI_CALL
lowlat_GetPastPresentationTimingEXT(VkDevice device, const VkPastPresentationTimingInfoEXT *info,
                                    VkPastPresentationTimingPropertiesEXT *properties);
VKAPI_ATTR VkResult VKAPI_CALL lowlat_SetSwapchainPresentTimingQueueSizeEXT(VkDevice device,
                                                                            VkSwapchainKHR swapchain,
                                                                            uint32_t size);
#endif

#endif
