/* config_settings.h — VK_EXT_layer_settings (config_settings.c); the types are config.h's. */
#ifndef LOWLAT_CONFIG_SETTINGS_H
#define LOWLAT_CONFIG_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* Apply the settings for LOWLAT_LAYER_NAME of every VkLayerSettingsCreateInfoEXT in the pNext chain
 * of `instance_create_info` (a const VkInstanceCreateInfo *), in chain order, onto *cfg, setting
 * each applied key's bit in *set (may be NULL). Any key takes its natural type (fps: FLOAT32/64 or
 * any integer type; method, present_mode, log_dir: STRING; max_latency_frames: an integer type;
 * log, enabled: BOOL32) or a STRING read like its environment variable. The first value counts.
 * Has the signature of lowlat_config_source.apply, with the create info as `user`. */
void lowlat_config_apply_layer_settings(const void *instance_create_info, struct lowlat_config *cfg,
                                        uint32_t *set, const struct lowlat_config_sink *sink);

#endif
