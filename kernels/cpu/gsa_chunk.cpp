#include "kernels/cpu/gsa_chunk.h"

#include <algorithm>
#include <cmath>

namespace gatescope::kernels {

void GsaChunk::build(const float* logForget, const float* write, int len, int m) {
    m_len = len;
    m_m = m;
    const std::size_t cells = static_cast<std::size_t>(len) * m;
    m_g.assign(cells, 0.0);
    m_decay.resize(cells);
    m_ePos.resize(cells);
    m_eNeg.resize(cells);
    m_w.assign(cells * len, 0.0f);
    std::vector<double> lo(m, 0.0), hi(m, 0.0), acc(m, 0.0);
    for (int t = 0; t < len; ++t) {
        for (int j = 0; j < m; ++j) {
            const int x = t * m + j;
            acc[j] += logForget[x];
            m_g[x] = acc[j];
            lo[j] = std::min(lo[j], acc[j]);
            hi[j] = std::max(hi[j], acc[j]);
            m_ePos[x] = std::exp(acc[j]);
            m_eNeg[x] = write[x] * std::exp(-acc[j]);
            m_decay[x] = static_cast<float>(m_ePos[x]);
        }
    }
    for (int t = 0; t < len; ++t) {
        for (int i = 0; i <= t; ++i) {
            float* row = &m_w[(static_cast<std::size_t>(t) * len + i) * m];
            for (int j = 0; j < m; ++j)
                row[j] = static_cast<float>(m_ePos[t * m + j] * m_eNeg[i * m + j]);
        }
    }
    for (int j = 0; j < m; ++j) {
        if (hi[j] <= kFactorizeLimit && -lo[j] <= kFactorizeLimit) continue;
        for (int t = 0; t < len; ++t) {
            for (int i = 0; i <= t; ++i) {
                m_w[(static_cast<std::size_t>(t) * len + i) * m + j] = static_cast<float>(
                    write[i * m + j] * std::exp(m_g[t * m + j] - m_g[i * m + j]));
            }
        }
    }
}

}  // namespace gatescope::kernels
