/* present.h — the present hook (present.c): each present through the pacing level's steps. Checked
 * against PFN_vkQueuePresentKHR by layer.c's hook table. */
#ifndef LOWLAT_PRESENT_H
#define LOWLAT_PRESENT_H

#include <vulkan/vulkan.h>

VKAPI_ATTR VkResult VKAPI_CALL lowlat_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info);

#endif
