/* test_examples.c — the shipped examples and the editors' schema agree with the parser.
 * argv: SCHEMA EXAMPLE...
 * Each example goes through the real parser without a single message; the schema lists exactly the
 * parser's keys (and "$schema"), the same choices for method and present_mode, and the same ranges. */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "check.h"
#include "config.h"
#include "sink.h"

static char *slurp(const char *path)
{
	static char text[65536];
	FILE *f = fopen(path, "r");
	size_t len;

	if (!f)
		return NULL;
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	return text;
}

static void check_example(const char *path)
{
	struct collected out;
	struct lowlat_config_sink sink = collect_sink(&out);
	struct lowlat_config c;
	const char *text = slurp(path);

	CHECK(text != NULL);
	if (!text)
		return;
	lowlat_config_defaults(&c);
	CHECK(lowlat_config_parse(text, path, &c, &sink));
	CHECK_STR(out.text, "");
	printf("%s %s\n", out.lines ? "FAIL" : "ok  ", path);
}

static void check_choices(const cJSON *property, const char *(*name)(int), int count)
{
	const cJSON *choices = cJSON_GetObjectItemCaseSensitive(property, "enum");
	CHECK(cJSON_GetArraySize(choices) == count);
	for (int i = 0; i < count && i < cJSON_GetArraySize(choices); i++)
		CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(choices, i)), name(i));
}

static const char *method_name(int i)
{
	return lowlat_method_name(i);
}

static const char *present_mode_name(int i)
{
	return lowlat_present_mode_name(i);
}

static double number(const cJSON *object, const char *name)
{
	return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(object, name));
}

static void check_schema(const char *path)
{
	const char *text = slurp(path);
	cJSON *root = text ? cJSON_Parse(text) : NULL;
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(root, "properties"), *p;
	uint32_t seen = 0;

	CHECK(root != NULL);
	CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(root, "additionalProperties")));
	cJSON_ArrayForEach(p, props)
	{
		int k = lowlat_config_key_lookup(p->string);
		CHECK(k >= 0 || !strcmp(p->string, "$schema"));
		if (k >= 0)
			seen |= LOWLAT_KEY_BIT(k);
	}
	CHECK(seen == (1u << LOWLAT_KEY_COUNT) - 1);
	check_choices(cJSON_GetObjectItemCaseSensitive(props, "method"), method_name, 2);
	check_choices(cJSON_GetObjectItemCaseSensitive(props, "present_mode"), present_mode_name, 5);

	const cJSON *fps_range = cJSON_GetArrayItem(
	        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(props, "fps"), "anyOf"), 1);
	CHECK(number(fps_range, "minimum") == LOWLAT_FPS_MIN);
	CHECK(number(fps_range, "maximum") == LOWLAT_FPS_MAX);
	const cJSON *latency = cJSON_GetObjectItemCaseSensitive(props, "max_latency_frames");
	CHECK(number(latency, "maximum") == LOWLAT_MAX_LATENCY_FRAMES_MAX);
	const cJSON *log_dir = cJSON_GetObjectItemCaseSensitive(props, "log_dir");
	CHECK(number(log_dir, "maxLength") == LOWLAT_CONFIG_PATH_MAX - 1);

	/* The schema's defaults are the built-in ones. */
	struct lowlat_config d;
	lowlat_config_defaults(&d);
	CHECK(number(cJSON_GetObjectItemCaseSensitive(props, "fps"), "default") == d.fps);
	CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
	              cJSON_GetObjectItemCaseSensitive(props, "enabled"), "default")) == d.enabled);
	cJSON_Delete(root);
	printf("%s %s\n", check_failures ? "FAIL" : "ok  ", path);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_examples SCHEMA EXAMPLE...\n");
		return 2;
	}
	check_schema(argv[1]);
	for (int i = 2; i < argc; i++)
		check_example(argv[i]);
	return check_result();
}
