/* common.h — the Vulkan boilerplate shared by the hardening test apps (robust.c, stress.c).
 *
 * Every function returns the VkResult of the first call that did not succeed, untouched, so a test
 * can tell exactly which error reached the app; none prints or exits. Allocators are passed through
 * to every create and destroy call so an app can count and fail allocations.
 */
#ifndef LOWLAT_TEST_COMMON_H
#define LOWLAT_TEST_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

/* xwindow.h declares the xcb types that vulkan_xcb.h names (no xcb headers in the test root). */
#include "xwindow.h"

#include <vulkan/vulkan_xcb.h>

#include "result_name.h"

/* An instance with VK_KHR_surface and the xcb (or, headless, VK_EXT_headless_surface) surface
 * extension, plus up to INSTANCE_EXTRA_MAX more; api_version 0 means Vulkan 1.1. */
#define INSTANCE_EXTRA_MAX 8
struct instance_params {
	const char *app_name;
	uint32_t api_version;
	bool headless;
	const char *const *extra;
	uint32_t extra_count;
};
VkResult instance_create_with(const struct instance_params *params, const VkAllocationCallbacks *allocator,
                              VkInstance *out);
/* The same as instance_create_with for Vulkan 1.1 and an xcb surface. */
VkResult instance_create(const char *app_name, const VkAllocationCallbacks *allocator, VkInstance *out);
VkResult surface_create(VkInstance instance, struct xdisplay *x, xcb_window_t window,
                        const VkAllocationCallbacks *allocator, VkSurfaceKHR *out);
/* The same with VK_EXT_headless_surface in place of an X window: no X server needed. The virtual
 * display makes such surfaces itself, also where the driver lacks the extension. */
VkResult instance_create_headless(const char *app_name, const VkAllocationCallbacks *allocator,
                                  VkInstance *out);
VkResult surface_create_headless(VkInstance instance, const VkAllocationCallbacks *allocator,
                                 VkSurfaceKHR *out);

/* The first physical device and queue family that can clear images and present to SURFACE.
 * VK_ERROR_INITIALIZATION_FAILED when there is none. */
VkResult physical_device_pick(VkInstance instance, VkSurfaceKHR surface, VkPhysicalDevice *physical,
                              uint32_t *family);

/* A device with one queue of FAMILY and VK_KHR_swapchain enabled. */
VkResult device_create(VkPhysicalDevice physical, uint32_t family, const VkAllocationCallbacks *allocator,
                       VkDevice *out);
/* The same with the given extensions (VK_KHR_swapchain among them if wanted) and a pNext chain of
 * feature structs (NULL for none). */
VkResult device_create_with(VkPhysicalDevice physical, uint32_t family, const char *const *extensions,
                            uint32_t count, const void *features, const VkAllocationCallbacks *allocator,
                            VkDevice *out);

struct swapchain_params {
	VkPhysicalDevice physical;
	VkSurfaceKHR surface;
	VkExtent2D window_size; /* used when the surface takes its size from the swapchain */
	VkPresentModeKHR mode;  /* FIFO when the surface lacks it */
	VkSwapchainKHR old;     /* VK_NULL_HANDLE or the swapchain being replaced */
};

/* Creates a swapchain of transfer-destination images (the apps only clear them). */
VkResult swapchain_create(VkDevice device, const struct swapchain_params *params,
                          const VkAllocationCallbacks *allocator, VkSwapchainKHR *out, VkExtent2D *extent);

/* Records a clear of IMAGE to a colour derived from FRAME, with the transitions from UNDEFINED and to
 * PRESENT_SRC the spec requires. The acquire semaphore's wait must be at the transfer stage. */
void record_clear(VkCommandBuffer cmd, VkImage image, unsigned frame, float blue);

#endif
