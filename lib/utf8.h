/*
 * utf8: UTF-8 validation by RFC 3629, shared by the JSON reader and the
 * budget file: no overlong forms, no surrogates, nothing above U+10FFFF.
 */
#ifndef PERFGATE_UTF8_H
#define PERFGATE_UTF8_H

#include <stddef.h>

/*
 * The length (2 to 4) of the multi-byte sequence at p, which starts with a
 * byte of 0x80 or above, or 0 if it is not a valid one; end bounds the
 * text.
 */
int utf8_seqlen(const unsigned char *p, const unsigned char *end);

/*
 * The length of the valid UTF-8 at the start of s[0..len): len when the
 * whole text is valid, else the offset of the first byte that is not.
 */
size_t utf8_valid(const unsigned char *s, size_t len);

#endif
