#include "core/tokenizer/gpt2_bpe_tokenizer.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/gpt2_pretokenizer.h"
#include "data/common/utf8.h"

namespace gatescope::core {
namespace {
constexpr const char* kEndOfText = "<|endoftext|>";
}  // namespace

Result<std::unique_ptr<Gpt2BpeTokenizer>> Gpt2BpeTokenizer::fromData(Vocab vocab,
                                                                     const Merges& merges,
                                                                     Options options,
                                                                     nlohmann::json files) {
    Result<std::unique_ptr<BpeModel>> model = BpeModel::create(std::move(vocab), merges);
    if (!model) return model.error();
    std::unique_ptr<Gpt2BpeTokenizer> tok(new Gpt2BpeTokenizer());
    tok->m_model = std::move(model).value();
    tok->m_files = std::move(files);
    tok->m_vocabSize = tok->m_model->idLimit();

    std::vector<std::string> specials = options.specialTokens;
    specials.push_back(kEndOfText);
    for (const std::string& text : specials) {
        const int32_t id = tok->m_model->idOf(text);
        const bool seen = std::any_of(tok->m_specials.begin(), tok->m_specials.end(),
                                      [&](const auto& s) { return s.first == text; });
        if (id >= 0 && !text.empty() && !seen) tok->m_specials.emplace_back(text, id);
    }
    // Longest first, so that a special token that is a prefix of another never wins.
    std::sort(tok->m_specials.begin(), tok->m_specials.end(),
              [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });

    tok->m_bytes.resize(static_cast<std::size_t>(tok->m_vocabSize));
    for (int32_t id = 0; id < tok->m_vocabSize; ++id) {
        const std::string& token = tok->m_model->tokenOf(id);
        const bool special = std::any_of(tok->m_specials.begin(), tok->m_specials.end(),
                                         [&](const auto& s) { return s.second == id; });
        std::string bytes;
        if (special || !decodeByteLevel(token, bytes)) bytes = token;  // added tokens: as written
        tok->m_bytes[id] = std::move(bytes);
    }

    const std::string bosText = options.bosToken.value_or(kEndOfText);
    const int32_t bos = tok->m_model->idOf(bosText);
    if (bos >= 0) {
        tok->m_bos = bos;
    } else if (options.bosToken || options.addBos) {
        return Error{ErrorKind::Missing,
                     fmt::format("BOS token \"{}\" is not in the vocabulary", bosText),
                     {},
                     bosText};
    }
    tok->m_options = std::move(options);
    return tok;
}

const std::string& Gpt2BpeTokenizer::bytesOf(int32_t id) const {
    static const std::string kEmpty;
    return (id >= 0 && id < m_vocabSize) ? m_bytes[id] : kEmpty;
}

Status Gpt2BpeTokenizer::encodeOrdinary(std::string_view text, std::size_t base,
                                        Encoding& out) const {
    std::string word;
    for (const ByteSpan& piece : gpt2PreTokenize(text)) {
        word.clear();
        appendByteLevel(word, text.substr(piece.start, piece.end - piece.start));
        const std::size_t first = out.ids.size();
        Status status = m_model->encodeWord(word, out.ids);
        if (!status) return status;
        // Byte-level tokens spell one byte per character, so lengths give the offsets.
        std::size_t pos = base + piece.start;
        for (std::size_t i = first; i < out.ids.size(); ++i) {
            const std::size_t length = m_bytes[out.ids[i]].size();
            out.offsets.push_back({pos, pos + length});
            pos += length;
        }
    }
    return Ok{};
}

Result<Encoding> Gpt2BpeTokenizer::encode(std::string_view text) const {
    if (std::optional<std::size_t> bad = data::firstInvalidUtf8(text)) {
        return Error{ErrorKind::Format,
                     fmt::format("text is not valid UTF-8 at byte offset {}", *bad),
                     {},
                     {}};
    }
    Encoding out;
    if (addsBos()) {
        out.ids.push_back(*m_bos);
        out.offsets.push_back({0, 0});
    }
    std::string prefixed;
    std::string_view input = text;
    std::size_t shift = 0;  // bytes of `input` that are not in `text`
    if (m_options.addPrefixSpace) {
        prefixed = " " + std::string(text);
        input = prefixed;
        shift = 1;
    }
    const std::size_t firstToken = out.ids.size();
    std::size_t segmentStart = 0;
    std::size_t pos = 0;
    while (pos <= input.size()) {
        const std::pair<std::string, int32_t>* match = nullptr;
        if (pos < input.size()) {
            for (const auto& special : m_specials) {
                if (input.compare(pos, special.first.size(), special.first) == 0) {
                    match = &special;
                    break;
                }
            }
        }
        if (match == nullptr && pos < input.size()) {
            ++pos;
            continue;
        }
        Status status =
            encodeOrdinary(input.substr(segmentStart, pos - segmentStart), segmentStart, out);
        if (!status) return status.error();
        if (match == nullptr) break;
        out.ids.push_back(match->second);
        out.offsets.push_back({pos, pos + match->first.size()});
        pos += match->first.size();
        segmentStart = pos;
    }
    if (shift > 0) {
        for (std::size_t i = firstToken; i < out.offsets.size(); ++i) {
            out.offsets[i].start = out.offsets[i].start > 0 ? out.offsets[i].start - 1 : 0;
            out.offsets[i].end = out.offsets[i].end > 0 ? out.offsets[i].end - 1 : 0;
        }
    }
    return out;
}

Result<Decoding> Gpt2BpeTokenizer::decodeWithOffsets(std::span<const int32_t> ids) const {
    Decoding out;
    out.offsets.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const int32_t id = ids[i];
        if (id < 0 || id >= m_vocabSize || (m_bytes[id].empty() && m_model->tokenOf(id).empty())) {
            return Error{ErrorKind::Format,
                         fmt::format("token {} has id {}, which is not in the vocabulary (size {})",
                                     i, id, m_vocabSize),
                         {},
                         {}};
        }
        const std::size_t start = out.text.size();
        out.text += m_bytes[id];
        out.offsets.push_back({start, out.text.size()});
    }
    return out;
}

std::string Gpt2BpeTokenizer::tokenText(int32_t id) const {
    if (id < 0 || id >= m_vocabSize || m_model->tokenOf(id).empty()) {
        return fmt::format("<invalid id {}>", id);
    }
    return data::escapeInvalidUtf8(m_bytes[id]);
}

nlohmann::json Gpt2BpeTokenizer::identity() const {
    nlohmann::json specials = nlohmann::json::array();
    for (const auto& [text, id] : m_specials)
        specials.push_back({{"text", text}, {"id", id}});
    nlohmann::json out = {{"kind", "gpt2_bpe"},
                          {"vocab_size", m_vocabSize},
                          {"merges", m_model->mergeCount()},
                          {"adds_bos", addsBos()},
                          {"add_prefix_space", m_options.addPrefixSpace},
                          {"special_tokens", specials},
                          {"files", m_files}};
    out["bos_id"] = m_bos ? nlohmann::json(*m_bos) : nlohmann::json(nullptr);
    return out;
}

}  // namespace gatescope::core
