/* control.c — lowlat's one background thread: it runs the config's periodic work (the reload
 * check, which stats files: never on the present path, where a stat on NFS or FUSE could stall the
 * game) and serves the control socket, $XDG_RUNTIME_DIR/lowlat/<game-key>-<pid>.sock: one-line
 * commands (the config executes them) so tools can change the cap while the game runs, and
 * `stats`, what its swapchains do now (live.h). `lowlat ctl` and `lowlat status` (cli/lowlat.c) are
 * its clients. Where the socket cannot be made, the thread still runs the periodic work.
 *
 * Access: the directory is 0700 and must be ours, the socket 0600, and each client's
 * SO_PEERCRED uid must be ours: only the owning user gets in. The pid alone is not the name
 * because inside Flatpak's pid namespace it is ambiguous; the game key makes it readable.
 *
 * Lifetime: started once, at the process's first swapchain; stopped, joined and unlinked by the library's
 * destructor, which runs at exit and also when the loader dlcloses the layer (the thread must not
 * outlive its code). A client that stalls is dropped after CLIENT_IDLE_MS so it cannot block
 * others for long.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "live.h"
#include "message.h"

/* How long a connected client may stay silent before it is dropped. */
#define CLIENT_IDLE_MS 2000 /* ms */

static struct {
	struct lowlat_control_hooks hooks;
	int listen_fd, stop_fd;
	pthread_t thread;
	bool running;
	pid_t owner; /* a forked child inherits `running` but not the thread: only the owner stops it */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
} control = {.listen_fd = -1, .stop_fd = -1};

/* Wait for `fd` to be readable, or for stop; false on stop, timeout or error. */
static bool wait_readable(int fd, int timeout_ms)
{
	struct pollfd fds[2] = {{.fd = fd, .events = POLLIN}, {.fd = control.stop_fd, .events = POLLIN}};
	int n;

	do
		n = poll(fds, 2, timeout_ms);
	while (n < 0 && errno == EINTR);
	return n > 0 && !(fds[1].revents & POLLIN) && (fds[0].revents & (POLLIN | POLLHUP));
}

static void send_line(int fd, const char *text)
{
	size_t len = strlen(text);
	char buf[LOWLAT_CONTROL_LINE_MAX + 1300];

	if (len > sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	memcpy(buf, text, len);
	buf[len++] = '\n';
	/* MSG_NOSIGNAL: a client that went away must not SIGPIPE the game. */
	(void)!send(fd, buf, len, MSG_NOSIGNAL);
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool peer_is_us(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) && cred.uid == geteuid();
}

/* Serve one client: lines until it closes, goes quiet, or sends a line too long to be a command. */
static void serve(int fd)
{
	char buf[LOWLAT_CONTROL_LINE_MAX + 2], reply[LOWLAT_CONTROL_LINE_MAX + 1280];
	size_t len = 0;

	if (!peer_is_us(fd)) {
		send_line(fd, "error: permission denied");
		return;
	}
	while (wait_readable(fd, CLIENT_IDLE_MS)) {
		ssize_t got = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);
		char *nl;

		if (got <= 0)
			return;
		len += (size_t)got;
		buf[len] = '\0';
		while ((nl = memchr(buf, '\n', len))) {
			*nl = '\0';
			if (strlen(buf) != (size_t)(nl - buf))
				snprintf(reply, sizeof(reply),
				         "error: NUL byte in the command; nothing changed");
			else if (!strcmp(buf, "stats") || !strcmp(buf, "stats\r"))
				lowlat_live_describe(reply, sizeof(reply), monotonic_ns());
			else
				control.hooks.command(buf, reply, sizeof(reply));
			send_line(fd, reply);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
			buf[len] = '\0';
		}
		if (len >= sizeof(buf) - 1) {
			snprintf(reply, sizeof(reply), "error: command longer than %d bytes; nothing changed",
			         LOWLAT_CONTROL_LINE_MAX);
			send_line(fd, reply);
			return;
		}
	}
}

/* Waits for a client (when there is a socket) until the periodic work is next due; false on stop. */
static bool wait_client(int64_t due_ns, bool *client)
{
	struct pollfd fds[2] = {{.fd = control.stop_fd, .events = POLLIN},
	                        {.fd = control.listen_fd, .events = POLLIN}};
	int64_t left_ns = due_ns - monotonic_ns();
	int timeout_ms = due_ns == INT64_MAX ? -1 : left_ns <= 0 ? 0 : (int)((left_ns + 999999) / 1000000);
	int n;

	do
		n = poll(fds, control.listen_fd >= 0 ? 2 : 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	*client = n > 0 && (fds[1].revents & POLLIN);
	return !(n > 0 && (fds[0].revents & POLLIN));
}

static void *control_thread(void *arg)
{
	int64_t due_ns = 0;
	bool client;

	(void)arg;
	for (;;) {
		int64_t now_ns = monotonic_ns();
		if (now_ns >= due_ns)
			due_ns = control.hooks.tick ? control.hooks.tick(now_ns) : INT64_MAX;
		if (!wait_client(due_ns, &client))
			return NULL;
		if (!client)
			continue;
		int fd = accept4(control.listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		serve(fd);
		close(fd);
	}
}

/* $XDG_RUNTIME_DIR/lowlat, made 0700 if missing; refused unless it is a directory of ours that
 * nobody else can enter. */
static bool private_dir(const char *runtime, char *dir, size_t size)
{
	struct stat st;

	if (snprintf(dir, size, "%s/lowlat", runtime) >= (int)size)
		return false;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return false;
	return !lstat(dir, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 077);
}

/* The socket, bound and listening, in control.listen_fd; says why not in one line when it cannot be. */
static void open_socket(const char *game_key)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	char dir[sizeof(addr.sun_path)];
	int max_key;

	if (!runtime || runtime[0] != '/') {
		LOWLAT_INFO("XDG_RUNTIME_DIR is not set; no control socket");
		return;
	}
	if (!private_dir(runtime, dir, sizeof(dir))) {
		lowlat_msg("%s/lowlat is not a private directory of this user; no control socket", runtime);
		return;
	}
	/* sun_path is 108 bytes: shorten the key, never the directory or the pid. */
	max_key = (int)sizeof(addr.sun_path) - 1 - (int)strlen(dir) - (int)sizeof("/-4294967295.sock");
	if (max_key < 1) {
		lowlat_msg("%s is too long a path for a socket; no control socket", dir);
		return;
	}
	snprintf(control.path, sizeof(control.path), "%s/%.*s-%d.sock", dir, max_key,
	         game_key && *game_key ? game_key : "unknown", (int)getpid());
	memcpy(addr.sun_path, control.path, sizeof(addr.sun_path));
	control.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (control.listen_fd < 0)
		goto fail;
	/* A socket of the same name is a leftover of an earlier process with our pid. */
	unlink(control.path);
	if (bind(control.listen_fd, (struct sockaddr *)&addr, sizeof(addr)) || chmod(control.path, 0600) ||
	    listen(control.listen_fd, 4))
		goto fail_unlink;
	LOWLAT_INFO("control socket: %s", control.path);
	return;

fail_unlink:
	unlink(control.path);
fail:
	lowlat_msg("cannot create the control socket %s (%s); no runtime control", control.path,
	           strerror(errno));
	if (control.listen_fd >= 0)
		close(control.listen_fd);
	control.listen_fd = -1;
	control.path[0] = '\0';
}

void lowlat_control_start(const struct lowlat_control_hooks *hooks)
{
	sigset_t all, old;

	if (control.running)
		return;
	control.hooks = *hooks;
	control.stop_fd = eventfd(0, EFD_CLOEXEC);
	if (control.stop_fd < 0) {
		lowlat_msg("cannot create lowlat's control thread (%s): no config reload, no runtime "
		           "control",
		           strerror(errno));
		return;
	}
	open_socket(hooks->game_key);
	/* The thread takes no signal of the game's: they stay with the game's own threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	control.running = !pthread_create(&control.thread, NULL, control_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (control.running) {
		control.owner = getpid();
		return;
	}
	lowlat_msg("cannot start lowlat's control thread: no config reload, no runtime control");
	if (control.listen_fd >= 0) {
		unlink(control.path);
		close(control.listen_fd);
	}
	close(control.stop_fd);
	control.listen_fd = control.stop_fd = -1;
}

__attribute__((destructor)) void lowlat_control_stop(void)
{
	uint64_t one = 1;

	if (!control.running || control.owner != getpid())
		return;
	(void)!write(control.stop_fd, &one, sizeof(one));
	pthread_join(control.thread, NULL);
	control.running = false;
	if (control.listen_fd >= 0) {
		unlink(control.path);
		close(control.listen_fd);
	}
	close(control.stop_fd);
	control.listen_fd = control.stop_fd = -1;
}
