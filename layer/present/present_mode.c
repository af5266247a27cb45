/* present_mode.c — the present mode of each swapchain and each present; see present_mode.h.
 *
 * Owns: enabling FIFO_LATEST_READY and swapchain_maintenance1 on the device copy (create_info.h),
 * the swapchain's mode policy and the changes it makes to the create info copy (presentMode, the
 * VkSwapchainPresentModesCreateInfoKHR list, minImageCount), and the VkSwapchainPresentModeInfoKHR
 * of each present. The app's structs are never written: a list or per-present info it chains is
 * replaced by a copy in a copy of its chain (chain.h).
 */
#include "present_mode.h"

#ifdef LOWLAT_HAVE_PRESENT_MODES

#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "log.h"
#include "message.h"
#include "swapchain.h"

#define LATEST_READY VK_PRESENT_MODE_FIFO_LATEST_READY_KHR

static const char *mode_name(VkPresentModeKHR mode)
{
	const char *name = lowlat_vk_present_mode_name(mode);
	return name ? name : "other";
}

void lowlat_mode_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                              struct lowlat_device_info *d, struct lowlat_mode_device_setup *s)
{
	const char *latest = NULL, *maint = NULL;
	VkExtensionProperties *props;
	uint32_t count;

	*s = (struct lowlat_mode_device_setup){0};
	if (!lowlat_device_info_has(d, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) {
		s->reason = s->switch_reason = "no VK_KHR_swapchain";
		return;
	}
	if (!inst->features2) {
		s->reason = s->switch_reason = "the instance lacks VK_KHR_get_physical_device_properties2";
		return;
	}
	if (!(props = lowlat_device_extensions(inst, physical, &count))) {
		s->reason = s->switch_reason = "the device's extensions could not be listed";
		return;
	}
	/* The name the app enabled, else the KHR one, else the EXT one it was promoted from. */
	if (lowlat_device_info_has(d, VK_KHR_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME) ||
	    lowlat_extensions_have(props, count, VK_KHR_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME))
		latest = VK_KHR_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME;
	if (lowlat_device_info_has(d, VK_EXT_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME) ||
	    (!latest &&
	     lowlat_extensions_have(props, count, VK_EXT_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME)))
		latest = VK_EXT_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME;
	/* swapchain_maintenance1 must be the form of the instance's surface_maintenance1 (each depends
	 * on its own), unless the app enabled one itself. */
	if (lowlat_device_info_has(d, VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME))
		maint = VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME;
	else if (lowlat_device_info_has(d, VK_EXT_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME))
		maint = VK_EXT_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME;
	else if (!inst->surface_maint1)
		s->switch_reason = "the instance has no surface_maintenance1";
	else if ((inst->surface_maint1 & LOWLAT_MAINT1_KHR) &&
	         lowlat_extensions_have(props, count, VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME))
		maint = VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME;
	else if ((inst->surface_maint1 & LOWLAT_MAINT1_EXT) &&
	         lowlat_extensions_have(props, count, VK_EXT_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME))
		maint = VK_EXT_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME;
	else
		s->switch_reason = "the device lacks swapchain_maintenance1";
	free(props);

	VkPhysicalDevicePresentModeFifoLatestReadyFeaturesKHR latest_f = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_MODE_FIFO_LATEST_READY_FEATURES_KHR};
	VkPhysicalDeviceSwapchainMaintenance1FeaturesKHR maint_f = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_KHR,
	        .pNext = &latest_f};
	lowlat_device_features(inst, physical, &maint_f);

	if (!latest) {
		s->reason = "the device lacks VK_KHR/EXT_present_mode_fifo_latest_ready";
	} else if (!latest_f.presentModeFifoLatestReady) {
		s->reason = "the device does not support the presentModeFifoLatestReady feature";
	} else {
		const VkPhysicalDevicePresentModeFifoLatestReadyFeaturesKHR want = {
		        .sType =
		                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_MODE_FIFO_LATEST_READY_FEATURES_KHR,
		        .presentModeFifoLatestReady = VK_TRUE};
		if (!(s->reason = lowlat_device_info_enable(d, &want, sizeof(want))) &&
		    !lowlat_device_info_add(d, latest))
			s->reason = "out of memory";
		s->latest_ready = !s->reason;
	}
	if (!maint)
		return;
	/* Switching is only ever between FIFO and FIFO_LATEST_READY: without the latter, nothing is
	 * added, and an app's own swapchain_maintenance1 features are left as it chose them. */
	if (!s->latest_ready) {
		s->switch_reason = s->reason;
		return;
	}
	if (!maint_f.swapchainMaintenance1) {
		s->switch_reason = "the device does not support the swapchainMaintenance1 feature";
		return;
	}
	const VkPhysicalDeviceSwapchainMaintenance1FeaturesKHR want = {
	        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_KHR,
	        .swapchainMaintenance1 = VK_TRUE};
	if (!(s->switch_reason = lowlat_device_info_enable(d, &want, sizeof(want))) &&
	    !lowlat_device_info_add(d, maint))
		s->switch_reason = "out of memory";
	s->maintenance1 = !s->switch_reason;
}

static bool list_has(const VkPresentModeKHR *list, uint32_t count, VkPresentModeKHR mode)
{
	for (uint32_t i = 0; i < count; i++)
		if (list[i] == mode)
			return true;
	return false;
}

/* Modes a surface offers at most, as far as lowlat looks (the spec defines seven). */
#define SURFACE_MODES_MAX 16

static uint32_t surface_modes(struct lowlat_device *dev, VkSurfaceKHR surface, VkPresentModeKHR *modes)
{
	struct lowlat_instance *inst = dev->instance;
	uint32_t count = SURFACE_MODES_MAX;
	VkResult r;

	if (!inst->vk.GetPhysicalDeviceSurfacePresentModesKHR)
		return 0;
	r = inst->vk.GetPhysicalDeviceSurfacePresentModesKHR(dev->physical, surface, &count, modes);
	return r == VK_SUCCESS || r == VK_INCOMPLETE ? count : 0;
}

/* The surface's image counts in `mode` and the modes compatible with it (surface_maintenance1);
 * false when they cannot be asked. */
static bool surface_mode_caps(struct lowlat_device *dev, VkSurfaceKHR surface, VkPresentModeKHR mode,
                              VkSurfaceCapabilitiesKHR *caps, VkPresentModeKHR *compat,
                              uint32_t *compat_count)
{
	struct lowlat_instance *inst = dev->instance;

	if (!inst->surface_maint1 || !inst->vk.GetPhysicalDeviceSurfaceCapabilities2KHR)
		return false;
	VkSurfacePresentModeKHR asked = {.sType = VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_KHR,
	                                 .presentMode = mode};
	VkPhysicalDeviceSurfaceInfo2KHR info = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SURFACE_INFO_2_KHR,
	                                        .pNext = &asked,
	                                        .surface = surface};
	VkSurfacePresentModeCompatibilityKHR c = {
	        .sType = VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_COMPATIBILITY_KHR,
	        .presentModeCount = SURFACE_MODES_MAX,
	        .pPresentModes = compat};
	VkSurfaceCapabilities2KHR caps2 = {.sType = VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_2_KHR,
	                                   .pNext = &c};
	if (inst->vk.GetPhysicalDeviceSurfaceCapabilities2KHR(dev->physical, &info, &caps2) != VK_SUCCESS)
		return false;
	*caps = caps2.surfaceCapabilities;
	*compat_count = c.presentModeCount < SURFACE_MODES_MAX ? c.presentModeCount : SURFACE_MODES_MAX;
	return true;
}

/* Raises the copy's minImageCount to what `mode` needs, when the surface says and allows it. */
static void fit_image_count(struct lowlat_device *dev, VkSwapchainCreateInfoKHR *info, VkPresentModeKHR mode)
{
	VkPresentModeKHR compat[SURFACE_MODES_MAX];
	VkSurfaceCapabilitiesKHR caps;
	uint32_t n;

	if (surface_mode_caps(dev, info->surface, mode, &caps, compat, &n) &&
	    info->minImageCount < caps.minImageCount &&
	    (!caps.maxImageCount || caps.minImageCount <= caps.maxImageCount))
		info->minImageCount = caps.minImageCount;
}

/* Puts `list` (count modes) into the copy: in place of the app's VkSwapchainPresentModesCreateInfoKHR
 * (app_list, in a copy of its chain) or in front of the chain. False when the app's chain cannot be
 * copied. */
static bool set_mode_list(VkSwapchainCreateInfoKHR *info,
                          const VkSwapchainPresentModesCreateInfoKHR *app_list,
                          struct lowlat_mode_swapchain_setup *s, uint32_t count)
{
	s->create_modes = (VkSwapchainPresentModesCreateInfoKHR){
	        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODES_CREATE_INFO_KHR,
	        .pNext = info->pNext,
	        .presentModeCount = count,
	        .pPresentModes = s->list};
	if (app_list) {
		void *copy;
		const void *head = lowlat_chain_copy_to(info->pNext, app_list, &s->chain, &copy);
		if (!head)
			return false;
		((VkSwapchainPresentModesCreateInfoKHR *)copy)->presentModeCount = count;
		((VkSwapchainPresentModesCreateInfoKHR *)copy)->pPresentModes = s->list;
		info->pNext = head;
	} else {
		info->pNext = &s->create_modes;
	}
	return true;
}

static VkPresentModeKHR setting_mode(enum lowlat_present_mode mode)
{
	switch (mode) {
	case LOWLAT_PRESENT_MODE_FIFO: return VK_PRESENT_MODE_FIFO_KHR;
	case LOWLAT_PRESENT_MODE_FIFO_LATEST_READY: return LATEST_READY;
	case LOWLAT_PRESENT_MODE_MAILBOX: return VK_PRESENT_MODE_MAILBOX_KHR;
	case LOWLAT_PRESENT_MODE_IMMEDIATE: return VK_PRESENT_MODE_IMMEDIATE_KHR;
	default: return VK_PRESENT_MODE_FIFO_KHR;
	}
}

static void force_mode(struct lowlat_device *dev, const struct lowlat_config *cfg,
                       VkSwapchainCreateInfoKHR *info, const VkSwapchainPresentModesCreateInfoKHR *app_list,
                       const VkPresentModeKHR *surface, uint32_t surface_count,
                       struct lowlat_mode_swapchain_setup *s)
{
	VkPresentModeKHR want = setting_mode(cfg->present_mode), app = info->presentMode;
	const char *setting = lowlat_present_mode_name(cfg->present_mode);

	/* Nothing to force: the app asks for that mode and cannot switch away from it per present. */
	if (want == app && !app_list) {
		snprintf(s->why, sizeof(s->why), "as the app asked, which is present_mode %s", setting);
		return;
	}
	if (!list_has(surface, surface_count, want)) {
		snprintf(s->why, sizeof(s->why),
		         "as the app asked; present_mode %s, but the surface does not offer %s", setting,
		         mode_name(want));
		return;
	}
	if (want == LATEST_READY && !dev->latest_ready) {
		snprintf(s->why, sizeof(s->why), "as the app asked; present_mode %s, but %s", setting,
		         dev->mode_reason);
		return;
	}
	/* A list of the app's becomes the one forced mode, which every per-present mode turns into too. */
	s->list[0] = want;
	if (app_list && !set_mode_list(info, app_list, s, 1)) {
		snprintf(
		        s->why, sizeof(s->why),
		        "as the app asked; present_mode %s, but the app's present-mode list cannot be copied",
		        setting);
		return;
	}
	info->presentMode = s->created_mode = want;
	fit_image_count(dev, info, want);
	s->modes.policy = LOWLAT_MODES_FORCED;
	s->modes.forced = want;
	s->changed = true;
	snprintf(s->why, sizeof(s->why), "forced by present_mode %s; the app asked for %s", setting,
	         mode_name(app));
}

void lowlat_mode_swapchain_setup(struct lowlat_device *dev, const struct lowlat_config *cfg,
                                 VkSwapchainCreateInfoKHR *info, struct lowlat_mode_swapchain_setup *s)
{
	const VkSwapchainPresentModesCreateInfoKHR *app_list =
	        lowlat_chain_find(info->pNext, VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODES_CREATE_INFO_KHR);
	VkPresentModeKHR surface[SURFACE_MODES_MAX], compat[SURFACE_MODES_MAX];
	uint32_t surface_count, compat_count = 0, count = 0;
	VkSurfaceCapabilitiesKHR caps;
	bool capping = lowlat_config_capping(cfg);
	const char *no_switch;

	*s = (struct lowlat_mode_swapchain_setup){.created_mode = info->presentMode};
	s->chain = (struct lowlat_chain_storage){.buffer = s->storage, .size = sizeof(s->storage)};
	s->modes =
	        (struct lowlat_swapchain_modes){.policy = LOWLAT_MODES_KEEP, .app_mode = info->presentMode};
	if (!cfg->enabled) {
		snprintf(s->why, sizeof(s->why), "as the app asked; lowlat is disabled");
		return;
	}
	if (cfg->present_mode != LOWLAT_PRESENT_MODE_AUTO) {
		surface_count = surface_modes(dev, info->surface, surface);
		force_mode(dev, cfg, info, app_list, surface, surface_count, s);
		return;
	}
	if (info->presentMode != VK_PRESENT_MODE_FIFO_KHR) {
		snprintf(s->why, sizeof(s->why), "as the app asked; present_mode auto changes only FIFO");
		return;
	}
	if (!dev->latest_ready) {
		snprintf(s->why, sizeof(s->why), "as the app asked; present_mode auto, but %s",
		         dev->mode_reason);
		return;
	}
	/* Its own target times and present waits were planned on FIFO's rules (every frame shown). */
	if (dev->app_timing) {
		snprintf(s->why, sizeof(s->why),
		         "as the app asked; present_mode auto, but the app drives VK_EXT_present_timing "
		         "itself");
		return;
	}
	/* The surface is asked only now: most swapchains are decided without it. */
	surface_count = surface_modes(dev, info->surface, surface);
	if (!list_has(surface, surface_count, LATEST_READY)) {
		snprintf(s->why, sizeof(s->why),
		         "as the app asked; present_mode auto, but the surface does not offer "
		         "FIFO_LATEST_READY");
		return;
	}

	/* Switching per present: the swapchain is created in FIFO able to present in both. */
	if (!dev->maintenance1)
		no_switch = dev->switch_reason;
	else if (!surface_mode_caps(dev, info->surface, VK_PRESENT_MODE_FIFO_KHR, &caps, compat,
	                            &compat_count))
		no_switch =
		        "the surface's present-mode compatibility cannot be asked (no surface_maintenance1)";
	else if (!list_has(compat, compat_count, LATEST_READY))
		no_switch = "the surface cannot switch between FIFO and FIFO_LATEST_READY";
	else if (app_list && app_list->presentModeCount >= sizeof(s->list) / sizeof(s->list[0]))
		no_switch = "the app's present-mode list is longer than lowlat handles";
	else
		no_switch = NULL;
	if (!no_switch) {
		if (app_list) {
			memcpy(s->list, app_list->pPresentModes,
			       app_list->presentModeCount * sizeof(s->list[0]));
			count = app_list->presentModeCount;
		} else {
			s->list[count++] = VK_PRESENT_MODE_FIFO_KHR;
		}
		if (!list_has(s->list, count, LATEST_READY))
			s->list[count++] = LATEST_READY;
		if (set_mode_list(info, app_list, s, count)) {
			/* Enough images for every mode in the list. */
			fit_image_count(dev, info, VK_PRESENT_MODE_FIFO_KHR);
			fit_image_count(dev, info, LATEST_READY);
			s->modes.policy = LOWLAT_MODES_SWITCH;
			s->changed = true;
			snprintf(s->why, sizeof(s->why),
			         "present_mode auto: FIFO_LATEST_READY while lowlat caps, FIFO otherwise, "
			         "chosen at "
			         "each present through swapchain_maintenance1");
			return;
		}
		no_switch = "the app's present-mode list cannot be copied";
	}

	/* Chosen once, now. A list of the app's would have to change with presentMode: left alone. */
	if (app_list) {
		snprintf(s->why, sizeof(s->why), "as the app asked; present_mode auto, but %s", no_switch);
	} else if (capping) {
		info->presentMode = s->created_mode = LATEST_READY;
		fit_image_count(dev, info, LATEST_READY);
		s->changed = true;
		snprintf(
		        s->why, sizeof(s->why),
		        "present_mode auto: capping at creation; stays so if the cap is turned off, since %s",
		        no_switch);
	} else {
		snprintf(s->why, sizeof(s->why),
		         "as the app asked; present_mode auto: not capping at creation, and a later cap "
		         "cannot switch "
		         "it, since %s",
		         no_switch);
	}
}

static VkPresentModeKHR choose(const struct lowlat_swapchain *sc)
{
	switch (sc->modes.policy) {
	case LOWLAT_MODES_FORCED: return sc->modes.forced;
	case LOWLAT_MODES_SWITCH:
		/* Only FIFO presents: DXVK switches modes per present, and its MAILBOX or IMMEDIATE stays. */
		return sc->modes.app_mode == VK_PRESENT_MODE_FIFO_KHR && sc->pacer.mfps ? LATEST_READY
		                                                                        : sc->modes.app_mode;
	default: return sc->modes.app_mode;
	}
}

void lowlat_mode_present(struct lowlat_present_call *call, struct lowlat_mode_present *mp)
{
	const VkSwapchainPresentModeInfoKHR *app = call->chain.app[LOWLAT_LINK_MODE];
	uint32_t n = call->count;
	/* A per-present list that does not match the call is the app's error: passed as it is. */
	bool differs = false, all_switch = true, usable = !app || app->swapchainCount == n;

	for (uint32_t i = 0; i < n; i++) {
		struct lowlat_swapchain *sc = call->frames[i].sc;
		VkPresentModeKHR asked;

		if (!sc) {
			all_switch = false;
			if (usable)
				mp->mode[i] = app ? app->pPresentModes[i] : VK_PRESENT_MODE_FIFO_KHR;
			continue;
		}
		if (app && i < app->swapchainCount)
			sc->modes.app_mode = app->pPresentModes[i];
		asked = app ? sc->modes.app_mode : sc->current_mode;
		if (!usable) {
			sc->current_mode = asked;
			continue;
		}
		mp->mode[i] = choose(sc);
		differs = differs || mp->mode[i] != asked;
		all_switch = all_switch && sc->modes.policy == LOWLAT_MODES_SWITCH;
	}
	if (!usable)
		return;
	if (app && differs) {
		if (!lowlat_present_chain_can_put(&call->chain, LOWLAT_LINK_MODE)) {
			LOWLAT_WARN_ONCE(
			        "a present's chain cannot be copied (a structure lowlat does not know): its "
			        "present modes stay as the app asked");
			for (uint32_t i = 0; i < n; i++)
				if (call->frames[i].sc)
					call->frames[i].sc->current_mode = call->frames[i].sc->modes.app_mode;
			return;
		}
		mp->modes = *app;
		mp->modes.pPresentModes = mp->mode;
		lowlat_present_chain_put(&call->chain, LOWLAT_LINK_MODE, &mp->modes);
	} else if (!app && all_switch) {
		/* Every swapchain was created with both modes: each present says which. */
		mp->modes = (VkSwapchainPresentModeInfoKHR){
		        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODE_INFO_KHR,
		        .swapchainCount = n,
		        .pPresentModes = mp->mode};
		lowlat_present_chain_put(&call->chain, LOWLAT_LINK_MODE, &mp->modes);
	} else if (!app) {
		/* Nothing says a mode: each swapchain stays in the one it had. */
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct lowlat_swapchain *sc = call->frames[i].sc;
		if (!sc)
			continue;
		if (sc->modes.policy == LOWLAT_MODES_SWITCH && sc->current_mode != mp->mode[i])
			LOWLAT_DEBUG("swapchain %ux%u: presents in %s from now on (%s)", sc->extent.width,
			             sc->extent.height, mode_name(mp->mode[i]),
			             sc->pacer.mfps ? "lowlat caps" : "lowlat does not cap");
		sc->current_mode = mp->mode[i];
	}
}

#endif
