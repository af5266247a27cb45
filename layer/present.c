/* present.c — swapchain tracking and the present path.
 *
 * Owns struct lowlat_swapchain: created after the driver creates the swapchain, destroyed before
 * the driver destroys it. The present hook is where pacing happens; the pacing decision itself
 * lives in pace.c and knows nothing of Vulkan.
 */
#include <inttypes.h>
#include <time.h>

#include "hooks.h"
#include "message.h"
#include "objects.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const char *present_mode_name(VkPresentModeKHR mode)
{
	const char *name = lowlat_vk_present_mode_name(mode);
	return name ? name : "other";
}

static const VkAllocationCallbacks *device_allocator(const struct lowlat_device *dev)
{
	return dev->has_allocator ? &dev->allocator : NULL;
}

static void swapchain_summary(const struct lowlat_swapchain *sc)
{
	double seconds = (double)(sc->last_present_ns - sc->first_present_ns) * 1e-9;
	/* n presents span n-1 intervals. */
	double fps = sc->presents > 1 && seconds > 0 ? (double)(sc->presents - 1) / seconds : 0;

	LOWLAT_INFO("swapchain %ux%u %s, %u images: %" PRIu64 " presents in %.2f s (%.1f fps), %" PRIu64
	            " failed; limiter off",
	            sc->extent.width, sc->extent.height, present_mode_name(sc->present_mode), sc->image_count,
	            sc->presents, seconds, fps, sc->present_errors);
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_CreateSwapchainKHR(VkDevice device,
                                                         const VkSwapchainCreateInfoKHR *info,
                                                         const VkAllocationCallbacks *allocator,
                                                         VkSwapchainKHR *out)
{
	struct lowlat_device *dev = lowlat_device_of(device);
	struct lowlat_swapchain *sc;
	VkResult result;

	result = dev->vk.CreateSwapchainKHR(device, info, allocator, out);
	if (result != VK_SUCCESS)
		return result;

	/* Our record outlives no call of the app's, so the device's allocator (object scope) is the
	 * right one; the swapchain's own may be freed by the app at destroy time. */
	sc = lowlat_alloc(device_allocator(dev), sizeof(*sc), VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
	if (!sc) {
		LOWLAT_WARN_ONCE("out of memory tracking a swapchain; its presents pass through");
		return VK_SUCCESS;
	}
	sc->handle = *out;
	sc->device = dev;
	sc->extent = info->imageExtent;
	sc->format = info->imageFormat;
	sc->present_mode = info->presentMode;
	if (dev->vk.GetSwapchainImagesKHR(device, *out, &sc->image_count, NULL) != VK_SUCCESS)
		sc->image_count = info->minImageCount;

	if (!lowlat_map_insert(&dev->swapchains, (uint64_t)*out, sc)) {
		LOWLAT_WARN_ONCE("out of memory tracking a swapchain; its presents pass through");
		lowlat_free(device_allocator(dev), sc);
		return VK_SUCCESS;
	}
	LOWLAT_DEBUG("swapchain created: %ux%u %s, %u images", sc->extent.width, sc->extent.height,
	             present_mode_name(sc->present_mode), sc->image_count);
	return VK_SUCCESS;
}

static void swapchain_forget(struct lowlat_device *dev, struct lowlat_swapchain *sc)
{
	swapchain_summary(sc);
	lowlat_free(device_allocator(dev), sc);
}

VKAPI_ATTR void VKAPI_CALL lowlat_DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                      const VkAllocationCallbacks *allocator)
{
	struct lowlat_device *dev = lowlat_device_of(device);
	struct lowlat_swapchain *sc;

	if (swapchain && (sc = lowlat_map_remove(&dev->swapchains, (uint64_t)swapchain)))
		swapchain_forget(dev, sc);
	dev->vk.DestroySwapchainKHR(device, swapchain, allocator);
}

void lowlat_present_device_teardown(struct lowlat_device *dev)
{
	struct lowlat_swapchain *sc;

	/* Destroying a device with live swapchains is the app's error (validation reports it); free
	 * our records so nothing leaks. */
	while ((sc = lowlat_map_pop(&dev->swapchains)))
		swapchain_forget(dev, sc);
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_AcquireNextImageKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                          uint64_t timeout, VkSemaphore semaphore,
                                                          VkFence fence, uint32_t *index)
{
	struct lowlat_device *dev = lowlat_device_of(device);

	return dev->vk.AcquireNextImageKHR(device, swapchain, timeout, semaphore, fence, index);
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_AcquireNextImage2KHR(VkDevice device,
                                                           const VkAcquireNextImageInfoKHR *info,
                                                           uint32_t *index)
{
	struct lowlat_device *dev = lowlat_device_of(device);

	return dev->vk.AcquireNextImage2KHR(device, info, index);
}

static bool present_failed(VkResult result)
{
	/* SUBOPTIMAL still presented the image. */
	return result < 0;
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	struct lowlat_device *dev = lowlat_device_of(queue);
	VkResult result = dev->vk.QueuePresentKHR(queue, info);
	int64_t t = now_ns();

	for (uint32_t i = 0; i < info->swapchainCount; i++) {
		struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
		VkResult r = info->pResults ? info->pResults[i] : result;

		if (!sc)
			continue;
		if (present_failed(r)) {
			sc->present_errors++;
			continue;
		}
		if (!sc->presents++)
			sc->first_present_ns = t;
		sc->last_present_ns = t;
	}
	return result;
}
