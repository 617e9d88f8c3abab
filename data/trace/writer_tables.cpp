// TraceWriter: the root-level tables (tokens, per-token results).
#include <fmt/format.h>

#include <algorithm>

#include "data/common/utf8.h"
#include "data/h5/attribute.h"
#include "data/trace/nexus.h"
#include "data/trace/trace_writer.h"
#include "data/trace/writer_state.h"

namespace gatescope::data {
namespace {

Result<h5::Dataset> writeVector(const h5::Object& group, std::string_view name,
                                const h5::Type& type, const void* data, const h5::Dims& dims,
                                Compression compression, int level) {
    h5::Dims chunk = dims;
    chunk[0] = std::min<hsize_t>(dims[0], 65536);
    auto dcpl = h5::PropertyList::chunkedDataset(chunk, compression, level, type, group.where());
    if (!dcpl) return dcpl.error();
    auto dataset = h5::Dataset::create(group, name, type, dims, *dcpl);
    if (!dataset) return dataset;
    auto rc = dataset->write(type, data);
    if (!rc) return rc.error();
    return dataset;
}

/// `bytes` as a uint8 [B] dataset: chunked and compressed, or contiguous when empty.
Result<h5::Dataset> writeBytes(const h5::Object& group, std::string_view name,
                               const std::string& bytes, Compression compression, int level) {
    h5::Type uint8 = h5::Type::nativeUint8();
    if (!bytes.empty())
        return writeVector(group, name, uint8, bytes.data(), {bytes.size()}, compression, level);
    return h5::Dataset::create(group, name, uint8, {0});
}

/// `texts` as a contiguous UTF-8 string [M] dataset, each invalid byte as U+FFFD.
Result<h5::Dataset> writeStrings(const h5::Object& group, std::string_view name,
                                 const std::vector<std::string>& texts) {
    std::vector<std::string> clean;
    std::vector<const char*> pointers;
    clean.reserve(texts.size());
    for (const auto& text : texts)
        clean.push_back(sanitizeUtf8(text));
    for (const auto& text : clean)
        pointers.push_back(text.c_str());
    h5::Type string = h5::Type::utf8String();
    auto dataset = h5::Dataset::create(group, name, string, {texts.size()});
    if (!dataset) return dataset;
    if (auto rc = dataset->write(string, pointers.data()); !rc) return rc.error();
    return dataset;
}

}  // namespace

Status TraceWriter::writeTokens(const TokenTable& tokens) {
    auto lock = h5::lockLibrary();
    if (auto rc = usable(); !rc) return rc;
    if (m_nTokens > 0) return usage("tokens are already written", "/tokens");
    int64_t n = tokens.size();
    if (n < 1) return usage("a trace needs at least one token", "/tokens/ids");
    if (static_cast<int64_t>(tokens.text.size()) != n ||
        static_cast<int64_t>(tokens.byteOffsets.size()) != n)
        return Error{
            ErrorKind::Shape,
            fmt::format("ids, text and byte_offsets must have the same length (got {}, {}, {})", n,
                        tokens.text.size(), tokens.byteOffsets.size()),
            m_tempPath.string(), "/tokens"};
    auto textSize = static_cast<int64_t>(tokens.sourceText.size());
    for (int64_t i = 0; i < n; ++i) {
        auto [start, end] = tokens.byteOffsets[i];
        if (start < 0 || end < start || (textSize > 0 && end > textSize))
            return usage(fmt::format("token {} has byte range [{}, {}) outside the source text "
                                     "({} bytes)",
                                     i, start, end, textSize),
                         schema::kTokenOffsets);
    }
    auto group = h5::Group::create(m_storage->root, "tokens");
    if (!group) return fail(group.error());
    auto n64 = static_cast<hsize_t>(n);
    h5::Type int32 = h5::Type::nativeInt32();
    auto ids = writeVector(*group, "ids", int32, tokens.ids.data(), {n64}, m_options.compression,
                           m_options.compressionLevel);
    if (!ids) return fail(ids.error());
    h5::Type int64 = h5::Type::nativeInt64();
    auto offsets = writeVector(*group, "byte_offsets", int64, tokens.byteOffsets.data(), {n64, 2},
                               m_options.compression, m_options.compressionLevel);
    if (!offsets) return fail(offsets.error());
    auto text = writeStrings(*group, "text", tokens.text);
    if (!text) return fail(text.error());
    h5::Type string = h5::Type::utf8String();
    // The exact bytes (HDF5 strings end at NUL, and h5py decodes them strictly), and the text
    // for viewers, each byte a string cannot hold as U+FFFD.
    auto bytes = writeBytes(*group, "source_bytes", tokens.sourceText, m_options.compression,
                            m_options.compressionLevel);
    if (!bytes) return fail(bytes.error());
    auto source = h5::Dataset::createScalar(*group, "source_text", string);
    if (!source) return fail(source.error());
    const std::string sourceText = sanitizeUtf8(tokens.sourceText);
    const char* sourcePointer = sourceText.c_str();
    auto rc = source->write(string, &sourcePointer);
    if (rc) rc = nexus::markData(*group, "ids", 1);
    if (rc) rc = nexus::describe(*ids, "token id");
    if (rc) rc = nexus::describe(*offsets, "byte range [start, end) in source_text");
    if (rc) rc = nexus::describe(*text, "decoded token text");
    if (rc) rc = nexus::describe(*bytes, "the input text's bytes (UTF-8; byte_offsets index them)");
    if (rc) rc = h5::writeAttribute(m_storage->root, "n_tokens", n);
    if (!rc) return fail(rc.error());
    m_nTokens = n;
    return Ok{};
}

Status TraceWriter::writePerToken(const PerTokenResults& results) {
    auto lock = h5::lockLibrary();
    if (auto rc = usable(); !rc) return rc;
    if (m_nTokens == 0) return usage("write the tokens before per-token results", "/per_token");
    if (m_hasPerToken) return usage("per-token results are already written", "/per_token");
    auto n = static_cast<size_t>(m_nTokens);
    if (results.loss.size() != n || results.targetRank.size() != n || results.entropy.size() != n)
        return Error{
            ErrorKind::Shape,
            fmt::format("loss, target_rank and entropy must have N = {} entries (got {}, "
                        "{}, {})",
                        n, results.loss.size(), results.targetRank.size(), results.entropy.size()),
            m_tempPath.string(), "/per_token"};
    const auto k = static_cast<size_t>(std::max(0, results.topK));
    if (results.topK < 0 || results.topK > schema::kMaxTopPredictions ||
        results.topIds.size() != n * k || results.topLogProbs.size() != n * k ||
        results.vocabIds.size() != results.vocabText.size())
        return Error{ErrorKind::Shape,
                     fmt::format("top predictions must be [N = {}, K = {}] with K in 0..{} (got {} "
                                 "ids, {} log-probabilities) and one text per vocabulary id",
                                 n, results.topK, schema::kMaxTopPredictions, results.topIds.size(),
                                 results.topLogProbs.size()),
                     m_tempPath.string(), "/per_token"};
    auto group = h5::Group::create(m_storage->root, "per_token");
    if (!group) return fail(group.error());
    h5::Dims dims{static_cast<hsize_t>(n)};
    h5::Type f32 = h5::Type::nativeFloat();
    h5::Type i32 = h5::Type::nativeInt32();
    auto loss = writeVector(*group, "loss", f32, results.loss.data(), dims, m_options.compression,
                            m_options.compressionLevel);
    if (!loss) return fail(loss.error());
    auto rank = writeVector(*group, "target_rank", i32, results.targetRank.data(), dims,
                            m_options.compression, m_options.compressionLevel);
    if (!rank) return fail(rank.error());
    auto entropy = writeVector(*group, "entropy", f32, results.entropy.data(), dims,
                               m_options.compression, m_options.compressionLevel);
    if (!entropy) return fail(entropy.error());
    // Entropy shares the loss's axis (nats); the rank does not, so it is no auxiliary signal.
    auto rc = nexus::markData(*group, "loss", 1, {"entropy"});
    if (rc) rc = nexus::describe(*loss, "loss of the next token (nats)");
    if (rc) rc = h5::writeAttribute(*loss, "units", std::string_view("nat"));
    if (rc) rc = nexus::describe(*rank, "rank of the next token (0 = top, -1 = none)");
    if (rc) rc = nexus::describe(*entropy, "entropy of the prediction (nats)");
    if (rc) rc = h5::writeAttribute(*entropy, "units", std::string_view("nat"));
    if (!rc) return fail(rc.error());
    if (k > 0) {
        const h5::Dims top{static_cast<hsize_t>(n), static_cast<hsize_t>(k)};
        auto ids = writeVector(*group, "top_ids", i32, results.topIds.data(), top,
                               m_options.compression, m_options.compressionLevel);
        if (!ids) return fail(ids.error());
        auto logp = writeVector(*group, "top_logprobs", f32, results.topLogProbs.data(), top,
                                m_options.compression, m_options.compressionLevel);
        if (!logp) return fail(logp.error());
        rc = nexus::describe(*ids, "the most likely next tokens, most likely first");
        if (rc) rc = nexus::describe(*logp, "their log-probabilities (nats)");
        if (!rc) return fail(rc.error());
    }
    if (!results.vocabIds.empty()) {
        const h5::Dims m{static_cast<hsize_t>(results.vocabIds.size())};
        auto ids = writeVector(*group, "vocab_ids", i32, results.vocabIds.data(), m,
                               m_options.compression, m_options.compressionLevel);
        if (!ids) return fail(ids.error());
        auto text = writeStrings(*group, "vocab_text", results.vocabText);
        if (!text) return fail(text.error());
        rc = nexus::describe(*ids, "the token ids of top_ids, ascending");
        if (rc) rc = nexus::describe(*text, "their token text");
        if (!rc) return fail(rc.error());
    }
    m_hasPerToken = true;
    return Ok{};
}

}  // namespace gatescope::data
