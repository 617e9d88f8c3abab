// Tokenizers: text <-> token ids, with byte offsets back into the text a user gave. No LibTorch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/common/result.h"

namespace gatescope::core {

/// A half-open byte range [start, end) into a text.
struct ByteSpan {
    std::size_t start = 0;
    std::size_t end = 0;
    bool operator==(const ByteSpan&) const = default;
};

/// encode() output: one span per id, into the ORIGINAL text passed to encode(). A token the
/// tokenizer adds (BOS) has the empty span (0, 0). Spans of consecutive tokens can overlap when a
/// convention rewrites characters (see JsonGpt2Tokenizer).
struct Encoding {
    std::vector<int32_t> ids;
    std::vector<ByteSpan> offsets;
};

/// decodeWithOffsets() output: the text and, per id, the bytes of `text` it produced.
struct Decoding {
    std::string text;
    std::vector<ByteSpan> offsets;
};

/// Abstract tokenizer. Implementations are immutable after construction except for internal caches
/// that are guarded: every method is safe to call from several threads at once.
class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    /// Tokenizes `text` with the tokenizer's convention (BOS prepended when addsBos()).
    /// Error (Format, no file) when the text is not valid UTF-8, for tokenizers that need it.
    virtual Result<Encoding> encode(std::string_view text) const = 0;
    /// The text the ids stand for, and each id's bytes in it. Special tokens appear as their text
    /// ("<|endoftext|>"). Error (Format) for an id outside [0, vocabSize()), naming its position.
    /// The text is raw bytes and may be invalid UTF-8 when the ids split a character.
    virtual Result<Decoding> decodeWithOffsets(std::span<const int32_t> ids) const = 0;
    /// decodeWithOffsets().text.
    Result<std::string> decode(std::span<const int32_t> ids) const;

    /// One token for display: UTF-8, bytes that are not valid UTF-8 as "\xE2". For an id outside
    /// the vocabulary: "<invalid id N>".
    virtual std::string tokenText(int32_t id) const = 0;
    /// Ids are 0 .. vocabSize() - 1.
    virtual int32_t vocabSize() const = 0;
    /// The beginning-of-sequence token, if the tokenizer defines one.
    virtual std::optional<int32_t> bosId() const = 0;
    /// True when encode() prepends bosId().
    virtual bool addsBos() const = 0;
    /// True when encode() takes text that is not valid UTF-8 (and says in identity() what it does
    /// with it, e.g. SentencePiece's U+FFFD per invalid byte); false when it needs valid UTF-8,
    /// which readInput() then checks first.
    virtual bool acceptsInvalidUtf8() const { return false; }
    /// Provenance: {"kind", "vocab_size", "bos_id", "adds_bos", "files": {name: sha256}, ...
    /// convention flags}. Stored in traces so a result can be tied to its exact vocabulary.
    virtual nlohmann::json identity() const = 0;
};

}  // namespace gatescope::core
