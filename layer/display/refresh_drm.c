/* refresh_drm.c — the DRM refresh source: the refresh clock of the CRTC driving the screen, read
 * through libdrm from the primary node (/dev/dri/card*) without DRM master.
 *
 * Everything used is allowed to any client of a primary node (the kernel's drm_ioctl.c lists these
 * ioctls without DRM_MASTER): DRM_IOCTL_MODE_GETRESOURCES, _GETCRTC and _OBJ_GETPROPERTIES for the
 * mode, DRM_IOCTL_CRTC_GET_SEQUENCE (Linux 4.15) for the latest vblank's number and CLOCK_MONOTONIC
 * time, and on older kernels DRM_IOCTL_WAIT_VBLANK with DRM_VBLANK_RELATIVE and sequence 0, which
 * returns at once with the latest vblank (microsecond times). None of them waits. The kernel stamps
 * a vblank at the end of vertical blanking (the first line's scan-out); a new image latches at its
 * start, so the grid this source reports is moved back by the blanking, from the mode's timings.
 *
 * Master: the first process to open a primary node while no one holds master becomes master
 * (drm_open_helper), whatever the open mode. A compositor or X server running holds it; but a game
 * started from a text console, or a node of a second GPU that drives no display, would make our fd
 * master and lock the real display server out of it. So a node we opened as master drops it at
 * once (allowed to the fd that got it), or is closed if it cannot.
 *
 * Which CRTC: Vulkan does not say which screen a window is on, so with one active CRTC (over all
 * cards) it is that one; with several (two monitors) the one with the highest refresh rate, said
 * once per process. The fast monitor is where games run in the usual setup (a 144 Hz screen next to
 * a 60 Hz one), and where the choice is wrong the releases land at an arbitrary phase of the real
 * screen: what the "cpu" level does anyway. Mirrored or equal screens keep the first. A CRTC with
 * variable refresh on (its VRR_ENABLED property) has no fixed grid and is not chosen.
 */
#include "refresh_drm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <drm.h>
#include <drm_mode.h>

#include "message.h"

/* Nodes and CRTCs looked at: more cards or screens than any machine has; properties of a CRTC
 * (a few dozen at most: gamma, VRR, color management). */
#define CARDS_MAX      16
#define CANDIDATES_MAX 16
#define CRTCS_MAX      32
#define PROPS_MAX      64

struct candidate {
	int fd;
	unsigned card;
	uint32_t crtc_id, crtc_index;
	int64_t period_ns, blanking_ns;
	uint32_t width, height;
	bool vrr;
};

/* An ioctl retried when a signal interrupted it, as libdrm's drmIoctl does. 0 or -1 with errno. */
static int drm_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do
		ret = ioctl(fd, request, arg);
	while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret;
}

/* "card" and digits: a primary node (render nodes, renderD*, have no modesetting ioctls). */
static bool card_number(const char *name, unsigned *n)
{
	char *end;
	unsigned long v;

	if (strncmp(name, "card", 4) || name[4] < '0' || name[4] > '9')
		return false;
	v = strtoul(name + 4, &end, 10);
	if (*end || v > 255)
		return false;
	*n = (unsigned)v;
	return true;
}

static int compare_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

/* Whether the fd is DRM master: AUTH_MAGIC is refused with EACCES to anyone else (libdrm's
 * drmIsMaster asks the same way). */
static bool is_master(int fd)
{
	struct drm_auth auth = {.magic = 0};

	return drm_ioctl(fd, DRM_IOCTL_AUTH_MAGIC, &auth) == 0 || errno != EACCES;
}

/* Opens a primary node the way libdrm does (read-write), read-only when that is refused (reading
 * modes and vblanks needs no write access), checks that its vblank times are CLOCK_MONOTONIC (always
 * so since Linux 4.x; the capability says), and never keeps master. -1 with why on failure. */
static int open_node(const char *path, unsigned card, char *why, size_t why_size)
{
	struct drm_get_cap cap = {.capability = DRM_CAP_TIMESTAMP_MONOTONIC};
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0 && (errno == EACCES || errno == EPERM))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, why_size, "cannot open %s (%s)", path, strerror(errno));
		return -1;
	}
	if (drm_ioctl(fd, DRM_IOCTL_GET_CAP, &cap)) {
		snprintf(why, why_size, "card%u answers no DRM ioctl (%s)", card, strerror(errno));
		close(fd);
		return -1;
	}
	if (!cap.value) {
		snprintf(why, why_size, "card%u's vblank times are not CLOCK_MONOTONIC", card);
		close(fd);
		return -1;
	}
	if (is_master(fd) && drm_ioctl(fd, DRM_IOCTL_DROP_MASTER, NULL)) {
		snprintf(why, why_size, "opening card%u made lowlat DRM master and it could not drop it",
		         card);
		close(fd);
		return -1;
	}
	return fd;
}

/* The CRTC's VRR_ENABLED property (absent on drivers without variable refresh). */
static bool crtc_vrr(int fd, uint32_t crtc_id)
{
	uint32_t ids[PROPS_MAX];
	uint64_t values[PROPS_MAX];
	struct drm_mode_obj_get_properties props = {.props_ptr = (uint64_t)(uintptr_t)ids,
	                                            .prop_values_ptr = (uint64_t)(uintptr_t)values,
	                                            .count_props = PROPS_MAX,
	                                            .obj_id = crtc_id,
	                                            .obj_type = DRM_MODE_OBJECT_CRTC};

	if (drm_ioctl(fd, DRM_IOCTL_MODE_OBJ_GETPROPERTIES, &props))
		return false;
	for (uint32_t i = 0; i < props.count_props && i < PROPS_MAX; i++) {
		/* Counts of 0: the name only, no values or enum entries copied. */
		struct drm_mode_get_property p = {.prop_id = ids[i]};
		if (!drm_ioctl(fd, DRM_IOCTL_MODE_GETPROPERTY, &p) &&
		    !strncmp(p.name, "VRR_ENABLED", sizeof(p.name)))
			return values[i] != 0;
	}
	return false;
}

/* The vertical blanking of a mode, in ns: the kernel stamps a vblank at its end (the first line's
 * scan-out: the kernel's drm_vblank.c), a flip latches at its start; at 120 Hz on 1080p (45 of 1125 lines)
 * 0.33 ms. */
static int64_t blanking_ns(const struct drm_mode_modeinfo *m, int64_t period_ns)
{
	if (m->vtotal <= m->vdisplay)
		return 0;
	return period_ns * (m->vtotal - m->vdisplay) / m->vtotal;
}

/* Reads the latest vblank of a CRTC: DRM_IOCTL_CRTC_GET_SEQUENCE, else (a kernel before 4.15)
 * DRM_IOCTL_WAIT_VBLANK asking for the current one. */
static bool read_vblank(int fd, uint32_t crtc_id, uint32_t crtc_index, struct lowlat_refresh_sample *out)
{
	struct drm_crtc_get_sequence q = {.crtc_id = crtc_id};

	if (!drm_ioctl(fd, DRM_IOCTL_CRTC_GET_SEQUENCE, &q)) {
		/* An inactive CRTC (DPMS off) has no refreshes: its last time is stale. */
		if (!q.active || q.sequence_ns <= 0)
			return false;
		out->vblank_ns = q.sequence_ns;
		out->sequence = q.sequence;
		return true;
	}
	if (errno != EINVAL && errno != ENOTTY && errno != EOPNOTSUPP)
		return false;
	union drm_wait_vblank vbl = {.request = {.type = _DRM_VBLANK_RELATIVE, .sequence = 0}};
	if (crtc_index == 1)
		vbl.request.type |= _DRM_VBLANK_SECONDARY;
	else if (crtc_index > 1)
		vbl.request.type |= (crtc_index << _DRM_VBLANK_HIGH_CRTC_SHIFT) & _DRM_VBLANK_HIGH_CRTC_MASK;
	if (drm_ioctl(fd, DRM_IOCTL_WAIT_VBLANK, &vbl) || vbl.reply.tval_sec <= 0)
		return false;
	out->vblank_ns = (int64_t)vbl.reply.tval_sec * 1000000000 + (int64_t)vbl.reply.tval_usec * 1000;
	out->sequence = vbl.reply.sequence;
	return true;
}

/* The active CRTCs of one node that answer a vblank read, appended to c (up to CANDIDATES_MAX). */
static void scan_node(int fd, unsigned card, struct candidate *c, unsigned *count, char *why, size_t why_size)
{
	uint32_t crtcs[CRTCS_MAX];
	/* One call: the CRTC ids up to our room (the kernel counts all and copies what fits), no
	 * framebuffers, connectors or encoders. */
	struct drm_mode_card_res res = {.crtc_id_ptr = (uint64_t)(uintptr_t)crtcs, .count_crtcs = CRTCS_MAX};
	bool active = false;

	if (drm_ioctl(fd, DRM_IOCTL_MODE_GETRESOURCES, &res)) {
		snprintf(why, why_size, "card%u has no display (not a modesetting device)", card);
		return;
	}
	for (uint32_t i = 0; i < res.count_crtcs && i < CRTCS_MAX && *count < CANDIDATES_MAX; i++) {
		struct drm_mode_crtc crtc = {.crtc_id = crtcs[i]};
		struct lowlat_refresh_sample probe;

		if (drm_ioctl(fd, DRM_IOCTL_MODE_GETCRTC, &crtc) || !crtc.mode_valid)
			continue;
		active = true;
		const struct drm_mode_modeinfo *m = &crtc.mode;
		int64_t period = lowlat_mode_period_ns(m->clock, m->htotal, m->vtotal,
		                                       m->flags & DRM_MODE_FLAG_INTERLACE,
		                                       m->flags & DRM_MODE_FLAG_DBLSCAN, m->vscan);
		if (period > 0 && read_vblank(fd, crtc.crtc_id, i, &probe))
			c[(*count)++] = (struct candidate){.fd = fd,
			                                   .card = card,
			                                   .crtc_id = crtc.crtc_id,
			                                   .crtc_index = i,
			                                   .period_ns = period,
			                                   .blanking_ns = blanking_ns(m, period),
			                                   .width = m->hdisplay,
			                                   .height = m->vdisplay,
			                                   .vrr = crtc_vrr(fd, crtc.crtc_id)};
		else
			snprintf(why, why_size, "card%u CRTC %u reports no vblank times (is it off?)", card,
			         crtc.crtc_id);
	}
	if (!active)
		snprintf(why, why_size, "no active CRTC (no screen lit) on card%u", card);
}

static double hz_of(int64_t period_ns)
{
	return 1e9 / (double)period_ns;
}

/* Several screens: said once per process, whichever swapchain found them first. */
static void tell_choice(const struct candidate *c, unsigned count, const struct candidate *chosen)
{
	static atomic_flag told = ATOMIC_FLAG_INIT;
	char list[256] = "";
	size_t len = 0;

	if (lowlat_verbosity() < 1 || atomic_flag_test_and_set(&told))
		return;
	for (unsigned i = 0; i < count && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%scard%u CRTC %u %ux%u at %.3f Hz%s",
		                        i ? ", " : "", c[i].card, c[i].crtc_id, c[i].width, c[i].height,
		                        hz_of(c[i].period_ns), c[i].vrr ? " (variable refresh)" : "");
	lowlat_msg("%u screens are lit (%s); the \"drm\" pacing level follows the fastest with a fixed "
	           "refresh, card%u CRTC %u (Vulkan does not say which one a window is on)",
	           count, list, chosen->card, chosen->crtc_id);
}

bool lowlat_drm_open(struct lowlat_drm_source *src, const char *dir, char *name, size_t name_size, char *why,
                     size_t why_size)
{
	unsigned cards[CARDS_MAX], card_count = 0, count = 0;
	struct candidate c[CANDIDATES_MAX];
	int fds[CARDS_MAX];
	const struct candidate *chosen = NULL;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d) {
		snprintf(why, why_size, "no %s (%s)", dir, strerror(errno));
		return false;
	}
	while ((e = readdir(d)) && card_count < CARDS_MAX)
		if (card_number(e->d_name, &cards[card_count]))
			card_count++;
	closedir(d);
	if (!card_count) {
		snprintf(why, why_size, "no DRM primary node (card*) in %s", dir);
		return false;
	}
	qsort(cards, card_count, sizeof(cards[0]), compare_unsigned);
	for (unsigned i = 0; i < card_count; i++) {
		char path[4096 + 16];

		snprintf(path, sizeof(path), "%s/card%u", dir, cards[i]);
		fds[i] = open_node(path, cards[i], why, why_size);
		if (fds[i] >= 0)
			scan_node(fds[i], cards[i], c, &count, why, why_size);
	}
	int64_t periods[CANDIDATES_MAX];
	bool vrr[CANDIDATES_MAX];
	for (unsigned i = 0; i < count; i++) {
		periods[i] = c[i].period_ns;
		vrr[i] = c[i].vrr;
	}
	int pick = lowlat_refresh_choose(periods, vrr, count);
	if (pick >= 0)
		chosen = &c[pick];
	if (!chosen && count)
		snprintf(why, why_size, "the screen runs variable refresh (card%u CRTC %u VRR_ENABLED)",
		         c[0].card, c[0].crtc_id);
	if (chosen && count > 1)
		tell_choice(c, count, chosen);
	for (unsigned i = 0; i < card_count; i++)
		if (fds[i] >= 0 && (!chosen || fds[i] != chosen->fd))
			close(fds[i]);
	if (!chosen)
		return false;
	src->fd = chosen->fd;
	src->crtc_id = chosen->crtc_id;
	src->crtc_index = chosen->crtc_index;
	src->mode_period_ns = chosen->period_ns;
	src->blanking_ns = chosen->blanking_ns;
	snprintf(name, name_size, "DRM card%u CRTC %u, %ux%u at %.3f Hz", chosen->card, chosen->crtc_id,
	         chosen->width, chosen->height, hz_of(chosen->period_ns));
	return true;
}

bool lowlat_drm_read(struct lowlat_drm_source *d, struct lowlat_refresh_sample *out)
{
	if (!read_vblank(d->fd, d->crtc_id, d->crtc_index, out))
		return false;
	out->period_ns = d->mode_period_ns;
	out->vblank_ns -= d->blanking_ns;
	return true;
}

void lowlat_drm_close(struct lowlat_drm_source *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}
