/* swapchain_life.h — a swapchain record's life (swapchain_life.c): created after the driver created
 * the swapchain, its pacing level chosen then, its settings brought up to date at each present,
 * destroyed with its summary line before the driver destroys it; its create, destroy and acquire
 * hooks (checked against their PFN_vk* types by layer.c's hook table). The record itself is
 * swapchain.h.
 */
#ifndef LOWLAT_SWAPCHAIN_LIFE_H
#define LOWLAT_SWAPCHAIN_LIFE_H

#include <vulkan/vulkan.h>

struct lowlat_device;
struct lowlat_swapchain;

/* Brings the swapchain's copy of the settings, and its pacer, up to the process's config. Called by
 * the thread presenting to it; costs an atomic load when nothing changed. */
void lowlat_swapchain_settings(struct lowlat_swapchain *sc);

/* DestroyDevice: frees the records of swapchains the app leaked. */
void lowlat_swapchain_device_teardown(struct lowlat_device *dev);

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

#endif
