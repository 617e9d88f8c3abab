// Tiny hand-made traces for the analysis tests: one layer of one head whose attention, gates and
// per-token loss are chosen so that every statistic can be worked out by hand. The attention is
// set through the factors the viewer recomputes it from (additive_decay without decay, scale 1):
// q_i = 1, k_j = log w_j and lse_i = log sum_{j <= i} w_j give A[i, j] = w_j / sum_{j' <= i} w_j'.
#pragma once

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "data/trace/manifest.h"
#include "data/trace/trace_writer.h"

namespace gatescope::test {

struct SyntheticTrace {
    std::string text = "abcd";                      ///< one byte-level token per byte
    std::vector<float> loss;                        ///< per token (NaN: no target)
    std::vector<double> keyWeights = {1, 1, 1, 1};  ///< w_j, one per token
    int channels = 1;
    std::vector<float> logGates;  ///< [1, N, channels]; empty: an ungated layer
    std::string checkpointPath;   ///< the manifest's checkpoint folder
};

/// The attention row i that `keyWeights` gives: A[i, j] for j <= i.
inline std::vector<double> attentionRow(const std::vector<double>& w, int64_t i) {
    double sum = 0;
    for (int64_t j = 0; j <= i; ++j)
        sum += w[j];
    std::vector<double> row;
    for (int64_t j = 0; j <= i; ++j)
        row.push_back(w[j] / sum);
    return row;
}

/// Writes `trace` to `path`. Errors: the writer's.
inline Status writeSyntheticTrace(const SyntheticTrace& trace, const std::filesystem::path& path) {
    const int64_t n = static_cast<int64_t>(trace.text.size());
    auto created = data::TraceWriter::create(path);
    if (!created) return created.error();
    data::TraceWriter& w = **created;
    data::Manifest manifest;
    manifest.modelType = "synthetic";
    manifest.checkpointPath = trace.checkpointPath;
    if (auto st = w.writeManifest(manifest.toJson()); !st) return st;
    data::TokenTable tokens;
    tokens.sourceText = trace.text;
    for (int64_t i = 0; i < n; ++i) {
        tokens.ids.push_back(static_cast<unsigned char>(trace.text[i]));
        tokens.text.push_back(trace.text.substr(i, 1));
        tokens.byteOffsets.push_back({i, i + 1});
    }
    if (auto st = w.writeTokens(tokens); !st) return st;
    data::LayerHeader header{1, 1, 1, 1, trace.channels, "additive_decay", {{"scale", 1.0}}};
    if (auto st = w.writeLayer(0, header); !st) return st;
    if (!trace.logGates.empty())
        if (auto st = w.writeGates(0, trace.logGates.data(), 1, n, trace.channels); !st) return st;
    std::vector<float> q(n, 1.0f), k(n), lse(n);
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
        sum += trace.keyWeights[i];
        k[i] = static_cast<float>(std::log(trace.keyWeights[i]));
        lse[i] = static_cast<float>(std::log(sum));
    }
    for (const auto& [name, values, shape] : {std::tuple{"q", &q, std::vector<int64_t>{1, n, 1}},
                                              std::tuple{"k", &k, std::vector<int64_t>{1, n, 1}},
                                              std::tuple{"lse", &lse, std::vector<int64_t>{1, n}}})
        if (auto st = w.writeFactor(0, name, values->data(), shape); !st) return st;
    data::PerTokenResults perToken;
    perToken.loss = trace.loss;
    perToken.entropy.assign(n, 1.0f);
    for (int64_t i = 0; i < n; ++i)
        perToken.targetRank.push_back(std::isnan(trace.loss[i]) ? -1 : 0);
    if (auto st = w.writePerToken(perToken); !st) return st;
    return w.commit();
}

}  // namespace gatescope::test
