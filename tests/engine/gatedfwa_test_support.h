// Test support for GatedFWA: a dense float64 reference written from the paper's formulas (Eq. 11-12
// with the public code's gate, spec gatedfwa.md §1.5), and helpers shared by the gatedfwa tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "fixture_support.h"

namespace gatescope::test::gatedfwa {

using test::headSlice;
using test::RecordingProbe;

/// Dense [N, N] window attention of one head, in float64: P[i][j] = exp(s_ij - lse_i) for
/// i - w + 1 <= j <= i (all j <= i when w == 0), s_ij = scale q_i.k_j + U_i - U_j with
/// U = cumsum(logGate) (logGate empty: no decay); 0 elsewhere. Tests only: N x N.
struct DenseReference {
    std::vector<double> probs;  ///< [N, N]
    std::vector<double> lse;    ///< [N]
    std::vector<double> u;      ///< [N] cumulative log gate
};

inline DenseReference denseWindowAttention(const std::vector<float>& q, const std::vector<float>& k,
                                           const std::vector<float>& logGate, int64_t n, int d,
                                           double scale, int64_t window) {
    DenseReference ref;
    ref.u.assign(n, 0.0);
    double running = 0;
    for (int64_t i = 0; i < n && !logGate.empty(); ++i)
        ref.u[i] = running += logGate[i];
    ref.probs.assign(n * n, 0.0);
    ref.lse.assign(n, 0.0);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t first = window > 0 ? std::max<int64_t>(0, i - window + 1) : 0;
        std::vector<double> s(i + 1, -std::numeric_limits<double>::infinity());
        double peak = -std::numeric_limits<double>::infinity();
        for (int64_t j = first; j <= i; ++j) {
            double dot = 0;
            for (int c = 0; c < d; ++c)
                dot += double(q[i * d + c]) * double(k[j * d + c]);
            s[j] = scale * dot + ref.u[i] - ref.u[j];
            peak = std::max(peak, s[j]);
        }
        double sum = 0;
        for (int64_t j = first; j <= i; ++j)
            sum += std::exp(s[j] - peak);
        ref.lse[i] = peak + std::log(sum);
        for (int64_t j = first; j <= i; ++j)
            ref.probs[i * n + j] = std::exp(s[j] - ref.lse[i]);
    }
    return ref;
}

/// log-softmax of `logits` row r (width v) at column `target`, in float64.
inline double logSoftmaxAt(const std::vector<float>& logits, int64_t r, int64_t v, int64_t target) {
    double peak = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < v; ++j)
        peak = std::max(peak, double(logits[r * v + j]));
    double sum = 0;
    for (int64_t j = 0; j < v; ++j)
        sum += std::exp(double(logits[r * v + j]) - peak);
    return double(logits[r * v + target]) - peak - std::log(sum);
}

inline nlohmann::json readJson(const std::filesystem::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

/// A scratch checkpoint: the fixture's weights (symlinked) under an edited config.json. Removed
/// when destroyed.
class ScratchCheckpoint {
public:
    ScratchCheckpoint(const std::filesystem::path& fixture, const nlohmann::json& config,
                      const std::string& tag) {
        m_dir = std::filesystem::temp_directory_path() /
                ("gatescope_gatedfwa_" + tag + "_" + std::to_string(::getpid()));
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir);
        std::filesystem::create_symlink(std::filesystem::absolute(fixture / "model.safetensors"),
                                        m_dir / "model.safetensors");
        std::ofstream(m_dir / "config.json") << config.dump(2);
    }
    ~ScratchCheckpoint() {
        std::error_code ignored;
        std::filesystem::remove_all(m_dir, ignored);
    }
    const std::filesystem::path& dir() const { return m_dir; }

private:
    std::filesystem::path m_dir;
};

}  // namespace gatescope::test::gatedfwa
