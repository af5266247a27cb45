/* test_settings.c — VK_EXT_layer_settings: each key through its natural type and as a string,
 * other layers' settings left alone, several structs in one chain, bad values and names; and the
 * manifest describes exactly the settings the layer accepts (argv[1]: VkLayer_lowlat.json.in). */
#include "vk_compat.h"
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "check.h"
#include "config.h"
#include "config_settings.h"
#include "sink.h"

static struct collected out;

static const char *apply(const VkInstanceCreateInfo *info, struct lowlat_config *cfg, uint32_t *set)
{
	struct lowlat_config_sink sink = collect_sink(&out);
	lowlat_config_apply_layer_settings(info, cfg, set, &sink);
	return out.text;
}

/* apply() with COUNT SETTINGS as the chain's one VkLayerSettingsCreateInfoEXT. */
static const char *apply_settings(const VkLayerSettingEXT *settings, uint32_t count,
                                  struct lowlat_config *cfg, uint32_t *set)
{
	const VkLayerSettingsCreateInfoEXT layer_settings = {
	        .sType = VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT,
	        .settingCount = count,
	        .pSettings = settings,
	};
	const VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	                                   .pNext = &layer_settings};

	return apply(&info, cfg, set);
}

#define SETTING(name, type, value)                                                                           \
	{                                                                                                    \
		LOWLAT_LAYER_NAME, name, type, 1, value                                                      \
	}

static void test_natural_types(void)
{
	const float fps = 59.94f;
	const char *method = "early", *mode = "fifo_latest_ready", *dir = "/var/tmp/lowlat";
	const int32_t latency = 2;
	const VkBool32 yes = VK_TRUE, no = VK_FALSE;
	const VkLayerSettingEXT settings[] = {
	        SETTING("fps", VK_LAYER_SETTING_TYPE_FLOAT32_EXT, &fps),
	        SETTING("method", VK_LAYER_SETTING_TYPE_STRING_EXT, &method),
	        SETTING("present_mode", VK_LAYER_SETTING_TYPE_STRING_EXT, &mode),
	        SETTING("max_latency_frames", VK_LAYER_SETTING_TYPE_INT32_EXT, &latency),
	        SETTING("log", VK_LAYER_SETTING_TYPE_BOOL32_EXT, &yes),
	        SETTING("log_dir", VK_LAYER_SETTING_TYPE_STRING_EXT, &dir),
	        SETTING("enabled", VK_LAYER_SETTING_TYPE_BOOL32_EXT, &no),
	        SETTING("stack_limiters", VK_LAYER_SETTING_TYPE_BOOL32_EXT, &yes),
	};
	struct lowlat_config c;
	uint32_t set = 0;

	lowlat_config_defaults(&c);
	CHECK_STR(apply_settings(settings, sizeof(settings) / sizeof(settings[0]), &c, &set), "");
	CHECK(c.fps == 59.94); /* the float's digits, not its binary expansion */
	CHECK(c.method == LOWLAT_METHOD_EARLY && c.present_mode == LOWLAT_PRESENT_MODE_FIFO_LATEST_READY);
	CHECK(c.max_latency_frames == 2 && c.log && !c.enabled && c.stack_limiters);
	CHECK_STR(c.log_dir, "/var/tmp/lowlat");
	CHECK(set == (1u << LOWLAT_KEY_COUNT) - 1);
}

static void test_other_types(void)
{
	const double fps64 = 143.5;
	const int64_t i64 = 120;
	const uint32_t u32 = 3;
	const uint64_t u64 = 90;
	const char *fps_text = "72", *log_text = "on";
	struct lowlat_config c;
	uint32_t set = 0;

	/* Two structs in one chain, with another layer's setting and other structs between. */
	const VkLayerSettingEXT first[] = {
	        SETTING("fps", VK_LAYER_SETTING_TYPE_FLOAT64_EXT, &fps64),
	        {"VK_LAYER_KHRONOS_validation", "fps", VK_LAYER_SETTING_TYPE_INT64_EXT, 1, &i64},
	        SETTING("max_latency_frames", VK_LAYER_SETTING_TYPE_UINT32_EXT, &u32),
	};
	const VkLayerSettingEXT second[] = {
	        SETTING("log", VK_LAYER_SETTING_TYPE_STRING_EXT, &log_text),
	};
	const VkLayerSettingsCreateInfoEXT s2 = {VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT, NULL, 1,
	                                         second};
	const VkValidationFeaturesEXT other = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
	                                       .pNext = &s2};
	const VkLayerSettingsCreateInfoEXT s1 = {VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT, &other, 3,
	                                         first};
	const VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = &s1};

	lowlat_config_defaults(&c);
	CHECK_STR(apply(&info, &c, &set), "");
	CHECK(c.fps == 143.5 && c.max_latency_frames == 3 && c.log);
	CHECK(set == (LOWLAT_KEY_BIT(LOWLAT_KEY_FPS) | LOWLAT_KEY_BIT(LOWLAT_KEY_MAX_LATENCY_FRAMES) |
	              LOWLAT_KEY_BIT(LOWLAT_KEY_LOG)));

	const VkLayerSettingEXT more[] = {
	        SETTING("fps", VK_LAYER_SETTING_TYPE_INT64_EXT, &i64),
	        SETTING("fps", VK_LAYER_SETTING_TYPE_UINT64_EXT, &u64),
	        SETTING("fps", VK_LAYER_SETTING_TYPE_STRING_EXT, &fps_text),
	};
	const VkLayerSettingsCreateInfoEXT s3 = {VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT, NULL, 1,
	                                         more};
	const VkInstanceCreateInfo info3 = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = &s3};
	const double want[] = {120, 90, 72};
	for (int i = 0; i < 3; i++) {
		VkLayerSettingsCreateInfoEXT one = s3;
		one.pSettings = &more[i];
		VkInstanceCreateInfo info_one = info3;
		info_one.pNext = &one;
		CHECK_STR(apply(&info_one, &c, NULL), "");
		CHECK(c.fps == want[i]);
	}
	/* A share of the refresh rate is text, as in LOWLAT_FPS. */
	const char *refresh_text = "refresh/2";
	const VkLayerSettingEXT relative = SETTING("fps", VK_LAYER_SETTING_TYPE_STRING_EXT, &refresh_text);
	VkLayerSettingsCreateInfoEXT one = s3;
	one.pSettings = &relative;
	VkInstanceCreateInfo info_rel = info3;
	info_rel.pNext = &one;
	CHECK_STR(apply(&info_rel, &c, NULL), "");
	CHECK(c.fps_base == LOWLAT_FPS_REFRESH_DIV && c.fps_n == 2 && c.fps == 0);
	/* No settings at all. */
	const VkInstanceCreateInfo bare = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
	CHECK_STR(apply(&bare, &c, NULL), "");
	CHECK_STR(apply(NULL, &c, NULL), "");
}

static void test_bad(void)
{
	const float big = 50000.0f;
	const double half = 0.5;
	const char *word = "soon", *rel = "logs", *null_string = NULL;
	const VkBool32 yes = VK_TRUE;
	const int32_t latency = 40;
	const VkLayerSettingEXT settings[] = {
	        SETTING("fps", VK_LAYER_SETTING_TYPE_FLOAT32_EXT, &big),
	        SETTING("fps", VK_LAYER_SETTING_TYPE_FLOAT64_EXT, &half),
	        SETTING("fps", VK_LAYER_SETTING_TYPE_STRING_EXT, &word),
	        SETTING("fps", VK_LAYER_SETTING_TYPE_BOOL32_EXT, &yes),
	        SETTING("method", VK_LAYER_SETTING_TYPE_BOOL32_EXT, &yes),
	        SETTING("present_mode", VK_LAYER_SETTING_TYPE_STRING_EXT, &null_string),
	        SETTING("max_latency_frames", VK_LAYER_SETTING_TYPE_INT32_EXT, &latency),
	        SETTING("log_dir", VK_LAYER_SETTING_TYPE_STRING_EXT, &rel),
	        SETTING("enabled", VK_LAYER_SETTING_TYPE_STRING_EXT, &word),
	        SETTING("frames", VK_LAYER_SETTING_TYPE_INT32_EXT, &latency),
	        {LOWLAT_LAYER_NAME, "fps", VK_LAYER_SETTING_TYPE_FLOAT64_EXT, 0, NULL},
	        {LOWLAT_LAYER_NAME, "fps", (VkLayerSettingTypeEXT)99, 1, &half},
	};
	struct lowlat_config c;
	uint32_t set = 0;

	lowlat_config_defaults(&c);
	c.fps = 60;
	CHECK_STR(apply_settings(settings, sizeof(settings) / sizeof(settings[0]), &c, &set),
	          "VK_EXT_layer_settings: \"fps\": 50000 is out of range (0 = off, or 1 to 10000); using 60\n"
	          "VK_EXT_layer_settings: \"fps\": 0.5 is out of range (0 = off, or 1 to 10000); using 60\n"
	          "VK_EXT_layer_settings: \"fps\": \"soon\" is not a number, \"refresh\", \"refresh/N\" or "
	          "\"refresh-N\"; using 60\n"
	          "VK_EXT_layer_settings: \"fps\": true is not a number, \"refresh\", \"refresh/N\" or "
	          "\"refresh-N\"; using 60\n"
	          "VK_EXT_layer_settings: \"method\": true is not \"late\" or \"early\"; using late\n"
	          "VK_EXT_layer_settings: \"present_mode\": \"\" is not \"auto\", \"fifo\", "
	          "\"fifo_latest_ready\", "
	          "\"mailbox\" or \"immediate\"; using auto\n"
	          "VK_EXT_layer_settings: \"max_latency_frames\": 40 is out of range (0 = the app's own, or "
	          "1 to 16); "
	          "using 1\n"
	          "VK_EXT_layer_settings: \"log_dir\": \"logs\" is not an absolute path; using the default\n"
	          "VK_EXT_layer_settings: \"enabled\": \"soon\" is not true or false; using true\n"
	          "VK_EXT_layer_settings: unknown setting \"frames\"; ignored\n"
	          "VK_EXT_layer_settings: \"fps\" has no value; ignored\n"
	          "VK_EXT_layer_settings: \"fps\" has unknown type 99; ignored");
	CHECK(c.fps == 60 && set == 0);
}

/* The manifest's settings are the layer's keys, with their environment variables. */
static void test_manifest(const char *path)
{
	FILE *f = fopen(path, "r");
	static char text[65536];
	size_t len;

	CHECK(f != NULL);
	if (!f)
		return;
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';

	cJSON *root = cJSON_Parse(text);
	CHECK(root != NULL);
	cJSON *layer = cJSON_GetObjectItemCaseSensitive(root, "layer");
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(layer, "name")), LOWLAT_LAYER_NAME);
	cJSON *settings = cJSON_GetObjectItemCaseSensitive(
	        cJSON_GetObjectItemCaseSensitive(layer, "features"), "settings");
	CHECK(cJSON_GetArraySize(settings) == LOWLAT_KEY_COUNT);
	uint32_t seen = 0;
	const cJSON *s;
	cJSON_ArrayForEach(s, settings)
	{
		const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "key"));
		int k = key ? lowlat_config_key_lookup(key) : -1;

		CHECK(k >= 0);
		if (k < 0)
			continue;
		seen |= LOWLAT_KEY_BIT(k);
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "env")),
		          lowlat_config_key_env(k));
		CHECK(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "label")) != NULL);
		CHECK(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "description")) != NULL);
		CHECK(cJSON_GetObjectItemCaseSensitive(s, "default") != NULL);
	}
	CHECK(seen == (1u << LOWLAT_KEY_COUNT) - 1);
	cJSON_Delete(root);
}

int main(int argc, char **argv)
{
	RUN(test_natural_types);
	RUN(test_other_types);
	RUN(test_bad);
	if (argc > 1)
		test_manifest(argv[1]);
	else
		CHECK(!"usage: test_settings MANIFEST");
	printf("%s test_manifest\n", check_failures ? "FAIL" : "ok  ");
	return check_result();
}
