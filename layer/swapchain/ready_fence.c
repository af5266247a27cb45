/* ready_fence.c — when the GPU finished a frame: an empty submit's fence (see ready_fence.h). */
#include "ready_fence.h"

#include "clock.h"
#include "message.h"
#include "objects.h"

/* How long teardown waits for pending fences: the app destroys a swapchain after its frames are
 * done as a rule (vkDeviceWaitIdle), so this is only for one that did not. */
#define FINI_WAIT_NS 100000000ull /* 100 ms */

void lowlat_ready_fences_init(struct lowlat_ready_fences *rf)
{
	*rf = (struct lowlat_ready_fences){.current = -1};
}

static void give_up(struct lowlat_ready_fences *rf, const char *what, const char *call, VkResult r)
{
	rf->broken = true;
	rf->current = -1;
	LOWLAT_INFO("%s: %s failed (%d): lowlat no longer reads when its frames finish on the GPU, and "
	            "allows a fixed margin for that work instead",
	            what, call, (int)r);
}

/* A slot whose fence may go down again: never created, or seen signalled (then reset). -1: none. */
static int free_slot(struct lowlat_device *dev, struct lowlat_ready_fences *rf, const char *what)
{
	for (uint32_t k = 0; k < LOWLAT_READY_FENCES; k++) {
		uint32_t i = (rf->next + k) % LOWLAT_READY_FENCES;
		VkResult r;

		if (!rf->fence[i]) {
			const VkFenceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
			r = dev->vk.CreateFence(dev->handle, &info, NULL, &rf->fence[i]);
			if (r != VK_SUCCESS) {
				rf->fence[i] = VK_NULL_HANDLE;
				give_up(rf, what, "vkCreateFence", r);
				return -1;
			}
			return (int)i;
		}
		if (!rf->pending[i])
			return (int)i;
		r = dev->vk.GetFenceStatus(dev->handle, rf->fence[i]);
		if (r == VK_NOT_READY)
			continue;
		if (r == VK_SUCCESS)
			r = dev->vk.ResetFences(dev->handle, 1, &rf->fence[i]);
		if (r != VK_SUCCESS) {
			give_up(rf, what, "reusing a fence", r);
			return -1;
		}
		rf->pending[i] = false;
		return (int)i;
	}
	return -1;
}

bool lowlat_ready_fence_submit(struct lowlat_device *dev, VkQueue queue, struct lowlat_ready_fences *rf,
                               const char *what)
{
	int i;

	rf->current = -1;
	if (!dev->vk.CreateFence || !dev->vk.DestroyFence || !dev->vk.ResetFences ||
	    !dev->vk.GetFenceStatus || !dev->vk.WaitForFences)
		rf->broken = true; /* core 1.0: a layer below that lacks them hides them on purpose */
	if (rf->broken || (i = free_slot(dev, rf, what)) < 0)
		return false;
	/* No batch: the fence alone, signalled when the work submitted before it is done. */
	VkResult r = dev->vk.QueueSubmit(queue, 0, NULL, rf->fence[i]);
	if (r != VK_SUCCESS) {
		give_up(rf, what, "vkQueueSubmit", r);
		return false;
	}
	rf->pending[i] = true;
	rf->current = i;
	rf->next = (uint32_t)(i + 1) % LOWLAT_READY_FENCES;
	return true;
}

enum lowlat_ready_seen lowlat_ready_fence_wait(struct lowlat_device *dev, struct lowlat_ready_fences *rf,
                                               int64_t deadline_ns, int64_t *ready_ns)
{
	int i = rf->current;
	int64_t now_ns = lowlat_now_ns();
	VkResult r;

	rf->current = -1;
	*ready_ns = now_ns;
	if (i < 0)
		return LOWLAT_READY_NONE;
	r = dev->vk.GetFenceStatus(dev->handle, rf->fence[i]);
	if (r == VK_SUCCESS)
		return LOWLAT_READY_BEFORE;
	if (r != VK_NOT_READY || deadline_ns <= now_ns)
		return r == VK_NOT_READY ? LOWLAT_READY_AFTER : LOWLAT_READY_NONE;
	if (deadline_ns - now_ns > LOWLAT_MAX_WAIT_NS)
		deadline_ns = now_ns + LOWLAT_MAX_WAIT_NS;
	r = dev->vk.WaitForFences(dev->handle, 1, &rf->fence[i], VK_TRUE, (uint64_t)(deadline_ns - now_ns));
	*ready_ns = lowlat_now_ns();
	if (r == VK_SUCCESS)
		return LOWLAT_READY_AT;
	return r == VK_TIMEOUT ? LOWLAT_READY_AFTER : LOWLAT_READY_NONE;
}

void lowlat_ready_fences_fini(struct lowlat_device *dev, struct lowlat_ready_fences *rf)
{
	for (uint32_t i = 0; i < LOWLAT_READY_FENCES; i++) {
		if (!rf->fence[i])
			continue;
		if (rf->pending[i] && dev->vk.WaitForFences(dev->handle, 1, &rf->fence[i], VK_TRUE,
		                                            FINI_WAIT_NS) != VK_SUCCESS) {
			LOWLAT_DEBUG(
			        "a fence of lowlat's never signalled (a lost device?); left to the driver");
			continue;
		}
		dev->vk.DestroyFence(dev->handle, rf->fence[i], NULL);
	}
	lowlat_ready_fences_init(rf);
}
