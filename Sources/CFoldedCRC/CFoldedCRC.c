#include "CFoldedCRC.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <stdatomic.h>

// The fold constants of the reflected polynomial 0x104C11DB7: x^n mod P, bit-reflected and
// shifted left by one (33 bits), for n = 4·128 ± 32 (four blocks ahead) and 128 ± 32 (one).
#define FOLD4_LOW 0x154442bd4ULL   // x^544
#define FOLD4_HIGH 0x1c6e41596ULL  // x^480
#define FOLD1_LOW 0x1751997d0ULL   // x^160
#define FOLD1_HIGH 0x0ccaa009eULL  // x^96

__attribute__((target("pclmul,sse2"))) static inline __m128i fold(__m128i block, __m128i next, __m128i constants) {
    __m128i low = _mm_clmulepi64_si128(block, constants, 0x00);
    __m128i high = _mm_clmulepi64_si128(block, constants, 0x11);
    return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

__attribute__((target("pclmul,sse2"))) static size_t fold_pclmul(
    uint32_t raw, const uint8_t *bytes, size_t length, uint8_t out[16]) {
    const __m128i four = _mm_set_epi64x((long long)FOLD4_HIGH, (long long)FOLD4_LOW);
    const __m128i one = _mm_set_epi64x((long long)FOLD1_HIGH, (long long)FOLD1_LOW);
    __m128i x0 = _mm_loadu_si128((const __m128i *)bytes);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(bytes + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(bytes + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(bytes + 48));
    // The register enters as the first four bytes' difference.
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)raw));
    size_t done = 64;
    while (length - done >= 64) {
        const uint8_t *next = bytes + done;
        x0 = fold(x0, _mm_loadu_si128((const __m128i *)next), four);
        x1 = fold(x1, _mm_loadu_si128((const __m128i *)(next + 16)), four);
        x2 = fold(x2, _mm_loadu_si128((const __m128i *)(next + 32)), four);
        x3 = fold(x3, _mm_loadu_si128((const __m128i *)(next + 48)), four);
        done += 64;
    }
    x0 = fold(x0, x1, one);
    x0 = fold(x0, x2, one);
    x0 = fold(x0, x3, one);
    while (length - done >= 16) {
        x0 = fold(x0, _mm_loadu_si128((const __m128i *)(bytes + done)), one);
        done += 16;
    }
    _mm_storeu_si128((__m128i *)out, x0);
    return done;
}

size_t tabkeep_crc32_fold(uint32_t raw, const uint8_t *bytes, size_t length, uint8_t out[16]) {
    // -1 until asked; every thread that asks first computes the same answer.
    static _Atomic int supported = -1;
    if (length < 64) return 0;
    int known = atomic_load_explicit(&supported, memory_order_relaxed);
    if (known < 0) {
        known = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2");
        atomic_store_explicit(&supported, known, memory_order_relaxed);
    }
    return known ? fold_pclmul(raw, bytes, length, out) : 0;
}

#else

size_t tabkeep_crc32_fold(uint32_t raw, const uint8_t *bytes, size_t length, uint8_t out[16]) {
    (void)raw;
    (void)bytes;
    (void)length;
    (void)out;
    return 0;
}

#endif
