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

int main(void)
{
	char dir[64] = "/tmp/lowlat-global-XXXXXX", path[256];
	struct lowlat_config cfg;
	uint64_t seen = 0;

	if (!check_config_home(dir, path, sizeof(path), "{\"fps\": 60}"))
		return 1;
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
	check_write_file(path, "{\"fps\": 120, \"method\": \"early\"}");
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
