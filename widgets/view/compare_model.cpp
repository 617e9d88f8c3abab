#include "widgets/view/compare_model.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/analysis/compare.h"
#include "core/maps/trace_head.h"
#include "widgets/view/retention_model.h"

namespace gatescope::widgets {

Result<CompareSummary> summarizeComparison(const data::TraceReader& a, const data::TraceReader& b,
                                           int binsPerOctave) {
    core::CompareOptions options;
    options.attention = false;
    options.binsPerOctave = binsPerOctave;
    options.threads = 1;
    auto comparison = core::compareTraces(a, b, options);
    if (!comparison) return comparison.error();
    CompareSummary s;
    s.alignment = std::move(comparison->alignment);
    s.nA = a.summary().nTokens;
    s.nB = b.summary().nTokens;
    s.loss = std::move(comparison->loss);
    if (s.loss) s.lossStrip.assign(s.loss->delta.begin(), s.loss->delta.end());
    return s;
}

Result<std::vector<float>> retentionDifference(const data::TraceReader& a,
                                               const data::TraceReader& b, int layer, int head) {
    // Which trace has no gates, in plain words ("trace B: this model has no forget gates ...").
    auto which = [](const char* name, Error e) {
        e.message = fmt::format("trace {}: {}", name, e.message);
        return e;
    };
    auto ra = loadRetention(a, layer, head);
    if (!ra) return which("A", ra.error());
    auto rb = loadRetention(b, layer, head);
    if (!rb) return which("B", rb.error());
    const RetentionData &x = **ra, &y = **rb;
    if (x.n != y.n || x.channels != y.channels)
        return Error{ErrorKind::Missing, "the gates of A and B differ in shape", b.path(), {}};
    std::vector<float> out(static_cast<size_t>(x.n));
    for (int64_t t = 0; t < x.n; ++t) {
        double sum = 0;
        for (int c = 0; c < x.channels; ++c)
            sum += std::exp(double(x.logAt(t, c))) - std::exp(double(y.logAt(t, c)));
        out[static_cast<size_t>(t)] = static_cast<float>(sum / x.channels);
    }
    return out;
}

std::function<int64_t(int64_t)> alignedPosition(std::vector<std::pair<int64_t, int64_t>> pairs,
                                                bool fromA) {
    if (!fromA)
        for (auto& p : pairs)
            std::swap(p.first, p.second);
    return [pairs = std::move(pairs)](int64_t position) -> int64_t {
        auto it = std::upper_bound(pairs.begin(), pairs.end(), position,
                                   [](int64_t v, const auto& p) { return v < p.first; });
        return it == pairs.begin() ? -1 : std::prev(it)->second;
    };
}

std::vector<int64_t> sampleRows(int64_t begin, int64_t end, int maxRows) {
    std::vector<int64_t> rows;
    if (end <= begin || maxRows <= 0) return rows;
    const int64_t count = std::min<int64_t>(end - begin, maxRows);
    for (int64_t i = 0; i < count; ++i)
        rows.push_back(begin + (end - begin) * i / count);
    return rows;
}

Result<std::vector<RowDivergence>> rowDivergences(const data::TraceReader& a,
                                                  const data::TraceReader& b, int layer, int head,
                                                  const std::vector<int64_t>& rows,
                                                  const std::atomic<bool>& cancel) {
    auto ha = core::loadTraceHead(a, layer, head);
    if (!ha) return ha.error();
    auto hb = core::loadTraceHead(b, layer, head);
    if (!hb) return hb.error();
    std::vector<RowDivergence> out;
    std::vector<float> pa, pb;
    for (int64_t row : rows) {
        if (cancel) return Error{ErrorKind::Cancelled, "cancelled", a.path(), {}};
        pa.resize(static_cast<size_t>(row + 1));
        pb.resize(static_cast<size_t>(row + 1));
        (*ha)->source->compute(kernels::MapKind::Attention, row, 1, 0, row + 1, pa.data());
        (*hb)->source->compute(kernels::MapKind::Attention, row, 1, 0, row + 1, pb.data());
        RowDivergence d = rowDivergence(pa.data(), pb.data(), row + 1);
        d.row = row;
        out.push_back(d);
    }
    return out;
}

}  // namespace gatescope::widgets
