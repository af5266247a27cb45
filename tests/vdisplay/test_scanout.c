/* test_scanout.c — the presentation engine's rules on a fake timeline, one test per sentence of the
 * specification it checks. No Vulkan, no clock: every time below is made up. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scanout.h"

#include "vd_check.h"

#define CHECK_EQ(a, b)                                                                                       \
	do {                                                                                                 \
		int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                                \
		if (a_ != b_) {                                                                              \
			fprintf(stderr, "%s:%d: %s: %s == %" PRId64 ", expected %s == %" PRId64 "\n",        \
			        __FILE__, __LINE__, __func__, #a, a_, #b, b_);                               \
			failures++;                                                                          \
		}                                                                                            \
	} while (0)

#define HZ60 60000ll /* mHz */

struct log {
	struct vd_event ev[512];
	int n;
};

static void record(void *user, const struct vd_event *ev)
{
	struct log *log = user;
	if (log->n < 512)
		log->ev[log->n++] = *ev;
}

/* A missing event reads as this, so the CHECK that follows fails instead of crashing. */
static const struct vd_event missing = {.time_ns = -1, .refresh = -1, .request = {.refresh = -1}};

/* The n-th event of a kind. */
static const struct vd_event *nth(const struct log *log, enum vd_event_kind kind, int n)
{
	for (int i = 0; i < log->n; i++)
		if (log->ev[i].kind == kind && n-- == 0)
			return &log->ev[i];
	fprintf(stderr, "no event %d of kind %d\n", n, kind);
	return &missing;
}

static int count(const struct log *log, enum vd_event_kind kind)
{
	int c = 0;
	for (int i = 0; i < log->n; i++)
		c += log->ev[i].kind == kind;
	return c;
}

/* The event of a kind for request seq, or NULL. */
static const struct vd_event *find_of(const struct log *log, enum vd_event_kind kind, uint64_t seq)
{
	for (int i = 0; i < log->n; i++)
		if (log->ev[i].kind == kind && log->ev[i].request.seq == seq)
			return &log->ev[i];
	return NULL;
}

static const struct vd_event *of(const struct log *log, enum vd_event_kind kind, uint64_t seq)
{
	const struct vd_event *ev = find_of(log, kind, seq);
	return ev ? ev : &missing;
}

static int64_t V(int64_t k)
{
	return vd_refresh_start_ns(HZ60, k);
}

static uint64_t queue(struct vd_engine *e, enum vd_mode mode, uint32_t image, int64_t queued_ns)
{
	struct vd_request r = {.image = image, .mode = mode, .queued_ns = queued_ns};
	return vd_engine_queue(e, &r);
}

static uint64_t queue_target(struct vd_engine *e, enum vd_mode mode, uint32_t image, int64_t queued_ns,
                             enum vd_target_kind kind, int64_t target, bool nearest)
{
	struct vd_request r = {.image = image,
	                       .mode = mode,
	                       .queued_ns = queued_ns,
	                       .target_kind = kind,
	                       .target_ns = target,
	                       .nearest = nearest};
	return vd_engine_queue(e, &r);
}

/* The display starts just after refresh 100 began; the first vblank processed is refresh 101. */
static void start(struct vd_engine *e, struct log *log, int64_t rate_mhz)
{
	memset(log, 0, sizeof(*log));
	vd_engine_init(e, rate_mhz, vd_refresh_start_ns(rate_mhz, 100) + 1, record, log);
}

static void test_grid(void)
{
	/* 60 Hz: refresh k starts at k * 16666666.67 ns, floored. */
	CHECK_EQ(vd_refresh_start_ns(HZ60, 3), 50000000);
	CHECK_EQ(vd_refresh_start_ns(HZ60, 1), 16666666);
	CHECK_EQ(vd_refresh_at(HZ60, 16666666), 1);
	CHECK_EQ(vd_refresh_at(HZ60, 16666665), 0);
	/* 59.94 Hz: refresh 59940 starts exactly 1000 s after refresh 0. */
	CHECK_EQ(vd_parse_rate_mhz("59.94"), 59940);
	CHECK_EQ(vd_refresh_start_ns(59940, 59940), 1000000000000ll);
	CHECK_EQ(vd_refresh_at(59940, 1000000000000ll - 1), 59939);
	/* No drift over an hour at 540 Hz: the grid is computed, never accumulated. */
	CHECK_EQ(vd_refresh_start_ns(540000, 540ll * 3600), 3600ll * 1000000000);
	CHECK_EQ(vd_parse_rate_mhz("540"), 540000);
	CHECK_EQ(vd_parse_rate_mhz("144"), 144000);
	CHECK_EQ(vd_parse_rate_mhz("0"), 0);
	CHECK_EQ(vd_parse_rate_mhz("60Hz"), 0);
	/* Every refresh index of a time range round-trips. */
	static const int64_t rates[] = {60000, 59940, 120000, 144000, 240000, 360000, 540000};
	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		const int64_t rate = rates[r];
		for (int64_t k = 1000; k < 1100; k++) {
			CHECK_EQ(vd_refresh_at(rate, vd_refresh_start_ns(rate, k)), k);
			CHECK_EQ(vd_refresh_at(rate, vd_refresh_start_ns(rate, k) - 1), k - 1);
		}
	}
}

/* FIFO: "Requests are appended to the end of the queue, and one request is removed from the
 * beginning of the queue and processed during each vertical blanking period in which the queue is
 * non-empty." */
static void test_fifo_one_per_refresh(void)
{
	struct vd_engine e;
	struct log log;
	uint64_t s[5];

	start(&e, &log, HZ60);
	for (int i = 0; i < 5; i++) {
		s[i] = queue(&e, VD_MODE_FIFO, i, V(100) + 10 + i);
		vd_engine_set_ready(&e, s[i], V(100) + 1000 + i);
	}
	CHECK_EQ(e.count, 5); /* the queue grows */
	vd_engine_advance(&e, V(110));
	for (int i = 0; i < 5; i++) {
		const struct vd_event *ev = of(&log, VD_EV_SHOWN, s[i]);
		CHECK(ev != NULL);
		if (ev) {
			CHECK_EQ(ev->refresh, 101 + i);
			CHECK_EQ(ev->request.first_pixel_ns, V(101 + i));
		}
	}
	CHECK_EQ(count(&log, VD_EV_REPLACED) + count(&log, VD_EV_SKIPPED), 0);
	/* Refreshes 106..110 have nothing new: repeats of the last image. */
	CHECK_EQ(count(&log, VD_EV_REPEAT), 5);
	CHECK_EQ(nth(&log, VD_EV_REPEAT, 0)->refresh, 106);
	CHECK_EQ(nth(&log, VD_EV_REPEAT, 0)->request.seq, s[4]);
	/* Each latch releases the previous image: four releases for five shown. */
	CHECK_EQ(count(&log, VD_EV_RELEASED), 4);
	CHECK_EQ(nth(&log, VD_EV_RELEASED, 0)->request.seq, s[0]);
	CHECK_EQ(nth(&log, VD_EV_RELEASED, 0)->time_ns, V(102));
}

/* Latching is decided by the recorded ready time on the ideal grid, however late the caller
 * advances: 1 ns before the vblank latches on it, at the vblank latches on it, 1 ns after does not. */
static void test_fifo_ready_time_decides(void)
{
	struct vd_engine e;
	struct log log;

	for (int delta = -1; delta <= 1; delta++) {
		start(&e, &log, HZ60);
		uint64_t s = queue(&e, VD_MODE_FIFO, 0, V(101) - 5000000);
		/* The scan-out thread woke 3 ms late and learnt the ready time only then. */
		vd_engine_advance(&e, V(101) - 10);
		vd_engine_set_ready(&e, s, V(101) + delta);
		vd_engine_advance(&e, V(101) + 3000000);
		vd_engine_advance(&e, V(103));
		const struct vd_event *ev = of(&log, VD_EV_SHOWN, s);
		CHECK(ev != NULL);
		if (ev)
			CHECK_EQ(ev->refresh, delta <= 0 ? 101 : 102);
	}
}

/* In-order processing: a request that is not ready holds back the ready one behind it. */
static void test_fifo_not_ready_blocks(void)
{
	struct vd_engine e;
	struct log log;

	start(&e, &log, HZ60);
	uint64_t a = queue(&e, VD_MODE_FIFO, 0, V(100) + 10);
	uint64_t b = queue(&e, VD_MODE_FIFO, 1, V(100) + 20);
	vd_engine_set_ready(&e, b, V(100) + 30);
	vd_engine_advance(&e, V(102) + 5);
	CHECK_EQ(count(&log, VD_EV_SHOWN), 0);
	vd_engine_set_ready(&e, a, V(102) + 10);
	vd_engine_advance(&e, V(105));
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->refresh, 103);
	CHECK_EQ(of(&log, VD_EV_SHOWN, b)->refresh, 104);
	/* Nothing was on screen before a: no repeats reported for refreshes 101..102. */
	CHECK_EQ(nth(&log, VD_EV_REPEAT, 0)->refresh, 105);
}

/* FIFO_RELAXED: "If a vertical blanking period has already passed since the last update of the
 * current image then the presentation engine does not wait for another vertical blanking period for
 * the update, meaning this mode may result in visible tearing in this case." */
static void test_fifo_relaxed(void)
{
	struct vd_engine e;
	struct log log;

	start(&e, &log, HZ60);
	uint64_t a = queue(&e, VD_MODE_FIFO_RELAXED, 0, V(100) + 10);
	vd_engine_set_ready(&e, a, V(100) + 20);
	/* b is ready mid-refresh 101, right after a was latched at vblank 101: waits for vblank 102. */
	uint64_t b = queue(&e, VD_MODE_FIFO_RELAXED, 1, V(100) + 30);
	vd_engine_set_ready(&e, b, V(101) + 1000);
	vd_engine_advance(&e, V(102) + 1);
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->request.first_pixel_ns, V(101));
	CHECK_EQ(of(&log, VD_EV_SHOWN, b)->request.first_pixel_ns, V(102));
	/* c misses vblank 103 (ready 4 ms after it): vblank 103 passed since the last update (at 102),
	 * so c is shown at once, tearing, in refresh 103. */
	uint64_t c = queue(&e, VD_MODE_FIFO_RELAXED, 2, V(102) + 100);
	vd_engine_set_ready(&e, c, V(103) + 4000000);
	vd_engine_advance(&e, V(105));
	const struct vd_event *ev = of(&log, VD_EV_SHOWN, c);
	CHECK(ev != NULL);
	if (ev) {
		CHECK_EQ(ev->request.first_pixel_ns, V(103) + 4000000);
		CHECK_EQ(ev->refresh, 103);
	}
	/* Refresh 103 repeated b (c came after its vblank); 104 shows c in full (not a repeat); 105
	 * repeats c. */
	CHECK_EQ(count(&log, VD_EV_REPEAT), 2);
	CHECK_EQ(nth(&log, VD_EV_REPEAT, 0)->refresh, 103);
	CHECK_EQ(nth(&log, VD_EV_REPEAT, 1)->refresh, 105);
}

/* MAILBOX: "If the queue is full when a new presentation request is received, the new request
 * replaces the existing entry, and any images associated with the prior entry become available for
 * reuse by the application." The pending entry is shown at the next vblank. */
static void test_mailbox_replaces(void)
{
	struct vd_engine e;
	struct log log;
	uint64_t s[3];

	start(&e, &log, HZ60);
	for (int i = 0; i < 3; i++) {
		s[i] = queue(&e, VD_MODE_MAILBOX, i, V(100) + 100 * (i + 1));
		vd_engine_set_ready(&e, s[i], V(100) + 1000000 * (i + 1));
	}
	vd_engine_advance(&e, V(101));
	CHECK_EQ(count(&log, VD_EV_SHOWN), 1);
	CHECK_EQ(of(&log, VD_EV_SHOWN, s[2])->refresh, 101);
	/* Replaced when the newer request arrived, not at the vblank: the image is free at once. */
	CHECK_EQ(of(&log, VD_EV_REPLACED, s[0])->time_ns, V(100) + 2000000);
	CHECK_EQ(of(&log, VD_EV_REPLACED, s[0])->request.replaced_by, s[1]);
	CHECK_EQ(of(&log, VD_EV_REPLACED, s[1])->time_ns, V(100) + 3000000);
	CHECK_EQ(of(&log, VD_EV_RELEASED, s[0])->time_ns, V(100) + 2000000);
	/* A request alone in the mailbox is not replaced and latches on the next vblank. */
	uint64_t d = queue(&e, VD_MODE_MAILBOX, 0, V(101) + 5);
	vd_engine_set_ready(&e, d, V(101) + 50);
	vd_engine_advance(&e, V(103));
	CHECK_EQ(of(&log, VD_EV_SHOWN, d)->refresh, 102);
	CHECK_EQ(count(&log, VD_EV_REPLACED), 2);
}

/* IMMEDIATE: "the presentation engine does not wait for a vertical blanking period to update the
 * current image ... tearing may be observed." Every request is shown; none is dropped. */
static void test_immediate_never_drops(void)
{
	struct vd_engine e;
	struct log log;
	uint64_t s[4];

	start(&e, &log, HZ60);
	for (int i = 0; i < 4; i++) {
		s[i] = queue(&e, VD_MODE_IMMEDIATE, i, V(100) + 100 * (i + 1));
		vd_engine_set_ready(&e, s[i], V(100) + 1000000 * (i + 1));
	}
	vd_engine_advance(&e, V(102));
	CHECK_EQ(count(&log, VD_EV_SHOWN), 4);
	CHECK_EQ(count(&log, VD_EV_REPLACED) + count(&log, VD_EV_SKIPPED), 0);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(of(&log, VD_EV_SHOWN, s[i])->request.first_pixel_ns, V(100) + 1000000 * (i + 1));
		CHECK_EQ(of(&log, VD_EV_SHOWN, s[i])->refresh, 100);
	}
	/* Refresh 101 shows s[3] in full for the first time; 102 repeats it. */
	CHECK_EQ(count(&log, VD_EV_REPEAT), 1);
	CHECK_EQ(nth(&log, VD_EV_REPEAT, 0)->refresh, 102);
}

/* FIFO_LATEST_READY: "At each vertical blanking period, the presentation engine dequeues all
 * successive requests that are ready to be presented from the beginning of the queue ... The image
 * of the last dequeued request will be presented. The other dequeued requests will be dropped." */
static void test_fifo_latest_ready(void)
{
	struct vd_engine e;
	struct log log;
	uint64_t s[4];

	start(&e, &log, HZ60);
	for (int i = 0; i < 4; i++)
		s[i] = queue(&e, VD_MODE_FIFO_LATEST_READY, i, V(100) + 100 * (i + 1));
	vd_engine_set_ready(&e, s[0], V(100) + 1000);
	vd_engine_set_ready(&e, s[1], V(100) + 2000);
	/* s[2] is not ready at vblank 101: dequeuing stops there even though s[3] is ready. */
	vd_engine_set_ready(&e, s[3], V(100) + 3000);
	vd_engine_advance(&e, V(101) + 10);
	CHECK_EQ(of(&log, VD_EV_SKIPPED, s[0])->refresh, 101);
	CHECK_EQ(of(&log, VD_EV_SKIPPED, s[0])->request.replaced_by, s[1]);
	CHECK_EQ(of(&log, VD_EV_SHOWN, s[1])->refresh, 101);
	CHECK(find_of(&log, VD_EV_SHOWN, s[3]) == NULL);
	vd_engine_set_ready(&e, s[2], V(101) + 20);
	vd_engine_advance(&e, V(102));
	CHECK_EQ(of(&log, VD_EV_SKIPPED, s[2])->refresh, 102);
	CHECK_EQ(of(&log, VD_EV_SHOWN, s[3])->refresh, 102);
	CHECK_EQ(count(&log, VD_EV_SHOWN), 2);
}

/* "If the target present time is less-than or equal-to the current time, the presentation engine
 * will dequeue the image and check the next one": a request whose target has not arrived is not
 * ready, and stops the dequeue. */
static void test_fifo_latest_ready_target(void)
{
	struct vd_engine e;
	struct log log;

	start(&e, &log, HZ60);
	uint64_t a = queue(&e, VD_MODE_FIFO_LATEST_READY, 0, V(100) + 10);
	uint64_t b = queue_target(&e, VD_MODE_FIFO_LATEST_READY, 1, V(100) + 20, VD_TARGET_ABSOLUTE, V(103),
	                          false);
	uint64_t c = queue(&e, VD_MODE_FIFO_LATEST_READY, 2, V(100) + 30);
	vd_engine_set_ready(&e, a, V(100) + 100);
	vd_engine_set_ready(&e, b, V(100) + 200);
	vd_engine_set_ready(&e, c, V(100) + 300);
	vd_engine_advance(&e, V(104));
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->refresh, 101);
	CHECK_EQ(of(&log, VD_EV_SKIPPED, b)->refresh, 103);
	CHECK_EQ(of(&log, VD_EV_SHOWN, c)->refresh, 103);
}

/* A present targeted 3 refreshes ahead is dequeued on that refresh, never before (FIFO). */
static void test_target_absolute(void)
{
	struct vd_engine e;
	struct log log;

	start(&e, &log, HZ60);
	uint64_t a = queue_target(&e, VD_MODE_FIFO, 0, V(100) + 10, VD_TARGET_ABSOLUTE, V(104), false);
	uint64_t b = queue(&e, VD_MODE_FIFO, 1, V(100) + 20);
	vd_engine_set_ready(&e, a, V(100) + 100);
	vd_engine_set_ready(&e, b, V(100) + 200);
	vd_engine_advance(&e, V(106));
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->refresh, 104);
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->request.target_abs_ns, V(104));
	CHECK_EQ(of(&log, VD_EV_SHOWN, b)->refresh, 105);
	/* A target 1 ns after a vblank waits for the next one. */
	uint64_t c = queue_target(&e, VD_MODE_FIFO, 2, V(106) + 10, VD_TARGET_ABSOLUTE, V(108) + 1, false);
	vd_engine_set_ready(&e, c, V(106) + 100);
	vd_engine_advance(&e, V(110));
	CHECK_EQ(of(&log, VD_EV_SHOWN, c)->refresh, 109);
}

/* NEAREST_REFRESH_CYCLE: "the application would prefer the image to be presented earlier than the
 * time specified in targetTime if that time falls within the first half of a refresh cycle. In that
 * case, the presentation engine may choose to display the image at the start of that refresh cycle." */
static void test_target_nearest(void)
{
	struct vd_engine e;
	struct log log;
	const int64_t period = V(1);

	start(&e, &log, HZ60);
	/* 30% into refresh 104: first half, shown at its start (before the target). */
	uint64_t a = queue_target(&e, VD_MODE_FIFO, 0, V(100) + 10, VD_TARGET_ABSOLUTE,
	                          V(104) + period * 3 / 10, true);
	vd_engine_set_ready(&e, a, V(100) + 100);
	vd_engine_advance(&e, V(106));
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->refresh, 104);
	/* 70% into refresh 107: second half, shown at the start of 108. */
	uint64_t b = queue_target(&e, VD_MODE_FIFO, 1, V(106) + 10, VD_TARGET_ABSOLUTE,
	                          V(107) + period * 7 / 10, true);
	vd_engine_set_ready(&e, b, V(106) + 100);
	/* The same 30% target without the flag waits for the following vblank. */
	uint64_t c = queue_target(&e, VD_MODE_FIFO, 2, V(106) + 20, VD_TARGET_ABSOLUTE,
	                          V(110) + period * 3 / 10, false);
	vd_engine_set_ready(&e, c, V(106) + 200);
	vd_engine_advance(&e, V(112));
	CHECK_EQ(of(&log, VD_EV_SHOWN, b)->refresh, 108);
	CHECK_EQ(of(&log, VD_EV_SHOWN, c)->refresh, 111);
}

/* PRESENT_AT_RELATIVE_TIME: "targetTime is to be interpreted as a relative time from the previous
 * presentation's IMAGE_FIRST_PIXEL_VISIBLE stage. If the swapchain has never been used to present an
 * image, the provided targetTime is ignored." */
static void test_target_relative(void)
{
	struct vd_engine e;
	struct log log;
	const int64_t period = V(1);

	start(&e, &log, HZ60);
	uint64_t a = queue_target(&e, VD_MODE_FIFO, 0, V(100) + 10, VD_TARGET_RELATIVE, 5 * period, false);
	uint64_t b = queue_target(&e, VD_MODE_FIFO, 1, V(100) + 20, VD_TARGET_RELATIVE, 3 * period, false);
	vd_engine_set_ready(&e, a, V(100) + 100);
	vd_engine_set_ready(&e, b, V(100) + 200);
	vd_engine_advance(&e, V(110));
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->refresh, 101); /* nothing presented before: ignored */
	CHECK_EQ(of(&log, VD_EV_SHOWN, b)->refresh, 104); /* a stays up for 3 refreshes */
	CHECK_EQ(of(&log, VD_EV_SHOWN, b)->request.target_abs_ns, V(101) + 3 * period);
}

/* A target with early_ns (Mesa's XWayland sleeps until min(period / 4, 3 ms) before it, then
 * presents): latches at a vblank up to that long before the target, not earlier. */
static void test_target_early(void)
{
	struct vd_engine e;
	struct log log;
	const int64_t early = 3000000; /* 3 ms, under a quarter of a 60 Hz refresh */

	start(&e, &log, HZ60);
	uint64_t a =
	        queue_target(&e, VD_MODE_FIFO, 0, V(100) + 10, VD_TARGET_ABSOLUTE, V(104) + early, false);
	uint64_t b =
	        queue_target(&e, VD_MODE_FIFO, 1, V(100) + 20, VD_TARGET_ABSOLUTE, V(106) + early + 1, false);
	e.queue[0].early_ns = e.queue[1].early_ns = early;
	vd_engine_set_ready(&e, a, V(100) + 100);
	vd_engine_set_ready(&e, b, V(100) + 200);
	vd_engine_advance(&e, V(110));
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->refresh, 104); /* 3 ms early: on the vblank before */
	CHECK_EQ(of(&log, VD_EV_SHOWN, b)->refresh, 107); /* 1 ns more: the next one */
}

/* A fractional rate: 59.94 Hz (not NTSC's 60000/1001) latches on its own grid, 16.68335 ms apart. */
static void test_fractional_rate(void)
{
	struct vd_engine e;
	struct log log;
	const int64_t rate = 59940;

	start(&e, &log, rate);
	for (int i = 0; i < 3; i++) {
		uint64_t s = queue(&e, VD_MODE_FIFO, i, vd_refresh_start_ns(rate, 100) + 10);
		vd_engine_set_ready(&e, s, vd_refresh_start_ns(rate, 100) + 20);
	}
	vd_engine_advance(&e, vd_refresh_start_ns(rate, 104));
	CHECK_EQ(nth(&log, VD_EV_SHOWN, 1)->time_ns - nth(&log, VD_EV_SHOWN, 0)->time_ns, 16683350);
	CHECK_EQ(nth(&log, VD_EV_SHOWN, 2)->refresh, 103);
}

/* An app that renders at exactly 2x the refresh rate in FIFO fills the queue; the display still
 * shows one new image per refresh, 60 per simulated second. */
static void test_fifo_rate_when_queue_full(void)
{
	struct vd_engine e;
	struct log log;
	start(&e, &log, HZ60);
	int latches = 0;
	int64_t t = V(100) + 1;
	for (int step = 0; step < 120; step++) {
		while (e.count < 2) {
			uint64_t s = queue(&e, VD_MODE_FIFO, 0, t);
			vd_engine_set_ready(&e, s, t);
		}
		t += 8333334; /* 120 steps span one second */
		log.n = 0;
		vd_engine_advance(&e, t);
		latches += count(&log, VD_EV_SHOWN);
		CHECK_EQ(count(&log, VD_EV_REPEAT), 0);
	}
	CHECK_EQ(latches, 60);
}

/* VRR 48-144 Hz: a refresh starts when the head becomes ready, no sooner than 1/144 s after the
 * previous one; with nothing ready by 1/48 s the display refreshes anyway and repeats the image. */
static void test_vrr(void)
{
	struct vd_engine e;
	struct log log;
	const int64_t t0 = 1000000000, min_period = vd_refresh_start_ns(144000, 1),
	              max_period = vd_refresh_start_ns(48000, 1);

	memset(&log, 0, sizeof(log));
	vd_engine_init(&e, 144000, t0, record, &log);
	vd_engine_set_vrr(&e, 48000);
	/* Ready 10 ms after the start: inside the range, the refresh starts right then. */
	uint64_t a = queue(&e, VD_MODE_FIFO, 0, t0 + 1000);
	vd_engine_set_ready(&e, a, t0 + 10000000);
	/* Ready 1 ms after a's refresh: too soon, waits for the shortest period. */
	uint64_t b = queue(&e, VD_MODE_FIFO, 1, t0 + 2000);
	vd_engine_set_ready(&e, b, t0 + 11000000);
	vd_engine_advance(&e, t0 + 30000000);
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->time_ns, t0 + 10000000);
	CHECK_EQ(of(&log, VD_EV_SHOWN, b)->time_ns, t0 + 10000000 + min_period);
	/* Nothing queued: the display refreshes at the longest period and repeats b. */
	vd_engine_advance(&e, t0 + 10000000 + min_period + max_period);
	CHECK_EQ(count(&log, VD_EV_REPEAT), 1);
	CHECK_EQ(nth(&log, VD_EV_REPEAT, 0)->time_ns, t0 + 10000000 + min_period + max_period);
	/* A request whose ready time is not known yet does not hold a refresh back. */
	int64_t last = t0 + 10000000 + min_period + max_period;
	uint64_t c = queue(&e, VD_MODE_FIFO, 2, last + 100);
	vd_engine_advance(&e, last + max_period);
	CHECK_EQ(count(&log, VD_EV_REPEAT), 2);
	vd_engine_set_ready(&e, c, last + max_period + 10000000);
	vd_engine_advance(&e, last + 3 * max_period);
	CHECK_EQ(of(&log, VD_EV_SHOWN, c)->time_ns, last + max_period + 10000000);
	/* Refresh indices count refreshes: a, b, repeat, repeat, c. */
	CHECK_EQ(of(&log, VD_EV_SHOWN, c)->refresh, 5);
	/* A target time holds the refresh until it, within the range. */
	int64_t base = of(&log, VD_EV_SHOWN, c)->time_ns + 2 * max_period; /* after two repeats */
	vd_engine_advance(&e, base);
	uint64_t d = queue_target(&e, VD_MODE_FIFO, 3, base + 10, VD_TARGET_ABSOLUTE, base + 12000000, false);
	vd_engine_set_ready(&e, d, base + 100);
	vd_engine_advance(&e, base + 30000000);
	CHECK_EQ(of(&log, VD_EV_SHOWN, d)->time_ns, base + 12000000);
}

/* FIFO_RELAXED's first request: late when a vblank passed between the display's start and its ready
 * time (the start counts as the last update). */
static void test_fifo_relaxed_first_late(void)
{
	struct vd_engine e;
	struct log log;

	start(&e, &log, HZ60);
	uint64_t a = queue(&e, VD_MODE_FIFO_RELAXED, 0, V(100) + 10);
	vd_engine_set_ready(&e, a, V(101) + 5000000);
	vd_engine_advance(&e, V(103));
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->request.first_pixel_ns, V(101) + 5000000);
}

/* IMMEDIATE with a target: shown at the later of ready time and target, not before. */
static void test_immediate_target(void)
{
	struct vd_engine e;
	struct log log;

	start(&e, &log, HZ60);
	uint64_t a = queue_target(&e, VD_MODE_IMMEDIATE, 0, V(100) + 10, VD_TARGET_ABSOLUTE, V(102) + 7000000,
	                          false);
	vd_engine_set_ready(&e, a, V(100) + 100);
	vd_engine_advance(&e, V(104));
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->request.first_pixel_ns, V(102) + 7000000);
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->refresh, 102);
}

/* MAILBOX: a newer request that has not reached the engine (not ready) replaces nothing; the pending
 * one latches at the vblank. */
static void test_mailbox_not_ready_newer(void)
{
	struct vd_engine e;
	struct log log;

	start(&e, &log, HZ60);
	uint64_t a = queue(&e, VD_MODE_MAILBOX, 0, V(100) + 10);
	uint64_t b = queue(&e, VD_MODE_MAILBOX, 1, V(100) + 20);
	vd_engine_set_ready(&e, a, V(100) + 100);
	vd_engine_advance(&e, V(101) + 10);
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->refresh, 101);
	CHECK_EQ(count(&log, VD_EV_REPLACED), 0);
	vd_engine_set_ready(&e, b, V(101) + 100);
	vd_engine_advance(&e, V(102));
	CHECK_EQ(of(&log, VD_EV_SHOWN, b)->refresh, 102);
}

/* Per-present modes (swapchain_maintenance1): requests keep queue order across modes; an IMMEDIATE
 * request behind a FIFO one waits for it, then tears in at once. */
static void test_mixed_modes(void)
{
	struct vd_engine e;
	struct log log;

	start(&e, &log, HZ60);
	uint64_t a = queue(&e, VD_MODE_FIFO, 0, V(100) + 10);
	uint64_t b = queue(&e, VD_MODE_IMMEDIATE, 1, V(100) + 20);
	vd_engine_set_ready(&e, a, V(100) + 100);
	vd_engine_set_ready(&e, b, V(100) + 200);
	vd_engine_advance(&e, V(103));
	CHECK_EQ(of(&log, VD_EV_SHOWN, a)->request.first_pixel_ns, V(101));
	CHECK_EQ(of(&log, VD_EV_SHOWN, b)->request.first_pixel_ns, V(101)); /* right behind a, tearing */
	CHECK_EQ(of(&log, VD_EV_SHOWN, b)->refresh, 101);
	/* A cancelled request (its submission failed) never shows and holds nothing back. */
	uint64_t c = queue(&e, VD_MODE_FIFO, 2, V(103) + 10);
	uint64_t d = queue(&e, VD_MODE_FIFO, 3, V(103) + 20);
	CHECK(vd_engine_cancel(&e, c));
	vd_engine_set_ready(&e, d, V(103) + 100);
	vd_engine_advance(&e, V(105));
	CHECK(find_of(&log, VD_EV_SHOWN, c) == NULL);
	CHECK_EQ(of(&log, VD_EV_SHOWN, d)->refresh, 104);
}

int main(void)
{
	test_grid();
	test_fifo_one_per_refresh();
	test_fifo_ready_time_decides();
	test_fifo_not_ready_blocks();
	test_fifo_relaxed();
	test_mailbox_replaces();
	test_immediate_never_drops();
	test_fifo_latest_ready();
	test_fifo_latest_ready_target();
	test_target_absolute();
	test_target_nearest();
	test_target_early();
	test_target_relative();
	test_fractional_rate();
	test_fifo_rate_when_queue_full();
	test_vrr();
	test_fifo_relaxed_first_late();
	test_immediate_target();
	test_mailbox_not_ready_newer();
	test_mixed_modes();
	return vd_check_done("scan-out");
}
