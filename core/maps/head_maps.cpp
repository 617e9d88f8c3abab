#include "core/maps/head_maps.h"

#include <fmt/format.h>

#include "kernels/cpu/tile_recompute.h"

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

Result<std::unique_ptr<kernels::TileSource>> additiveDecay(const MapSpec& spec,
                                                           const HeadFactorSet& f) {
    kernels::AdditiveDecayHead head;
    head.n = f.n;
    auto q = need(f, "q", -1);
    if (!q) return q.error();
    head.dk = static_cast<int>(f.width("q"));
    auto k = need(f, "k", head.dk);
    if (!k) return k.error();
    auto lse = need(f, "lse", 1);
    if (!lse) return lse.error();
    head.q = *q;
    head.k = *k;
    head.lse = *lse;
    if (spec.hasDecay) {
        auto c = need(f, "log_decay_cumsum", 1);
        if (!c) return c.error();
        head.logDecayCumsum = *c;
    }
    head.scale = static_cast<float>(spec.scale);
    head.window = spec.window;
    return std::unique_ptr<kernels::TileSource>(new kernels::AdditiveDecayTileSource(head));
}

}  // namespace

MapSpec mapSpecFromHeader(const data::LayerHeader& header) {
    MapSpec spec;
    spec.scoreKind = header.scoreKind;
    spec.extras = header.extras;
    spec.scale = header.extras.value("scale", 1.0);
    spec.window = header.extras.value("window", int64_t{0});
    spec.hasDecay = header.extras.value("has_decay", false);
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
    if (spec.scoreKind == "additive_decay") {
        std::vector<std::string> names = {"q", "k", "lse"};
        if (spec.hasDecay) names.push_back("log_decay_cumsum");
        return names;
    }
    return {};
}

Result<std::unique_ptr<kernels::TileSource>> makeTileSource(const MapSpec& spec,
                                                            const HeadFactorSet& factors) {
    if (spec.scoreKind == "additive_decay") return additiveDecay(spec, factors);
    return Error{ErrorKind::Unsupported,
                 fmt::format("no tile recompute for score kind '{}'", spec.scoreKind),
                 {},
                 {}};
}

}  // namespace gatescope::core
