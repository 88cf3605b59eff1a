/* SPDX-License-Identifier: MIT */
/*
 * varint.h - LEB128 varints and zigzag signed mapping, used to pack events
 * in the dump (writer) and to unpack them (reader).
 */
#ifndef GPUTRACE_VARINT_H
#define GPUTRACE_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define GT_VARINT_MAX 10 /* bytes a uint64_t can take */

/* Append v at p; returns the byte after it.  p needs GT_VARINT_MAX bytes. */
static inline uint8_t *gt_varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * Read one varint from [*pp, end).  Returns 0 and advances *pp, or -1 when
 * the input ends inside the varint or it is longer than 64 bits.
 */
static inline int gt_varint_get(const uint8_t **pp, const uint8_t *end,
				uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;

	while (p < end) {
		uint8_t b = *p++;

		if (shift == 63 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*out = v;
			return 0;
		}
		shift += 7;
		if (shift > 63)
			return -1;
	}
	return -1;
}

static inline uint64_t gt_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t gt_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

#endif /* GPUTRACE_VARINT_H */
