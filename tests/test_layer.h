/* test_layer.h — loader plumbing the test tree's own layers share (the virtual display
 * vdisplay/vd_layer.c, the fault injector faults/faults.c, the benchmark probe
 * bench/probe/probe.c), beside layer/vulkan/plumbing.c, which they link too. Header-only: each
 * layer is one shared library and keeps these static. (neighbours/doc_layer.c is written as the
 * loader's documentation shows, on purpose without them.) */
#ifndef LOWLAT_TEST_LAYER_H
#define LOWLAT_TEST_LAYER_H

#include <stddef.h>
#include <string.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

/* A command a layer hands out instead of the next one's. */
struct hook {
	const char *name;
	PFN_vkVoidFunction function;
};

/* The hook named NAME in TABLE (COUNT entries); NULL when there is none. */
static inline PFN_vkVoidFunction find_hook(const struct hook *table, size_t count, const char *name)
{
	for (size_t i = 0; i < count; i++)
		if (!strcmp(table[i].name, name))
			return table[i].function;
	return NULL;
}

/* vkNegotiateLoaderLayerInterfaceVersion's work: interface version 2, the first that passes the
 * Get*ProcAddr through this struct (nothing later is used), with GIPA and GDPA. */
static inline VkResult negotiate_version_2(VkNegotiateLayerInterface *negotiate,
                                           PFN_vkGetInstanceProcAddr gipa, PFN_vkGetDeviceProcAddr gdpa)
{
	if (!negotiate || negotiate->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT ||
	    negotiate->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	negotiate->loaderLayerInterfaceVersion = 2;
	negotiate->pfnGetInstanceProcAddr = gipa;
	negotiate->pfnGetDeviceProcAddr = gdpa;
	negotiate->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}

#endif
