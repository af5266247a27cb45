/* present.c — swapchain tracking and the present path.
 *
 * Owns struct lowlat_swapchain: created after the driver creates the swapchain, destroyed before
 * the driver destroys it. The present hook is where pacing happens; the pacing decision itself
 * lives in pace.c and knows nothing of Vulkan, the waiting in timing.c.
 *
 * Pacing: each swapchain has its own pacer and sleeper. One vkQueuePresentKHR call waits once,
 * until the latest deadline among its swapchains: their images are handed down together, so the
 * call cannot honour one swapchain's cap without holding the others too, and waiting for the
 * latest keeps every one of them at or under its cap. Late: the frame is handed down first and the call
 * returns at the deadline, so the app starts its next frame, and samples input, as late as the cap allows.
 * Early: the wait comes first and the frame is handed down at the deadline. No lock of ours is held while
 * waiting or calling down: swapchain lookups take the device map's lock only for the lookup.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "hooks.h"
#include "message.h"
#include "objects.h"
#include "pace.h"

/* The settings every swapchain follows: the cap in millihertz in the low 32 bits, the method in the
 * next 8. One atomic word, so a present never sees the cap of one configure call with the method of
 * another; each swapchain applies a change to its own pacer at its next present. */
static _Atomic uint64_t pace_config;
static pthread_once_t pace_config_once = PTHREAD_ONCE_INIT;

static uint64_t config_pack(uint32_t mfps, enum lowlat_pace_method method)
{
	return (uint64_t)mfps | (uint64_t)method << 32;
}

static uint32_t config_mfps(uint64_t config)
{
	return (uint32_t)config;
}

static enum lowlat_pace_method config_method(uint64_t config)
{
	return (enum lowlat_pace_method)(config >> 32 & 0xff);
}

void lowlat_present_configure(uint32_t mfps, enum lowlat_pace_method method)
{
	atomic_store_explicit(&pace_config, config_pack(mfps, method), memory_order_relaxed);
}

static void config_from_env(void)
{
	enum lowlat_pace_method method;
	uint32_t mfps;
	const char *err;
	char msg[256];

	/* Bad values are reported whatever LOWLAT_VERBOSE says: the player asked for something and
	 * does not get it. */
	if ((err = lowlat_parse_fps("LOWLAT_FPS", getenv("LOWLAT_FPS"), &mfps, msg, sizeof(msg))))
		lowlat_msg("%s", err);
	if ((err = lowlat_parse_method("LOWLAT_METHOD", getenv("LOWLAT_METHOD"), &method, msg, sizeof(msg))))
		lowlat_msg("%s", err);
	lowlat_present_configure(mfps, method);
	if (mfps)
		LOWLAT_INFO("limiting to %.3f fps, %s", (double)mfps / LOWLAT_MFPS_PER_FPS,
		            lowlat_pace_method_name(method));
	else
		LOWLAT_INFO("limiter off");
}

static const char *present_mode_name(VkPresentModeKHR mode)
{
	switch (mode) {
	case VK_PRESENT_MODE_IMMEDIATE_KHR: return "IMMEDIATE";
	case VK_PRESENT_MODE_MAILBOX_KHR: return "MAILBOX";
	case VK_PRESENT_MODE_FIFO_KHR: return "FIFO";
	case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return "FIFO_RELAXED";
	case VK_PRESENT_MODE_FIFO_LATEST_READY_KHR: return "FIFO_LATEST_READY";
	default: return "other";
	}
}

static const VkAllocationCallbacks *device_allocator(const struct lowlat_device *dev)
{
	return dev->has_allocator ? &dev->allocator : NULL;
}

static void swapchain_summary(const struct lowlat_swapchain *sc)
{
	double seconds = (double)(sc->last_present_ns - sc->first_present_ns) * 1e-9;
	/* n presents span n-1 intervals. */
	double fps = sc->presents > 1 && seconds > 0 ? (double)(sc->presents - 1) / seconds : 0;
	char limiter[128] = "limiter off";

	if (sc->pacer.mfps)
		snprintf(limiter, sizeof(limiter),
		         "limiter %s at %.3f fps, %" PRIu64 " re-anchors (%.1f ms lost)",
		         lowlat_pace_method_name(config_method(sc->pace_config)),
		         (double)sc->pacer.mfps / LOWLAT_MFPS_PER_FPS, sc->pacer.reanchors,
		         (double)sc->pacer.lost_ns * 1e-6);
	LOWLAT_INFO("swapchain %ux%u %s, %u images: %" PRIu64 " presents in %.3f s (%.2f fps), %" PRIu64
	            " failed; %s",
	            sc->extent.width, sc->extent.height, present_mode_name(sc->present_mode), sc->image_count,
	            sc->presents, seconds, fps, sc->present_errors, limiter);
	if (sc->pacer.mfps)
		LOWLAT_DEBUG("swapchain %ux%u: spin tail of the wait %.0f us at the end", sc->extent.width,
		             sc->extent.height, (double)sc->sleeper.tail_ns * 1e-3);
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_CreateSwapchainKHR(VkDevice device,
                                                         const VkSwapchainCreateInfoKHR *info,
                                                         const VkAllocationCallbacks *allocator,
                                                         VkSwapchainKHR *out)
{
	struct lowlat_device *dev = lowlat_device_of(device);
	struct lowlat_swapchain *sc;
	VkResult result;

	pthread_once(&pace_config_once, config_from_env);
	result = dev->vk.CreateSwapchainKHR(device, info, allocator, out);
	if (result != VK_SUCCESS)
		return result;

	/* Our record outlives no call of the app's, so the device's allocator (object scope) is the
	 * right one; the swapchain's own may be freed by the app at destroy time. */
	sc = lowlat_alloc(device_allocator(dev), sizeof(*sc), VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
	if (!sc) {
		LOWLAT_WARN_ONCE("out of memory tracking a swapchain; its presents pass through");
		return VK_SUCCESS;
	}
	sc->handle = *out;
	sc->device = dev;
	sc->extent = info->imageExtent;
	sc->format = info->imageFormat;
	sc->present_mode = info->presentMode;
	if (dev->vk.GetSwapchainImagesKHR(device, *out, &sc->image_count, NULL) != VK_SUCCESS)
		sc->image_count = info->minImageCount;
	lowlat_pacer_init(&sc->pacer);
	lowlat_sleeper_init(&sc->sleeper);

	if (!lowlat_map_insert(&dev->swapchains, (uint64_t)*out, sc)) {
		LOWLAT_WARN_ONCE("out of memory tracking a swapchain; its presents pass through");
		lowlat_free(device_allocator(dev), sc);
		return VK_SUCCESS;
	}
	LOWLAT_DEBUG("swapchain created: %ux%u %s, %u images", sc->extent.width, sc->extent.height,
	             present_mode_name(sc->present_mode), sc->image_count);
	return VK_SUCCESS;
}

static void swapchain_forget(struct lowlat_device *dev, struct lowlat_swapchain *sc)
{
	swapchain_summary(sc);
	lowlat_free(device_allocator(dev), sc);
}

VKAPI_ATTR void VKAPI_CALL lowlat_DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                      const VkAllocationCallbacks *allocator)
{
	struct lowlat_device *dev = lowlat_device_of(device);
	struct lowlat_swapchain *sc;

	if (swapchain && (sc = lowlat_map_remove(&dev->swapchains, (uint64_t)swapchain)))
		swapchain_forget(dev, sc);
	dev->vk.DestroySwapchainKHR(device, swapchain, allocator);
}

void lowlat_present_device_teardown(struct lowlat_device *dev)
{
	struct lowlat_swapchain *sc;

	/* Destroying a device with live swapchains is the app's error (validation reports it); free
	 * our records so nothing leaks. */
	while ((sc = lowlat_map_pop(&dev->swapchains)))
		swapchain_forget(dev, sc);
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_AcquireNextImageKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                          uint64_t timeout, VkSemaphore semaphore,
                                                          VkFence fence, uint32_t *index)
{
	struct lowlat_device *dev = lowlat_device_of(device);

	return dev->vk.AcquireNextImageKHR(device, swapchain, timeout, semaphore, fence, index);
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_AcquireNextImage2KHR(VkDevice device,
                                                           const VkAcquireNextImageInfoKHR *info,
                                                           uint32_t *index)
{
	struct lowlat_device *dev = lowlat_device_of(device);

	return dev->vk.AcquireNextImage2KHR(device, info, index);
}

static bool present_failed(VkResult result)
{
	/* SUBOPTIMAL still presented the image. */
	return result < 0;
}

/* Brings the swapchain's pacer to the current setting (on the presenting thread, which owns it)
 * and returns its deadline for this frame. */
static int64_t swapchain_deadline(struct lowlat_swapchain *sc, uint64_t config, int64_t now_ns)
{
	uint64_t reanchors = sc->pacer.reanchors;
	int64_t deadline;

	if (sc->pace_config != config) {
		lowlat_pacer_set_mfps(&sc->pacer, config_mfps(config));
		sc->pace_config = config;
	}
	deadline = lowlat_pacer_next_deadline(&sc->pacer, now_ns);
	if (sc->pacer.reanchors != reanchors)
		LOWLAT_DEBUG("frame %" PRIu64 " was %.2f ms behind its deadline: pacing restarts from it",
		             sc->presents, (double)sc->pacer.behind_ns * 1e-6);
	return deadline;
}

static void count_present(struct lowlat_swapchain *sc, VkResult r, int64_t t_ns)
{
	if (present_failed(r)) {
		sc->present_errors++;
		return;
	}
	if (!sc->presents++)
		sc->first_present_ns = t_ns;
	sc->last_present_ns = t_ns;
}

/* The one wait of a present call: until the latest deadline of its swapchains, with the sleeper
 * (adaptive tail state) of the swapchain that set it. */
struct present_wait {
	int64_t deadline_ns;
	struct lowlat_swapchain *sc;
};

static void wait_consider(struct present_wait *w, struct lowlat_swapchain *sc, int64_t deadline_ns)
{
	if (!w->sc || deadline_ns > w->deadline_ns) {
		w->deadline_ns = deadline_ns;
		w->sc = sc;
	}
}

static void wait_do(const struct present_wait *w)
{
	if (w->sc) {
		struct lowlat_clock clock = lowlat_system_clock(&w->sc->sleeper);
		clock.sleep_until_ns(clock.ctx, w->deadline_ns);
	}
}

/* Counts the call for the summary line, timestamped when our wait ended (t_ns): in late mode when
 * the app gets control back, in early mode when the frame is handed to the driver. Either way the
 * cadence the method shapes, and the same instants the pacer's grid and its time lost refer to. */
static void count_presents(struct lowlat_device *dev, const VkPresentInfoKHR *info, VkResult result,
                           int64_t t_ns)
{
	for (uint32_t i = 0; i < info->swapchainCount; i++) {
		struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
		if (sc)
			count_present(sc, info->pResults ? info->pResults[i] : result, t_ns);
	}
}

VKAPI_ATTR VkResult VKAPI_CALL lowlat_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	struct lowlat_device *dev = lowlat_device_of(queue);
	uint64_t config = atomic_load_explicit(&pace_config, memory_order_relaxed);
	struct present_wait wait = {0};
	VkResult result;
	int64_t t;

	if (config_method(config) == LOWLAT_PACE_EARLY) {
		t = lowlat_now_ns();
		for (uint32_t i = 0; i < info->swapchainCount; i++) {
			struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
			if (sc)
				wait_consider(&wait, sc, swapchain_deadline(sc, config, t));
		}
		wait_do(&wait);
		t = lowlat_now_ns();
		result = dev->vk.QueuePresentKHR(queue, info);
	} else {
		result = dev->vk.QueuePresentKHR(queue, info);
		t = lowlat_now_ns();
		for (uint32_t i = 0; i < info->swapchainCount; i++) {
			struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, info->pSwapchains[i]);
			VkResult r = info->pResults ? info->pResults[i] : result;

			/* A frame that was not shown (out of date, surface lost) is not paced: the app is
			 * about to recreate the swapchain or quit, and a wait would only delay that. */
			if (sc && !present_failed(r))
				wait_consider(&wait, sc, swapchain_deadline(sc, config, t));
		}
		wait_do(&wait);
		t = lowlat_now_ns();
	}
	count_presents(dev, info, result, t);
	return result;
}
