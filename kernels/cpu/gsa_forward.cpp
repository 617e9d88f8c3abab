#include "kernels/cpu/gsa_forward.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/cancel.h"
#include "kernels/cpu/fast_math.h"
#include "kernels/cpu/gsa_chunk.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/tile_ops.h"

namespace gatescope::kernels {

namespace {

// Fixed-width inner blocks: the -O2 vectorizer takes loops of constant trip count (no epilogue),
// which is what makes these two hot loops SIMD in the RelWithDebInfo build.
constexpr int kLanes = 8;

float dot(const float* a, const float* b, int n) {
    float lanes[kLanes] = {};
    int d = 0;
    for (; d + kLanes <= n; d += kLanes) {
        for (int u = 0; u < kLanes; ++u)
            lanes[u] += a[d + u] * b[d + u];
    }
    float sum = 0.0f;
    for (; d < n; ++d)
        sum += a[d] * b[d];
    for (int u = 0; u < kLanes; ++u)
        sum += lanes[u];
    return sum;
}

void axpy(float alpha, const float* x, float* y, int n) {
    int d = 0;
    for (; d + kLanes <= n; d += kLanes) {
        for (int u = 0; u < kLanes; ++u)
            y[d + u] += alpha * x[d + u];
    }
    for (; d < n; ++d)
        y[d] += alpha * x[d];
}

/// One kv head and its query heads, chunk by chunk. Every product of a chunk with the carried
/// state, or of the chunk with itself, goes through gemmAccumulate (tile_ops.h), whose column
/// counts must be multiples of kVec: state rows and chunk copies are padded with zeros.
class KvHeadRunner {
public:
    KvHeadRunner(const GsaForwardInput& in, const GsaForwardOutput& out,
                 const GsaForwardOptions& options, int kvHead)
        : m_in(in),
          m_out(out),
          m_options(options),
          m_kvHead(kvHead),
          m_m(in.slots),
          m_dk(in.dk),
          m_dv(in.dv),
          m_mp(padToVec(in.slots)),
          m_lp(padToVec(options.chunkSize)),
          m_dkp(padToVec(in.dk)),
          m_dvp(padToVec(in.dv)) {
        const int64_t c = options.chunkSize;
        m_hk.assign(m_m * m_dkp, 0.0f);
        m_hv.assign(m_m * m_dvp, 0.0f);
        m_hkT.assign(m_dk * m_mp, 0.0f);
        m_kT.assign(m_dk * m_lp, 0.0f);
        m_kPad.assign(c * m_dkp, 0.0f);
        m_vPad.assign(c * m_dvp, 0.0f);
        m_scores.assign(c * m_mp, 0.0f);
        m_qk.assign(c * m_lp, 0.0f);
        m_o.assign(c * m_dvp, 0.0f);
        m_probs.assign(c * m_m, 0.0f);
        m_coef.assign(c * m_m, 0.0f);
        m_a.assign(c * c, 0.0f);
        m_wEndT.assign(m_m * c, 0.0f);
        m_base.assign(m_m, 0.0);
    }

    void run() {
        const int64_t n = m_in.n;
        const float* logForget = m_in.logForget + m_kvHead * n * m_m;
        const float* write = m_in.write + m_kvHead * n * m_m;
        int64_t index = 0;
        for (int64_t c0 = 0; c0 < n; c0 += m_options.chunkSize, ++index) {
            throwIfCancelled();
            const int len = static_cast<int>(std::min<int64_t>(m_options.chunkSize, n - c0));
            m_chunk.build(logForget + c0 * m_m, write + c0 * m_m, len, static_cast<int>(m_m));
            if (m_out.logForgetCumsum) {
                float* dst = m_out.logForgetCumsum + (m_kvHead * n + c0) * m_m;
                for (int t = 0; t < len; ++t)
                    for (int64_t j = 0; j < m_m; ++j)
                        dst[t * m_m + j] = static_cast<float>(m_base[j] + m_chunk.g(t, j));
            }
            loadChunk(c0, len);
            const int group = m_in.heads / m_in.kvHeads;
            for (int r = 0; r < group; ++r)
                queryHead(int64_t{m_kvHead} * group + r, c0, len);
            advanceState(len, index);
        }
    }

private:
    /// Padded copies of the chunk's keys and values, K^T, and the state's transpose K~^T.
    void loadChunk(int64_t c0, int len) {
        const float* k = m_in.k + (m_kvHead * m_in.n + c0) * m_dk;
        const float* v = m_in.v + (m_kvHead * m_in.n + c0) * m_dv;
        for (int i = 0; i < len; ++i) {
            std::copy(k + i * m_dk, k + (i + 1) * m_dk, &m_kPad[i * m_dkp]);
            std::copy(v + i * m_dv, v + (i + 1) * m_dv, &m_vPad[i * m_dvp]);
            for (int64_t d = 0; d < m_dk; ++d)
                m_kT[d * m_lp + i] = k[i * m_dk + d];
        }
        for (int64_t j = 0; j < m_m; ++j)
            for (int64_t d = 0; d < m_dk; ++d)
                m_hkT[d * m_mp + j] = m_hk[j * m_dkp + d];
    }

    void queryHead(int64_t h, int64_t c0, int len) {
        const int64_t m = m_m, n = m_in.n, lp = padToVec(len);
        const float* q = m_in.q + (h * n + c0) * m_dk;
        // Pass 1: o'[t] = scale (decay[t] * (q_t K~^T) + sum_{i<=t} (q_t . k_i) W[t][i]).
        std::fill(m_scores.begin(), m_scores.begin() + len * m_mp, 0.0f);
        gemmAccumulate(len, m_mp, m_dk, q, m_dk, m_hkT.data(), m_mp, m_scores.data(), m_mp);
        std::fill(m_qk.begin(), m_qk.begin() + len * m_lp, 0.0f);
        gemmAccumulate(len, lp, m_dk, q, m_dk, m_kT.data(), m_lp, m_qk.data(), m_lp);
        for (int t = 0; t < len; ++t) {
            float* sc = &m_scores[t * m_mp];
            float* p = &m_probs[t * m];
            for (int64_t j = 0; j < m; ++j)
                sc[j] *= m_chunk.decay(t, j);
            for (int i = 0; i <= t; ++i)
                axpy(m_qk[t * m_lp + i], m_chunk.weights(t, i), sc, m);
            for (int64_t j = 0; j < m; ++j)
                sc[j] *= m_in.scale;
            softmaxRow(sc, p, h * n + c0 + t);
            for (int64_t j = 0; j < m; ++j)
                m_coef[t * m + j] = p[j] * m_chunk.decay(t, j);
            for (int i = 0; i < len; ++i) {
                m_a[t * len + i] = i <= t ? dot(p, m_chunk.weights(t, i), m) : 0.0f;
            }
        }
        // Pass 2: o_t = (p_t * decay[t]) V~ + sum_{i<=t} (p_t . W[t][i]) v_i.
        std::fill(m_o.begin(), m_o.begin() + len * m_dvp, 0.0f);
        gemmAccumulate(len, m_dvp, m, m_coef.data(), m, m_hv.data(), m_dvp, m_o.data(), m_dvp);
        gemmAccumulate(len, m_dvp, len, m_a.data(), len, m_vPad.data(), m_dvp, m_o.data(), m_dvp);
        float* o = m_out.out + (h * n + c0) * m_dv;
        for (int t = 0; t < len; ++t)
            std::copy_n(&m_o[t * m_dvp], m_dv, o + t * m_dv);
    }

    void softmaxRow(const float* sc, float* p, int64_t row) {
        const int64_t m = m_m;
        const float mx = *std::max_element(sc, sc + m);
        double sum = 0.0;
        for (int64_t j = 0; j < m; ++j)
            sum += std::exp(static_cast<double>(sc[j]) - mx);
        for (int64_t j = 0; j < m; ++j) {
            p[j] = static_cast<float>(std::exp(static_cast<double>(sc[j]) - mx) / sum);
        }
        if (m_out.slotScores) std::copy(sc, sc + m, m_out.slotScores + row * m);
        if (m_out.slotProbs) std::copy(p, p + m, m_out.slotProbs + row * m);
        if (m_out.lse) m_out.lse[row] = static_cast<float>(mx + std::log(sum));
        if (m_options.roundProbsToBf16) {
            for (int64_t j = 0; j < m; ++j)
                p[j] = roundToBf16(p[j]);
        }
    }

    /// K~ <- decay[last] K~ + W[last]^T K_chunk (likewise V~), then the optional snapshots.
    void advanceState(int len, int64_t index) {
        const int64_t m = m_m, last = len - 1;
        for (int64_t j = 0; j < m; ++j) {
            const float d = m_chunk.decay(last, j);
            for (int64_t x = 0; x < m_dk; ++x)
                m_hk[j * m_dkp + x] *= d;
            for (int64_t x = 0; x < m_dv; ++x)
                m_hv[j * m_dvp + x] *= d;
            m_base[j] += m_chunk.g(last, j);
        }
        for (int i = 0; i < len; ++i) {
            const float* wi = m_chunk.weights(last, i);
            for (int64_t j = 0; j < m; ++j)
                m_wEndT[j * len + i] = wi[j];
        }
        gemmAccumulate(m, m_dkp, len, m_wEndT.data(), len, m_kPad.data(), m_dkp, m_hk.data(),
                       m_dkp);
        gemmAccumulate(m, m_dvp, len, m_wEndT.data(), len, m_vPad.data(), m_dvp, m_hv.data(),
                       m_dvp);
        const int64_t slot = m_kvHead * gsaChunkCount(m_in.n, m_options.chunkSize) + index;
        for (int64_t j = 0; j < m; ++j) {
            if (m_out.stateK)
                std::copy_n(&m_hk[j * m_dkp], m_dk, m_out.stateK + (slot * m + j) * m_dk);
            if (m_out.stateV)
                std::copy_n(&m_hv[j * m_dvp], m_dv, m_out.stateV + (slot * m + j) * m_dv);
        }
    }

    const GsaForwardInput& m_in;
    const GsaForwardOutput& m_out;
    const GsaForwardOptions& m_options;
    const int64_t m_kvHead, m_m, m_dk, m_dv;
    const int64_t m_mp, m_lp, m_dkp, m_dvp;  // padded to kVec
    GsaChunk m_chunk;
    std::vector<float> m_hk, m_hv;           // K~ [m, dkp], V~ [m, dvp]
    std::vector<float> m_hkT, m_kT;          // K~^T [dk, mp], chunk K^T [dk, lp]
    std::vector<float> m_kPad, m_vPad;       // chunk K [C, dkp], V [C, dvp]
    std::vector<float> m_scores, m_qk, m_o;  // [C, mp], [C, lp], [C, dvp]
    std::vector<float> m_probs, m_coef, m_a, m_wEndT;
    std::vector<double> m_base;  // G at the end of the previous chunk
};

}  // namespace

bool gsaForward(const GsaForwardInput& in, const GsaForwardOutput& out,
                const GsaForwardOptions& options) {
    if (in.n < 1 || in.heads < 1 || in.kvHeads < 1 || in.dk < 1 || in.dv < 1 || in.slots < 1 ||
        options.chunkSize < 1 || in.heads % in.kvHeads != 0)
        return false;
    if (!in.q || !in.k || !in.v || !in.logForget || !in.write || !out.out) return false;
    parallelFor(in.kvHeads, options.threads, [&](int64_t kvHead) {
        KvHeadRunner(in, out, options, static_cast<int>(kvHead)).run();
    });
    return true;
}

}  // namespace gatescope::kernels
