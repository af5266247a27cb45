/* chain.c — pNext chain lookups and partial copies; see chain.h. */
#include "chain.h"

#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>

_Thread_local unsigned lowlat_chain_walks;

const void *lowlat_chain_find(const void *chain, VkStructureType type)
{
	lowlat_chain_walks++;
	for (const VkBaseInStructure *p = chain; p; p = p->pNext)
		if (p->sType == type)
			return p;
	return NULL;
}

/* The structures lowlat can copy: what games and translation layers (DXVK, vkd3d-proton) chain
 * to VkDeviceCreateInfo, VkSwapchainCreateInfoKHR and VkPresentInfoKHR, each guarded by the macro
 * of the header version that defines it; and the loader's own, which heads every device create
 * info's chain (its layer link: lowlat_CreateDevice moves on the one in the chain it passes down). */
#define CORE_STRUCTS(S)                                                                                      \
	S(VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO, VkLayerDeviceCreateInfo)                              \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, VkPhysicalDeviceFeatures2)                           \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, VkPhysicalDeviceVulkan11Features)           \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, VkPhysicalDeviceVulkan12Features)           \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, VkPhysicalDeviceVulkan13Features)           \
	S(VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO, VkDeviceGroupDeviceCreateInfo)                  \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,                                     \
	  VkPhysicalDeviceTimelineSemaphoreFeatures)                                                         \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_FEATURES,                                    \
	  VkPhysicalDeviceDescriptorIndexingFeatures)                                                        \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES,                                  \
	  VkPhysicalDeviceBufferDeviceAddressFeatures)                                                       \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES,                                      \
	  VkPhysicalDeviceDynamicRenderingFeatures)                                                          \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES,                                      \
	  VkPhysicalDeviceSynchronization2Features)                                                          \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT,                                       \
	  VkPhysicalDeviceRobustness2FeaturesEXT)                                                            \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR, VkPhysicalDevicePresentIdFeaturesKHR)   \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR,                                       \
	  VkPhysicalDevicePresentWaitFeaturesKHR)                                                            \
	S(VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO, VkImageFormatListCreateInfo)                      \
	S(VK_STRUCTURE_TYPE_DEVICE_GROUP_SWAPCHAIN_CREATE_INFO_KHR, VkDeviceGroupSwapchainCreateInfoKHR)     \
	S(VK_STRUCTURE_TYPE_PRESENT_ID_KHR, VkPresentIdKHR)                                                  \
	S(VK_STRUCTURE_TYPE_PRESENT_REGIONS_KHR, VkPresentRegionsKHR)                                        \
	S(VK_STRUCTURE_TYPE_DISPLAY_PRESENT_INFO_KHR, VkDisplayPresentInfoKHR)                               \
	S(VK_STRUCTURE_TYPE_DEVICE_GROUP_PRESENT_INFO_KHR, VkDeviceGroupPresentInfoKHR)

#ifdef VK_EXT_swapchain_maintenance1
#define MAINTENANCE1_STRUCTS(S)                                                                              \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_EXT,                            \
	  VkPhysicalDeviceSwapchainMaintenance1FeaturesEXT)                                                  \
	S(VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODES_CREATE_INFO_EXT, VkSwapchainPresentModesCreateInfoEXT)   \
	S(VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_SCALING_CREATE_INFO_EXT,                                       \
	  VkSwapchainPresentScalingCreateInfoEXT)                                                            \
	S(VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_FENCE_INFO_EXT, VkSwapchainPresentFenceInfoEXT)                \
	S(VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODE_INFO_EXT, VkSwapchainPresentModeInfoEXT)
#else
#define MAINTENANCE1_STRUCTS(S)
#endif

#ifdef VK_KHR_present_mode_fifo_latest_ready
#define LATEST_READY_STRUCTS(S)                                                                              \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_MODE_FIFO_LATEST_READY_FEATURES_KHR,                     \
	  VkPhysicalDevicePresentModeFifoLatestReadyFeaturesKHR)
#else
#define LATEST_READY_STRUCTS(S)
#endif

#ifdef VK_KHR_present_id2
#define PRESENT_ID2_STRUCTS(S)                                                                               \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR,                                       \
	  VkPhysicalDevicePresentId2FeaturesKHR)                                                             \
	S(VK_STRUCTURE_TYPE_PRESENT_ID_2_KHR, VkPresentId2KHR)
#else
#define PRESENT_ID2_STRUCTS(S)
#endif

#ifdef VK_KHR_present_wait2
#define PRESENT_WAIT2_STRUCTS(S)                                                                             \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR,                                     \
	  VkPhysicalDevicePresentWait2FeaturesKHR)
#else
#define PRESENT_WAIT2_STRUCTS(S)
#endif

#ifdef VK_EXT_present_timing
#define TIMING_STRUCTS(S)                                                                                    \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT,                                     \
	  VkPhysicalDevicePresentTimingFeaturesEXT)                                                          \
	S(VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT, VkPresentTimingsInfoEXT)
#else
#define TIMING_STRUCTS(S)
#endif

/* Submit structures that may stand before VkLatencySubmissionPresentIdNV, which lowlat leaves out of
 * the submits of a device where it emulates VK_NV_low_latency2 (latency_sleep.c). */
#define SUBMIT_STRUCTS(S)                                                                                    \
	S(VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO, VkTimelineSemaphoreSubmitInfo)                   \
	S(VK_STRUCTURE_TYPE_DEVICE_GROUP_SUBMIT_INFO, VkDeviceGroupSubmitInfo)                               \
	S(VK_STRUCTURE_TYPE_PROTECTED_SUBMIT_INFO, VkProtectedSubmitInfo)                                    \
	S(VK_STRUCTURE_TYPE_PERFORMANCE_QUERY_SUBMIT_INFO_KHR, VkPerformanceQuerySubmitInfoKHR)              \
	S(VK_STRUCTURE_TYPE_SWAPCHAIN_COUNTER_CREATE_INFO_EXT, VkSwapchainCounterCreateInfoEXT)

#ifdef VK_EXT_frame_boundary
#define FRAME_BOUNDARY_STRUCTS(S) S(VK_STRUCTURE_TYPE_FRAME_BOUNDARY_EXT, VkFrameBoundaryEXT)
#else
#define FRAME_BOUNDARY_STRUCTS(S)
#endif

#ifdef VK_VERSION_1_4
#define CORE14_STRUCTS(S)                                                                                    \
	S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_4_FEATURES, VkPhysicalDeviceVulkan14Features)
#else
#define CORE14_STRUCTS(S)
#endif

size_t lowlat_chain_struct_size(VkStructureType type)
{
#define SIZE_CASE(stype, ctype)                                                                              \
	case stype: return sizeof(ctype);
	/* On an integer: some of these values are outside the enum of older headers. */
	switch ((int)type) {
		CORE_STRUCTS(SIZE_CASE)
		MAINTENANCE1_STRUCTS(SIZE_CASE)
		LATEST_READY_STRUCTS(SIZE_CASE)
		PRESENT_ID2_STRUCTS(SIZE_CASE)
		PRESENT_WAIT2_STRUCTS(SIZE_CASE)
		TIMING_STRUCTS(SIZE_CASE)
		CORE14_STRUCTS(SIZE_CASE)
		SUBMIT_STRUCTS(SIZE_CASE)
		FRAME_BOUNDARY_STRUCTS(SIZE_CASE)
	default: return 0;
	}
#undef SIZE_CASE
}

/* Room for one copy, aligned for any member; NULL when there is none. */
static void *storage_take(struct lowlat_chain_storage *s, size_t size)
{
	void *p;

	if (s->heap) {
		if (s->block_count == sizeof(s->blocks) / sizeof(s->blocks[0]) || !(p = malloc(size)))
			return NULL;
		s->blocks[s->block_count++] = p;
		return p;
	}
	size_t at = (s->used + 15) & ~(size_t)15;
	if (at > s->size || s->size - at < size)
		return NULL;
	s->used = at + size;
	return s->buffer + at;
}

VkBaseOutStructure *lowlat_chain_storage_copy(struct lowlat_chain_storage *storage, const void *s)
{
	size_t size = lowlat_chain_struct_size(((const VkBaseInStructure *)s)->sType);
	VkBaseOutStructure *c;

	if (!size || !(c = storage_take(storage, size)))
		return NULL;
	memcpy(c, s, size);
	return c;
}

/* A copy of p in storage, linked after prev (or made the head): NULL when it cannot be copied. */
static VkBaseOutStructure *copy_after(const VkBaseInStructure *p, struct lowlat_chain_storage *storage,
                                      VkBaseOutStructure *prev, const void **head)
{
	VkBaseOutStructure *c = lowlat_chain_storage_copy(storage, p);

	if (!c)
		return NULL;
	if (prev)
		prev->pNext = c;
	else
		*head = c;
	return c;
}

const void *lowlat_chain_copy_to(const void *chain, const void *target, struct lowlat_chain_storage *storage,
                                 void **copy)
{
	VkBaseOutStructure *tail = NULL;
	const void *head = NULL;

	lowlat_chain_walks++;
	for (const VkBaseInStructure *p = chain; p; p = p->pNext) {
		if (!(tail = copy_after(p, storage, tail, &head)))
			return NULL;
		if (p == target) {
			*copy = tail;
			return head; /* the copy's pNext still points at the rest of the app's chain */
		}
	}
	return NULL;
}

bool lowlat_chain_without(const void *chain, VkStructureType type, struct lowlat_chain_storage *storage,
                          const void **out)
{
	VkBaseOutStructure *prev = NULL;
	const void *head = chain;

	lowlat_chain_walks++;
	for (const VkBaseInStructure *p = chain; p; p = p->pNext) {
		if (p->sType == type) {
			/* Skipped: the previous link (a copy of ours, or the head) jumps over it. */
			if (prev)
				prev->pNext = (VkBaseOutStructure *)p->pNext;
			else
				head = p->pNext;
			continue;
		}
		if (!lowlat_chain_has(p->pNext, type))
			break; /* nothing of that type further on: the rest is shared as it is */
		if (!(prev = copy_after(p, storage, prev, &head)))
			return false;
	}
	*out = head;
	return true;
}

void lowlat_chain_storage_fini(struct lowlat_chain_storage *s)
{
	for (unsigned i = 0; i < s->block_count; i++)
		free(s->blocks[i]);
	s->block_count = 0;
	s->used = 0;
}
