/* id_map.c — a swapchain's present-id map; see id_map.h. */
#include "id_map.h"

void lowlat_id_map_init(struct lowlat_id_map *m)
{
	*m = (struct lowlat_id_map){0};
	lowlat_lock_init(&m->lock);
}

void lowlat_id_map_fini(struct lowlat_id_map *m)
{
	lowlat_lock_fini(&m->lock);
}

/* The newest app id remembered, 0 when none. */
static uint64_t newest_app_locked(const struct lowlat_id_map *m)
{
	if (m->count)
		return m->ring[(m->first + m->count - 1) % LOWLAT_ID_MAP_SIZE].app;
	return m->dropped.app;
}

uint64_t lowlat_id_map_issue(struct lowlat_id_map *m, uint64_t app_id)
{
	uint64_t ours;

	if (!m->lock.ready)
		return 0;
	pthread_mutex_lock(&m->lock.mutex);
	ours = ++m->last;
	if (app_id && app_id > newest_app_locked(m)) {
		if (m->count == LOWLAT_ID_MAP_SIZE) {
			m->dropped = m->ring[m->first];
			m->first = (m->first + 1) % LOWLAT_ID_MAP_SIZE;
			m->count--;
		}
		m->ring[(m->first + m->count) % LOWLAT_ID_MAP_SIZE] =
		        (struct lowlat_id_pair){.app = app_id, .ours = ours};
		m->count++;
	}
	pthread_mutex_unlock(&m->lock.mutex);
	return ours;
}

bool lowlat_id_map_translate(struct lowlat_id_map *m, uint64_t app_id, uint64_t *ours)
{
	bool found = false;

	if (!m->lock.ready) {
		*ours = 0;
		return false;
	}
	pthread_mutex_lock(&m->lock.mutex);
	*ours = m->last;
	if (m->dropped.app && app_id <= m->dropped.app) {
		/* Older than the ring: the first present at or above it is at most the dropped one. */
		*ours = m->dropped.ours;
		found = true;
	}
	/* App ids increase along the ring: the first at or above app_id. */
	for (uint32_t i = 0; i < m->count && !found; i++) {
		const struct lowlat_id_pair *p = &m->ring[(m->first + i) % LOWLAT_ID_MAP_SIZE];
		if (p->app >= app_id) {
			*ours = p->ours;
			found = true;
		}
	}
	pthread_mutex_unlock(&m->lock.mutex);
	return found;
}
