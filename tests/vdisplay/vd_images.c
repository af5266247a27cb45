/* vd_images.c — app images that alias swapchain memory (VK_KHR_swapchain with Vulkan 1.1 / device
 * groups): VkImageSwapchainCreateInfoKHR and VkBindImageMemorySwapchainInfoKHR carry our swapchain
 * handles into core commands. They are removed from a copy of the chain before the driver sees it,
 * and a swapchain bind becomes a bind to the swapchain image's own memory at offset 0 (the image was
 * created with the swapchain's parameters, so its requirements are the same).
 * vkGetDeviceImage*: the spec forbids the struct there (VUID-VkDeviceImageMemoryRequirements-
 * pCreateInfo-06416), but the registry lets the chain carry it, so it is removed defensively.
 */
#include <stdlib.h>
#include <string.h>

#include "vd_chain.h"
#include "vd_layer.h"

static bool is_image_swapchain_info(const VkBaseInStructure *s, void *user)
{
	(void)user;
	return s->sType == VK_STRUCTURE_TYPE_IMAGE_SWAPCHAIN_CREATE_INFO_KHR;
}

static bool is_bind_swapchain_info(const VkBaseInStructure *s, void *user)
{
	(void)user;
	return s->sType == VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR;
}

/* A copy of *info without VkImageSwapchainCreateInfoKHR. */
static VkResult strip_image_info(const VkImageCreateInfo *info, VkImageCreateInfo *copy, void **storage)
{
	*copy = *info;
	return vd_chain_strip(info->pNext, is_image_swapchain_info, NULL, &copy->pNext, storage);
}

VKAPI_ATTR VkResult VKAPI_CALL vd_CreateImage(VkDevice device, const VkImageCreateInfo *info,
                                              const VkAllocationCallbacks *allocator, VkImage *image)
{
	struct vd_device *dev = vd_device_of(device);
	VkImageCreateInfo copy;
	void *storage;
	VkResult r = strip_image_info(info, &copy, &storage);

	if (r != VK_SUCCESS)
		return r == VK_ERROR_INITIALIZATION_FAILED ? VK_ERROR_OUT_OF_HOST_MEMORY : r;
	r = dev->vk.CreateImage(device, &copy, allocator, image);
	free(storage);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_BindImageMemory2(VkDevice device, uint32_t count,
                                                   const VkBindImageMemoryInfo *infos)
{
	struct vd_device *dev = vd_device_of(device);
	VkBindImageMemoryInfo *copy = calloc(count ? count : 1, sizeof(*copy));
	void **storage = calloc(count ? count : 1, sizeof(*storage));
	VkResult r = VK_ERROR_OUT_OF_HOST_MEMORY;

	if (!copy || !storage)
		goto out;
	for (uint32_t i = 0; i < count; i++) {
		const VkBindImageMemorySwapchainInfoKHR *sw =
		        vd_chain_find(infos[i].pNext, VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR);
		copy[i] = infos[i];
		if (sw && sw->swapchain) {
			copy[i].memory = vd_swapchain_image_memory(dev, sw->swapchain, sw->imageIndex);
			copy[i].memoryOffset = 0;
			if (!copy[i].memory) {
				r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
				goto out;
			}
		}
		r = vd_chain_strip(infos[i].pNext, is_bind_swapchain_info, NULL, &copy[i].pNext, &storage[i]);
		if (r != VK_SUCCESS) {
			r = VK_ERROR_OUT_OF_HOST_MEMORY;
			goto out;
		}
	}
	r = dev->vk.BindImageMemory2(device, count, copy);
out:
	for (uint32_t i = 0; storage && i < count; i++)
		free(storage[i]);
	free(storage);
	free(copy);
	return r;
}

VKAPI_ATTR void VKAPI_CALL vd_GetDeviceImageMemoryRequirements(VkDevice device,
                                                               const VkDeviceImageMemoryRequirements *info,
                                                               VkMemoryRequirements2 *requirements)
{
	struct vd_device *dev = vd_device_of(device);
	VkDeviceImageMemoryRequirements outer = *info;
	VkImageCreateInfo image;
	void *storage;

	/* A void command cannot fail: when the chain cannot be copied the original goes down, which
	 * is what the driver would have seen without the display anyway. */
	if (strip_image_info(info->pCreateInfo, &image, &storage) == VK_SUCCESS)
		outer.pCreateInfo = &image;
	dev->vk.GetDeviceImageMemoryRequirements(device, &outer, requirements);
	free(storage);
}

VKAPI_ATTR void VKAPI_CALL
vd_GetDeviceImageSparseMemoryRequirements(VkDevice device, const VkDeviceImageMemoryRequirements *info,
                                          uint32_t *count, VkSparseImageMemoryRequirements2 *requirements)
{
	struct vd_device *dev = vd_device_of(device);
	VkDeviceImageMemoryRequirements outer = *info;
	VkImageCreateInfo image;
	void *storage;

	if (strip_image_info(info->pCreateInfo, &image, &storage) == VK_SUCCESS)
		outer.pCreateInfo = &image;
	dev->vk.GetDeviceImageSparseMemoryRequirements(device, &outer, count, requirements);
	free(storage);
}

VKAPI_ATTR void VKAPI_CALL vd_GetDeviceImageSubresourceLayout(VkDevice device,
                                                              const VkDeviceImageSubresourceInfo *info,
                                                              VkSubresourceLayout2 *layout)
{
	struct vd_device *dev = vd_device_of(device);
	VkDeviceImageSubresourceInfo outer = *info;
	VkImageCreateInfo image;
	void *storage;

	if (strip_image_info(info->pCreateInfo, &image, &storage) == VK_SUCCESS)
		outer.pCreateInfo = &image;
	dev->vk.GetDeviceImageSubresourceLayout(device, &outer, layout);
	free(storage);
}
