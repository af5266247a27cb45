/* frame_cost — a game loop with a known cost per frame, for measuring input-to-first-pixel latency.
 *
 *   frame_cost --frames N --cost-us C [--jitter-pct J] [--mode fifo|mailbox|...] [--seed S]
 *              [--start-delay-us D] [--stall-every K --stall-us U] [--headless] --csv FILE
 *
 * Each frame: note the frame start (the moment the app is released to begin a frame: the return of
 * its previous vkQueuePresentKHR, or of vkAcquireNextImageKHR's wait for a free image), then do the
 * frame's work, then acquire, clear, submit and present. The work is a CPU busy loop of C µs
 * (uniformly ±J% when jitter is asked for): it stands for input sampling, simulation and command
 * recording, and its length is what the pacer has to predict. The image's GPU work is a clear,
 * a few µs on lavapipe. Run on the virtual display (tests/vdisplay), whose truth log says when each
 * present's first pixel went out: latency = that time - this app's frame start, joined by present
 * order (the display's seq counts one swapchain's presents from 1).
 *
 * The CSV: frame,start_ns,work_ns,acquired_ns,present_ns (CLOCK_MONOTONIC; acquired_ns: when
 * vkAcquireNextImageKHR returned). --start-delay-us sleeps before the
 * first frame, so a limiter that is blind to the display starts at a different phase of the refresh
 * each run. --stall-every K adds U µs to the work of every K-th frame (frames K, 2K, ...): a stall
 * at a known frame, for tests of what lowlat does after a frame that missed its refresh. --headless
 * presents to a VK_EXT_headless_surface instead of an X window (the virtual display makes such
 * surfaces itself, so no X server is needed, nor a driver that can present to one). Exit 0
 * when every frame was presented, 1 otherwise (with the reason on stderr).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#define NS_PER_US 1000ll
#define IN_FLIGHT 2 /* command buffers and fences: frames the CPU may run ahead of the GPU */

/* The frame's work: spin until start + ns. A spin, not a sleep, so the cost is what was asked for
 * whatever the scheduler's wake-up latency. */
static void work_until(int64_t end_ns)
{
	while (now_ns() < end_ns)
		;
}

static uint32_t next_random(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*state >> 33);
}

struct options {
	unsigned frames;
	int64_t cost_ns, start_delay_ns, stall_ns;
	unsigned jitter_pct, stall_every;
	uint64_t seed;
	VkPresentModeKHR mode;
	const char *csv;
	bool headless;
};

static int usage(const char *why)
{
	fprintf(stderr,
	        "frame_cost: %s\nusage: frame_cost --frames N --cost-us C [--jitter-pct J] "
	        "[--mode fifo|fifo_relaxed|mailbox|immediate|fifo_latest_ready] [--seed S] "
	        "[--start-delay-us D] [--stall-every K --stall-us U] [--headless] --csv FILE\n",
	        why);
	return 2;
}

static bool parse_mode(const char *s, VkPresentModeKHR *mode)
{
	static const struct {
		const char *name;
		VkPresentModeKHR mode;
	} modes[] = {
	        {"fifo", VK_PRESENT_MODE_FIFO_KHR},
	        {"fifo_relaxed", VK_PRESENT_MODE_FIFO_RELAXED_KHR},
	        {"mailbox", VK_PRESENT_MODE_MAILBOX_KHR},
	        {"immediate", VK_PRESENT_MODE_IMMEDIATE_KHR},
	        {"fifo_latest_ready", VK_PRESENT_MODE_FIFO_LATEST_READY_KHR},
	};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(s, modes[i].name)) {
			*mode = modes[i].mode;
			return true;
		}
	return false;
}

static int parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){.mode = VK_PRESENT_MODE_FIFO_KHR, .seed = 1};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;

		if (!strcmp(a, "--headless")) {
			o->headless = true;
			continue;
		}

		if (!v)
			return usage("an option lacks its value");
		i++;
		if (!strcmp(a, "--frames"))
			o->frames = (unsigned)strtoul(v, &end, 10);
		else if (!strcmp(a, "--cost-us"))
			o->cost_ns = (int64_t)(strtod(v, &end) * NS_PER_US);
		else if (!strcmp(a, "--jitter-pct"))
			o->jitter_pct = (unsigned)strtoul(v, &end, 10);
		else if (!strcmp(a, "--seed"))
			o->seed = strtoull(v, &end, 10);
		else if (!strcmp(a, "--stall-every"))
			o->stall_every = (unsigned)strtoul(v, &end, 10);
		else if (!strcmp(a, "--stall-us"))
			o->stall_ns = (int64_t)(strtod(v, &end) * NS_PER_US);
		else if (!strcmp(a, "--start-delay-us"))
			o->start_delay_ns = (int64_t)(strtod(v, &end) * NS_PER_US);
		else if (!strcmp(a, "--csv"))
			o->csv = v, end = (char *)"";
		else if (!strcmp(a, "--mode")) {
			if (!parse_mode(v, &o->mode))
				return usage("unknown --mode");
			end = (char *)"";
		} else
			return usage("unknown option");
		if (!end || *end)
			return usage("a value is not a number");
	}
	if (!o->frames || !o->csv || o->cost_ns < 0 || o->jitter_pct > 100 || o->stall_ns < 0)
		return usage("--frames, --csv and a --cost-us >= 0 are required; --jitter-pct is 0..100, "
		             "--stall-us >= 0");
	return 0;
}

#define TRY(call)                                                                                            \
	do {                                                                                                 \
		VkResult r_ = (call);                                                                        \
		if (r_ < 0) {                                                                                \
			fprintf(stderr, "frame_cost: %s: %s\n", #call, result_name(r_));                     \
			return 1;                                                                            \
		}                                                                                            \
	} while (0)

int main(int argc, char **argv)
{
	struct options o;
	struct xdisplay *x = NULL;
	xcb_window_t window = 0;
	VkInstance instance;
	VkSurfaceKHR surface;
	VkPhysicalDevice physical;
	uint32_t family, image_count = 0;
	VkDevice device;
	VkQueue queue;
	VkSwapchainKHR swapchain;
	VkExtent2D extent;
	VkImage images[16];
	VkCommandPool pool;
	VkCommandBuffer cmds[IN_FLIGHT];
	VkFence fences[IN_FLIGHT];
	VkSemaphore acquired[IN_FLIGHT], rendered[16];
	int64_t *start, *work, *acquired_at, *presented;
	int rc;

	if ((rc = parse(argc, argv, &o)))
		return rc;
	start = calloc(o.frames, sizeof(*start));
	work = calloc(o.frames, sizeof(*work));
	acquired_at = calloc(o.frames, sizeof(*acquired_at));
	presented = calloc(o.frames, sizeof(*presented));
	if (!start || !work || !acquired_at || !presented)
		return 1;
	if (o.headless) {
		TRY(instance_create_headless("frame_cost", NULL, &instance));
		TRY(surface_create_headless(instance, NULL, &surface));
	} else {
		if (!(x = xdisplay_open()) || !(window = xdisplay_create_window(x, 256, 256)))
			return 1;
		TRY(instance_create("frame_cost", NULL, &instance));
		TRY(surface_create(instance, x, window, NULL, &surface));
	}
	TRY(physical_device_pick(instance, surface, &physical, &family));
	TRY(device_create(physical, family, NULL, &device));
	vkGetDeviceQueue(device, family, 0, &queue);
	TRY(swapchain_create(
	        device,
	        &(struct swapchain_params){
	                .physical = physical, .surface = surface, .window_size = {256, 256}, .mode = o.mode},
	        NULL, &swapchain, &extent));
	image_count = sizeof(images) / sizeof(images[0]);
	TRY(vkGetSwapchainImagesKHR(device, swapchain, &image_count, images));
	TRY(vkCreateCommandPool(
	        device,
	        &(VkCommandPoolCreateInfo){.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	                                   .queueFamilyIndex = family},
	        NULL, &pool));
	TRY(vkAllocateCommandBuffers(
	        device,
	        &(VkCommandBufferAllocateInfo){.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                       .commandPool = pool,
	                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                       .commandBufferCount = IN_FLIGHT},
	        cmds));
	for (unsigned i = 0; i < IN_FLIGHT; i++) {
		TRY(vkCreateFence(device,
		                  &(VkFenceCreateInfo){.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
		                                       .flags = VK_FENCE_CREATE_SIGNALED_BIT},
		                  NULL, &fences[i]));
		TRY(vkCreateSemaphore(
		        device, &(VkSemaphoreCreateInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO},
		        NULL, &acquired[i]));
	}
	/* One per image: a present's wait semaphore may be reused only once that image is acquired again. */
	for (unsigned i = 0; i < image_count; i++)
		TRY(vkCreateSemaphore(
		        device, &(VkSemaphoreCreateInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO},
		        NULL, &rendered[i]));

	if (o.start_delay_ns > 0)
		work_until(now_ns() + o.start_delay_ns);
	for (unsigned f = 0; f < o.frames; f++) {
		unsigned slot = f % IN_FLIGHT;
		uint32_t index;
		int64_t cost = o.cost_ns;

		start[f] = now_ns();
		if (o.jitter_pct) {
			/* Uniform in [-J%, +J%] of the cost. */
			int64_t span = cost * o.jitter_pct / 100;
			cost += (int64_t)(next_random(&o.seed) % (uint32_t)(2 * span + 1)) - span;
		}
		if (o.stall_every && f && f % o.stall_every == 0)
			cost += o.stall_ns;
		work[f] = cost;
		work_until(start[f] + cost);

		TRY(vkWaitForFences(device, 1, &fences[slot], VK_TRUE, UINT64_MAX));
		TRY(vkResetFences(device, 1, &fences[slot]));
		TRY(vkAcquireNextImageKHR(device, swapchain, UINT64_MAX, acquired[slot], VK_NULL_HANDLE,
		                          &index));
		acquired_at[f] = now_ns();
		TRY(vkBeginCommandBuffer(
		        cmds[slot],
		        &(VkCommandBufferBeginInfo){.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		                                    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT}));
		record_clear(cmds[slot], images[index], f, 0.5f);
		TRY(vkEndCommandBuffer(cmds[slot]));
		const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
		TRY(vkQueueSubmit(queue, 1,
		                  &(VkSubmitInfo){.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		                                  .waitSemaphoreCount = 1,
		                                  .pWaitSemaphores = &acquired[slot],
		                                  .pWaitDstStageMask = &stage,
		                                  .commandBufferCount = 1,
		                                  .pCommandBuffers = &cmds[slot],
		                                  .signalSemaphoreCount = 1,
		                                  .pSignalSemaphores = &rendered[index]},
		                  fences[slot]));
		presented[f] = now_ns();
		VkResult r = vkQueuePresentKHR(
		        queue, &(VkPresentInfoKHR){.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
		                                   .waitSemaphoreCount = 1,
		                                   .pWaitSemaphores = &rendered[index],
		                                   .swapchainCount = 1,
		                                   .pSwapchains = &swapchain,
		                                   .pImageIndices = &index});
		/* The display never resizes: any error, SUBOPTIMAL included, is a failed run. */
		if (r != VK_SUCCESS) {
			fprintf(stderr, "frame_cost: frame %u: vkQueuePresentKHR: %s\n", f, result_name(r));
			return 1;
		}
	}
	TRY(vkDeviceWaitIdle(device));

	FILE *csv = fopen(o.csv, "w");
	if (!csv) {
		perror(o.csv);
		return 1;
	}
	fprintf(csv, "frame,start_ns,work_ns,acquired_ns,present_ns\n");
	for (unsigned f = 0; f < o.frames; f++)
		fprintf(csv, "%u,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", f, start[f], work[f],
		        acquired_at[f], presented[f]);
	if (fclose(csv)) {
		perror(o.csv);
		return 1;
	}

	for (unsigned i = 0; i < image_count; i++)
		vkDestroySemaphore(device, rendered[i], NULL);
	for (unsigned i = 0; i < IN_FLIGHT; i++) {
		vkDestroySemaphore(device, acquired[i], NULL);
		vkDestroyFence(device, fences[i], NULL);
	}
	vkDestroyCommandPool(device, pool, NULL);
	vkDestroySwapchainKHR(device, swapchain, NULL);
	vkDestroyDevice(device, NULL);
	vkDestroySurfaceKHR(instance, surface, NULL);
	vkDestroyInstance(instance, NULL);
	if (x) {
		xdisplay_destroy_window(x, window);
		xdisplay_close(x);
	}
	free(start);
	free(work);
	free(acquired_at);
	free(presented);
	return 0;
}
