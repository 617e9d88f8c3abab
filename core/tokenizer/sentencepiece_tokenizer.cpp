#include "core/tokenizer/sentencepiece_tokenizer.h"

#include <cctype>

#include <fmt/format.h>

#include "core/checkpoint/checkpoint.h"
#include "core/tokenizer/sentencepiece_module.h"
#include "core/tokenizer/text_file.h"
#include "data/common/utf8.h"

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

bool sentencePieceAvailable() {
    return sentencePieceModuleBuilt();
}

struct SentencePieceTokenizer::Impl {
    const GatescopeSpmApi* api = nullptr;
    void* model = nullptr;  ///< the module's; released with it
    Options options;
    std::string sha256;
    std::string fileName;

    Impl(const GatescopeSpmApi* api_, void* model_) : api(api_), model(model_) {}
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() { api->release(model); }

    int32_t special(GatescopeSpmSpecial which) const { return api->specialId(model, which); }
};

namespace {

// What the module's callbacks fill in. They run inside the module's calls and must not throw:
// an allocation failure is noted and reported after the call.
struct Collected {
    std::vector<int32_t> ids;
    std::vector<ByteSpan> spans;
    std::string text;
    std::string error;
    bool outOfMemory = false;

    static void piece(void* self, int32_t id, uint32_t begin, uint32_t end) {
        auto& c = *static_cast<Collected*>(self);
        try {
            c.ids.push_back(id);
            c.spans.push_back({begin, end});
        } catch (...) {
            c.outOfMemory = true;
        }
    }
    static void appendTo(std::string& out, bool& outOfMemory, const char* data, size_t size) {
        try {
            out.append(data, size);
        } catch (...) {
            outOfMemory = true;
        }
    }
    static void textOut(void* self, const char* data, size_t size) {
        auto& c = *static_cast<Collected*>(self);
        appendTo(c.text, c.outOfMemory, data, size);
    }
    static void errorOut(void* self, const char* data, size_t size) {
        auto& c = *static_cast<Collected*>(self);
        appendTo(c.error, c.outOfMemory, data, size);
    }

    /// Ok, or the error the call reported (Format), or an allocation failure (Internal).
    Status status(bool succeeded, const fs::path& file = {}) const {
        if (outOfMemory) {
            return Error{ErrorKind::Internal,
                         "out of memory collecting SentencePiece's output",
                         file.string(),
                         {}};
        }
        if (!succeeded) return Error{ErrorKind::Format, error, file.string(), {}};
        return Ok{};
    }
};

// A character that became byte pieces ("<0xE2>" "<0x82>" "<0xAC>"): SentencePiece gives the last
// piece the character's span and the others empty spans. Give each piece its own byte when the
// counts match (the text was not rewritten), else every piece the whole character.
void spreadBytePieces(const GatescopeSpmApi& api, const void* model,
                      const std::vector<int32_t>& ids, std::vector<ByteSpan>& spans) {
    std::size_t runStart = 0;  // first piece of the current run of empty byte pieces
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const bool byte = api.isByte(model, ids[i]) != 0;
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
    Result<std::string> bytes = readWholeFile(file, data::input_limits::kTokenizerFile);
    if (!bytes) return bytes.error();
    if (looksLikeTiktoken(*bytes)) {
        return Error{ErrorKind::Unsupported,
                     "a tiktoken BPE ranks file (as Llama 3 ships), not a SentencePiece "
                     "model; gatescope does not read it",
                     file.string(),
                     {}};
    }
    Result<const GatescopeSpmApi*> api = sentencePieceModule();
    if (!api) {
        Error error = api.error();
        error.message = "a SentencePiece model, which gatescope cannot read here: " + error.message;
        error.file = file.string();
        return error;
    }
    Collected loaded;
    void* model = (*api)->load(bytes->data(), bytes->size(), Collected::errorOut, &loaded);
    if (model == nullptr) {
        loaded.error = "not a SentencePiece model: " + loaded.error;
        return loaded.status(false, file).error();
    }
    auto impl = std::make_unique<Impl>(*api, model);
    const int32_t bos = impl->special(kGatescopeSpmBos);
    const int32_t eos = impl->special(kGatescopeSpmEos);
    if (!options.addBos) options.addBos = bos >= 0;
    if ((*options.addBos && bos < 0) || (options.addEos && eos < 0)) {
        return Error{ErrorKind::Missing,
                     fmt::format("the model has no {} token, yet the tokenizer is to add it",
                                 *options.addBos && bos < 0 ? "BOS" : "EOS"),
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
    const Impl& sp = *m_impl;
    Collected pieces;
    const bool ok = sp.api->encode(sp.model, text.data(), text.size(), Collected::piece,
                                   Collected::errorOut, &pieces) != 0;
    if (auto st = pieces.status(ok); !st) return st.error();
    spreadBytePieces(*sp.api, sp.model, pieces.ids, pieces.spans);
    Encoding out;
    out.ids.reserve(pieces.ids.size() + 2);
    out.offsets.reserve(pieces.ids.size() + 2);
    if (addsBos()) {
        out.ids.push_back(sp.special(kGatescopeSpmBos));
        out.offsets.push_back({0, 0});
    }
    out.ids.insert(out.ids.end(), pieces.ids.begin(), pieces.ids.end());
    out.offsets.insert(out.offsets.end(), pieces.spans.begin(), pieces.spans.end());
    if (sp.options.addEos) {
        out.ids.push_back(sp.special(kGatescopeSpmEos));
        out.offsets.push_back({0, 0});
    }
    return out;
}

Result<Decoding> SentencePieceTokenizer::decodeWithOffsets(std::span<const int32_t> ids) const {
    const Impl& sp = *m_impl;
    const int32_t size = vocabSize();
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= size) {
            return Error{ErrorKind::Format,
                         fmt::format("token {} has id {}, which is not in the vocabulary (size {})",
                                     i, ids[i], size),
                         {},
                         {}};
        }
    }
    Collected decoded;
    const bool ok = sp.api->decode(sp.model, ids.data(), ids.size(), Collected::textOut,
                                   Collected::piece, Collected::errorOut, &decoded) != 0;
    if (auto st = decoded.status(ok); !st) return st.error();
    Decoding out;
    out.text = std::move(decoded.text);
    out.offsets.resize(ids.size());
    for (std::size_t i = 0; i < ids.size() && i < decoded.spans.size(); ++i)
        out.offsets[i] = decoded.spans[i];
    spreadBytePieces(*sp.api, sp.model, std::vector<int32_t>(ids.begin(), ids.end()), out.offsets);
    return out;
}

std::string SentencePieceTokenizer::tokenText(int32_t id) const {
    if (id < 0 || id >= vocabSize()) return fmt::format("<invalid id {}>", id);
    Collected piece;
    m_impl->api->idToPiece(m_impl->model, id, Collected::textOut, &piece);
    return data::escapeInvalidUtf8(piece.text);
}

int32_t SentencePieceTokenizer::vocabSize() const {
    return m_impl->api->pieceSize(m_impl->model);
}

std::optional<int32_t> SentencePieceTokenizer::bosId() const {
    const int32_t bos = m_impl->special(kGatescopeSpmBos);
    return bos >= 0 ? std::optional<int32_t>(bos) : std::nullopt;
}

bool SentencePieceTokenizer::addsBos() const {
    return m_impl->options.addBos.value_or(false);
}

nlohmann::json SentencePieceTokenizer::identity() const {
    const Impl& sp = *m_impl;
    bool byteFallback = false;
    for (int32_t id = 0; id < vocabSize() && !byteFallback; ++id)
        byteFallback = sp.api->isByte(sp.model, id) != 0;
    auto optionalId = [](int id) { return id >= 0 ? nlohmann::json(id) : nlohmann::json(nullptr); };
    nlohmann::json out = {
        {"kind", "sentencepiece"},
        {"library", fmt::format("SentencePiece {}", sp.api->libraryVersion)},
        {"vocab_size", vocabSize()},
        {"bos_id", optionalId(sp.special(kGatescopeSpmBos))},
        {"eos_id", optionalId(sp.special(kGatescopeSpmEos))},
        {"unk_id", optionalId(sp.special(kGatescopeSpmUnk))},
        {"adds_bos", addsBos()},
        {"adds_eos", sp.options.addEos},
        {"byte_fallback", byteFallback},
        {"invalid_utf8", "each invalid byte is read as U+FFFD, as SentencePiece does"},
        {"files", {{sp.fileName, sp.sha256}}}};
    if (!sp.options.selection.empty()) out["selection"] = sp.options.selection;
    return out;
}

SentencePieceTokenizer::SentencePieceTokenizer(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl)) {}
SentencePieceTokenizer::~SentencePieceTokenizer() = default;

}  // namespace gatescope::core
