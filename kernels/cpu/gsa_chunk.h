// Private to kernels/cpu/gsa_*: the per-chunk gate algebra of the chunked GSA forward.
#pragma once

#include <cstdint>
#include <vector>

namespace gatescope::kernels {

/// While |g| stays below this, exp(g_t) * exp(-g_i) is inside double range, so one exp per token
/// and slot replaces one per token pair (the product's rounding is ~1e-16 relative). Slots whose
/// gates run further take one exp per pair, of a difference that is <= 0.
inline constexpr double kFactorizeLimit = 600.0;

/// One chunk of one kv head: local cumulative gates g (from the chunk start), the decay exp(g) of
/// the carried state, and the decayed write weights W[t][i][j] = s_{i,j} exp(g_{t,j} - g_{i,j})
/// for i <= t (0 above), shared by both passes and every query head of the group. Reused across
/// chunks by one worker; not thread-safe.
class GsaChunk {
public:
    /// logForget and write point at the chunk's first row ([len, m], row-major).
    void build(const float* logForget, const float* write, int len, int m);

    int length() const { return m_len; }
    double g(int64_t t, int64_t j) const { return m_g[t * m_m + j]; }
    float decay(int64_t t, int64_t j) const { return m_decay[t * m_m + j]; }
    /// W[t][i][0..m).
    const float* weights(int64_t t, int64_t i) const { return &m_w[(t * m_len + i) * m_m]; }

private:
    int64_t m_len = 0, m_m = 0;
    std::vector<double> m_g;
    std::vector<float> m_decay;
    std::vector<float> m_w;
    std::vector<double> m_ePos, m_eNeg;  // exp(g) and s exp(-g), reused between builds
};

}  // namespace gatescope::kernels
