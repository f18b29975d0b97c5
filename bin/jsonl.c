/*
 * jsonl: a strict JSON-line reader (RFC 8259, one object a line).
 *
 * The parser is a single forward pass over the line with no recursion:
 * top-level members are returned as fields, nested arrays and objects are
 * validated with an explicit stack of at most JSONL_MAXDEPTH levels, so a
 * hostile line cannot exhaust the C stack. Numbers are the hot spot of
 * every perfgate tool, so they are converted by Clinger's fast path when
 * that is exact, by the Eisel-Lemire algorithm when it can prove its
 * rounding, and by strtod otherwise; either way the double is the one
 * strtod gives. jparse_like adds a fast path for streams whose records
 * repeat one layout of keys.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "jsonl.h"
#include "util.h"

#define JSONL_MAXDEPTH 512
#define READ_BLOCK (256 * 1024)

/* Byte classes inside a string: 0 is a byte that needs no attention. */
enum { S_PLAIN, S_QUOTE, S_BACKSLASH, S_CONTROL, S_HIGH };

static unsigned char sclass[256];
static int sclass_ready;

/* Messages with a variable part live here until the next call. */
static char msgbuf[256];

static void
sclass_init(void)
{
	int c;

	for (c = 0; c < 0x20; c++)
		sclass[c] = S_CONTROL;
	for (c = 0x80; c < 0x100; c++)
		sclass[c] = S_HIGH;
	sclass['"'] = S_QUOTE;
	sclass['\\'] = S_BACKSLASH;
	sclass_ready = 1;
}

static int
isws(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static const char *
skipws(const char *p, const char *end)
{
	while (p < end && isws((unsigned char)*p))
		p++;
	return p;
}

/* After a key: the ':' and the start of its value, blanks skipped. */
static const char *
colon(const char **pp, const char *end)
{
	const char *p = skipws(*pp, end);

	if (p == end)
		return "unexpected end of line";
	if (*p != ':')
		return "expected ':'";
	p = skipws(p + 1, end);
	if (p == end)
		return "unexpected end of line";
	*pp = p;
	return NULL;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Read the 4 hex digits after "\u" at p; -1 if they are not there. */
static long
hex4(const char *p, const char *end)
{
	long v = 0;
	int i, h;

	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		if ((h = hexval((unsigned char)p[i])) < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/*
 * Length of the UTF-8 sequence at p (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 if it is not one.
 */
static int
utf8len(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xBF;
	int n, i;

	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (end - p < n)
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return n;
}

#define ONES 0x0101010101010101ULL
#define haszero(x) (((x) - ONES) & ~(x))

/*
 * Check a string whose opening quote is just before *pp; on success *pp
 * points past the closing quote.
 */
static const char *
parse_string(const char **pp, const char *end)
{
	const unsigned char *p = (const unsigned char *)*pp;
	const unsigned char *e = (const unsigned char *)end;
	long u, lo;
	int n;

	for (;;) {
		/* Eight bytes at a time while none is a quote, a backslash, a control or a high byte. */
		while (e - p >= 8) {
			uint64_t x;

			memcpy(&x, p, 8);
			if (((haszero(x ^ ONES * '"') | haszero(x ^ ONES * '\\') |
			    (x - ONES * 0x20) | x) & ONES * 0x80) != 0)
				break;
			p += 8;
		}
		while (p < e && sclass[*p] == S_PLAIN)
			p++;
		if (p == e)
			return "unterminated string";
		switch (sclass[*p]) {
		case S_QUOTE:
			*pp = (const char *)p + 1;
			return NULL;
		case S_CONTROL:
			return "control character in string";
		case S_HIGH:
			if ((n = utf8len(p, e)) == 0)
				return "invalid UTF-8 in string";
			p += n;
			break;
		default:
			if (e - p < 2)
				return "unterminated string";
			switch (p[1]) {
			case '"': case '\\': case '/': case 'b':
			case 'f': case 'n': case 'r': case 't':
				p += 2;
				break;
			case 'u':
				if ((u = hex4((const char *)p + 2, end)) < 0)
					return "invalid \\u escape in string";
				p += 6;
				if (u >= 0xDC00 && u <= 0xDFFF)
					return "unpaired surrogate in string";
				if (u >= 0xD800 && u <= 0xDBFF) {
					if (e - p < 2 || p[0] != '\\' || p[1] != 'u')
						return "unpaired surrogate in string";
					lo = hex4((const char *)p + 2, end);
					if (lo < 0xDC00 || lo > 0xDFFF)
						return "unpaired surrogate in string";
					p += 6;
				}
				break;
			default:
				return "invalid escape in string";
			}
		}
	}
}

static const double pow10tab[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

static const uint64_t pow10int[] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL
};

#define TWO53 9007199254740992ULL

/*
 * 10^e for e in [POW10_MIN, POW10_MAX] as a 128-bit mantissa, normalized
 * (top bit set) and rounded down, {high, low}: the table of the
 * Eisel-Lemire algorithm, cut to the exponents measurements have (others
 * go to strtod). Generated exactly with Python's integers:
 *   m = 10**e * 2**k // 1 (or 2**k // 10**-e), k such that 2**127 <= m < 2**128.
 */
#define POW10_MIN (-64)
#define POW10_MAX 64

static const uint64_t pow10_128[POW10_MAX - POW10_MIN + 1][2] = {
	{ 0xA87FEA27A539E9A5ULL, 0x3F2398D747B36224ULL }, { 0xD29FE4B18E88640EULL, 0x8EEC7F0D19A03AADULL },
	{ 0x83A3EEEEF9153E89ULL, 0x1953CF68300424ACULL }, { 0xA48CEAAAB75A8E2BULL, 0x5FA8C3423C052DD7ULL },
	{ 0xCDB02555653131B6ULL, 0x3792F412CB06794DULL }, { 0x808E17555F3EBF11ULL, 0xE2BBD88BBEE40BD0ULL },
	{ 0xA0B19D2AB70E6ED6ULL, 0x5B6ACEAEAE9D0EC4ULL }, { 0xC8DE047564D20A8BULL, 0xF245825A5A445275ULL },
	{ 0xFB158592BE068D2EULL, 0xEED6E2F0F0D56712ULL }, { 0x9CED737BB6C4183DULL, 0x55464DD69685606BULL },
	{ 0xC428D05AA4751E4CULL, 0xAA97E14C3C26B886ULL }, { 0xF53304714D9265DFULL, 0xD53DD99F4B3066A8ULL },
	{ 0x993FE2C6D07B7FABULL, 0xE546A8038EFE4029ULL }, { 0xBF8FDB78849A5F96ULL, 0xDE98520472BDD033ULL },
	{ 0xEF73D256A5C0F77CULL, 0x963E66858F6D4440ULL }, { 0x95A8637627989AADULL, 0xDDE7001379A44AA8ULL },
	{ 0xBB127C53B17EC159ULL, 0x5560C018580D5D52ULL }, { 0xE9D71B689DDE71AFULL, 0xAAB8F01E6E10B4A6ULL },
	{ 0x9226712162AB070DULL, 0xCAB3961304CA70E8ULL }, { 0xB6B00D69BB55C8D1ULL, 0x3D607B97C5FD0D22ULL },
	{ 0xE45C10C42A2B3B05ULL, 0x8CB89A7DB77C506AULL }, { 0x8EB98A7A9A5B04E3ULL, 0x77F3608E92ADB242ULL },
	{ 0xB267ED1940F1C61CULL, 0x55F038B237591ED3ULL }, { 0xDF01E85F912E37A3ULL, 0x6B6C46DEC52F6688ULL },
	{ 0x8B61313BBABCE2C6ULL, 0x2323AC4B3B3DA015ULL }, { 0xAE397D8AA96C1B77ULL, 0xABEC975E0A0D081AULL },
	{ 0xD9C7DCED53C72255ULL, 0x96E7BD358C904A21ULL }, { 0x881CEA14545C7575ULL, 0x7E50D64177DA2E54ULL },
	{ 0xAA242499697392D2ULL, 0xDDE50BD1D5D0B9E9ULL }, { 0xD4AD2DBFC3D07787ULL, 0x955E4EC64B44E864ULL },
	{ 0x84EC3C97DA624AB4ULL, 0xBD5AF13BEF0B113EULL }, { 0xA6274BBDD0FADD61ULL, 0xECB1AD8AEACDD58EULL },
	{ 0xCFB11EAD453994BAULL, 0x67DE18EDA5814AF2ULL }, { 0x81CEB32C4B43FCF4ULL, 0x80EACF948770CED7ULL },
	{ 0xA2425FF75E14FC31ULL, 0xA1258379A94D028DULL }, { 0xCAD2F7F5359A3B3EULL, 0x096EE45813A04330ULL },
	{ 0xFD87B5F28300CA0DULL, 0x8BCA9D6E188853FCULL }, { 0x9E74D1B791E07E48ULL, 0x775EA264CF55347DULL },
	{ 0xC612062576589DDAULL, 0x95364AFE032A819DULL }, { 0xF79687AED3EEC551ULL, 0x3A83DDBD83F52204ULL },
	{ 0x9ABE14CD44753B52ULL, 0xC4926A9672793542ULL }, { 0xC16D9A0095928A27ULL, 0x75B7053C0F178293ULL },
	{ 0xF1C90080BAF72CB1ULL, 0x5324C68B12DD6338ULL }, { 0x971DA05074DA7BEEULL, 0xD3F6FC16EBCA5E03ULL },
	{ 0xBCE5086492111AEAULL, 0x88F4BB1CA6BCF584ULL }, { 0xEC1E4A7DB69561A5ULL, 0x2B31E9E3D06C32E5ULL },
	{ 0x9392EE8E921D5D07ULL, 0x3AFF322E62439FCFULL }, { 0xB877AA3236A4B449ULL, 0x09BEFEB9FAD487C2ULL },
	{ 0xE69594BEC44DE15BULL, 0x4C2EBE687989A9B3ULL }, { 0x901D7CF73AB0ACD9ULL, 0x0F9D37014BF60A10ULL },
	{ 0xB424DC35095CD80FULL, 0x538484C19EF38C94ULL }, { 0xE12E13424BB40E13ULL, 0x2865A5F206B06FB9ULL },
	{ 0x8CBCCC096F5088CBULL, 0xF93F87B7442E45D3ULL }, { 0xAFEBFF0BCB24AAFEULL, 0xF78F69A51539D748ULL },
	{ 0xDBE6FECEBDEDD5BEULL, 0xB573440E5A884D1BULL }, { 0x89705F4136B4A597ULL, 0x31680A88F8953030ULL },
	{ 0xABCC77118461CEFCULL, 0xFDC20D2B36BA7C3DULL }, { 0xD6BF94D5E57A42BCULL, 0x3D32907604691B4CULL },
	{ 0x8637BD05AF6C69B5ULL, 0xA63F9A49C2C1B10FULL }, { 0xA7C5AC471B478423ULL, 0x0FCF80DC33721D53ULL },
	{ 0xD1B71758E219652BULL, 0xD3C36113404EA4A8ULL }, { 0x83126E978D4FDF3BULL, 0x645A1CAC083126E9ULL },
	{ 0xA3D70A3D70A3D70AULL, 0x3D70A3D70A3D70A3ULL }, { 0xCCCCCCCCCCCCCCCCULL, 0xCCCCCCCCCCCCCCCCULL },
	{ 0x8000000000000000ULL, 0x0000000000000000ULL }, { 0xA000000000000000ULL, 0x0000000000000000ULL },
	{ 0xC800000000000000ULL, 0x0000000000000000ULL }, { 0xFA00000000000000ULL, 0x0000000000000000ULL },
	{ 0x9C40000000000000ULL, 0x0000000000000000ULL }, { 0xC350000000000000ULL, 0x0000000000000000ULL },
	{ 0xF424000000000000ULL, 0x0000000000000000ULL }, { 0x9896800000000000ULL, 0x0000000000000000ULL },
	{ 0xBEBC200000000000ULL, 0x0000000000000000ULL }, { 0xEE6B280000000000ULL, 0x0000000000000000ULL },
	{ 0x9502F90000000000ULL, 0x0000000000000000ULL }, { 0xBA43B74000000000ULL, 0x0000000000000000ULL },
	{ 0xE8D4A51000000000ULL, 0x0000000000000000ULL }, { 0x9184E72A00000000ULL, 0x0000000000000000ULL },
	{ 0xB5E620F480000000ULL, 0x0000000000000000ULL }, { 0xE35FA931A0000000ULL, 0x0000000000000000ULL },
	{ 0x8E1BC9BF04000000ULL, 0x0000000000000000ULL }, { 0xB1A2BC2EC5000000ULL, 0x0000000000000000ULL },
	{ 0xDE0B6B3A76400000ULL, 0x0000000000000000ULL }, { 0x8AC7230489E80000ULL, 0x0000000000000000ULL },
	{ 0xAD78EBC5AC620000ULL, 0x0000000000000000ULL }, { 0xD8D726B7177A8000ULL, 0x0000000000000000ULL },
	{ 0x878678326EAC9000ULL, 0x0000000000000000ULL }, { 0xA968163F0A57B400ULL, 0x0000000000000000ULL },
	{ 0xD3C21BCECCEDA100ULL, 0x0000000000000000ULL }, { 0x84595161401484A0ULL, 0x0000000000000000ULL },
	{ 0xA56FA5B99019A5C8ULL, 0x0000000000000000ULL }, { 0xCECB8F27F4200F3AULL, 0x0000000000000000ULL },
	{ 0x813F3978F8940984ULL, 0x4000000000000000ULL }, { 0xA18F07D736B90BE5ULL, 0x5000000000000000ULL },
	{ 0xC9F2C9CD04674EDEULL, 0xA400000000000000ULL }, { 0xFC6F7C4045812296ULL, 0x4D00000000000000ULL },
	{ 0x9DC5ADA82B70B59DULL, 0xF020000000000000ULL }, { 0xC5371912364CE305ULL, 0x6C28000000000000ULL },
	{ 0xF684DF56C3E01BC6ULL, 0xC732000000000000ULL }, { 0x9A130B963A6C115CULL, 0x3C7F400000000000ULL },
	{ 0xC097CE7BC90715B3ULL, 0x4B9F100000000000ULL }, { 0xF0BDC21ABB48DB20ULL, 0x1E86D40000000000ULL },
	{ 0x96769950B50D88F4ULL, 0x1314448000000000ULL }, { 0xBC143FA4E250EB31ULL, 0x17D955A000000000ULL },
	{ 0xEB194F8E1AE525FDULL, 0x5DCFAB0800000000ULL }, { 0x92EFD1B8D0CF37BEULL, 0x5AA1CAE500000000ULL },
	{ 0xB7ABC627050305ADULL, 0xF14A3D9E40000000ULL }, { 0xE596B7B0C643C719ULL, 0x6D9CCD05D0000000ULL },
	{ 0x8F7E32CE7BEA5C6FULL, 0xE4820023A2000000ULL }, { 0xB35DBF821AE4F38BULL, 0xDDA2802C8A800000ULL },
	{ 0xE0352F62A19E306EULL, 0xD50B2037AD200000ULL }, { 0x8C213D9DA502DE45ULL, 0x4526F422CC340000ULL },
	{ 0xAF298D050E4395D6ULL, 0x9670B12B7F410000ULL }, { 0xDAF3F04651D47B4CULL, 0x3C0CDD765F114000ULL },
	{ 0x88D8762BF324CD0FULL, 0xA5880A69FB6AC800ULL }, { 0xAB0E93B6EFEE0053ULL, 0x8EEA0D047A457A00ULL },
	{ 0xD5D238A4ABE98068ULL, 0x72A4904598D6D880ULL }, { 0x85A36366EB71F041ULL, 0x47A6DA2B7F864750ULL },
	{ 0xA70C3C40A64E6C51ULL, 0x999090B65F67D924ULL }, { 0xD0CF4B50CFE20765ULL, 0xFFF4B4E3F741CF6DULL },
	{ 0x82818F1281ED449FULL, 0xBFF8F10E7A8921A4ULL }, { 0xA321F2D7226895C7ULL, 0xAFF72D52192B6A0DULL },
	{ 0xCBEA6F8CEB02BB39ULL, 0x9BF4F8A69F764490ULL }, { 0xFEE50B7025C36A08ULL, 0x02F236D04753D5B4ULL },
	{ 0x9F4F2726179A2245ULL, 0x01D762422C946590ULL }, { 0xC722F0EF9D80AAD6ULL, 0x424D3AD2B7B97EF5ULL },
	{ 0xF8EBAD2B84E0D58BULL, 0xD2E0898765A7DEB2ULL }, { 0x9B934C3B330C8577ULL, 0x63CC55F49F88EB2FULL },
	{ 0xC2781F49FFCFA6D5ULL, 0x3CBF6B71C76B25FBULL },
};

/* The 128-bit product a * b as hi:lo; tcc has no 128-bit integer. */
static void
mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
#ifdef __SIZEOF_INT128__
	__extension__ unsigned __int128 p = (unsigned __int128)a * b;

	*hi = (uint64_t)(p >> 64);
	*lo = (uint64_t)p;
#else
	uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);

	*lo = mid << 32 | (p00 & 0xFFFFFFFFu);
	*hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* Leading zero bits of x, which is not 0. */
static int
clz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return __builtin_clzll(x);
#else
	int n = 0;

	if (x >> 32 == 0) { n += 32; x <<= 32; }
	if (x >> 48 == 0) { n += 16; x <<= 16; }
	if (x >> 56 == 0) { n += 8; x <<= 8; }
	if (x >> 60 == 0) { n += 4; x <<= 4; }
	if (x >> 62 == 0) { n += 2; x <<= 2; }
	if (x >> 63 == 0) n += 1;
	return n;
#endif
}

/*
 * The Eisel-Lemire algorithm (Lemire, "Number parsing at a gigabyte per
 * second", 2021; as in Go's strconv): man * 10^exp10 correctly rounded,
 * for man != 0, by one or two 64x128-bit products. Returns 0 when it
 * cannot prove the rounding (a near tie), the result would be subnormal
 * or infinite, or exp10 is outside the table: the caller asks strtod then.
 * Measurements printed at full precision (17 digits, above 2^53) come
 * here, and strtod costs ten times as much.
 */
static int
lemire(uint64_t man, int exp10, int neg, double *out)
{
	const uint64_t *pw;
	uint64_t xhi, xlo, yhi, ylo, mhi, mlo, ret, bits, exp2, msb;
	int lz;

	if (exp10 < POW10_MIN || exp10 > POW10_MAX)
		return 0;
	pw = pow10_128[exp10 - POW10_MIN];
	lz = clz64(man);
	man <<= lz;
	/* floor(exp10 * log2(10)) by 217706 / 2^16, kept non-negative for the shift. */
	exp2 = (uint64_t)((217706LL * (exp10 + 32768)) >> 16) - 108853 + 64 + 1023 - (uint64_t)lz;
	mul64(man, pw[0], &xhi, &xlo);
	/* The low bits may be off by the table's truncation: widen to 192 bits. */
	if ((xhi & 0x1FF) == 0x1FF && xlo + man < man) {
		mul64(man, pw[1], &yhi, &ylo);
		mhi = xhi;
		mlo = xlo + yhi;
		if (mlo < xlo)
			mhi++;
		if ((mhi & 0x1FF) == 0x1FF && mlo + 1 == 0 && ylo + man < man)
			return 0;
		xhi = mhi;
		xlo = mlo;
	}
	msb = xhi >> 63;
	ret = xhi >> (msb + 9);
	exp2 -= 1 ^ msb;
	/* Exactly half way between two doubles: leave the tie to strtod. */
	if (xlo == 0 && (xhi & 0x1FF) == 0 && (ret & 3) == 1)
		return 0;
	ret += ret & 1;
	ret >>= 1;
	if (ret >> 53 > 0) {
		ret >>= 1;
		exp2++;
	}
	/* A biased exponent of 0 (subnormal) or 0x7FF (infinite) is strtod's. */
	if (exp2 - 1 >= 0x7FF - 1)
		return 0;
	bits = exp2 << 52 | (ret & 0x000FFFFFFFFFFFFFULL);
	if (neg)
		bits |= 1ULL << 63;
	memcpy(out, &bits, sizeof *out);
	return 1;
}

/* The slow, always right way: strtod on a NUL-terminated copy. */
static const char *
slow_number(const char *s, size_t len, double *out)
{
	char small[64], *buf = small;
	double v;

	if (len >= sizeof small)
		buf = xmalloc(len + 1);
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtod(buf, NULL);
	if (buf != small)
		free(buf);
	/* Overflow is an error; underflow gives strtod's result (0 or a subnormal). */
	if (isinf(v))
		return "number out of range";
	*out = v;
	return NULL;
}

/*
 * Eight digits at a time (the SWAR method of simdjson and fast_float):
 * measurements printed at full precision have 16 or 17 of them. The word
 * is read in little-endian order whatever the machine's.
 */
static uint64_t
load8(const char *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	return x;
}

/* Are all eight bytes of x digits? */
static int
eightdigits(uint64_t x)
{
	return ((x & 0xF0F0F0F0F0F0F0F0ULL) |
	    (((x + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) ==
	    0x3333333333333333ULL;
}

/* The value of eight digits, first digit in the low byte. */
static uint64_t
eightvalue(uint64_t x)
{
	x -= 0x3030303030303030ULL;
	x = x * 10 + (x >> 8);
	return (((x & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
	    (((x >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
}

/*
 * Check a number by the JSON grammar starting at *pp and convert it. The
 * digits are gathered into a 64-bit mantissa on the way (it cannot
 * overflow below 20 digits); when the mantissa is at most 2^53 and the
 * power of ten is exact (Clinger's fast path) one IEEE multiplication or
 * division gives the correctly rounded double, as strtod would. Anything
 * else goes to strtod.
 */
static const char *
parse_number(const char **pp, const char *end, double *out)
{
	const char *p = *pp, *start = p, *digits;
	uint64_t mant = 0;
	unsigned d;
	long ndig, nfrac = 0, e = 0;
	int neg = 0, eneg = 0, exp10;
	double v;

	if (*p == '-') {
		neg = 1;
		p++;
	}
	digits = p;
	if (p == end)
		return "invalid number";
	if (*p == '0') {
		p++;
		if (p < end && (unsigned)(*p - '0') <= 9)
			return "leading zero in number";
	} else if ((unsigned)(*p - '1') <= 8) {
		/* Past 19 digits mant wraps, harmlessly: strtod converts those. */
		while (end - p >= 8 && eightdigits(load8(p))) {
			mant = mant * 100000000 + eightvalue(load8(p));
			p += 8;
		}
		while (p < end && (d = (unsigned)(*p - '0')) <= 9) {
			mant = mant * 10 + d;
			p++;
		}
	} else
		return "invalid number";
	ndig = p - digits;
	if (p < end && *p == '.') {
		const char *frac = ++p;

		while (end - p >= 8 && eightdigits(load8(p))) {
			mant = mant * 100000000 + eightvalue(load8(p));
			p += 8;
		}
		while (p < end && (d = (unsigned)(*p - '0')) <= 9) {
			mant = mant * 10 + d;
			p++;
		}
		if (p == frac)
			return "invalid number";
		nfrac = p - frac;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		const char *exp;

		p++;
		if (p < end && (*p == '+' || *p == '-')) {
			eneg = *p == '-';
			p++;
		}
		exp = p;
		while (p < end && (d = (unsigned)(*p - '0')) <= 9) {
			/* Beyond this every exponent means 0 or overflow alike. */
			if (e < 100000)
				e = e * 10 + d;
			p++;
		}
		if (p == exp)
			return "invalid number";
	}
	*pp = p;
#if FLT_EVAL_METHOD == 0
	if (ndig + nfrac <= 19) {
		if (mant == 0) {
			*out = neg ? -0.0 : 0.0;
			return NULL;
		}
		exp10 = (int)((eneg ? -e : e) - nfrac);
		if (exp10 > 22 && exp10 <= 22 + 16 && mant < TWO53) {
			/* 12e25 is 120000e22: move exact zeros into the mantissa. */
			uint64_t m = pow10int[exp10 - 22];

			if (mant <= (TWO53 - 1) / m) {
				mant *= m;
				exp10 = 22;
			}
		}
		if (mant <= TWO53 && exp10 >= -22 && exp10 <= 22) {
			v = (double)mant;
			v = exp10 < 0 ? v / pow10tab[-exp10] : v * pow10tab[exp10];
			*out = neg ? -v : v;
			return NULL;
		}
		if (lemire(mant, exp10, neg, out))
			return NULL;
	}
#else
	(void)exp10;
	(void)v;
	(void)neg;
	(void)nfrac;
	(void)ndig;
#endif
	return slow_number(start, (size_t)(p - start), out);
}

static const char *
parse_literal(const char **pp, const char *end, const char *word, size_t len)
{
	if ((size_t)(end - *pp) < len || memcmp(*pp, word, len) != 0)
		return "invalid value";
	*pp += len;
	return NULL;
}

/*
 * Check a nested array or object whose opening bracket is at *pp, at
 * nesting depth `depth` (the top-level object is 1). An explicit stack of
 * closing brackets replaces recursion.
 */
static const char *
skip_nested(const char **pp, const char *end, int depth)
{
	char stack[JSONL_MAXDEPTH + 1];
	int sp = 0;
	const char *p = *pp, *err;
	double d;
	char c;

	for (;;) {
		/* Here p is at the start of a value. */
		c = *p;
		if (c == '{' || c == '[') {
			if (depth + sp + 1 > JSONL_MAXDEPTH)
				return "nesting deeper than 512";
			stack[sp++] = c == '{' ? '}' : ']';
			p = skipws(p + 1, end);
			if (p == end)
				return "unexpected end of line";
			if (*p == stack[sp - 1]) {
				p++;
				sp--;
				goto closed;
			}
			if (c == '{')
				goto key;
			continue;
		}
		if (c == '"') {
			p++;
			if ((err = parse_string(&p, end)) != NULL)
				return err;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			if ((err = parse_number(&p, end, &d)) != NULL)
				return err;
		} else if (c == 't') {
			if ((err = parse_literal(&p, end, "true", 4)) != NULL)
				return err;
		} else if (c == 'f') {
			if ((err = parse_literal(&p, end, "false", 5)) != NULL)
				return err;
		} else if (c == 'n') {
			if ((err = parse_literal(&p, end, "null", 4)) != NULL)
				return err;
		} else
			return "invalid value";
closed:
		/* A value ended: a separator, a closing bracket, or done. */
		for (;;) {
			if (sp == 0) {
				*pp = p;
				return NULL;
			}
			p = skipws(p, end);
			if (p == end)
				return "unexpected end of line";
			if (*p == stack[sp - 1]) {
				p++;
				sp--;
				continue;
			}
			if (*p != ',')
				return stack[sp - 1] == '}' ? "expected ',' or '}'" : "expected ',' or ']'";
			p = skipws(p + 1, end);
			if (p == end)
				return "unexpected end of line";
			if (stack[sp - 1] == '}')
				goto key;
			break;
		}
		continue;
key:
		/* Inside an object: "key" ':' then a value. */
		if (*p != '"')
			return "expected a key in quotes";
		p++;
		if ((err = parse_string(&p, end)) != NULL)
			return err;
		if ((err = colon(&p, end)) != NULL)
			return err;
	}
}

static const char *
dupkey(const struct jfield *f)
{
	int n = f->keylen > 64 ? 64 : (int)f->keylen;

	snprintf(msgbuf, sizeof msgbuf, "duplicate key \"%.*s%s\"", n, f->key,
	    f->keylen > 64 ? "..." : "");
	return msgbuf;
}

static int
cmpfield(const void *a, const void *b)
{
	const struct jfield *x = *(const struct jfield *const *)a;
	const struct jfield *y = *(const struct jfield *const *)b;
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
	int c = memcmp(x->key, y->key, n);

	if (c != 0)
		return c;
	return (x->keylen > y->keylen) - (x->keylen < y->keylen);
}

/*
 * Duplicate keys: a pairwise check for the usual handful of members
 * (a tag of length and end bytes makes most comparisons one integer
 * compare), sorting for large records so that a line of a million keys
 * stays n log n.
 */
static const char *
check_dups(const struct jrecord *rec)
{
	const struct jfield **v;
	size_t i, j, n = rec->n;
	const char *err = NULL;

	if (n <= 32) {
		uint32_t tag[32];

		for (i = 0; i < n; i++) {
			const struct jfield *f = &rec->field[i];

			tag[i] = (uint32_t)f->keylen << 16;
			if (f->keylen > 0)
				tag[i] |= (uint32_t)(unsigned char)f->key[0] << 8 |
				    (unsigned char)f->key[f->keylen - 1];
			for (j = 0; j < i; j++)
				if (tag[j] == tag[i] &&
				    memcmp(rec->field[j].key, f->key, f->keylen) == 0)
					return dupkey(f);
		}
		return NULL;
	}
	v = xmalloc(n * sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = &rec->field[i];
	qsort(v, n, sizeof *v, cmpfield);
	for (i = 1; i < n && err == NULL; i++)
		if (cmpfield(&v[i - 1], &v[i]) == 0)
			err = dupkey(v[i]);
	free(v);
	return err;
}

const char *
jparse(const char *line, size_t len, struct jrecord *rec)
{
	const char *p = line, *end = line + len, *err;
	struct jfield *f;

	if (!sclass_ready)
		sclass_init();
	rec->n = 0;
	p = skipws(p, end);
	if (p == end)
		return "empty line";
	if (*p != '{')
		return "not a JSON object";
	p = skipws(p + 1, end);
	if (p < end && *p == '}') {
		p++;
		goto done;
	}
	for (;;) {
		if (p == end)
			return "unexpected end of line";
		if (*p != '"')
			return "expected a key in quotes";
		if (rec->n == rec->cap) {
			rec->cap = rec->cap ? rec->cap * 2 : 16;
			rec->field = xrealloc(rec->field, rec->cap * sizeof *rec->field);
		}
		f = &rec->field[rec->n];
		f->key = ++p;
		if ((err = parse_string(&p, end)) != NULL)
			return err;
		f->keylen = (size_t)(p - 1 - f->key);
		if ((err = colon(&p, end)) != NULL)
			return err;
		f->raw = p;
		f->num = 0;
		switch (*p) {
		case '"':
			f->type = J_STRING;
			f->raw = ++p;
			if ((err = parse_string(&p, end)) != NULL)
				return err;
			f->rawlen = (size_t)(p - 1 - f->raw);
			break;
		case '-': case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			f->type = J_NUMBER;
			if ((err = parse_number(&p, end, &f->num)) != NULL)
				return err;
			f->rawlen = (size_t)(p - f->raw);
			break;
		case 't':
			f->type = J_TRUE;
			goto literal;
		case 'f':
			f->type = J_FALSE;
			goto literal;
		case 'n':
			f->type = J_NULL;
literal:
			if ((err = skip_nested(&p, end, 1)) != NULL)
				return err;
			f->rawlen = (size_t)(p - f->raw);
			break;
		case '[':
		case '{':
			f->type = *p == '[' ? J_ARRAY : J_OBJECT;
			if ((err = skip_nested(&p, end, 1)) != NULL)
				return err;
			f->rawlen = (size_t)(p - f->raw);
			break;
		default:
			return "invalid value";
		}
		rec->n++;
		p = skipws(p, end);
		if (p == end)
			return "unexpected end of line";
		if (*p == '}') {
			p++;
			break;
		}
		if (*p != ',')
			return "expected ',' or '}'";
		p = skipws(p + 1, end);
	}
done:
	if (skipws(p, end) != end)
		return "text after the object";
	return check_dups(rec);
}

/* Equal bytes, by words: gaps are short and mostly equal. */
static int
sametext(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	uint32_t u, v;

	if (n >= 8) {
		for (; n > 8; n -= 8, a += 8, b += 8) {
			memcpy(&x, a, 8);
			memcpy(&y, b, 8);
			if (x != y)
				return 0;
		}
		/* The last 8 bytes, overlapping what was compared. */
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return x == y;
	}
	if (n >= 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		if (u != v)
			return 0;
		memcpy(&u, a + n - 4, 4);
		memcpy(&v, b + n - 4, 4);
		return u == v;
	}
	for (; n > 0; n--)
		if (*a++ != *b++)
			return 0;
	return 1;
}

/*
 * Parse line against lay: 1 when every gap is lay's, byte for byte, and
 * every value is valid, with rec filled as jparse fills it; 0 on any
 * difference, and jparse then parses the line from the start (so every
 * message is jparse's own). A gap equal to a gap of a valid record is
 * valid: the same keys, in the same order, so no duplicates. A value ends
 * where jparse would end it, since a gap starts with a blank, ',' or '}',
 * which end every value.
 */
static int
match_layout(const char *line, size_t len, struct jrecord *rec, const struct jlayout *lay)
{
	const char *p = line, *end = line + len;
	const struct jgap *g = lay->gap;
	struct jfield *f;
	size_t i, n = lay->n;

	if (rec->cap < n) {
		rec->cap = n;
		rec->field = xrealloc(rec->field, rec->cap * sizeof *rec->field);
	}
	for (i = 0; i < n; i++, g++) {
		if ((size_t)(end - p) <= g->len || !sametext(p, lay->text + g->off, g->len))
			return 0;
		f = &rec->field[i];
		f->key = p + g->key;
		f->keylen = g->keylen;
		p += g->len;
		f->raw = p;
		f->num = 0;
		switch (*p) {
		case '"':
			f->type = J_STRING;
			f->raw = ++p;
			if (parse_string(&p, end) != NULL)
				return 0;
			f->rawlen = (size_t)(p - 1 - f->raw);
			continue;
		case '-': case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			f->type = J_NUMBER;
			if (parse_number(&p, end, &f->num) != NULL)
				return 0;
			break;
		case 't':
			f->type = J_TRUE;
			break;
		case 'f':
			f->type = J_FALSE;
			break;
		case 'n':
			f->type = J_NULL;
			break;
		case '[':
			f->type = J_ARRAY;
			break;
		case '{':
			f->type = J_OBJECT;
			break;
		default:
			return 0;
		}
		if (f->type != J_NUMBER && skip_nested(&p, end, 1) != NULL)
			return 0;
		f->rawlen = (size_t)(p - f->raw);
	}
	if ((size_t)(end - p) != g->len || !sametext(p, lay->text + g->off, g->len))
		return 0;
	rec->n = n;
	return 1;
}

/* Make lay the layout of rec, a record jparse accepted from line. */
static void
keep_layout(const char *line, size_t len, const struct jrecord *rec, struct jlayout *lay)
{
	const char *gap = line, *vstart;
	struct jgap *g;
	size_t i;

	if (lay->gapcap < rec->n + 1) {
		lay->gapcap = rec->n + 1;
		lay->gap = xrealloc(lay->gap, lay->gapcap * sizeof *lay->gap);
	}
	if (lay->textcap < len) {
		lay->textcap = len;
		lay->text = xrealloc(lay->text, lay->textcap);
	}
	lay->textlen = 0;
	for (i = 0; i <= rec->n; i++) {
		const struct jfield *f = i < rec->n ? &rec->field[i] : NULL;

		g = &lay->gap[i];
		vstart = f != NULL ? f->raw - (f->type == J_STRING) : line + len;
		g->off = lay->textlen;
		g->len = (size_t)(vstart - gap);
		memcpy(lay->text + lay->textlen, gap, g->len);
		lay->textlen += g->len;
		if (f == NULL)
			break;
		g->key = (size_t)(f->key - gap);
		g->keylen = f->keylen;
		gap = f->raw + f->rawlen + (f->type == J_STRING);
	}
	lay->n = rec->n;
	lay->valid = 1;
}

const char *
jparse_like(const char *line, size_t len, struct jrecord *rec, struct jlayout *lay, int *same)
{
	const char *err;

	if (!sclass_ready)
		sclass_init();
	if (lay->valid && match_layout(line, len, rec, lay)) {
		*same = 1;
		return NULL;
	}
	*same = 0;
	if ((err = jparse(line, len, rec)) != NULL)
		return err;
	keep_layout(line, len, rec, lay);
	return NULL;
}

void
jlayout_free(struct jlayout *lay)
{
	free(lay->text);
	free(lay->gap);
	memset(lay, 0, sizeof *lay);
}

const struct jfield *
jget(const struct jrecord *rec, const char *key, size_t keylen)
{
	size_t i;

	for (i = 0; i < rec->n; i++)
		if (rec->field[i].keylen == keylen &&
		    memcmp(rec->field[i].key, key, keylen) == 0)
			return &rec->field[i];
	return NULL;
}

void
jrecord_free(struct jrecord *rec)
{
	free(rec->field);
	rec->field = NULL;
	rec->n = rec->cap = 0;
}

int
jreader_open(struct jreader *r, const char *path)
{
	memset(r, 0, sizeof *r);
	if (strcmp(path, "-") == 0) {
		r->fd = 0;
		r->name = "<stdin>";
	} else {
		if ((r->fd = open(path, O_RDONLY)) < 0)
			return -1;
		r->name = path;
	}
	r->cap = READ_BLOCK;
	r->buf = xmalloc(r->cap);
	return 0;
}

int
jreader_next(struct jreader *r, const char **line, size_t *len)
{
	char *nl;
	ssize_t got;

	for (;;) {
		nl = memchr(r->buf + r->scan, '\n', r->end - r->scan);
		if (nl != NULL) {
			*line = r->buf + r->start;
			*len = (size_t)(nl - *line);
			r->start = r->scan = (size_t)(nl - r->buf) + 1;
			r->lineno++;
			return 1;
		}
		r->scan = r->end;
		if (r->eof) {
			if (r->start == r->end)
				return 0;
			*line = r->buf + r->start;
			*len = r->end - r->start;
			r->start = r->scan = r->end;
			r->lineno++;
			return 1;
		}
		/* Keep the partial line and make room behind it. */
		if (r->start > 0) {
			memmove(r->buf, r->buf + r->start, r->end - r->start);
			r->end -= r->start;
			r->scan = r->end;
			r->start = 0;
		}
		if (r->cap - r->end < READ_BLOCK / 2) {
			r->cap *= 2;
			r->buf = xrealloc(r->buf, r->cap);
		}
		do
			got = read(r->fd, r->buf + r->end, r->cap - r->end);
		while (got < 0 && errno == EINTR);
		if (got < 0)
			return -1;
		if (got == 0)
			r->eof = 1;
		r->end += (size_t)got;
	}
}

void
jreader_close(struct jreader *r)
{
	if (r->fd > 0)
		close(r->fd);
	free(r->buf);
	r->buf = NULL;
}

const char *
jmetrics(const char *buf, size_t len, struct jrecord *rec)
{
	const char *end = buf + len, *line, *err;
	size_t i;

	/* Back over trailing blank lines, then to the start of the last line. */
	while (end > buf && isws((unsigned char)end[-1]))
		end--;
	if (end == buf)
		return "no output on stdout";
	line = end;
	while (line > buf && line[-1] != '\n')
		line--;
	if ((err = jparse(line, (size_t)(end - line), rec)) != NULL) {
		snprintf(msgbuf, sizeof msgbuf, "last stdout line is not a JSON object: %s", err);
		return msgbuf;
	}
	for (i = 0; i < rec->n; i++) {
		const struct jfield *f = &rec->field[i];
		int n = f->keylen > 64 ? 64 : (int)f->keylen;

		if (f->type != J_NUMBER) {
			snprintf(msgbuf, sizeof msgbuf, "value of \"%.*s%s\" is not a number",
			    n, f->key, f->keylen > 64 ? "..." : "");
			return msgbuf;
		}
	}
	return NULL;
}

void
jescape(FILE *fp, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const char *p = s, *end = s + len;
	unsigned char c;

	while (p < end) {
		const char *run = p;

		while (p < end && (unsigned char)*p >= 0x20 && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), fp);
		if (p == end)
			break;
		c = (unsigned char)*p++;
		fputc('\\', fp);
		switch (c) {
		case '"': fputc('"', fp); break;
		case '\\': fputc('\\', fp); break;
		case '\b': fputc('b', fp); break;
		case '\f': fputc('f', fp); break;
		case '\n': fputc('n', fp); break;
		case '\r': fputc('r', fp); break;
		case '\t': fputc('t', fp); break;
		default:
			fputs("u00", fp);
			fputc(hex[c >> 4], fp);
			fputc(hex[c & 15], fp);
		}
	}
}
