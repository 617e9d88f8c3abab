#include "core/tokenizer/tokenizer.h"

namespace gatescope::core {

Result<std::string> Tokenizer::decode(std::span<const int32_t> ids) const {
    Result<Decoding> decoded = decodeWithOffsets(ids);
    if (!decoded) return decoded.error();
    return std::move(decoded->text);
}

}  // namespace gatescope::core
