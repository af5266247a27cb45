/* config_settings.c — settings from VK_EXT_layer_settings (VkLayerSettingsCreateInfoEXT in the
 * VkInstanceCreateInfo pNext chain): the Khronos way for apps and vkconfig to set a layer's
 * settings. They sit above the files and below the LOWLAT_* environment, so a player's
 * environment still wins over what an app or a tool put in its create info.
 *
 * The only file of the config module that includes Vulkan headers.
 */
#include "vk_compat.h" /* VK_EXT_layer_settings on older headers */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_settings.h"

static void apply_setting(const VkLayerSettingEXT *s, struct lowlat_config *cfg, uint32_t *set,
                          const struct lowlat_config_sink *sink)
{
	const struct lowlat_config_origin origin = {.kind = LOWLAT_ORIGIN_SETTINGS, .sink = sink};
	struct lowlat_config_value v = {.type = LOWLAT_VALUE_NUMBER};
	char shown[64], text[160];
	int key;

	if (!s->pSettingName || (key = lowlat_config_key_lookup(s->pSettingName)) < 0) {
		snprintf(text, sizeof(text), "VK_EXT_layer_settings: unknown setting \"%.64s\"; ignored",
		         s->pSettingName ? s->pSettingName : "(null)");
		lowlat_config_emit(sink, "%s", text);
		return;
	}
	if (!s->valueCount || !s->pValues) {
		snprintf(text, sizeof(text), "VK_EXT_layer_settings: \"%s\" has no value; ignored",
		         s->pSettingName);
		lowlat_config_emit(sink, "%s", text);
		return;
	}
	switch (s->type) {
	case VK_LAYER_SETTING_TYPE_BOOL32_EXT:
		v.type = LOWLAT_VALUE_BOOL;
		v.boolean = *(const VkBool32 *)s->pValues != VK_FALSE;
		snprintf(shown, sizeof(shown), "%s", v.boolean ? "true" : "false");
		break;
	case VK_LAYER_SETTING_TYPE_INT32_EXT: v.number = *(const int32_t *)s->pValues; break;
	case VK_LAYER_SETTING_TYPE_INT64_EXT: v.number = (double)*(const int64_t *)s->pValues; break;
	case VK_LAYER_SETTING_TYPE_UINT32_EXT: v.number = *(const uint32_t *)s->pValues; break;
	case VK_LAYER_SETTING_TYPE_UINT64_EXT: v.number = (double)*(const uint64_t *)s->pValues; break;
	case VK_LAYER_SETTING_TYPE_FLOAT32_EXT:
		/* A float's 7 significant digits, so 59.94f means 59.94, not 59.939998626708984. */
		snprintf(shown, sizeof(shown), "%.7g", *(const float *)s->pValues);
		v.number = strtod(shown, NULL);
		break;
	case VK_LAYER_SETTING_TYPE_FLOAT64_EXT: v.number = *(const double *)s->pValues; break;
	case VK_LAYER_SETTING_TYPE_STRING_EXT: {
		const char *str = *(const char *const *)s->pValues;

		lowlat_config_value_from_text(key, str ? str : "", &v);
		snprintf(shown, sizeof(shown), "\"%.48s\"%s", str ? str : "",
		         str && strlen(str) > 48 ? "..." : "");
		/* Keep messages one line whatever the app passed. */
		for (char *p = shown; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		break;
	}
	default:
		snprintf(text, sizeof(text), "VK_EXT_layer_settings: \"%s\" has unknown type %d; ignored",
		         s->pSettingName, (int)s->type);
		lowlat_config_emit(sink, "%s", text);
		return;
	}
	if (v.type == LOWLAT_VALUE_NUMBER && s->type != VK_LAYER_SETTING_TYPE_STRING_EXT)
		snprintf(shown, sizeof(shown), "%.10g", v.number);
	v.shown = shown;
	lowlat_config_set(&origin, key, &v, cfg, set);
}

void lowlat_config_apply_layer_settings(const void *instance_create_info, struct lowlat_config *cfg,
                                        uint32_t *set, const struct lowlat_config_sink *sink)
{
	const VkInstanceCreateInfo *info = instance_create_info;

	if (!info)
		return;
	for (const VkBaseInStructure *p = info->pNext; p; p = p->pNext) {
		const VkLayerSettingsCreateInfoEXT *settings = (const void *)p;

		if (p->sType != VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT || !settings->pSettings)
			continue;
		for (uint32_t i = 0; i < settings->settingCount; i++) {
			const VkLayerSettingEXT *s = &settings->pSettings[i];

			if (s->pLayerName && !strcmp(s->pLayerName, LOWLAT_LAYER_NAME))
				apply_setting(s, cfg, set, sink);
		}
	}
}
