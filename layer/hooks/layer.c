/* layer.c — loader plumbing: interface negotiation, Get*ProcAddr, instance and device lifetime.
 *
 * Nothing here knows about pacing. It tracks instances and devices, decides per device whether
 * lowlat has anything to do (VK_KHR_swapchain enabled and the present functions found), and hands
 * out either lowlat's hooks or the next layer's pointers untouched.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>

#include "anti_lag.h"
#include "config.h"
#include "config_global.h"
#include "create_info.h"
#include "engine.h"
#include "engine_env.h"
#include "latency_sleep.h"
#include "layer.h"
#include "message.h"
#include "objects.h"
#include "present.h"
#include "present_ids.h"
#include "present_mode.h"
#include "present_timing.h"
#include "present_wait.h"
#include "swapchain.h"
#include "swapchain_life.h"
#include "timing_reports.h"

static void copy_name(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/* The explicit layers named to the loader, which a layer below may answer device-extension queries
 * for only by name (create_info.c, lowlat_device_extensions). */
static void instance_layers(struct lowlat_instance *inst, const VkInstanceCreateInfo *info)
{
	const char *env = getenv("VK_INSTANCE_LAYERS");
	size_t used = 0;

	for (uint32_t i = 0; i < info->enabledLayerCount && used < sizeof(inst->layers); i++)
		used += (size_t)snprintf(inst->layers + used, sizeof(inst->layers) - used, "%s%s",
		                         used ? ":" : "", info->ppEnabledLayerNames[i]);
	if (env && used < sizeof(inst->layers))
		snprintf(inst->layers + used, sizeof(inst->layers) - used, "%s%s", used ? ":" : "", env);
}

/* Destroys the instance below (when it was made) and frees our record. */
static void instance_destroy(struct lowlat_instance *inst, VkInstance instance,
                             const VkAllocationCallbacks *allocator)
{
	if (inst->vk.DestroyInstance)
		inst->vk.DestroyInstance(instance, allocator);
	lowlat_free(allocator, inst);
}

VKAPI_ATTR void VKAPI_CALL lowlat_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *allocator)
{
	struct lowlat_instance *inst =
	        instance ? lowlat_map_remove(&lowlat_instances, lowlat_dispatch_key(instance)) : NULL;

	if (inst)
		instance_destroy(inst, instance, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_CreateInstance(const VkInstanceCreateInfo *info,
                                                     const VkAllocationCallbacks *allocator, VkInstance *out)
{
	VkLayerInstanceCreateInfo *link = lowlat_find_instance_link(info);
	struct lowlat_instance *inst;
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

	/* Present timing and present-mode switching need instance extensions the app may not have
	 * enabled: add them to a copy, with both forms of surface_maintenance1 (a device may list its
	 * swapchain_maintenance1 in one form only, create_info.h). An instance that refuses the copy is
	 * asked again with less: one form, the other, none, then as the app asked. (The instance's own
	 * list cannot be read from inside vkCreateInstance: a layer below may not answer that query
	 * before it has an instance, and Arm's WSI layer crashed on it.) */
	const unsigned maint1_tries[] = {LOWLAT_SURFACE_MAINTENANCE1_FORMS,
	                                 LOWLAT_SURFACE_MAINTENANCE1_FORMS & LOWLAT_MAINT1_KHR,
	                                 LOWLAT_SURFACE_MAINTENANCE1_FORMS & LOWLAT_MAINT1_EXT, 0};
	struct lowlat_instance_setup setup;
	bool added = false;

	/* Advance the link for the next layer, and put it back afterwards so the chain the loader
	 * built is as it was whatever happens below. */
	VkLayerInstanceLink *ours = link->u.pLayerInfo;
	link->u.pLayerInfo = ours->pNext;
	result = VK_ERROR_EXTENSION_NOT_PRESENT;
	for (unsigned i = 0; i < 4 && result == VK_ERROR_EXTENSION_NOT_PRESENT; i++) {
		bool repeat = false; /* a try like an earlier one (a form not built in) */
		for (unsigned j = 0; j < i; j++)
			repeat = repeat || maint1_tries[j] == maint1_tries[i];
		if (repeat)
			continue;
		if (!(added = lowlat_instance_setup(info, maint1_tries[i], &setup)))
			break;
		result = next_create(&setup.info, allocator, out);
		if (result == VK_ERROR_EXTENSION_NOT_PRESENT)
			lowlat_instance_setup_fini(&setup);
	}
	if (!added || result == VK_ERROR_EXTENSION_NOT_PRESENT) {
		/* Present timing and mode switching are then simply not used on this instance. */
		if (added)
			setup = (struct lowlat_instance_setup){.info = *info};
		result = next_create(info, allocator, out);
	}
	link->u.pLayerInfo = ours;
	lowlat_instance_setup_fini(&setup);
	if (result != VK_SUCCESS) {
		lowlat_free(allocator, inst);
		return result;
	}
	inst->handle = *out;
	inst->surface_caps2 = setup.surface_caps2;
	inst->surface_maint1 = setup.surface_maint1;
	lowlat_load_instance_dispatch(&inst->vk, *out, next_gipa);
	/* The next layer's Get*ProcAddr is the link's, never what it answers for its own name: a layer
	 * may answer that with the one below it (Arm's WSI layer does, for vkGetDeviceProcAddr), and
	 * every lookup through it would then skip that layer and hide what it offers. */
	inst->vk.GetInstanceProcAddr = next_gipa;
	/* Vulkan 1.1's name on a 1.1 instance, the extension's on a 1.0 one that has it. */
	if (setup.properties2)
		inst->features2 =
		        info->pApplicationInfo && info->pApplicationInfo->apiVersion >= VK_API_VERSION_1_1
		                ? inst->vk.GetPhysicalDeviceFeatures2
		                : inst->vk.GetPhysicalDeviceFeatures2KHR;
	instance_layers(inst, info);
	if (info->pApplicationInfo) {
		const VkApplicationInfo *app = info->pApplicationInfo;
		inst->api_version = app->apiVersion;
		copy_name(inst->app_name, sizeof(inst->app_name), app->pApplicationName);
		copy_name(inst->engine_name, sizeof(inst->engine_name), app->pEngineName);
	}
	if (!inst->vk.DestroyInstance || !inst->vk.CreateDevice) {
		result = VK_ERROR_INITIALIZATION_FAILED;
		goto fail_destroy;
	}
	if (!lowlat_map_insert(&lowlat_instances, lowlat_dispatch_key(*out), inst)) {
		result = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto fail_destroy;
	}
	LOWLAT_INFO("active in \"%s\" (engine \"%s\")", inst->app_name, inst->engine_name);
	/* What DXVK, vkd3d-proton or MangoHud will do by themselves (engine.h). */
	lowlat_engine_check(inst);
	/* The first instance's application info names the game for DXVK/vkd3d, and its pNext may
	 * carry VK_EXT_layer_settings; later instances find the config loaded. */
	lowlat_config_global_init(info);
	return VK_SUCCESS;

fail_destroy:
	instance_destroy(inst, *out, allocator);
	*out = VK_NULL_HANDLE;
	return result;
}

static bool has_extension(const VkDeviceCreateInfo *info, const char *name)
{
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
		if (!strcmp(info->ppEnabledExtensionNames[i], name))
			return true;
	return false;
}

/* Frees what lowlat keeps for the device (the records of swapchains the app leaked first), then
 * destroys the device below and frees our record. */
static void device_destroy(struct lowlat_device *dev, VkDevice device, const VkAllocationCallbacks *allocator)
{
	lowlat_swapchain_device_teardown(dev);
	lowlat_latency_device_fini(dev);
	if (dev->vk.DestroyDevice)
		dev->vk.DestroyDevice(device, allocator);
	lowlat_map_fini(&dev->swapchains);
	lowlat_free(dev->has_allocator ? &dev->allocator : NULL, dev);
}

VKAPI_ATTR void VKAPI_CALL lowlat_DestroyDevice(VkDevice device, const VkAllocationCallbacks *allocator)
{
	struct lowlat_device *dev =
	        device ? lowlat_map_remove(&lowlat_devices, lowlat_dispatch_key(device)) : NULL;

	if (dev)
		device_destroy(dev, device, allocator);
}

/* The next vkCreateDevice, given the chain it is to see: the loader's layer link in that chain (the
 * app's, or lowlat's copy of it where lowlat changed what comes after) moved on past lowlat for the
 * call, and back after it. */
static VkResult create_down(PFN_vkCreateDevice next_create, VkPhysicalDevice physical,
                            const VkDeviceCreateInfo *info, const VkAllocationCallbacks *allocator,
                            VkDevice *out)
{
	VkLayerDeviceCreateInfo *link = lowlat_find_device_link(info);
	VkLayerDeviceLink *ours = link->u.pLayerInfo;

	link->u.pLayerInfo = ours->pNext;
	VkResult result = next_create(physical, info, allocator, out);
	link->u.pLayerInfo = ours;
	return result;
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                                   const VkAllocationCallbacks *allocator, VkDevice *out)
{
	struct lowlat_instance *inst = lowlat_instance_of(physical);
	VkLayerDeviceCreateInfo *link = lowlat_find_device_link(info);
	struct lowlat_device *dev;
	VkResult result;

	if (!inst || !link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;

	PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	PFN_vkCreateDevice next_create = (PFN_vkCreateDevice)next_gipa(inst->handle, "vkCreateDevice");
	if (!next_create)
		return VK_ERROR_INITIALIZATION_FAILED;

	dev = lowlat_alloc(allocator, sizeof(*dev), VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
	if (!dev)
		return VK_ERROR_OUT_OF_HOST_MEMORY;

	/* VK_NV_low_latency2, when the app enabled it on a driver that lacks it, leaves a copy of the
	 * create info (lowlat provides the extension); that copy is the base of everything below. */
	struct lowlat_latency_setup latency;
	lowlat_latency_device_setup(inst, physical, info, &latency);
	const VkDeviceCreateInfo *base = &latency.info;

	/* VK_EXT_present_timing, FIFO_LATEST_READY and swapchain_maintenance1 on a copy of the base
	 * when the device offers them (create_info.h); if the driver refuses, the device is created
	 * from the base. */
	struct lowlat_device_info copy;
	struct lowlat_device_setup setup;
	struct lowlat_mode_device_setup modes;
	lowlat_device_info_init(&copy, base);
	lowlat_timing_device_setup(inst, physical, &copy, &setup);
	lowlat_mode_device_setup(inst, physical, &copy, &modes);
	/* present_id and present_wait for the "present-wait" pacing level, on swapchains that get no
	 * present timing; never when the app drives present timing itself (it paces itself). */
	struct lowlat_ids_device_setup ids = {.reason = setup.reason};
	if (!setup.app_timing)
		lowlat_ids_device_setup(inst, physical, &copy, &ids);

	result = create_down(next_create, physical, copy.changed ? &copy.info : base, allocator, out);
	/* Only a refusal is retried: out of memory or a lost device must reach the app as they came. */
	if (copy.changed &&
	    (result == VK_ERROR_EXTENSION_NOT_PRESENT || result == VK_ERROR_FEATURE_NOT_PRESENT)) {
		setup.enable = modes.latest_ready = modes.maintenance1 = ids.enable = false;
		setup.reason = modes.reason = modes.switch_reason = ids.reason =
		        "the driver refused the extensions lowlat added";
		result = create_down(next_create, physical, base, allocator, out);
	}
	lowlat_device_info_fini(&copy);
	lowlat_latency_device_setup_fini(&latency);
	if (result != VK_SUCCESS) {
		lowlat_free(allocator, dev);
		return result;
	}
	lowlat_timing_device_created(dev, &setup);
	dev->latest_ready = modes.latest_ready;
	dev->maintenance1 = modes.maintenance1;
	dev->mode_reason = modes.reason;
	dev->switch_reason = modes.switch_reason;
	dev->present_wait = ids.enable;
	dev->present_wait_reason = ids.reason;

	dev->handle = *out;
	dev->physical = physical;
	dev->instance = inst;
	if (allocator) {
		dev->allocator = *allocator;
		dev->has_allocator = true;
	}
	pthread_mutex_init(&dev->swapchains.lock, NULL);
	lowlat_load_device_dispatch(&dev->vk, *out, next_gdpa);
	dev->vk.GetDeviceProcAddr = next_gdpa; /* the link's, as for the instance above */
	lowlat_latency_device_init(dev, latency.mode);
	lowlat_anti_lag_device_init(dev, has_extension(info, "VK_AMD_anti_lag"));
	lowlat_engine_device(dev, has_extension(info, VK_KHR_PRESENT_WAIT_EXTENSION_NAME) ||
	                                  has_extension(info, "VK_KHR_present_wait2"));
	if (!dev->vk.GetDeviceProcAddr || !dev->vk.DestroyDevice) {
		result = VK_ERROR_INITIALIZATION_FAILED;
		goto fail_destroy;
	}

	if (has_extension(info, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) {
		const struct device_dispatch *vk = &dev->vk;
		dev->hooked = vk->CreateSwapchainKHR && vk->DestroySwapchainKHR &&
		              vk->GetSwapchainImagesKHR && vk->AcquireNextImageKHR && vk->QueuePresentKHR;
		if (!dev->hooked)
			LOWLAT_WARN_LIMITED(
			        "the driver below lacks swapchain functions although VK_KHR_swapchain is "
			        "enabled; passing this device through untouched");
	}

	if (!lowlat_map_insert(&lowlat_devices, lowlat_dispatch_key(*out), dev)) {
		result = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto fail_destroy;
	}

	if (lowlat_verbosity() >= 1 && inst->vk.GetPhysicalDeviceProperties) {
		VkPhysicalDeviceProperties props;
		inst->vk.GetPhysicalDeviceProperties(physical, &props);
		lowlat_msg("device \"%s\": %s", props.deviceName,
		           dev->hooked ? "presents are paced by lowlat" : "no swapchain, passed through");
	}
	return VK_SUCCESS;

fail_destroy:
	device_destroy(dev, *out, allocator);
	*out = VK_NULL_HANDLE;
	return result;
}

/* Name -> hook tables. The conditional makes the compiler check each hook against its PFN_vk* type
 * (mismatched pointer types in ?: are an error under -Werror) while staying a constant. */
struct hook {
	const char *name;
	PFN_vkVoidFunction function;
};

#define LOWLAT_HOOK_ENTRY(name) {"vk" #name, (PFN_vkVoidFunction)(1 ? lowlat_##name : (PFN_vk##name)NULL)},
static const struct hook global_hooks[] = {LOWLAT_GLOBAL_HOOKS(LOWLAT_HOOK_ENTRY)};
static const struct hook instance_hooks[] = {LOWLAT_INSTANCE_HOOKS(LOWLAT_HOOK_ENTRY)};
static const struct hook device_core_hooks[] = {LOWLAT_DEVICE_CORE_HOOKS(LOWLAT_HOOK_ENTRY)};
static const struct hook device_swapchain_hooks[] = {LOWLAT_DEVICE_SWAPCHAIN_HOOKS(LOWLAT_HOOK_ENTRY)};
static const struct hook any_instance_hooks[] = {LOWLAT_ANY_INSTANCE_HOOKS(LOWLAT_HOOK_ENTRY)};
#undef LOWLAT_HOOK_ENTRY

#define LOWLAT_FIND_HOOK(table, name) find_hook(table, sizeof(table) / sizeof(table[0]), name)

static PFN_vkVoidFunction find_hook(const struct hook *table, size_t count, const char *name)
{
	for (size_t i = 0; i < count; i++)
		if (!strcmp(table[i].name, name))
			return table[i].function;
	return NULL;
}

/* The instance-level commands lowlat knows (those it hooks or calls): vkGetDeviceProcAddr answers
 * them NULL itself, as the spec's table says, rather than asking below, where a layer may hand
 * out its own (MangoHud's does) or warn about the question (the validation layers do). */
static bool instance_level(const char *name)
{
	static const char *const called[] = {
#define LOWLAT_NAME(name) "vk" #name,
	        LOWLAT_INSTANCE_FUNCTIONS(LOWLAT_NAME)
#undef LOWLAT_NAME
	};
	for (size_t i = 0; i < sizeof(called) / sizeof(called[0]); i++)
		if (!strcmp(called[i], name))
			return true;
	return LOWLAT_FIND_HOOK(global_hooks, name) || LOWLAT_FIND_HOOK(instance_hooks, name) ||
	       lowlat_latency_instance_hook(name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL lowlat_GetDeviceProcAddr(VkDevice device, const char *name)
{
	struct lowlat_device *dev;
	PFN_vkVoidFunction next, hook;

	if (!device || !name || !(dev = lowlat_device_of(device)) || instance_level(name))
		return NULL;
	/* Nothing is offered that the chain below lacks, so a hook never calls a NULL pointer; the one
	 * exception is the extension lowlat itself provides on an emulated device. */
	next = dev->vk.GetDeviceProcAddr(device, name);
	hook = lowlat_latency_device_hook(name, dev->latency.mode);
	if (hook && (next || (dev->latency.mode == LOWLAT_LATENCY_EMULATED && lowlat_latency_provides(name))))
		return hook;
	if (!next)
		return NULL;
	if ((hook = lowlat_anti_lag_hook(name, dev)))
		return hook;
	if ((hook = LOWLAT_FIND_HOOK(device_core_hooks, name)))
		return hook;
	if (dev->hooked && (hook = LOWLAT_FIND_HOOK(device_swapchain_hooks, name)))
		return hook;
	return next;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL lowlat_GetInstanceProcAddr(VkInstance instance, const char *name)
{
	struct lowlat_instance *inst;
	PFN_vkVoidFunction hook, next;

	if (!name)
		return NULL;
	if ((hook = LOWLAT_FIND_HOOK(global_hooks, name)) ||
	    (hook = LOWLAT_FIND_HOOK(any_instance_hooks, name)))
		return hook;
	if (!instance || !(inst = lowlat_instance_of(instance)))
		return NULL;

	next = inst->vk.GetInstanceProcAddr(instance, name);
	/* VK_NV_low_latency2's commands exist for every device lowlat provides it on, driver or not;
	 * each hook checks its device. */
	if ((hook = lowlat_latency_device_hook(name, -1)) && (next || lowlat_latency_provides(name)))
		return hook;
	if (!next)
		return NULL;
	if ((hook = LOWLAT_FIND_HOOK(instance_hooks, name)) || (hook = lowlat_latency_instance_hook(name)) ||
	    (hook = lowlat_anti_lag_hook(name, NULL)))
		return hook;
	/* Device functions fetched through the instance work for every device; each hook checks
	 * whether its device is one lowlat paces and passes through otherwise. */
	if ((hook = LOWLAT_FIND_HOOK(device_core_hooks, name)) ||
	    (hook = LOWLAT_FIND_HOOK(device_swapchain_hooks, name)))
		return hook;
	return next;
}

__attribute__((visibility("default"))) VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *negotiate)
{
	if (!negotiate || negotiate->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT)
		return VK_ERROR_INITIALIZATION_FAILED;
	/* Version 2 is the first that passes Get*ProcAddr through this struct; nothing later adds
	 * anything lowlat uses. */
	if (negotiate->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	negotiate->loaderLayerInterfaceVersion = 2;
	negotiate->pfnGetInstanceProcAddr = lowlat_GetInstanceProcAddr;
	negotiate->pfnGetDeviceProcAddr = lowlat_GetDeviceProcAddr;
	negotiate->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}
