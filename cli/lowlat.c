/* lowlat.c — the `lowlat` command. `lowlat ctl` and `lowlat status` talk to running games
 * (ctl.c); anything else is the wrapper:
 *
 *   lowlat [--fps N] [--log] [--] COMMAND [ARG...]
 *
 * runs COMMAND with lowlat on (`lowlat %command%` in Steam's launch options): ENABLE_LOWLAT_LAYER=1,
 * LOWLAT_FPS / LOWLAT_LOG from the options, and the engine settings that let lowlat's late wait
 * reach a Proton game's own thread: DXVK's latency sleep on the game thread with one frame in
 * flight (appended to DXVK_CONFIG, never over a key the user set there) and vkd3d-proton's one
 * frame of swapchain latency (VKD3D_SWAPCHAIN_LATENCY_FRAMES=1 unless set). Then execs COMMAND.
 * Exit status 2 for bad arguments, 127 when COMMAND cannot be run.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"

/* The DXVK settings the wrapper adds. dxvk.latencySleep makes DXVK sleep on the game thread (through
 * VK_NV_low_latency2, which lowlat provides, where lowlat then waits); one frame of latency so the
 * game thread is not let run frames ahead of the presents (D3D8/9 read d3d9.*, D3D10/11 dxgi.*). */
static const char *const dxvk_settings[][2] = {
        {"dxvk.latencySleep", "True"},
        {"dxgi.maxFrameLatency", "1"},
        {"d3d9.maxFrameLatency", "1"},
};

/* Whether DXVK_CONFIG-style text ("key = value; key = value") sets key. */
static bool config_sets(const char *config, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = config; p && *p;) {
		while (*p == ' ' || *p == '\t' || *p == ';')
			p++;
		if (!strncmp(p, key, n)) {
			const char *q = p + n;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '=')
				return true;
		}
		p = strchr(p, ';');
	}
	return false;
}

/* DXVK_CONFIG with the wrapper's settings the user did not set appended; NULL when out of memory. */
static char *merged_dxvk_config(const char *user)
{
	size_t size = (user ? strlen(user) : 0) + 256;
	char *out = malloc(size);
	size_t len;

	if (!out)
		return NULL;
	snprintf(out, size, "%s", user ? user : "");
	/* Drop trailing separators and spaces so the join is one "; ". */
	len = strlen(out);
	while (len && (out[len - 1] == ' ' || out[len - 1] == ';' || out[len - 1] == '\t'))
		out[--len] = '\0';
	for (size_t i = 0; i < sizeof(dxvk_settings) / sizeof(dxvk_settings[0]); i++) {
		if (user && config_sets(user, dxvk_settings[i][0]))
			continue;
		len += (size_t)snprintf(out + len, size - len, "%s%s = %s", len ? "; " : "",
		                        dxvk_settings[i][0], dxvk_settings[i][1]);
	}
	return out;
}

/* The whole of text as a number in [lo, hi], in the C locale's format (the layer's own reading). */
static bool number_in(const char *text, double lo, double hi, bool whole)
{
	char *end;
	double v;

	if (!*text || *text == ' ' || *text == '+' || *text == '-')
		return false;
	v = strtod(text, &end);
	return !*end && isfinite(v) && v >= lo && v <= hi && (!whole || v == floor(v));
}

bool lowlat_cli_fps_ok(const char *text)
{
	/* The layer's ranges (include/lowlat_config.h, layer/config/fps_refresh.h). */
	if (!strncasecmp(text, "refresh", 7)) {
		const char *rest = text + 7;
		return !*rest || (*rest == '/' && number_in(rest + 1, 1, 100, true)) ||
		       (*rest == '-' && number_in(rest + 1, 0, 10000, false));
	}
	return number_in(text, 0, 10000, false) && (atof(text) == 0 || atof(text) >= 1);
}

static int wrapper_usage(const char *problem)
{
	if (problem)
		fprintf(stderr, "lowlat: %s\n", problem);
	fprintf(stderr,
	        "usage: lowlat [--fps N] [--log] [--] COMMAND [ARG...]   run COMMAND with lowlat on\n"
	        "       lowlat ctl ...                                   change a running game's cap\n"
	        "       lowlat status [--once]                           what running games do\n"
	        "In Steam's launch options: lowlat %%command%%  (or: lowlat --fps 60 %%command%%)\n");
	return 2;
}

static int wrap(int argc, char **argv)
{
	const char *fps = NULL;
	bool log = false;
	int i = 1;

	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--fps") || !strncmp(argv[i], "--fps=", 6)) {
			fps = argv[i][5] == '=' ? argv[i] + 6 : (i + 1 < argc ? argv[++i] : NULL);
			if (!fps || !*fps)
				return wrapper_usage("--fps needs a number of frames per second");
			if (!lowlat_cli_fps_ok(fps)) {
				fprintf(stderr,
				        "lowlat: --fps %s is not a frame rate (0 = off, or 1 to 10000) or "
				        "\"refresh\", \"refresh/N\", \"refresh-N\"\n",
				        fps);
				return 2;
			}
			continue;
		}
		if (!strcmp(argv[i], "--log")) {
			log = true;
			continue;
		}
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return wrapper_usage(NULL), 0;
		if (argv[i][0] == '-') {
			fprintf(stderr, "lowlat: unknown option %s\n", argv[i]);
			return wrapper_usage(NULL);
		}
		break;
	}
	if (i >= argc)
		return wrapper_usage("no command to run");

	char *dxvk = merged_dxvk_config(getenv("DXVK_CONFIG"));
	if (!dxvk || setenv("ENABLE_LOWLAT_LAYER", "1", 1) || setenv("DXVK_CONFIG", dxvk, 1) ||
	    (fps && setenv("LOWLAT_FPS", fps, 1)) || (log && setenv("LOWLAT_LOG", "1", 1)) ||
	    setenv("VKD3D_SWAPCHAIN_LATENCY_FRAMES", "1", 0)) {
		fprintf(stderr, "lowlat: out of memory setting up the environment\n");
		return 2;
	}
	free(dxvk);
	execvp(argv[i], argv + i);
	fprintf(stderr, "lowlat: cannot run %s: %s\n", argv[i], strerror(errno));
	return 127;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "ctl"))
		return lowlat_ctl(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "status"))
		return lowlat_status(argc - 2, argv + 2);
	return wrap(argc, argv);
}
