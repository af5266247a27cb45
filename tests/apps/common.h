/* common.h — the Vulkan setup shared by the test apps (tests/apps, the virtual display's probes
 * vd_probe.c and vd_conformance.c, tests/neighbours/timing_procs.c): instance, surface, device,
 * swapchain, and the pre-recorded frames of the apps that render nothing.
 *
 * Every function returns the VkResult of the first call that did not succeed, untouched, so a test
 * can tell exactly which error reached the app; none prints or exits. Allocators are passed through
 * to every create and destroy call so an app can count and fail allocations.
 */
#ifndef LOWLAT_TEST_COMMON_H
#define LOWLAT_TEST_COMMON_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vulkan/vulkan_core.h>

/* xwindow.h declares the xcb types that vulkan_xcb.h names (no xcb headers in the test root). */
#include "xwindow.h"

#include <vulkan/vulkan_xcb.h>

#include "result_name.h"

/* For the apps that stop at the first failure: exits 1 with `NAME: FILE:LINE: CALL = RESULT` on
 * stderr when CALL does not return VK_SUCCESS. An app defines its CHECK_VK with its NAME. */
#define CHECK_VK_OR_EXIT(name, call)                                                                         \
	do {                                                                                                 \
		VkResult r_ = (call);                                                                        \
		if (r_ != VK_SUCCESS) {                                                                      \
			fprintf(stderr, name ": %s:%d: %s = %d\n", __FILE__, __LINE__, #call, r_);           \
			exit(1);                                                                             \
		}                                                                                            \
	} while (0)

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t now_ns(void);

/* An instance with VK_KHR_surface and the xcb (or, headless, VK_EXT_headless_surface) surface
 * extension (none of these with no_surface), plus up to INSTANCE_EXTRA_MAX more; api_version 0
 * means Vulkan 1.1. */
#define INSTANCE_EXTRA_MAX 8
struct instance_params {
	const char *app_name;
	const char *engine_name; /* NULL for none */
	uint32_t api_version;
	bool headless;
	bool no_surface;
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

/* instance_create_with (headless whatever params->headless says), surface_create_headless and
 * physical_device_pick in one, without allocators: the headless apps' start. */
VkResult headless_setup(const struct instance_params *params, VkInstance *instance, VkSurfaceKHR *surface,
                        VkPhysicalDevice *physical, uint32_t *family);

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
	/* Optional: */
	const void *next;                /* chained into VkSwapchainCreateInfoKHR */
	VkSwapchainCreateFlagsKHR flags; /* VkSwapchainCreateInfoKHR::flags */
	VkImageUsageFlags usage;         /* 0: TRANSFER_DST (the apps clear their images) */
	uint32_t min_images;             /* 0: one more than the surface's minimum, else at least this */
};

/* Creates a swapchain of B8G8R8A8_UNORM images where the surface offers it (else its first format),
 * in params->mode where the surface lists it (else FIFO). */
VkResult swapchain_create(VkDevice device, const struct swapchain_params *params,
                          const VkAllocationCallbacks *allocator, VkSwapchainKHR *out, VkExtent2D *extent);

/* Records a clear of IMAGE to a colour derived from FRAME, with the transitions from UNDEFINED and to
 * PRESENT_SRC the spec requires. The acquire semaphore's wait must be at the transfer stage. */
void record_clear(VkCommandBuffer cmd, VkImage image, unsigned frame, float blue);

/* The frames of an app that renders nothing (timing is the display's): every swapchain image with a
 * command buffer that only moves it from UNDEFINED to PRESENT_SRC (submitted waiting at the colour
 * attachment stage), and FRAMES_MAX frame slots, each an acquire and a render semaphore and a fence
 * made signalled. image_fence[i] is for the app: the fence of the last submission of image i's
 * commands (VK_NULL_HANDLE until then). */
#define FRAMES_MAX 8
struct frames {
	uint32_t image_count;
	VkImage images[FRAMES_MAX];
	VkCommandPool pool;
	VkCommandBuffer cmds[FRAMES_MAX];
	VkSemaphore acquired[FRAMES_MAX], rendered[FRAMES_MAX];
	VkFence done[FRAMES_MAX];
	VkFence image_fence[FRAMES_MAX];
};
VkResult frames_create(VkDevice device, uint32_t family, VkSwapchainKHR swapchain, struct frames *f);
/* Waits for the device to be idle, then destroys what frames_create made. */
void frames_destroy(VkDevice device, struct frames *f);
/* One frame's work in slot SLOT (below FRAMES_MAX): waits for the slot's fence, acquires an image
 * into *index (waiting up to TIMEOUT ns) with the slot's acquire semaphore, waits for the image's
 * last submission, and submits its commands with the slot's semaphores and fence, under LOCK when
 * not NULL (another thread uses the queue too). The result of the first call that did not succeed,
 * VK_SUCCESS or the acquire's VK_SUBOPTIMAL_KHR; when the acquire fails the slot is as it was. */
VkResult frames_submit(VkDevice device, VkQueue queue, VkSwapchainKHR swapchain, struct frames *f,
                       uint32_t slot, uint64_t timeout, pthread_mutex_t *lock, uint32_t *index);

/* The whole of an app that renders nothing on a headless surface (latency_sleep, vd_probe,
 * vd_conformance): opened, given a device by the app, a swapchain and its frames, closed. */
struct headless {
	VkInstance instance;
	VkSurfaceKHR surface;
	VkPhysicalDevice physical;
	uint32_t family;
	VkDevice device;
	VkQueue queue;
	VkSwapchainKHR swapchain;
	VkExtent2D extent;
	struct frames f;
};
/* headless_setup for a Vulkan 1.3 app NAME with EXTRA instance extensions. */
VkResult headless_open(struct headless *h, const char *name, const char *const *extra, uint32_t extra_count);
/* device_create_with on the picked family, and the device's queue. */
VkResult headless_device_create(struct headless *h, const char *const *extensions, uint32_t count,
                                const void *features);
/* swapchain_create with PARAMS (its physical device, surface and window size, 64x64, filled in
 * here), then frames_create. */
VkResult headless_swapchain_create(struct headless *h, struct swapchain_params *params);
/* frames_destroy (the device idle first), then the swapchain, device, surface and instance. */
void headless_close(struct headless *h);

#endif
