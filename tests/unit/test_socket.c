/* test_socket.c — the control socket in this process: where it is and its modes, commands and
 * replies, malformed input (unknown command, control characters, NUL, an over-long line, several
 * lines at once) leaving the thread serving, `lowlat ctl` (argv[1]) against it, other users kept
 * out (when run as root, by a child that becomes nobody), and removal at stop. */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "config_global.h"
#include "control.h"

static char sock_path[108];

static int connect_to(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Send `len` bytes, half-close, return everything the server answered. */
static const char *exchange(const char *data, size_t len)
{
	static char reply[8192];
	size_t got = 0;
	ssize_t n;
	int fd = connect_to(sock_path);

	reply[0] = '\0';
	CHECK(fd >= 0);
	if (fd < 0)
		return reply;
	CHECK(write(fd, data, len) == (ssize_t)len);
	shutdown(fd, SHUT_WR);
	while (got < sizeof(reply) - 1 && (n = read(fd, reply + got, sizeof(reply) - 1 - got)) > 0)
		got += (size_t)n;
	reply[got] = '\0';
	close(fd);
	return reply;
}

static const char *command(const char *line)
{
	return exchange(line, strlen(line));
}

static double current_fps(void)
{
	struct lowlat_config c;
	lowlat_config_global_get(0, &c);
	return c.fps;
}

static void test_commands(void)
{
	CHECK_STR(command("fps 50\n"), "ok fps 50\n");
	CHECK(current_fps() == 50);
	CHECK_STR(command("status\nmethod early\n"),
	          "ok game \"test_socket\"; fps 50, method late, "
	          "present_mode auto, max_latency_frames 1, log false, "
	          "log_dir default, enabled true, stack_limiters false\nok method early\n");
	CHECK_STR(command("fps sixty\n"), "error: fps sixty is not a number, \"refresh\", \"refresh/N\" or "
	                                  "\"refresh-N\"; using 50\n");
	CHECK_STR(command("bogus 1\n"),
	          "error: unknown command \"bogus\" (commands: status, reset, toggle, cycle, or a key and "
	          "its value: fps, method, present_mode, max_latency_frames, log, log_dir, enabled, "
	          "stack_limiters)\n");
	/* What the swapchains do: none in this process. */
	CHECK(!strncmp(command("stats\n"), "ok stats now_ns=", 16));
	CHECK(strstr(command("stats\n"), " last_present_ns=0\n") != NULL);
	CHECK_STR(command("\x01\x02\n"), "error: control characters in the command; nothing changed\n");
	CHECK_STR(exchange("fp\0s 1\n", 7), "error: NUL byte in the command; nothing changed\n");
	static char flood[3000];
	memset(flood, 'a', sizeof(flood));
	CHECK_STR(exchange(flood, sizeof(flood)), "error: command longer than 1088 bytes; nothing changed\n");
	/* No newline at all: nothing is executed, the server drops the client at EOF. */
	CHECK_STR(command("fps 10"), "");
	/* Still serving, nothing changed by any of that. */
	CHECK(current_fps() == 50);
	CHECK_STR(command("reset\n"),
	          "ok fps 60, method late, present_mode auto, max_latency_frames 1, log false, "
	          "log_dir default, enabled true, stack_limiters false\n");
}

static void test_modes(const char *runtime)
{
	char dir[256];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/lowlat", runtime);
	CHECK(!stat(dir, &st) && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	CHECK(!stat(sock_path, &st) && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600);
}

/* Run `lowlat ctl ARGS` and return its stdout; *status gets its exit status. */
static const char *run_ctl(const char *cli, const char *args, int *status)
{
	static char out[4096];
	char cmd[1024];
	size_t got;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s ctl %s", cli, args);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	if (!p)
		return "";
	got = fread(out, 1, sizeof(out) - 1, p);
	out[got] = '\0';
	*status = WEXITSTATUS(pclose(p));
	return out;
}

static void test_ctl(const char *cli)
{
	char args[64], want[512];
	int status;

	CHECK_STR(run_ctl(cli, "fps 45", &status), "ok fps 45\n");
	CHECK(status == 0 && current_fps() == 45);
	snprintf(args, sizeof(args), "%d method early", (int)getpid());
	CHECK_STR(run_ctl(cli, args, &status), "ok method early\n");
	CHECK(status == 0);
	CHECK_STR(run_ctl(cli, "test_socket method nope", &status),
	          "error: method nope is not \"late\" or \"early\"; using early\n");
	CHECK(status == 1);
	snprintf(want, sizeof(want), "test_socket\t%d\t%s\n", (int)getpid(), sock_path);
	CHECK_STR(run_ctl(cli, "--list", &status), want);
	CHECK_STR(run_ctl(cli, "other_game status 2>/dev/null", &status), "");
	CHECK(status == 2);
	run_ctl(cli, "reset", &status);
}

/* As nobody: connect, and return what happened ("refused" or the server's reply). */
static int try_as_nobody(void)
{
	pid_t child = fork();
	int status;

	if (child == 0) {
		char reply[256] = "";
		ssize_t n;
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		fd = connect_to(sock_path);
		if (fd < 0)
			_exit(errno == EACCES ? 0 : 11);
		n = read(fd, reply, sizeof(reply) - 1);
		_exit(n > 0 && !strncmp(reply, "error: permission denied\n", 25) ? 1 : 12);
	}
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char runtime[64] = "/tmp/lowlat-run-XXXXXX";

static void test_other_user(void)
{
	char dir[256];

	if (geteuid() != 0) {
		printf("skip test_other_user: needs root to become another user\n");
		return;
	}
	/* The 0700 directory and the 0600 socket keep nobody out... */
	CHECK(try_as_nobody() == 0);
	/* ... and were they opened up, the peer-credential check still would. */
	snprintf(dir, sizeof(dir), "%s/lowlat", runtime);
	chmod(runtime, 0755);
	chmod(dir, 0777);
	chmod(sock_path, 0777);
	CHECK(try_as_nobody() == 1);
	chmod(sock_path, 0600);
	chmod(dir, 0700);
	chmod(runtime, 0700);
	CHECK(!strncmp(command("status\n"), "ok game", 7));
}

int main(int argc, char **argv)
{
	char config[64] = "/tmp/lowlat-cfg-XXXXXX", path[256];

	if (argc < 2 || !mkdtemp(runtime) || !mkdtemp(config))
		return 2;
	snprintf(path, sizeof(path), "%s/lowlat", config);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/lowlat/default.json", config);
	FILE *f = fopen(path, "w");
	if (!f)
		return 2;
	fputs("{\"fps\": 60}", f);
	fclose(f);
	setenv("XDG_RUNTIME_DIR", runtime, 1);
	setenv("XDG_CONFIG_HOME", config, 1);
	snprintf(sock_path, sizeof(sock_path), "%s/lowlat/test_socket-%d.sock", runtime, (int)getpid());

	lowlat_config_global_init(NULL);
	/* The socket opens with the process's first swapchain, which the layer reports so. */
	lowlat_config_global_started();
	test_modes(runtime);
	RUN(test_commands);
	test_ctl(argv[1]);
	printf("%s test_ctl\n", check_failures ? "FAIL" : "ok  ");
	RUN(test_other_user);

	lowlat_control_stop();
	struct stat st;
	CHECK(stat(sock_path, &st) && errno == ENOENT);

	unlink(path);
	snprintf(path, sizeof(path), "%s/lowlat", config);
	rmdir(path);
	rmdir(config);
	snprintf(path, sizeof(path), "%s/lowlat", runtime);
	rmdir(path);
	rmdir(runtime);
	return check_result();
}
