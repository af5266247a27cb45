/* probe.c — the benchmark's probe: a tiny explicit layer that timestamps every vkQueuePresentKHR.
 *
 * Not part of lowlat. The benchmark names it first in VK_INSTANCE_LAYERS, so it is the top of the
 * chain and sees presents as the application does: "entry" is when the app hands a frame in,
 * "return" is when every limiter below has released the app again. For each present it stores
 * CLOCK_MONOTONIC ns at entry and at return, the process CPU time at return and the calling thread's
 * CPU time at entry and at return, into an array that is allocated and touched before the first
 * frame (so recording never faults or allocates on the present path), and writes them as CSV to
 * $LOWLAT_PROBE_CSV when the last device is destroyed or, failing that, at process exit. Without
 * LOWLAT_PROBE_CSV it passes everything through.
 *
 * Built twice: PROBE_BELOW makes VK_LAYER_LOWLAT_bench_probe_below, which the benchmark puts under
 * the limiter (writing $LOWLAT_PROBE_BELOW_CSV). The thread CPU time of a present above the limiter
 * less that below it is what the limiter's own hook (its wait, mostly) cost the presenting thread.
 *
 * Plumbing is the minimum: instance and device creation (to find the next layer), vkDestroyDevice
 * (to write the file) and vkQueuePresentKHR. pAllocator is passed down untouched; the probe's own
 * few allocations use malloc, which is fine for a benchmark tool.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vk_layer.h>

#include "../../test_layer.h"
#include "plumbing.h"

#define PROBE_EXPORT __attribute__((visibility("default")))

#ifdef PROBE_BELOW
#define PROBE_CSV_ENV "LOWLAT_PROBE_BELOW_CSV"
#else
#define PROBE_CSV_ENV "LOWLAT_PROBE_CSV"
#endif

/* Room for 65536 presents by default: 18 minutes at 60 fps, a minute at 1000 fps. 56 bytes each. */
#define PROBE_DEFAULT_FRAMES 65536

/* A benchmark has one instance and one device; a few slots cover apps that make more. */
#define PROBE_MAX_OBJECTS 16

struct probe_record {
	int64_t entry_ns;             /* CLOCK_MONOTONIC when the app called vkQueuePresentKHR */
	int64_t return_ns;            /* CLOCK_MONOTONIC when the call below returned */
	int64_t cpu_ns;               /* CLOCK_PROCESS_CPUTIME_ID just after return_ns */
	int64_t thread_entry_cpu_ns;  /* CLOCK_THREAD_CPUTIME_ID just before entry_ns */
	int64_t thread_return_cpu_ns; /* CLOCK_THREAD_CPUTIME_ID just after return_ns */
	uint64_t swapchain;           /* the first swapchain presented to */
	int32_t result;
	int32_t swapchain_count;
};

struct probe_instance {
	uint64_t key;
	VkInstance handle;
	PFN_vkGetInstanceProcAddr next_gipa;
	PFN_vkDestroyInstance DestroyInstance;
};

struct probe_device {
	uint64_t key;
	PFN_vkGetDeviceProcAddr next_gdpa;
	PFN_vkDestroyDevice DestroyDevice;
	PFN_vkQueuePresentKHR QueuePresentKHR;
};

/* Guards the two object tables and the one-time set-up and writing of the records; never held
 * while calling down the chain. */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static struct probe_instance instances[PROBE_MAX_OBJECTS];
static struct probe_device devices[PROBE_MAX_OBJECTS];
static unsigned live_devices;

/* Records are claimed with one atomic add, so presents from several threads never share a slot;
 * slots past the capacity are counted (next_slot keeps growing) but not stored. */
static struct probe_record *records;
static uint64_t record_capacity;
static atomic_uint_fast64_t next_slot;
static bool written;

static uint64_t dispatch_key(const void *dispatchable_handle)
{
	return (uint64_t)(uintptr_t) * (void *const *)dispatchable_handle;
}

static int64_t clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Called with probe_lock held, from the first vkCreateDevice: allocates and touches every page of
 * the record array, so the present path only ever writes memory that is already mapped. */
static void records_prepare_locked(void)
{
	const char *frames_env = getenv("LOWLAT_PROBE_FRAMES");
	uint64_t frames = PROBE_DEFAULT_FRAMES;

	if (records || !getenv(PROBE_CSV_ENV))
		return;
	if (frames_env && strtoull(frames_env, NULL, 10) > 0)
		frames = strtoull(frames_env, NULL, 10);
	records = calloc(frames, sizeof(*records));
	if (!records) {
		fprintf(stderr, "lowlat-probe: cannot allocate %llu records; not recording\n",
		        (unsigned long long)frames);
		return;
	}
	/* calloc may hand back untouched zero pages; write them now rather than on the present path. */
	memset(records, 0, frames * sizeof(*records));
	record_capacity = frames;
}

/* Called with probe_lock held. Writes the records once; a second call (exit after vkDestroyDevice)
 * does nothing. */
static void records_write_locked(void)
{
	const char *path = getenv(PROBE_CSV_ENV);
	uint64_t count = atomic_load(&next_slot);
	uint64_t stored = count < record_capacity ? count : record_capacity;
	FILE *f;

	if (written || !records || !path)
		return;
	written = true;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "lowlat-probe: cannot write %s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(f, "present,entry_ns,return_ns,cpu_ns,result,swapchains,thread_entry_cpu_ns,"
	           "thread_return_cpu_ns,swapchain\n");
	for (uint64_t i = 0; i < stored; i++)
		fprintf(f, "%llu,%lld,%lld,%lld,%d,%d,%lld,%lld,%llu\n", (unsigned long long)i,
		        (long long)records[i].entry_ns, (long long)records[i].return_ns,
		        (long long)records[i].cpu_ns, records[i].result, records[i].swapchain_count,
		        (long long)records[i].thread_entry_cpu_ns, (long long)records[i].thread_return_cpu_ns,
		        (unsigned long long)records[i].swapchain);
	if (fclose(f) != 0)
		fprintf(stderr, "lowlat-probe: error writing %s: %s\n", path, strerror(errno));
	if (count > stored)
		fprintf(stderr, "lowlat-probe: %llu presents did not fit (LOWLAT_PROBE_FRAMES=%llu)\n",
		        (unsigned long long)(count - stored), (unsigned long long)record_capacity);
}

/* Apps that exit without destroying their device still get their file. */
__attribute__((destructor)) static void probe_at_exit(void)
{
	pthread_mutex_lock(&probe_lock);
	records_write_locked();
	pthread_mutex_unlock(&probe_lock);
}

static struct probe_instance *instance_slot(uint64_t key)
{
	for (unsigned i = 0; i < PROBE_MAX_OBJECTS; i++)
		if (instances[i].key == key)
			return &instances[i];
	return NULL;
}

static struct probe_device *device_slot(uint64_t key)
{
	for (unsigned i = 0; i < PROBE_MAX_OBJECTS; i++)
		if (devices[i].key == key)
			return &devices[i];
	return NULL;
}

static VKAPI_ATTR VkResult VKAPI_CALL probe_CreateInstance(const VkInstanceCreateInfo *info,
                                                           const VkAllocationCallbacks *allocator,
                                                           VkInstance *out)
{
	VkLayerInstanceCreateInfo *link = NULL;
	struct probe_instance *slot;

	/* The loader's own struct, which the layer interface requires us to advance. */
	link = lowlat_find_instance_link(info);
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;

	VkLayerInstanceLink *ours = link->u.pLayerInfo;
	PFN_vkGetInstanceProcAddr next_gipa = ours->pfnNextGetInstanceProcAddr;
	PFN_vkCreateInstance next_create = (PFN_vkCreateInstance)next_gipa(NULL, "vkCreateInstance");
	if (!next_create)
		return VK_ERROR_INITIALIZATION_FAILED;

	link->u.pLayerInfo = ours->pNext;
	VkResult result = next_create(info, allocator, out);
	link->u.pLayerInfo = ours;
	if (result != VK_SUCCESS)
		return result;

	PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)next_gipa(*out, "vkDestroyInstance");
	pthread_mutex_lock(&probe_lock);
	slot = instance_slot(0);
	if (slot) {
		slot->key = dispatch_key(*out);
		slot->handle = *out;
		slot->next_gipa = next_gipa;
		slot->DestroyInstance = destroy;
	}
	pthread_mutex_unlock(&probe_lock);
	if (!slot || !destroy) {
		if (destroy)
			destroy(*out, allocator);
		*out = VK_NULL_HANDLE;
		return VK_ERROR_INITIALIZATION_FAILED;
	}
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL probe_DestroyInstance(VkInstance instance,
                                                        const VkAllocationCallbacks *allocator)
{
	PFN_vkDestroyInstance destroy = NULL;
	struct probe_instance *slot;

	if (!instance)
		return;
	pthread_mutex_lock(&probe_lock);
	if ((slot = instance_slot(dispatch_key(instance)))) {
		destroy = slot->DestroyInstance;
		memset(slot, 0, sizeof(*slot));
	}
	pthread_mutex_unlock(&probe_lock);
	if (destroy)
		destroy(instance, allocator);
}

static VKAPI_ATTR VkResult VKAPI_CALL probe_CreateDevice(VkPhysicalDevice physical,
                                                         const VkDeviceCreateInfo *info,
                                                         const VkAllocationCallbacks *allocator,
                                                         VkDevice *out)
{
	VkLayerDeviceCreateInfo *link = NULL;
	VkInstance instance = VK_NULL_HANDLE;
	struct probe_instance *inst;
	struct probe_device *slot;

	link = lowlat_find_device_link(info);
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;

	VkLayerDeviceLink *ours = link->u.pLayerInfo;
	PFN_vkGetInstanceProcAddr next_gipa = ours->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr next_gdpa = ours->pfnNextGetDeviceProcAddr;
	/* A physical device carries its instance's dispatch key; layers below want the instance. */
	pthread_mutex_lock(&probe_lock);
	if ((inst = instance_slot(dispatch_key(physical))))
		instance = inst->handle;
	pthread_mutex_unlock(&probe_lock);
	if (!instance)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkCreateDevice next_create = (PFN_vkCreateDevice)next_gipa(instance, "vkCreateDevice");
	if (!next_create)
		return VK_ERROR_INITIALIZATION_FAILED;

	link->u.pLayerInfo = ours->pNext;
	VkResult result = next_create(physical, info, allocator, out);
	link->u.pLayerInfo = ours;
	if (result != VK_SUCCESS)
		return result;

	PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)next_gdpa(*out, "vkDestroyDevice");
	pthread_mutex_lock(&probe_lock);
	slot = device_slot(0);
	if (slot) {
		slot->key = dispatch_key(*out);
		slot->next_gdpa = next_gdpa;
		slot->DestroyDevice = destroy;
		slot->QueuePresentKHR = (PFN_vkQueuePresentKHR)next_gdpa(*out, "vkQueuePresentKHR");
		live_devices++;
		records_prepare_locked();
	}
	pthread_mutex_unlock(&probe_lock);
	if (!slot || !destroy) {
		if (destroy)
			destroy(*out, allocator);
		*out = VK_NULL_HANDLE;
		return VK_ERROR_INITIALIZATION_FAILED;
	}
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL probe_DestroyDevice(VkDevice device, const VkAllocationCallbacks *allocator)
{
	PFN_vkDestroyDevice destroy = NULL;
	struct probe_device *slot;

	if (!device)
		return;
	pthread_mutex_lock(&probe_lock);
	if ((slot = device_slot(dispatch_key(device)))) {
		destroy = slot->DestroyDevice;
		memset(slot, 0, sizeof(*slot));
		/* The file is written when the last device goes, while the app is still alive and
		 * before any exit-time teardown could lose it. */
		if (--live_devices == 0)
			records_write_locked();
	}
	pthread_mutex_unlock(&probe_lock);
	if (destroy)
		destroy(device, allocator);
}

static VKAPI_ATTR VkResult VKAPI_CALL probe_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	int64_t thread_entry_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int64_t entry_ns = clock_ns(CLOCK_MONOTONIC);
	PFN_vkQueuePresentKHR present = NULL;
	struct probe_device *slot;

	/* A queue carries its device's dispatch key. */
	pthread_mutex_lock(&probe_lock);
	if ((slot = device_slot(dispatch_key(queue))))
		present = slot->QueuePresentKHR;
	pthread_mutex_unlock(&probe_lock);
	if (!present)
		return VK_ERROR_DEVICE_LOST;

	VkResult result = present(queue, info);
	int64_t return_ns = clock_ns(CLOCK_MONOTONIC);
	int64_t thread_return_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	if (records) {
		uint64_t i = atomic_fetch_add(&next_slot, 1);
		if (i < record_capacity) {
			records[i].entry_ns = entry_ns;
			records[i].return_ns = return_ns;
			records[i].cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
			records[i].thread_entry_cpu_ns = thread_entry_cpu_ns;
			records[i].thread_return_cpu_ns = thread_return_cpu_ns;
			records[i].result = result;
			records[i].swapchain_count = (int32_t)info->swapchainCount;
			records[i].swapchain = info->swapchainCount ? (uint64_t)info->pSwapchains[0] : 0;
		}
	}
	return result;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL probe_GetDeviceProcAddr(VkDevice device, const char *name);

/* The device functions are offered only where the next layer has them, so a hook never calls NULL. */
static PFN_vkVoidFunction device_hook(const char *name)
{
	if (!strcmp(name, "vkGetDeviceProcAddr"))
		return (PFN_vkVoidFunction)probe_GetDeviceProcAddr;
	if (!strcmp(name, "vkDestroyDevice"))
		return (PFN_vkVoidFunction)probe_DestroyDevice;
	if (!strcmp(name, "vkQueuePresentKHR"))
		return (PFN_vkVoidFunction)probe_QueuePresentKHR;
	return NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL probe_GetDeviceProcAddr(VkDevice device, const char *name)
{
	PFN_vkGetDeviceProcAddr next_gdpa = NULL;
	struct probe_device *slot;
	PFN_vkVoidFunction next, hook;

	if (!device || !name)
		return NULL;
	pthread_mutex_lock(&probe_lock);
	if ((slot = device_slot(dispatch_key(device))))
		next_gdpa = slot->next_gdpa;
	pthread_mutex_unlock(&probe_lock);
	if (!next_gdpa || !(next = next_gdpa(device, name)))
		return NULL;
	return (hook = device_hook(name)) ? hook : next;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL probe_GetInstanceProcAddr(VkInstance instance,
                                                                          const char *name)
{
	PFN_vkGetInstanceProcAddr next_gipa = NULL;
	struct probe_instance *slot;
	PFN_vkVoidFunction next, hook;

	if (!name)
		return NULL;
	if (!strcmp(name, "vkCreateInstance"))
		return (PFN_vkVoidFunction)probe_CreateInstance;
	if (!instance)
		return NULL;
	pthread_mutex_lock(&probe_lock);
	if ((slot = instance_slot(dispatch_key(instance))))
		next_gipa = slot->next_gipa;
	pthread_mutex_unlock(&probe_lock);
	if (!next_gipa)
		return NULL;
	if (!strcmp(name, "vkGetInstanceProcAddr"))
		return (PFN_vkVoidFunction)probe_GetInstanceProcAddr;
	if (!(next = next_gipa(instance, name)))
		return NULL;
	if (!strcmp(name, "vkDestroyInstance"))
		return (PFN_vkVoidFunction)probe_DestroyInstance;
	if (!strcmp(name, "vkCreateDevice"))
		return (PFN_vkVoidFunction)probe_CreateDevice;
	return (hook = device_hook(name)) ? hook : next;
}

PROBE_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *negotiate)
{
	return negotiate_version_2(negotiate, probe_GetInstanceProcAddr, probe_GetDeviceProcAddr);
}
