#include "core/tokenizer/byte_tokenizer.h"

#include <fmt/format.h>

#include "data/common/utf8.h"

namespace gatescope::core {
namespace {
constexpr const char* kBosText = "<bos>";
}  // namespace

ByteTokenizer::ByteTokenizer(std::optional<int32_t> bos) : m_bos(bos) {
    if (m_bos && *m_bos < 256) m_bos = 256;  // below 256 it would collide with a byte
}

Result<Encoding> ByteTokenizer::encode(std::string_view text) const {
    Encoding out;
    const std::size_t extra = m_bos ? 1 : 0;
    out.ids.reserve(text.size() + extra);
    out.offsets.reserve(text.size() + extra);
    if (m_bos) {
        out.ids.push_back(*m_bos);
        out.offsets.push_back({0, 0});
    }
    for (std::size_t i = 0; i < text.size(); ++i) {
        out.ids.push_back(static_cast<uint8_t>(text[i]));
        out.offsets.push_back({i, i + 1});
    }
    return out;
}

Result<Decoding> ByteTokenizer::decodeWithOffsets(std::span<const int32_t> ids) const {
    Decoding out;
    out.offsets.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const int32_t id = ids[i];
        const std::size_t start = out.text.size();
        if (id >= 0 && id < 256) {
            out.text += static_cast<char>(id);
        } else if (m_bos && id == *m_bos) {
            out.text += kBosText;
        } else {
            return Error{ErrorKind::Format,
                         fmt::format("token {} has id {}, outside the byte vocabulary (0..{})", i,
                                     id, vocabSize() - 1),
                         {},
                         {}};
        }
        out.offsets.push_back({start, out.text.size()});
    }
    return out;
}

std::string ByteTokenizer::tokenText(int32_t id) const {
    if (id >= 0 && id < 256) {
        const char byte = static_cast<char>(id);
        return data::escapeInvalidUtf8(std::string_view(&byte, 1));
    }
    if (m_bos && id == *m_bos) return kBosText;
    return fmt::format("<invalid id {}>", id);
}

int32_t ByteTokenizer::vocabSize() const {
    return m_bos ? *m_bos + 1 : 256;
}

nlohmann::json ByteTokenizer::identity() const {
    nlohmann::json id = {{"kind", "byte"},
                         {"vocab_size", vocabSize()},
                         {"adds_bos", addsBos()},
                         {"files", nlohmann::json::object()}};
    id["bos_id"] = m_bos ? nlohmann::json(*m_bos) : nlohmann::json(nullptr);
    return id;
}

}  // namespace gatescope::core
