#include "data/common/compression.h"

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

}  // namespace gatescope::data
