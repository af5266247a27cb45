/* id_map.h — one swapchain's present ids: lowlat's own, and the app's mapped onto them.
 *
 * Why: present ids must strictly increase per swapchain, and an app may attach its own (skipping
 * values, as vkd3d-proton does, or none at all: 0) while lowlat needs every present to carry one it
 * can wait for. So where lowlat waits for presents (the "present-wait" pacing level) the driver
 * sees only lowlat's ids, 1, 2, 3, ... one per present, and each present the app gave an id is
 * remembered as app id -> lowlat id. An app's wait for id x then waits for the first lowlat id whose
 * app id is >= x, which is what "the present id reached x" means in the app's own space.
 *
 * Pure C, no Vulkan: the present thread issues ids, any thread translates; one mutex guards the
 * map, held only for the arithmetic (never while waiting or calling down).
 */
#ifndef LOWLAT_ID_MAP_H
#define LOWLAT_ID_MAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "plumbing.h"

/* App ids remembered per swapchain. The app waits for recent presents (DXVK and vkd3d-proton for
 * frame N - their frame latency, at most 16 back); an id older than the ring maps to the newest
 * one it dropped, whose present was made 64 presents ago and so is long shown. */
#define LOWLAT_ID_MAP_SIZE 64u

struct lowlat_id_pair {
	uint64_t app, ours;
};

struct lowlat_id_map {
	struct lowlat_lock lock;
	uint64_t last;                                  /* lowlat's latest id, 0 before the first */
	struct lowlat_id_pair ring[LOWLAT_ID_MAP_SIZE]; /* app ids in present order */
	uint32_t first, count;
	struct lowlat_id_pair dropped; /* the newest pair that left the ring; app 0 when none did */
};

void lowlat_id_map_init(struct lowlat_id_map *m);
void lowlat_id_map_fini(struct lowlat_id_map *m);

/* Present thread: the id the driver sees for the next present, which the app gave app_id (0 =
 * none). An app id not above the app's previous one is the app's error (the spec forbids it): its
 * present still gets lowlat's next id, but is not remembered, so waits keep their order. */
uint64_t lowlat_id_map_issue(struct lowlat_id_map *m, uint64_t app_id);

/* Any thread: the lowlat id to wait for so that the app's id app_id counts as reached. True with
 * *ours set when a present with an app id >= app_id was made; false when none was yet, with
 * *ours = lowlat's latest id (the next present's will be above it). */
bool lowlat_id_map_translate(struct lowlat_id_map *m, uint64_t app_id, uint64_t *ours);

#endif
