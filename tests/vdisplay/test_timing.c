/* test_timing.c — the present-timing results queue (vd_timing.c) without a device: slots, QUEUE_FULL,
 * resizing, complete and partial reports, VK_INCOMPLETE, and what profiles change: stage clocks,
 * stages reported as 0, no partial results, a slot that never completes. */
#include <stdio.h>
#include <string.h>

#include "vd_timing.h"

#include "vd_check.h"

static void event(struct vd_timing_queue *q, enum vd_event_kind kind, uint64_t seq, int64_t ready,
                  int64_t when)
{
	struct vd_event ev = {.kind = kind, .time_ns = when};
	ev.request.seq = seq;
	ev.request.ready_ns = ready;
	ev.request.dequeued_ns = when;
	ev.request.first_pixel_ns = when;
	vd_timing_event(q, &ev);
}

static int64_t identity(const void *user, uint32_t stage, int64_t t)
{
	(void)user;
	(void)stage;
	return t;
}

/* Stage s's clock runs (s + 1) * 1000 s ahead. */
static int64_t ahead(const void *user, uint32_t stage, int64_t t)
{
	(void)user;
	return t + (int64_t)(stage + 1) * 1000000000000ll;
}

static const struct vd_timing_clocks all_stages = {VD_TIMING_ALL_STAGES, true, identity, NULL};

#define MONO      VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR
#define QUEUE_END VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT
#define PIXEL_OUT VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT
#define PARTIAL   VK_PAST_PRESENTATION_TIMING_ALLOW_PARTIAL_RESULTS_BIT_EXT
#define ANY_ORDER VK_PAST_PRESENTATION_TIMING_ALLOW_OUT_OF_ORDER_RESULTS_BIT_EXT

/* A Mesa-like engine: QUEUE_OPERATIONS_END and FIRST_PIXEL_OUT on clocks of their own, no partial
 * results; a stage asked for and not supported reads 0; a slot that never completes (a failed
 * present's) stops in-order reports, not out-of-order ones. */
static void profile_checks(void)
{
	const struct vd_timing_clocks mesa = {QUEUE_END | PIXEL_OUT, false, ahead, NULL};
	struct vd_timing_queue q = {0};
	VkPastPresentationTimingEXT out[4];
	VkPresentStageTimeEXT stages[4][4];
	VkPastPresentationTimingPropertiesEXT props = {
	        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_PROPERTIES_EXT,
	        .pPresentationTimings = out};

	CHECK(vd_timing_resize(&q, 4) == VK_SUCCESS);
	vd_timing_add(&q, 1, 11, 0, VD_TIMING_ALL_STAGES, VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, 7);
	vd_timing_add(&q, 0, 0, 0, PIXEL_OUT, VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT,
	              7); /* never completes */
	vd_timing_add(&q, 3, 13, 0, PIXEL_OUT, VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, 7);
	vd_timing_queue_done(&q, 1, 100);
	/* Partial results asked for, not honoured: nothing yet. */
	props.presentationTimingCount = 4;
	CHECK(vd_timing_collect(&q, &mesa, PARTIAL, &props) == VK_SUCCESS &&
	      props.presentationTimingCount == 0);
	event(&q, VD_EV_SHOWN, 1, 100, 200);
	event(&q, VD_EV_SHOWN, 3, 300, 400);
	for (int i = 0; i < 4; i++)
		out[i] = (VkPastPresentationTimingEXT){.presentStageCount = 4, .pPresentStages = stages[i]};
	props.presentationTimingCount = 4;
	CHECK(vd_timing_collect(&q, &mesa, 0, &props) == VK_SUCCESS && props.presentationTimingCount == 1);
	/* Every stage asked for, in order; the unsupported ones as 0; times in each stage's clock. */
	CHECK(out[0].presentId == 11 && out[0].reportComplete && out[0].presentStageCount == 4);
	CHECK(stages[0][0].stage == QUEUE_END && stages[0][0].time == 100 + 1000000000000ull);
	CHECK(stages[0][1].stage == VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT && stages[0][1].time == 0);
	CHECK(stages[0][2].stage == PIXEL_OUT && stages[0][2].time == 200 + 3000000000000ull);
	CHECK(stages[0][3].time == 0);
	CHECK(out[0].timeDomain == VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT && out[0].timeDomainId == 7);
	/* In order, the slot that never completes holds back id 13; out of order, it is reported. */
	props.presentationTimingCount = 4;
	CHECK(vd_timing_collect(&q, &mesa, 0, &props) == VK_SUCCESS && props.presentationTimingCount == 0);
	props.pPresentationTimings = NULL;
	CHECK(vd_timing_collect(&q, &mesa, ANY_ORDER, &props) == VK_SUCCESS &&
	      props.presentationTimingCount == 1);
	props.pPresentationTimings = out;
	out[0] = (VkPastPresentationTimingEXT){.presentStageCount = 4, .pPresentStages = stages[0]};
	props.presentationTimingCount = 4;
	CHECK(vd_timing_collect(&q, &mesa, ANY_ORDER, &props) == VK_SUCCESS &&
	      props.presentationTimingCount == 1);
	CHECK(out[0].presentId == 13 && out[0].reportComplete);
	/* The leaked slot stays outstanding: the queue cannot shrink below it. */
	CHECK(q.count == 1 && vd_timing_resize(&q, 0) == VK_NOT_READY);
	vd_timing_fini(&q);
}

int main(void)
{
	struct vd_timing_queue q = {0};
	VkPastPresentationTimingEXT out[4];
	VkPresentStageTimeEXT stages[4][4];
	VkPastPresentationTimingPropertiesEXT props = {
	        .sType = VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_PROPERTIES_EXT};

	/* No slots until the app asks for some: any present with stage queries is refused. */
	CHECK(vd_timing_full(&q));
	CHECK(vd_timing_resize(&q, 2) == VK_SUCCESS);
	vd_timing_add(&q, 1, 11, 0, VD_TIMING_ALL_STAGES, MONO, 0);
	vd_timing_add(&q, 2, 12, 0, VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT, MONO, 0);
	CHECK(vd_timing_full(&q));
	/* "If the new size is less than the current number of outstanding results, VK_NOT_READY". */
	CHECK(vd_timing_resize(&q, 1) == VK_NOT_READY);

	/* Nothing known yet: no complete result, and without ALLOW_PARTIAL none is reported. */
	props.pPresentationTimings = NULL;
	CHECK(vd_timing_collect(&q, &all_stages, 0, &props) == VK_SUCCESS &&
	      props.presentationTimingCount == 0);
	CHECK(vd_timing_collect(&q, &all_stages, PARTIAL, &props) == VK_SUCCESS &&
	      props.presentationTimingCount == 2);

	/* Request 1's queue operations ended before the screen took it: a partial result shows that
	 * stage alone, stays incomplete and keeps its slot; without ALLOW_PARTIAL it is not reported. */
	vd_timing_queue_done(&q, 1, 100);
	for (int i = 0; i < 4; i++)
		out[i] = (VkPastPresentationTimingEXT){.presentStageCount = 4, .pPresentStages = stages[i]};
	props.pPresentationTimings = out;
	props.presentationTimingCount = 4;
	CHECK(vd_timing_collect(&q, &all_stages, 0, &props) == VK_SUCCESS &&
	      props.presentationTimingCount == 0);
	props.presentationTimingCount = 4;
	CHECK(vd_timing_collect(&q, &all_stages, PARTIAL, &props) == VK_SUCCESS);
	CHECK(props.presentationTimingCount == 2 && out[0].presentId == 11 && !out[0].reportComplete);
	CHECK(out[0].presentStageCount == 1 &&
	      stages[0][0].stage == VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT &&
	      stages[0][0].time == 100);
	CHECK(out[1].presentId == 12 && out[1].presentStageCount == 0 && !out[1].reportComplete);
	CHECK(q.count == 2);
	props.pPresentationTimings = NULL;

	/* Request 1 latched, request 2 dropped: both complete (a dropped one's pixel stages read 0). */
	event(&q, VD_EV_SHOWN, 1, 100, 200);
	event(&q, VD_EV_REPLACED, 2, 150, 180);
	for (int i = 0; i < 4; i++)
		out[i] = (VkPastPresentationTimingEXT){.presentStageCount = 4, .pPresentStages = stages[i]};
	props.pPresentationTimings = out;
	props.presentationTimingCount = 1;
	CHECK(vd_timing_collect(&q, &all_stages, 0, &props) == VK_INCOMPLETE);
	CHECK(props.presentationTimingCount == 1 && out[0].presentId == 11 && out[0].reportComplete);
	CHECK(out[0].presentStageCount == 4 && stages[0][0].time == 100 && stages[0][2].time == 200);
	CHECK(out[0].timeDomain == VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR);
	/* The reported complete result freed its slot. */
	CHECK(!vd_timing_full(&q));
	props.presentationTimingCount = 4;
	CHECK(vd_timing_collect(&q, &all_stages, 0, &props) == VK_SUCCESS);
	CHECK(props.presentationTimingCount == 1 && out[0].presentId == 12 && out[0].presentStageCount == 1);
	CHECK(q.count == 0);
	vd_timing_fini(&q);
	profile_checks();
	return vd_check_done("timing queue");
}
