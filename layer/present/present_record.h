/* present_record.h — the present hook's last step: what a present call leaves behind. */
#ifndef LOWLAT_PRESENT_RECORD_H
#define LOWLAT_PRESENT_RECORD_H

struct lowlat_present_call;

/* For each swapchain of the call: its summary counts, its present log row (log.c copies it into a
 * ring: no I/O here) and the waits its wait points made, and the start of its next frame, when
 * this call returns to the app. */
void lowlat_present_record(struct lowlat_present_call *call);

#endif
