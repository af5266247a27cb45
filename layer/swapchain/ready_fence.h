/* ready_fence.h — when the GPU finished a frame, for the "drm" level, which has no display reports.
 *
 * Just before a frame's present goes down, lowlat makes an empty vkQueueSubmit with a fence on the
 * present's queue. A fence signal operation of vkQueueSubmit includes "all commands that occur
 * earlier in submission order" in its first synchronization scope (the spec, Fences), so the fence
 * signals once everything the app submitted to that queue before the present is done: the frame's
 * rendering, where the app renders on the queue it presents on. (A frame rendered on another queue
 * reads as done early: no worse than not knowing.) The present's own wait for the release waits on
 * the fence first, so the time it signalled is read without a thread.
 *
 * Fences are created on first use, a few per swapchain: one submitted per present, reused once seen
 * signalled. Used only inside the app's calls on the swapchain, which it externally synchronises;
 * the queue too is the app's to hold for the present.
 */
#ifndef LOWLAT_READY_FENCE_H
#define LOWLAT_READY_FENCE_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

struct lowlat_device;

/* Fences per swapchain: frames whose fence is not yet seen signalled, plus the one being presented.
 * A present that finds all of them pending (a GPU more than three frames behind) goes without. */
#define LOWLAT_READY_FENCES 4

struct lowlat_ready_fences {
	VkFence fence[LOWLAT_READY_FENCES];
	bool pending[LOWLAT_READY_FENCES]; /* submitted and not yet seen signalled */
	int current;                       /* the slot of the present in progress, -1: none */
	uint32_t next;
	bool broken; /* a call failed: no fences on this swapchain from then on */
};

/* What the wait saw of the current present's fence. */
enum lowlat_ready_seen {
	LOWLAT_READY_NONE,   /* no fence went down with this present */
	LOWLAT_READY_BEFORE, /* signalled before the wait began, at *ready_ns: done by then */
	LOWLAT_READY_AT,     /* signalled during the wait: done at *ready_ns */
	LOWLAT_READY_AFTER,  /* not signalled by the deadline, *ready_ns: not done by then */
};

void lowlat_ready_fences_init(struct lowlat_ready_fences *rf);

/* The present's fence, submitted on queue; false when none went down (every fence pending, or a
 * call failed: said once, naming the swapchain by what). */
bool lowlat_ready_fence_submit(struct lowlat_device *dev, VkQueue queue, struct lowlat_ready_fences *rf,
                               const char *what);

/* Waits for the present's fence until deadline_ns (CLOCK_MONOTONIC) at most; *ready_ns is when
 * the wait saw what it returns. */
enum lowlat_ready_seen lowlat_ready_fence_wait(struct lowlat_device *dev, struct lowlat_ready_fences *rf,
                                               int64_t deadline_ns, int64_t *ready_ns);

/* Destroys the fences, after waiting a short while for those still pending (a fence in use may not
 * be destroyed; one that never signals, a lost device's, is left to the driver). */
void lowlat_ready_fences_fini(struct lowlat_device *dev, struct lowlat_ready_fences *rf);

#endif
