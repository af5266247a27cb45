/* vd_layer.c — loader plumbing of the virtual display: negotiation, Get*ProcAddr, instance and device
 * lifetime, the device extension list, and the copy of the device create info the driver sees.
 *
 * The layer is explicit and must sit directly above the driver (last in VK_INSTANCE_LAYERS): it
 * creates swapchains the driver never sees, so nothing may sit between it and the driver that would
 * forward a swapchain call past it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>

#include "../test_layer.h"
#include "vd_commands.h"
#include "vd_latency.h"
#include "vd_layer.h"

#define VD_LAYER_NAME "VK_LAYER_LOWLAT_vdisplay"

struct lowlat_map vd_instances = LOWLAT_MAP_INIT;
struct lowlat_map vd_devices = LOWLAT_MAP_INIT;

/* ---- extensions: hidden, and needed below ---- */

#define VD_HIDDEN_EXT(command, extension) #extension,
#define VD_NO_EXT(command)
static const char *const hidden_extensions[] = {VD_SWAPCHAIN_COMMANDS(VD_NO_EXT, VD_HIDDEN_EXT)
                                                        VD_SURFACE_COMMANDS(VD_NO_EXT, VD_HIDDEN_EXT)};
#define VD_HIDDEN_CMD(command, extension) #command,
static const char *const hidden_commands[] = {VD_SWAPCHAIN_COMMANDS(VD_NO_EXT, VD_HIDDEN_CMD)
                                                      VD_SURFACE_COMMANDS(VD_NO_EXT, VD_HIDDEN_CMD)};
#undef VD_HIDDEN_EXT
#undef VD_HIDDEN_CMD
#undef VD_NO_EXT

#define VD_COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool in_list(const char *const *list, size_t count, const char *name)
{
	for (size_t i = 0; i < count; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

/* LOWLAT_VDISPLAY_NO_MAINTENANCE1=1: a display without swapchain_maintenance1 (no per-present
 * mode switching), for testing what a layer above does without it. */
bool vd_no_maintenance1(void)
{
	const char *v = getenv("LOWLAT_VDISPLAY_NO_MAINTENANCE1");
	return v && !strcmp(v, "1");
}

/* LOWLAT_VDISPLAY_MAINTENANCE1=ext: swapchain_maintenance1 in its EXT form only, as drivers that
 * predate the KHR promotion list it (README.md, [N5]), while the instance may list both forms of
 * surface_maintenance1. */
static bool ext_maintenance1_only(void)
{
	const char *v = getenv("LOWLAT_VDISPLAY_MAINTENANCE1");
	return v && !strcmp(v, "ext");
}

static bool is_hidden_extension(const char *name)
{
	if (vd_no_maintenance1() && (!strcmp(name, VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME) ||
	                             !strcmp(name, VK_EXT_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME)))
		return true;
	if (ext_maintenance1_only() && !strcmp(name, VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME))
		return true;
	return in_list(hidden_extensions, VD_COUNT(hidden_extensions), name);
}

/* What the display needs from the driver, enabled on the copy of the create info: acquire signals
 * the app's semaphore and fence by importing an already-signalled SYNC_FD (-1), with no queue work. */
static const char *const required_extensions[] = {
        VK_KHR_EXTERNAL_SEMAPHORE_EXTENSION_NAME,
        VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME,
        VK_KHR_EXTERNAL_FENCE_EXTENSION_NAME,
        VK_KHR_EXTERNAL_FENCE_FD_EXTENSION_NAME,
};
/* Enabled when present: converts the ready timestamps to CLOCK_MONOTONIC. */
static const char *const optional_extensions[] = {VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME};

/* The driver's device extensions, malloc'ed; NULL on failure. */
static VkExtensionProperties *driver_extensions(struct vd_instance *inst, VkPhysicalDevice physical,
                                                uint32_t *count)
{
	VkExtensionProperties *props;
	VkResult r;

	for (;;) {
		if (inst->vk.EnumerateDeviceExtensionProperties(physical, NULL, count, NULL) != VK_SUCCESS)
			return NULL;
		props = calloc(*count ? *count : 1, sizeof(*props));
		if (!props)
			return NULL;
		r = inst->vk.EnumerateDeviceExtensionProperties(physical, NULL, count, props);
		if (r == VK_SUCCESS)
			return props;
		free(props);
		if (r != VK_INCOMPLETE)
			return NULL;
	}
}

static bool props_have(const VkExtensionProperties *props, uint32_t count, const char *name)
{
	for (uint32_t i = 0; i < count; i++)
		if (!strcmp(props[i].extensionName, name))
			return true;
	return false;
}

static VkResult write_extensions(const VkExtensionProperties *props, uint32_t n, uint32_t *count,
                                 VkExtensionProperties *out)
{
	if (!out) {
		*count = n;
		return VK_SUCCESS;
	}
	if (*count > n)
		*count = n;
	memcpy(out, props, *count * sizeof(*out));
	return *count < n ? VK_INCOMPLETE : VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_EnumerateDeviceExtensionProperties(VkPhysicalDevice physical,
                                                                     const char *layer, uint32_t *count,
                                                                     VkExtensionProperties *out)
{
	struct vd_instance *inst = vd_instance_of(physical);
	VkExtensionProperties *props, *all;
	uint32_t n, kept = 0;
	VkResult result;

	if (!inst)
		return VK_ERROR_INITIALIZATION_FAILED;
	bool own_only = layer && !strcmp(layer, VD_LAYER_NAME);
	if (layer && !own_only)
		return inst->vk.EnumerateDeviceExtensionProperties(physical, layer, count, out);

	/* The driver's, less the hidden ones, plus ours (see vd_features.c for why an explicit layer
	 * adds to this list); asked by the display's name, ours alone. Either way ours only as the
	 * driver and LOWLAT_VDISPLAY_WITHHOLD allow: a withheld extension is not offered however the
	 * app (or a layer above) asks. */
	props = driver_extensions(inst, physical, &n);
	all = props ? calloc(n + vd_own_extension_count, sizeof(*all)) : NULL;
	if (!all) {
		free(props);
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	for (uint32_t i = 0; i < n && !own_only; i++)
		if (!is_hidden_extension(props[i].extensionName) &&
		    !vd_is_own_extension(props[i].extensionName))
			all[kept++] = props[i];
	bool calibration = props_have(props, n, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
	for (uint32_t i = 0; i < vd_own_extension_count; i++)
		if ((calibration ||
		     !vd_own_extension_needs_calibration(vd_own_extensions[i].extensionName)) &&
		    !vd_own_extension_withheld(vd_own_extensions[i].extensionName))
			all[kept++] = vd_own_extensions[i];
	result = write_extensions(all, kept, count, out);
	free(all);
	free(props);
	return result;
}

/* ---- instance ---- */

VKAPI_ATTR VkResult VKAPI_CALL vd_CreateInstance(const VkInstanceCreateInfo *info,
                                                 const VkAllocationCallbacks *allocator, VkInstance *out)
{
	VkLayerInstanceCreateInfo *link = lowlat_find_instance_link(info);
	struct vd_instance *inst;
	VkResult result;

	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkCreateInstance next_create = (PFN_vkCreateInstance)next_gipa(NULL, "vkCreateInstance");
	if (!next_create)
		return VK_ERROR_INITIALIZATION_FAILED;

	inst = lowlat_alloc(allocator, sizeof(*inst), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
	if (!inst)
		return VK_ERROR_OUT_OF_HOST_MEMORY;

	VkLayerInstanceLink *ours = link->u.pLayerInfo;
	link->u.pLayerInfo = ours->pNext;
	result = next_create(info, allocator, out);
	link->u.pLayerInfo = ours;
	if (result != VK_SUCCESS)
		goto fail_free;

	inst->handle = *out;
#define VD_LOAD(name) inst->vk.name = (PFN_vk##name)next_gipa(*out, "vk" #name);
	VD_INSTANCE_FUNCTIONS(VD_LOAD)
#undef VD_LOAD
	if (!inst->vk.GetPhysicalDeviceFeatures2)
		inst->vk.GetPhysicalDeviceFeatures2 =
		        (PFN_vkGetPhysicalDeviceFeatures2)next_gipa(*out, "vkGetPhysicalDeviceFeatures2KHR");
	if (!inst->vk.DestroyInstance || !inst->vk.CreateDevice ||
	    !inst->vk.EnumerateDeviceExtensionProperties) {
		result = VK_ERROR_INITIALIZATION_FAILED;
		goto fail_destroy;
	}
	if (!lowlat_map_insert(&vd_instances, lowlat_dispatch_key(*out), inst)) {
		result = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto fail_destroy;
	}
	return VK_SUCCESS;

fail_destroy:
	if (inst->vk.DestroyInstance)
		inst->vk.DestroyInstance(*out, allocator);
	*out = VK_NULL_HANDLE;
fail_free:
	lowlat_free(allocator, inst);
	return result;
}

VKAPI_ATTR void VKAPI_CALL vd_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *allocator)
{
	struct vd_instance *inst;

	if (!instance || !(inst = lowlat_map_remove(&vd_instances, lowlat_dispatch_key(instance))))
		return;
	inst->vk.DestroyInstance(instance, allocator);
	lowlat_free(allocator, inst);
}

/* ---- device ---- */

static bool has_name(const char *const *names, uint32_t count, const char *name)
{
	for (uint32_t i = 0; i < count; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Whether the display can run on this driver: it has every extension the display needs (for the
 * surface support the display's own surfaces report, before any device exists). Says which one is
 * missing, once per process. */
bool vd_driver_can_display(struct vd_instance *inst, VkPhysicalDevice physical)
{
	static bool told;
	uint32_t n_props;
	VkExtensionProperties *props = driver_extensions(inst, physical, &n_props);
	bool can = props != NULL;

	for (size_t i = 0; can && i < VD_COUNT(required_extensions); i++) {
		if (!props_have(props, n_props, required_extensions[i])) {
			if (!__atomic_exchange_n(&told, true, __ATOMIC_RELAXED))
				vd_msg("the driver lacks %s; no queue can present to the display's headless "
				       "surface",
				       required_extensions[i]);
			can = false;
		}
	}
	free(props);
	return can;
}

/* The driver's copy of the extension list: the app's, plus what the display needs. Returns a
 * malloc'ed array (the strings are not copied) or NULL; *display says whether the display can work. */
static const char **device_extensions_below(struct vd_instance *inst, VkPhysicalDevice physical,
                                            const VkDeviceCreateInfo *info, uint32_t *count, bool *display)
{
	uint32_t n_props;
	VkExtensionProperties *props = driver_extensions(inst, physical, &n_props);
	size_t cap =
	        info->enabledExtensionCount + VD_COUNT(required_extensions) + VD_COUNT(optional_extensions);
	const char **names = calloc(cap, sizeof(*names));
	uint32_t n = 0;

	if (!props || !names) {
		free(props);
		free(names);
		return NULL;
	}
	/* Ours are the display's business: the driver never hears of them. */
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
		if (!vd_is_own_extension(info->ppEnabledExtensionNames[i]))
			names[n++] = info->ppEnabledExtensionNames[i];
	*display = has_name(names, n, VK_KHR_SWAPCHAIN_EXTENSION_NAME);
	for (size_t i = 0; i < VD_COUNT(required_extensions); i++) {
		if (!props_have(props, n_props, required_extensions[i])) {
			if (*display)
				vd_msg("the driver lacks %s; the display is off for this device",
				       required_extensions[i]);
			*display = false;
		} else if (!has_name(names, n, required_extensions[i])) {
			names[n++] = required_extensions[i];
		}
	}
	for (size_t i = 0; i < VD_COUNT(optional_extensions); i++)
		if (props_have(props, n_props, optional_extensions[i]) &&
		    !has_name(names, n, optional_extensions[i]))
			names[n++] = optional_extensions[i];
	free(props);
	*count = n;
	return names;
}

/* One more queue of the app's first family for the display's own submissions (vd_layer.h,
 * signal_queue), when the family has one to spare and the app asked for it without flags: a malloc'ed
 * copy of the queue create infos, its priorities in *priorities, the new queue's index in *index.
 * NULL when no queue is added; the driver then gets the app's list. */
static VkDeviceQueueCreateInfo *queues_below(struct vd_instance *inst, VkPhysicalDevice physical,
                                             const VkDeviceCreateInfo *info, float **priorities,
                                             uint32_t *index)
{
	const VkDeviceQueueCreateInfo *first =
	        info->queueCreateInfoCount ? &info->pQueueCreateInfos[0] : NULL;
	VkQueueFamilyProperties *families = NULL;
	VkDeviceQueueCreateInfo *copy = NULL;
	uint32_t count = 0;

	*priorities = NULL;
	if (!first || first->flags || !inst->vk.GetPhysicalDeviceQueueFamilyProperties)
		return NULL;
	inst->vk.GetPhysicalDeviceQueueFamilyProperties(physical, &count, NULL);
	families = calloc(count ? count : 1, sizeof(*families));
	if (families)
		inst->vk.GetPhysicalDeviceQueueFamilyProperties(physical, &count, families);
	if (families && first->queueFamilyIndex < count &&
	    first->queueCount < families[first->queueFamilyIndex].queueCount) {
		copy = calloc(info->queueCreateInfoCount, sizeof(*copy));
		*priorities = calloc(first->queueCount + 1, sizeof(**priorities));
		if (copy && *priorities) {
			memcpy(copy, info->pQueueCreateInfos, info->queueCreateInfoCount * sizeof(*copy));
			memcpy(*priorities, first->pQueuePriorities,
			       first->queueCount * sizeof(**priorities));
			(*priorities)[first->queueCount] = first->pQueuePriorities[0];
			copy[0].pQueuePriorities = *priorities;
			*index = copy[0].queueCount++;
		} else {
			free(copy);
			free(*priorities);
			copy = NULL;
			*priorities = NULL;
		}
	}
	free(families);
	return copy;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                               const VkAllocationCallbacks *allocator, VkDevice *out)
{
	struct vd_instance *inst = vd_instance_of(physical);
	VkLayerDeviceCreateInfo *link = lowlat_find_device_link(info);
	VkDeviceCreateInfo below;
	const char **names = NULL;
	void *features_storage = NULL;
	VkDeviceQueueCreateInfo *queues = NULL;
	float *priorities = NULL;
	uint32_t signal_index = 0;
	bool extra_queue = false;
	struct vd_device *dev;
	bool display = false;
	VkResult result;

	if (!inst || !link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++) {
		/* Only an app that ignored the extension list can ask for these. */
		if (is_hidden_extension(info->ppEnabledExtensionNames[i])) {
			vd_msg("%s is not offered by the virtual display", info->ppEnabledExtensionNames[i]);
			return VK_ERROR_EXTENSION_NOT_PRESENT;
		}
	}

	PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	PFN_vkCreateDevice next_create = (PFN_vkCreateDevice)next_gipa(inst->handle, "vkCreateDevice");
	if (!next_create)
		return VK_ERROR_INITIALIZATION_FAILED;

	dev = lowlat_alloc(allocator, sizeof(*dev), VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
	if (!dev)
		return VK_ERROR_OUT_OF_HOST_MEMORY;

	/* Never write into the app's struct: the driver gets a copy with our extensions added. */
	below = *info;
	names = device_extensions_below(inst, physical, info, &below.enabledExtensionCount, &display);
	if (!names) {
		result = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto fail_free;
	}
	below.ppEnabledExtensionNames = names;
	/* LOWLAT_VDISPLAY_SIGNAL_QUEUE=own: a queue of our own for acquire's fallback (vd_layer.h). */
	const char *signal_env = getenv("LOWLAT_VDISPLAY_SIGNAL_QUEUE");
	bool own_queue = signal_env && !strcmp(signal_env, "own");
	if (display && own_queue &&
	    (queues = queues_below(inst, physical, info, &priorities, &signal_index))) {
		below.pQueueCreateInfos = queues;
		extra_queue = true;
	}

	/* Advanced before the chain is copied, so a copied link struct points where the original does. */
	VkLayerDeviceLink *ours = link->u.pLayerInfo;
	link->u.pLayerInfo = ours->pNext;
	result = vd_strip_own_features(info->pNext, &below.pNext, &features_storage);
	if (result == VK_SUCCESS)
		result = next_create(physical, &below, allocator, out);
	link->u.pLayerInfo = ours;
	free(names);
	free(features_storage);
	free(queues);
	free(priorities);
	if (result != VK_SUCCESS)
		goto fail_free;

	dev->handle = *out;
	vd_note_enabled_extensions(dev, info);
	dev->physical = physical;
	dev->instance = inst;
	if (allocator) {
		dev->allocator = *allocator;
		dev->has_allocator = true;
	}
	pthread_mutex_init(&dev->queues.lock, NULL);
	pthread_mutex_init(&dev->swapchains.lock, NULL);
	pthread_mutex_init(&dev->signal_lock, NULL);
	dev->default_family = info->queueCreateInfoCount ? info->pQueueCreateInfos[0].queueFamilyIndex : 0;
#define VD_LOAD(name) dev->vk.name = (PFN_vk##name)next_gdpa(*out, "vk" #name);
	VD_DEVICE_FUNCTIONS(VD_LOAD)
	VD_DEVICE_OPTIONAL_FUNCTIONS(VD_LOAD)
#undef VD_LOAD
#define VD_LOAD_KHR(name)                                                                                    \
	if (!dev->vk.name)                                                                                   \
		dev->vk.name = (PFN_vk##name)next_gdpa(*out, "vk" #name "KHR");
	VD_LOAD_KHR(BindImageMemory2)
	VD_LOAD_KHR(GetDeviceImageMemoryRequirements)
	VD_LOAD_KHR(GetDeviceImageSparseMemoryRequirements)
	VD_LOAD_KHR(GetDeviceImageSubresourceLayout)
#undef VD_LOAD_KHR
	if (!dev->vk.GetDeviceProcAddr || !dev->vk.DestroyDevice || !dev->vk.GetDeviceQueue) {
		result = VK_ERROR_INITIALIZATION_FAILED;
		goto fail_destroy;
	}
	if (display) {
		const char *missing = NULL;
#define VD_CHECK(name)                                                                                       \
	if (!dev->vk.name)                                                                                   \
		missing = "vk" #name;
		VD_DEVICE_FUNCTIONS(VD_CHECK)
#undef VD_CHECK
		if (!inst->vk.GetPhysicalDeviceMemoryProperties || !inst->vk.GetPhysicalDeviceProperties)
			missing = "vkGetPhysicalDeviceMemoryProperties";
		if (missing)
			vd_msg("the driver lacks %s; the display is off for this device", missing);
		display = !missing;
	}
	dev->display = display;
	/* The queue is the driver's own handle, never handed to the loader or the app. */
	if (display)
		dev->vk.GetDeviceQueue(*out, dev->default_family, extra_queue ? signal_index : 0,
		                       &dev->signal_queue);
	dev->signal_queue_private = extra_queue;
	if (display)
		vd_load_init(dev);
	if (!dev->vk.SignalSemaphore)
		dev->vk.SignalSemaphore = (PFN_vkSignalSemaphore)next_gdpa(*out, "vkSignalSemaphoreKHR");
	if (display && dev->low_latency2 && !vd_latency_init(dev)) {
		result = VK_ERROR_INITIALIZATION_FAILED;
		goto fail_destroy;
	}
	if (display) {
		VkPhysicalDeviceProperties props;
		inst->vk.GetPhysicalDeviceMemoryProperties(physical, &dev->memory);
		inst->vk.GetPhysicalDeviceProperties(physical, &props);
		dev->timestamp_period = props.limits.timestampPeriod;
	}
	if (!lowlat_map_insert(&vd_devices, lowlat_dispatch_key(*out), dev)) {
		result = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto fail_destroy;
	}
	return VK_SUCCESS;

fail_destroy:
	dev->vk.DestroyDevice(*out, allocator);
	*out = VK_NULL_HANDLE;
	pthread_mutex_destroy(&dev->queues.lock);
	pthread_mutex_destroy(&dev->swapchains.lock);
	pthread_mutex_destroy(&dev->signal_lock);
fail_free:
	lowlat_free(allocator, dev);
	return result;
}

VKAPI_ATTR void VKAPI_CALL vd_DestroyDevice(VkDevice device, const VkAllocationCallbacks *allocator)
{
	struct vd_device *dev;

	if (!device || !(dev = lowlat_map_remove(&vd_devices, lowlat_dispatch_key(device))))
		return;
	vd_latency_fini(dev);
	vd_swapchain_device_teardown(dev);
	if (dev->display)
		vd_load_fini(dev);
	dev->vk.DestroyDevice(device, allocator);
	lowlat_map_fini(&dev->queues);
	lowlat_map_fini(&dev->swapchains);
	pthread_mutex_destroy(&dev->signal_lock);
	lowlat_free(vd_device_allocator(dev), dev);
}

/* Queues are remembered by handle value (the loader does not wrap them) with their family, which
 * the present path needs for its command pool. */
VKAPI_ATTR void VKAPI_CALL vd_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *queue)
{
	struct vd_device *dev = vd_device_of(device);

	dev->vk.GetDeviceQueue(device, family, index, queue);
	if (*queue)
		lowlat_map_insert(&dev->queues, (uint64_t)(uintptr_t)*queue, (void *)(uintptr_t)(family + 1));
}

VKAPI_ATTR void VKAPI_CALL vd_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *queue)
{
	struct vd_device *dev = vd_device_of(device);

	dev->vk.GetDeviceQueue2(device, info, queue);
	if (*queue)
		lowlat_map_insert(&dev->queues, (uint64_t)(uintptr_t)*queue,
		                  (void *)(uintptr_t)(info->queueFamilyIndex + 1));
}

/* ---- Get*ProcAddr ---- */

/* The conditional makes the compiler check each hook against its PFN_vk* type. */
#define VD_HOOK_ENTRY(name) {"vk" #name, (PFN_vkVoidFunction)(1 ? vd_##name : (PFN_vk##name)NULL)},
static const struct hook global_hooks[] = {VD_GLOBAL_HOOKS(VD_HOOK_ENTRY)};
static const struct hook instance_hooks[] = {VD_INSTANCE_HOOKS(VD_HOOK_ENTRY)};
static const struct hook surface_create_hooks[] = {VD_SURFACE_CREATE_HOOKS(VD_HOOK_ENTRY)};
static const struct hook device_core_hooks[] = {VD_DEVICE_CORE_HOOKS(VD_HOOK_ENTRY)};
static const struct hook device_swapchain_hooks[] = {VD_DEVICE_SWAPCHAIN_HOOKS(VD_HOOK_ENTRY)};
static const struct hook device_latency_hooks[] = {VD_DEVICE_LATENCY_HOOKS(VD_HOOK_ENTRY)};
static const struct hook device_carrier_hooks[] = {
        VD_DEVICE_CARRIER_HOOKS(VD_HOOK_ENTRY)
        /* KHR aliases, same signatures. */
        {"vkBindImageMemory2KHR", (PFN_vkVoidFunction)vd_BindImageMemory2},
        {"vkGetDeviceImageMemoryRequirementsKHR", (PFN_vkVoidFunction)vd_GetDeviceImageMemoryRequirements},
        {"vkGetDeviceImageSparseMemoryRequirementsKHR",
         (PFN_vkVoidFunction)vd_GetDeviceImageSparseMemoryRequirements},
        {"vkGetDeviceImageSubresourceLayoutKHR", (PFN_vkVoidFunction)vd_GetDeviceImageSubresourceLayout},
};
static const struct hook device_swapchain_aliases[] = {
        /* Same signature; the EXT name can carry VkSwapchainCalibratedTimestampInfoEXT too. */
        {"vkGetCalibratedTimestampsEXT", (PFN_vkVoidFunction)vd_GetCalibratedTimestampsKHR},
        {"vkReleaseSwapchainImagesEXT", (PFN_vkVoidFunction)vd_ReleaseSwapchainImagesKHR},
};
#undef VD_HOOK_ENTRY

#define VD_FIND_HOOK(table, name) find_hook(table, VD_COUNT(table), name)

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vd_GetDeviceProcAddr(VkDevice device, const char *name)
{
	struct vd_device *dev;
	PFN_vkVoidFunction hook, next;

	if (!device || !name || !(dev = vd_device_of(device)))
		return NULL;
	if (in_list(hidden_commands, VD_COUNT(hidden_commands), name))
		return NULL;
	if ((hook = VD_FIND_HOOK(device_core_hooks, name)))
		return hook;
	if (dev->display && dev->load.bytes && !strcmp(name, "vkQueueSubmit"))
		return (PFN_vkVoidFunction)vd_QueueSubmit;
	if (dev->display && ((hook = VD_FIND_HOOK(device_swapchain_hooks, name)) ||
	                     (hook = VD_FIND_HOOK(device_swapchain_aliases, name))))
		return hook;
	if (dev->latency && (hook = VD_FIND_HOOK(device_latency_hooks, name)))
		return hook;
	next = dev->vk.GetDeviceProcAddr(device, name);
	/* A device the display is off for presents through the driver, but never to our surfaces. */
	if (next && !dev->display && !strcmp(name, "vkCreateSwapchainKHR"))
		return (PFN_vkVoidFunction)vd_CreateSwapchainKHR;
	/* Only where the driver has it: our hook calls the driver's. */
	if (next && dev->display && (hook = VD_FIND_HOOK(device_carrier_hooks, name)))
		return hook;
	return next;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vd_GetInstanceProcAddr(VkInstance instance, const char *name)
{
	struct vd_instance *inst;
	PFN_vkVoidFunction hook;

	if (!name)
		return NULL;
	if ((hook = VD_FIND_HOOK(global_hooks, name)))
		return hook;
	if (!instance || !(inst = vd_instance_of(instance)))
		return NULL;
	if (!strcmp(name, "vkGetInstanceProcAddr"))
		return (PFN_vkVoidFunction)vd_GetInstanceProcAddr;
	if (in_list(hidden_commands, VD_COUNT(hidden_commands), name))
		return NULL;
	if (!strcmp(name, "vkGetPhysicalDeviceCalibrateableTimeDomainsKHR"))
		return inst->vk.GetPhysicalDeviceCalibrateableTimeDomainsEXT
		               ? (PFN_vkVoidFunction)vd_GetPhysicalDeviceCalibrateableTimeDomainsKHR
		               : NULL;
	if (!strcmp(name, "vkGetPhysicalDeviceFeatures2KHR"))
		return inst->vk.GetInstanceProcAddr(instance, name)
		               ? (PFN_vkVoidFunction)vd_GetPhysicalDeviceFeatures2
		               : NULL;
	if ((hook = VD_FIND_HOOK(surface_create_hooks, name)))
		return hook;
	if ((hook = VD_FIND_HOOK(instance_hooks, name)) || (hook = VD_FIND_HOOK(device_core_hooks, name)))
		return inst->vk.GetInstanceProcAddr(instance, name) ? hook : NULL;
	/* Swapchain functions are handed out per device by vkGetDeviceProcAddr, which knows whether the
	 * device took the display over; through the instance they would have to serve every device. */
	return inst->vk.GetInstanceProcAddr(instance, name);
}

__attribute__((visibility("default"))) VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *negotiate)
{
	return negotiate_version_2(negotiate, vd_GetInstanceProcAddr, vd_GetDeviceProcAddr);
}
