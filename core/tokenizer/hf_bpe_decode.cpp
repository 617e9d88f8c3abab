// HfBpeTokenizer: ids back to text, token display, provenance.
#include <fmt/format.h>

#include "core/tokenizer/hf_bpe_tokenizer.h"
#include "data/common/utf8.h"

namespace gatescope::core {
namespace {

// "<0xNN>" -> NN; -1 for anything else.
int byteTokenValue(const std::string& token) {
    if (token.size() != 6 || !token.starts_with("<0x") || token.back() != '>') return -1;
    auto hex = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    const int hi = hex(token[3]);
    const int lo = hex(token[4]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

void replaceAllIn(std::string& s, const std::string& from, const std::string& to) {
    if (from.empty()) return;
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

}  // namespace

bool HfBpeTokenizer::prependsSpace() const {
    for (const HfBpeSpec::Step& step : m_spec.normalizer) {
        if (step.prepend) return true;
    }
    return m_spec.metaspace && m_spec.metaspace->prependScheme != HfBpeSpec::PrependScheme::Never;
}

bool HfBpeTokenizer::addsBos() const {
    return m_spec.bosId && !m_spec.prefixIds.empty() && m_spec.prefixIds.front() == *m_spec.bosId;
}

Result<Decoding> HfBpeTokenizer::decodeWithOffsets(std::span<const int32_t> ids) const {
    Decoding out;
    out.offsets.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const int32_t id = ids[i];
        const bool added = id >= 0 && id < m_vocabSize && !m_addedText[id].empty();
        if (id < 0 || id >= m_vocabSize || (!added && m_model->tokenOf(id).empty())) {
            return Error{ErrorKind::Format,
                         fmt::format("token {} has id {}, which is not in the vocabulary (size {})",
                                     i, id, m_vocabSize),
                         {},
                         {}};
        }
        std::string piece;
        if (added) {
            piece = m_addedText[id];
        } else if (const int byte =
                       m_spec.bpe.byteFallback ? byteTokenValue(m_model->tokenOf(id)) : -1;
                   byte >= 0) {
            piece = std::string(1, static_cast<char>(byte));
        } else {
            piece = m_model->tokenOf(id);
            // The normalizer's replacements undone, the metaspace as a space.
            for (auto step = m_spec.normalizer.rbegin(); step != m_spec.normalizer.rend(); ++step) {
                if (!step->prepend) replaceAllIn(piece, step->with, step->text);
            }
            if (m_spec.metaspace) replaceAllIn(piece, m_spec.metaspace->replacement, " ");
            if (i == 0 && prependsSpace() && piece.starts_with(' ')) piece.erase(0, 1);
        }
        const std::size_t start = out.text.size();
        out.text += piece;
        out.offsets.push_back({start, out.text.size()});
    }
    return out;
}

std::string HfBpeTokenizer::tokenText(int32_t id) const {
    if (id < 0 || id >= m_vocabSize) return fmt::format("<invalid id {}>", id);
    if (!m_addedText[id].empty()) return data::escapeInvalidUtf8(m_addedText[id]);
    const std::string& token = m_model->tokenOf(id);
    if (token.empty()) return fmt::format("<invalid id {}>", id);
    return data::escapeInvalidUtf8(token);
}

nlohmann::json HfBpeTokenizer::identity() const {
    nlohmann::json added = nlohmann::json::array();
    for (const AddedToken& token : m_spec.addedTokens)
        added.push_back({{"text", token.content}, {"id", token.id}, {"special", token.special}});
    nlohmann::json out = {
        {"kind", "hf_sentencepiece_bpe"},
        {"vocab_size", m_vocabSize},
        {"merges", m_model->mergeCount()},
        {"byte_fallback", m_spec.bpe.byteFallback},
        {"unk_id", m_spec.bpe.unkId >= 0 ? nlohmann::json(m_spec.bpe.unkId) : nlohmann::json()},
        {"fuse_unk", m_spec.bpe.fuseUnk},
        {"ignore_merges", m_spec.bpe.ignoreMerges},
        {"pipeline", m_spec.description},
        {"prefix_ids", m_spec.prefixIds},
        {"suffix_ids", m_spec.suffixIds},
        {"adds_bos", addsBos()},
        {"added_tokens", added},
        {"invalid_utf8", "an error: Hugging Face tokenizers take Unicode text"},
        {"files", m_spec.files}};
    out["bos_id"] = m_spec.bosId ? nlohmann::json(*m_spec.bosId) : nlohmann::json(nullptr);
    if (!m_spec.selection.empty()) out["selection"] = m_spec.selection;
    return out;
}

}  // namespace gatescope::core
