#include "core/tokenizer/json_gpt2_tokenizer.h"

#include "core/tokenizer/json_escape.h"

namespace gatescope::core {

JsonGpt2Tokenizer::JsonGpt2Tokenizer(std::unique_ptr<Gpt2BpeTokenizer> bpe, bool addBos)
    : m_bpe(std::move(bpe)), m_addBos(addBos) {}

Result<Encoding> JsonGpt2Tokenizer::encode(std::string_view text) const {
    Result<RewrittenText> escaped = jsonEscapeAscii(text);
    if (!escaped) return escaped.error();
    // The escaped text is pure ASCII; the inner tokenizer adds neither BOS nor a prefix space
    // unless configured, and we strip any BOS it adds so ours is the only one.
    Result<Encoding> inner = m_bpe->encode(escaped->text);
    if (!inner) return inner.error();
    const std::size_t skip = m_bpe->addsBos() ? 1 : 0;
    Encoding out;
    out.ids.reserve(inner->ids.size() + 1);
    out.offsets.reserve(inner->ids.size() + 1);
    if (addsBos()) {
        out.ids.push_back(*bosId());
        out.offsets.push_back({0, 0});
    }
    for (std::size_t i = skip; i < inner->ids.size(); ++i) {
        out.ids.push_back(inner->ids[i]);
        out.offsets.push_back(escaped->map.toPlain(inner->offsets[i]));
    }
    return out;
}

Result<Decoding> JsonGpt2Tokenizer::decodeWithOffsets(std::span<const int32_t> ids) const {
    Result<Decoding> inner = m_bpe->decodeWithOffsets(ids);
    if (!inner) return inner.error();
    RewrittenText plain = jsonUnescape(inner->text);
    Decoding out;
    out.text = std::move(plain.text);
    out.offsets.reserve(inner->offsets.size());
    for (const ByteSpan& span : inner->offsets)
        out.offsets.push_back(plain.map.toPlain(span));
    return out;
}

nlohmann::json JsonGpt2Tokenizer::identity() const {
    nlohmann::json out = m_bpe->identity();
    out["kind"] = "json_gpt2_bpe";
    out["adds_bos"] = addsBos();
    out["add_prefix_space"] = false;
    out["text_convention"] = "json.dumps(text, ensure_ascii=True)[1:-1] before BPE (LongCrawl64)";
    return out;
}

}  // namespace gatescope::core
