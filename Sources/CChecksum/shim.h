#ifndef TIMELINE_C_CHECKSUM_H
#define TIMELINE_C_CHECKSUM_H

// CRC-32C with the processor's own instruction, where it has one: SSE 4.2's `crc32` on
// x86-64 (found at run time with `cpuid`), the CRC extension on 64-bit ARM when the
// target has it (every Apple arm64 processor does). Swift has no intrinsic for either.
// The checksum ends every line of the log and the checkpoint, so every read computes it.

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <cpuid.h>
#define TIMELINE_CRC32C_TARGET __attribute__((target("sse4.2")))
#define TIMELINE_CRC32C_WORD(crc, word) ((uint32_t)__builtin_ia32_crc32di((crc), (word)))
#define TIMELINE_CRC32C_BYTE(crc, byte) __builtin_ia32_crc32qi((crc), (byte))

/// Whether `timeline_crc32c_update` may be called: the processor has SSE 4.2.
static inline int timeline_crc32c_available(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return (c & bit_SSE4_2) != 0;
}
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>
#define TIMELINE_CRC32C_TARGET
#define TIMELINE_CRC32C_WORD(crc, word) __crc32cd((crc), (word))
#define TIMELINE_CRC32C_BYTE(crc, byte) __crc32cb((crc), (byte))

static inline int timeline_crc32c_available(void) { return 1; }
#else
static inline int timeline_crc32c_available(void) { return 0; }
#endif

#if defined(TIMELINE_CRC32C_WORD)
/// `crc` times `b` modulo the polynomial (reflected: bit 31 is x^0). A register times
/// x^(8n) is the register carried past n zero bytes.
static inline uint32_t timeline_crc32c_multiply(uint32_t a, uint32_t b) {
    uint32_t product = 0;
    for (uint32_t bit = 1u << 31; bit != 0; bit >>= 1) {
        if (a & bit) product ^= b;
        b = (b & 1) ? (b >> 1) ^ 0x82F63B78u : b >> 1;
    }
    return product;
}

/// `crc` extended with `count` bytes at `p`, one instruction per eight bytes in turn.
TIMELINE_CRC32C_TARGET
static inline uint32_t timeline_crc32c_serial(uint32_t crc, const unsigned char *p, size_t count) {
    while (count >= 8) {
        uint64_t word;
        __builtin_memcpy(&word, p, 8);
        crc = TIMELINE_CRC32C_WORD(crc, word);
        p += 8;
        count -= 8;
    }
    while (count > 0) {
        crc = TIMELINE_CRC32C_BYTE(crc, *p);
        p += 1;
        count -= 1;
    }
    return crc;
}

/// Bytes per lane of the three computed side by side.
#define TIMELINE_CRC32C_LANE 8192
/// x^(8 * TIMELINE_CRC32C_LANE) modulo the polynomial, reflected.
#define TIMELINE_CRC32C_LANE_SHIFT 0x28461564u

/// `crc` (the register: inverted, as the caller keeps it) extended with `count` bytes at
/// `bytes`; only where `timeline_crc32c_available` says so (else `crc` unchanged).
///
/// The instruction takes three cycles and can start every cycle, so a long run is cut
/// into blocks of three lanes computed side by side, each lane's register from zero, then
/// joined: the register is linear, and a lane's follows the one before it once that is
/// carried past the lane's bytes (a multiplication by x^(8 * lane)).
TIMELINE_CRC32C_TARGET
static inline uint32_t timeline_crc32c_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = (const unsigned char *)bytes;
    const size_t lane = TIMELINE_CRC32C_LANE;
    while (count >= 3 * lane) {
        uint32_t a = crc, b = 0, c = 0;
        for (size_t at = 0; at < lane; at += 8) {
            uint64_t x, y, z;
            __builtin_memcpy(&x, p + at, 8);
            __builtin_memcpy(&y, p + lane + at, 8);
            __builtin_memcpy(&z, p + 2 * lane + at, 8);
            a = TIMELINE_CRC32C_WORD(a, x);
            b = TIMELINE_CRC32C_WORD(b, y);
            c = TIMELINE_CRC32C_WORD(c, z);
        }
        crc = timeline_crc32c_multiply(a, TIMELINE_CRC32C_LANE_SHIFT) ^ b;
        crc = timeline_crc32c_multiply(crc, TIMELINE_CRC32C_LANE_SHIFT) ^ c;
        p += 3 * lane;
        count -= 3 * lane;
    }
    return timeline_crc32c_serial(crc, p, count);
}
#else
static inline uint32_t timeline_crc32c_update(uint32_t crc, const void *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}
#endif

#endif
