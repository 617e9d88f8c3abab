#include "core/maps/head_maps.h"

#include <fmt/format.h>

#include "kernels/cpu/gsa_tile_source.h"
#include "kernels/cpu/power_tile_source.h"
#include "kernels/cpu/tile_recompute.h"
#include "kernels/cpu/wall_tile_source.h"

namespace gatescope::core {

namespace {

Result<const float*> need(const HeadFactorSet& f, const std::string& name, int64_t width) {
    const float* data = f.find(name);
    if (!data)
        return Error{ErrorKind::Missing, "factor needed to recompute tiles is absent", {}, name};
    if (width > 0 && f.width(name) != width) {
        return Error{ErrorKind::Shape,
                     fmt::format("factor has width {}, expected {}", f.width(name), width),
                     {},
                     name};
    }
    return data;
}

/// The factors every score-based family shares: q, k of one width, a row normalizer, and the
/// scalar cumulative decay when the layer has one.
struct ScoreFactors {
    const float* q = nullptr;
    const float* k = nullptr;
    const float* normalizer = nullptr;
    const float* decay = nullptr;
    int dk = 0;
};

Result<ScoreFactors> scoreFactors(const HeadFactorSet& f, const char* normalizer,
                                  bool scalarDecay) {
    ScoreFactors out;
    auto q = need(f, "q", -1);
    if (!q) return q.error();
    out.q = *q;
    out.dk = static_cast<int>(f.width("q"));
    auto k = need(f, "k", out.dk);
    if (!k) return k.error();
    out.k = *k;
    auto z = need(f, normalizer, 1);
    if (!z) return z.error();
    out.normalizer = *z;
    if (scalarDecay) {
        auto c = need(f, "log_decay_cumsum", 1);
        if (!c) return c.error();
        out.decay = *c;
    }
    return out;
}

Result<std::unique_ptr<kernels::TileSource>> additiveDecay(const MapSpec& spec,
                                                           const HeadFactorSet& f) {
    auto sf = scoreFactors(f, "lse", spec.hasDecay);
    if (!sf) return sf.error();
    kernels::AdditiveDecayHead head;
    head.n = f.n;
    head.dk = sf->dk;
    head.q = sf->q;
    head.k = sf->k;
    head.lse = sf->normalizer;
    head.logDecayCumsum = sf->decay;
    head.scale = static_cast<float>(spec.scale);
    head.window = spec.window;
    return std::unique_ptr<kernels::TileSource>(new kernels::AdditiveDecayTileSource(head));
}

Result<std::unique_ptr<kernels::TileSource>> power(const MapSpec& spec, const HeadFactorSet& f) {
    auto sf = scoreFactors(f, "log_normalizer", spec.hasDecay);
    if (!sf) return sf.error();
    kernels::PowerHead head;
    head.n = f.n;
    head.dk = sf->dk;
    head.q = sf->q;
    head.k = sf->k;
    head.logNormalizer = sf->normalizer;
    head.logDecayCumsum = sf->decay;
    head.scale = static_cast<float>(spec.scale);
    head.degree = spec.extras.value("p", 2);
    head.eps = spec.extras.value("eps", kernels::kPowerLogEps);
    return std::unique_ptr<kernels::TileSource>(new kernels::PowerTileSource(head));
}

Result<std::unique_ptr<kernels::TileSource>> gsa(const HeadFactorSet& f) {
    kernels::GsaHead head;
    head.n = f.n;
    auto probs = need(f, "slot_probs", -1);
    if (!probs) return probs.error();
    head.slots = static_cast<int>(f.width("slot_probs"));
    auto write = need(f, "write", head.slots);
    if (!write) return write.error();
    auto cumsum = need(f, "log_forget_cumsum", head.slots);
    if (!cumsum) return cumsum.error();
    head.slotProbs = *probs;
    head.write = *write;
    head.logForgetCumsum = *cumsum;
    return std::unique_ptr<kernels::TileSource>(new kernels::GsaTileSource(head));
}

/// Wall's packed-document starts from the layer's extras ("document_starts"; absent: one
/// document): integers, the first 0, strictly increasing, each < n.
Result<std::vector<int64_t>> documentStarts(const MapSpec& spec, int64_t n) {
    std::vector<int64_t> starts;
    const auto it = spec.extras.find("document_starts");
    if (it == spec.extras.end() || it->is_null()) return starts;
    const Error bad{ErrorKind::Format,
                    "document_starts must be increasing token positions starting at 0, each < N",
                    {},
                    "document_starts"};
    if (!it->is_array()) return bad;
    for (const auto& v : *it) {
        if (!v.is_number_integer()) return bad;
        const int64_t start = v.get<int64_t>();
        if (start >= n || (starts.empty() ? start != 0 : start <= starts.back())) return bad;
        starts.push_back(start);
    }
    return starts;
}

Result<std::unique_ptr<kernels::TileSource>> wall(const MapSpec& spec, const HeadFactorSet& f) {
    auto sf = scoreFactors(f, "lse", false);
    if (!sf) return sf.error();
    kernels::WallHead head;
    head.n = f.n;
    head.dk = sf->dk;
    head.q = sf->q;
    head.k = sf->k;
    head.lse = sf->normalizer;
    head.gatedChannels = spec.extras.value("gated_channels", 0);
    if (head.gatedChannels < 0 || head.gatedChannels > head.dk) {
        return Error{
            ErrorKind::Shape, "gated_channels outside [0, head dim]", {}, "gated_channels"};
    }
    if (head.gatedChannels > 0) {
        auto p = need(f, "log_decay_cumsum", head.gatedChannels);
        if (!p) return p.error();
        head.logDecayCumsum = *p;
    }
    const auto scalarGate = spec.extras.find("scalar_gate");
    if (scalarGate != spec.extras.end() && !scalarGate->is_boolean())
        return Error{ErrorKind::Format, "scalar_gate must be true or false", {}, "scalar_gate"};
    if (scalarGate != spec.extras.end() && scalarGate->get<bool>()) {
        auto c = need(f, "log_scalar_decay_cumsum", 1);
        if (!c) return c.error();
        head.scalarDecayCumsum = *c;
    }
    if (spec.window < 0) return Error{ErrorKind::Format, "window must be >= 0", {}, "window"};
    head.window = spec.window;
    head.scale = static_cast<float>(spec.scale);
    auto starts = documentStarts(spec, f.n);
    if (!starts) return starts.error();
    return std::unique_ptr<kernels::TileSource>(
        new kernels::WallTileSource(head, std::move(*starts)));
}

}  // namespace

Result<MapSpec> mapSpecFromHeader(const data::LayerHeader& header) {
    const auto kind = parseScoreKind(header.scoreKind);
    if (!kind)
        return Error{ErrorKind::Unsupported,
                     fmt::format("layer score kind '{}' has no tile recompute (known: "
                                 "additive_decay, power, gsa, wall)",
                                 header.scoreKind),
                     {},
                     "score_kind"};
    MapSpec spec;
    spec.scoreKind = *kind;
    spec.extras = header.extras;
    spec.scale = header.extras.value("scale", 1.0);
    spec.window = header.extras.value("window", int64_t{0});
    spec.hasDecay = header.extras.value("has_decay", false);
    return spec;
}

MapSpec mapSpecOf(const LayerAttention& attention) {
    MapSpec spec;
    spec.scoreKind = attention.scoreKind;
    spec.scale = attention.scale;
    spec.window = attention.window;
    spec.hasDecay = attention.hasDecay;
    spec.extras = attention.extras;
    return spec;
}

void HeadFactorSet::add(const std::string& name, std::vector<float> values, int64_t width) {
    arrays[name] = std::move(values);
    widths[name] = width;
}

const float* HeadFactorSet::find(const std::string& name) const {
    auto it = arrays.find(name);
    return it == arrays.end() ? nullptr : it->second.data();
}

int64_t HeadFactorSet::width(const std::string& name) const {
    auto it = widths.find(name);
    return it == widths.end() ? 0 : it->second;
}

std::vector<kernels::MapKind> availableMaps(const MapSpec& spec) {
    if (spec.hasDecay) return {kernels::MapKind::Attention, kernels::MapKind::Decay};
    return {kernels::MapKind::Attention};
}

std::vector<std::string> requiredFactors(const MapSpec& spec) {
    std::vector<std::string> names;
    switch (spec.scoreKind) {
        case ScoreKind::AdditiveDecay:
            names = {"q", "k", "lse"};
            if (spec.hasDecay) names.push_back("log_decay_cumsum");
            break;
        case ScoreKind::Power:
            names = {"q", "k", "log_normalizer"};
            if (spec.hasDecay) names.push_back("log_decay_cumsum");
            break;
        case ScoreKind::Gsa:
            names = {"slot_probs", "write", "log_forget_cumsum"};
            break;
        case ScoreKind::Wall: {
            names = {"q", "k", "lse"};
            if (spec.extras.value("gated_channels", 0) > 0) names.push_back("log_decay_cumsum");
            const auto scalarGate = spec.extras.find("scalar_gate");
            if (scalarGate != spec.extras.end() && scalarGate->is_boolean() &&
                scalarGate->get<bool>())
                names.push_back("log_scalar_decay_cumsum");
            break;
        }
    }
    return names;
}

Result<std::unique_ptr<kernels::TileSource>> makeTileSource(const MapSpec& spec,
                                                            const HeadFactorSet& factors) {
    switch (spec.scoreKind) {
        case ScoreKind::AdditiveDecay:
            return additiveDecay(spec, factors);
        case ScoreKind::Power:
            return power(spec, factors);
        case ScoreKind::Gsa:
            return gsa(factors);
        case ScoreKind::Wall:
            return wall(spec, factors);
    }
    return Error{ErrorKind::Internal, "unhandled score kind", {}, {}};
}

}  // namespace gatescope::core
