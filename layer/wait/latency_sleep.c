/* latency_sleep.c — VK_NV_low_latency2 offered, emulated and used as lowlat's wait point; see
 * latency_sleep.h for why and for the three device modes.
 *
 * Owns: the extension in vkEnumerateDeviceExtensionProperties, its removal from copies of the
 * device and swapchain create infos and of submit pNext chains (validation and the driver below
 * never see it on an emulated device), VkLatencySurfaceCapabilitiesNV, the extension's commands,
 * the owed semaphore signals (their bookkeeping is latency_book.c), the vkWaitSemaphores hook that
 * does the precise wait on the waiting thread, and the per-device signaler thread.
 *
 * Release time: the swapchain's own pacer (lowlat's cap, on the grid the present path uses when no
 * sleep is made), and the app's minimumIntervalUs on a grid of its own; lowlat_latency_release_ns
 * picks between them so that two limiters never stack unless `stack_limiters` says so.
 *
 * Lock order: the device map, then a device's latency lock (present.c takes it around its pacer
 * for such devices), then that device's swapchain map (a lookup under the latency lock finds the
 * swapchain whose sleep ended; a destroyed swapchain leaves the map before its latency state is
 * torn down under the latency lock, so what the lookup returns stays valid while it is held). No
 * lock is held while sleeping or calling down.
 */
#include "latency_sleep.h"

#include "chain.h"

#ifdef VK_NV_low_latency2

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "config.h"
#include "config_global.h"
#include "log.h"
#include "message.h"
#include "objects.h"
#include "swapchain.h"

#define EXT_NAME VK_NV_LOW_LATENCY_2_EXTENSION_NAME
/* The revision lowlat implements: what it accepts and strips is revision 2's (revision 3 only
 * clarified where VkLatencySubmissionPresentIdNV goes, which lowlat strips anywhere). */
#define EXT_SPEC_VERSION 2

/* ---- offering the extension ---- */

/* What the chain below offers. The extension depends on VK_KHR_present_id or present_id2 (and
 * timeline semaphores, core in every Vulkan 1.2 driver): lowlat offers it only where one of those
 * is there, so what the app sees stays a valid set of extensions; DXVK uses it only then anyway. */
enum below {
	BELOW_HAS,     /* the driver has it: pass through */
	BELOW_EMULATE, /* it lacks it but has present ids: lowlat provides it */
	BELOW_CANNOT,  /* neither: not offered */
};

static enum below classify(const VkExtensionProperties *props, uint32_t count)
{
	bool present_id = false;

	for (uint32_t i = 0; i < count; i++) {
		if (!strcmp(props[i].extensionName, EXT_NAME))
			return BELOW_HAS;
		present_id = present_id ||
		             !strcmp(props[i].extensionName, VK_KHR_PRESENT_ID_EXTENSION_NAME) ||
		             !strcmp(props[i].extensionName, "VK_KHR_present_id2");
	}
	return present_id ? BELOW_EMULATE : BELOW_CANNOT;
}

/* `enabled: false` passes everything through: lowlat then offers nothing of its own either. Read
 * when the app lists or enables extensions; a later change leaves a device as it was made. */
static bool offering(void)
{
	struct lowlat_config cfg;

	lowlat_config_defaults(&cfg);
	lowlat_config_global_get(0, &cfg);
	return cfg.enabled;
}

static enum below below_support(struct lowlat_instance *inst, VkPhysicalDevice physical)
{
	VkExtensionProperties *props;
	uint32_t count = 0;
	enum below b = BELOW_CANNOT;

	if (!inst->vk.EnumerateDeviceExtensionProperties ||
	    inst->vk.EnumerateDeviceExtensionProperties(physical, NULL, &count, NULL) != VK_SUCCESS)
		return BELOW_CANNOT;
	if (!(props = calloc(count ? count : 1, sizeof(*props))))
		return BELOW_CANNOT;
	if (inst->vk.EnumerateDeviceExtensionProperties(physical, NULL, &count, props) >= 0)
		b = classify(props, count);
	free(props);
	return b;
}

static VKAPI_ATTR VkResult VKAPI_CALL lowlat_EnumerateDeviceExtensionProperties(VkPhysicalDevice physical,
                                                                                const char *layer,
                                                                                uint32_t *count,
                                                                                VkExtensionProperties *out)
{
	struct lowlat_instance *inst = lowlat_instance_of(physical);
	const VkExtensionProperties ours = {.extensionName = EXT_NAME, .specVersion = EXT_SPEC_VERSION};
	VkExtensionProperties *below;
	uint32_t n = 0, total, copy;
	VkResult result;

	if (!inst || !inst->vk.EnumerateDeviceExtensionProperties)
		return VK_ERROR_INITIALIZATION_FAILED;
	/* Asked for lowlat's own list: the extension where lowlat provides it, else nothing. The
	 * manifest lists no device extension: the loader would add it to every device's list, and
	 * the layers below would see it as the driver's (below_support). */
	if (layer && !strcmp(layer, LOWLAT_LAYER_NAME)) {
		total = below_support(inst, physical) == BELOW_EMULATE && offering() ? 1 : 0;
		if (!out) {
			*count = total;
			return VK_SUCCESS;
		}
		copy = *count < total ? *count : total;
		if (copy)
			out[0] = ours;
		*count = copy;
		return copy < total ? VK_INCOMPLETE : VK_SUCCESS;
	}
	if (layer)
		return inst->vk.EnumerateDeviceExtensionProperties(physical, layer, count, out);

	/* The driver's list in full, to know whether it has the extension and to copy from. */
	if ((result = inst->vk.EnumerateDeviceExtensionProperties(physical, NULL, &n, NULL)) != VK_SUCCESS)
		return result;
	if (!(below = calloc(n + 1, sizeof(*below))))
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	if ((result = inst->vk.EnumerateDeviceExtensionProperties(physical, NULL, &n, below)) < 0) {
		free(below);
		return result;
	}
	total = n;
	if (classify(below, n) == BELOW_EMULATE && offering())
		below[total++] = ours;
	if (!out) {
		*count = total;
		free(below);
		return VK_SUCCESS;
	}
	/* Never more than the app's array holds; VK_INCOMPLETE when that is less than all. */
	copy = *count < total ? *count : total;
	memcpy(out, below, copy * sizeof(*out));
	*count = copy;
	free(below);
	return copy < total ? VK_INCOMPLETE : VK_SUCCESS;
}

/* VkLatencySurfaceCapabilitiesNV: every present mode of the surface works with lowlat's sleep,
 * which does not depend on the mode. The driver must not see the struct: when it comes first in
 * the chain (the usual place) the call goes down with a copy of the head that skips it, and the
 * answer is copied into the app's head (an output struct, ours to fill); deeper in the chain it
 * cannot be skipped without writing the app's pNext pointers, and goes down as it is (drivers skip
 * structure types they do not know). */
static VKAPI_ATTR VkResult VKAPI_CALL lowlat_GetPhysicalDeviceSurfaceCapabilities2KHR(
        VkPhysicalDevice physical, const VkPhysicalDeviceSurfaceInfo2KHR *info,
        VkSurfaceCapabilities2KHR *caps)
{
	struct lowlat_instance *inst = lowlat_instance_of(physical);
	VkLatencySurfaceCapabilitiesNV *latency = NULL;
	VkResult result;

	if (!inst || !inst->vk.GetPhysicalDeviceSurfaceCapabilities2KHR)
		return VK_ERROR_INITIALIZATION_FAILED;
	for (VkBaseOutStructure *s = caps->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_LATENCY_SURFACE_CAPABILITIES_NV)
			latency = (VkLatencySurfaceCapabilitiesNV *)s;
	if (!latency || !inst->vk.GetPhysicalDeviceSurfacePresentModesKHR ||
	    below_support(inst, physical) != BELOW_EMULATE)
		return inst->vk.GetPhysicalDeviceSurfaceCapabilities2KHR(physical, info, caps);
	if (caps->pNext == (void *)latency) {
		VkSurfaceCapabilities2KHR head = *caps;
		head.pNext = (void *)latency->pNext;
		result = inst->vk.GetPhysicalDeviceSurfaceCapabilities2KHR(physical, info, &head);
		caps->surfaceCapabilities = head.surfaceCapabilities;
	} else {
		result = inst->vk.GetPhysicalDeviceSurfaceCapabilities2KHR(physical, info, caps);
	}
	if (result != VK_SUCCESS)
		return result;
	uint32_t n = 0;
	VkPresentModeKHR modes[16];
	if (inst->vk.GetPhysicalDeviceSurfacePresentModesKHR(physical, info->surface, &n, NULL) != VK_SUCCESS)
		return result;
	if (n > 16)
		n = 16;
	if (inst->vk.GetPhysicalDeviceSurfacePresentModesKHR(physical, info->surface, &n, modes) < 0)
		return result;
	/* An output struct the app asked us to fill: its count and array are ours to write. */
	if (!latency->pPresentModes) {
		latency->presentModeCount = n;
	} else {
		if (latency->presentModeCount > n)
			latency->presentModeCount = n;
		memcpy(latency->pPresentModes, modes, latency->presentModeCount * sizeof(*modes));
	}
	return result;
}

/* ---- device and swapchain creation ---- */

void lowlat_latency_device_setup(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                 const VkDeviceCreateInfo *app, struct lowlat_latency_setup *s)
{
	uint32_t n = app->enabledExtensionCount, kept = 0;
	bool wanted = false;

	*s = (struct lowlat_latency_setup){.info = *app};
	for (uint32_t i = 0; i < n; i++)
		wanted = wanted || !strcmp(app->ppEnabledExtensionNames[i], EXT_NAME);
	if (!wanted)
		return;
	switch (below_support(inst, physical)) {
	case BELOW_HAS: s->mode = LOWLAT_LATENCY_NATIVE; return;
	case BELOW_CANNOT: return; /* not offered: the driver refuses it as it would without lowlat */
	case BELOW_EMULATE: break;
	}
	if (!offering())
		return; /* not offered: as without lowlat */
	s->mode = LOWLAT_LATENCY_EMULATED;
	if (!(s->names = calloc(n, sizeof(*s->names)))) {
		/* Cannot strip it: the driver would refuse the device. */
		s->mode = LOWLAT_LATENCY_OFF;
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(app->ppEnabledExtensionNames[i], EXT_NAME))
			s->names[kept++] = app->ppEnabledExtensionNames[i];
	s->info.enabledExtensionCount = kept;
	s->info.ppEnabledExtensionNames = s->names;
}

void lowlat_latency_device_setup_fini(struct lowlat_latency_setup *s)
{
	free(s->names);
	s->names = NULL;
}

static void *signaler_main(void *arg);

void lowlat_latency_device_init(struct lowlat_device *dev, enum lowlat_latency_mode mode)
{
	struct lowlat_latency_device *l = &dev->latency;
	pthread_condattr_t attr;

	/* A list can name the extension while nothing below implements it: the loader adds the
	 * device extensions of every implicit layer's manifest to the driver's list, and the driver's
	 * vkCreateDevice then silently drops the name. Its commands tell: lowlat provides the
	 * extension where any of them is missing, so no call of the app's reaches a NULL pointer. */
	const char *why = "the driver lacks it";
	if (mode == LOWLAT_LATENCY_NATIVE &&
	    (!dev->vk.SetLatencySleepModeNV || !dev->vk.LatencySleepNV || !dev->vk.SetLatencyMarkerNV ||
	     !dev->vk.GetLatencyTimingsNV || !dev->vk.QueueNotifyOutOfBandNV)) {
		why = "the device lists it, but the driver below lacks its commands";
		mode = LOWLAT_LATENCY_EMULATED;
	}
	l->mode = mode;
	pthread_mutex_init(&l->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&l->cond, &attr);
	pthread_condattr_destroy(&attr);
	l->signal = dev->vk.SignalSemaphore ? dev->vk.SignalSemaphore : dev->vk.SignalSemaphoreKHR;
	l->wait = dev->vk.WaitSemaphores ? dev->vk.WaitSemaphores : dev->vk.WaitSemaphoresKHR;
	l->counter = dev->vk.GetSemaphoreCounterValue ? dev->vk.GetSemaphoreCounterValue
	                                              : dev->vk.GetSemaphoreCounterValueKHR;
	if (mode == LOWLAT_LATENCY_EMULATED && (!l->signal || !l->wait || !l->counter))
		LOWLAT_WARN_LIMITED(
		        "VK_NV_low_latency2: the driver below has no timeline semaphore functions; the "
		        "app's latency sleeps are released at once");
	if (mode == LOWLAT_LATENCY_EMULATED)
		LOWLAT_INFO("VK_NV_low_latency2 provided by lowlat (%s)", why);
	else if (mode == LOWLAT_LATENCY_NATIVE)
		LOWLAT_INFO("VK_NV_low_latency2 passed through to the driver");
}

void lowlat_latency_device_fini(struct lowlat_device *dev)
{
	struct lowlat_latency_device *l = &dev->latency;
	bool joined;

	pthread_mutex_lock(&l->lock);
	l->stop = true;
	joined = l->thread_started;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
	if (joined)
		pthread_join(l->thread, NULL);
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
}

/* ---- structs of the extension out of pNext chains (emulated devices) ---- */

const VkSwapchainCreateInfoKHR *lowlat_latency_swapchain_info(struct lowlat_device *dev,
                                                              const VkSwapchainCreateInfoKHR *app,
                                                              VkSwapchainCreateInfoKHR *copy,
                                                              struct lowlat_chain_storage *storage)
{
	const void *chain;

	if (dev->latency.mode != LOWLAT_LATENCY_EMULATED ||
	    !lowlat_chain_has(app->pNext, VK_STRUCTURE_TYPE_SWAPCHAIN_LATENCY_CREATE_INFO_NV))
		return app;
	if (!lowlat_chain_without(app->pNext, VK_STRUCTURE_TYPE_SWAPCHAIN_LATENCY_CREATE_INFO_NV, storage,
	                          &chain)) {
		LOWLAT_WARN_ONCE(
		        "VK_NV_low_latency2: VkSwapchainLatencyCreateInfoNV follows a structure lowlat "
		        "cannot copy; it reaches the driver as the app chained it");
		return app;
	}
	*copy = *app;
	copy->pNext = chain;
	return copy;
}

/* ---- owed signals ---- */

/* The index of the claimed signal (semaphore, value) in the book, -1 when it is gone. */
static int find_claimed(const struct lowlat_owed_book *book, uint64_t semaphore, uint64_t value)
{
	for (uint32_t i = 0; i < book->count; i++)
		if (book->items[i].claimed && book->items[i].semaphore == semaphore &&
		    book->items[i].value == value)
			return (int)i;
	return -1;
}

/* Sends the claimed signal book.items[i]. The caller holds the lock; it is released around the
 * call down and held again on return. A lower claimed value of the same semaphore goes first (a
 * timeline is only ever signalled upwards): its claimer's release is earlier, so this waits for at
 * most the rest of that one's sleep. Records the sleep's end for the swapchain's log. */
static void signal_claimed_locked(struct lowlat_device *dev, int i)
{
	struct lowlat_latency_device *l = &dev->latency;
	const struct lowlat_owed o = l->book.items[i];
	uint64_t current = 0;

	while (i >= 0 && lowlat_owed_lower_claimed(&l->book, i)) {
		pthread_cond_wait(&l->cond, &l->lock);
		/* Items move when others are removed: find ours again (claimed: only we remove it). */
		i = find_claimed(&l->book, o.semaphore, o.value);
	}
	pthread_mutex_unlock(&l->lock);
	VkSemaphore sem = (VkSemaphore)o.semaphore;
	/* The release is the moment the signal goes out, so it is read before: a polling app can see
	 * the value and stamp its frame start before vkSignalSemaphore even returns to us. */
	int64_t end_ns = lowlat_now_ns();
	/* The app may have signalled it past our value itself; a signal at or below would be invalid. */
	if (l->signal && l->counter && l->counter(dev->handle, sem, &current) == VK_SUCCESS &&
	    current < o.value) {
		const VkSemaphoreSignalInfo info = {
		        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, .semaphore = sem, .value = o.value};
		if (l->signal(dev->handle, &info) != VK_SUCCESS)
			LOWLAT_WARN_ONCE("VK_NV_low_latency2: signalling the app's latency semaphore failed");
	}
	pthread_mutex_lock(&l->lock);
	if ((i = find_claimed(&l->book, o.semaphore, o.value)) >= 0)
		lowlat_owed_done(&l->book, i);
	struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, (VkSwapchainKHR)o.swapchain);
	if (sc && sc->latency.have_wait && sc->latency.wait_end_ns == LOWLAT_LOG_UNKNOWN)
		lowlat_point_wait_ended_locked(sc, end_ns);
	pthread_cond_broadcast(&l->cond);
}

/* The signaler thread: sends, at their release times, the signals nobody claimed by waiting. Its
 * wake-up is a condition variable's (tens to hundreds of us late); a thread that waits for the
 * value in vkWaitSemaphores gets the precise wait instead. */
static void *signaler_main(void *arg)
{
	struct lowlat_device *dev = arg;
	struct lowlat_latency_device *l = &dev->latency;

	pthread_mutex_lock(&l->lock);
	while (!l->stop) {
		int i = lowlat_owed_earliest(&l->book);
		if (i < 0) {
			pthread_cond_wait(&l->cond, &l->lock);
			continue;
		}
		int64_t release = l->book.items[i].release_ns;
		if (release > lowlat_now_ns()) {
			struct timespec ts = {.tv_sec = release / 1000000000ll,
			                      .tv_nsec = release % 1000000000ll};
			int r = pthread_cond_timedwait(&l->cond, &l->lock, &ts);
			if (r != ETIMEDOUT)
				continue; /* the book changed: look again */
			if ((i = lowlat_owed_earliest(&l->book)) < 0 ||
			    l->book.items[i].release_ns > lowlat_now_ns())
				continue;
		}
		l->book.items[i].claimed = true;
		signal_claimed_locked(dev, i);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/* Signals o now (no one may have it in the book). */
static void signal_now(struct lowlat_device *dev, const struct lowlat_owed *o)
{
	struct lowlat_latency_device *l = &dev->latency;
	uint64_t current = 0;
	VkSemaphore sem = (VkSemaphore)o->semaphore;

	if (!sem || !l->signal || !l->counter)
		return;
	if (l->counter(dev->handle, sem, &current) == VK_SUCCESS && current < o->value) {
		const VkSemaphoreSignalInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
		                                    .semaphore = sem,
		                                    .value = o->value};
		l->signal(dev->handle, &info);
	}
}

void lowlat_latency_swapchain_fini(struct lowlat_device *dev, struct lowlat_swapchain *sc)
{
	struct lowlat_latency_device *l = &dev->latency;
	struct lowlat_owed owed[LOWLAT_OWED_MAX];
	uint32_t n = 0;

	if (l->mode != LOWLAT_LATENCY_EMULATED)
		return;
	/* Its sleeps end now: an app still waiting must not hang on a swapchain that is gone. They
	 * stay in the book, due at once, for the signaler thread to send in order with any other
	 * claimer of the same semaphore; only without that thread are they sent here. */
	pthread_mutex_lock(&l->lock);
	if (l->thread_started)
		lowlat_owed_release_swapchain(&l->book, (uint64_t)sc->handle, 0);
	else
		n = lowlat_owed_take_swapchain(&l->book, (uint64_t)sc->handle, owed);
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
	for (uint32_t i = 0; i < n; i++)
		signal_now(dev, &owed[i]);
}

/* ---- the extension's commands ---- */

#define LATENCY_HOOK_DEVICE(dev, handle, error)                                                              \
	struct lowlat_device *dev = lowlat_device_of(handle);                                                \
	if (!dev || dev->latency.mode == LOWLAT_LATENCY_OFF) {                                               \
		LOWLAT_WARN_ONCE("a VK_NV_low_latency2 command was called on a device without the "          \
		                 "extension enabled");                                                       \
		return error;                                                                                \
	}

static VKAPI_ATTR VkResult VKAPI_CALL lowlat_SetLatencySleepModeNV(VkDevice device, VkSwapchainKHR swapchain,
                                                                   const VkLatencySleepModeInfoNV *info)
{
	LATENCY_HOOK_DEVICE(dev, device, VK_ERROR_INITIALIZATION_FAILED)
	struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, swapchain);

	if (sc) {
		pthread_mutex_lock(&dev->latency.lock);
		/* A NULL info means "off" (the spec's default for a swapchain). */
		sc->latency.low_latency_mode = info && info->lowLatencyMode;
		sc->latency.boost = info && info->lowLatencyBoost;
		uint32_t interval = info ? info->minimumIntervalUs : 0;
		if (interval != sc->latency.min_interval_us) {
			sc->latency.min_interval_us = interval;
			lowlat_pacer_set_mfps(&sc->latency.app_pacer, lowlat_interval_us_to_mfps(interval));
		}
		pthread_mutex_unlock(&dev->latency.lock);
	}
	if (dev->latency.mode == LOWLAT_LATENCY_NATIVE)
		return dev->vk.SetLatencySleepModeNV(device, swapchain, info);
	return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL lowlat_LatencySleepNV(VkDevice device, VkSwapchainKHR swapchain,
                                                            const VkLatencySleepInfoNV *info)
{
	/* VK_ERROR_UNKNOWN: the one error code vk.xml gives this command besides validation's. */
	LATENCY_HOOK_DEVICE(dev, device, VK_ERROR_UNKNOWN)
	struct lowlat_latency_device *l = &dev->latency;
	struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, swapchain);
	int64_t now = lowlat_now_ns(), release = now, tolerance = LOWLAT_WAIT_PRECISE;
	bool paced = false, start = false, in_book = false;
	struct lowlat_owed owed = {.semaphore = (uint64_t)info->signalSemaphore,
	                           .value = info->value,
	                           .swapchain = (uint64_t)swapchain};

	if (sc) {
		struct lowlat_point_say say;
		pthread_mutex_lock(&l->lock);
		/* Native: the driver keeps the app's interval itself. */
		release = lowlat_point_sleep_locked(sc, LOWLAT_POINT_LATENCY_SLEEP,
		                                    l->mode == LOWLAT_LATENCY_EMULATED, now, &paced,
		                                    &tolerance, &say);
		owed.release_ns = release;
		owed.tolerance_ns = tolerance;
		if (l->mode == LOWLAT_LATENCY_EMULATED && info->signalSemaphore) {
			/* Full (an app that sleeps far more often than it is released): its older values
			 * of this semaphore are implied by this one and make room. */
			in_book = lowlat_owed_add(&l->book, &owed) ||
			          (lowlat_owed_drop_lower(&l->book, owed.semaphore, owed.value) &&
			           lowlat_owed_add(&l->book, &owed));
			if (in_book && !l->thread_started)
				start = l->thread_started = true;
			else if (in_book)
				pthread_cond_broadcast(&l->cond);
		}
		pthread_mutex_unlock(&l->lock);
		char app_cap[48];
		snprintf(app_cap, sizeof(app_cap), "minimumIntervalUs %u us", sc->latency.min_interval_us);
		lowlat_point_say(LOWLAT_POINT_LATENCY_SLEEP, &say,
		                 l->mode == LOWLAT_LATENCY_EMULATED
		                         ? "the app's vkLatencySleepNV on its game thread, "
		                           "VK_NV_low_latency2 provided by lowlat"
		                         : "the app's vkLatencySleepNV on its game thread",
		                 app_cap);
	}
	if (start && pthread_create(&l->thread, NULL, signaler_main, dev)) {
		pthread_mutex_lock(&l->lock);
		l->thread_started = false;
		pthread_mutex_unlock(&l->lock);
		LOWLAT_WARN_ONCE(
		        "VK_NV_low_latency2: could not start the signaler thread; sleeps are released "
		        "when the app waits for them");
	}

	if (l->mode == LOWLAT_LATENCY_NATIVE) {
		/* lowlat's cap: waited here, on the calling (game) thread, before the driver's own sleep. */
		if (paced) {
			lowlat_point_sleep_until(release, tolerance);
			lowlat_point_woke(dev, swapchain, lowlat_now_ns());
		}
		return dev->vk.LatencySleepNV(device, swapchain, info);
	}
	/* Emulated: returns at once, as the spec says; the signal comes at the release time. Due now:
	 * sent here, unless the signaler thread (woken by the new entry) or a waiter claimed it
	 * first, which then sends it: a value is sent by its one claimer only. Not in the book (no
	 * swapchain of ours, the book full of other semaphores' values): sent here, now. */
	if (in_book && release <= now) {
		pthread_mutex_lock(&l->lock);
		int i = lowlat_owed_find(&l->book, owed.semaphore, owed.value);
		if (i >= 0 && !l->book.items[i].claimed) {
			l->book.items[i].claimed = true;
			signal_claimed_locked(dev, i);
		}
		pthread_mutex_unlock(&l->lock);
	} else if (!in_book) {
		signal_now(dev, &owed);
	}
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL lowlat_SetLatencyMarkerNV(VkDevice device, VkSwapchainKHR swapchain,
                                                            const VkSetLatencyMarkerInfoNV *info)
{
	LATENCY_HOOK_DEVICE(dev, device, /* void */)
	struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, swapchain);
	uint64_t now_us = (uint64_t)lowlat_now_ns() / 1000u;

	if (sc && info) {
		struct lowlat_swapchain_latency *sl = &sc->latency;
		pthread_mutex_lock(&dev->latency.lock);
		/* The report of this present id: the newest if it matches, else a new one. */
		struct lowlat_latency_report *r = NULL;
		for (uint32_t k = 0; k < sl->report_count && !r; k++) {
			struct lowlat_latency_report *c =
			        &sl->reports[(sl->report_next + LOWLAT_LATENCY_REPORTS - 1 - k) %
			                     LOWLAT_LATENCY_REPORTS];
			if (c->present_id == info->presentID)
				r = c;
		}
		if (!r) {
			r = &sl->reports[sl->report_next];
			*r = (struct lowlat_latency_report){.present_id = info->presentID};
			sl->report_next = (sl->report_next + 1) % LOWLAT_LATENCY_REPORTS;
			if (sl->report_count < LOWLAT_LATENCY_REPORTS)
				sl->report_count++;
		}
		switch (info->marker) {
		case VK_LATENCY_MARKER_INPUT_SAMPLE_NV: r->input_us = now_us; break;
		case VK_LATENCY_MARKER_SIMULATION_START_NV: r->sim_start_us = now_us; break;
		case VK_LATENCY_MARKER_SIMULATION_END_NV: r->sim_end_us = now_us; break;
		case VK_LATENCY_MARKER_RENDERSUBMIT_START_NV: r->submit_start_us = now_us; break;
		case VK_LATENCY_MARKER_RENDERSUBMIT_END_NV: r->submit_end_us = now_us; break;
		case VK_LATENCY_MARKER_PRESENT_START_NV: r->present_start_us = now_us; break;
		case VK_LATENCY_MARKER_PRESENT_END_NV: r->present_end_us = now_us; break;
		default: break; /* flash and out-of-band markers: nothing lowlat reports */
		}
		pthread_mutex_unlock(&dev->latency.lock);
	}
	if (dev->latency.mode == LOWLAT_LATENCY_NATIVE)
		dev->vk.SetLatencyMarkerNV(device, swapchain, info);
}

static VKAPI_ATTR void VKAPI_CALL lowlat_GetLatencyTimingsNV(VkDevice device, VkSwapchainKHR swapchain,
                                                             VkGetLatencyMarkerInfoNV *info)
{
	LATENCY_HOOK_DEVICE(dev, device, /* void */)
	struct lowlat_swapchain *sc = lowlat_swapchain_of(dev, swapchain);

	if (dev->latency.mode == LOWLAT_LATENCY_NATIVE) {
		dev->vk.GetLatencyTimingsNV(device, swapchain, info);
		return;
	}
	if (!sc) {
		info->timingCount = 0;
		return;
	}
	pthread_mutex_lock(&dev->latency.lock);
	struct lowlat_swapchain_latency *sl = &sc->latency;
	if (!info->pTimings) {
		info->timingCount = sl->report_count;
	} else {
		/* The newest reports, oldest first. Only what the app's markers timed is reported; the
		 * driver, OS queue and GPU times are lowlat's to know no better than 0. */
		uint32_t n = info->timingCount < sl->report_count ? info->timingCount : sl->report_count;
		for (uint32_t k = 0; k < n; k++) {
			const struct lowlat_latency_report *r =
			        &sl->reports[(sl->report_next + LOWLAT_LATENCY_REPORTS - n + k) %
			                     LOWLAT_LATENCY_REPORTS];
			VkLatencyTimingsFrameReportNV *t = &info->pTimings[k];
			void *next = t->pNext;
			*t = (VkLatencyTimingsFrameReportNV){
			        .sType = VK_STRUCTURE_TYPE_LATENCY_TIMINGS_FRAME_REPORT_NV,
			        .pNext = next,
			        .presentID = r->present_id,
			        .inputSampleTimeUs = r->input_us,
			        .simStartTimeUs = r->sim_start_us,
			        .simEndTimeUs = r->sim_end_us,
			        .renderSubmitStartTimeUs = r->submit_start_us,
			        .renderSubmitEndTimeUs = r->submit_end_us,
			        .presentStartTimeUs = r->present_start_us,
			        .presentEndTimeUs = r->present_end_us,
			};
		}
		info->timingCount = n;
	}
	pthread_mutex_unlock(&dev->latency.lock);
}

static VKAPI_ATTR void VKAPI_CALL lowlat_QueueNotifyOutOfBandNV(VkQueue queue,
                                                                const VkOutOfBandQueueTypeInfoNV *info)
{
	LATENCY_HOOK_DEVICE(dev, queue, /* void */)

	/* Emulated: an out-of-band queue's work is not paced by lowlat, so there is nothing to note. */
	if (dev->latency.mode == LOWLAT_LATENCY_NATIVE)
		dev->vk.QueueNotifyOutOfBandNV(queue, info);
}

/* ---- waits and submits on emulated devices ---- */

/* The precise wait on the waiting thread: when the app waits for a value lowlat owes, this thread
 * claims it, sleeps until its release, signals it and then waits below (which then returns at
 * once). Everything else waits below as it came. */
static VkResult wait_semaphores(VkDevice device, const VkSemaphoreWaitInfo *info, uint64_t timeout, bool khr)
{
	struct lowlat_device *dev = lowlat_device_of(device);
	PFN_vkWaitSemaphores below;

	if (!dev)
		return VK_ERROR_DEVICE_LOST;
	below = khr && dev->vk.WaitSemaphoresKHR ? dev->vk.WaitSemaphoresKHR : dev->latency.wait;
	if (!below)
		return VK_ERROR_DEVICE_LOST;
	if (dev->latency.mode == LOWLAT_LATENCY_EMULATED) {
		struct lowlat_latency_device *l = &dev->latency;
		pthread_mutex_lock(&l->lock);
		/* With WAIT_ANY and several semaphores another one may end the wait first: leave it to
		 * the signaler thread. */
		bool single = !(info->flags & VK_SEMAPHORE_WAIT_ANY_BIT) || info->semaphoreCount == 1;
		for (uint32_t s = 0; single && l->book.count && s < info->semaphoreCount; s++) {
			int i = lowlat_owed_for_wait(&l->book, (uint64_t)info->pSemaphores[s],
			                             info->pValues[s]);
			if (i < 0)
				continue;
			int64_t release = l->book.items[i].release_ns, now = lowlat_now_ns();
			int64_t tolerance = l->book.items[i].tolerance_ns;
			/* A timeout before the release: the app is to see it expire, as it would. */
			if (release - now > 0 && timeout < (uint64_t)(release - now))
				continue;
			l->book.items[i].claimed = true;
			pthread_mutex_unlock(&l->lock);
			lowlat_point_sleep_until(release, tolerance);
			pthread_mutex_lock(&l->lock);
			signal_claimed_locked(dev, i);
			/* The item moved or went; the book is scanned again for the next semaphore. */
		}
		pthread_mutex_unlock(&l->lock);
	}
	return below(device, info, timeout);
}

static VKAPI_ATTR VkResult VKAPI_CALL lowlat_WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo *info,
                                                            uint64_t timeout)
{
	return wait_semaphores(device, info, timeout, false);
}

static VKAPI_ATTR VkResult VKAPI_CALL lowlat_WaitSemaphoresKHR(VkDevice device,
                                                               const VkSemaphoreWaitInfo *info,
                                                               uint64_t timeout)
{
	return wait_semaphores(device, info, timeout, true);
}

/* Submits on stack copies up to this many; more (rare) on the heap. Room for each one's copies of
 * the structures in front of the one left out: apps chain it first as a rule (DXVK does), and then
 * nothing is copied at all. */
#define SUBMITS_ON_STACK   8
#define SUBMIT_CHAIN_BYTES 384

/* Which of the submits carry a VkLatencySubmissionPresentIdNV, the one struct of the extension a
 * submit can hold. Cheap when none does: one walk of short chains. */
#define LATENCY_SUBMIT_TYPE VK_STRUCTURE_TYPE_LATENCY_SUBMISSION_PRESENT_ID_NV

#define DEFINE_SUBMIT(Name, Info, Pfn)                                                                       \
	static VKAPI_ATTR VkResult VKAPI_CALL lowlat_##Name(VkQueue queue, uint32_t count,                   \
	                                                    const Info *submits, VkFence fence)              \
	{                                                                                                    \
		struct lowlat_device *dev = lowlat_device_of(queue);                                         \
		Pfn below = dev ? dev->vk.Name : NULL;                                                       \
		bool any = false;                                                                            \
		VkResult result;                                                                             \
                                                                                                             \
		if (!below)                                                                                  \
			return VK_ERROR_DEVICE_LOST;                                                         \
		for (uint32_t i = 0; i < count && !any && dev->latency.mode == LOWLAT_LATENCY_EMULATED; i++) \
			any = lowlat_chain_has(submits[i].pNext, LATENCY_SUBMIT_TYPE);                       \
		if (!any)                                                                                    \
			return below(queue, count, submits, fence);                                          \
		Info stack_infos[SUBMITS_ON_STACK];                                                          \
		_Alignas(16) unsigned char stack_chains[SUBMITS_ON_STACK * SUBMIT_CHAIN_BYTES];              \
		Info *infos = stack_infos;                                                                   \
		struct lowlat_chain_storage chains = {.buffer = stack_chains, .size = sizeof(stack_chains)}; \
		if (count > SUBMITS_ON_STACK) {                                                              \
			infos = malloc(count * sizeof(*infos));                                              \
			chains.buffer = malloc(count * SUBMIT_CHAIN_BYTES);                                  \
			chains.size = count * SUBMIT_CHAIN_BYTES;                                            \
			if (!infos || !chains.buffer) {                                                      \
				free(infos);                                                                 \
				free(chains.buffer);                                                         \
				return VK_ERROR_OUT_OF_HOST_MEMORY;                                          \
			}                                                                                    \
		}                                                                                            \
		for (uint32_t i = 0; i < count; i++) {                                                       \
			const void *chain;                                                                   \
			infos[i] = submits[i];                                                               \
			if (lowlat_chain_without(submits[i].pNext, LATENCY_SUBMIT_TYPE, &chains, &chain))    \
				infos[i].pNext = chain;                                                      \
			else                                                                                 \
				LOWLAT_WARN_ONCE(                                                            \
				        "VK_NV_low_latency2: VkLatencySubmissionPresentIdNV follows "        \
				        "a structure lowlat cannot copy; it reaches the driver");            \
		}                                                                                            \
		result = below(queue, count, infos, fence);                                                  \
		if (infos != stack_infos) {                                                                  \
			free(infos);                                                                         \
			free(chains.buffer);                                                                 \
		}                                                                                            \
		return result;                                                                               \
	}

DEFINE_SUBMIT(QueueSubmit, VkSubmitInfo, PFN_vkQueueSubmit)
DEFINE_SUBMIT(QueueSubmit2, VkSubmitInfo2, PFN_vkQueueSubmit2)
DEFINE_SUBMIT(QueueSubmit2KHR, VkSubmitInfo2, PFN_vkQueueSubmit2)

/* ---- hook tables ---- */

struct latency_hook {
	const char *name;
	PFN_vkVoidFunction function;
	bool emulated_only; /* handed out for emulated devices only: native ones need no help */
};

#define HOOK(name, emulated_only)                                                                            \
	{                                                                                                    \
		"vk" #name, (PFN_vkVoidFunction)(1 ? lowlat_##name : (PFN_vk##name)NULL), emulated_only      \
	}
static const struct latency_hook device_hooks[] = {
        HOOK(SetLatencySleepModeNV, false), HOOK(LatencySleepNV, false),
        HOOK(SetLatencyMarkerNV, true),     HOOK(GetLatencyTimingsNV, true),
        HOOK(QueueNotifyOutOfBandNV, true), HOOK(WaitSemaphores, true),
        HOOK(WaitSemaphoresKHR, true),      HOOK(QueueSubmit, true),
        HOOK(QueueSubmit2, true),           HOOK(QueueSubmit2KHR, true),
};
#undef HOOK

PFN_vkVoidFunction lowlat_latency_device_hook(const char *name, int mode)
{
	if (mode == LOWLAT_LATENCY_OFF)
		return NULL;
	for (size_t i = 0; i < sizeof(device_hooks) / sizeof(device_hooks[0]); i++)
		if (!strcmp(device_hooks[i].name, name))
			return mode == LOWLAT_LATENCY_EMULATED || mode < 0 || !device_hooks[i].emulated_only
			               ? device_hooks[i].function
			               : NULL;
	return NULL;
}

bool lowlat_latency_provides(const char *name)
{
	static const char *const commands[] = {"vkSetLatencySleepModeNV", "vkLatencySleepNV",
	                                       "vkSetLatencyMarkerNV", "vkGetLatencyTimingsNV",
	                                       "vkQueueNotifyOutOfBandNV"};
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i]))
			return true;
	return false;
}

PFN_vkVoidFunction lowlat_latency_instance_hook(const char *name)
{
	if (!strcmp(name, "vkEnumerateDeviceExtensionProperties"))
		return (PFN_vkVoidFunction)(1 ? lowlat_EnumerateDeviceExtensionProperties
		                              : (PFN_vkEnumerateDeviceExtensionProperties)NULL);
	if (!strcmp(name, "vkGetPhysicalDeviceSurfaceCapabilities2KHR"))
		return (PFN_vkVoidFunction)(1 ? lowlat_GetPhysicalDeviceSurfaceCapabilities2KHR
		                              : (PFN_vkGetPhysicalDeviceSurfaceCapabilities2KHR)NULL);
	return NULL;
}

#endif
