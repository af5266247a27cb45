/* test_present_ids.c — lowlat's own present ids (layer/present/present_ids.c) against a fake driver whose
 * present wait returns once a "display" thread has shown an id: the present info's copy carries
 * lowlat's ids in place of the app's (the app's structs untouched), and the app's waits for its own
 * ids (skipped ones, one not presented yet, one never presented) are translated; the present walks
 * the app's chain once. With real threads, for ThreadSanitizer too. */
#include <pthread.h>
#include <time.h>

#include "chain.h"
#include "check.h"
#include "clock.h"
#include "present_call.h"
#include "present_ids.h"
#include "swapchain.h"

/* ---- the fake driver: the latest id shown, and every id a wait asked for ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static uint64_t shown;
static uint64_t asked[16];
static int asked_count;

static VKAPI_ATTR VkResult VKAPI_CALL fake_wait(VkDevice device, VkSwapchainKHR swapchain, uint64_t id,
                                                uint64_t timeout)
{
	struct timespec now;
	(void)device;
	(void)swapchain;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t until = (int64_t)now.tv_sec * 1000000000ll + now.tv_nsec +
	                (timeout > 2000000000ull ? 2000000000ll : (int64_t)timeout);
	struct timespec ts = {.tv_sec = until / 1000000000ll, .tv_nsec = until % 1000000000ll};
	VkResult r = VK_SUCCESS;

	pthread_mutex_lock(&lock);
	if (asked_count < 16)
		asked[asked_count++] = id;
	while (shown < id && r == VK_SUCCESS)
		if (pthread_cond_timedwait(&cond, &lock, &ts))
			r = shown < id ? VK_TIMEOUT : VK_SUCCESS;
	pthread_mutex_unlock(&lock);
	return r;
}

static void show(uint64_t id)
{
	pthread_mutex_lock(&lock);
	shown = id;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static struct lowlat_device dev;
static struct lowlat_swapchain owned, plain;

/* Presents one swapchain with the app's id (0: no VkPresentIdKHR); returns the id the driver saw. */
static uint64_t present(struct lowlat_swapchain *sc, uint64_t app_id)
{
	VkPresentIdKHR ids = {
	        .sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR, .swapchainCount = 1, .pPresentIds = &app_id};
	VkPresentInfoKHR info = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
	                         .pNext = app_id ? &ids : NULL,
	                         .swapchainCount = 1,
	                         .pSwapchains = &sc->handle};
	struct lowlat_ids_present p;
	/* The call as the present hook resolves it (present_call.h). */
	struct lowlat_present_call call = {.dev = &dev, .app = &info, .count = 1};
	call.frames[0] = (struct lowlat_frame){.sc = sc, .call = &call};
	lowlat_chain_walks = 0;
	lowlat_present_chain_scan(&call.chain, info.pNext);
	lowlat_ids_app_ids(&call);
	lowlat_ids_present(&call, &p);
	const VkPresentInfoKHR *out = lowlat_call_down(&call);
	/* One walk of the app's chain, the scan, whether lowlat replaced the app's ids or not. */
	CHECK_EQ_I64(lowlat_chain_walks, 1);
	const VkPresentIdKHR *seen = lowlat_chain_find(out->pNext, VK_STRUCTURE_TYPE_PRESENT_ID_KHR);
	uint64_t app_before = app_id;

	/* The app's structs are never written. */
	CHECK(ids.pPresentIds == &app_id && app_id == app_before &&
	      info.pNext == (app_id ? (void *)&ids : NULL));
	if (!seen || !seen->pPresentIds || seen->swapchainCount != 1)
		return 0;
	return seen->pPresentIds[0];
}

static void *later_present(void *arg)
{
	(void)arg;
	struct timespec ts = {.tv_nsec = 20000000}; /* 20 ms */
	nanosleep(&ts, NULL);
	uint64_t ours = present(&owned, 25);
	nanosleep(&ts, NULL);
	show(ours);
	return NULL;
}

static void test_ids(void)
{
	/* Owned: the driver sees 1, 2, 3 whatever the app attached (skipping ids, or none). */
	CHECK_EQ_I64(present(&owned, 10), 1);
	CHECK_EQ_I64(present(&owned, 0), 2);
	CHECK_EQ_I64(present(&owned, 20), 3);
	CHECK_EQ_I64(owned.present_id, 3);
	/* Not owned: the app's id reaches the driver as it was. */
	CHECK_EQ_I64(present(&plain, 7), 7);
	CHECK_EQ_I64(plain.present_id, 0);
}

static void test_waits(void)
{
	int64_t begin;

	show(3);
	/* A skipped id (11): reached with the next one above it, lowlat's 3. */
	asked_count = 0;
	CHECK_EQ_I64(lowlat_ids_wait(&dev, &owned, owned.handle, 11, 1000000000, NULL), VK_SUCCESS);
	CHECK_EQ_I64(asked_count, 1);
	CHECK_EQ_I64(asked[0], 3);
	/* Not presented yet (21): waits for lowlat's next present to be shown, which is the app's 25. */
	pthread_t t;
	asked_count = 0;
	begin = lowlat_now_ns();
	CHECK(pthread_create(&t, NULL, later_present, NULL) == 0);
	CHECK_EQ_I64(lowlat_ids_wait(&dev, &owned, owned.handle, 21, 1000000000, NULL), VK_SUCCESS);
	CHECK(lowlat_now_ns() - begin >= 30000000); /* the show came 40 ms in */
	pthread_join(t, NULL);
	CHECK(asked_count >= 1 && asked[0] == 4);
	/* Never presented: the app's timeout. */
	begin = lowlat_now_ns();
	CHECK_EQ_I64(lowlat_ids_wait(&dev, &owned, owned.handle, 1000, 20000000, NULL), VK_TIMEOUT);
	CHECK(lowlat_now_ns() - begin >= 15000000 && lowlat_now_ns() - begin < 1000000000);
	/* Not owned: passed through. */
	asked_count = 0;
	CHECK_EQ_I64(lowlat_ids_wait(&dev, &plain, plain.handle, 2, 1000000000, NULL), VK_SUCCESS);
	CHECK(asked_count == 1 && asked[0] == 2);
}

int main(void)
{
	static void *key[1] = {&key};

	dev = (struct lowlat_device){.handle = (VkDevice)(void *)key};
	dev.swapchains = (struct lowlat_map)LOWLAT_MAP_INIT;
	dev.vk.WaitForPresentKHR = fake_wait;
	owned.handle = (VkSwapchainKHR)(uintptr_t)0x51;
	plain.handle = (VkSwapchainKHR)(uintptr_t)0x52;
	owned.device = plain.device = &dev;
	lowlat_id_map_init(&owned.ids);
	lowlat_id_map_init(&plain.ids);
	owned.ids_owned = true;
	CHECK(lowlat_map_insert(&dev.swapchains, (uint64_t)owned.handle, &owned));
	CHECK(lowlat_map_insert(&dev.swapchains, (uint64_t)plain.handle, &plain));
	RUN(test_ids);
	RUN(test_waits);
	lowlat_id_map_fini(&owned.ids);
	lowlat_id_map_fini(&plain.ids);
	lowlat_map_fini(&dev.swapchains);
	return check_result();
}
