/* test_map.c — the handle map (plumbing.h): lookups, replacement, removal that keeps every other
 * key findable however the probes chained, draining with pop, and growth. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "plumbing.h"

static void *val(uint64_t key)
{
	return (void *)(uintptr_t)(key * 2 + 1);
}

/* Every key of keys[0..n) whose present[] is set is found with its value; the others are not. */
static void check_all(struct lowlat_map *m, const uint64_t *keys, const bool *present, int n)
{
	for (int i = 0; i < n; i++)
		CHECK(lowlat_map_find(m, keys[i]) == (present[i] ? val(keys[i]) : NULL));
}

static void test_basic(void)
{
	struct lowlat_map m = LOWLAT_MAP_INIT;

	CHECK(lowlat_map_find(&m, 42) == NULL);
	CHECK(lowlat_map_remove(&m, 42) == NULL);
	CHECK(lowlat_map_insert(&m, 42, val(42)));
	CHECK(lowlat_map_find(&m, 42) == val(42));
	/* A reused handle: the new object replaces the old, one entry. */
	CHECK(lowlat_map_insert(&m, 42, val(7)));
	CHECK(lowlat_map_find(&m, 42) == val(7));
	CHECK_EQ_I64(m.count, 1);
	CHECK(lowlat_map_remove(&m, 42) == val(7));
	CHECK(lowlat_map_find(&m, 42) == NULL);
	/* The last object gone, the table is released. */
	CHECK(m.items == NULL && m.capacity == 0);
	lowlat_map_fini(&m);
}

/* Keys that hash to the same home slot (multiples of the table size under the multiplier are not
 * predictable, so use many keys): removing any of them in any order leaves the rest findable. */
static void test_churn(void)
{
	enum { N = 1000 };
	static uint64_t keys[N];
	static bool present[N];
	struct lowlat_map m = LOWLAT_MAP_INIT;
	uint64_t state = 12345;

	for (int i = 0; i < N; i++) {
		/* Pointer-like keys: 16-byte aligned, clustered. */
		keys[i] = 0x7f0000001000ull + (uint64_t)i * 16;
		CHECK(lowlat_map_insert(&m, keys[i], val(keys[i])));
		present[i] = true;
	}
	CHECK_EQ_I64(m.count, N);
	CHECK(m.capacity >= 2 * N);
	check_all(&m, keys, present, N);
	for (int round = 0; round < 4000; round++) {
		state = state * 6364136223846793005ull + 1442695040888963407ull;
		int i = (int)((state >> 33) % N);
		if (present[i])
			CHECK(lowlat_map_remove(&m, keys[i]) == val(keys[i]));
		else
			CHECK(lowlat_map_insert(&m, keys[i], val(keys[i])));
		present[i] = !present[i];
	}
	check_all(&m, keys, present, N);
	int left = 0;
	for (int i = 0; i < N; i++)
		left += present[i];
	CHECK_EQ_I64(m.count, left);
	/* pop drains every entry, each once. */
	void *v;
	int popped = 0;
	while ((v = lowlat_map_pop(&m)))
		popped++;
	CHECK_EQ_I64(popped, left);
	CHECK(m.count == 0 && m.items == NULL);
	lowlat_map_fini(&m);
}

int main(void)
{
	RUN(test_basic);
	RUN(test_churn);
	return check_result();
}
