#include "core/checkpoint/sha256.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/checkpoint/checkpoint.h"
#include "data/common/input_file.h"

namespace gatescope::core {

const std::array<uint32_t, 64> detail::kSha256Round = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

namespace {

constexpr std::array<uint32_t, 8> kInitial = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

std::string toHex(const std::array<uint8_t, 32>& digest) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out(64, '0');
    for (std::size_t i = 0; i < digest.size(); ++i) {
        out[2 * i] = kDigits[digest[i] >> 4];
        out[2 * i + 1] = kDigits[digest[i] & 0xF];
    }
    return out;
}

}  // namespace

Sha256::Sha256() : m_state(kInitial) {}

void detail::sha256CompressPortable(std::array<uint32_t, 8>& state, const uint8_t* blocks,
                                    std::size_t count) {
    for (; count > 0; --count, blocks += 64) {
        const uint8_t* block = blocks;
        std::array<uint32_t, 64> w;
        for (int i = 0; i < 16; ++i) {
            w[i] = (uint32_t{block[4 * i]} << 24) | (uint32_t{block[4 * i + 1]} << 16) |
                   (uint32_t{block[4 * i + 2]} << 8) | uint32_t{block[4 * i + 3]};
        }
        for (int i = 16; i < 64; ++i) {
            const uint32_t s0 =
                std::rotr(w[i - 15], 7) ^ std::rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const uint32_t s1 =
                std::rotr(w[i - 2], 17) ^ std::rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; ++i) {
            const uint32_t s1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
            const uint32_t choose = (e & f) ^ (~e & g);
            const uint32_t t1 = h + s1 + choose + kSha256Round[i] + w[i];
            const uint32_t s0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
            const uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
            const uint32_t t2 = s0 + majority;
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
}

void Sha256::compress(const uint8_t* blocks, std::size_t count) {
    static const bool hardware = detail::sha256HardwareAvailable();
    if (hardware)
        detail::sha256CompressHardware(m_state, blocks, count);
    else
        detail::sha256CompressPortable(m_state, blocks, count);
}

void Sha256::update(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    m_totalBytes += size;
    if (m_buffered > 0) {
        const std::size_t take = std::min(size, m_buffer.size() - m_buffered);
        std::memcpy(m_buffer.data() + m_buffered, bytes, take);
        m_buffered += take;
        bytes += take;
        size -= take;
        if (m_buffered < m_buffer.size()) return;
        compress(m_buffer.data(), 1);
        m_buffered = 0;
    }
    if (size >= 64) {
        compress(bytes, size / 64);
        bytes += size / 64 * 64;
        size %= 64;
    }
    if (size > 0) {
        std::memcpy(m_buffer.data(), bytes, size);
        m_buffered = size;
    }
}

std::array<uint8_t, 32> Sha256::finish() {
    const uint64_t bitLength = m_totalBytes * 8;
    // Padding: 0x80, zeros up to 56 mod 64, then the 64-bit big-endian bit length.
    std::array<uint8_t, 72> padding{};
    padding[0] = 0x80;
    const std::size_t padBytes = (m_buffered < 56) ? 56 - m_buffered : 120 - m_buffered;
    for (int i = 0; i < 8; ++i) {
        padding[padBytes + i] = static_cast<uint8_t>(bitLength >> (56 - 8 * i));
    }
    const uint64_t total = m_totalBytes;
    update(padding.data(), padBytes + 8);
    m_totalBytes = total;
    std::array<uint8_t, 32> digest;
    for (int i = 0; i < 8; ++i) {
        digest[4 * i] = static_cast<uint8_t>(m_state[i] >> 24);
        digest[4 * i + 1] = static_cast<uint8_t>(m_state[i] >> 16);
        digest[4 * i + 2] = static_cast<uint8_t>(m_state[i] >> 8);
        digest[4 * i + 3] = static_cast<uint8_t>(m_state[i]);
    }
    return digest;
}

std::string Sha256::finishHex() {
    return toHex(finish());
}

std::string sha256Hex(const void* data, std::size_t size) {
    Sha256 hasher;
    hasher.update(data, size);
    return hasher.finishHex();
}

Result<std::string> sha256File(const std::filesystem::path& path, const std::atomic<bool>* stop) {
    // Regular files only: a FIFO or a device (/dev/zero) would block or never end. Reads stop at
    // the size fstat reported, so a file that grows while hashed cannot keep this loop going.
    Result<data::InputFile> file = data::InputFile::open(path);
    if (!file) return file.error();
    Sha256 hasher;
    std::vector<uint8_t> buffer(std::size_t{1} << 20);
    uint64_t done = 0;
    while (done < file->size()) {
        if (stop && stop->load())
            return Error{ErrorKind::Cancelled, "cancelled while hashing", path.string(), {}};
        const std::size_t want =
            static_cast<std::size_t>(std::min<uint64_t>(buffer.size(), file->size() - done));
        const ssize_t got = ::pread(file->fd(), buffer.data(), want, static_cast<off_t>(done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            return Error{ErrorKind::Io,
                         fmt::format("read error while hashing: {}", std::strerror(errno)),
                         path.string(),
                         {}};
        }
        if (got == 0) {
            return Error{ErrorKind::Io, "the file shrank while it was hashed", path.string(), {}};
        }
        hasher.update(buffer.data(), static_cast<std::size_t>(got));
        done += static_cast<uint64_t>(got);
    }
    return hasher.finishHex();
}

}  // namespace gatescope::core
