/* layer.h — the loader plumbing lowlat intercepts (layer.c): the proc-address queries and the
 * instance's and device's create and destroy. layer.c's hook tables check each hook, these and
 * those of swapchain_life.h, present.h and timing_reports.h, against its PFN_vk* type at compile
 * time. */
#ifndef LOWLAT_LAYER_H
#define LOWLAT_LAYER_H

#include <vulkan/vulkan.h>

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

#endif
