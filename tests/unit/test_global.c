/* test_global.c — the process-wide wrapper the layer calls: load from the real environment, the
 * generation a reader polls, and the control thread's tick picking up an edit a second later. */
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "config_global.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	char dir[64] = "/tmp/lowlat-global-XXXXXX", path[256];
	struct lowlat_config cfg;
	uint64_t seen = 0;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/lowlat", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/lowlat/default.json", dir);
	write_file(path, "{\"fps\": 60}");
	setenv("XDG_CONFIG_HOME", dir, 1);
	unsetenv("LOWLAT_FPS");
	unsetenv("LOWLAT_CONFIG");

	/* Before load: generation 0, the caller keeps its defaults, and a tick does nothing. */
	lowlat_config_defaults(&cfg);
	CHECK(lowlat_config_global_tick(INT64_MAX - 1) == INT64_MAX);
	CHECK(lowlat_config_global_get(seen, &cfg) == 0);
	CHECK(cfg.fps == 0);

	int64_t t0 = now_ns();
	lowlat_config_global_init(NULL);
	seen = lowlat_config_global_get(seen, &cfg);
	CHECK(seen == 1 && cfg.fps == 60);
	/* A second init (another instance) changes nothing. */
	lowlat_config_global_init(NULL);
	CHECK(lowlat_config_global_get(seen, &cfg) == 1);

	/* An edit, then ticks: nothing before the second is up (the tick says when it is), the new
	 * value after it. */
	write_file(path, "{\"fps\": 120, \"method\": \"early\"}");
	int64_t due = lowlat_config_global_tick(t0);
	CHECK(due > t0 && due <= now_ns() + LOWLAT_CONFIG_CHECK_INTERVAL_NS);
	CHECK(lowlat_config_global_get(seen, &cfg) == 1);
	CHECK(lowlat_config_global_tick(now_ns() + LOWLAT_CONFIG_CHECK_INTERVAL_NS) > now_ns());
	seen = lowlat_config_global_get(seen, &cfg);
	CHECK(seen == 2 && cfg.fps == 120 && cfg.method == LOWLAT_METHOD_EARLY);

	unlink(path);
	snprintf(path, sizeof(path), "%s/lowlat", dir);
	rmdir(path);
	rmdir(dir);
	printf("%s test_global\n", check_failures ? "FAIL" : "ok  ");
	return check_result();
}
