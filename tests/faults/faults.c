/* faults.c — VK_LAYER_LOWLAT_faults, a test-only explicit layer that makes chosen calls fail.
 *
 * The tests enable it through VK_INSTANCE_LAYERS, which puts it *below* lowlat (layers enabled by
 * their environment variable sit above the ones named there): what it returns is, as far as lowlat
 * can tell, what the driver returned. Configured by
 *
 *   LOWLAT_FAULTS="vkQueuePresentKHR=VK_ERROR_OUT_OF_DATE_KHR@5,vkCreateDevice=VK_ERROR_OUT_OF_HOST_MEMORY@1+"
 *
 * FUNCTION=RESULT@N fails the Nth call of FUNCTION (counted from 1, over the whole process), @N+
 * fails every call from the Nth on. Each injected failure is logged as one line on stderr,
 *
 *   faults: vkQueuePresentKHR call 5 -> VK_ERROR_OUT_OF_DATE_KHR
 *
 * so a test can check that its fault really happened. A malformed LOWLAT_FAULTS aborts the process:
 * a test that silently injects nothing would pass for the wrong reason.
 *
 * How each call fails, following the spec:
 * - creates (instance, device, swapchain) do not call down, so nothing exists below that the app
 *   cannot destroy, and set the out handle to VK_NULL_HANDLE;
 * - acquires do not call down: no image is acquired, no semaphore or fence is signalled;
 * - presents do call down and then report the error (and write it to every pResults entry): the spec
 *   says a present rejected with OUT_OF_DATE or SURFACE_LOST still executes its semaphore waits,
 *   so the waits must reach the driver or the app's next signal of the same semaphore would be
 *   invalid. For DEVICE_LOST anything may have happened; calling down is one of those things.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "../test_layer.h"
#include "plumbing.h"

#define FAULTS_PREFIX "faults: "

/* Functions whose calls can be made to fail; the enum indexes the call counters. */
#define FAULT_FUNCTIONS(F)                                                                                   \
	F(CreateInstance)                                                                                    \
	F(CreateDevice)                                                                                      \
	F(CreateSwapchainKHR)                                                                                \
	F(AcquireNextImageKHR)                                                                               \
	F(AcquireNextImage2KHR)                                                                              \
	F(QueuePresentKHR)

enum fault_function {
#define F_ENUM(name) FN_##name,
	FAULT_FUNCTIONS(F_ENUM)
#undef F_ENUM
	        FN_COUNT
};

static const char *const function_names[FN_COUNT] = {
#define F_NAME(name) "vk" #name,
        FAULT_FUNCTIONS(F_NAME)
#undef F_NAME
};

static const struct {
	const char *name;
	VkResult result;
} result_names[] = {
#define R(x) {#x, x},
        R(VK_ERROR_OUT_OF_HOST_MEMORY) R(VK_ERROR_OUT_OF_DEVICE_MEMORY) R(VK_ERROR_INITIALIZATION_FAILED)
                R(VK_ERROR_DEVICE_LOST) R(VK_ERROR_SURFACE_LOST_KHR) R(VK_ERROR_OUT_OF_DATE_KHR)
                        R(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR) R(VK_ERROR_UNKNOWN) R(VK_SUBOPTIMAL_KHR)
                                R(VK_TIMEOUT) R(VK_NOT_READY)
#undef R
};

/* A handful of rules is all a test names; more is a typo. */
#define MAX_RULES 16

struct rule {
	enum fault_function function;
	VkResult result;
	uint64_t call; /* the first call (1-based) that fails */
	bool and_after;
};

static struct rule rules[MAX_RULES];
static unsigned rule_count;
static atomic_uint_fast64_t calls[FN_COUNT];
static pthread_once_t rules_once = PTHREAD_ONCE_INIT;

static void die(const char *what, const char *spec)
{
	fprintf(stderr, FAULTS_PREFIX "bad LOWLAT_FAULTS (%s): \"%s\"\n", what, spec);
	abort();
}

static const char *result_name(VkResult r)
{
	for (size_t i = 0; i < sizeof(result_names) / sizeof(result_names[0]); i++)
		if (result_names[i].result == r)
			return result_names[i].name;
	return "VkResult";
}

static void parse_rule(char *text, const char *spec)
{
	char *eq = strchr(text, '='), *at = strchr(text, '@'), *end;
	struct rule *rule = &rules[rule_count];
	size_t i;

	if (rule_count == MAX_RULES)
		die("too many rules", spec);
	if (!eq || !at || at < eq)
		die("want FUNCTION=RESULT@N[+]", spec);
	*eq = *at = '\0';
	for (i = 0; i < FN_COUNT && strcmp(function_names[i], text); i++)
		;
	if (i == FN_COUNT)
		die("unknown function", spec);
	rule->function = (enum fault_function)i;
	for (i = 0; i < sizeof(result_names) / sizeof(result_names[0]); i++)
		if (!strcmp(result_names[i].name, eq + 1))
			break;
	if (i == sizeof(result_names) / sizeof(result_names[0]))
		die("unknown result", spec);
	rule->result = result_names[i].result;
	rule->call = strtoull(at + 1, &end, 10);
	rule->and_after = *end == '+';
	if (rule->and_after)
		end++;
	if (rule->call < 1 || *end)
		die("N must be a call number from 1, optionally followed by +", spec);
	rule_count++;
}

static void parse_rules(void)
{
	const char *spec = getenv("LOWLAT_FAULTS");
	char *copy, *save = NULL;

	if (!spec || !*spec)
		return;
	copy = strdup(spec);
	if (!copy)
		die("out of memory", spec);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		parse_rule(t, spec);
	free(copy);
}

/* Counts this call of FUNCTION and returns the result it must fail with, or VK_SUCCESS. */
static VkResult fault_for(enum fault_function function)
{
	uint64_t call;

	pthread_once(&rules_once, parse_rules);
	call = atomic_fetch_add(&calls[function], 1) + 1;
	for (unsigned i = 0; i < rule_count; i++) {
		const struct rule *r = &rules[i];

		if (r->function == function && (call == r->call || (r->and_after && call > r->call))) {
			fprintf(stderr, FAULTS_PREFIX "%s call %" PRIu64 " -> %s\n", function_names[function],
			        call, result_name(r->result));
			return r->result;
		}
	}
	return VK_SUCCESS;
}

/* Per-object state: what calling down needs, keyed by the loader's dispatch key (a physical device
 * shares its instance's, a queue its device's). A test makes a few objects, so a locked list. */
struct object {
	uint64_t key;
	bool is_device;
	PFN_vkGetInstanceProcAddr gipa; /* instances */
	VkInstance instance;
	PFN_vkGetDeviceProcAddr gdpa; /* devices */
	PFN_vkDestroyDevice DestroyDevice;
	PFN_vkCreateSwapchainKHR CreateSwapchainKHR;
	PFN_vkAcquireNextImageKHR AcquireNextImageKHR;
	PFN_vkAcquireNextImage2KHR AcquireNextImage2KHR;
	PFN_vkQueuePresentKHR QueuePresentKHR;
	struct object *next;
};

/* Guards `objects`; never held while calling down. */
static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;
static struct object *objects;

static uint64_t key_of(const void *dispatchable)
{
	return (uint64_t)(uintptr_t) * (void *const *)dispatchable;
}

static void object_add(struct object *o)
{
	pthread_mutex_lock(&objects_lock);
	o->next = objects;
	objects = o;
	pthread_mutex_unlock(&objects_lock);
}

/* Objects are removed only when the app destroys them, which it must not do while using them, so
 * the pointer stays valid for the call that found it. */
static struct object *object_find(const void *dispatchable, bool is_device)
{
	uint64_t key = key_of(dispatchable);
	struct object *o;

	pthread_mutex_lock(&objects_lock);
	for (o = objects; o && !(o->key == key && o->is_device == is_device); o = o->next)
		;
	pthread_mutex_unlock(&objects_lock);
	return o;
}

static struct object *object_remove(const void *dispatchable, bool is_device)
{
	uint64_t key = key_of(dispatchable);
	struct object **p, *o = NULL;

	pthread_mutex_lock(&objects_lock);
	for (p = &objects; *p; p = &(*p)->next) {
		if ((*p)->key == key && (*p)->is_device == is_device) {
			o = *p;
			*p = o->next;
			break;
		}
	}
	pthread_mutex_unlock(&objects_lock);
	return o;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL faults_GetInstanceProcAddr(VkInstance instance,
                                                                           const char *name);
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL faults_GetDeviceProcAddr(VkDevice device, const char *name);

static VKAPI_ATTR VkResult VKAPI_CALL faults_CreateInstance(const VkInstanceCreateInfo *info,
                                                            const VkAllocationCallbacks *allocator,
                                                            VkInstance *out)
{
	VkLayerInstanceCreateInfo *link = NULL;
	struct object *o;
	VkResult result;

	link = lowlat_find_instance_link(info);
	if (!link)
		return VK_ERROR_INITIALIZATION_FAILED;
	if ((result = fault_for(FN_CreateInstance)) != VK_SUCCESS) {
		*out = VK_NULL_HANDLE;
		return result;
	}

	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
	/* Test scaffolding: the C heap, not the app's allocator, so allocator tests count only lowlat,
	 * the loader and the driver. */
	o = calloc(1, sizeof(*o));
	if (!o)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	result = create(info, allocator, out);
	if (result != VK_SUCCESS) {
		free(o);
		return result;
	}
	o->key = key_of(*out);
	o->instance = *out;
	o->gipa = gipa;
	object_add(o);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL faults_DestroyInstance(VkInstance instance,
                                                         const VkAllocationCallbacks *allocator)
{
	struct object *o;

	if (!instance || !(o = object_remove(instance, false)))
		return;
	PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)o->gipa(instance, "vkDestroyInstance");
	free(o);
	destroy(instance, allocator);
}

static VKAPI_ATTR VkResult VKAPI_CALL faults_CreateDevice(VkPhysicalDevice physical,
                                                          const VkDeviceCreateInfo *info,
                                                          const VkAllocationCallbacks *allocator,
                                                          VkDevice *out)
{
	struct object *inst = object_find(physical, false), *o;
	VkLayerDeviceCreateInfo *link = NULL;
	VkResult result;

	link = lowlat_find_device_link(info);
	if (!inst || !link)
		return VK_ERROR_INITIALIZATION_FAILED;
	if ((result = fault_for(FN_CreateDevice)) != VK_SUCCESS) {
		*out = VK_NULL_HANDLE;
		return result;
	}

	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(inst->instance, "vkCreateDevice");
	o = calloc(1, sizeof(*o));
	if (!o)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	result = create(physical, info, allocator, out);
	if (result != VK_SUCCESS) {
		free(o);
		return result;
	}
	o->key = key_of(*out);
	o->is_device = true;
	o->gdpa = gdpa;
#define LOAD(name) o->name = (PFN_vk##name)gdpa(*out, "vk" #name);
	LOAD(DestroyDevice)
	LOAD(CreateSwapchainKHR)
	LOAD(AcquireNextImageKHR)
	LOAD(AcquireNextImage2KHR)
	LOAD(QueuePresentKHR)
#undef LOAD
	object_add(o);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL faults_DestroyDevice(VkDevice device,
                                                       const VkAllocationCallbacks *allocator)
{
	struct object *o;

	if (!device || !(o = object_remove(device, true)))
		return;
	PFN_vkDestroyDevice destroy = o->DestroyDevice;
	free(o);
	destroy(device, allocator);
}

static VKAPI_ATTR VkResult VKAPI_CALL faults_CreateSwapchainKHR(VkDevice device,
                                                                const VkSwapchainCreateInfoKHR *info,
                                                                const VkAllocationCallbacks *allocator,
                                                                VkSwapchainKHR *out)
{
	struct object *o = object_find(device, true);
	VkResult result = fault_for(FN_CreateSwapchainKHR);

	/* Not calling down leaves info->oldSwapchain unretired below, which is harmless: the app may
	 * only destroy a retired swapchain, and destroying works either way. */
	if (result != VK_SUCCESS) {
		*out = VK_NULL_HANDLE;
		return result;
	}
	return o->CreateSwapchainKHR(device, info, allocator, out);
}

static VKAPI_ATTR VkResult VKAPI_CALL faults_AcquireNextImageKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                                 uint64_t timeout_ns, VkSemaphore semaphore,
                                                                 VkFence fence, uint32_t *index)
{
	struct object *o = object_find(device, true);
	VkResult result = fault_for(FN_AcquireNextImageKHR);

	if (result != VK_SUCCESS)
		return result;
	return o->AcquireNextImageKHR(device, swapchain, timeout_ns, semaphore, fence, index);
}

static VKAPI_ATTR VkResult VKAPI_CALL faults_AcquireNextImage2KHR(VkDevice device,
                                                                  const VkAcquireNextImageInfoKHR *info,
                                                                  uint32_t *index)
{
	struct object *o = object_find(device, true);
	VkResult result = fault_for(FN_AcquireNextImage2KHR);

	if (result != VK_SUCCESS)
		return result;
	return o->AcquireNextImage2KHR(device, info, index);
}

static VKAPI_ATTR VkResult VKAPI_CALL faults_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	struct object *o = object_find(queue, true);
	VkResult fault = fault_for(FN_QueuePresentKHR);
	VkResult result = o->QueuePresentKHR(queue, info);

	if (fault == VK_SUCCESS)
		return result;
	for (uint32_t i = 0; info->pResults && i < info->swapchainCount; i++)
		info->pResults[i] = fault;
	return fault;
}

/* Device hooks are also handed out through vkGetInstanceProcAddr, where lowlat fetches them. */
#define HOOK(name) {"vk" #name, (PFN_vkVoidFunction)faults_##name},
static const struct hook instance_hooks[] = {HOOK(GetInstanceProcAddr) HOOK(CreateInstance)
                                                     HOOK(DestroyInstance) HOOK(CreateDevice)};
static const struct hook device_hooks[] = {HOOK(GetDeviceProcAddr) HOOK(DestroyDevice) HOOK(
        CreateSwapchainKHR) HOOK(AcquireNextImageKHR) HOOK(AcquireNextImage2KHR) HOOK(QueuePresentKHR)};
#undef HOOK

#define FIND(table, name) find_hook(table, sizeof(table) / sizeof(table[0]), name)

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL faults_GetDeviceProcAddr(VkDevice device, const char *name)
{
	struct object *o = object_find(device, true);
	PFN_vkVoidFunction next;

	if (!o || !(next = o->gdpa(device, name)))
		return NULL;
	PFN_vkVoidFunction hook = FIND(device_hooks, name);
	return hook ? hook : next;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL faults_GetInstanceProcAddr(VkInstance instance,
                                                                           const char *name)
{
	PFN_vkVoidFunction hook, next;
	struct object *o;

	if (!strcmp(name, "vkCreateInstance"))
		return (PFN_vkVoidFunction)faults_CreateInstance;
	if (!instance || !(o = object_find(instance, false)))
		return NULL;
	if (!(next = o->gipa(instance, name)))
		return NULL;
	if ((hook = FIND(instance_hooks, name)) || (hook = FIND(device_hooks, name)))
		return hook;
	return next;
}

__attribute__((visibility("default"))) VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *negotiate)
{
	return negotiate_version_2(negotiate, faults_GetInstanceProcAddr, faults_GetDeviceProcAddr);
}
