/* anti_lag.c — vkAntiLagUpdateAMD as lowlat's "anti-lag" wait point; see anti_lag.h for why and
 * for the decisions the spec leaves open.
 *
 * Owns: the device's anti-lag flag, the vkAntiLagUpdateAMD hook, the app's maxFPS as the
 * swapchain's app grid, and turning the wait point off when the app turns anti-lag off. The wait
 * point's bookkeeping (release, log record, fallback to the present, its lines) is latency_sleep.c's.
 *
 * Locks: the device's latency lock only, in latency_sleep.c's order (it is taken before the
 * swapchain map, which a lookup under it takes); never held while sleeping or calling down.
 */
#include "anti_lag.h"

#if defined(VK_AMD_anti_lag) && defined(VK_NV_low_latency2)

#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "log.h"
#include "message.h"
#include "objects.h"
#include "swapchain.h"
#include "wait_point.h"

void lowlat_anti_lag_device_init(struct lowlat_device *dev, bool enabled)
{
	/* Without the function below (an app that enabled the extension where nothing offers it is
	 * refused by the driver; a layer that offers it also exports it) there is nothing to hook. */
	dev->latency.anti_lag = enabled && dev->vk.AntiLagUpdateAMD;
	if (dev->latency.anti_lag)
		LOWLAT_INFO(
		        "VK_AMD_anti_lag enabled by the app: its input-stage vkAntiLagUpdateAMD calls are "
		        "lowlat's wait point, before the layer below's own delay");
}

/* The app's maxFPS as a cap in millihertz (0: none). Above 1e6 fps it cannot be told from none. */
static uint32_t max_fps_to_mfps(uint32_t max_fps)
{
	return max_fps > 1000000u ? 0 : max_fps * LOWLAT_MFPS_PER_FPS;
}

/* The app turned anti-lag off: the present waits again, at once (not after a few presents). */
static void point_off(struct lowlat_device *dev)
{
	struct lowlat_latency_device *l = &dev->latency;
	uint32_t width = 0, height = 0;
	bool was = false;

	pthread_mutex_lock(&l->lock);
	struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, (VkSwapchainKHR)l->anti_lag_swapchain);
	if (sc && sc->latency.point == LOWLAT_POINT_ANTI_LAG) {
		was = true;
		sc->latency.point = LOWLAT_POINT_PRESENT;
		sc->latency.announced = false; /* said again if the app turns it back on */
		width = sc->extent.width;
		height = sc->extent.height;
	}
	pthread_mutex_unlock(&l->lock);
	if (was)
		LOWLAT_INFO_LIMITED("swapchain %ux%u: wait point \"present\" again (the app turned anti-lag "
		                    "off)",
		                    width, height);
}

static VKAPI_ATTR void VKAPI_CALL lowlat_AntiLagUpdateAMD(VkDevice device, const VkAntiLagDataAMD *data)
{
	struct lowlat_device *dev = lowlat_device_of(device);

	if (!dev || !dev->vk.AntiLagUpdateAMD) {
		LOWLAT_WARN_ONCE("vkAntiLagUpdateAMD called on a device whose chain below lacks it; ignored");
		return;
	}
	if (!dev->latency.anti_lag || !data) {
		dev->vk.AntiLagUpdateAMD(device, data);
		return;
	}
	if (data->mode == VK_ANTI_LAG_MODE_OFF_AMD) {
		point_off(dev);
		dev->vk.AntiLagUpdateAMD(device, data);
		return;
	}
	/* The PRESENT stage marks a frame's end for the layer below; lowlat has nothing to do there. */
	if (data->pPresentationInfo && data->pPresentationInfo->stage != VK_ANTI_LAG_STAGE_INPUT_AMD) {
		dev->vk.AntiLagUpdateAMD(device, data);
		return;
	}

	struct lowlat_latency_device *l = &dev->latency;
	struct lowlat_point_say say = {0};
	int64_t now = lowlat_now_ns(), release = now, tolerance = LOWLAT_WAIT_PRECISE;
	bool paced = false, found = false;
	VkSwapchainKHR handle = VK_NULL_HANDLE;
	uint32_t mfps = max_fps_to_mfps(data->maxFPS);

	pthread_mutex_lock(&l->lock);
	/* None before the device's first present: that frame is not paced, as at any present. */
	struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, (VkSwapchainKHR)l->anti_lag_swapchain);
	if (sc) {
		found = true;
		handle = sc->handle;
		if (mfps != sc->latency.app_pacer.mfps)
			lowlat_pacer_set_mfps(&sc->latency.app_pacer, mfps);
		/* app_here false: the layer below keeps maxFPS itself. */
		release = lowlat_point_sleep_locked(sc, LOWLAT_POINT_ANTI_LAG, false, now, &paced, &tolerance,
		                                    &say);
	}
	pthread_mutex_unlock(&l->lock);
	if (found) {
		char app_cap[32];
		snprintf(app_cap, sizeof(app_cap), "maxFPS %u", data->maxFPS);
		lowlat_point_say(LOWLAT_POINT_ANTI_LAG, &say,
		                 "the app's vkAntiLagUpdateAMD at its input stage, on its game thread",
		                 app_cap);
	}
	/* lowlat's cap first, on the calling (game) thread; then the layer below's own delay. */
	if (paced) {
		lowlat_point_sleep_until(release, tolerance);
		lowlat_point_woke(dev, handle, lowlat_now_ns());
	} else if (found) {
		lowlat_point_woke(dev, handle, now);
	}
	dev->vk.AntiLagUpdateAMD(device, data);
}

PFN_vkVoidFunction lowlat_anti_lag_hook(const char *name, const struct lowlat_device *dev)
{
	if (strcmp(name, "vkAntiLagUpdateAMD") || (dev && !dev->latency.anti_lag))
		return NULL;
	return (PFN_vkVoidFunction)(1 ? lowlat_AntiLagUpdateAMD : (PFN_vkAntiLagUpdateAMD)NULL);
}

#endif
