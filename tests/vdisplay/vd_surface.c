/* vd_surface.c — the display's own headless surfaces.
 *
 * A headless surface names no window: it is the virtual display itself. So the display makes it and
 * answers every query about it, and the driver never sees it. That lets the display run on a driver
 * without VK_EXT_headless_surface and without an X server it can present to (NVIDIA's, on a machine
 * with no screen); on lavapipe, which has the extension, the display answers the same way, so what
 * CI tests is what runs there. Surfaces of a window system (xcb under Xvfb) stay the driver's: each
 * hook below hands them down untouched.
 *
 * What the display's surface offers, where the spec leaves the choice to the implementation:
 *  - every queue family whose queues write timestamps can present (a present writes the ready time),
 *    where the driver has what the display needs (vd_driver_can_display);
 *  - the swapchain sets the extent (currentExtent is 0xFFFFFFFF), up to the device's largest 2D image;
 *  - 2 to VD_MAX_IMAGES images, one layer, no transform, opaque alpha;
 *  - the 8-bit BGRA and RGBA formats, UNORM and SRGB, in the sRGB colour space, where the device can
 *    render to them (transfer destination at least, which is all the test apps need).
 */
#include <stdlib.h>
#include <string.h>

#include "vd_layer.h"
#include "vd_swapchain.h"

static struct lowlat_map surfaces = LOWLAT_MAP_INIT; /* VkSurfaceKHR -> its struct vd_surface */

/* A surface of ours is its handle and nothing more: every answer about it is the same. The struct
 * only gives each handle an address of its own. */
struct vd_surface {
	char unused;
};

bool vd_surface_is_own(VkSurfaceKHR surface)
{
	return surface != VK_NULL_HANDLE && lowlat_map_find(&surfaces, (uint64_t)surface) != NULL;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_CreateHeadlessSurfaceEXT(VkInstance instance,
                                                           const VkHeadlessSurfaceCreateInfoEXT *info,
                                                           const VkAllocationCallbacks *allocator,
                                                           VkSurfaceKHR *out)
{
	struct vd_surface *s = lowlat_alloc(allocator, sizeof(*s), VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);

	(void)info;
	(void)instance;
	if (!s)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	if (!lowlat_map_insert(&surfaces, (uint64_t)(uintptr_t)s, s)) {
		lowlat_free(allocator, s);
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	*out = (VkSurfaceKHR)(uintptr_t)s;
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL vd_DestroySurfaceKHR(VkInstance instance, VkSurfaceKHR surface,
                                                const VkAllocationCallbacks *allocator)
{
	struct vd_instance *inst = vd_instance_of(instance);
	struct vd_surface *s;

	if (surface == VK_NULL_HANDLE)
		return;
	if ((s = lowlat_map_remove(&surfaces, (uint64_t)surface))) {
		lowlat_free(allocator, s);
		return;
	}
	if (inst && inst->vk.DestroySurfaceKHR)
		inst->vk.DestroySurfaceKHR(instance, surface, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceSurfaceSupportKHR(VkPhysicalDevice physical,
                                                                     uint32_t family, VkSurfaceKHR surface,
                                                                     VkBool32 *supported)
{
	struct vd_instance *inst = vd_instance_of(physical);
	VkQueueFamilyProperties *families;
	uint32_t count = 0;

	if (!vd_surface_is_own(surface))
		return inst->vk.GetPhysicalDeviceSurfaceSupportKHR(physical, family, surface, supported);
	inst->vk.GetPhysicalDeviceQueueFamilyProperties(physical, &count, NULL);
	if (!(families = calloc(count ? count : 1, sizeof(*families))))
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	inst->vk.GetPhysicalDeviceQueueFamilyProperties(physical, &count, families);
	*supported = family < count && families[family].timestampValidBits != 0 &&
	             vd_driver_can_display(inst, physical);
	free(families);
	return VK_SUCCESS;
}

static void own_capabilities(struct vd_instance *inst, VkPhysicalDevice physical,
                             VkSurfaceCapabilitiesKHR *caps)
{
	VkPhysicalDeviceProperties props;

	inst->vk.GetPhysicalDeviceProperties(physical, &props);
	*caps = (VkSurfaceCapabilitiesKHR){
	        .minImageCount = 2,
	        .maxImageCount = VD_MAX_IMAGES,
	        .currentExtent = {UINT32_MAX, UINT32_MAX},
	        .minImageExtent = {1, 1},
	        .maxImageExtent = {props.limits.maxImageDimension2D, props.limits.maxImageDimension2D},
	        .maxImageArrayLayers = 1,
	        .supportedTransforms = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
	        .currentTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
	        .supportedCompositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
	        .supportedUsageFlags = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
	                               VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
	};
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceSurfaceCapabilitiesKHR(VkPhysicalDevice physical,
                                                                          VkSurfaceKHR surface,
                                                                          VkSurfaceCapabilitiesKHR *caps)
{
	struct vd_instance *inst = vd_instance_of(physical);

	if (!vd_surface_is_own(surface))
		return inst->vk.GetPhysicalDeviceSurfaceCapabilitiesKHR(physical, surface, caps);
	own_capabilities(inst, physical, caps);
	return VK_SUCCESS;
}

/* The chain of a VkSurfaceCapabilities2KHR, for the structs a driver fills and the display's
 * features do not (vd_features.c fills those): nothing protected, no scaling, no shared images. */
VkResult vd_surface_capabilities2(struct vd_instance *inst, VkPhysicalDevice physical,
                                  VkSurfaceCapabilities2KHR *caps)
{
	own_capabilities(inst, physical, &caps->surfaceCapabilities);
	for (VkBaseOutStructure *s = (VkBaseOutStructure *)caps->pNext; s; s = s->pNext) {
		switch ((int)s->sType) {
		case VK_STRUCTURE_TYPE_SURFACE_PROTECTED_CAPABILITIES_KHR:
			((VkSurfaceProtectedCapabilitiesKHR *)s)->supportsProtected = VK_FALSE;
			break;
		case VK_STRUCTURE_TYPE_SHARED_PRESENT_SURFACE_CAPABILITIES_KHR:
			((VkSharedPresentSurfaceCapabilitiesKHR *)s)->sharedPresentSupportedUsageFlags = 0;
			break;
		case VK_STRUCTURE_TYPE_SURFACE_PRESENT_SCALING_CAPABILITIES_KHR: {
			VkSurfacePresentScalingCapabilitiesKHR *c = (void *)s;
			c->supportedPresentScaling = 0;
			c->supportedPresentGravityX = 0;
			c->supportedPresentGravityY = 0;
			c->minScaledImageExtent = caps->surfaceCapabilities.minImageExtent;
			c->maxScaledImageExtent = caps->surfaceCapabilities.maxImageExtent;
			break;
		}
		default: break;
		}
	}
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceSurfaceCapabilities2EXT(VkPhysicalDevice physical,
                                                                           VkSurfaceKHR surface,
                                                                           VkSurfaceCapabilities2EXT *caps)
{
	struct vd_instance *inst = vd_instance_of(physical);
	VkSurfaceCapabilitiesKHR base;

	if (!vd_surface_is_own(surface))
		return inst->vk.GetPhysicalDeviceSurfaceCapabilities2EXT(physical, surface, caps);
	own_capabilities(inst, physical, &base);
	caps->minImageCount = base.minImageCount;
	caps->maxImageCount = base.maxImageCount;
	caps->currentExtent = base.currentExtent;
	caps->minImageExtent = base.minImageExtent;
	caps->maxImageExtent = base.maxImageExtent;
	caps->maxImageArrayLayers = base.maxImageArrayLayers;
	caps->supportedTransforms = base.supportedTransforms;
	caps->currentTransform = base.currentTransform;
	caps->supportedCompositeAlpha = base.supportedCompositeAlpha;
	caps->supportedUsageFlags = base.supportedUsageFlags;
	caps->supportedSurfaceCounters = 0; /* no vblank counter: VK_EXT_display_control is hidden */
	return VK_SUCCESS;
}

/* The formats of our surface the device can write to, in the order listed. */
static uint32_t own_formats(struct vd_instance *inst, VkPhysicalDevice physical, VkSurfaceFormatKHR out[4])
{
	static const VkFormat candidates[] = {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB,
	                                      VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB};
	uint32_t n = 0;

	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		VkFormatProperties props;

		inst->vk.GetPhysicalDeviceFormatProperties(physical, candidates[i], &props);
		if (props.optimalTilingFeatures & VK_FORMAT_FEATURE_TRANSFER_DST_BIT)
			out[n++] = (VkSurfaceFormatKHR){candidates[i], VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
	}
	return n;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceSurfaceFormatsKHR(VkPhysicalDevice physical,
                                                                     VkSurfaceKHR surface, uint32_t *count,
                                                                     VkSurfaceFormatKHR *formats)
{
	struct vd_instance *inst = vd_instance_of(physical);
	VkSurfaceFormatKHR own[4];
	uint32_t n;

	if (!vd_surface_is_own(surface))
		return inst->vk.GetPhysicalDeviceSurfaceFormatsKHR(physical, surface, count, formats);
	n = own_formats(inst, physical, own);
	if (!formats) {
		*count = n;
		return VK_SUCCESS;
	}
	if (*count > n)
		*count = n;
	memcpy(formats, own, *count * sizeof(*formats));
	return *count < n ? VK_INCOMPLETE : VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
vd_GetPhysicalDeviceSurfaceFormats2KHR(VkPhysicalDevice physical, const VkPhysicalDeviceSurfaceInfo2KHR *info,
                                       uint32_t *count, VkSurfaceFormat2KHR *formats)
{
	struct vd_instance *inst = vd_instance_of(physical);
	VkSurfaceFormatKHR own[4];
	uint32_t n;

	if (!vd_surface_is_own(info->surface))
		return inst->vk.GetPhysicalDeviceSurfaceFormats2KHR(physical, info, count, formats);
	n = own_formats(inst, physical, own);
	if (!formats) {
		*count = n;
		return VK_SUCCESS;
	}
	if (*count > n)
		*count = n;
	for (uint32_t i = 0; i < *count; i++)
		formats[i].surfaceFormat = own[i]; /* sType and pNext are the app's */
	return *count < n ? VK_INCOMPLETE : VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDevicePresentRectanglesKHR(VkPhysicalDevice physical,
                                                                        VkSurfaceKHR surface, uint32_t *count,
                                                                        VkRect2D *rects)
{
	struct vd_instance *inst = vd_instance_of(physical);
	VkSurfaceCapabilitiesKHR caps;

	if (!vd_surface_is_own(surface))
		return inst->vk.GetPhysicalDevicePresentRectanglesKHR(physical, surface, count, rects);
	/* The surface takes the swapchain's size: all of the largest image may be shown. */
	own_capabilities(inst, physical, &caps);
	if (!rects) {
		*count = 1;
		return VK_SUCCESS;
	}
	if (*count == 0)
		return VK_INCOMPLETE;
	*count = 1;
	rects[0] = (VkRect2D){.offset = {0, 0}, .extent = caps.maxImageExtent};
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetDeviceGroupSurfacePresentModesKHR(
        VkDevice device, VkSurfaceKHR surface, VkDeviceGroupPresentModeFlagsKHR *modes)
{
	struct vd_device *dev = vd_device_of(device);

	if (!vd_surface_is_own(surface))
		return dev->vk.GetDeviceGroupSurfacePresentModesKHR
		               ? dev->vk.GetDeviceGroupSurfacePresentModesKHR(device, surface, modes)
		               : VK_ERROR_EXTENSION_NOT_PRESENT;
	*modes = VK_DEVICE_GROUP_PRESENT_MODE_LOCAL_BIT_KHR;
	return VK_SUCCESS;
}
