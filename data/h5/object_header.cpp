#include "data/h5/object_header.h"

#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "data/h5/checked_driver.h"
#include "data/h5/raw_fields.h"

namespace gatescope::data::h5 {

namespace {

constexpr size_t kMaxChunks = 4096;
constexpr uint64_t kMaxHeaderBytes = uint64_t{64} << 20;
constexpr unsigned kContinuation = 0x0010;

struct Chunk {
    uint64_t address = 0, size = 0;
};

class HeaderReader {
public:
    HeaderReader(const FileBytes& file, size_t addressBytes, size_t lengthBytes,
                 const Location& where)
        : m_file(file), m_offsets(addressBytes), m_lengths(lengthBytes), m_where(where) {}

    Result<std::vector<RawMessage>> read(uint64_t address) {
        uint8_t prefix[4];
        if (!m_file(address, sizeof prefix, prefix))
            return corrupt(
                fmt::format("the object header at {} lies past the end of the file", address));
        if (std::memcmp(prefix, "OHDR", 4) == 0) return readVersion2(address);
        if (prefix[0] == 1) return readVersion1(address);
        return corrupt(fmt::format("the object header at {} has unknown version {}", address,
                                   unsigned(prefix[0])));
    }

private:
    Error corrupt(const std::string& what) const {
        return Error{ErrorKind::Format, what + " (corrupt file?)", m_where.file, m_where.object};
    }

    /// The bytes of a chunk, bounded in number and size; false with `error` set when not sound.
    bool load(const Chunk& chunk, std::vector<uint8_t>& bytes, Error& error) {
        // Compared before adding: a forged size near 2^64 would wrap the sum.
        if (++m_chunks > kMaxChunks || chunk.size > kMaxHeaderBytes - m_total) {
            error = corrupt("an object header has too many or too large chunks");
            return false;
        }
        m_total += chunk.size;
        bytes.resize(chunk.size);
        if (!m_file(chunk.address, chunk.size, bytes.data())) {
            error =
                corrupt(fmt::format("an object header chunk at {} ({} bytes) runs past the "
                                    "end of the file",
                                    chunk.address, chunk.size));
            return false;
        }
        return true;
    }

    /// Continuation messages name further chunks: {address, length}.
    bool continuation(const RawMessage& m, std::vector<Chunk>& pending, Error& error) {
        if (m.type != kContinuation) return true;
        if (m.data.size() < m_offsets + m_lengths) {
            error = corrupt("an object header continuation message is truncated");
            return false;
        }
        pending.push_back({littleEndian(m.data.data(), m_offsets),
                           littleEndian(m.data.data() + m_offsets, m_lengths)});
        return true;
    }

    Result<std::vector<RawMessage>> readVersion1(uint64_t address) {
        uint8_t prefix[16];
        if (!m_file(address, sizeof prefix, prefix))
            return corrupt(fmt::format("the object header at {} is truncated", address));
        std::vector<Chunk> pending = {{address + 16, littleEndian(prefix + 8, 4)}};
        std::vector<RawMessage> messages;
        std::vector<uint8_t> bytes;
        Error error;
        for (size_t next = 0; next < pending.size(); ++next) {
            if (!load(pending[next], bytes, error)) return error;
            // Each message: type (2), size (2), flags (1), reserved (3), then `size` bytes.
            for (size_t at = 0; at + 8 <= bytes.size();) {
                RawMessage m{unsigned(littleEndian(&bytes[at], 2)), bytes[at + 4], {}};
                const size_t size = littleEndian(&bytes[at + 2], 2);
                if (at + 8 + size > bytes.size())
                    return corrupt(
                        fmt::format("an object header message of {} bytes runs past "
                                    "its chunk at {}",
                                    size, pending[next].address));
                m.data.assign(bytes.begin() + at + 8, bytes.begin() + at + 8 + size);
                if (!continuation(m, pending, error)) return error;
                messages.push_back(std::move(m));
                at += 8 + size;
            }
        }
        return messages;
    }

    Result<std::vector<RawMessage>> readVersion2(uint64_t address) {
        uint8_t prefix[6 + 16 + 4 + 8];
        if (!m_file(address, 6, prefix))
            return corrupt(fmt::format("the object header at {} is truncated", address));
        const unsigned flags = prefix[5];
        const size_t sizeBytes = size_t{1} << (flags & 3);
        const size_t fixed = 6 + ((flags & 0x20) ? 16 : 0) + ((flags & 0x10) ? 4 : 0);
        if (!m_file(address, fixed + sizeBytes, prefix))
            return corrupt(fmt::format("the object header at {} is truncated", address));
        const bool order = flags & 0x04;  // messages carry a 2-byte creation order
        // Chunk 0's messages follow the prefix; each chunk ends with a 4-byte checksum, and the
        // continuation chunks start with "OCHK".
        std::vector<Chunk> pending = {
            {address + fixed + sizeBytes, littleEndian(prefix + fixed, sizeBytes)}};
        std::vector<RawMessage> messages;
        std::vector<uint8_t> bytes;
        Error error;
        for (size_t next = 0; next < pending.size(); ++next) {
            size_t at = 0, end = 0;
            if (next == 0) {
                if (!load(pending[0], bytes, error)) return error;
                end = bytes.size();
            } else {
                if (!load(pending[next], bytes, error)) return error;
                if (bytes.size() < 8 || std::memcmp(bytes.data(), "OCHK", 4) != 0)
                    return corrupt(
                        fmt::format("no continuation chunk at {}", pending[next].address));
                at = 4, end = bytes.size() - 4;
            }
            const size_t head = order ? 6 : 4;
            // A gap shorter than a message header may end the chunk.
            while (at + head <= end) {
                RawMessage m{bytes[at], bytes[at + 3], {}};
                const size_t size = littleEndian(&bytes[at + 1], 2);
                if (at + head + size > end)
                    return corrupt(
                        fmt::format("an object header message of {} bytes runs past "
                                    "its chunk at {}",
                                    size, pending[next].address));
                m.data.assign(bytes.begin() + at + head, bytes.begin() + at + head + size);
                if (!continuation(m, pending, error)) return error;
                messages.push_back(std::move(m));
                at += head + size;
            }
        }
        return messages;
    }

    const FileBytes& m_file;
    size_t m_offsets, m_lengths;
    const Location& m_where;
    size_t m_chunks = 0;
    uint64_t m_total = 0;
};

}  // namespace

Result<std::vector<RawMessage>> readObjectHeader(const FileBytes& file, uint64_t address,
                                                 size_t addressBytes, size_t lengthBytes,
                                                 const Location& where) {
    return HeaderReader(file, addressBytes, lengthBytes, where).read(address);
}

Result<std::optional<std::vector<RawMessage>>> readObjectHeader(hid_t file, uint64_t address,
                                                                size_t addressBytes,
                                                                size_t lengthBytes,
                                                                const Location& where) {
    uint8_t first;
    if (!readCheckedBytes(file, 0, 1, &first))  // another driver
        return std::optional<std::vector<RawMessage>>();
    const FileBytes bytes = [file](uint64_t at, size_t size, uint8_t* out) {
        return readCheckedBytes(file, at, size, out);
    };
    auto messages = readObjectHeader(bytes, address, addressBytes, lengthBytes, where);
    if (!messages) return messages.error();
    return std::optional<std::vector<RawMessage>>(std::move(*messages));
}

}  // namespace gatescope::data::h5
