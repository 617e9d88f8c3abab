// Reading what a model runs on: a text file (tokenized) or token ids (text, .npy, safetensors).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/tokenizer/tokenizer.h"
#include "data/common/result.h"

namespace gatescope::core {

enum class InputKind {
    Auto,         ///< from the extension: .npy, .safetensors, .ids; anything else is Text
    Text,         ///< UTF-8 text, tokenized with the tokenizer's convention
    Ids,          ///< whitespace-separated decimal token ids in a text file
    Npy,          ///< a NumPy .npy array, 1-D (or [1, N]) of int8/16/32/64 or uint8/16/32/64
    Safetensors,  ///< an integer tensor, 1-D or [1, N], of a .safetensors file
};

/// "auto", "text", "ids", "npy", "safetensors".
const char* toString(InputKind kind);

struct InputSpec {
    std::filesystem::path path;
    InputKind kind = InputKind::Auto;
    /// The tensor of a safetensors input. Empty: the file's only tensor, else "input_ids".
    std::string tensorName;
    /// Tokens [begin, end) of the full tokenization are kept; end = nullopt: to the last token.
    int64_t begin = 0;
    std::optional<int64_t> end;
};

/// The selected tokens and where they came from. Owns its data; plain value.
struct InputTokens {
    std::vector<int32_t> ids;
    /// The text the selected tokens cover: for Text inputs the slice of the file from the first
    /// selected token's first byte to the last one's last byte; for id inputs with a tokenizer, the
    /// decoded text of the selected ids; empty otherwise. For a tokenizer that acceptsInvalidUtf8()
    /// every invalid byte of a Text input is U+FFFD here (as that tokenizer read it), and
    /// byteOffsets index this rewritten text.
    std::string sourceText;
    /// Byte offset of sourceText within the file (Text) or within the decoded full sequence (ids).
    int64_t sourceTextOffset = 0;
    /// Per token, [start, end) into sourceText; (0, 0) for tokens with no text (an added BOS), and
    /// for every token of an id input read without a tokenizer.
    std::vector<ByteSpan> byteOffsets;
    /// Per token, Tokenizer::tokenText(id), or the id in decimal without a tokenizer.
    std::vector<std::string> tokenTexts;
    /// SHA-256 (lowercase hex) of the whole input file.
    std::string sha256;
    /// The kind actually read (never Auto).
    InputKind kind = InputKind::Text;
    /// Number of tokens before the range was applied, and the first kept token's index.
    int64_t totalTokens = 0;
    int64_t rangeBegin = 0;
};

/// The kind readInput() reads `spec` as: spec.kind, or for Auto the kind its extension names.
InputKind resolveInputKind(const InputSpec& spec);

/// Reads `spec.path`. Text needs a tokenizer (BOS added per its convention); ids are used exactly
/// as given (no BOS added). Errors name the file and the problem: invalid UTF-8 (with the byte
/// offset of the first bad byte; unless the tokenizer acceptsInvalidUtf8()), a malformed id (line
/// and column), a negative id or one
/// >= tokenizer->vocabSize() (with its token position), a pickled/object/big-endian/non-integer
/// .npy, a missing or non-integer tensor, a range outside the tokens (Usage), a path that is not a
/// regular file (a FIFO, a device: refused before anything is read), a file above
/// data::input_limits::kInputFile, a text too large to tokenize in the memory available
/// (checkTokenizeMemory). `checkLength` (may be empty) is called with the number of selected
/// tokens before the per-token tables are built, and its error returned: where a caller refuses a
/// sequence too long for its memory (checkTraceMemory). Thread-safe.
Result<InputTokens> readInput(const InputSpec& spec, const Tokenizer* tokenizer,
                              const std::function<Status(int64_t)>& checkLength = {});

}  // namespace gatescope::core
