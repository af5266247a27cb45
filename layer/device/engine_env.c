/* engine_env.c — gathers what engine.c judges: the engines' environment variables, MangoHud's, the
 * config file MangoHud itself reads, and whether MangoHud's Vulkan layer is in the process.
 *
 * MangoHud's settings count only when its layer is loaded: the loader opens every layer library of
 * an instance's chain before calling down it, so at lowlat's vkCreateInstance libMangoHud.so is in
 * the process exactly when MangoHud is in the chain, above lowlat or below.
 */
#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "engine.h"
#include "engine_env.h"
#include "message.h"
#include "objects.h"

/* A MangoHud config file is a few kilobytes; more than this is not one. */
#define MANGOHUD_FILE_MAX 65536 /* bytes */

static int find_mangohud(struct dl_phdr_info *info, size_t size, void *found)
{
	const char *slash = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;

	(void)size;
	if (!strcmp(slash ? slash + 1 : info->dlpi_name ? info->dlpi_name : "", "libMangoHud.so"))
		*(bool *)found = true;
	return *(bool *)found;
}

/* The whole (small) file into a NUL-terminated heap buffer; NULL when it cannot be opened. */
static char *read_text(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *text;

	if (!f)
		return NULL;
	text = malloc(max + 1);
	*len = text ? fread(text, 1, max, f) : 0;
	fclose(f);
	if (text)
		text[*len] = '\0';
	return text;
}

/* What MangoHud's settings say, when its layer is loaded: into dst, false when it sets no limit. */
static bool mangohud_check(char *dst, size_t size)
{
	char(*paths)[LOWLAT_MANGOHUD_PATH_MAX] = NULL;
	char exe[LOWLAT_MANGOHUD_PATH_MAX], config_dir[LOWLAT_MANGOHUD_PATH_MAX], comm[64] = "";
	char *cmdline = NULL, *text = NULL;
	bool loaded = false, limits = false;
	size_t len = 0;
	ssize_t n;

	dl_iterate_phdr(find_mangohud, &loaded);
	if (!loaded || !(paths = calloc(LOWLAT_MANGOHUD_PATHS_MAX, sizeof(*paths))))
		return false;

	/* MangoHud's get_config_dir(): $XDG_CONFIG_HOME as it is, else $HOME/.config. */
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	snprintf(config_dir, sizeof(config_dir), "%s%s",
	         xdg    ? xdg
	         : home ? home
	                : "",
	         xdg || !home || !*home ? "" : "/.config");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	FILE *f = fopen("/proc/self/comm", "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	cmdline = read_text("/proc/self/cmdline", LOWLAT_CMDLINE_MAX, &len);
	const struct lowlat_mangohud_where where = {
	        .config_file = getenv("MANGOHUD_CONFIGFILE"),
	        .config_dir = config_dir,
	        .exe = *exe ? exe : NULL,
	        .comm = comm,
	        .cmdline = cmdline,
	        .cmdline_size = cmdline ? len : 0,
	};
	struct lowlat_mangohud_env env = {.config = getenv("MANGOHUD_CONFIG"),
	                                  .fps_limit = getenv("MANGOHUD_FPS_LIMIT")};
	unsigned count = lowlat_mangohud_config_paths(&where, paths);
	/* MangoHud reads the first that opens, and only that one. */
	for (unsigned i = 0; i < count && !text; i++)
		if ((text = read_text(paths[i], MANGOHUD_FILE_MAX, &len)))
			env.file = paths[i];
	env.file_text = text;
	limits = lowlat_mangohud_limiter(&env, dst, size);
	free(text);
	free(cmdline);
	free(paths);
	return limits;
}

void lowlat_engine_check(struct lowlat_instance *inst)
{
	static atomic_flag hinted = ATOMIC_FLAG_INIT;
	const struct lowlat_engine_env env = {
	        .dxvk_config = getenv("DXVK_CONFIG"),
	        .vkd3d_frame_rate = getenv("VKD3D_FRAME_RATE"),
	        .vkd3d_latency = getenv("VKD3D_SWAPCHAIN_LATENCY_FRAMES"),
	};
	char hint[384];

	inst->by_engine =
	        lowlat_engine_limiter(inst->engine_name, &env, inst->engine_why, sizeof(inst->engine_why));
	inst->engine_needs_present_wait =
	        inst->by_engine && !strcmp(lowlat_engine_kind(inst->engine_name), "vkd3d");
	inst->by_mangohud = mangohud_check(inst->mangohud_why, sizeof(inst->mangohud_why));
	if (lowlat_engine_latency_hint(inst->engine_name, &env, hint, sizeof(hint)) &&
	    !atomic_flag_test_and_set(&hinted))
		lowlat_msg_held("%s", hint);
}

void lowlat_engine_device(struct lowlat_device *dev, bool present_wait)
{
	const struct lowlat_instance *inst = dev->instance;
	bool by_engine = inst->by_engine && (present_wait || !inst->engine_needs_present_wait);

	if (inst->by_engine && !by_engine)
		LOWLAT_WARN_ONCE("%s, but vkd3d-proton keeps it only on a device with present wait, which it "
		                 "did not enable here: lowlat's cap applies",
		                 inst->engine_why);
	/* Both can be on: the line names each. */
	dev->engine_limits = by_engine || inst->by_mangohud;
	snprintf(dev->engine_limit, sizeof(dev->engine_limit), "%s%s%s", by_engine ? inst->engine_why : "",
	         by_engine && inst->by_mangohud ? " and " : "", inst->by_mangohud ? inst->mangohud_why : "");
}
