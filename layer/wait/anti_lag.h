/* anti_lag.h — VK_AMD_anti_lag (offered by the driver or by a layer below lowlat, such as Mesa's
 * VK_LAYER_MESA_anti_lag) used as lowlat's wait point: "anti-lag".
 *
 * Why: games and engines that support AMD Anti-Lag call vkAntiLagUpdateAMD with stage INPUT on
 * their game thread, right before they sample input; a wait there moves input sampling later,
 * which a wait in vkQueuePresentKHR (often on another thread, frames behind) cannot. So lowlat
 * does its late wait inside that call and the swapchain's present no longer waits, as for
 * vkLatencySleepNV (latency_sleep.h), whose wait-point bookkeeping this reuses: its fallback to the
 * present after LOWLAT_SLEEPLESS_PRESENTS presents without a call, its grids, its one-line notes.
 *
 * Decisions (the spec leaves them to the implementation):
 *  - Which swapchain: the anti-lag data names none (frameIndex only pairs the INPUT and PRESENT
 *    calls of one frame). lowlat paces the device's busiest swapchain, the one the wait-point
 *    check saw present most (the only one, in a game); the others keep their present's wait.
 *  - Modes: DRIVER_CONTROL ("on or off depending on driver settings") is ON: lowlat's own config
 *    is that setting here (no cap configured: no wait). OFF gives the present its wait back at
 *    once. A call without pPresentationInfo is an input call too (the spec has the app call it
 *    right before it processes input; only with a presentation info is there a second, PRESENT
 *    call, which lowlat passes down untouched).
 *  - Order: lowlat waits first, then calls down. The layer below (Mesa's) then sleeps for its own
 *    GPU-aware delay, measured from submit to GPU start: at lowlat's cap the GPU waits for work,
 *    that delay falls to nothing, and its sleep has nothing left to wait for; where the GPU is the
 *    bottleneck it still does its part. lowlat's release is its own grid's, not shifted by it.
 *  - maxFPS is the app's own cap, which the layer below enforces (Mesa's: one frame start per
 *    1/maxFPS). Without `stack_limiters` one limiter rules, the lower cap (latency_book.h's
 *    lowlat_latency_grids): a lower maxFPS is left to the layer below and lowlat adds no cap of
 *    its own; a lower cap of lowlat's is waited here, and maxFPS below then has nothing to wait
 *    for. Said once per swapchain.
 *
 * Built only against headers that define both VK_AMD_anti_lag and VK_NV_low_latency2 (whose
 * machinery it uses); otherwise the functions below are stubs and nothing is hooked.
 */
#ifndef LOWLAT_ANTI_LAG_H
#define LOWLAT_ANTI_LAG_H

#include <stdbool.h>
#include <vulkan/vulkan.h>

struct lowlat_device;

#if defined(VK_AMD_anti_lag) && defined(VK_NV_low_latency2)

/* After the device was created and its dispatch loaded: enabled is whether the app enabled the
 * extension. */
void lowlat_anti_lag_device_init(struct lowlat_device *dev, bool enabled);
/* The hook for vkAntiLagUpdateAMD, NULL for any other name. dev: the device of
 * vkGetDeviceProcAddr (hooked only where the app enabled the extension and the chain below has the
 * function), NULL from vkGetInstanceProcAddr (the hook then checks its device). */
PFN_vkVoidFunction lowlat_anti_lag_hook(const char *name, const struct lowlat_device *dev);

#else

static inline void lowlat_anti_lag_device_init(struct lowlat_device *dev, bool enabled)
{
	(void)dev;
	(void)enabled;
}
static inline PFN_vkVoidFunction lowlat_anti_lag_hook(const char *name, const struct lowlat_device *dev)
{
	(void)name;
	(void)dev;
	return NULL;
}

#endif

#endif
