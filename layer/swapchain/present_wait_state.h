/* present_wait_state.h — what a swapchain keeps for the app's present wait as lowlat's wait point
 * (present_wait.h): the releases queued for the app's waits, and the display grid's claims. Part of
 * struct lowlat_swapchain (swapchain.h).
 */
#ifndef LOWLAT_PRESENT_WAIT_STATE_H
#define LOWLAT_PRESENT_WAIT_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "brain/pace_display.h"
#include "plumbing.h"

/* Releases the present thread may queue before it decides the app no longer waits: more than any
 * engine's frame latency (DXVK's maxFrameLatency is at most 16; 3 by default) would leave behind. */
#define LOWLAT_PW_UNCLAIMED 16u

struct lowlat_pw_release {
	uint64_t present_id; /* the app's id of that present, 0 when it had none */
	int64_t release_ns;  /* when the app may start its next frame */
	int64_t log_frame;   /* its present log row, LOWLAT_LOG_UNKNOWN when not logged */
};

struct lowlat_pw_done {
	int64_t log_frame, returned_ns, begin_ns, end_ns;
};

struct lowlat_present_wait {
	struct lowlat_lock lock;
	/* Written under the lock by the present thread: the swapchain is paced late in a FIFO mode. */
	bool eligible;
	/* The app waits for this swapchain's presents: its releases are waited for there. */
	bool active;
	bool announced, reverted; /* each said once */
	uint32_t last;            /* the latest queued release's slot */
	struct lowlat_pw_release pending[LOWLAT_PW_UNCLAIMED];
	uint32_t pending_first, pending_count;
	struct lowlat_pw_done done[LOWLAT_PW_UNCLAIMED];
	uint32_t done_count;
	uint64_t paced; /* waits that waited for a release (summary) */
	/* The display grid (above): planned by each present, counted by each present and claim. */
	struct lowlat_display_claims claims;
};

#endif
