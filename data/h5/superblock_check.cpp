#include "data/h5/superblock_check.h"

#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "data/h5/raw_fields.h"

namespace gatescope::data::h5 {
namespace {

constexpr uint8_t kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

/// HDF5 looks for the superblock at 0, 512, 1024, 2048, ... (after a user block).
std::optional<uint64_t> findSuperblock(const FileBytes& bytes, uint64_t fileSize) {
    for (uint64_t at = 0; at + sizeof kSignature <= fileSize; at = at == 0 ? 512 : at * 2) {
        uint8_t signature[sizeof kSignature];
        if (bytes(at, sizeof signature, signature) &&
            std::memcmp(signature, kSignature, sizeof signature) == 0)
            return at;
    }
    return std::nullopt;
}

bool isUndefined(uint64_t address, size_t offsets) {
    return offsets == 8 ? address == ~uint64_t{0} : address == (uint64_t{1} << (8 * offsets)) - 1;
}

struct Fields {
    size_t offsets = 0, lengths = 0;
    uint64_t root = 0, extension = 0;  // relative to the superblock
    bool hasExtension = false;
};

/// Versions 0 and 1 keep the root group in a symbol table entry; 2 and 3 name its header and a
/// superblock extension directly.
std::optional<Fields> readFields(const FileBytes& bytes, uint64_t at, std::string& problem) {
    uint8_t head[16];
    if (!bytes(at, sizeof head, head)) return std::nullopt;
    const unsigned version = head[8];
    Fields f;
    uint64_t addresses = 0;  // where the list of addresses starts
    if (version <= 1) {
        f.offsets = head[13], f.lengths = head[14];
        addresses = at + (version == 0 ? 24 : 28);
    } else if (version <= 3) {
        f.offsets = head[9], f.lengths = head[10];
        addresses = at + 12;
    } else {
        return std::nullopt;
    }
    for (size_t size : {f.offsets, f.lengths})
        if (size != 2 && size != 4 && size != 8) {
            problem = fmt::format(
                "the superblock states {}-byte addresses or lengths; gatescope reads 2, 4 or 8",
                size);
            return std::nullopt;
        }
    // v0/v1: base, free space, end of file, driver info, then the root entry's name offset and
    // header address. v2/v3: base, extension, end of file, root header address.
    uint8_t list[6 * 8];
    if (!bytes(addresses, 6 * f.offsets, list)) return std::nullopt;
    auto field = [&](size_t index) { return littleEndian(list + index * f.offsets, f.offsets); };
    if (version <= 1) {
        f.root = field(5);
    } else {
        f.extension = field(1);
        f.hasExtension = !isUndefined(f.extension, f.offsets);
        f.root = field(3);
    }
    if (isUndefined(f.root, f.offsets)) return std::nullopt;
    return f;
}

}  // namespace

std::string superblockProblem(const FileBytes& bytes, uint64_t fileSize) {
    auto at = findSuperblock(bytes, fileSize);
    if (!at) return {};
    std::string problem;
    auto fields = readFields(bytes, *at, problem);
    if (!fields) return problem;
    const Location where{"", "/"};
    auto check = [&](uint64_t address, const char* what) -> std::string {
        auto header =
            readObjectHeader(bytes, *at + address, fields->offsets, fields->lengths, where);
        return header ? std::string() : fmt::format("{}: {}", what, header.error().message);
    };
    if (fields->hasExtension)
        if (auto bad = check(fields->extension, "superblock extension"); !bad.empty()) return bad;
    return check(fields->root, "root group");
}

}  // namespace gatescope::data::h5
