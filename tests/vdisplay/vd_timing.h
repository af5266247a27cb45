/* vd_timing.h — VK_EXT_present_timing's results queue of one swapchain: a slot per present that
 * asked for stage times, filled by the display's events, emptied by vkGetPastPresentationTimingEXT.
 * Called under the swapchain lock. Times are kept in CLOCK_MONOTONIC ns and converted to the
 * profile's stage clocks when reported (struct vd_timing_clocks). */
#ifndef VD_TIMING_H
#define VD_TIMING_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "scanout.h"

#define VD_TIMING_STAGES                                                                                     \
	4 /* QUEUE_OPERATIONS_END, REQUEST_DEQUEUED, FIRST_PIXEL_OUT, FIRST_PIXEL_VISIBLE                    \
	   */
#define VD_TIMING_ALL_STAGES                                                                                 \
	(VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT | VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT |         \
	 VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT |                                                    \
	 VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT)

struct vd_timing_record {
	uint64_t seq, present_id, target_time;
	VkPresentStageFlagsEXT queried, known;
	VkTimeDomainKHR domain; /* the domain the present named, which its results are reported in */
	uint64_t domain_id;
	int64_t time[VD_TIMING_STAGES]; /* CLOCK_MONOTONIC, by stage bit index; 0: did not happen */
};

/* How a swapchain reports its results: the stages its presentation engine supports (a stage asked
 * for and not supported is reported as 0, as Mesa does), whether it honours
 * VK_PAST_PRESENTATION_TIMING_ALLOW_PARTIAL_RESULTS_BIT_EXT, and its stage clocks. */
struct vd_timing_clocks {
	VkPresentStageFlagsEXT supported;
	bool partial;
	int64_t (*to_stage)(const void *user, uint32_t stage, int64_t monotonic_ns);
	const void *user;
};

struct vd_timing_queue {
	uint32_t size;                    /* slots, from vkSetSwapchainPresentTimingQueueSizeEXT */
	uint32_t count;                   /* outstanding: queued or complete but not yet collected */
	struct vd_timing_record *records; /* `size` entries, oldest first */
};

/* VK_SUCCESS, VK_NOT_READY (fewer slots than outstanding results) or VK_ERROR_OUT_OF_HOST_MEMORY. */
VkResult vd_timing_resize(struct vd_timing_queue *q, uint32_t size);
bool vd_timing_full(const struct vd_timing_queue *q);
void vd_timing_add(struct vd_timing_queue *q, uint64_t seq, uint64_t present_id, uint64_t target_time,
                   VkPresentStageFlagsEXT queried, VkTimeDomainKHR domain, uint64_t domain_id);
/* Frees the slot of a present that failed (a slot left in place never completes). */
void vd_timing_cancel(struct vd_timing_queue *q, uint64_t seq);
/* Records when the queue operations of present seq ended, once that time has passed: a partial
 * result (VK_PAST_PRESENTATION_TIMING_ALLOW_PARTIAL_RESULTS_BIT_EXT) shows it before the present
 * reaches the screen. */
void vd_timing_queue_done(struct vd_timing_queue *q, uint64_t seq, int64_t ready_ns);
/* Records the stage times a display event tells. */
void vd_timing_event(struct vd_timing_queue *q, const struct vd_event *ev);
/* vkGetPastPresentationTimingEXT on this queue (the counters are the caller's). */
VkResult vd_timing_collect(struct vd_timing_queue *q, const struct vd_timing_clocks *clocks,
                           VkPastPresentationTimingFlagsEXT flags,
                           VkPastPresentationTimingPropertiesEXT *props);
void vd_timing_fini(struct vd_timing_queue *q);

#endif
