// Base64url in blocks with AVX2, for the long parts of a token: decoding 32 characters at a
// time (an ID token's payload and signature are most of its text), encoding 24 bytes at a time
// (a DPoP proof's claims). Each block to decode is checked in full before any of it is written:
// a block with a byte outside the alphabet is left to the caller's scalar decoder, which
// reports the exact error, and so is everything after it and the tail.
//
// The method is the one of Muła and Lemire ("Faster Base64 Encoding and Decoding Using AVX2
// Instructions", 2018), with tables for the URL-safe alphabet:
//   - validity: a byte is in the alphabet when the bit sets looked up by its high and by its
//     low nibble share no bit;
//   - value: the byte plus an offset chosen by its high nibble ('_' shares its nibble with
//     'P'…'Z' and is corrected on its own);
//   - packing: pairs of 6-bit values into 12 bits, pairs of those into 24 bits, then the three
//     bytes of each 32-bit lane in order;
//   - encoding: each three bytes spread over a 32-bit lane as four 6-bit values (the input read
//     four bytes early, so that each 128-bit lane holds its twelve), then each value plus the
//     offset of its range of the alphabet.
#include "CVersolaSystem.h"

#if defined(__x86_64__)
#include <immintrin.h>

// Bits of the validity tables; a byte is valid when (by_high[hi] & by_low[lo]) == 0.
enum {
    row_2 = 1,        // 0x2_: only '-' (0x2D)
    row_3 = 2,        // 0x3_: only '0'…'9'
    row_4_6 = 4,      // 0x4_, 0x6_: not 0x40 '@', 0x60 '`'
    row_5 = 8,        // 0x5_: 'P'…'Z' and '_' (0x5F), not 0x5B…0x5E
    row_7 = 16,       // 0x7_: 'p'…'z', not 0x7B…0x7F
    row_never = 32,   // 0x0_, 0x1_ and 0x8_…0xF_: never
};

__attribute__((target("avx2"))) static size_t decode_blocks_avx2(const uint8_t *in, size_t in_count, uint8_t *out,
                                                                   size_t out_room, size_t *written) {
    const __m256i by_high = _mm256_setr_epi8(
        row_never, row_never, row_2, row_3, row_4_6, row_5, row_4_6, row_7, row_never, row_never, row_never, row_never,
        row_never, row_never, row_never, row_never, row_never, row_never, row_2, row_3, row_4_6, row_5, row_4_6, row_7,
        row_never, row_never, row_never, row_never, row_never, row_never, row_never, row_never);
#define LOW(n)                                                                                                        \
    (row_never | ((n) != 0xD ? row_2 : 0) | ((n) >= 0xA ? row_3 : 0) | ((n) == 0 ? row_4_6 : 0) |                     \
     ((n) >= 0xB && (n) <= 0xE ? row_5 : 0) | ((n) >= 0xB ? row_7 : 0))
    const __m256i by_low = _mm256_setr_epi8(
        LOW(0), LOW(1), LOW(2), LOW(3), LOW(4), LOW(5), LOW(6), LOW(7), LOW(8), LOW(9), LOW(10), LOW(11), LOW(12), LOW(13),
        LOW(14), LOW(15), LOW(0), LOW(1), LOW(2), LOW(3), LOW(4), LOW(5), LOW(6), LOW(7), LOW(8), LOW(9), LOW(10), LOW(11),
        LOW(12), LOW(13), LOW(14), LOW(15));
#undef LOW
    // Value minus byte, by high nibble: '-' 62-0x2D, digits 52-0x30, capitals -0x41, small letters 26-0x61.
    const __m256i offsets = _mm256_setr_epi8(
        0, 0, 17, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 17, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i underscore = _mm256_set1_epi8('_');
    const __m256i underscore_fix = _mm256_set1_epi8(33);  // 63-0x5F, against the capitals' -0x41
    const __m256i pair_bytes = _mm256_set1_epi32(0x01400140);
    const __m256i pair_words = _mm256_set1_epi32(0x00011000);
    const __m256i lane_bytes = _mm256_setr_epi8(
        2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1, 2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);

    size_t read = 0, made = 0;
    while (in_count - read >= 32 && out_room - made >= 32) {
        __m256i text = _mm256_loadu_si256((const __m256i *)(in + read));
        __m256i high = _mm256_and_si256(_mm256_srli_epi32(text, 4), nibble);
        __m256i low = _mm256_and_si256(text, nibble);
        __m256i invalid = _mm256_and_si256(_mm256_shuffle_epi8(by_high, high), _mm256_shuffle_epi8(by_low, low));
        if (!_mm256_testz_si256(invalid, invalid)) break;
        __m256i offset = _mm256_shuffle_epi8(offsets, high);
        offset = _mm256_add_epi8(offset, _mm256_and_si256(_mm256_cmpeq_epi8(text, underscore), underscore_fix));
        __m256i values = _mm256_add_epi8(text, offset);
        __m256i twelve = _mm256_maddubs_epi16(values, pair_bytes);
        __m256i twenty_four = _mm256_madd_epi16(twelve, pair_words);
        __m256i packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(twenty_four, lane_bytes), lanes);
        _mm256_storeu_si256((__m256i *)(out + made), packed);
        read += 32;
        made += 24;
    }
    *written = made;
    return read;
}

__attribute__((target("avx2"))) static size_t encode_blocks_avx2(const uint8_t *in, size_t in_count, uint8_t *out,
                                                                   size_t out_room, size_t *written) {
    const __m256i spread = _mm256_set_epi8(
        10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1, 14, 15, 13, 14, 11, 12, 10, 11, 8, 9, 7, 8, 5, 6, 4, 5);
    // Symbol minus value, by range: 'A' 65, 'a' 71, '0' -4 (ten times), '-' -17, '_' 32.
    const __m256i ranges = _mm256_setr_epi8(
        65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -17, 32, 0, 0, 65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -17, 32, 0, 0);
    const __m256i first_shift = _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6);
    size_t read = 0, made = 0;
    while (in_count - read >= 32 && out_room - made >= 32) {
        // Byte i of the register is input byte read + i - 4.
        __m256i bytes = read == 0 ? _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)in), first_shift)
                                  : _mm256_loadu_si256((const __m256i *)(in + read - 4));
        __m256i lanes = _mm256_shuffle_epi8(bytes, spread);
        __m256i high = _mm256_mulhi_epu16(_mm256_and_si256(lanes, _mm256_set1_epi32(0x0FC0FC00)), _mm256_set1_epi32(0x04000040));
        __m256i low = _mm256_mullo_epi16(_mm256_and_si256(lanes, _mm256_set1_epi32(0x003F03F0)), _mm256_set1_epi32(0x01000010));
        __m256i values = _mm256_or_si256(high, low);
        __m256i range = _mm256_subs_epu8(values, _mm256_set1_epi8(51));
        range = _mm256_sub_epi8(range, _mm256_cmpgt_epi8(values, _mm256_set1_epi8(25)));
        __m256i symbols = _mm256_add_epi8(values, _mm256_shuffle_epi8(ranges, range));
        _mm256_storeu_si256((__m256i *)(out + made), symbols);
        read += 24;
        made += 32;
    }
    *written = made;
    return read;
}
#endif

typedef size_t (*block_coder)(const uint8_t *in, size_t in_count, uint8_t *out, size_t out_room, size_t *written);

#if defined(__x86_64__)
#define AVX2_CODER(name) name
#else
#define AVX2_CODER(name) NULL
#endif

/// Runs `avx2` where the processor has AVX2 (as the compiler's runtime found when the program
/// started); elsewhere consumes nothing.
static size_t run_blocks(block_coder avx2, const uint8_t *in, size_t in_count, uint8_t *out, size_t out_room,
                         size_t *written) {
    *written = 0;
#if defined(__x86_64__)
    if (avx2 != NULL && __builtin_cpu_supports("avx2")) return avx2(in, in_count, out, out_room, written);
#endif
    (void)avx2;
    (void)in;
    (void)in_count;
    (void)out;
    (void)out_room;
    return 0;
}

size_t versola_base64url_encode_blocks(const uint8_t *in, size_t in_count, uint8_t *out, size_t out_room,
                                       size_t *written) {
    return run_blocks(AVX2_CODER(encode_blocks_avx2), in, in_count, out, out_room, written);
}

size_t versola_base64url_decode_blocks(const uint8_t *in, size_t in_count, uint8_t *out, size_t out_room,
                                       size_t *written) {
    return run_blocks(AVX2_CODER(decode_blocks_avx2), in, in_count, out, out_room, written);
}
