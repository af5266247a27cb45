/* vd_commands.h — the fate of every command that can carry one of our VkSwapchainKHR or VkSurfaceKHR
 * handles.
 *
 * A swapchain of the virtual display is a handle the driver below never made; if one reached the
 * driver it would be dereferenced as the driver's own object. So each such command is either
 * implemented here (IMPL) or its extension is hidden (HIDE: removed from the device's extension
 * list, refused at vkCreateDevice, its commands not handed out). check_registry.py compares this
 * list with vk.xml, so a command added to the registry cannot slip through.
 *
 * IMPL(command)             hooked by the layer (vd_layer.h hook lists); KHR aliases listed too
 * HIDE(command, extension)  every extension that provides the command must be hidden
 * A command that only carries a handle through a pNext struct of a hidden extension needs no entry.
 */
#ifndef VD_COMMANDS_H
#define VD_COMMANDS_H

#define VD_SWAPCHAIN_COMMANDS(IMPL, HIDE)                                                                    \
	IMPL(vkCreateSwapchainKHR)                                                                           \
	IMPL(vkDestroySwapchainKHR)                                                                          \
	IMPL(vkGetSwapchainImagesKHR)                                                                        \
	IMPL(vkAcquireNextImageKHR)                                                                          \
	IMPL(vkAcquireNextImage2KHR)                                                                         \
	IMPL(vkQueuePresentKHR)                                                                              \
	IMPL(vkWaitForPresentKHR)                                                                            \
	IMPL(vkWaitForPresent2KHR)                                                                           \
	IMPL(vkReleaseSwapchainImagesKHR)                                                                    \
	IMPL(vkReleaseSwapchainImagesEXT)                                                                    \
	IMPL(vkSetSwapchainPresentTimingQueueSizeEXT)                                                        \
	IMPL(vkGetSwapchainTimingPropertiesEXT)                                                              \
	IMPL(vkGetSwapchainTimeDomainPropertiesEXT)                                                          \
	IMPL(vkGetPastPresentationTimingEXT)                                                                 \
	IMPL(vkGetCalibratedTimestampsKHR)                                                                   \
	IMPL(vkGetCalibratedTimestampsEXT)                                                                   \
	IMPL(vkCreateImage)                                                                                  \
	IMPL(vkBindImageMemory2)                                                                             \
	IMPL(vkBindImageMemory2KHR)                                                                          \
	IMPL(vkGetDeviceImageMemoryRequirements)                                                             \
	IMPL(vkGetDeviceImageMemoryRequirementsKHR)                                                          \
	IMPL(vkGetDeviceImageSparseMemoryRequirements)                                                       \
	IMPL(vkGetDeviceImageSparseMemoryRequirementsKHR)                                                    \
	IMPL(vkGetDeviceImageSubresourceLayout)                                                              \
	IMPL(vkGetDeviceImageSubresourceLayoutKHR)                                                           \
	HIDE(vkCreateSharedSwapchainsKHR, VK_KHR_display_swapchain)                                          \
	HIDE(vkGetSwapchainStatusKHR, VK_KHR_shared_presentable_image)                                       \
	HIDE(vkGetSwapchainCounterEXT, VK_EXT_display_control)                                               \
	HIDE(vkGetRefreshCycleDurationGOOGLE, VK_GOOGLE_display_timing)                                      \
	HIDE(vkGetPastPresentationTimingGOOGLE, VK_GOOGLE_display_timing)                                    \
	HIDE(vkSetHdrMetadataEXT, VK_EXT_hdr_metadata)                                                       \
	HIDE(vkSetLocalDimmingAMD, VK_AMD_display_native_hdr)                                                \
	HIDE(vkAcquireFullScreenExclusiveModeEXT, VK_EXT_full_screen_exclusive)                              \
	HIDE(vkReleaseFullScreenExclusiveModeEXT, VK_EXT_full_screen_exclusive)                              \
	IMPL(vkSetLatencySleepModeNV)                                                                        \
	IMPL(vkLatencySleepNV)                                                                               \
	IMPL(vkSetLatencyMarkerNV)                                                                           \
	IMPL(vkGetLatencyTimingsNV)                                                                          \
	HIDE(vkSetBufferCollectionImageConstraintsFUCHSIA, VK_FUCHSIA_buffer_collection)

/* The same for our VkSurfaceKHR handles (vd_surface.c: the headless surfaces the display makes):
 * every command that can carry one answers for ours itself and hands the others (a window system's)
 * to the driver, or its extension is hidden. A surface only a command's output names needs no entry. */
#define VD_SURFACE_COMMANDS(IMPL, HIDE)                                                                      \
	IMPL(vkDestroySurfaceKHR)                                                                            \
	IMPL(vkGetPhysicalDeviceSurfaceSupportKHR)                                                           \
	IMPL(vkGetPhysicalDeviceSurfaceCapabilitiesKHR)                                                      \
	IMPL(vkGetPhysicalDeviceSurfaceCapabilities2KHR)                                                     \
	IMPL(vkGetPhysicalDeviceSurfaceCapabilities2EXT)                                                     \
	IMPL(vkGetPhysicalDeviceSurfaceFormatsKHR)                                                           \
	IMPL(vkGetPhysicalDeviceSurfaceFormats2KHR)                                                          \
	IMPL(vkGetPhysicalDeviceSurfacePresentModesKHR)                                                      \
	IMPL(vkGetPhysicalDevicePresentRectanglesKHR)                                                        \
	IMPL(vkGetDeviceGroupSurfacePresentModesKHR)                                                         \
	IMPL(vkCreateSwapchainKHR)                                                                           \
	HIDE(vkCreateSharedSwapchainsKHR, VK_KHR_display_swapchain)                                          \
	HIDE(vkGetPhysicalDeviceSurfacePresentModes2EXT, VK_EXT_full_screen_exclusive)                       \
	HIDE(vkGetDeviceGroupSurfacePresentModes2EXT, VK_EXT_full_screen_exclusive)

#endif
