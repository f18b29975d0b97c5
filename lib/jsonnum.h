/*
 * jsonnum: JSON numbers to doubles, exactly as strtod converts them, at the
 * speed the JSON-line tools need (DESIGN.md: minjson reads a gigabyte a
 * second, and every record is mostly numbers).
 */
#ifndef PERFGATE_JNUM_H
#define PERFGATE_JNUM_H

/*
 * Check the number starting at *pp (end bounds the text) by the JSON
 * grammar (RFC 8259: an optional '-', no leading zeros, no '+', a fraction
 * and an exponent each with at least one digit) and convert it. Returns
 * NULL with *pp past the number and *out the double strtod gives for its
 * text, bit for bit; or a message: "invalid number", "leading zero in
 * number", "number out of range" (a magnitude above DBL_MAX). A magnitude
 * below the smallest subnormal reads as zero of its sign, as in strtod.
 * The number ends at the first byte that cannot continue it; the caller
 * judges what follows.
 */
const char *jnum_parse(const char **pp, const char *end, double *out);

#endif
