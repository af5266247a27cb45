/* bench_reload.c — what the present path pays for live reload: lowlat_config_reload() when the
 * check is not due (every present but one a second) and when it is (two stat(2) calls, files
 * unchanged); and the process-wide wrapper present.c calls. Run: meson test --benchmark -C BUILD
 * reload-check, or the executable itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "config_files.h"
#include "config_global.h"

static char dir[64] = "/tmp/lowlat-bench-XXXXXX";

static const char *bench_getenv(void *user, const char *name)
{
	(void)user;
	return !strcmp(name, "XDG_CONFIG_HOME") ? dir : NULL;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	enum { ITERATIONS = 1000000 };
	static struct lowlat_config_state st;
	char path[256];
	int64_t t0, idle_ns, due_ns;
	int changes = 0;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/lowlat", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/lowlat/games", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/lowlat/default.json", dir);
	write_file(path, "{\"fps\": 60}");
	snprintf(path, sizeof(path), "%s/lowlat/games/bench.json", dir);
	write_file(path, "{\"fps\": 120}");

	struct lowlat_process proc = {.env = {bench_getenv, NULL}, .exe = "bench"};
	lowlat_config_load(&st, &proc, NULL, 0, NULL);

	/* Not due: the rate limit answers. */
	t0 = now_ns();
	for (int i = 0; i < ITERATIONS; i++)
		changes += lowlat_config_reload(&st, i, NULL);
	idle_ns = now_ns() - t0;

	/* Due every call: stat both files, find them unchanged. */
	t0 = now_ns();
	for (int i = 0; i < ITERATIONS / 10; i++)
		changes +=
		        lowlat_config_reload(&st, (int64_t)(i + 1) * LOWLAT_CONFIG_CHECK_INTERVAL_NS, NULL);
	due_ns = now_ns() - t0;

	printf("reload check, not due: %.1f ns per call\n", (double)idle_ns / ITERATIONS);
	printf("reload check, due (2 files stat'ed, unchanged): %.1f ns per call\n",
	       (double)due_ns / (ITERATIONS / 10));

	/* What the present path calls: the generation read (the check runs on the control thread). */
	setenv("XDG_CONFIG_HOME", dir, 1);
	lowlat_config_global_init(NULL);
	struct lowlat_config cfg;
	uint64_t seen = lowlat_config_global_get(0, &cfg);
	t0 = now_ns();
	for (int i = 0; i < ITERATIONS; i++)
		seen = lowlat_config_global_get(seen, &cfg);
	idle_ns = now_ns() - t0;
	printf("present path (lowlat_config_global_get), unchanged: %.1f ns per call\n",
	       (double)idle_ns / ITERATIONS);

	unlink(path);
	snprintf(path, sizeof(path), "%s/lowlat/default.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lowlat/games", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/lowlat", dir);
	rmdir(path);
	rmdir(dir);
	return changes != 0;
}
