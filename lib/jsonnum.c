/*
 * jsonnum: JSON numbers to doubles, bit for bit as strtod (see jsonnum.h).
 *
 * Numbers are the hot spot of every perfgate tool, so they are converted
 * by Clinger's fast path when that is exact, by the Eisel-Lemire algorithm
 * when it can prove its rounding, and by strtod otherwise; either way the
 * double is the one strtod gives. tests/unit/numcheck.c checks that on
 * millions of numbers of every shape.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonnum.h"
#include "util.h"

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
 * The digits from p on, into *mant, eight at a time while there are eight;
 * returns the end of the digits. Past 19 digits *mant wraps, harmlessly:
 * strtod converts those.
 */
static inline const char *
gather(const char *p, const char *end, uint64_t *mant)
{
	uint64_t m = *mant;
	unsigned d;

	while (end - p >= 8 && eightdigits(load8(p))) {
		m = m * 100000000 + eightvalue(load8(p));
		p += 8;
	}
	while (p < end && (d = (unsigned)(*p - '0')) <= 9) {
		m = m * 10 + d;
		p++;
	}
	*mant = m;
	return p;
}

/*
 * Check a number by the JSON grammar starting at *pp and convert it. The
 * digits are gathered into a 64-bit mantissa on the way (it cannot
 * overflow below 20 digits); when the mantissa is at most 2^53 and the
 * power of ten is exact (Clinger's fast path) one IEEE multiplication or
 * division gives the correctly rounded double, as strtod would. Anything
 * else goes to strtod.
 */
const char *
jnum_parse(const char **pp, const char *end, double *out)
{
	const char *p = *pp, *start = p, *digits;
	uint64_t mant = 0;
	unsigned d;
	long ndig, nfrac = 0, e = 0;
	int neg = 0, eneg = 0, exp10;
	double v;

	if (p == end)
		return "invalid number";
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
		p = gather(p, end, &mant);
	} else
		return "invalid number";
	ndig = p - digits;
	if (p < end && *p == '.') {
		const char *frac = ++p;

		p = gather(p, end, &mant);
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
