// crc32 as zlib computes it (what Python's zlib.crc32 and PyTorch's bundle
// header use), folded with carry-less multiplication where the CPU has it.
//
// zlib 1.2.13's table-driven crc32 runs at about 1 GB/s, which capped a
// bundle's decode and encode (docs/PERFORMANCE.md): the bundle's crc covers
// every byte. PCLMULQDQ folds 128 bytes per step in eight independent lanes and
// reaches the memory bandwidth. This is the folding of Intel's "Fast CRC
// Computation for Generic Polynomials Using PCLMULQDQ Instruction" (Gopal et
// al., 2009) for the reflected polynomial 0xEDB88320, with the constants the
// paper derives for it (x^(4*128+32) mod P and so on, bit-reflected); the
// unaligned head, the tail under 16 bytes and CPUs without PCLMULQDQ go to
// zlib.

#include <cachelens/bundle/mega_cache.h>

#include <zlib.h>

#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CACHELENS_CRC32_FOLDING 1
#endif

namespace cachelens::bundle {

namespace {

// The crc register without zlib's inversion before and after: folding works on it.
std::uint32_t crc_register_update(std::uint32_t reg, const unsigned char* data, std::size_t size) {
    return ~static_cast<std::uint32_t>(::crc32_z(~reg & 0xffffffffU, data, size));
}

#ifdef CACHELENS_CRC32_FOLDING

#define CACHELENS_FOLDING_TARGET __attribute__((target("pclmul,sse4.1")))

// `lane` moved ahead by the distance `by` holds the constants of, plus `next`.
CACHELENS_FOLDING_TARGET inline __m128i fold(__m128i lane, __m128i by, __m128i next) {
    const __m128i low = _mm_clmulepi64_si128(lane, by, 0x00);
    const __m128i high = _mm_clmulepi64_si128(lane, by, 0x11);
    return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

CACHELENS_FOLDING_TARGET inline __m128i load(const unsigned char* at) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
}

// `size` is a multiple of 16, at least 16.
CACHELENS_FOLDING_TARGET std::uint32_t
crc_register_fold(std::uint32_t reg, const unsigned char* data, std::size_t size) {
    // Eight lanes of 128 bits, each moved 1024 bits ahead per step: lo *
    // x^(1024+32) and hi * x^(1024-32) mod P, bit-reflected and shifted as
    // the paper's k1/k2 are (derived the same way: k1/k2 for 512 bits are
    // 0x154442bd4/0x1c6e41596). Eight lanes keep the multiplier busy while
    // each product's latency passes.
    const __m128i fold_by_8 = _mm_set_epi64x(0x14a7fe880, 0x1e88ef372);
    // One lane 128 bits ahead.
    const __m128i fold_by_1 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
    const __m128i fold_to_32 = _mm_set_epi64x(0, 0x163cd6124);
    // Barrett reduction: mu and P', bit-reflected.
    const __m128i barrett = _mm_set_epi64x(0x1f7011641, 0x1db710641);
    const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);

    __m128i folded = _mm_xor_si128(load(data), _mm_cvtsi32_si128(static_cast<int>(reg)));
    if (size >= 128) {
        __m128i lanes[8];
        lanes[0] = folded;
        for (int lane = 1; lane < 8; ++lane) {
            lanes[lane] = load(data + 16 * lane);
        }
        data += 128;
        size -= 128;
        for (; size >= 128; data += 128, size -= 128) {
            for (int lane = 0; lane < 8; ++lane) {
                lanes[lane] = fold(lanes[lane], fold_by_8, load(data + 16 * lane));
            }
        }
        folded = lanes[0];
        for (int lane = 1; lane < 8; ++lane) {
            folded = fold(folded, fold_by_1, lanes[lane]);
        }
    } else {
        data += 16;
        size -= 16;
    }
    for (; size >= 16; data += 16, size -= 16) {
        folded = fold(folded, fold_by_1, load(data));
    }
    // 128 bits to 64 (appending 32 zero bits), then to 32.
    folded =
        _mm_xor_si128(_mm_clmulepi64_si128(fold_by_1, folded, 0x01), _mm_srli_si128(folded, 8));
    const __m128i upper = _mm_srli_si128(folded, 4);
    folded =
        _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(folded, low32), fold_to_32, 0x00), upper);
    // Barrett: the remainder of the 64-bit value by P.
    __m128i quotient = _mm_and_si128(folded, low32);
    quotient = _mm_clmulepi64_si128(quotient, barrett, 0x10);
    quotient = _mm_and_si128(quotient, low32);
    quotient = _mm_clmulepi64_si128(quotient, barrett, 0x00);
    folded = _mm_xor_si128(folded, quotient);
    return static_cast<std::uint32_t>(_mm_extract_epi32(folded, 1));
}

bool cpu_folds() {
    static const bool folds = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    return folds;
}

#endif

} // namespace

std::uint32_t crc32(std::string_view bytes) {
    return crc32_update(0, bytes);
}

std::uint32_t crc32_update(std::uint32_t previous, std::string_view bytes) {
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    std::size_t size = bytes.size();
    std::uint32_t reg = ~previous;
#ifdef CACHELENS_CRC32_FOLDING
    // Below a few hundred bytes the setup costs more than zlib's table.
    if (size >= 256 && cpu_folds()) {
        const std::size_t folded = size & ~std::size_t{15};
        reg = crc_register_fold(reg, data, folded);
        data += folded;
        size -= folded;
    }
#endif
    reg = crc_register_update(reg, data, size);
    return ~reg;
}

} // namespace cachelens::bundle
