/* vd_latency.c — VK_NV_low_latency2 of a driver profile that offers it; see vd_latency.h.
 *
 * Lock order: the device's latency lock is a leaf, but for a swapchain's own lock taken inside it
 * (the sleep reads and writes the swapchain's latency state there). The signaler thread calls the
 * driver's vkSignalSemaphore with no lock held.
 */
#include "vd_latency.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vd_swapchain.h"

/* Sleeps whose signal is owed, at most this many at once: an app sleeps once a frame, so a handful
 * are ever pending; a full list signals the new one at once rather than losing it. */
#define PENDING_MAX 32

struct vd_latency {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC: a signal was added, or stop */
	pthread_t thread;
	bool stop;
	PFN_vkSignalSemaphore signal;
	struct pending {
		VkSemaphore semaphore;
		uint64_t value;
		int64_t at_ns;
	} pending[PENDING_MAX];
	uint32_t count;
};

static void signal_now(struct vd_device *dev, VkSemaphore semaphore, uint64_t value)
{
	const VkSemaphoreSignalInfo info = {
	        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, .semaphore = semaphore, .value = value};

	if (dev->latency->signal(dev->handle, &info) != VK_SUCCESS)
		vd_msg("VK_NV_low_latency2: vkSignalSemaphore failed; an app waiting for its sleep waits on");
}

/* Signals each owed value when its time comes, earliest first. */
static void *signaler_main(void *arg)
{
	struct vd_device *dev = arg;
	struct vd_latency *l = dev->latency;

	pthread_mutex_lock(&l->lock);
	while (!l->stop) {
		uint32_t first = 0;
		for (uint32_t i = 1; i < l->count; i++)
			if (l->pending[i].at_ns < l->pending[first].at_ns)
				first = i;
		if (!l->count) {
			pthread_cond_wait(&l->cond, &l->lock);
			continue;
		}
		if (l->pending[first].at_ns > vd_now_ns()) {
			struct timespec ts;
			vd_abs_timespec(l->pending[first].at_ns, &ts);
			pthread_cond_timedwait(&l->cond, &l->lock, &ts);
			continue;
		}
		struct pending p = l->pending[first];
		l->pending[first] = l->pending[--l->count];
		pthread_mutex_unlock(&l->lock);
		signal_now(dev, p.semaphore, p.value);
		pthread_mutex_lock(&l->lock);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

bool vd_latency_init(struct vd_device *dev)
{
	struct vd_latency *l = calloc(1, sizeof(*l));
	pthread_condattr_t attr;

	if (!l)
		return false;
	l->signal = dev->vk.SignalSemaphore;
	if (!l->signal) {
		vd_msg("VK_NV_low_latency2: the driver has no vkSignalSemaphore; the display cannot offer "
		       "it");
		free(l);
		return false;
	}
	pthread_mutex_init(&l->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&l->cond, &attr);
	pthread_condattr_destroy(&attr);
	dev->latency = l;
	if (pthread_create(&l->thread, NULL, signaler_main, dev)) {
		pthread_cond_destroy(&l->cond);
		pthread_mutex_destroy(&l->lock);
		dev->latency = NULL;
		free(l);
		return false;
	}
	return true;
}

void vd_latency_fini(struct vd_device *dev)
{
	struct vd_latency *l = dev->latency;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	/* Signals still owed go now: an app waiting for one would otherwise wait for ever. */
	for (uint32_t i = 0; i < l->count; i++)
		signal_now(dev, l->pending[i].semaphore, l->pending[i].value);
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
	free(l);
	dev->latency = NULL;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_SetLatencySleepModeNV(VkDevice device, VkSwapchainKHR swapchain,
                                                        const VkLatencySleepModeInfoNV *info)
{
	struct vd_device *dev = vd_device_of(device);
	struct vd_swapchain *sc = dev ? vd_swapchain_of(dev, swapchain) : NULL;

	if (!sc)
		return VK_ERROR_INITIALIZATION_FAILED;
	pthread_mutex_lock(&sc->lock);
	/* A NULL info turns low latency mode off, as the spec's default. */
	sc->latency.mode = info && info->lowLatencyMode;
	sc->latency.interval_us = info ? info->minimumIntervalUs : 0;
	pthread_mutex_unlock(&sc->lock);
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_LatencySleepNV(VkDevice device, VkSwapchainKHR swapchain,
                                                 const VkLatencySleepInfoNV *info)
{
	struct vd_device *dev = vd_device_of(device);
	struct vd_swapchain *sc = dev ? vd_swapchain_of(dev, swapchain) : NULL;
	int64_t now = vd_now_ns(), end = now;

	if (!sc || !dev->latency)
		return VK_ERROR_UNKNOWN;
	pthread_mutex_lock(&sc->lock);
	if (sc->latency.mode && sc->latency.interval_us) {
		int64_t earliest = sc->latency.last_end_ns + (int64_t)sc->latency.interval_us * 1000;
		end = earliest > now ? earliest : now;
	}
	sc->latency.last_end_ns = end;
	pthread_mutex_unlock(&sc->lock);

	struct vd_latency *l = dev->latency;
	pthread_mutex_lock(&l->lock);
	bool queued = end > now && l->count < PENDING_MAX;
	if (queued) {
		l->pending[l->count++] = (struct pending){info->signalSemaphore, info->value, end};
		pthread_cond_broadcast(&l->cond);
	}
	pthread_mutex_unlock(&l->lock);
	/* Returns at once, as the spec says: the signal comes at the sleep's end. */
	if (!queued)
		signal_now(dev, info->signalSemaphore, info->value);
	return VK_SUCCESS;
}

/* The swapchain's record for a present id: the one it has, else the oldest, reused. */
static struct vd_latency_frame *frame_of(struct vd_latency_swapchain *l, uint64_t present_id)
{
	for (uint32_t i = 0; i < VD_LATENCY_FRAMES; i++)
		if (l->frames[i].present_id == present_id)
			return &l->frames[i];
	struct vd_latency_frame *f = &l->frames[l->next_frame];
	l->next_frame = (l->next_frame + 1) % VD_LATENCY_FRAMES;
	*f = (struct vd_latency_frame){.present_id = present_id};
	return f;
}

VKAPI_ATTR void VKAPI_CALL vd_SetLatencyMarkerNV(VkDevice device, VkSwapchainKHR swapchain,
                                                 const VkSetLatencyMarkerInfoNV *info)
{
	struct vd_device *dev = vd_device_of(device);
	struct vd_swapchain *sc = dev ? vd_swapchain_of(dev, swapchain) : NULL;

	if (!sc || !info || info->marker > VK_LATENCY_MARKER_OUT_OF_BAND_PRESENT_END_NV)
		return;
	pthread_mutex_lock(&sc->lock);
	frame_of(&sc->latency, info->presentID)->us[info->marker] = (uint64_t)vd_now_ns() / 1000;
	pthread_mutex_unlock(&sc->lock);
}

VKAPI_ATTR void VKAPI_CALL vd_GetLatencyTimingsNV(VkDevice device, VkSwapchainKHR swapchain,
                                                  VkGetLatencyMarkerInfoNV *info)
{
	struct vd_device *dev = vd_device_of(device);
	struct vd_swapchain *sc = dev ? vd_swapchain_of(dev, swapchain) : NULL;
	uint32_t n = 0;

	if (!sc) {
		info->timingCount = 0;
		return;
	}
	pthread_mutex_lock(&sc->lock);
	for (uint32_t i = 0; i < VD_LATENCY_FRAMES; i++) {
		const struct vd_latency_frame *f = &sc->latency.frames[i];
		if (!f->present_id)
			continue;
		if (info->pTimings && n < info->timingCount) {
			VkLatencyTimingsFrameReportNV *r = &info->pTimings[n];
			*r = (VkLatencyTimingsFrameReportNV){
			        .sType = r->sType, .pNext = r->pNext, .presentID = f->present_id};
			r->inputSampleTimeUs = f->us[VK_LATENCY_MARKER_INPUT_SAMPLE_NV];
			r->simStartTimeUs = f->us[VK_LATENCY_MARKER_SIMULATION_START_NV];
			r->simEndTimeUs = f->us[VK_LATENCY_MARKER_SIMULATION_END_NV];
			r->renderSubmitStartTimeUs = f->us[VK_LATENCY_MARKER_RENDERSUBMIT_START_NV];
			r->renderSubmitEndTimeUs = f->us[VK_LATENCY_MARKER_RENDERSUBMIT_END_NV];
			r->presentStartTimeUs = f->us[VK_LATENCY_MARKER_PRESENT_START_NV];
			r->presentEndTimeUs = f->us[VK_LATENCY_MARKER_PRESENT_END_NV];
		}
		n++;
	}
	pthread_mutex_unlock(&sc->lock);
	if (!info->pTimings || n < info->timingCount)
		info->timingCount = n;
}

VKAPI_ATTR void VKAPI_CALL vd_QueueNotifyOutOfBandNV(VkQueue queue, const VkOutOfBandQueueTypeInfoNV *info)
{
	/* The display does not schedule queues: nothing to note. */
	(void)queue;
	(void)info;
}
