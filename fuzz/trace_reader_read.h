// What the trace-reader fuzz target does with one input, shared with its regression test
// (tests/data/fuzz_regression_test.cpp): open the bytes as a trace image and read everything
// `info`, `stats`, `compare` and `export` would (summary, manifest and the JSON `info` prints,
// tokens, per-token results, the first rows of every gate and factor, the first tile of every
// pyramid level). Header-only; links with gatescope_data.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "data/trace/trace_reader.h"

namespace gatescope::fuzz {

/// Returns the first error met: at open (the trace is refused), or Ok when it opened (errors of
/// the later reads are expected on damaged data and only have to come back as values).
inline Status readTraceImage(const std::string& name, const uint8_t* data, size_t size) {
    data::ReaderOptions options;
    options.chunkCacheBytes = size_t{4} << 20;
    auto reader = data::TraceReader::openImage(name, data, size, options);
    if (!reader) return reader.error();
    const data::TraceReader& r = **reader;
    if (auto manifest = r.manifest()) (void)manifest->dump();
    (void)r.tokens();
    (void)r.perToken();
    const int64_t rows = std::min<int64_t>(r.summary().nTokens, 64);
    for (const auto& layer : r.summary().layers) {
        (void)layer.header.extras.dump();
        if (layer.hasGates) (void)r.gatesForHead(layer.index, 0, 0, rows);
        for (const auto& factor : layer.factors)
            (void)r.factor(layer.index, factor.name, 0, 0, rows);
        for (const auto& pyramid : layer.pyramids)
            for (data::Pool pool : pyramid.pools)
                for (int level : pyramid.levels)
                    (void)r.pyramidTile(layer.index, pyramid.map, pool, level, 0, 0, 0);
    }
    return Ok{};
}

}  // namespace gatescope::fuzz
