#include "widgets/view/retention_model.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace gatescope::widgets {

Error noGatesError(const data::TraceSummary& summary, int layer) {
    bool any = false;
    for (const data::LayerInfo& info : summary.layers)
        any = any || info.hasGates;
    if (!any) {
        return Error{ErrorKind::Missing,
                     "this model has no forget gates, so there is no retention to show (like a "
                     "softmax Transformer, it keeps every token)",
                     {},
                     {}};
    }
    return Error{ErrorKind::Missing, fmt::format("layer {} has no forget gates", layer), {}, {}};
}

Result<std::shared_ptr<const RetentionData>> loadRetention(const data::TraceReader& reader,
                                                           int layer, int head) {
    const data::LayerInfo* info = reader.summary().layer(layer);
    if (!info || !info->hasGates) {
        return noGatesError(reader.summary(), layer);
    }
    auto out = std::make_shared<RetentionData>();
    out->layer = layer;
    out->head = head;
    out->heads = info->header.nHeads;
    out->channels = std::max(1, info->header.nChannels);
    out->n = reader.summary().nTokens;
    auto rows = reader.gatesForHead(layer, head, 0, out->n);
    if (!rows) return rows.error();
    if (rows->shape.size() == 2) out->channels = static_cast<int>(rows->shape[1]);
    out->logRetention = std::move(rows->values);
    if (out->channels == 1) {
        for (int h = 0; h < out->heads; ++h) {
            auto g = reader.gatesForHead(layer, h, 0, out->n);
            if (!g) return g.error();
            for (float& v : g->values)
                v = std::exp(v);
            out->headRetention.push_back(std::move(g->values));
        }
    }
    return std::shared_ptr<const RetentionData>(std::move(out));
}

std::vector<float> cumulativeRetention(const RetentionData& data, int channel, int64_t from) {
    std::vector<float> out(static_cast<size_t>(data.n), std::numeric_limits<float>::quiet_NaN());
    if (from < 0 || from >= data.n || channel < 0 || channel >= data.channels) return out;
    double logSum = 0;  // double: 64k terms
    out[static_cast<size_t>(from)] = 1.f;
    for (int64_t i = from + 1; i < data.n; ++i) {
        logSum += data.logAt(i, channel);
        out[static_cast<size_t>(i)] = static_cast<float>(std::exp(logSum));
    }
    return out;
}

std::vector<float> channelRetention(const RetentionData& data, int channel) {
    std::vector<float> out(static_cast<size_t>(data.n));
    for (int64_t i = 0; i < data.n; ++i)
        out[static_cast<size_t>(i)] = std::exp(data.logAt(i, channel));
    return out;
}

}  // namespace gatescope::widgets
