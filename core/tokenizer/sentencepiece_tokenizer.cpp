#include "core/tokenizer/sentencepiece_tokenizer.h"

#include <cctype>

#include <fmt/format.h>

#if GATESCOPE_HAS_SENTENCEPIECE
#include <sentencepiece_processor.h>
#endif

#include "core/checkpoint/checkpoint.h"
#include "core/tokenizer/text_file.h"
#include "core/tokenizer/utf8.h"

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;

// Llama 3 ships "tokenizer.model" as tiktoken BPE ranks: lines "<base64 token> <rank>".
bool looksLikeTiktoken(const std::string& bytes) {
    const std::size_t lineEnd = bytes.find('\n');
    const std::string_view line(bytes.data(), lineEnd == std::string::npos ? 0 : lineEnd);
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 == line.size()) return false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        const bool base64 =
            std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '=';
        if (i < space ? !base64 : (i > space && !std::isdigit(static_cast<unsigned char>(c))))
            return false;
    }
    return true;
}

}  // namespace

#if GATESCOPE_HAS_SENTENCEPIECE

bool sentencePieceAvailable() {
    return true;
}

struct SentencePieceTokenizer::Impl {
    sentencepiece::SentencePieceProcessor processor;
    Options options;
    std::string sha256;
    std::string fileName;
};

namespace {

// A character that became byte pieces ("<0xE2>" "<0x82>" "<0xAC>"): SentencePiece gives the last
// piece the character's span and the others empty spans. Give each piece its own byte when the
// counts match (the text was not rewritten), else every piece the whole character.
void spreadBytePieces(const sentencepiece::SentencePieceProcessor& sp,
                      const std::vector<int32_t>& ids, std::vector<ByteSpan>& spans) {
    std::size_t runStart = 0;  // first piece of the current run of empty byte pieces
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const bool byte = sp.IsByte(ids[i]);
        if (!byte) {
            runStart = i + 1;
            continue;
        }
        if (spans[i].end == spans[i].start) continue;
        const ByteSpan whole = spans[i];
        const std::size_t count = i - runStart + 1;
        for (std::size_t k = runStart; k <= i; ++k) {
            spans[k] = count == whole.end - whole.start ? ByteSpan{whole.start + (k - runStart),
                                                                   whole.start + (k - runStart) + 1}
                                                        : whole;
        }
        runStart = i + 1;
    }
}

}  // namespace

Result<std::unique_ptr<SentencePieceTokenizer>> SentencePieceTokenizer::fromFile(
    const fs::path& file, Options options) {
    Result<std::string> bytes = readWholeFile(file);
    if (!bytes) return bytes.error();
    auto impl = std::make_unique<Impl>();
    const auto status = impl->processor.LoadFromSerializedProto(*bytes);
    if (!status.ok()) {
        if (looksLikeTiktoken(*bytes)) {
            return Error{ErrorKind::Unsupported,
                         "a tiktoken BPE ranks file (as Llama 3 ships), not a SentencePiece "
                         "model; gatescope does not read it",
                         file.string(),
                         {}};
        }
        return Error{ErrorKind::Format,
                     fmt::format("not a SentencePiece model: {}", status.ToString()),
                     file.string(),
                     {}};
    }
    const auto& sp = impl->processor;
    if (!options.addBos) options.addBos = sp.bos_id() >= 0;
    if ((*options.addBos && sp.bos_id() < 0) || (options.addEos && sp.eos_id() < 0)) {
        return Error{ErrorKind::Missing,
                     fmt::format("the model has no {} token, yet the tokenizer is to add it",
                                 *options.addBos && sp.bos_id() < 0 ? "BOS" : "EOS"),
                     file.string(),
                     {}};
    }
    Result<std::string> digest = sha256File(file);
    if (!digest) return digest.error();
    impl->sha256 = std::move(digest).value();
    impl->fileName = file.filename().string();
    impl->options = std::move(options);
    return std::unique_ptr<SentencePieceTokenizer>(new SentencePieceTokenizer(std::move(impl)));
}

Result<Encoding> SentencePieceTokenizer::encode(std::string_view text) const {
    const auto& sp = m_impl->processor;
    sentencepiece::ImmutableSentencePieceText spt;
    const auto status = sp.Encode(text, spt.mutable_proto());
    if (!status.ok()) {
        return Error{ErrorKind::Format, "SentencePiece: " + status.ToString(), {}, {}};
    }
    Encoding out;
    const std::size_t count = spt.pieces_size();
    out.ids.reserve(count + 2);
    out.offsets.reserve(count + 2);
    if (addsBos()) {
        out.ids.push_back(sp.bos_id());
        out.offsets.push_back({0, 0});
    }
    std::vector<int32_t> ids(count);
    std::vector<ByteSpan> spans(count);
    for (std::size_t i = 0; i < count; ++i) {
        const auto piece = spt.pieces(static_cast<int>(i));
        ids[i] = static_cast<int32_t>(piece.id());
        spans[i] = {piece.begin(), piece.end()};
    }
    spreadBytePieces(sp, ids, spans);
    out.ids.insert(out.ids.end(), ids.begin(), ids.end());
    out.offsets.insert(out.offsets.end(), spans.begin(), spans.end());
    if (m_impl->options.addEos) {
        out.ids.push_back(sp.eos_id());
        out.offsets.push_back({0, 0});
    }
    return out;
}

Result<Decoding> SentencePieceTokenizer::decodeWithOffsets(std::span<const int32_t> ids) const {
    const auto& sp = m_impl->processor;
    const int32_t size = sp.GetPieceSize();
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= size) {
            return Error{ErrorKind::Format,
                         fmt::format("token {} has id {}, which is not in the vocabulary (size {})",
                                     i, ids[i], size),
                         {},
                         {}};
        }
    }
    sentencepiece::ImmutableSentencePieceText spt;
    const auto status = sp.Decode(std::vector<int>(ids.begin(), ids.end()), spt.mutable_proto());
    if (!status.ok()) {
        return Error{ErrorKind::Format, "SentencePiece: " + status.ToString(), {}, {}};
    }
    Decoding out;
    out.text = spt.text();
    std::vector<int32_t> pieceIds(ids.begin(), ids.end());
    out.offsets.resize(ids.size());
    for (std::size_t i = 0; i < ids.size() && i < spt.pieces_size(); ++i) {
        const auto piece = spt.pieces(static_cast<int>(i));
        out.offsets[i] = {piece.begin(), piece.end()};
    }
    spreadBytePieces(sp, pieceIds, out.offsets);
    return out;
}

std::string SentencePieceTokenizer::tokenText(int32_t id) const {
    if (id < 0 || id >= vocabSize()) return fmt::format("<invalid id {}>", id);
    return escapeInvalidUtf8(m_impl->processor.IdToPiece(id));
}

int32_t SentencePieceTokenizer::vocabSize() const {
    return m_impl->processor.GetPieceSize();
}

std::optional<int32_t> SentencePieceTokenizer::bosId() const {
    const int bos = m_impl->processor.bos_id();
    return bos >= 0 ? std::optional<int32_t>(bos) : std::nullopt;
}

bool SentencePieceTokenizer::addsBos() const {
    return m_impl->options.addBos.value_or(false);
}

nlohmann::json SentencePieceTokenizer::identity() const {
    const auto& sp = m_impl->processor;
    bool byteFallback = false;
    for (int id = 0; id < sp.GetPieceSize() && !byteFallback; ++id)
        byteFallback = sp.IsByte(id);
    auto optionalId = [](int id) { return id >= 0 ? nlohmann::json(id) : nlohmann::json(nullptr); };
    nlohmann::json out = {
        {"kind", "sentencepiece"},
        {"vocab_size", vocabSize()},
        {"bos_id", optionalId(sp.bos_id())},
        {"eos_id", optionalId(sp.eos_id())},
        {"unk_id", optionalId(sp.unk_id())},
        {"adds_bos", addsBos()},
        {"adds_eos", m_impl->options.addEos},
        {"byte_fallback", byteFallback},
        {"invalid_utf8", "each invalid byte is read as U+FFFD, as SentencePiece does"},
        {"files", {{m_impl->fileName, m_impl->sha256}}}};
    if (!m_impl->options.selection.empty()) out["selection"] = m_impl->options.selection;
    return out;
}

#else  // built without SentencePiece: fromFile explains; no instance is ever made

bool sentencePieceAvailable() {
    return false;
}

struct SentencePieceTokenizer::Impl {};

Result<std::unique_ptr<SentencePieceTokenizer>> SentencePieceTokenizer::fromFile(
    const fs::path& file, Options) {
    Result<std::string> bytes = readWholeFile(file);
    if (bytes && looksLikeTiktoken(*bytes)) {
        return Error{ErrorKind::Unsupported,
                     "a tiktoken BPE ranks file (as Llama 3 ships), not a SentencePiece model; "
                     "gatescope does not read it",
                     file.string(),
                     {}};
    }
    return Error{ErrorKind::Unsupported,
                 "a SentencePiece model, and this build of gatescope has no SentencePiece library "
                 "(install libsentencepiece-dev and build again)",
                 file.string(),
                 {}};
}
Result<Encoding> SentencePieceTokenizer::encode(std::string_view) const {
    return Error{ErrorKind::Internal, "no SentencePiece", {}, {}};
}
Result<Decoding> SentencePieceTokenizer::decodeWithOffsets(std::span<const int32_t>) const {
    return Error{ErrorKind::Internal, "no SentencePiece", {}, {}};
}
std::string SentencePieceTokenizer::tokenText(int32_t id) const {
    return std::to_string(id);
}
int32_t SentencePieceTokenizer::vocabSize() const {
    return 0;
}
std::optional<int32_t> SentencePieceTokenizer::bosId() const {
    return std::nullopt;
}
bool SentencePieceTokenizer::addsBos() const {
    return false;
}
nlohmann::json SentencePieceTokenizer::identity() const {
    return {{"kind", "sentencepiece"}};
}

#endif

SentencePieceTokenizer::SentencePieceTokenizer(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl)) {}
SentencePieceTokenizer::~SentencePieceTokenizer() = default;

}  // namespace gatescope::core
