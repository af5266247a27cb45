/* present_timing_state.h — what a swapchain keeps for VK_EXT_present_timing and the "timing" level:
 * the presents whose reports are to come, the app's own reports, and the level's brain. Part of
 * struct lowlat_swapchain (swapchain.h); present_timing.h and level_timing.c act on it.
 */
#ifndef LOWLAT_PRESENT_TIMING_STATE_H
#define LOWLAT_PRESENT_TIMING_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "brain/timing.h"
#include "plumbing.h"
#include "present_clock.h"
#include "vk_compat.h"

/* A present whose display feedback (VK_EXT_present_timing stage times) is still to come. */
struct lowlat_pending_present {
	struct lowlat_tb_frame frame; /* as the brain knows it (brain/timing.h) */
	int64_t log_frame;            /* its row in the present log, LOWLAT_LOG_UNKNOWN when not logged */
	/* Pushed by the present call still in progress, whose log row is not written yet (the
	 * latency-frames cap can read its report inside that call). */
	bool current;
	/* The stages the app asked for itself, whose times it reads back through lowlat
	 * (lowlat_GetPastPresentationTimingEXT); foreign: the present went down with the app's own
	 * timing info (its target or its time domain), its report is the app's alone. */
	uint32_t app_queries;
	bool foreign;
};

/* A report kept for the app, as the driver gave it (its time domain, the app's stages only): the
 * app's vkGetPastPresentationTimingEXT takes them off in present order. */
struct lowlat_app_report {
	uint64_t present_id, target_time, domain_id;
	int32_t domain; /* VkTimeDomainKHR */
	uint32_t count;
	struct {
		uint32_t stage; /* VkPresentStageFlagBitsEXT */
		uint64_t time;
	} stage[4];
};

/* Pending presents per swapchain; also the size of the driver's timing results queue we ask for.
 * Results come back a few frames after the present (FIFO: the queue depth plus one refresh), and
 * they are drained at every present, so 64 is more than a swapchain can have outstanding. */
#define LOWLAT_TIMING_QUEUE_SIZE 64u
/* An app that asks for stage times itself sizes its own queue on top (vkd3d-proton: 16), up to this
 * many; lowlat keeps it as the driver would: at its size, the app's next present asking for stage
 * times is refused with VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT. */
#define LOWLAT_APP_QUEUE_MAX 64u
/* Pending presents: lowlat's own and the app's. */
#define LOWLAT_PENDING_MAX (LOWLAT_TIMING_QUEUE_SIZE + LOWLAT_APP_QUEUE_MAX)

/* A swapchain's present-timing state: what its reports said, and the "timing" level's plan
 * (level_timing.c). Used only inside the app's calls on the swapchain, which Vulkan requires to be
 * externally synchronised. */
struct lowlat_swapchain_timing {
	/* Created with VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT, a time domain chosen and its clocks
	 * calibrated: its presents may carry timing info. */
	bool active;
	VkTimeDomainEXT domain; /* the EXT spelling: Debian 12's headers predate the KHR one */
	uint64_t domain_id, domains_counter;
	struct lowlat_stage_clocks clocks;
	/* The stages it asks for, and the one that gives the grid's phase, whose clock its absolute
	 * targets are on. */
	uint32_t stage_queries, phase_stage;
	/* The level's plan: targets, the release lead, the grid's phase, all the reports taught. */
	struct lowlat_timing_brain brain;
	/* Why the reported refresh cannot be paced on, "" while it can. */
	char unusable[96];
	/* When the latest complete report came: reports that stop (a results slot a failed present
	 * keeps, in Mesa) are noticed from it. */
	int64_t report_ns;
	/* The app's own reports (an app that enabled present timing itself), and the counters the
	 * driver's latest answer carried, which the app's answers carry too. The app reads them from
	 * a thread of its own (vkd3d-proton's swapchain-sync thread) while the present path adds to
	 * them: app_lock guards them, and active's change to false. */
	struct lowlat_lock app_lock;
	struct lowlat_app_report app_reports[LOWLAT_APP_QUEUE_MAX];
	uint32_t app_first, app_count;
	uint32_t app_queue_size; /* the size the app set (0 until it does, as for the driver) */
	uint64_t reported_properties_counter, reported_domains_counter;
	/* properties_counter tells when the driver's refresh changed. */
	uint64_t properties_counter;
	/* The early method's ready-time samples start at the hand-off, the end of its wait before the
	 * present goes down (what its lead must cover); LOWLAT_LOG_UNKNOWN: at the frame's start. */
	int64_t sample_start_ns;
	struct lowlat_pending_present pending[LOWLAT_PENDING_MAX];
	uint32_t pending_first, pending_count;
	bool pushed; /* this call added a pending present, whose log frame is still to set */
	/* The stage times of this call's own present when its report came inside the call (the
	 * latency-frames cap), kept for its log row: stage is an enum lowlat_log_stage. */
	bool current_taken;
	uint32_t early_count;
	struct {
		int stage;
		int64_t time_ns;
	} early[4];
};

#endif
