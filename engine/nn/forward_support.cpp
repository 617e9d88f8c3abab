#include "engine/nn/forward_support.h"

#include <fmt/format.h>

#include "engine/nn/cpu_math.h"
#include "engine/nn/device.h"
#include "engine/nn/model_error.h"

namespace gatescope::core {

ForwardSession::ForwardSession(std::span<const int32_t> ids, std::span<const int32_t> targets,
                               int64_t vocabSize, const RunOptions& options, int layers)
    : m_ids(ids), m_options(options), m_layers(layers) {
    m_device = computeDevice(options);
    if (ids.empty()) throwModelError(ErrorKind::Usage, "the input has no tokens");
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= vocabSize) {
            throwModelError(ErrorKind::Format,
                            fmt::format("token id {} at position {} is outside the vocabulary "
                                        "[0, {})",
                                        ids[i], i, vocabSize));
        }
    }
    if (!targets.empty() && targets.size() != ids.size()) {
        throwModelError(ErrorKind::Usage,
                        fmt::format("{} targets for {} tokens", targets.size(), ids.size()));
    }
    if (targets.empty()) {
        m_targets.assign(ids.begin() + 1, ids.end());
        m_targets.push_back(-1);
    } else {
        m_targets.assign(targets.begin(), targets.end());
    }
    for (auto& t : m_targets) {
        if (t >= vocabSize) t = -1;
    }
    m_idTensor = torch::empty({static_cast<int64_t>(ids.size())}, torch::kInt64);
    auto* p = m_idTensor.data_ptr<int64_t>();
    for (std::size_t i = 0; i < ids.size(); ++i)
        p[i] = ids[i];
    m_idTensor = onDevice(m_idTensor, m_device);
    prepareCpuMath(options.threads);
}

void ForwardSession::beginLayer(int layer) {
    if (m_options.cancelled && m_options.cancelled()) {
        throwModelError(ErrorKind::Cancelled, "cancelled");
    }
    if (m_layers > 0) progress(static_cast<double>(layer) / m_layers, "layers");
}

void ForwardSession::progress(double fraction, std::string_view stage) const {
    if (m_options.progress) m_options.progress(fraction, stage);
}

}  // namespace gatescope::core
