/* timing_reports.h — the app's own present-timing calls where lowlat reads the reports itself
 * (timing_reports.c): it answers the app from them, and keeps the driver's results queue as large
 * as it needs. Checked against their PFN_vk* types by layer.c's hook table. The rest of
 * timing_reports.c is present_timing.h's (tools/check-decls says why). */
#ifndef LOWLAT_TIMING_REPORTS_H
#define LOWLAT_TIMING_REPORTS_H

#include <vulkan/vulkan.h>

#ifdef VK_EXT_present_timing
VKAPI_ATTR VkResult VKAPI_CALL
lowlat_GetPastPresentationTimingEXT(VkDevice device, const VkPastPresentationTimingInfoEXT *info,
                                    VkPastPresentationTimingPropertiesEXT *properties);
VKAPI_ATTR VkResult VKAPI_CALL lowlat_SetSwapchainPresentTimingQueueSizeEXT(VkDevice device,
                                                                            VkSwapchainKHR swapchain,
                                                                            uint32_t size);
#endif

#endif
