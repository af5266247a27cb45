/* objects.c — the global object maps and dispatch-table loading; see objects.h. */
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
