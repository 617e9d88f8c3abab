#include "data/common/compression.h"

#include <string>

namespace gatescope::data {

const char* toString(Compression compression) {
    switch (compression) {
        case Compression::None:
            return "none";
        case Compression::Deflate:
            return "deflate";
        case Compression::Zstd:
            return "zstd";
        case Compression::Lz4:
            return "lz4";
    }
    return "none";
}

const char* compressionNames() {
    return "deflate, lz4, zstd or none";
}

Result<Compression> parseCompression(std::string_view name) {
    for (auto c : {Compression::Deflate, Compression::Lz4, Compression::Zstd, Compression::None})
        if (name == toString(c)) return c;
    return Error{
        ErrorKind::Usage,
        "unknown compression '" + std::string(name) + "' (valid: " + compressionNames() + ")",
        {},
        {}};
}

}  // namespace gatescope::data
