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

/* VK_EXT_layer_settings (extension 497): how an app or vkconfig passes settings to a layer, chained
 * to VkInstanceCreateInfo; lowlat reads its own from it (config_settings.c). */
#ifndef VK_EXT_layer_settings
#define VK_EXT_layer_settings                            1
#define VK_EXT_LAYER_SETTINGS_EXTENSION_NAME             "VK_EXT_layer_settings"
#define VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT ((VkStructureType)1000496000)
typedef enum VkLayerSettingTypeEXT {
	VK_LAYER_SETTING_TYPE_BOOL32_EXT = 0,
	VK_LAYER_SETTING_TYPE_INT32_EXT = 1,
	VK_LAYER_SETTING_TYPE_INT64_EXT = 2,
	VK_LAYER_SETTING_TYPE_UINT32_EXT = 3,
	VK_LAYER_SETTING_TYPE_UINT64_EXT = 4,
	VK_LAYER_SETTING_TYPE_FLOAT32_EXT = 5,
	VK_LAYER_SETTING_TYPE_FLOAT64_EXT = 6,
	VK_LAYER_SETTING_TYPE_STRING_EXT = 7,
	VK_LAYER_SETTING_TYPE_MAX_ENUM_EXT = 0x7FFFFFFF
} VkLayerSettingTypeEXT;
typedef struct VkLayerSettingEXT {
	const char *pLayerName;
	const char *pSettingName;
	VkLayerSettingTypeEXT type;
	uint32_t valueCount;
	const void *pValues;
} VkLayerSettingEXT;
typedef struct VkLayerSettingsCreateInfoEXT {
	VkStructureType sType;
	const void *pNext;
	uint32_t settingCount;
	const VkLayerSettingEXT *pSettings;
} VkLayerSettingsCreateInfoEXT;
#endif

#endif
