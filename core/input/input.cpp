#include "core/input/input.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/checkpoint/checkpoint.h"
#include "core/input/id_sources.h"
#include "core/tokenizer/text_file.h"
#include "core/trace/memory_budget.h"
#include "data/common/input_file.h"
#include "data/common/utf8.h"

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;

Error withFile(Error error, const fs::path& path) {
    if (error.file.empty()) error.file = path.string();
    return error;
}

// Tokenizes a text file: the full encoding, offsets into the file's bytes.
Result<Encoding> tokenizeText(const std::string& text, const fs::path& path,
                              const Tokenizer* tokenizer) {
    if (tokenizer == nullptr) {
        return Error{ErrorKind::Usage,
                     "a text input needs a tokenizer (the checkpoint has none): pass token ids "
                     "(.ids, .npy or .safetensors) instead",
                     path.string(),
                     {}};
    }
    std::optional<std::size_t> bad;
    if (!tokenizer->acceptsInvalidUtf8()) bad = data::firstInvalidUtf8(text);
    if (bad) {
        return Error{ErrorKind::Format,
                     fmt::format("not valid UTF-8: first invalid byte 0x{:02X} at byte offset {}",
                                 static_cast<uint8_t>(text[*bad]), *bad),
                     path.string(),
                     {}};
    }
    Result<Encoding> encoding = tokenizer->encode(text);
    if (!encoding) return withFile(encoding.error(), path);
    return encoding;
}

// Every invalid byte of `text` as U+FFFD, which is what a tokenizer that takes such text read it
// as (SentencePiece); `spans` move with the text. Traces hold valid UTF-8 only.
void replaceInvalidUtf8(std::string& text, std::vector<ByteSpan>& spans) {
    if (!data::firstInvalidUtf8(text)) return;
    std::string out;
    out.reserve(text.size() + 64);
    std::vector<std::size_t> moved(text.size() + 1);  // old offset -> new offset
    std::size_t pos = 0;
    char32_t cp = 0;
    while (pos < text.size()) {
        const std::size_t length = data::utf8SequenceAt(text, pos, cp);
        moved[pos] = out.size();
        if (length == 0) {
            out += "\xEF\xBF\xBD";
            ++pos;
            continue;
        }
        for (std::size_t k = 1; k < length; ++k)
            moved[pos + k] = out.size() + k;
        out.append(text, pos, length);
        pos += length;
    }
    moved[text.size()] = out.size();
    for (ByteSpan& span : spans) {
        if (span.end > span.start) span = {moved[span.start], moved[span.end]};
    }
    text = std::move(out);
}

Status checkIds(const std::vector<int64_t>& ids, const fs::path& path, const Tokenizer* tokenizer) {
    const int64_t limit =
        tokenizer != nullptr ? tokenizer->vocabSize() : std::numeric_limits<int32_t>::max();
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= limit) {
            return Error{ErrorKind::Format,
                         tokenizer != nullptr
                             ? fmt::format("token {} has id {}, outside the tokenizer's vocabulary "
                                           "(0..{})",
                                           i, ids[i], limit - 1)
                             : fmt::format("token {} has id {}, not a valid token id", i, ids[i]),
                         path.string(),
                         {}};
        }
    }
    return Ok{};
}

}  // namespace

InputKind resolveInputKind(const InputSpec& spec) {
    if (spec.kind != InputKind::Auto) return spec.kind;
    const std::string ext = spec.path.extension().string();
    if (ext == ".npy") return InputKind::Npy;
    if (ext == ".safetensors") return InputKind::Safetensors;
    if (ext == ".ids") return InputKind::Ids;
    return InputKind::Text;
}

const char* toString(InputKind kind) {
    switch (kind) {
        case InputKind::Auto:
            return "auto";
        case InputKind::Text:
            return "text";
        case InputKind::Ids:
            return "ids";
        case InputKind::Npy:
            return "npy";
        case InputKind::Safetensors:
            return "safetensors";
    }
    return "auto";
}

Result<InputTokens> readInput(const InputSpec& spec, const Tokenizer* tokenizer,
                              const std::function<Status(int64_t)>& checkLength) {
    InputTokens out;
    out.kind = resolveInputKind(spec);
    // Regular files only (a FIFO would block, /dev/zero never end), checked before hashing.
    Result<data::InputFile> file = data::InputFile::open(spec.path);
    if (!file) return file.error();
    if (file->size() > data::input_limits::kInputFile) {
        return Error{ErrorKind::Format,
                     fmt::format("is {}, more than the {} read for an input; trace a part of it "
                                 "(split the file)",
                                 data::formatBytes(file->size()),
                                 data::formatBytes(data::input_limits::kInputFile)),
                     spec.path.string(),
                     {}};
    }
    if (out.kind == InputKind::Text) {
        if (auto st = checkTokenizeMemory(file->size(), spec.path); !st) return st.error();
    }
    Result<std::string> digest = sha256File(spec.path);
    if (!digest) return digest.error();
    out.sha256 = std::move(digest).value();

    // Full token sequence, and the text with per-token spans when there is one.
    std::vector<int32_t> ids;
    std::string text;
    std::vector<ByteSpan> spans;
    if (out.kind == InputKind::Text) {
        Result<std::string> bytes = readWholeFile(spec.path);
        if (!bytes) return bytes.error();
        Result<Encoding> encoding = tokenizeText(*bytes, spec.path, tokenizer);
        if (!encoding) return encoding.error();
        ids = std::move(encoding->ids);
        spans = std::move(encoding->offsets);
        text = std::move(bytes).value();
    } else {
        Result<std::vector<int64_t>> raw = readIdSource(spec, out.kind);
        if (!raw) return raw.error();
        Status valid = checkIds(*raw, spec.path, tokenizer);
        if (!valid) return valid.error();
        ids.assign(raw->begin(), raw->end());
    }

    const auto total = static_cast<int64_t>(ids.size());
    const int64_t end = spec.end.value_or(total);
    if (spec.begin < 0 || end < spec.begin || end > total) {
        return Error{ErrorKind::Usage,
                     fmt::format("token range [{}, {}) is outside the input's {} tokens",
                                 spec.begin, end, total),
                     spec.path.string(),
                     {}};
    }
    if (checkLength) {
        if (auto st = checkLength(end - spec.begin); !st) return st.error();
    }
    out.totalTokens = total;
    out.rangeBegin = spec.begin;
    out.ids.assign(ids.begin() + spec.begin, ids.begin() + end);

    if (out.kind != InputKind::Text && tokenizer != nullptr) {
        // Ids: reconstruct the text of the selected ids (checked against the vocabulary above).
        Result<Decoding> decoded = tokenizer->decodeWithOffsets(out.ids);
        if (!decoded) return withFile(decoded.error(), spec.path);
        out.sourceText = std::move(decoded->text);
        out.byteOffsets = std::move(decoded->offsets);
        // Offset of the selection in the decoded full sequence.
        if (spec.begin > 0) {
            Result<Decoding> prefix =
                tokenizer->decodeWithOffsets(std::span(ids.data(), spec.begin));
            if (prefix) out.sourceTextOffset = static_cast<int64_t>(prefix->text.size());
        }
    } else if (out.kind == InputKind::Text) {
        // Slice the text to the selected tokens; empty spans (an added BOS) stay (0, 0).
        std::size_t first = text.size();
        std::size_t last = 0;
        for (int64_t i = spec.begin; i < end; ++i) {
            if (spans[i].end <= spans[i].start) continue;
            first = std::min(first, spans[i].start);
            last = std::max(last, spans[i].end);
        }
        if (first > last) first = last = 0;
        out.sourceText = text.substr(first, last - first);
        out.sourceTextOffset = static_cast<int64_t>(first);
        for (int64_t i = spec.begin; i < end; ++i) {
            const ByteSpan s = spans[i];
            out.byteOffsets.push_back(s.end <= s.start ? ByteSpan{0, 0}
                                                       : ByteSpan{s.start - first, s.end - first});
        }
        if (tokenizer->acceptsInvalidUtf8()) replaceInvalidUtf8(out.sourceText, out.byteOffsets);
    } else {
        out.byteOffsets.assign(out.ids.size(), ByteSpan{0, 0});
    }

    out.tokenTexts.reserve(out.ids.size());
    for (int32_t id : out.ids) {
        out.tokenTexts.push_back(tokenizer != nullptr ? tokenizer->tokenText(id)
                                                      : std::to_string(id));
    }
    return out;
}

}  // namespace gatescope::core
