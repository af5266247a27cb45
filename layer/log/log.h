/* log.h — the present log: one CSV file per swapchain session (format: include/lowlat_log.h).
 *
 * The present path only copies a fixed-size record into a preallocated single-producer ring; one
 * writer thread for the whole process formats and writes every open log. No I/O, lock, allocation
 * or system call happens on the present path: the writer wakes on its own every 100 ms (10 ms while
 * a ring is half full or more), never because of a present.
 *
 * Threads: lowlat_log_open, _present, _display and _close for one log are called by whoever uses
 * its swapchain, which Vulkan requires to be externally synchronised (one producer at a time).
 * Every function accepts a NULL log and then does nothing, so callers need no `if (logging)`.
 *
 * Wiring (present.c; a NULL log makes every call a no-op):
 *   swapchain created:   sc->log = config.log ? lowlat_log_open(&(struct lowlat_log_params){
 *                                .dir = config.log_dir, .game_key = <game key>}) : NULL;
 *   each present:        struct lowlat_log_record rec; lowlat_log_record_init(&rec);
 *                        fill the times known by then (frame_start_ns = the previous present's
 *                        return, present_ns = entry, wait_*, driver_ns = call-down return,
 *                        target_ns, ...); lowlat_log_present(sc->log, &rec);
 *   display feedback:    lowlat_log_display(sc->log, present_id, stage, time_ns);
 *   swapchain destroyed: lowlat_log_close(sc->log);
 * Process exit and library unload flush by themselves (a destructor calls lowlat_log_shutdown).
 *
 * Failure: any I/O error (directory, open, write) prints one `lowlat:` line and turns logging off
 * for the rest of the process; the game is never affected. When the writer falls behind, records
 * are dropped and counted (`# dropped N records` in the file), never waited for.
 */
#ifndef LOWLAT_LOG_H
#define LOWLAT_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "lowlat_log.h"

/* Ring capacity per log, in records (136 bytes each: 2048 = 272 KiB). The writer drains every
 * LOWLAT_LOG_FLUSH_PERIOD_NS, so this is 20 periods of slack at 1000 fps, enough for a write stalled
 * by a busy disk for 2 s before anything is dropped. */
#define LOWLAT_LOG_RING_RECORDS 2048u

/* How often the writer drains the rings: often enough that a crash loses little, rarely enough
 * that a 60 fps game costs one write(2) per 6 frames. 100 ms. */
#define LOWLAT_LOG_FLUSH_PERIOD_NS 100000000ll

/* After a pass that found a ring at least half full the writer comes back after this instead: the
 * game presents faster than the period allows for (over ~10000 fps with the default ring), or the
 * disk was slow. 10 ms. */
#define LOWLAT_LOG_BUSY_PERIOD_NS 10000000ll

/* Presents held back before they enter the ring, so display times that arrive a few frames later
 * (present_timing results, present-wait completions) still land in the present's own row. At 60
 * fps 8 frames are 133 ms, longer than any driver takes to report a present. */
#define LOWLAT_LOG_HOLD_FRAMES 8u

struct lowlat_log;

struct lowlat_log_params {
	/* Config `log_dir`. NULL or "": $XDG_STATE_HOME/lowlat, else ~/.local/state/lowlat. Created
	 * (mkdir -p, new directories 0700) when missing. */
	const char *dir;
	/* Names the file; NULL or "": the program's name. Characters other than [A-Za-z0-9._-] become
	 * '_' so a key can never make a path. */
	const char *game_key;
	/* 0: LOWLAT_LOG_RING_RECORDS. Rounded up to a power of two; tests use small rings. */
	uint32_t ring_records;
	/* Name parts; 0: now (local time) and getpid(). Tests fix them to know the file name. */
	time_t wall_time;
	pid_t pid;
};

/* Creates <dir>/<game-key>-<YYYYmmdd-HHMMSS>-<pid>[-<n>].csv (O_EXCL|O_NOFOLLOW: an existing file or
 * a symlink at the name makes it try the next n) and writes the header lines. Returns NULL when
 * logging is off (an earlier failure) or this open failed (one message). Not for the present path:
 * it does file I/O, allocates the ring and starts the writer thread on first use. */
struct lowlat_log *lowlat_log_open(const struct lowlat_log_params *params);

/* The file this log writes, for messages and tests; "" for NULL. */
const char *lowlat_log_path(const struct lowlat_log *log);

/* Present path: logs one present. The record is copied; its `frame` is ignored and set by the log
 * (0, 1, 2, ... per log), which is returned (-1 when log is NULL or logging is off). Fields the
 * caller does not know must be LOWLAT_LOG_UNKNOWN (lowlat_log_record_init sets all of them). */
int64_t lowlat_log_present(struct lowlat_log *log, const struct lowlat_log_record *record);

/* Display feedback for an earlier present, matched by present id: sets one of the display-reported
 * columns (queue_done_ns, latched_ns, pixel_out_ns, pixel_visible_ns, present_wait_ns). Returns false
 * when that present has already left the hold window (the time is then not logged). */
enum lowlat_log_stage {
	LOWLAT_LOG_STAGE_QUEUE_DONE,
	LOWLAT_LOG_STAGE_LATCHED,
	LOWLAT_LOG_STAGE_PIXEL_OUT,
	LOWLAT_LOG_STAGE_PIXEL_VISIBLE,
	LOWLAT_LOG_STAGE_PRESENT_WAIT,
	/* Not display times: lowlat's wait made after the present, at the app's present wait
	 * (present_wait.c), into wait_begin_ns / wait_end_ns. */
	LOWLAT_LOG_STAGE_WAIT_BEGIN,
	LOWLAT_LOG_STAGE_WAIT_END,
};
bool lowlat_log_display(struct lowlat_log *log, int64_t present_id, enum lowlat_log_stage stage,
                        int64_t time_ns);
/* The same, matched by the frame index lowlat_log_present returned: for feedback that carries no
 * present id (lowlat attaches none of its own; present_timing results come back in present order). */
bool lowlat_log_display_frame(struct lowlat_log *log, int64_t frame, enum lowlat_log_stage stage,
                              int64_t time_ns);

/* Ends the session (swapchain destroyed): the held presents go to the ring, and the writer writes
 * what is left, the closing line, closes the file and frees the log shortly after. Does no I/O
 * itself and does not wait. The log must not be used afterwards. */
void lowlat_log_close(struct lowlat_log *log);

/* Every field LOWLAT_LOG_UNKNOWN. */
static inline void lowlat_log_record_init(struct lowlat_log_record *record)
{
#define LOWLAT_LOG_UNKNOWN_(name, description) record->name = LOWLAT_LOG_UNKNOWN;
	LOWLAT_LOG_COLUMNS(LOWLAT_LOG_UNKNOWN_)
#undef LOWLAT_LOG_UNKNOWN_
}

/* Stops the writer after it wrote everything in every ring and closed every file, and turns logging
 * back on if a failure had turned it off. Runs at process exit and library unload (a destructor);
 * tests call it to wait for the files to be complete. Logs not closed by then (a leaked swapchain)
 * are written and their files closed, but their memory is left, since a thread of the app may still
 * present to them; for the same reason their last LOWLAT_LOG_HOLD_FRAMES presents, which the
 * presenting thread still holds, are not written. Idempotent; a later open starts afresh. */
void lowlat_log_shutdown(void);

/* Tests only: while paused the writer drains nothing, so the rings fill up and drop. */
void lowlat_log_writer_pause(bool paused);

/* "FIFO", "MAILBOX", ...: a VkPresentModeKHR's name without its prefix, NULL for a mode lowlat
 * does not know. (lowlat_present_mode_name, lowlat_config.h, names the config's own setting.) Takes an
 * integer so log records (int64) and VkPresentModeKHR both fit. */
const char *lowlat_vk_present_mode_name(int64_t mode);

#endif
