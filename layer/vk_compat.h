/* vk_compat.h — the few Vulkan definitions lowlat uses that older headers lack.
 *
 * lowlat builds against headers from 1.3.204 (Ubuntu 22.04) on; distributions ship older headers
 * than the extensions lowlat can use when the driver offers them (Debian 12 has 1.3.239). Each block
 * here is guarded by the extension's own macro, so the system header's definition always wins and
 * this file adds nothing on a current system. Values are from the Vulkan registry (vk.xml); an
 * extension missing from the headers can still be used if the driver has it: the names, numbers and
 * struct layouts are fixed by the registry, not by the header version.
 */
#ifndef LOWLAT_VK_COMPAT_H
#define LOWLAT_VK_COMPAT_H

#include <vulkan/vulkan.h>

/* VK_KHR_present_mode_fifo_latest_ready (extension 362), promoted from the EXT of the same number. */
#if !defined(VK_KHR_present_mode_fifo_latest_ready) && !defined(VK_EXT_present_mode_fifo_latest_ready)
#define VK_PRESENT_MODE_FIFO_LATEST_READY_KHR ((VkPresentModeKHR)1000361000)
#elif !defined(VK_KHR_present_mode_fifo_latest_ready)
#define VK_PRESENT_MODE_FIFO_LATEST_READY_KHR VK_PRESENT_MODE_FIFO_LATEST_READY_EXT
#endif

#endif
