#include "widgets/view/needle_grid.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "data/common/bounded_json.h"
#include "data/common/input_file.h"
#include "widgets/view/colormap.h"

namespace gatescope::widgets {

double NeedleGridCell::fraction() const {
    if (answerTokens <= 0) return 0;
    return std::clamp(static_cast<double>(matchedPrefix) / answerTokens, 0.0, 1.0);
}

const NeedleGridCell* NeedleGrid::cell(size_t lengthIndex, size_t depthIndex) const {
    if (lengthIndex >= lengths.size() || depthIndex >= depths.size()) return nullptr;
    for (const auto& c : cells)
        if (c.length == lengths[lengthIndex] && c.depth == depths[depthIndex]) return &c;
    return nullptr;
}

Result<NeedleGrid> parseNeedleGrid(const std::string& text, const std::filesystem::path& file) {
    const std::string where = file.string();
    auto parsed = data::parseBoundedJson(text, where);
    if (!parsed) return parsed.error();
    const nlohmann::json j = std::move(parsed).value();
    if (!j.is_object()) return Error{ErrorKind::Format, "not a JSON object", where, {}};
    for (const char* key : {"lengths", "depths", "cells"})
        if (!j.contains(key) || !j[key].is_array())
            return Error{ErrorKind::Missing, "no array", where, key};
    NeedleGrid grid;
    grid.file = file;
    try {
        grid.model = j.value("model", std::string());
        grid.lengths = j["lengths"].get<std::vector<int64_t>>();
        grid.depths = j["depths"].get<std::vector<int>>();
        const std::filesystem::path folder = file.parent_path();
        for (const auto& c : j["cells"]) {
            NeedleGridCell cell;
            cell.length = c.at("length").get<int64_t>();
            cell.depth = c.at("depth").get<int>();
            cell.exactMatch = c.value("exact_match", false);
            cell.matchedPrefix = c.value("matched_prefix", 0);
            cell.answerTokens = c.value("answer_tokens", 0);
            cell.answerLoss = c.value("answer_loss", 0.0);
            if (c.contains("needle")) {
                const auto& needle = c.at("needle");
                if (!needle.is_array() || needle.size() != 2)
                    return Error{ErrorKind::Format, "needle is not [begin, end]", where, "needle"};
                cell.needleBegin = needle[0].get<int64_t>();
                cell.needleEnd = needle[1].get<int64_t>();
            }
            const std::string trace = c.value("trace", std::string());
            if (!trace.empty()) {
                const std::filesystem::path p(trace);
                cell.trace = p.is_absolute() ? p : folder / p;
            }
            grid.cells.push_back(std::move(cell));
        }
    } catch (const nlohmann::json::exception& e) {
        return Error{ErrorKind::Format, e.what(), where, "cells"};
    }
    return grid;
}

Result<NeedleGrid> loadNeedleGrid(const std::filesystem::path& file) {
    auto text = data::readRegularFile(file, data::input_limits::kRecipe, "a needle grid");
    if (!text) return text.error();
    return parseNeedleGrid(*text, file);
}

uint32_t needleColor(double fraction) {
    const double f = std::isnan(fraction) ? 0.0 : std::clamp(fraction, 0.0, 1.0);
    // The FoX paper's ramp, as heatmap.svg: red #F0496E -> yellow #EBB839 -> green #0CD79F.
    struct C {
        double r, g, b;
    };
    const C red{0xF0, 0x49, 0x6E}, yellow{0xEB, 0xB8, 0x39}, green{0x0C, 0xD7, 0x9F};
    const C& a = f < 0.5 ? red : yellow;
    const C& b = f < 0.5 ? yellow : green;
    const double t = f < 0.5 ? f * 2 : (f - 0.5) * 2;
    auto mix = [t](double x, double y) { return static_cast<uint8_t>(x + (y - x) * t); };
    return packRgba(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
}

NeedleFocus needleFocus(const NeedleGridCell& cell, int64_t n, int64_t marginTokens) {
    NeedleFocus f;
    if (n <= 0) return f;
    auto clampTok = [n](int64_t t) { return std::clamp<int64_t>(t, 0, n); };
    f.cursor = std::clamp<int64_t>(cell.needleBegin, 0, n - 1);
    f.rowBegin = std::min(clampTok(cell.answerStart()), n - 1);
    f.rowEnd = std::max(f.rowBegin + 1, n);
    f.colBegin = std::min(clampTok(cell.needleBegin - marginTokens), n - 1);
    f.colEnd = std::max(f.colBegin + 1, clampTok(cell.needleEnd + marginTokens));
    return f;
}

}  // namespace gatescope::widgets
