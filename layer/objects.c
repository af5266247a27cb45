/* objects.c — the global object maps, dispatch-table loading and present-mode names; see objects.h. */
#include "objects.h"

#include <stdlib.h>
#include <string.h>

struct lowlat_map lowlat_instances = LOWLAT_MAP_INIT;
struct lowlat_map lowlat_devices = LOWLAT_MAP_INIT;

void lowlat_load_instance_dispatch(struct instance_dispatch *vk, VkInstance instance,
                                   PFN_vkGetInstanceProcAddr gipa)
{
#define LOWLAT_LOAD(name) vk->name = (PFN_vk##name)gipa(instance, "vk" #name);
	LOWLAT_INSTANCE_FUNCTIONS(LOWLAT_LOAD)
#undef LOWLAT_LOAD
}

void lowlat_load_device_dispatch(struct device_dispatch *vk, VkDevice device, PFN_vkGetDeviceProcAddr gdpa)
{
#define LOWLAT_LOAD(name) vk->name = (PFN_vk##name)gdpa(device, "vk" #name);
	LOWLAT_DEVICE_FUNCTIONS(LOWLAT_LOAD)
#undef LOWLAT_LOAD
}

const char *lowlat_vk_present_mode_name(int64_t mode)
{
	/* On an integer: with headers older than FIFO_LATEST_READY its value is not in the enum. */
	switch (mode) {
	case VK_PRESENT_MODE_IMMEDIATE_KHR: return "IMMEDIATE";
	case VK_PRESENT_MODE_MAILBOX_KHR: return "MAILBOX";
	case VK_PRESENT_MODE_FIFO_KHR: return "FIFO";
	case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return "FIFO_RELAXED";
	case VK_PRESENT_MODE_FIFO_LATEST_READY_KHR: return "FIFO_LATEST_READY";
	default: return NULL;
	}
}
