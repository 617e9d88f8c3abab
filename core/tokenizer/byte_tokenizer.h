// The byte-level tokenizer of gatescope's own sample models: id = byte value.
#pragma once

#include <optional>

#include "core/tokenizer/tokenizer.h"

namespace gatescope::core {

/// 256 ids, one per byte; any byte string round-trips exactly (no UTF-8 needed). Optionally a BOS
/// id >= 256 that encode() prepends (vocabSize() is then bos + 1). Immutable; thread-safe.
class ByteTokenizer final : public Tokenizer {
public:
    explicit ByteTokenizer(std::optional<int32_t> bos = std::nullopt);

    Result<Encoding> encode(std::string_view text) const override;
    Result<Decoding> decodeWithOffsets(std::span<const int32_t> ids) const override;
    std::string tokenText(int32_t id) const override;
    int32_t vocabSize() const override;
    std::optional<int32_t> bosId() const override { return m_bos; }
    bool addsBos() const override { return m_bos.has_value(); }
    nlohmann::json identity() const override;

private:
    std::optional<int32_t> m_bos;
};

}  // namespace gatescope::core
