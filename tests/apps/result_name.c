/* result_name.c — VkResult names for the test apps' messages; see result_name.h. */
#include "result_name.h"
#include <stdio.h>

const char *result_name(VkResult r)
{
	switch (r) {
#define NAME(x)                                                                                              \
	case x: return #x;
		NAME(VK_SUCCESS)
		NAME(VK_NOT_READY)
		NAME(VK_TIMEOUT)
		NAME(VK_INCOMPLETE)
		NAME(VK_SUBOPTIMAL_KHR)
		NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
		NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
		NAME(VK_ERROR_INITIALIZATION_FAILED)
		NAME(VK_ERROR_DEVICE_LOST)
		NAME(VK_ERROR_LAYER_NOT_PRESENT)
		NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
		NAME(VK_ERROR_FEATURE_NOT_PRESENT)
		NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
		NAME(VK_ERROR_SURFACE_LOST_KHR)
		NAME(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
		NAME(VK_ERROR_OUT_OF_DATE_KHR)
		NAME(VK_ERROR_UNKNOWN)
		NAME(VK_ERROR_VALIDATION_FAILED_EXT)
#ifdef VK_EXT_present_timing
		NAME(VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT)
#endif
#undef NAME
	default: {
		/* Any other: its number, which vulkan_core.h names. */
		static _Thread_local char text[32];
		snprintf(text, sizeof(text), "VkResult %d", (int)r);
		return text;
	}
	}
}
