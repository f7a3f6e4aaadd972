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

/// `crc` (the register: inverted, as the caller keeps it) extended with `count` bytes at
/// `bytes`; only where `timeline_crc32c_available` says so (else `crc` unchanged).
#if defined(TIMELINE_CRC32C_WORD)
TIMELINE_CRC32C_TARGET
static inline uint32_t timeline_crc32c_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = (const unsigned char *)bytes;
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
#else
static inline uint32_t timeline_crc32c_update(uint32_t crc, const void *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}
#endif

#endif
