// The values a trace holds, as plain C++ structs shared by TraceWriter and TraceReader.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/trace/trace_schema.h"

namespace gatescope::data {

/// The input as tokens. All vectors have one entry per token (N >= 1).
struct TokenTable {
    std::vector<int32_t> ids;
    /// Decoded text of each token, UTF-8. Invalid UTF-8 and NUL bytes are stored as U+FFFD (the
    /// byte offsets stay exact).
    std::vector<std::string> text;
    /// [start, end) byte range of each token in sourceText.
    std::vector<std::array<int64_t, 2>> byteOffsets;
    /// The source text, any bytes (NUL included); empty when the input was token ids. Stored
    /// exactly as /tokens/source_bytes, and as the string /tokens/source_text with every byte
    /// that is not valid UTF-8, and every NUL, as U+FFFD.
    std::string sourceText;

    int64_t size() const { return static_cast<int64_t>(ids.size()); }
};

/// Per-token model results, one entry per token. Position i predicts token i + 1.
struct PerTokenResults {
    std::vector<float> loss;          ///< cross entropy, natural log; NaN where no target
    std::vector<int32_t> targetRank;  ///< rank of the target token (0 = top); -1 where none
    std::vector<float> entropy;       ///< entropy of the predicted distribution, natural log
    /// The topK most likely next tokens per position, most likely first: ids [N, topK] and
    /// log-probabilities [N, topK]. topK = 0 (both empty) in traces written without them.
    int topK = 0;
    std::vector<int32_t> topIds;
    std::vector<float> topLogProbs;
    /// The text of every id in topIds, for display: ids ascending, one text each (the
    /// tokenizer's token text). Empty when the trace had no tokenizer.
    std::vector<int32_t> vocabIds;
    std::vector<std::string> vocabText;
};

/// Per-layer facts, stored as attributes of /layers/<l>.
struct LayerHeader {
    int nHeads = 0;
    int nKvHeads = 0;
    int headDim = 0;
    int valueDim = 0;
    int nChannels = 1;      ///< gate channels: 1 scalar, head_dim for Wall, slots for GSA
    std::string scoreKind;  ///< "additive_decay", "wall", "power", "gsa", "softmax", ...
    nlohmann::json extras = nlohmann::json::object();  ///< scale, window, p, ...

    bool operator==(const LayerHeader&) const = default;
};

/// A dense float array, row-major.
struct Array {
    std::vector<int64_t> shape;
    std::vector<float> values;
};

/// One 256 x 256 pyramid tile, row-major. Cells beyond the level's side and cells above the
/// diagonal are 0. Immutable and cheap to copy: the values are shared (also with the reader's
/// cache).
struct Tile {
    int64_t rows = 0;  ///< valid rows (the rest up to 256 is padding)
    int64_t cols = 0;  ///< valid columns
    std::shared_ptr<const std::vector<float>> data;

    const float* values() const { return data->data(); }
    float at(int64_t row, int64_t col) const { return (*data)[row * kTileSide + col]; }
};

}  // namespace gatescope::data
