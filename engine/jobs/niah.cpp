#include "engine/jobs/niah.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/analysis/niah_prompt.h"
#include "core/checkpoint/checkpoint.h"
#include "core/tokenizer/load_tokenizer.h"
#include "data/common/atomic_file.h"
#include "data/common/input_file.h"
#include "data/trace/trace_reader.h"

namespace gatescope::core {

namespace {

Result<std::string> readText(const std::filesystem::path& path) {
    return data::readRegularFile(path, data::input_limits::kInputFile, "a haystack");
}

/// Scores a cell from its trace: target ranks and losses at the positions predicting the answer.
Status score(const std::filesystem::path& trace, const NiahPrompt& p, NiahCell& cell) {
    auto reader = data::TraceReader::open(trace);
    if (!reader) return reader.error();
    auto perToken = (*reader)->perToken();
    if (!perToken) return perToken.error();
    const int64_t n = static_cast<int64_t>(p.ids.size());
    cell.answerTokens = static_cast<int>(n - p.answerBegin);
    cell.matchedPrefix = 0;
    bool prefix = true;
    double loss = 0;
    for (int64_t t = p.answerBegin; t < n; ++t) {
        // Position t - 1 predicts token t.
        const bool top = perToken->targetRank[t - 1] == 0;
        if (prefix && top) ++cell.matchedPrefix;
        prefix = prefix && top;
        loss += perToken->loss[t - 1];
    }
    cell.exactMatch = cell.matchedPrefix == cell.answerTokens;
    cell.answerLoss = cell.answerTokens ? loss / cell.answerTokens : NAN;
    return Ok{};
}

std::string heatmapSvg(const std::vector<NiahCell>& cells, const NiahOptions& o) {
    const int cw = 56, ch = 22, left = 60, top = 30;
    const int w = left + cw * static_cast<int>(o.lengths.size()) + 20;
    const int h = top + ch * static_cast<int>(o.depths.size()) + 40;
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
        "font-family=\"sans-serif\" font-size=\"10\">\n<text x=\"{}\" y=\"16\">needle in a "
        "haystack: fraction of the answer produced greedily</text>\n",
        w, h, left);
    for (const auto& c : cells) {
        const auto col =
            std::find(o.lengths.begin(), o.lengths.end(), c.length) - o.lengths.begin();
        const auto row = std::find(o.depths.begin(), o.depths.end(), c.depth) - o.depths.begin();
        const double s = c.answerTokens ? double(c.matchedPrefix) / c.answerTokens : 0.0;
        // The FoX paper's ramp: red #F0496E -> yellow #EBB839 -> green #0CD79F.
        auto mix = [](double a, double b, double t) { return static_cast<int>(a + (b - a) * t); };
        const double t = s < 0.5 ? s * 2 : (s - 0.5) * 2;
        const int r = s < 0.5 ? mix(0xF0, 0xEB, t) : mix(0xEB, 0x0C, t);
        const int g = s < 0.5 ? mix(0x49, 0xB8, t) : mix(0xB8, 0xD7, t);
        const int b = s < 0.5 ? mix(0x6E, 0x39, t) : mix(0x39, 0x9F, t);
        svg += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
            "fill=\"#{:02X}{:02X}{:02X}\"><title>length {} depth {}%: {}/{}"
            "</title></rect>\n",
            left + col * cw, top + row * ch, cw - 1, ch - 1, r, g, b, c.length, c.depth,
            c.matchedPrefix, c.answerTokens);
    }
    for (std::size_t i = 0; i < o.depths.size(); ++i)
        svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}%</text>\n", left - 4,
                           top + i * ch + 15, o.depths[i]);
    for (std::size_t i = 0; i < o.lengths.size(); ++i)
        svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                           left + i * cw + cw / 2, top + o.depths.size() * ch + 14, o.lengths[i]);
    svg += fmt::format("<text x=\"{}\" y=\"{}\">tokens</text>\n</svg>\n", left,
                       top + o.depths.size() * ch + 32);
    return svg;
}

Status writeGrid(const std::vector<NiahCell>& cells, const NiahOptions& o) {
    nlohmann::json json = {{"model", o.modelDir.string()}, {"haystack", o.haystack.string()},
                           {"needle", o.texts.needle},     {"question", o.texts.question},
                           {"answer", o.texts.answer},     {"lengths", o.lengths},
                           {"depths", o.depths},           {"cells", nlohmann::json::array()}};
    std::string csv =
        "length,depth,exact_match,matched_prefix,answer_tokens,answer_loss,"
        "needle_begin,needle_end,trace\n";
    for (const auto& c : cells) {
        json["cells"].push_back({{"length", c.length},
                                 {"depth", c.depth},
                                 {"exact_match", c.exactMatch},
                                 {"matched_prefix", c.matchedPrefix},
                                 {"answer_tokens", c.answerTokens},
                                 {"answer_loss", c.answerLoss},
                                 {"needle", {c.needleBegin, c.needleEnd}},
                                 {"trace", c.trace.string()}});
        csv += fmt::format("{},{},{},{},{},{:.6f},{},{},{}\n", c.length, c.depth,
                           c.exactMatch ? 1 : 0, c.matchedPrefix, c.answerTokens, c.answerLoss,
                           c.needleBegin, c.needleEnd, c.trace.string());
    }
    if (auto st = data::writeFileAtomically(o.out / "grid.json", json.dump(1)); !st) return st;
    if (auto st = data::writeFileAtomically(o.out / "grid.csv", csv); !st) return st;
    return data::writeFileAtomically(o.out / "heatmap.svg", heatmapSvg(cells, o));
}

}  // namespace

Result<std::vector<NiahCell>> runNiah(const NiahOptions& o,
                                      const std::function<void(int, int)>& progress,
                                      const std::atomic<bool>* cancel) {
    auto checkpoint = Checkpoint::open(o.modelDir);
    if (!checkpoint) return checkpoint.error();
    auto tokenizer = loadTokenizer((*checkpoint)->dir(), (*checkpoint)->config());
    if (!tokenizer) return tokenizer.error();
    auto haystack = readText(o.haystack);
    if (!haystack) return haystack.error();
    std::error_code ec;
    std::filesystem::create_directories(o.out / "cells", ec);
    if (ec)
        return Error{
            ErrorKind::Io, "cannot create the folder: " + ec.message(), o.out.string(), {}};
    std::vector<NiahCell> cells;
    const int total = static_cast<int>(o.lengths.size() * o.depths.size());
    for (int depth : o.depths)
        for (int64_t length : o.lengths) {
            if (cancel && cancel->load()) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
            auto prompt = buildNiahPrompt(**tokenizer, *haystack, length, depth, o.texts);
            if (!prompt) return prompt.error();
            NiahCell cell;
            cell.length = length;
            cell.depth = depth;
            cell.needleBegin = prompt->needleBegin;
            cell.needleEnd = prompt->needleEnd;
            const std::string stem = fmt::format("L{}_d{}", length, depth);
            const auto idsFile = o.out / "cells" / (stem + ".ids");
            if (auto st = data::writeFileAtomically(
                    idsFile, fmt::format("{}\n", fmt::join(prompt->ids, " ")));
                !st)
                return st.error();
            TraceRequest request = o.trace;
            request.modelDir = o.modelDir;
            request.input = InputSpec{};
            request.input.path = idsFile;
            request.input.kind = InputKind::Ids;
            cell.trace = std::filesystem::path("cells") / (stem + ".h5");
            request.out = o.out / cell.trace;
            auto outcome = runTraceJob(request, nullptr, cancel);
            if (!outcome) return outcome.error();
            if (auto st = score(request.out, *prompt, cell); !st) return st.error();
            cells.push_back(cell);
            if (progress) progress(static_cast<int>(cells.size()), total);
        }
    if (auto st = writeGrid(cells, o); !st) return st.error();
    return cells;
}

}  // namespace gatescope::core
