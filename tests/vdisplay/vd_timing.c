/* vd_timing.c — the present timing results queue; see vd_timing.h. */
#include "vd_timing.h"

#include <stdlib.h>
#include <string.h>

VkResult vd_timing_resize(struct vd_timing_queue *q, uint32_t size)
{
	struct vd_timing_record *records;

	if (size < q->count)
		return VK_NOT_READY;
	records = calloc(size ? size : 1, sizeof(*records));
	if (!records)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	memcpy(records, q->records, q->count * sizeof(*records));
	free(q->records);
	q->records = records;
	q->size = size;
	return VK_SUCCESS;
}

bool vd_timing_full(const struct vd_timing_queue *q)
{
	return q->count >= q->size;
}

void vd_timing_add(struct vd_timing_queue *q, uint64_t seq, uint64_t present_id, uint64_t target_time,
                   VkPresentStageFlagsEXT queried, VkTimeDomainKHR domain, uint64_t domain_id)
{
	if (vd_timing_full(q))
		return;
	q->records[q->count++] = (struct vd_timing_record){.seq = seq,
	                                                   .present_id = present_id,
	                                                   .target_time = target_time,
	                                                   .queried = queried,
	                                                   .domain = domain,
	                                                   .domain_id = domain_id};
}

/* The outstanding record of present seq; NULL when it has none (no stage queries, or collected). */
static struct vd_timing_record *record_of(struct vd_timing_queue *q, uint64_t seq)
{
	for (uint32_t i = 0; i < q->count; i++)
		if (q->records[i].seq == seq)
			return &q->records[i];
	return NULL;
}

void vd_timing_cancel(struct vd_timing_queue *q, uint64_t seq)
{
	struct vd_timing_record *r = record_of(q, seq);

	if (!r)
		return;
	memmove(r, r + 1, (size_t)(q->records + q->count - (r + 1)) * sizeof(*r));
	q->count--;
}

static void set_stage(struct vd_timing_record *r, uint32_t bit, int64_t t)
{
	uint32_t i = (uint32_t)__builtin_ctz(bit);
	r->time[i] = t > 0 ? t : 0;
	r->known |= bit;
}

void vd_timing_queue_done(struct vd_timing_queue *q, uint64_t seq, int64_t ready_ns)
{
	struct vd_timing_record *r = record_of(q, seq);

	if (r)
		set_stage(r, VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT, ready_ns);
}

void vd_timing_event(struct vd_timing_queue *q, const struct vd_event *ev)
{
	const struct vd_request *req = &ev->request;
	struct vd_timing_record *r;

	if (ev->kind == VD_EV_REPEAT || ev->kind == VD_EV_RELEASED || !(r = record_of(q, req->seq)))
		return;
	set_stage(r, VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT, req->ready_ns);
	set_stage(r, VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT, req->dequeued_ns);
	/* The display has no latency of its own: first pixel out is first pixel visible. A dropped
	 * request never reaches the screen; its pixel stages are reported as 0. */
	int64_t pixel = ev->kind == VD_EV_SHOWN ? req->first_pixel_ns : 0;
	set_stage(r, VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT, pixel);
	set_stage(r, VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT, pixel);
}

/* Every stage asked for that the engine supports is known. */
static bool complete(const struct vd_timing_record *r, VkPresentStageFlagsEXT supported)
{
	VkPresentStageFlagsEXT wanted = r->queried & supported;
	return (r->known & wanted) == wanted;
}

/* Writes r's stages into out, in stage order: known ones in the stage's clock, ones the engine does
 * not support as 0, ones not yet known (a partial result) left out. */
static void report(const struct vd_timing_record *r, const struct vd_timing_clocks *c,
                   VkPastPresentationTimingEXT *out)
{
	uint32_t n = 0;

	out->presentId = r->present_id;
	out->targetTime = r->target_time;
	for (uint32_t s = 0; s < VD_TIMING_STAGES; s++) {
		uint32_t bit = 1u << s;
		uint64_t t = 0;

		if (!(r->queried & bit) || n >= out->presentStageCount)
			continue;
		if (c->supported & bit) {
			if (!(r->known & bit))
				continue;
			t = r->time[s] ? (uint64_t)c->to_stage(c->user, s, r->time[s]) : 0;
		}
		if (out->pPresentStages)
			out->pPresentStages[n] = (VkPresentStageTimeEXT){bit, t};
		n++;
	}
	out->presentStageCount = n;
	out->timeDomain = r->domain;
	out->timeDomainId = r->domain_id;
	out->reportComplete = complete(r, c->supported);
}

VkResult vd_timing_collect(struct vd_timing_queue *q, const struct vd_timing_clocks *c,
                           VkPastPresentationTimingFlagsEXT flags,
                           VkPastPresentationTimingPropertiesEXT *props)
{
	bool partial = c->partial && (flags & VK_PAST_PRESENTATION_TIMING_ALLOW_PARTIAL_RESULTS_BIT_EXT);
	bool any_order = flags & VK_PAST_PRESENTATION_TIMING_ALLOW_OUT_OF_ORDER_RESULTS_BIT_EXT;
	uint32_t available = 0, written = 0, kept = 0;
	bool stopped = false;

	/* Results are reported in present order unless the app allows otherwise; without partial
	 * results only complete ones, and in order an incomplete one stops the report (a slot that
	 * never completes, after a failed present, stops it for good, as in Mesa). */
	for (uint32_t i = 0; i < q->count; i++) {
		if (partial || complete(&q->records[i], c->supported))
			available++;
		else if (!any_order)
			break;
	}
	if (!props->pPresentationTimings) {
		props->presentationTimingCount = available;
		return VK_SUCCESS;
	}
	for (uint32_t i = 0; i < q->count; i++) {
		struct vd_timing_record *r = &q->records[i];
		bool reportable = !stopped && (partial || complete(r, c->supported));

		if (!reportable && !any_order)
			stopped = true;
		if (reportable && written < props->presentationTimingCount) {
			VkPastPresentationTimingEXT *out = &props->pPresentationTimings[written++];
			report(r, c, out);
			/* A slot frees once its complete result has been handed over. */
			if (out->reportComplete)
				continue;
		}
		q->records[kept++] = *r;
	}
	q->count = kept;
	props->presentationTimingCount = written;
	return written < available ? VK_INCOMPLETE : VK_SUCCESS;
}

void vd_timing_fini(struct vd_timing_queue *q)
{
	free(q->records);
	memset(q, 0, sizeof(*q));
}
