/* doc_layer.c — a layer written as the Vulkan loader's layer-interface documentation shows, taken
 * literally (Vulkan-Loader, docs/LoaderLayerInterface.md: "Layer Dispatch Initialization" and the
 * "Example Code for CreateInstance / CreateDevice"), as many published layers are.
 *
 * Not part of lowlat: the tests put it above and below lowlat. Like the documentation's examples it
 * - finds the VkLayer*CreateInfo link in the create info, takes the next entity's
 *   vkGetInstanceProcAddr (and vkGetDeviceProcAddr) from it, fetches the next vkCreateInstance with
 *   pfnNextGetInstanceProcAddr(NULL, "vkCreateInstance"), advances the link and calls down;
 * - fetches the next vkCreateDevice with pfnNextGetInstanceProcAddr(NULL, "vkCreateDevice"): the
 *   example code did so from 2016 until 2020 (loader commit 70c2c9d1c passed the instance since),
 *   layers copied it, and the document still warns that older layers expect `instance` to be
 *   ignored for that name (LOWLAT_DOC_LAYER_INSTANCE=1 passes the instance, as the example does
 *   today);
 * - fills its dispatch tables the way the loader's dispatch-table helper does: Get*ProcAddr is the
 *   link's own pointer, every other entry is asked of it;
 * - answers its own vkGetInstanceProcAddr for the functions it intercepts whatever the instance,
 *   and calls down for the rest; vkGetDeviceProcAddr likewise.
 * It asserts nothing itself; on vkDestroyDevice it writes one line to stderr,
 * `doc-layer: N presents`, so a test sees it really was in the device's chain, and it fails
 * creation the way the example does (VK_ERROR_INITIALIZATION_FAILED) when the next layer answers
 * NULL, saying so on stderr. With LOWLAT_DOC_LAYER_ASK=1 it also asks the next layer what other
 * layers ask it (below) and writes each answer as `doc-layer: ask ... = found|NULL`.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>

#define DOC_EXPORT  __attribute__((visibility("default")))
#define MAX_OBJECTS 16 /* instances and devices alive at once; tests make one or two */

struct instance_table {
	void *key;
	VkInstance instance;
	PFN_vkGetInstanceProcAddr GetInstanceProcAddr;
	PFN_vkDestroyInstance DestroyInstance;
};

struct device_table {
	void *key;
	PFN_vkGetDeviceProcAddr GetDeviceProcAddr;
	PFN_vkDestroyDevice DestroyDevice;
	PFN_vkQueuePresentKHR QueuePresentKHR;
	atomic_uint presents;
};

/* Guards both tables; never held while calling down. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct instance_table instances[MAX_OBJECTS];
static struct device_table devices[MAX_OBJECTS];

static void *get_key(const void *dispatchable)
{
	return *(void *const *)dispatchable;
}

static struct instance_table *find_instance(void *key)
{
	for (unsigned i = 0; i < MAX_OBJECTS; i++)
		if (instances[i].key == key)
			return &instances[i];
	return NULL;
}

static struct device_table *find_device(void *key)
{
	for (unsigned i = 0; i < MAX_OBJECTS; i++)
		if (devices[i].key == key)
			return &devices[i];
	return NULL;
}

/* The documentation's get_chain_info(): the loader's link struct in the create info. */
static VkLayerInstanceCreateInfo *get_instance_chain_info(const VkInstanceCreateInfo *info,
                                                          VkLayerFunction func)
{
	VkLayerInstanceCreateInfo *chain = (VkLayerInstanceCreateInfo *)info->pNext;
	while (chain &&
	       !(chain->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && chain->function == func))
		chain = (VkLayerInstanceCreateInfo *)chain->pNext;
	return chain;
}

static VkLayerDeviceCreateInfo *get_device_chain_info(const VkDeviceCreateInfo *info, VkLayerFunction func)
{
	VkLayerDeviceCreateInfo *chain = (VkLayerDeviceCreateInfo *)info->pNext;
	while (chain &&
	       !(chain->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && chain->function == func))
		chain = (VkLayerDeviceCreateInfo *)chain->pNext;
	return chain;
}

static bool asking(void)
{
	const char *ask = getenv("LOWLAT_DOC_LAYER_ASK");
	return ask && !strcmp(ask, "1");
}

/* What published layers fetch from the next one without an instance (the loader's terminator and
 * the validation layers answer every one of these). */
static void ask_without_instance(PFN_vkGetInstanceProcAddr gipa)
{
	static const char *const names[] = {"vkCreateInstance", "vkGetInstanceProcAddr", "vkCreateDevice",
	                                    "vkGetDeviceProcAddr"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		fprintf(stderr, "doc-layer: ask vkGetInstanceProcAddr(NULL, %s) = %s\n", names[i],
		        gipa(NULL, names[i]) ? "found" : "NULL");
}

/* Instance-level names, which vkGetDeviceProcAddr must answer NULL. */
static void ask_device_for_instance_names(PFN_vkGetDeviceProcAddr gdpa, VkDevice device)
{
	static const char *const names[] = {"vkCreateInstance",
	                                    "vkDestroyInstance",
	                                    "vkCreateDevice",
	                                    "vkGetInstanceProcAddr",
	                                    "vkEnumerateDeviceExtensionProperties",
	                                    "vkGetPhysicalDeviceProperties"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		fprintf(stderr, "doc-layer: ask vkGetDeviceProcAddr(device, %s) = %s\n", names[i],
		        gdpa(device, names[i]) ? "found" : "NULL");
}

static VKAPI_ATTR VkResult VKAPI_CALL doc_CreateInstance(const VkInstanceCreateInfo *pCreateInfo,
                                                         const VkAllocationCallbacks *pAllocator,
                                                         VkInstance *pInstance)
{
	VkLayerInstanceCreateInfo *chain_info = get_instance_chain_info(pCreateInfo, VK_LAYER_LINK_INFO);
	if (!chain_info || !chain_info->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;

	PFN_vkGetInstanceProcAddr fpGetInstanceProcAddr =
	        chain_info->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	if (asking())
		ask_without_instance(fpGetInstanceProcAddr);
	PFN_vkCreateInstance fpCreateInstance =
	        (PFN_vkCreateInstance)fpGetInstanceProcAddr(NULL, "vkCreateInstance");
	if (fpCreateInstance == NULL) {
		fprintf(stderr, "doc-layer: the next layer answered NULL for vkCreateInstance\n");
		return VK_ERROR_INITIALIZATION_FAILED;
	}

	/* Advance the link info for the next element of the chain. */
	chain_info->u.pLayerInfo = chain_info->u.pLayerInfo->pNext;

	VkResult result = fpCreateInstance(pCreateInfo, pAllocator, pInstance);
	if (result != VK_SUCCESS)
		return result;

	/* As the loader's layer_init_instance_dispatch_table() fills it. */
	struct instance_table table = {
	        .key = get_key(*pInstance),
	        .instance = *pInstance,
	        .GetInstanceProcAddr = fpGetInstanceProcAddr,
	        .DestroyInstance =
	                (PFN_vkDestroyInstance)fpGetInstanceProcAddr(*pInstance, "vkDestroyInstance"),
	};
	pthread_mutex_lock(&lock);
	struct instance_table *slot = find_instance(NULL);
	if (slot)
		*slot = table;
	pthread_mutex_unlock(&lock);
	if (!slot) {
		table.DestroyInstance(*pInstance, pAllocator);
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL doc_DestroyInstance(VkInstance instance,
                                                      const VkAllocationCallbacks *pAllocator)
{
	PFN_vkDestroyInstance destroy = NULL;

	pthread_mutex_lock(&lock);
	struct instance_table *slot = instance ? find_instance(get_key(instance)) : NULL;
	if (slot) {
		destroy = slot->DestroyInstance;
		memset(slot, 0, sizeof(*slot));
	}
	pthread_mutex_unlock(&lock);
	if (destroy)
		destroy(instance, pAllocator);
}

static VKAPI_ATTR VkResult VKAPI_CALL doc_CreateDevice(VkPhysicalDevice gpu,
                                                       const VkDeviceCreateInfo *pCreateInfo,
                                                       const VkAllocationCallbacks *pAllocator,
                                                       VkDevice *pDevice)
{
	VkLayerDeviceCreateInfo *chain_info = get_device_chain_info(pCreateInfo, VK_LAYER_LINK_INFO);
	if (!chain_info || !chain_info->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;

	/* The example before 2020 passed NULL; GetInstanceFromPhysicalDevice() since. */
	VkInstance instance = VK_NULL_HANDLE;
	const char *pass_instance = getenv("LOWLAT_DOC_LAYER_INSTANCE");
	if (pass_instance && !strcmp(pass_instance, "1")) {
		pthread_mutex_lock(&lock);
		struct instance_table *inst = find_instance(get_key(gpu));
		instance = inst ? inst->instance : VK_NULL_HANDLE;
		pthread_mutex_unlock(&lock);
	}

	PFN_vkGetInstanceProcAddr fpGetInstanceProcAddr =
	        chain_info->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr fpGetDeviceProcAddr = chain_info->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	PFN_vkCreateDevice fpCreateDevice =
	        (PFN_vkCreateDevice)fpGetInstanceProcAddr(instance, "vkCreateDevice");
	if (fpCreateDevice == NULL) {
		fprintf(stderr, "doc-layer: the next layer answered NULL for vkCreateDevice (instance %s)\n",
		        instance ? "passed" : "NULL");
		return VK_ERROR_INITIALIZATION_FAILED;
	}

	/* Advance the link info for the next element on the chain. */
	chain_info->u.pLayerInfo = chain_info->u.pLayerInfo->pNext;

	VkResult result = fpCreateDevice(gpu, pCreateInfo, pAllocator, pDevice);
	if (result != VK_SUCCESS)
		return result;

	/* As the loader's layer_init_device_dispatch_table() fills it. */
	pthread_mutex_lock(&lock);
	struct device_table *slot = find_device(NULL);
	if (slot) {
		slot->key = get_key(*pDevice);
		slot->GetDeviceProcAddr = fpGetDeviceProcAddr;
		slot->DestroyDevice = (PFN_vkDestroyDevice)fpGetDeviceProcAddr(*pDevice, "vkDestroyDevice");
		slot->QueuePresentKHR =
		        (PFN_vkQueuePresentKHR)fpGetDeviceProcAddr(*pDevice, "vkQueuePresentKHR");
		atomic_store(&slot->presents, 0);
	}
	pthread_mutex_unlock(&lock);
	if (!slot)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	if (asking())
		ask_device_for_instance_names(fpGetDeviceProcAddr, *pDevice);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL doc_DestroyDevice(VkDevice device, const VkAllocationCallbacks *pAllocator)
{
	PFN_vkDestroyDevice destroy = NULL;
	unsigned presents = 0;

	pthread_mutex_lock(&lock);
	struct device_table *slot = device ? find_device(get_key(device)) : NULL;
	if (slot) {
		destroy = slot->DestroyDevice;
		presents = atomic_load(&slot->presents);
		slot->key = NULL;
	}
	pthread_mutex_unlock(&lock);
	if (!destroy)
		return;
	fprintf(stderr, "doc-layer: %u presents\n", presents);
	destroy(device, pAllocator);
}

static VKAPI_ATTR VkResult VKAPI_CALL doc_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *pPresentInfo)
{
	PFN_vkQueuePresentKHR present = NULL;

	pthread_mutex_lock(&lock);
	struct device_table *slot = find_device(get_key(queue));
	if (slot) {
		present = slot->QueuePresentKHR;
		atomic_fetch_add(&slot->presents, 1);
	}
	pthread_mutex_unlock(&lock);
	return present ? present(queue, pPresentInfo) : VK_ERROR_DEVICE_LOST;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL doc_GetDeviceProcAddr(VkDevice device, const char *pName);
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL doc_GetInstanceProcAddr(VkInstance instance,
                                                                        const char *pName);

#define INTERCEPT(name)                                                                                      \
	if (!strcmp(pName, "vk" #name))                                                                      \
		return (PFN_vkVoidFunction)doc_##name;

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL doc_GetDeviceProcAddr(VkDevice device, const char *pName)
{
	INTERCEPT(GetDeviceProcAddr)
	INTERCEPT(DestroyDevice)
	INTERCEPT(QueuePresentKHR)

	PFN_vkGetDeviceProcAddr next = NULL;
	pthread_mutex_lock(&lock);
	struct device_table *slot = device ? find_device(get_key(device)) : NULL;
	if (slot)
		next = slot->GetDeviceProcAddr;
	pthread_mutex_unlock(&lock);
	return next ? next(device, pName) : NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL doc_GetInstanceProcAddr(VkInstance instance,
                                                                        const char *pName)
{
	INTERCEPT(GetInstanceProcAddr)
	INTERCEPT(CreateInstance)
	INTERCEPT(DestroyInstance)
	INTERCEPT(CreateDevice)
	INTERCEPT(GetDeviceProcAddr)
	INTERCEPT(DestroyDevice)
	INTERCEPT(QueuePresentKHR)

	PFN_vkGetInstanceProcAddr next = NULL;
	pthread_mutex_lock(&lock);
	struct instance_table *slot = instance ? find_instance(get_key(instance)) : NULL;
	if (slot)
		next = slot->GetInstanceProcAddr;
	pthread_mutex_unlock(&lock);
	return next ? next(instance, pName) : NULL;
}
#undef INTERCEPT

DOC_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *pVersionStruct)
{
	if (!pVersionStruct || pVersionStruct->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT ||
	    pVersionStruct->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	pVersionStruct->loaderLayerInterfaceVersion = 2;
	pVersionStruct->pfnGetInstanceProcAddr = doc_GetInstanceProcAddr;
	pVersionStruct->pfnGetDeviceProcAddr = doc_GetDeviceProcAddr;
	pVersionStruct->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}
