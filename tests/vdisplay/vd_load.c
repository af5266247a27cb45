/* vd_load.c — LOWLAT_VDISPLAY_GPU_FILL=MB: GPU work the CPU does not see. Each of the app's
 * vkQueueSubmit calls gets one more command buffer at the end of its last batch that has any, a
 * vkCmdFillBuffer of MB mebibytes, so the batch's signal semaphores and fence (and so the frame's
 * ready time, and every later fence on the queue) come that much later, while the app's submit
 * call returns as soon as it would. lavapipe executes a queue's work on threads of its own: there
 * 96 MiB put 5-6 ms between the present call and ready, against 1.4 ms without (2026-12-06).
 * Only vkQueueSubmit (vkcube's; vkQueueSubmit2 passes through untouched), and only batches of up to
 * VD_LOAD_MAX_COMMANDS command buffers. The buffer is written by overlapping submissions: its
 * contents are never read, and the validation layers sit above the display, not seeing it.
 */
#include <stdlib.h>
#include <string.h>

#include "vd_layer.h"

#define VD_LOAD_MAX_MIB      1024
#define VD_LOAD_MAX_COMMANDS 64
#define VD_LOAD_MAX_BATCHES  64

void vd_load_init(struct vd_device *dev)
{
	const char *text = getenv("LOWLAT_VDISPLAY_GPU_FILL");
	char *end;

	memset(&dev->load, 0, sizeof(dev->load));
	pthread_mutex_init(&dev->load.lock, NULL);
	if (!text || !*text)
		return;
	long mib = strtol(text, &end, 10);
	if (*end || mib < 1 || mib > VD_LOAD_MAX_MIB) {
		vd_msg("LOWLAT_VDISPLAY_GPU_FILL=%s is not a size in MiB (1..%d); no GPU load added", text,
		       VD_LOAD_MAX_MIB);
		return;
	}
	dev->load.bytes = (VkDeviceSize)mib << 20;
}

/* The fill's buffer and memory, made once for the device. */
static VkResult make_buffer(struct vd_device *dev)
{
	struct vd_load *l = &dev->load;
	const VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	                               .size = l->bytes,
	                               .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                               .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
	VkMemoryRequirements req;
	VkResult r;

	if ((r = dev->vk.CreateBuffer(dev->handle, &bi, NULL, &l->buffer)) != VK_SUCCESS)
		return r;
	dev->vk.GetBufferMemoryRequirements(dev->handle, l->buffer, &req);
	const VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                                 .allocationSize = req.size,
	                                 .memoryTypeIndex = vd_memory_type(dev, req.memoryTypeBits)};
	if (ai.memoryTypeIndex == UINT32_MAX)
		return VK_ERROR_OUT_OF_DEVICE_MEMORY;
	if ((r = dev->vk.AllocateMemory(dev->handle, &ai, NULL, &l->memory)) != VK_SUCCESS)
		return r;
	return dev->vk.BindBufferMemory(dev->handle, l->buffer, l->memory, 0);
}

/* The fill, recorded once for each queue family, submitted as often as the app submits. */
static VkResult make_commands(struct vd_device *dev, struct vd_load_family *f, uint32_t family)
{
	const VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                    .queueFamilyIndex = family};
	const VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                        .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT};
	VkResult r;

	if ((r = dev->vk.CreateCommandPool(dev->handle, &pi, NULL, &f->pool)) != VK_SUCCESS)
		return r;
	const VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                        .commandPool = f->pool,
	                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                        .commandBufferCount = 1};
	if ((r = dev->vk.AllocateCommandBuffers(dev->handle, &ai, &f->commands)) != VK_SUCCESS)
		return r;
	if ((r = dev->vk.BeginCommandBuffer(f->commands, &begin)) != VK_SUCCESS)
		return r;
	dev->vk.CmdFillBuffer(f->commands, dev->load.buffer, 0, VK_WHOLE_SIZE, 0x6c6f6164);
	return dev->vk.EndCommandBuffer(f->commands);
}

/* The family's fill, NULL when there is none (no load asked for, or making it failed: said once). */
static VkCommandBuffer fill_for(struct vd_device *dev, uint32_t family)
{
	struct vd_load *l = &dev->load;
	VkCommandBuffer cb = VK_NULL_HANDLE;
	VkResult r = VK_SUCCESS;

	if (!l->bytes || family >= VD_LOAD_FAMILIES)
		return VK_NULL_HANDLE;
	pthread_mutex_lock(&l->lock);
	if (!l->failed && !l->buffer)
		r = make_buffer(dev);
	if (!l->failed && r == VK_SUCCESS && !l->family[family].commands)
		r = make_commands(dev, &l->family[family], family);
	if (r != VK_SUCCESS && !l->failed) {
		l->failed = true;
		vd_msg("LOWLAT_VDISPLAY_GPU_FILL: making the fill failed (%d); no GPU load added", r);
	}
	if (!l->failed)
		cb = l->family[family].commands;
	pthread_mutex_unlock(&l->lock);
	return cb;
}

VKAPI_ATTR VkResult VKAPI_CALL vd_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                              VkFence fence)
{
	struct vd_device *dev = vd_device_of(queue);
	VkSubmitInfo batches[VD_LOAD_MAX_BATCHES];
	VkCommandBuffer commands[VD_LOAD_MAX_COMMANDS + 1];
	int last = -1;

	for (uint32_t i = 0; i < count && count <= VD_LOAD_MAX_BATCHES; i++)
		if (submits[i].commandBufferCount)
			last = (int)i;
	VkCommandBuffer fill = last >= 0 && submits[last].commandBufferCount <= VD_LOAD_MAX_COMMANDS
	                               ? fill_for(dev, vd_queue_family(dev, queue))
	                               : VK_NULL_HANDLE;
	if (!fill)
		return dev->vk.QueueSubmit(queue, count, submits, fence);
	memcpy(batches, submits, count * sizeof(*submits));
	memcpy(commands, submits[last].pCommandBuffers, submits[last].commandBufferCount * sizeof(*commands));
	commands[submits[last].commandBufferCount] = fill;
	batches[last].commandBufferCount++;
	batches[last].pCommandBuffers = commands;
	return dev->vk.QueueSubmit(queue, count, batches, fence);
}

void vd_load_fini(struct vd_device *dev)
{
	struct vd_load *l = &dev->load;

	for (uint32_t i = 0; i < VD_LOAD_FAMILIES; i++)
		if (l->family[i].pool)
			dev->vk.DestroyCommandPool(dev->handle, l->family[i].pool, NULL);
	if (l->buffer)
		dev->vk.DestroyBuffer(dev->handle, l->buffer, NULL);
	if (l->memory)
		dev->vk.FreeMemory(dev->handle, l->memory, NULL);
	pthread_mutex_destroy(&l->lock);
}
