/* test_latency.c — the pure parts of VK_NV_low_latency2 in lowlat: owed semaphore signals
 * (latency_book.c: claim once, signal upwards, drop the implied ones), which limiter decides a
 * release (never two unless stacking), minimumIntervalUs as a cap. */
#include "check.h"
#include "latency_book.h"

static struct lowlat_owed owed(uint64_t sem, uint64_t value, int64_t release_ns)
{
	return (struct lowlat_owed){
	        .semaphore = sem, .value = value, .swapchain = 7, .release_ns = release_ns};
}

static void test_book(void)
{
	struct lowlat_owed_book b = {0};
	struct lowlat_owed o;
	int i;

	CHECK(lowlat_owed_for_wait(&b, 1, 1) == -1 && lowlat_owed_earliest(&b) == -1);
	o = owed(1, 5, 500);
	CHECK(lowlat_owed_add(&b, &o));
	o = owed(1, 6, 600);
	CHECK(lowlat_owed_add(&b, &o));
	o = owed(2, 1, 400);
	CHECK(lowlat_owed_add(&b, &o));
	/* A wait for 6 ends at our 6; for 4 at our 5 (the first value >= 4); for 7 nothing of ours. */
	CHECK(b.items[lowlat_owed_for_wait(&b, 1, 6)].value == 6);
	CHECK(b.items[lowlat_owed_for_wait(&b, 1, 4)].value == 5);
	CHECK(lowlat_owed_for_wait(&b, 1, 7) == -1);
	CHECK(lowlat_owed_for_wait(&b, 3, 1) == -1);
	/* Earliest release first, across semaphores. */
	CHECK(b.items[lowlat_owed_earliest(&b)].semaphore == 2);

	/* Claimed: nobody else gets it, and a wait it would end is left to its claimer. */
	i = lowlat_owed_for_wait(&b, 1, 5);
	b.items[i].claimed = true;
	CHECK(lowlat_owed_for_wait(&b, 1, 5) == -1);
	CHECK(lowlat_owed_for_wait(&b, 1, 4) == -1);
	CHECK(b.items[lowlat_owed_earliest(&b)].semaphore == 2);
	/* 6 must wait for the claimed 5 to go first. */
	i = lowlat_owed_for_wait(&b, 1, 6);
	b.items[i].claimed = true;
	CHECK(lowlat_owed_lower_claimed(&b, i));
	/* Signalling 6 satisfies the unclaimed values <= 6 of that semaphore, but not claimed 5. */
	CHECK(lowlat_owed_done(&b, i) == 1);
	CHECK_EQ_I64(b.count, 2);

	/* An unclaimed lower value is dropped with the higher one: it is never signalled after it. */
	struct lowlat_owed_book c = {0};
	o = owed(1, 3, 300);
	lowlat_owed_add(&c, &o);
	o = owed(1, 4, 400);
	lowlat_owed_add(&c, &o);
	i = lowlat_owed_for_wait(&c, 1, 4);
	c.items[i].claimed = true;
	CHECK(!lowlat_owed_lower_claimed(&c, i));
	CHECK(lowlat_owed_done(&c, i) == 2);
	CHECK_EQ_I64(c.count, 0);

	/* Full: the caller is told, and signals at once. */
	struct lowlat_owed_book f = {0};
	for (uint64_t v = 1; v <= LOWLAT_OWED_MAX; v++) {
		o = owed(9, v, (int64_t)v);
		CHECK(lowlat_owed_add(&f, &o));
	}
	o = owed(9, 1000, 1000);
	CHECK(!lowlat_owed_add(&f, &o));
	/* ... and makes room by dropping the values of that semaphore the new one implies. */
	f.items[0].claimed = true; /* value 1: its claimer still sends it */
	CHECK(lowlat_owed_drop_lower(&f, 9, 1000) == LOWLAT_OWED_MAX - 1);
	CHECK(lowlat_owed_add(&f, &o));
	CHECK(lowlat_owed_find(&f, 9, 1) == 0 && lowlat_owed_find(&f, 9, 1000) == 1);
	CHECK(lowlat_owed_find(&f, 9, 2) == -1);

	/* A swapchain going away hands back its unclaimed signals only. */
	struct lowlat_owed_book s = {0};
	o = owed(1, 1, 1);
	lowlat_owed_add(&s, &o);
	o = owed(1, 2, 2);
	o.swapchain = 8;
	lowlat_owed_add(&s, &o);
	o = owed(2, 1, 1);
	lowlat_owed_add(&s, &o);
	s.items[2].claimed = true;
	struct lowlat_owed out[LOWLAT_OWED_MAX];
	CHECK(lowlat_owed_take_swapchain(&s, 7, out) == 1 && out[0].semaphore == 1 && out[0].value == 1);
	CHECK_EQ_I64(s.count, 2);
	/* Or left in the book, due at once, for the signaler thread. */
	CHECK(lowlat_owed_release_swapchain(&s, 8, 0) == 1);
	i = lowlat_owed_earliest(&s);
	CHECK(i >= 0 && s.items[i].value == 2 && s.items[i].release_ns == 0 && s.items[i].swapchain == 0);
}

static void test_release(void)
{
	bool own, app, paced;

	/* One limiter: the lower cap rules, unless stacking. */
	lowlat_latency_grids(60000, 0, false, &own, &app);
	CHECK(own && !app);
	lowlat_latency_grids(0, 60000, false, &own, &app);
	CHECK(!own && app);
	lowlat_latency_grids(30000, 60000, false, &own, &app);
	CHECK(own && !app);
	lowlat_latency_grids(144000, 60000, false, &own, &app);
	CHECK(!own && app);
	lowlat_latency_grids(144000, 60000, true, &own, &app);
	CHECK(own && app);
	lowlat_latency_grids(0, 0, false, &own, &app);
	CHECK(!own && !app);

	CHECK_EQ_I64(lowlat_latency_release_ns(true, 200, true, 300, true, 100, &paced), 300);
	CHECK(paced);
	CHECK_EQ_I64(lowlat_latency_release_ns(true, 200, true, 300, false, 100, &paced), 300);
	CHECK_EQ_I64(lowlat_latency_release_ns(true, 200, false, 0, false, 100, &paced), 200);
	CHECK_EQ_I64(lowlat_latency_release_ns(false, 0, false, 0, false, 100, &paced), 100);
	CHECK(!paced);

	CHECK(lowlat_interval_us_to_mfps(0) == 0);
	CHECK(lowlat_interval_us_to_mfps(16666) == 60002); /* DXVK's 1e6 / 60, truncated */
	CHECK(lowlat_interval_us_to_mfps(1000000) == 1000);
	CHECK(lowlat_interval_us_to_mfps(5000000) == 1000); /* held at 1 fps */
	CHECK(lowlat_interval_us_to_mfps(10) == 10000000);  /* held at 10000 fps */
}

int main(void)
{
	RUN(test_book);
	RUN(test_release);
	return check_result();
}
