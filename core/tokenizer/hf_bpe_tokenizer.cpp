#include "core/tokenizer/hf_bpe_tokenizer.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "core/tokenizer/aligned_text.h"
#include "data/common/utf8.h"

namespace gatescope::core {

Result<std::unique_ptr<HfBpeTokenizer>> HfBpeTokenizer::create(HfBpeSpec spec) {
    std::unique_ptr<HfBpeTokenizer> tok(new HfBpeTokenizer());
    // An added token already in the vocabulary keeps the vocabulary's id, as the tokenizers
    // library does (it warns when tokenizer.json says otherwise).
    std::unordered_map<std::string, int32_t> contents;
    std::unordered_set<int32_t> ids;
    for (const auto& [token, id] : spec.vocab) {
        contents.emplace(token, id);
        ids.insert(id);
    }
    for (AddedToken& added : spec.addedTokens) {
        if (added.id < 0) {
            return Error{ErrorKind::Format, "an added token has a negative id", {}, added.content};
        }
        if (auto it = contents.find(added.content); it != contents.end()) {
            added.id = it->second;
        } else if (!ids.contains(added.id)) {
            spec.vocab.emplace_back(added.content, added.id);
        }
    }
    // As in the tokenizers library, an unk_token that is not in the vocabulary only matters when
    // a character has no token: then it is an error.
    BpeModel::Options options = spec.bpe;
    options.unkId = -1;
    for (const auto& [token, id] : spec.vocab) {
        if (spec.unkToken && token == *spec.unkToken) options.unkId = id;
    }
    auto model = BpeModel::create(std::move(spec.vocab), spec.merges, options);
    if (!model) return model.error();
    tok->m_model = std::move(model).value();
    tok->m_spec = std::move(spec);
    tok->m_spec.bpe = options;
    tok->m_spec.vocab.clear();  // held by the model
    tok->m_spec.merges.clear();

    int32_t limit = tok->m_model->idLimit();
    for (const AddedToken& added : tok->m_spec.addedTokens)
        limit = std::max(limit, added.id + 1);
    tok->m_vocabSize = limit;
    tok->m_addedText.resize(static_cast<std::size_t>(limit));
    std::vector<AddedToken> raw, normalized;
    std::vector<std::string> rawPatterns, normalizedPatterns;
    for (const AddedToken& added : tok->m_spec.addedTokens) {
        tok->m_addedText[added.id] = added.content;
        if (added.normalized && !tok->m_spec.normalizer.empty()) {
            normalized.push_back(added);
            normalizedPatterns.push_back(tok->normalize(added.content, 0).text());
        } else {
            raw.push_back(added);
            rawPatterns.push_back(added.content);
        }
    }
    tok->m_raw = AddedTokenMatcher(std::move(raw), std::move(rawPatterns));
    tok->m_normalized = AddedTokenMatcher(std::move(normalized), std::move(normalizedPatterns));
    return tok;
}

AlignedText HfBpeTokenizer::normalize(std::string_view text, std::size_t base) const {
    AlignedText out(text, base);
    for (const HfBpeSpec::Step& step : m_spec.normalizer) {
        if (step.prepend) {
            out.prepend(step.text);
        } else {
            out.replaceAll(step.text, step.with);
        }
    }
    return out;
}

Result<Encoding> HfBpeTokenizer::encode(std::string_view text) const {
    if (std::optional<std::size_t> bad = data::firstInvalidUtf8(text)) {
        return Error{ErrorKind::Format,
                     fmt::format("text is not valid UTF-8 at byte offset {}", *bad),
                     {},
                     {}};
    }
    if (text.size() >= std::numeric_limits<uint32_t>::max() / 4) {
        return Error{ErrorKind::Unsupported, "text of 1 GiB or more", {}, {}};
    }
    Encoding out;
    for (int32_t id : m_spec.prefixIds) {
        out.ids.push_back(id);
        out.offsets.push_back({0, 0});
    }
    for (const TextPiece& piece : m_raw.split(text)) {
        if (piece.tokenIndex >= 0) {
            out.ids.push_back(m_raw.token(piece.tokenIndex).id);
            out.offsets.push_back({piece.start, piece.end});
            continue;
        }
        Status status =
            encodePiece(text.substr(piece.start, piece.end - piece.start), piece.start, out);
        if (!status) return status.error();
    }
    for (int32_t id : m_spec.suffixIds) {
        out.ids.push_back(id);
        out.offsets.push_back({0, 0});
    }
    return out;
}

Status HfBpeTokenizer::encodePiece(std::string_view text, std::size_t base, Encoding& out) const {
    const AlignedText normalized = normalize(text, base);
    for (const TextPiece& piece : m_normalized.split(normalized.text())) {
        if (piece.tokenIndex >= 0) {
            out.ids.push_back(m_normalized.token(piece.tokenIndex).id);
            out.offsets.push_back(normalized.origin(piece.start, piece.end));
            continue;
        }
        Status status = encodeWords(normalized.slice(piece.start, piece.end), out);
        if (!status) return status;
    }
    return Ok{};
}

Status HfBpeTokenizer::encodeWords(const AlignedText& input, Encoding& out) const {
    AlignedText text = input;
    if (const auto& meta = m_spec.metaspace) {
        text.replaceAll(" ", meta->replacement);
        const bool startsWithReplacement = text.text().starts_with(meta->replacement);
        using Scheme = HfBpeSpec::PrependScheme;
        if (!text.empty() && !startsWithReplacement &&
            (meta->prependScheme == Scheme::Always ||
             (meta->prependScheme == Scheme::First && text.originStart(0) == 0))) {
            text.prepend(meta->replacement);
        }
    }
    const std::string& s = text.text();
    std::vector<std::size_t> cuts = {0};  // word starts
    if (m_spec.metaspace && m_spec.metaspace->split) {
        const std::string& r = m_spec.metaspace->replacement;
        for (std::size_t at = s.find(r, 1); at != std::string::npos; at = s.find(r, at + 1))
            cuts.push_back(at);
    }
    cuts.push_back(s.size());
    std::vector<uint32_t> lengths;
    for (std::size_t w = 0; w + 1 < cuts.size(); ++w) {
        if (cuts[w] == cuts[w + 1]) continue;
        lengths.clear();
        const std::size_t first = out.ids.size();
        Status status = m_model->encodeWord(
            std::string_view(s).substr(cuts[w], cuts[w + 1] - cuts[w]), out.ids, &lengths);
        if (!status) return status;
        std::size_t pos = cuts[w];
        for (std::size_t i = first; i < out.ids.size(); ++i) {
            out.offsets.push_back(text.origin(pos, pos + lengths[i - first]));
            pos += lengths[i - first];
        }
    }
    return Ok{};
}

}  // namespace gatescope::core
