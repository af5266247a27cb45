/* config_global.c — the process's one config: loaded at the first vkCreateInstance from the real
 * environment, /proc/self and the create info; checked for edits by lowlat's control thread
 * (control.h), which also serves the socket's commands, and published to the present path as a
 * generation it reads with one atomic load.
 *
 * Lock: config_lock guards `state`. It is a leaf lock (nothing else is taken under it, nothing is
 * called down the Vulkan chain under it). A presenting thread takes it only to copy a config
 * whose generation changed; the control thread takes it for each reload check and command.
 */
#include "vk_compat.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "config_control.h"
#include "config_files.h"
#include "config_global.h"
#include "config_settings.h"
#include "control.h"
#include "message.h"

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lowlat_config_state state;
/* The config's generation, read without the lock on every present. */
static _Atomic uint64_t generation;

static const char *real_getenv(void *user, const char *name)
{
	(void)user;
	return getenv(name);
}

/* Problems: said at the default level, held until the process has a swapchain (message.h). */
static void to_stderr(void *user, const char *text)
{
	(void)user;
	lowlat_msg_held("%s", text);
}

/* News (files read, the settings in force): LOWLAT_VERBOSE=1 only. */
static void to_stderr_info(void *user, const char *text)
{
	(void)user;
	LOWLAT_INFO("%s", text);
}

static const struct lowlat_config_sink sink = {to_stderr, NULL, to_stderr_info};

static int64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static size_t read_cmdline(char *buf, size_t size)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t got;

	if (fd < 0)
		return 0;
	while (len < size && (got = read(fd, buf + len, size - len)) > 0)
		len += (size_t)got;
	close(fd);
	return len;
}

void lowlat_config_global_init(const void *instance_create_info)
{
	const VkInstanceCreateInfo *info = instance_create_info;
	const VkApplicationInfo *app = info ? info->pApplicationInfo : NULL;
	static char cmdline[LOWLAT_CMDLINE_MAX], exe[4096];
	struct lowlat_process proc = {.env = {real_getenv, NULL}};
	const struct lowlat_config_source settings = {lowlat_config_apply_layer_settings, info};
	ssize_t n;

	pthread_mutex_lock(&config_lock);
	if (atomic_load(&generation)) {
		pthread_mutex_unlock(&config_lock);
		return;
	}
	proc.cmdline = cmdline;
	proc.cmdline_size = read_cmdline(cmdline, sizeof(cmdline));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		proc.exe = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	}
	if (app) {
		proc.app_name = app->pApplicationName;
		proc.engine_name = app->pEngineName;
	}
	lowlat_config_load(&state, &proc, &settings, monotonic_ns(), &sink);
	atomic_store(&generation, 1);
	pthread_mutex_unlock(&config_lock);
}

void lowlat_config_global_started(void)
{
	static atomic_flag started = ATOMIC_FLAG_INIT;

	if (atomic_flag_test_and_set(&started))
		return;
	lowlat_msg_release();
	/* Not under the config lock: the thread takes it for every check and command. */
	lowlat_control_start(&(struct lowlat_control_hooks){.game_key = state.game.key,
	                                                    .command = lowlat_config_global_control,
	                                                    .tick = lowlat_config_global_tick});
}

int64_t lowlat_config_global_tick(int64_t now_ns)
{
	int64_t next_ns;

	pthread_mutex_lock(&config_lock);
	if (!atomic_load(&generation)) {
		pthread_mutex_unlock(&config_lock);
		return INT64_MAX; /* nothing loaded: nothing to check */
	}
	if (now_ns >= state.next_check_ns && lowlat_config_reload(&state, now_ns, &sink))
		atomic_fetch_add(&generation, 1);
	next_ns = state.next_check_ns;
	pthread_mutex_unlock(&config_lock);
	return next_ns;
}

uint64_t lowlat_config_global_get(uint64_t seen, struct lowlat_config *out)
{
	uint64_t g = atomic_load(&generation);

	if (g == seen)
		return g;
	pthread_mutex_lock(&config_lock);
	g = atomic_load(&generation);
	if (g)
		*out = state.config;
	else
		lowlat_config_defaults(out);
	pthread_mutex_unlock(&config_lock);
	return g;
}

const char *lowlat_config_global_game_key(void)
{
	/* Written once by the first lowlat_config_global_init, before any swapchain can exist, and
	 * never again: callers read it without the lock. */
	return state.game.key;
}

void lowlat_config_global_control(const char *line, char *reply, size_t size)
{
	pthread_mutex_lock(&config_lock);
	if (!atomic_load(&generation))
		snprintf(reply, size, "error: no config loaded yet");
	else if (lowlat_config_control(&state, line, reply, size))
		atomic_fetch_add(&generation, 1);
	pthread_mutex_unlock(&config_lock);
}
