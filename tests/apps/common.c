/* common.c — see common.h. */
#include "common.h"

#include <stddef.h>
#include <time.h>

int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

VkResult instance_create_with(const struct instance_params *p, const VkAllocationCallbacks *allocator,
                              VkInstance *out)
{
	const char *extensions[2 + INSTANCE_EXTRA_MAX] = {VK_KHR_SURFACE_EXTENSION_NAME,
	                                                  p->headless ? VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME
	                                                              : VK_KHR_XCB_SURFACE_EXTENSION_NAME};
	uint32_t count = p->no_surface ? 0 : 2;

	for (uint32_t i = 0; i < p->extra_count && count < 2 + INSTANCE_EXTRA_MAX; i++)
		extensions[count++] = p->extra[i];
	const VkApplicationInfo app = {
	        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	        .pApplicationName = p->app_name,
	        .pEngineName = p->engine_name,
	        .apiVersion = p->api_version ? p->api_version : VK_API_VERSION_1_1,
	};
	const VkInstanceCreateInfo info = {
	        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	        .pApplicationInfo = &app,
	        .enabledExtensionCount = count,
	        .ppEnabledExtensionNames = extensions,
	};

	return vkCreateInstance(&info, allocator, out);
}

VkResult instance_create(const char *app_name, const VkAllocationCallbacks *allocator, VkInstance *out)
{
	return instance_create_with(&(struct instance_params){.app_name = app_name}, allocator, out);
}

VkResult instance_create_headless(const char *app_name, const VkAllocationCallbacks *allocator,
                                  VkInstance *out)
{
	return instance_create_with(&(struct instance_params){.app_name = app_name, .headless = true},
	                            allocator, out);
}

VkResult surface_create_headless(VkInstance instance, const VkAllocationCallbacks *allocator,
                                 VkSurfaceKHR *out)
{
	/* An EXT command: the loader exports only the KHR window-system ones. */
	PFN_vkCreateHeadlessSurfaceEXT create =
	        (PFN_vkCreateHeadlessSurfaceEXT)vkGetInstanceProcAddr(instance, "vkCreateHeadlessSurfaceEXT");
	const VkHeadlessSurfaceCreateInfoEXT info = {
	        .sType = VK_STRUCTURE_TYPE_HEADLESS_SURFACE_CREATE_INFO_EXT};

	return create ? create(instance, &info, allocator, out) : VK_ERROR_EXTENSION_NOT_PRESENT;
}

VkResult surface_create(VkInstance instance, struct xdisplay *x, xcb_window_t window,
                        const VkAllocationCallbacks *allocator, VkSurfaceKHR *out)
{
	const VkXcbSurfaceCreateInfoKHR info = {
	        .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
	        .connection = xdisplay_connection(x),
	        .window = window,
	};

	return vkCreateXcbSurfaceKHR(instance, &info, allocator, out);
}

VkResult physical_device_pick(VkInstance instance, VkSurfaceKHR surface, VkPhysicalDevice *physical,
                              uint32_t *family)
{
	VkPhysicalDevice physicals[16];
	uint32_t count = sizeof(physicals) / sizeof(physicals[0]);
	VkResult r = vkEnumeratePhysicalDevices(instance, &count, physicals);

	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return r;
	for (uint32_t p = 0; p < count; p++) {
		VkQueueFamilyProperties families[16];
		uint32_t family_count = sizeof(families) / sizeof(families[0]);

		vkGetPhysicalDeviceQueueFamilyProperties(physicals[p], &family_count, families);
		for (uint32_t f = 0; f < family_count; f++) {
			VkBool32 supported = VK_FALSE;

			if (!(families[f].queueFlags & VK_QUEUE_GRAPHICS_BIT))
				continue;
			r = vkGetPhysicalDeviceSurfaceSupportKHR(physicals[p], f, surface, &supported);
			if (r != VK_SUCCESS)
				return r;
			if (supported) {
				*physical = physicals[p];
				*family = f;
				return VK_SUCCESS;
			}
		}
	}
	return VK_ERROR_INITIALIZATION_FAILED;
}

VkResult headless_setup(const struct instance_params *params, VkInstance *instance, VkSurfaceKHR *surface,
                        VkPhysicalDevice *physical, uint32_t *family)
{
	struct instance_params headless = *params;
	VkResult r;

	headless.headless = true;
	if ((r = instance_create_with(&headless, NULL, instance)) != VK_SUCCESS ||
	    (r = surface_create_headless(*instance, NULL, surface)) != VK_SUCCESS)
		return r;
	return physical_device_pick(*instance, *surface, physical, family);
}

VkResult device_create_with(VkPhysicalDevice physical, uint32_t family, const char *const *extensions,
                            uint32_t count, const void *features, const VkAllocationCallbacks *allocator,
                            VkDevice *out)
{
	const float priority = 1.0f;
	const VkDeviceQueueCreateInfo queue = {
	        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	        .queueFamilyIndex = family,
	        .queueCount = 1,
	        .pQueuePriorities = &priority,
	};
	const VkDeviceCreateInfo info = {
	        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	        .pNext = features,
	        .queueCreateInfoCount = 1,
	        .pQueueCreateInfos = &queue,
	        .enabledExtensionCount = count,
	        .ppEnabledExtensionNames = extensions,
	};

	return vkCreateDevice(physical, &info, allocator, out);
}

VkResult device_create(VkPhysicalDevice physical, uint32_t family, const VkAllocationCallbacks *allocator,
                       VkDevice *out)
{
	static const char *const extensions[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};

	return device_create_with(physical, family, extensions, 1, NULL, allocator, out);
}

VkResult swapchain_create(VkDevice device, const struct swapchain_params *params,
                          const VkAllocationCallbacks *allocator, VkSwapchainKHR *out, VkExtent2D *extent)
{
	VkSurfaceFormatKHR formats[64];
	VkPresentModeKHR modes[16];
	uint32_t format_count = sizeof(formats) / sizeof(formats[0]);
	uint32_t mode_count = sizeof(modes) / sizeof(modes[0]);
	VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;
	VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
	VkSurfaceFormatKHR format;
	VkSurfaceCapabilitiesKHR caps;
	VkImageUsageFlags usage = params->usage ? params->usage : VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	uint32_t image_count;
	VkResult r;

	r = vkGetPhysicalDeviceSurfaceCapabilitiesKHR(params->physical, params->surface, &caps);
	if (r != VK_SUCCESS)
		return r;
	r = vkGetPhysicalDeviceSurfaceFormatsKHR(params->physical, params->surface, &format_count, formats);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return r;
	r = vkGetPhysicalDeviceSurfacePresentModesKHR(params->physical, params->surface, &mode_count, modes);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return r;
	if (!format_count || (caps.supportedUsageFlags & usage) != usage)
		return VK_ERROR_INITIALIZATION_FAILED;
	/* Any format will do for a clear; UNORM keeps the colours what the code says they are. */
	format = formats[0];
	for (uint32_t i = 0; i < format_count; i++)
		if (formats[i].format == VK_FORMAT_B8G8R8A8_UNORM)
			format = formats[i];
	for (uint32_t i = 0; i < mode_count; i++)
		if (modes[i] == params->mode)
			mode = modes[i];
	/* 0xFFFFFFFF: the surface takes its size from the swapchain. */
	*extent = caps.currentExtent.width == UINT32_MAX ? params->window_size : caps.currentExtent;
	/* One more than the minimum, so acquiring never waits for the presentation engine to let go. */
	image_count = caps.minImageCount + 1;
	if (caps.maxImageCount && image_count > caps.maxImageCount)
		image_count = caps.maxImageCount;
	if (params->min_images)
		image_count =
		        params->min_images < caps.minImageCount ? caps.minImageCount : params->min_images;
	/* The lowest supported mode; the spec guarantees at least one bit is set. */
	while (!(caps.supportedCompositeAlpha & alpha))
		alpha <<= 1;

	const VkSwapchainCreateInfoKHR info = {
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
	        .pNext = params->next,
	        .flags = params->flags,
	        .surface = params->surface,
	        .minImageCount = image_count,
	        .imageFormat = format.format,
	        .imageColorSpace = format.colorSpace,
	        .imageExtent = *extent,
	        .imageArrayLayers = 1,
	        .imageUsage = usage,
	        .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
	        .preTransform = caps.currentTransform,
	        .compositeAlpha = alpha,
	        .presentMode = mode,
	        .clipped = VK_TRUE,
	        .oldSwapchain = params->old,
	};
	return vkCreateSwapchainKHR(device, &info, allocator, out);
}

void record_clear(VkCommandBuffer cmd, VkImage image, unsigned frame, float blue)
{
	const VkImageSubresourceRange range = {
	        .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
	        .levelCount = 1,
	        .layerCount = 1,
	};
	/* The previous contents are discarded (UNDEFINED); the barrier waits for the acquire semaphore's
	 * wait, which the submit places at the transfer stage. */
	VkImageMemoryBarrier barrier = {
	        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
	        .srcAccessMask = 0,
	        .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
	        .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	        .newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
	        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
	        .image = image,
	        .subresourceRange = range,
	};
	/* A ramp per channel with different periods (in frames), so consecutive frames differ. */
	const VkClearColorValue colour = {
	        .float32 = {(float)(frame % 61) / 60.0f, (float)(frame % 97) / 96.0f, blue, 1.0f}};

	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL,
	                     0, NULL, 1, &barrier);
	vkCmdClearColorImage(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &colour, 1, &range);
	/* The present waits on the render-finished semaphore, which makes the write visible to it; the
	 * barrier only has to make the layout transition happen before that semaphore is signalled. */
	barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	barrier.dstAccessMask = 0;
	barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
	barrier.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0,
	                     NULL, 0, NULL, 1, &barrier);
}

VkResult frames_create(VkDevice device, uint32_t family, VkSwapchainKHR swapchain, struct frames *f)
{
	const VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                      .queueFamilyIndex = family};
	const VkSemaphoreCreateInfo semaphore = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	const VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
	                                 .flags = VK_FENCE_CREATE_SIGNALED_BIT};
	VkResult r;

	*f = (struct frames){.image_count = FRAMES_MAX};
	r = vkGetSwapchainImagesKHR(device, swapchain, &f->image_count, f->images);
	if (r != VK_SUCCESS)
		return r;
	r = vkCreateCommandPool(device, &pool, NULL, &f->pool);
	if (r != VK_SUCCESS)
		return r;
	const VkCommandBufferAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                              .commandPool = f->pool,
	                                              .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                              .commandBufferCount = f->image_count};
	r = vkAllocateCommandBuffers(device, &allocate, f->cmds);
	if (r != VK_SUCCESS)
		return r;
	for (uint32_t i = 0; i < f->image_count; i++) {
		const VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
		const VkImageMemoryBarrier barrier = {
		        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		        .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
		        .newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
		        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		        .image = f->images[i],
		        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
		};

		r = vkBeginCommandBuffer(f->cmds[i], &begin);
		if (r != VK_SUCCESS)
			return r;
		vkCmdPipelineBarrier(f->cmds[i], VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
		                     VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL, 0, NULL, 1, &barrier);
		r = vkEndCommandBuffer(f->cmds[i]);
		if (r != VK_SUCCESS)
			return r;
	}
	for (uint32_t i = 0; i < FRAMES_MAX; i++) {
		if ((r = vkCreateSemaphore(device, &semaphore, NULL, &f->acquired[i])) != VK_SUCCESS ||
		    (r = vkCreateSemaphore(device, &semaphore, NULL, &f->rendered[i])) != VK_SUCCESS ||
		    (r = vkCreateFence(device, &fence, NULL, &f->done[i])) != VK_SUCCESS)
			return r;
	}
	return VK_SUCCESS;
}

void frames_destroy(VkDevice device, struct frames *f)
{
	vkDeviceWaitIdle(device);
	for (uint32_t i = 0; i < FRAMES_MAX; i++) {
		vkDestroySemaphore(device, f->acquired[i], NULL);
		vkDestroySemaphore(device, f->rendered[i], NULL);
		vkDestroyFence(device, f->done[i], NULL);
	}
	vkDestroyCommandPool(device, f->pool, NULL);
}

VkResult frames_submit(VkDevice device, VkQueue queue, VkSwapchainKHR swapchain, struct frames *f,
                       uint32_t slot, uint64_t timeout, pthread_mutex_t *lock, uint32_t *index)
{
	const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
	VkResult r, acquired;

	r = vkWaitForFences(device, 1, &f->done[slot], VK_TRUE, UINT64_MAX);
	if (r != VK_SUCCESS)
		return r;
	acquired =
	        vkAcquireNextImageKHR(device, swapchain, timeout, f->acquired[slot], VK_NULL_HANDLE, index);
	if (acquired != VK_SUCCESS && acquired != VK_SUBOPTIMAL_KHR)
		return acquired;
	/* Reset only now: had the acquire failed, the next wait on this never-submitted fence would hang. */
	r = vkResetFences(device, 1, &f->done[slot]);
	if (r != VK_SUCCESS)
		return r;
	/* The image's command buffer may still be pending from the frame that last used it. */
	if (f->image_fence[*index]) {
		r = vkWaitForFences(device, 1, &f->image_fence[*index], VK_TRUE, UINT64_MAX);
		if (r != VK_SUCCESS)
			return r;
	}
	f->image_fence[*index] = f->done[slot];

	const VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	                             .waitSemaphoreCount = 1,
	                             .pWaitSemaphores = &f->acquired[slot],
	                             .pWaitDstStageMask = &stage,
	                             .commandBufferCount = 1,
	                             .pCommandBuffers = &f->cmds[*index],
	                             .signalSemaphoreCount = 1,
	                             .pSignalSemaphores = &f->rendered[slot]};
	if (lock)
		pthread_mutex_lock(lock);
	r = vkQueueSubmit(queue, 1, &submit, f->done[slot]);
	if (lock)
		pthread_mutex_unlock(lock);
	return r != VK_SUCCESS ? r : acquired;
}

VkResult headless_open(struct headless *h, const char *name, const char *const *extra, uint32_t extra_count)
{
	const struct instance_params params = {.app_name = name,
	                                       .api_version = VK_API_VERSION_1_3,
	                                       .headless = true,
	                                       .extra = extra,
	                                       .extra_count = extra_count};

	return headless_setup(&params, &h->instance, &h->surface, &h->physical, &h->family);
}

VkResult headless_device_create(struct headless *h, const char *const *extensions, uint32_t count,
                                const void *features)
{
	VkResult r =
	        device_create_with(h->physical, h->family, extensions, count, features, NULL, &h->device);

	if (r == VK_SUCCESS)
		vkGetDeviceQueue(h->device, h->family, 0, &h->queue);
	return r;
}

VkResult headless_swapchain_create(struct headless *h, struct swapchain_params *params)
{
	VkResult r;

	params->physical = h->physical;
	params->surface = h->surface;
	params->window_size = (VkExtent2D){64, 64};
	r = swapchain_create(h->device, params, NULL, &h->swapchain, &h->extent);
	if (r != VK_SUCCESS)
		return r;
	return frames_create(h->device, h->family, h->swapchain, &h->f);
}

void headless_close(struct headless *h)
{
	frames_destroy(h->device, &h->f);
	vkDestroySwapchainKHR(h->device, h->swapchain, NULL);
	vkDestroyDevice(h->device, NULL);
	vkDestroySurfaceKHR(h->instance, h->surface, NULL);
	vkDestroyInstance(h->instance, NULL);
}
