// Helpers for the data/ tests: temporary folders and a random sample trace written from plain
// vectors (the expected values every reader test compares against).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/trace/pyramid_geometry.h"
#include "data/trace/trace_types.h"
#include "data/trace/trace_writer.h"
#include "support/temp_dir.h"

namespace gatescope::data::testing {

/// The whole content of `path` (empty when it cannot be read).
std::string readBytes(const std::filesystem::path& path);

using test::TempDir;

struct SampleFactor {
    std::vector<int64_t> shape;
    std::vector<float> values;
};

struct SampleLayer {
    LayerHeader header;
    std::vector<float> gates;  ///< [H, N, C]; empty: no gates (a Transformer layer)
    std::map<std::string, SampleFactor> factors;
    PyramidLevels levels;  ///< pyramids "attention" and "decay" over these levels
};

struct Sample {
    int64_t n = 0;
    nlohmann::json manifest;
    TokenTable tokens;
    PerTokenResults perToken;
    std::vector<SampleLayer> layers;
    uint32_t seed = 0;
};

/// A complete valid manifest with recognizable values.
nlohmann::json sampleManifest();
/// Random data of every kind for `n` tokens: 2 layers (GQA factors, one with 4 gate channels),
/// UTF-8 token text (multi-byte, emoji, and one invalid byte), NaN loss at the last position.
Sample makeSample(int64_t n, uint32_t seed);

/// The value the sample stores at cell (row, col) of a pyramid, before causal masking.
float pyramidValue(const Sample& sample, int layer, const std::string& map, Pool pool, int level,
                   int head, int64_t row, int64_t col);
/// What a reader must return at cell (row, col): pyramidValue on and below the diagonal, else 0.
float expectedPyramidCell(const Sample& sample, int layer, const std::string& map, Pool pool,
                          int level, int head, int64_t row, int64_t col);

/// Writes the whole sample (every causal tile of every pyramid level, decay stored, never derived)
/// and commits. `holdEachLayer`: each layer's writes are held and written together
/// (TraceWriter::holdWrites), the last layer's by commit.
Status writeSample(const Sample& sample, const std::filesystem::path& path,
                   TraceWriterOptions options = {}, bool holdEachLayer = false);

/// The token text the trace stores for `text`: invalid UTF-8 bytes become U+FFFD.
std::string expectedStoredText(const std::string& text);

}  // namespace gatescope::data::testing
