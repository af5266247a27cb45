/* result_name.h — the one VkResult-to-name table of the test apps (multi_swapchain, robust, stress). */
#ifndef LOWLAT_TEST_RESULT_NAME_H
#define LOWLAT_TEST_RESULT_NAME_H

#include <vulkan/vulkan_core.h>

/* "VK_ERROR_OUT_OF_DATE_KHR" etc.; "VkResult" for a code not listed. */
const char *result_name(VkResult r);

#endif
