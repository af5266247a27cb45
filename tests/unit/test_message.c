/* test_message.c — lowlat's stderr lines (layer/log/message.h): lines held until the process has a
 * swapchain, said in order then, the overflow counted; a repeated line rate-limited to its burst;
 * the verbose levels. stderr goes to a file the test reads back. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "message.h"

static char path[] = "/tmp/lowlat-message-XXXXXX";
static int fd;

/* Everything written to stderr since the last call. */
static const char *said(void)
{
	static char text[8192];
	static off_t read_to;
	ssize_t n = pread(fd, text, sizeof(text) - 1, read_to);

	n = n < 0 ? 0 : n;
	text[n] = '\0';
	read_to += n;
	return text;
}

static void test_held(void)
{
	lowlat_msg_held("a bad value in %s", "default.json");
	lowlat_msg_held("another");
	CHECK_STR(said(), "");
	for (int i = 0; i < LOWLAT_MSG_HELD; i++)
		lowlat_msg_held("more %d", i);
	lowlat_msg_release();
	CHECK_STR(said(), "lowlat: a bad value in default.json\n"
	                  "lowlat: another\n"
	                  "lowlat: more 0\n"
	                  "lowlat: more 1\n"
	                  "lowlat: more 2\n"
	                  "lowlat: more 3\n"
	                  "lowlat: more 4\n"
	                  "lowlat: more 5\n"
	                  "lowlat: 2 more lines like these were not kept\n");
	/* Released: at once, and a second release says nothing again. */
	lowlat_msg_held("now");
	lowlat_msg_release();
	CHECK_STR(said(), "lowlat: now\n");
}

static void say_repeated(void)
{
	LOWLAT_WARN_LIMITED("wait point \"present\" again (%d)", 1);
}

static void test_rate_limited(void)
{
	for (int i = 0; i < 100; i++)
		say_repeated();
	CHECK_STR(said(), "lowlat: wait point \"present\" again (1)\n"
	                  "lowlat: wait point \"present\" again (1)\n"
	                  "lowlat: wait point \"present\" again (1)\n"
	                  "lowlat: wait point \"present\" again (1)\n");
	/* The next line after the period says how many were left out (the period is not waited for
	 * here: the limiter's clock is the real one, and lowlat_msg_skipped is what it calls). */
	lowlat_msg_skipped(96, "wait point \"present\" again (%d)", 1);
	CHECK_STR(said(), "lowlat: wait point \"present\" again (1) (96 more like it not shown)\n");
	struct lowlat_rate_limit rl = {0};
	uint64_t skipped;
	for (int i = 0; i < LOWLAT_RATE_BURST; i++)
		CHECK(lowlat_rate_pass(&rl, &skipped) && skipped == 0);
	CHECK(!lowlat_rate_pass(&rl, &skipped));
	CHECK(!lowlat_rate_pass(&rl, &skipped));
	/* The period over (moved back by hand): one passes, carrying the count. */
	atomic_store(&rl.next_ns, 0);
	CHECK(lowlat_rate_pass(&rl, &skipped) && skipped == 2);
	CHECK(!lowlat_rate_pass(&rl, &skipped));
}

static void test_levels(void)
{
	/* LOWLAT_VERBOSE is unset: the default level. */
	CHECK(lowlat_verbosity() == 0);
	LOWLAT_INFO("info");
	LOWLAT_INFO_LIMITED("info, limited");
	LOWLAT_DEBUG("debug");
	for (int i = 0; i < 3; i++)
		LOWLAT_WARN_ONCE("once");
	CHECK_STR(said(), "lowlat: once\n");
	/* A line longer than one line's room is cut to 511 bytes, still one line (as before levels). */
	char long_text[1000];
	memset(long_text, 'x', sizeof(long_text) - 1);
	long_text[sizeof(long_text) - 1] = '\0';
	lowlat_msg("%s", long_text);
	const char *line = said();
	CHECK(strlen(line) == 511 && line[510] == '\n' && !strchr(line, '\n')[1]);
}

int main(void)
{
	unsetenv("LOWLAT_VERBOSE");
	/* lowlat writes to fd 2; the checks' own messages keep the real stderr. */
	int real = dup(STDERR_FILENO);
	fd = mkstemp(path);
	if (real < 0 || fd < 0 || dup2(fd, STDERR_FILENO) < 0 || !(stderr = fdopen(real, "w")))
		return 2;
	setvbuf(stderr, NULL, _IONBF, 0);
	unlink(path);
	RUN(test_held);
	RUN(test_rate_limited);
	RUN(test_levels);
	return check_result();
}
