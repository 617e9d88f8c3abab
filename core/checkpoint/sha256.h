// Streaming SHA-256 (FIPS 180-4), for checkpoint, vocabulary and input provenance.
// sha256Hex() and sha256File() are declared in checkpoint.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gatescope::core {

/// Incremental hasher: update() any number of times, then finish() once. Not thread-safe; cheap
/// to create, one per stream.
class Sha256 {
public:
    Sha256();
    void update(const void* data, std::size_t size);
    /// The 32-byte digest. The hasher must not be updated afterwards.
    std::array<uint8_t, 32> finish();
    /// finish() as 64 lowercase hex characters.
    std::string finishHex();

private:
    void compress(const uint8_t* blocks, std::size_t count);

    std::array<uint32_t, 8> m_state;
    std::array<uint8_t, 64> m_buffer{};
    std::size_t m_buffered = 0;
    uint64_t m_totalBytes = 0;
};

namespace detail {

/// The FIPS 180-4 round constants.
extern const std::array<uint32_t, 64> kSha256Round;

/// Compresses `count` 64-byte blocks into `state`: the portable code, and the x86 SHA extensions
/// (SHA-NI; several times faster) where the processor has them (sha256HardwareAvailable()).
void sha256CompressPortable(std::array<uint32_t, 8>& state, const uint8_t* blocks,
                            std::size_t count);
bool sha256HardwareAvailable();
void sha256CompressHardware(std::array<uint32_t, 8>& state, const uint8_t* blocks,
                            std::size_t count);

}  // namespace detail

}  // namespace gatescope::core
