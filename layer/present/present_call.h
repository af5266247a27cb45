/* present_call.h — one vkQueuePresentKHR call as lowlat handles it.
 *
 * The hook (present.c) resolves what the call touches once, on entry: the device, each swapchain's
 * record (one lookup each), the app's present id and the structs of its chain lowlat reads (one
 * walk, present_chain.h). The present modes, the present ids, the levels' plans and the log then
 * read this record; nothing below looks a handle up again or walks the app's chain. What goes down
 * is built once, as the driver is called (lowlat_call_down).
 */
#ifndef LOWLAT_PRESENT_CALL_H
#define LOWLAT_PRESENT_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "present_chain.h"
#include "vk_compat.h"

/* Swapchains one call can carry through lowlat: the copies of the present info it hands down
 * (modes, ids, targets) live on the stack. A call presenting more passes through untouched. */
#define LOWLAT_CALL_SWAPCHAINS_MAX 8

struct lowlat_device;
struct lowlat_swapchain;
struct lowlat_present_call;

/* One swapchain of the call. */
struct lowlat_frame {
	struct lowlat_swapchain *sc; /* NULL: a swapchain lowlat does not track */
	const struct lowlat_present_call *call;
	uint32_t index;  /* its place in the present info */
	uint64_t app_id; /* the app's present id for it (VkPresentIdKHR / VkPresentId2KHR), 0: none */
	VkResult result; /* what the driver returned for it */
	/* Its release (present.c asks the level's plan): when the app may start its next frame, or
	 * (early method) when this frame goes down; after_ns the release after that one for a wait
	 * point away from the present (0: none planned); grid: planned on a display's or the
	 * screen's refresh grid, not the CPU grid. */
	int64_t release_ns, after_ns;
	bool grid;
	/* This present's pacing deadline and display target, for the log (LOWLAT_LOG_UNKNOWN: none),
	 * and the earliest display time lowlat asked the driver for (present_timing.c, set_target;
	 * LOWLAT_LOG_UNKNOWN: it asked for none). */
	int64_t target_ns, display_target_ns, display_ask_ns;
	/* Present timing (present_timing.c): the stages the app asked for itself, and whether the
	 * present goes down with the app's own timing info (its target, or its time domain). */
	uint32_t app_queries;
	bool foreign;
	bool queued;        /* the release waits at the app's present wait (present_wait.h) */
	bool cap_elsewhere; /* its latency cap is its wait point's, not kept in the present */
	bool level_paced;   /* the "present-wait" level's own wait set the release (the log's "wait") */
	/* The app's own target stood (brain/timing.c, lowlat_tb_app_target): its limiter rules this
	 * frame, so lowlat plans its grid on from it but waits for nothing. */
	bool app_rules;
};

/* When the call's steps happened, for the log. */
struct lowlat_call_times {
	int64_t entry_ns, wait_begin_ns, wait_end_ns, driver_ns, return_ns;
};

struct lowlat_present_call {
	struct lowlat_device *dev;
	VkQueue queue;
	const VkPresentInfoKHR *app;       /* as the app passed it */
	VkPresentInfoKHR down;             /* what goes down, when lowlat put something in its chain */
	struct lowlat_present_chain chain; /* the app's chain, and what lowlat puts in it */
	uint32_t count;
	struct lowlat_frame frames[LOWLAT_CALL_SWAPCHAINS_MAX];
	struct lowlat_swapchain *first; /* the first tracked swapchain: its settings name the method */
	bool early;                     /* the early method: the wait before the frame goes down */
	const void *app_timings;        /* the app's own VkPresentTimingsInfoEXT, NULL: none */
	bool app_targets;               /* ... with a target for some swapchain */
	bool timed;                     /* lowlat's targets went down with the call */
	VkResult result;
	struct lowlat_call_times t;
	/* The one wait of the call: until the latest release among its frames, with the sleeper of
	 * the swapchain that set it (grid: that release is a display's, not its CPU grid's). */
	struct lowlat_frame *waiter;
};

/* The present info to hand down, with what the steps put in the chain: built once, as the driver is
 * called. */
static inline const VkPresentInfoKHR *lowlat_call_down(struct lowlat_present_call *c)
{
	const void *head = lowlat_present_chain_build(&c->chain, c->app->pNext);

	if (head == c->app->pNext)
		return c->app;
	c->down = *c->app;
	c->down.pNext = head;
	return &c->down;
}

#endif
