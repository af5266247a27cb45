/* vd_features.c — what the virtual display advertises on top of the driver: its device extensions,
 * their features, and the surface answers that depend on the display rather than on Xvfb.
 *
 * Deviation from the loader's layer rules, on purpose: an explicit layer is expected to report only
 * its own extensions, for vkEnumerateDeviceExtensionProperties(pLayerName = its name). This one also
 * adds them to the pLayerName = NULL list, because it stands in for the driver's presentation engine
 * and apps (DXVK, vkcube) only look at that list. The manifest lists them too, so the loader accepts
 * them at vkCreateDevice. Their names and feature structs are removed from the copy of the create
 * info the driver sees; their feature structs are filled in after the driver answered.
 */
#include <stdlib.h>
#include <string.h>

#include "vd_chain.h"
#include "vd_swapchain.h"

const VkExtensionProperties vd_own_extensions[] = {
        {VK_KHR_PRESENT_ID_EXTENSION_NAME, VK_KHR_PRESENT_ID_SPEC_VERSION},
        {VK_KHR_PRESENT_WAIT_EXTENSION_NAME, VK_KHR_PRESENT_WAIT_SPEC_VERSION},
        {VK_KHR_PRESENT_ID_2_EXTENSION_NAME, VK_KHR_PRESENT_ID_2_SPEC_VERSION},
        {VK_KHR_PRESENT_WAIT_2_EXTENSION_NAME, VK_KHR_PRESENT_WAIT_2_SPEC_VERSION},
        {VK_KHR_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME,
         VK_KHR_PRESENT_MODE_FIFO_LATEST_READY_SPEC_VERSION},
        {VK_EXT_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME,
         VK_EXT_PRESENT_MODE_FIFO_LATEST_READY_SPEC_VERSION},
        {VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME, VK_KHR_CALIBRATED_TIMESTAMPS_SPEC_VERSION},
        {VK_EXT_PRESENT_TIMING_EXTENSION_NAME, VK_EXT_PRESENT_TIMING_SPEC_VERSION},
        /* Revision 2, as NVIDIA's driver lists it (vulkan.gpuinfo.org reports) and as DXVK and
         * vkd3d-proton ask for. */
        {VK_NV_LOW_LATENCY_2_EXTENSION_NAME, 2},
};

/* VK_EXT_present_timing requires VK_KHR_calibrated_timestamps, which is the driver's EXT under
 * another name: both are offered only when the driver has the EXT. */
bool vd_own_extension_needs_calibration(const char *name)
{
	return !strcmp(name, VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) ||
	       !strcmp(name, VK_EXT_PRESENT_TIMING_EXTENSION_NAME);
}
const uint32_t vd_own_extension_count = sizeof(vd_own_extensions) / sizeof(vd_own_extensions[0]);

/* LOWLAT_VDISPLAY_WITHHOLD: a comma-separated list of the display's own extensions it does not
 * offer, for tests of what a layer does on a driver without them (lowlat's fallback levels, the
 * benchmark's "CPU clock" rows). A name not among its own is ignored. */
bool vd_own_extension_withheld(const char *name)
{
	const char *list = getenv("LOWLAT_VDISPLAY_WITHHOLD");
	size_t len = strlen(name);

	/* VK_NV_low_latency2 only where the profile models a driver that has it. */
	if (!vd_profile()->low_latency2 && !strcmp(name, VK_NV_LOW_LATENCY_2_EXTENSION_NAME))
		return true;
	/* A profile without FIFO_LATEST_READY offers neither the mode nor its extensions. */
	if (!vd_profile()->fifo_latest_ready &&
	    (!strcmp(name, VK_KHR_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME) ||
	     !strcmp(name, VK_EXT_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME)))
		return true;

	for (const char *p = list; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (n == len && !strncmp(p, name, n))
			return true;
		p = comma ? comma + 1 : p + n;
	}
	return false;
}

bool vd_is_own_extension(const char *name)
{
	for (uint32_t i = 0; i < vd_own_extension_count; i++)
		if (!strcmp(vd_own_extensions[i].extensionName, name))
			return true;
	return false;
}

void vd_note_enabled_extensions(struct vd_device *dev, const VkDeviceCreateInfo *info)
{
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++) {
		const char *n = info->ppEnabledExtensionNames[i];
		dev->present_id |= !strcmp(n, VK_KHR_PRESENT_ID_EXTENSION_NAME);
		dev->present_wait |= !strcmp(n, VK_KHR_PRESENT_WAIT_EXTENSION_NAME);
		dev->present_id2 |= !strcmp(n, VK_KHR_PRESENT_ID_2_EXTENSION_NAME);
		dev->present_wait2 |= !strcmp(n, VK_KHR_PRESENT_WAIT_2_EXTENSION_NAME);
		dev->fifo_latest_ready |= !strcmp(n, VK_KHR_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME) ||
		                          !strcmp(n, VK_EXT_PRESENT_MODE_FIFO_LATEST_READY_EXTENSION_NAME);
		dev->maintenance1 |= !strcmp(n, VK_KHR_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME) ||
		                     !strcmp(n, VK_EXT_SWAPCHAIN_MAINTENANCE_1_EXTENSION_NAME);
		dev->present_timing |= !strcmp(n, VK_EXT_PRESENT_TIMING_EXTENSION_NAME);
		dev->calibrated_khr |= !strcmp(n, VK_KHR_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
		dev->low_latency2 |= !strcmp(n, VK_NV_LOW_LATENCY_2_EXTENSION_NAME);
	}
}

static bool is_own_feature(const VkBaseInStructure *s, void *user)
{
	(void)user;
	switch ((int)s->sType) {
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR:
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR:
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR:
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR:
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_MODE_FIFO_LATEST_READY_FEATURES_KHR:
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT: return true;
	default: return false;
	}
}

VkResult vd_strip_own_features(const void *chain, const void **out, void **storage)
{
	return vd_chain_strip(chain, is_own_feature, NULL, out, storage);
}

VKAPI_ATTR void VKAPI_CALL vd_GetPhysicalDeviceFeatures2(VkPhysicalDevice physical,
                                                         VkPhysicalDeviceFeatures2 *features)
{
	struct vd_instance *inst = vd_instance_of(physical);

	inst->vk.GetPhysicalDeviceFeatures2(physical, features);
	for (VkBaseOutStructure *s = (VkBaseOutStructure *)features->pNext; s; s = s->pNext) {
		switch ((int)s->sType) {
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR:
			((VkPhysicalDevicePresentIdFeaturesKHR *)s)->presentId = VK_TRUE;
			break;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR:
			((VkPhysicalDevicePresentWaitFeaturesKHR *)s)->presentWait = VK_TRUE;
			break;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR:
			((VkPhysicalDevicePresentId2FeaturesKHR *)s)->presentId2 = VK_TRUE;
			break;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR:
			((VkPhysicalDevicePresentWait2FeaturesKHR *)s)->presentWait2 = VK_TRUE;
			break;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_MODE_FIFO_LATEST_READY_FEATURES_KHR:
			((VkPhysicalDevicePresentModeFifoLatestReadyFeaturesKHR *)s)
			        ->presentModeFifoLatestReady = vd_profile()->fifo_latest_ready;
			break;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT: {
			/* Device-wide, every kind; whether a surface takes a kind is its capability's
			 * (VkPresentTimingSurfaceCapabilitiesEXT, per profile). */
			VkPhysicalDevicePresentTimingFeaturesEXT *f = (void *)s;
			f->presentTiming = f->presentAtAbsoluteTime = f->presentAtRelativeTime = VK_TRUE;
			break;
		}
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_KHR:
			/* The display implements it, whatever the driver's WSI says (unless told not to). */
			((VkPhysicalDeviceSwapchainMaintenance1FeaturesKHR *)s)->swapchainMaintenance1 =
			        !vd_no_maintenance1();
			break;
		default: break;
		}
	}
}

/* Every mode the display models, in the order listed; a profile lists those its platform has.
 * Under Xvfb the driver's answer would be the X server's. */
static const VkPresentModeKHR display_modes[] = {
        VK_PRESENT_MODE_IMMEDIATE_KHR,    VK_PRESENT_MODE_MAILBOX_KHR,           VK_PRESENT_MODE_FIFO_KHR,
        VK_PRESENT_MODE_FIFO_RELAXED_KHR, VK_PRESENT_MODE_FIFO_LATEST_READY_KHR,
};
#define DISPLAY_MODE_COUNT (uint32_t)(sizeof(display_modes) / sizeof(display_modes[0]))

static VkResult write_modes(uint32_t *count, VkPresentModeKHR *modes)
{
	VkPresentModeKHR offered[DISPLAY_MODE_COUNT];
	uint32_t n = 0, written;

	for (uint32_t i = 0; i < DISPLAY_MODE_COUNT; i++)
		if (vd_profile()->modes & VD_MODE_BIT(vd_mode_of(display_modes[i])))
			offered[n++] = display_modes[i];
	if (!modes) {
		*count = n;
		return VK_SUCCESS;
	}
	written = *count < n ? *count : n;
	memcpy(modes, offered, written * sizeof(*modes));
	*count = written;
	return written < n ? VK_INCOMPLETE : VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceSurfacePresentModesKHR(VkPhysicalDevice physical,
                                                                          VkSurfaceKHR surface,
                                                                          uint32_t *count,
                                                                          VkPresentModeKHR *modes)
{
	struct vd_instance *inst = vd_instance_of(physical);
	uint32_t below = 0;

	if (vd_surface_is_own(surface))
		return write_modes(count, modes);
	/* Asked below only for the errors a bad surface deserves. */
	VkResult r = inst->vk.GetPhysicalDeviceSurfacePresentModesKHR(physical, surface, &below, NULL);

	if (r != VK_SUCCESS)
		return r;
	return write_modes(count, modes);
}

static bool is_surface_present_mode(const VkBaseInStructure *s, void *user)
{
	(void)user;
	return s->sType == VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_KHR;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceSurfaceCapabilities2KHR(
        VkPhysicalDevice physical, const VkPhysicalDeviceSurfaceInfo2KHR *info,
        VkSurfaceCapabilities2KHR *caps)
{
	struct vd_instance *inst = vd_instance_of(physical);
	VkPhysicalDeviceSurfaceInfo2KHR copy = *info;
	VkSurfacePresentModeKHR mode;
	const VkSurfacePresentModeKHR *asked =
	        vd_chain_find(info->pNext, VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_KHR);
	void *storage = NULL;
	VkResult r;

	bool own = vd_surface_is_own(info->surface); /* vd_surface.c answers for it, whatever the mode */

	/* The display, not the driver's WSI, decides the present modes: ask the driver about FIFO,
	 * which every surface supports (it knows nothing of FIFO_LATEST_READY, and under Xvfb its
	 * answer for the others is about a presentation it will never do). */
	if (!own && asked && asked->presentMode != VK_PRESENT_MODE_FIFO_KHR) {
		r = vd_chain_strip(info->pNext, is_surface_present_mode, NULL, &copy.pNext, &storage);
		if (r != VK_SUCCESS)
			return VK_ERROR_OUT_OF_HOST_MEMORY;
		mode = *asked;
		mode.presentMode = VK_PRESENT_MODE_FIFO_KHR;
		mode.pNext = (void *)copy.pNext; /* declared non-const in the header; only read */
		copy.pNext = &mode;
	}
	/* The driver overwrites the compatibility list's count with its own answer: keep the app's
	 * capacity to fill the list again below. */
	VkSurfacePresentModeCompatibilityKHR *compat =
	        (void *)vd_chain_find(caps->pNext, VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_COMPATIBILITY_KHR);
	uint32_t capacity = compat ? compat->presentModeCount : 0;
	if (own)
		r = vd_surface_capabilities2(inst, physical, caps);
	else
		r = inst->vk.GetPhysicalDeviceSurfaceCapabilities2KHR(physical, &copy, caps);
	free(storage);
	if (r != VK_SUCCESS)
		return r;
	for (VkBaseOutStructure *s = (VkBaseOutStructure *)caps->pNext; s; s = s->pNext) {
		switch ((int)s->sType) {
		case VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_COMPATIBILITY_KHR: {
			/* The scan-out engine switches between any two modes at any present, so every mode
			 * is compatible with every other (per-present switching, swapchain_maintenance1). */
			VkSurfacePresentModeCompatibilityKHR *c = (void *)s;
			if (asked) {
				c->presentModeCount = capacity;
				write_modes(&c->presentModeCount, c->pPresentModes);
			}
			break;
		}
		case VK_STRUCTURE_TYPE_LATENCY_SURFACE_CAPABILITIES_NV:
			/* The latency sleep works in every present mode of the display. */
			if (vd_profile()->low_latency2) {
				VkLatencySurfaceCapabilitiesNV *c = (void *)s;
				write_modes(&c->presentModeCount, c->pPresentModes);
			}
			break;
		case VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_PRESENT_ID_2_KHR:
			((VkSurfaceCapabilitiesPresentId2KHR *)s)->presentId2Supported = VK_TRUE;
			break;
		case VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_PRESENT_WAIT_2_KHR:
			((VkSurfaceCapabilitiesPresentWait2KHR *)s)->presentWait2Supported = VK_TRUE;
			break;
		case VK_STRUCTURE_TYPE_PRESENT_TIMING_SURFACE_CAPABILITIES_EXT: {
			const struct vd_profile *p = vd_profile();
			VkPresentTimingSurfaceCapabilitiesEXT *c = (void *)s;
			c->presentTimingSupported = !p->no_surface_timing;
			c->presentAtAbsoluteTimeSupported = !p->no_surface_timing && p->absolute;
			c->presentAtRelativeTimeSupported = !p->no_surface_timing && p->relative;
			c->presentStageQueries = p->no_surface_timing ? 0 : p->stages;
			break;
		}
		default: break;
		}
	}
	return VK_SUCCESS;
}

/* ---- VK_KHR_calibrated_timestamps, forwarded to the driver's VK_EXT_calibrated_timestamps ---- */

/* The driver's domains, and the profile's swapchain domains after them: an app may calibrate only
 * a domain listed here (VUID-VkCalibratedTimestampInfoKHR-timeDomain-02354). */
VKAPI_ATTR VkResult VKAPI_CALL vd_GetPhysicalDeviceCalibrateableTimeDomainsKHR(VkPhysicalDevice physical,
                                                                               uint32_t *count,
                                                                               VkTimeDomainKHR *domains)
{
	struct vd_instance *inst = vd_instance_of(physical);
	const struct vd_profile *p = vd_profile();
	VkTimeDomainKHR ours[2];
	uint32_t n_ours = 0, n_driver = 0, capacity = *count;
	VkResult r;

	if (p->domains != VD_DOMAINS_MONOTONIC)
		ours[n_ours++] = VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT;
	if (p->domains == VD_DOMAINS_STAGE_AND_SWAPCHAIN)
		ours[n_ours++] = VK_TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT;
	r = inst->vk.GetPhysicalDeviceCalibrateableTimeDomainsEXT(physical, &n_driver, NULL);
	if (r != VK_SUCCESS)
		return r;
	if (!domains) {
		*count = n_driver + n_ours;
		return VK_SUCCESS;
	}
	*count = capacity;
	r = inst->vk.GetPhysicalDeviceCalibrateableTimeDomainsEXT(physical, count, domains);
	if (r != VK_SUCCESS)
		return r;
	for (uint32_t i = 0; i < n_ours && *count < capacity; i++)
		domains[(*count)++] = ours[i];
	return *count < n_driver + n_ours ? VK_INCOMPLETE : VK_SUCCESS;
}

static bool is_swapchain_timestamp_info(const VkBaseInStructure *s, void *user)
{
	(void)user;
	return s->sType == VK_STRUCTURE_TYPE_SWAPCHAIN_CALIBRATED_TIMESTAMP_INFO_EXT;
}

/* A swapchain domain's reading: which swapchain and stage clock it names, read below as
 * CLOCK_MONOTONIC and converted after. stage < 0: not one of ours (reads 0, as the spec allows for a
 * domain id the swapchain does not support). */
struct swapchain_reading {
	const struct vd_swapchain *sc;
	int stage;
};

static struct swapchain_reading swapchain_reading(struct vd_device *dev,
                                                  const VkCalibratedTimestampInfoKHR *info)
{
	const VkSwapchainCalibratedTimestampInfoEXT *sci =
	        vd_chain_find(info->pNext, VK_STRUCTURE_TYPE_SWAPCHAIN_CALIBRATED_TIMESTAMP_INFO_EXT);
	struct swapchain_reading r = {.stage = -1};
	const struct vd_profile *p;

	if (!sci || !(r.sc = vd_swapchain_of(dev, sci->swapchain)))
		return r;
	p = r.sc->profile;
	if (p->domains == VD_DOMAINS_MONOTONIC) {
		r.stage = VD_STAGE_PIXEL_OUT; /* offers no such domain; read as CLOCK_MONOTONIC */
	} else if (info->timeDomain == VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT) {
		if (sci->timeDomainId == p->stage_domain_id && sci->presentStage &&
		    !(sci->presentStage & (sci->presentStage - 1)))
			r.stage = __builtin_ctz(sci->presentStage);
	} else if (p->domains == VD_DOMAINS_STAGE_AND_SWAPCHAIN &&
	           sci->timeDomainId == p->swapchain_domain_id) {
		r.stage = VD_STAGE_PIXEL_OUT; /* one clock for every stage */
	}
	if (r.stage >= VD_STAGES)
		r.stage = -1;
	return r;
}

/* Serves the KHR and EXT names. VkSwapchainCalibratedTimestampInfoEXT names one of our swapchains
 * and is removed: a swapchain-local or stage-local domain is read as CLOCK_MONOTONIC by the driver,
 * in the same call as the app's other domains, and converted to the swapchain's stage clock, so
 * the readings of one call stay simultaneous. */
VKAPI_ATTR VkResult VKAPI_CALL vd_GetCalibratedTimestampsKHR(VkDevice device, uint32_t count,
                                                             const VkCalibratedTimestampInfoKHR *infos,
                                                             uint64_t *timestamps, uint64_t *max_deviation)
{
	struct vd_device *dev = vd_device_of(device);
	VkCalibratedTimestampInfoKHR *copy = calloc(count ? count : 1, sizeof(*copy));
	struct swapchain_reading *readings = calloc(count ? count : 1, sizeof(*readings));
	void **storage = calloc(count ? count : 1, sizeof(*storage));
	VkResult r = VK_ERROR_OUT_OF_HOST_MEMORY;

	if (!copy || !storage || !readings)
		goto out;
	for (uint32_t i = 0; i < count; i++) {
		copy[i] = infos[i];
		readings[i].stage = -1;
		if (copy[i].timeDomain == VK_TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT ||
		    copy[i].timeDomain == VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT) {
			readings[i] = swapchain_reading(dev, &infos[i]);
			copy[i].timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR;
		}
		if (vd_chain_strip(infos[i].pNext, is_swapchain_timestamp_info, NULL, &copy[i].pNext,
		                   &storage[i]) != VK_SUCCESS)
			goto out;
	}
	r = dev->vk.GetCalibratedTimestampsEXT(device, count, copy, timestamps, max_deviation);
	for (uint32_t i = 0; r == VK_SUCCESS && i < count; i++) {
		if (infos[i].timeDomain != VK_TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT &&
		    infos[i].timeDomain != VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT)
			continue;
		timestamps[i] =
		        readings[i].stage < 0
		                ? 0
		                : (uint64_t)vd_swapchain_to_stage(readings[i].sc, (uint32_t)readings[i].stage,
		                                                  (int64_t)timestamps[i]);
	}
out:
	for (uint32_t i = 0; storage && i < count; i++)
		free(storage[i]);
	free(storage);
	free(readings);
	free(copy);
	return r;
}
