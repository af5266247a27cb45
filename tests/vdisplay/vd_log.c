/* vd_log.c — the truth log's file; see vd_log.h. */
#include "vd_log.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "vd_layer.h"

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
/* Guards the FILE's contents as a whole row: stdio locks each call, a row is one call. */
static FILE *log_file;

static const char *mode_name(enum vd_mode mode)
{
	switch (mode) {
	case VD_MODE_IMMEDIATE: return "IMMEDIATE";
	case VD_MODE_MAILBOX: return "MAILBOX";
	case VD_MODE_FIFO: return "FIFO";
	case VD_MODE_FIFO_RELAXED: return "FIFO_RELAXED";
	case VD_MODE_FIFO_LATEST_READY: return "FIFO_LATEST_READY";
	}
	return "?";
}

static void open_log(void)
{
	const char *path = getenv("LOWLAT_VDISPLAY_LOG");

	if (!path || !*path)
		return;
	log_file = fopen(path, "w");
	if (!log_file) {
		vd_msg("cannot write the truth log %s", path);
		return;
	}
	/* Line buffered: a test that kills the app still reads every complete row. */
	setvbuf(log_file, NULL, _IOLBF, 0);
	fprintf(log_file,
	        "swapchain,event,seq,present_id,image,mode,queued_ns,ready_ns,target_ns,refresh,time_ns,"
	        "by,rate_mhz,vrr_min_mhz\n");
}

void vd_log_event(uint32_t swapchain, int64_t rate_mhz, int64_t vrr_min_mhz, const char *event,
                  const struct vd_event *ev)
{
	const struct vd_request *r = &ev->request;

	pthread_once(&log_once, open_log);
	if (!log_file)
		return;
	fprintf(log_file,
	        "%u,%s,%" PRIu64 ",%" PRIu64 ",%u,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
	        ",%" PRIu64 ",%" PRId64 ",%" PRId64 "\n",
	        swapchain, event, r->seq, r->present_id, r->image, mode_name(r->mode), r->queued_ns,
	        r->ready_ns == VD_TIME_UNKNOWN ? 0 : r->ready_ns, r->target_abs_ns, ev->refresh, ev->time_ns,
	        r->replaced_by, rate_mhz, vrr_min_mhz);
}

void vd_log_flush(void)
{
	if (log_file)
		fflush(log_file);
}
