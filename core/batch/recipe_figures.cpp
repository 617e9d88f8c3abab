#include "core/batch/recipe_figures.h"

#include <algorithm>
#include <string_view>

#include <fmt/core.h>

#include "core/batch/recipe_keys.h"
#include "core/input/list_syntax.h"

namespace gatescope::core {

namespace {

constexpr int kMaxDpi = 2400;

bool oneOf(const std::string& value, std::initializer_list<std::string_view> allowed) {
    return std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

}  // namespace

Result<std::vector<BatchFigure>> parseRecipeFigures(const nlohmann::json& figures,
                                                    const std::filesystem::path& file) {
    const auto error = [&](const std::string& key, const std::string& what) {
        return Error{ErrorKind::Format, what, file.string(), "figures." + key};
    };
    if (!figures.is_array())
        return Error{ErrorKind::Format, "a list of figures", file.string(), "figures"};
    std::vector<BatchFigure> out;
    for (const auto& f : figures) {
        if (!f.is_object() || !f.contains("figure") || !f["figure"].is_string())
            return error("figure", "each figure is an object with a \"figure\" kind");
        if (auto st = rejectUnknownKeys(
                f, {"figure", "layer", "head", "map", "range", "format", "dpi"}, "figures.", file);
            !st)
            return st.error();
        for (const char* key : {"layer", "head", "dpi"})
            if (f.contains(key) && !f[key].is_number_integer()) return error(key, "an integer");
        for (const char* key : {"map", "range", "format"})
            if (f.contains(key) && !f[key].is_string()) return error(key, "a string");

        BatchFigure figure;
        figure.source = f;
        figure.kind = f["figure"].get<std::string>();
        if (!std::any_of(std::begin(kBatchFigureKinds), std::end(kBatchFigureKinds),
                         [&](const char* k) { return figure.kind == k; }))
            return error("figure", fmt::format("'{}': a batch draws map, grid, retention or loss",
                                               figure.kind));
        for (const char* key : {"layer", "head"}) {
            const auto v = f.value(key, int64_t{0});
            if (v < 0 || v > kMaxListIndex)
                return error(key, fmt::format("{} is out of range 0..{}", v, kMaxListIndex));
            (std::string_view(key) == "layer" ? figure.layer : figure.head) = int(v);
        }
        const auto map = f.value("map", std::string("attention"));
        const auto kind = kernels::parseMapKind(map);
        if (!kind || *kind == kernels::MapKind::Logit)
            return error("map", fmt::format("'{}': attention or decay", map));
        figure.map = *kind;
        if (f.contains("range")) {
            auto range = parseRange(f["range"].get<std::string>(), "range");
            if (!range) return error("range", range.error().message);
            figure.begin = range->begin;
            figure.end = range->end;
        }
        figure.format = f.value("format", std::string("svg"));
        if (!oneOf(figure.format, {"svg", "png", "pdf"}))
            return error("format", fmt::format("'{}': svg, png or pdf", figure.format));
        const auto dpi = f.value("dpi", int64_t{150});
        if (dpi < 1 || dpi > kMaxDpi)
            return error("dpi", fmt::format("{} is out of range 1..{}", dpi, kMaxDpi));
        figure.dpi = int(dpi);
        out.push_back(std::move(figure));
    }
    return out;
}

}  // namespace gatescope::core
