/* latency_device.h — what a device keeps for VK_NV_low_latency2 and anti-lag (latency_sleep.h): the
 * mode, the book of owed signals and the signaler thread. Part of struct lowlat_device (objects.h).
 */
#ifndef LOWLAT_LATENCY_DEVICE_H
#define LOWLAT_LATENCY_DEVICE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "latency_book.h"

enum lowlat_latency_mode {
	LOWLAT_LATENCY_OFF,
	LOWLAT_LATENCY_EMULATED,
	LOWLAT_LATENCY_NATIVE,
};

/* Per device. The lock guards the book, the thread's state and every swapchain's latency state; no
 * other lock is taken while holding it, and it is never held while sleeping or calling down. */
struct lowlat_latency_device {
	enum lowlat_latency_mode mode;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* the book changed, or the thread is to stop; CLOCK_MONOTONIC */
	struct lowlat_owed_book book;
	bool thread_started, stop;
	pthread_t thread;
	/* VK_AMD_anti_lag enabled by the app and offered below (anti_lag.c), and the swapchain its
	 * input-stage calls pace: the device's busiest (its anti-lag data names none). */
	bool anti_lag;
	uint64_t anti_lag_swapchain;
	/* vkSignalSemaphore/vkWaitSemaphores/vkGetSemaphoreCounterValue below, core or KHR names. */
	PFN_vkSignalSemaphore signal;
	PFN_vkWaitSemaphores wait;
	PFN_vkGetSemaphoreCounterValue counter;
};

#endif
