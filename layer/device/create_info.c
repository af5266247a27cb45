/* create_info.c — the instance and device create-info copies lowlat adds to; see create_info.h. */
#include "create_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "objects.h"

static bool has_name(uint32_t count, const char *const *names, const char *name)
{
	for (uint32_t i = 0; i < count; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* A copy of names with room for LOWLAT_ADDED_EXTENSIONS_MAX more; NULL when out of memory. */
static const char **names_copy(uint32_t count, const char *const *names)
{
	const char **copy = calloc(count + LOWLAT_ADDED_EXTENSIONS_MAX, sizeof(*copy));

	if (copy && count)
		memcpy(copy, names, count * sizeof(*copy));
	return copy;
}

bool lowlat_instance_setup(const VkInstanceCreateInfo *app, unsigned maint1, struct lowlat_instance_setup *s)
{
	uint32_t count = app->enabledExtensionCount;
	const char *const *names = app->ppEnabledExtensionNames;
	uint32_t api = app->pApplicationInfo ? app->pApplicationInfo->apiVersion : VK_API_VERSION_1_0;
	bool surface = has_name(count, names, VK_KHR_SURFACE_EXTENSION_NAME);
	bool add_caps2, add_props2;
	unsigned add_maint1;

	*s = (struct lowlat_instance_setup){.info = *app};
	s->surface_caps2 = has_name(count, names, VK_KHR_GET_SURFACE_CAPABILITIES_2_EXTENSION_NAME);
	s->properties2 = VK_API_VERSION_MINOR(api) >= 1 || VK_API_VERSION_MAJOR(api) > 1 ||
	                 has_name(count, names, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
	s->surface_maint1 = (has_name(count, names, LOWLAT_MAINT1_KHR_NAME) ? LOWLAT_MAINT1_KHR : 0) |
	                    (has_name(count, names, LOWLAT_MAINT1_EXT_NAME) ? LOWLAT_MAINT1_EXT : 0);
	/* An app that presents nothing (no VK_KHR_surface) gets nothing added. */
	add_maint1 = surface ? maint1 & ~s->surface_maint1 : 0;
	add_caps2 = surface && !s->surface_caps2;
	add_props2 = surface && !s->properties2;
	if (!add_caps2 && !add_props2 && !add_maint1)
		return false;
	if (!(s->names = names_copy(count, names)))
		return false;
	if (add_caps2)
		s->names[count++] = VK_KHR_GET_SURFACE_CAPABILITIES_2_EXTENSION_NAME;
	if (add_props2)
		s->names[count++] = VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME;
	if (add_maint1 & LOWLAT_MAINT1_KHR)
		s->names[count++] = LOWLAT_MAINT1_KHR_NAME;
	if (add_maint1 & LOWLAT_MAINT1_EXT)
		s->names[count++] = LOWLAT_MAINT1_EXT_NAME;
	s->surface_maint1 |= add_maint1;
	s->info.enabledExtensionCount = count;
	s->info.ppEnabledExtensionNames = s->names;
	s->surface_caps2 = s->surface_caps2 || add_caps2;
	s->properties2 = s->properties2 || add_props2;
	return true;
}

void lowlat_instance_setup_fini(struct lowlat_instance_setup *s)
{
	free(s->names);
	s->names = NULL;
}

void lowlat_device_info_init(struct lowlat_device_info *d, const VkDeviceCreateInfo *app)
{
	*d = (struct lowlat_device_info){.app = app, .info = *app, .chain = {.heap = true}};
}

void lowlat_device_info_fini(struct lowlat_device_info *d)
{
	free(d->names);
	d->names = NULL;
	lowlat_chain_storage_fini(&d->chain);
}

bool lowlat_device_info_has(const struct lowlat_device_info *d, const char *name)
{
	return has_name(d->info.enabledExtensionCount, d->info.ppEnabledExtensionNames, name);
}

bool lowlat_device_info_add(struct lowlat_device_info *d, const char *name)
{
	if (lowlat_device_info_has(d, name))
		return true;
	if (!d->names) {
		if (!(d->names = names_copy(d->app->enabledExtensionCount, d->app->ppEnabledExtensionNames)))
			return false;
		d->info.ppEnabledExtensionNames = d->names;
	}
	if (d->info.enabledExtensionCount == d->app->enabledExtensionCount + LOWLAT_ADDED_EXTENSIONS_MAX)
		return false;
	d->names[d->info.enabledExtensionCount++] = name;
	d->changed = true;
	return true;
}

/* ORs the VkBool32 members set in `from` into `into` (both structs of the type, `size` bytes);
 * returns whether that changed anything. */
static bool or_features(void *into, const void *from, size_t size)
{
	bool changed = false;

	for (size_t at = sizeof(VkBaseOutStructure); at + sizeof(VkBool32) <= size; at += sizeof(VkBool32)) {
		VkBool32 want, have;
		memcpy(&want, (const unsigned char *)from + at, sizeof(want));
		memcpy(&have, (unsigned char *)into + at, sizeof(have));
		if (want && !have) {
			memcpy((unsigned char *)into + at, &want, sizeof(want));
			changed = true;
		}
	}
	return changed;
}

const char *lowlat_device_info_enable(struct lowlat_device_info *d, const void *features, size_t size)
{
	const VkBaseInStructure *want = features;
	const void *found = lowlat_chain_find(d->info.pNext, want->sType);
	void *copy;

	if (found) {
		unsigned char probe[256];
		if (size > sizeof(probe))
			return "a feature struct larger than lowlat expects";
		memcpy(probe, found, size);
		if (!or_features(probe, features, size))
			return NULL; /* the app enables them already */
		const void *head = lowlat_chain_copy_to(d->info.pNext, found, &d->chain, &copy);
		if (!head)
			return "the app chains that feature struct behind a structure lowlat cannot copy";
		or_features(copy, features, size);
		d->info.pNext = head;
	} else {
		VkBaseOutStructure *ours = NULL;
		struct lowlat_chain_storage *s = &d->chain;
		if (s->block_count == sizeof(s->blocks) / sizeof(s->blocks[0]) || !(ours = malloc(size)))
			return "out of memory";
		s->blocks[s->block_count++] = ours;
		memcpy(ours, features, size);
		/* Declared non-const in the header; the chain behind it is only read. */
		ours->pNext = (void *)d->info.pNext;
		d->info.pNext = ours;
	}
	d->changed = true;
	return NULL;
}

/* Appends the device extensions `layer` lists (NULL: the driver's and the implicit layers') to
 * *props, *count entries so far; false when they cannot be listed (or out of memory). */
static bool append_extensions(struct lowlat_instance *inst, VkPhysicalDevice physical, const char *layer,
                              VkExtensionProperties **props, uint32_t *count)
{
	uint32_t n = 0;

	if (inst->vk.EnumerateDeviceExtensionProperties(physical, layer, &n, NULL) != VK_SUCCESS)
		return false;
	VkExtensionProperties *more = realloc(*props, (*count + n + 1) * sizeof(**props));
	if (!more)
		return false;
	*props = more;
	if (inst->vk.EnumerateDeviceExtensionProperties(physical, layer, &n, more + *count) < 0)
		return false;
	*count += n;
	return true;
}

VkExtensionProperties *lowlat_device_extensions(struct lowlat_instance *inst, VkPhysicalDevice physical,
                                                uint32_t *count)
{
	VkExtensionProperties *props = NULL;
	char names[sizeof(inst->layers)];

	*count = 0;
	if (!inst->vk.EnumerateDeviceExtensionProperties ||
	    !append_extensions(inst, physical, NULL, &props, count)) {
		free(props);
		return NULL;
	}
	/* A layer below may list the extensions it provides only when asked by its name (Arm's WSI
	 * layer does): each one named to the loader is asked too. A layer that is not below answers
	 * VK_ERROR_LAYER_NOT_PRESENT, and adds nothing. */
	snprintf(names, sizeof(names), "%s", inst->layers);
	for (char *save = NULL, *name = strtok_r(names, ":", &save); name; name = strtok_r(NULL, ":", &save))
		if (strcmp(name, LOWLAT_LAYER_NAME))
			append_extensions(inst, physical, name, &props, count);
	return props;
}

bool lowlat_extensions_have(const VkExtensionProperties *props, uint32_t count, const char *name)
{
	for (uint32_t i = 0; i < count; i++)
		if (!strcmp(props[i].extensionName, name))
			return true;
	return false;
}

void lowlat_device_features(struct lowlat_instance *inst, VkPhysicalDevice physical, void *features)
{
	VkPhysicalDeviceFeatures2 features2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
	                                       .pNext = features};

	inst->features2(physical, &features2);
}
