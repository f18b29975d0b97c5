/*
 * sha256.h: SHA-256 (FIPS 180-4) in one header, for bench.h (which proves
 * that every side of a comparison timed the same input bytes) and for the
 * perfgate tools (which key what they judged by content).
 *
 *	struct sha256 h;
 *	char hex[65];
 *	sha256_init(&h);
 *	sha256_update(&h, buf, len);	// as often as needed
 *	sha256_hex(&h, hex);		// 64 lowercase hex digits and a NUL
 *
 * Every function is static, so that a program including both bench.h and
 * this header links without clashes.
 */
#ifndef PERFGATE_SHA256_H
#define PERFGATE_SHA256_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct sha256 {
	uint32_t state[8];
	uint64_t bytes;			/* message length so far */
	unsigned char block[64];	/* the partial block */
	size_t fill;
};

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static uint32_t
sha256_ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void
sha256_init(struct sha256 *h)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};

	memcpy(h->state, iv, sizeof iv);
	h->bytes = 0;
	h->fill = 0;
}

static void
sha256_block(struct sha256 *h, const unsigned char *p)
{
	uint32_t w[64], s[8], t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = w[i - 16] + w[i - 7] +
		    (sha256_ror(w[i - 15], 7) ^ sha256_ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		    (sha256_ror(w[i - 2], 17) ^ sha256_ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
	memcpy(s, h->state, sizeof s);
	for (i = 0; i < 64; i++) {
		t1 = s[7] + (sha256_ror(s[4], 6) ^ sha256_ror(s[4], 11) ^ sha256_ror(s[4], 25)) +
		    ((s[4] & s[5]) ^ (~s[4] & s[6])) + sha256_k[i] + w[i];
		t2 = (sha256_ror(s[0], 2) ^ sha256_ror(s[0], 13) ^ sha256_ror(s[0], 22)) +
		    ((s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]));
		memmove(s + 1, s, 7 * sizeof s[0]);
		s[4] += t1;
		s[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h->state[i] += s[i];
}

static void
sha256_update(struct sha256 *h, const void *data, size_t len)
{
	const unsigned char *p = (const unsigned char *)data;
	size_t take;

	h->bytes += len;
	if (h->fill > 0) {
		take = 64 - h->fill < len ? 64 - h->fill : len;
		memcpy(h->block + h->fill, p, take);
		h->fill += take;
		p += take;
		len -= take;
		if (h->fill < 64)
			return;
		sha256_block(h, h->block);
		h->fill = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		sha256_block(h, p);
	memcpy(h->block, p, len);
	h->fill = len;
}

/* Finish: the digest as 32 bytes. h must be initialised again before reuse. */
static void
sha256_final(struct sha256 *h, unsigned char out[32])
{
	uint64_t bits = h->bytes * 8;
	unsigned char pad[72] = { 0x80 };
	size_t padlen = (h->fill < 56 ? 56 : 120) - h->fill;
	int i;

	for (i = 0; i < 8; i++)
		pad[padlen + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(h, pad, padlen + 8);
	for (i = 0; i < 32; i++)
		out[i] = (unsigned char)(h->state[i / 4] >> (24 - 8 * (i % 4)));
}

/* Finish: the digest as 64 lowercase hex digits and a NUL. */
static void
sha256_hex(struct sha256 *h, char out[65])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char d[32];
	int i;

	sha256_final(h, d);
	for (i = 0; i < 32; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[64] = '\0';
}

#endif
