/* test_id_map.c — a swapchain's present-id map (layer/vulkan/id_map.c): lowlat's ids one a present, the
 * app's ids (skipping values, or none) translated to the first of lowlat's at or above them. */
#include "check.h"
#include "id_map.h"

/* translate's answer: the lowlat id, or -(latest) when no present reached app_id yet. */
static int64_t lookup(struct lowlat_id_map *m, uint64_t app_id)
{
	uint64_t ours = 0;
	bool found = lowlat_id_map_translate(m, app_id, &ours);
	return found ? (int64_t)ours : -(int64_t)ours;
}

static void test_skipped_ids(void)
{
	struct lowlat_id_map m;

	lowlat_id_map_init(&m);
	CHECK(m.lock.ready);
	/* Nothing presented: the next present of ours will be 1. */
	CHECK_EQ_I64(lookup(&m, 1), 0);
	/* vkd3d-proton's pattern: ids that skip values, and presents without one. */
	CHECK_EQ_I64(lowlat_id_map_issue(&m, 10), 1);
	CHECK_EQ_I64(lowlat_id_map_issue(&m, 0), 2);
	CHECK_EQ_I64(lowlat_id_map_issue(&m, 20), 3);
	CHECK_EQ_I64(lowlat_id_map_issue(&m, 21), 4);
	CHECK_EQ_I64(lookup(&m, 10), 1);
	CHECK_EQ_I64(lookup(&m, 1), 1);  /* below the first: reached with it */
	CHECK_EQ_I64(lookup(&m, 11), 3); /* a skipped id: reached with the next one above it */
	CHECK_EQ_I64(lookup(&m, 20), 3);
	CHECK_EQ_I64(lookup(&m, 21), 4);
	/* Above every present made: not yet, lowlat's latest is 4. */
	CHECK_EQ_I64(lookup(&m, 22), -4);
	/* An app id not above the one before is the app's error: its present gets an id of ours
	 * but changes no answer. */
	CHECK_EQ_I64(lowlat_id_map_issue(&m, 15), 5);
	CHECK_EQ_I64(lookup(&m, 15), 3);
	CHECK_EQ_I64(lookup(&m, 22), -5);
	CHECK_EQ_I64(lowlat_id_map_issue(&m, 30), 6);
	CHECK_EQ_I64(lookup(&m, 22), 6);
	lowlat_id_map_fini(&m);
}

static void test_ring_wraps(void)
{
	struct lowlat_id_map m;
	uint64_t ours = 0;

	lowlat_id_map_init(&m);
	/* Three times the ring, app ids 2, 4, 6, ... and a present without one between each. */
	for (uint64_t i = 1; i <= 3 * LOWLAT_ID_MAP_SIZE; i++) {
		ours = lowlat_id_map_issue(&m, 2 * i);
		CHECK_EQ_I64(lowlat_id_map_issue(&m, 0), ours + 1);
	}
	CHECK_EQ_I64(ours, 2 * 3 * LOWLAT_ID_MAP_SIZE - 1);
	/* The newest stay exact. */
	CHECK_EQ_I64(lookup(&m, 2 * 3 * LOWLAT_ID_MAP_SIZE), (int64_t)ours);
	CHECK_EQ_I64(lookup(&m, 2 * 3 * LOWLAT_ID_MAP_SIZE - 1), (int64_t)ours);
	CHECK_EQ_I64(lookup(&m, 2 * 3 * LOWLAT_ID_MAP_SIZE - 2), (int64_t)ours - 2);
	/* The oldest kept: app id 2 * (2 * SIZE + 1), our id 2 * (2 * SIZE + 1) - 1. */
	uint64_t oldest_app = 2 * (2 * LOWLAT_ID_MAP_SIZE + 1);
	CHECK_EQ_I64(lookup(&m, oldest_app), (int64_t)oldest_app - 1);
	CHECK_EQ_I64(lookup(&m, oldest_app - 1), (int64_t)oldest_app - 1);
	/* At or older than the newest dropped: that one, at or after the true answer, never before. */
	CHECK_EQ_I64(lookup(&m, oldest_app - 2), (int64_t)oldest_app - 3);
	CHECK_EQ_I64(lookup(&m, 1), (int64_t)oldest_app - 3);
	CHECK(lookup(&m, 1) > 0);
	lowlat_id_map_fini(&m);
}

int main(void)
{
	RUN(test_skipped_ids);
	RUN(test_ring_wraps);
	return check_result();
}
