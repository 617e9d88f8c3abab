#include "app/cli/demo_figures.h"

#include <algorithm>

#include <fmt/core.h>

#ifdef GATESCOPE_WITH_GUI
#include <QGuiApplication>

#include "app/cli/offscreen_figures.h"
#include "data/trace/trace_reader.h"
#include "widgets/figures/figure.h"
#endif

namespace gatescope::app {

#ifdef GATESCOPE_WITH_GUI
namespace {

/// The (layer, head) whose attention rows differ most between the models (largest mean JS).
std::pair<int, int> mostDifferentHead(const core::TraceComparison& comparison) {
    std::pair<int, int> best{0, 0};
    double bestJs = -1;
    for (const auto& layer : comparison.layers) {
        for (const auto& head : layer.heads) {
            const double js = head.attention ? head.attention->js : -1.0;
            if (js > bestJs) {
                bestJs = js;
                best = {layer.layer, head.head};
            }
        }
    }
    return best;
}

}  // namespace

Result<std::vector<std::filesystem::path>> writeDemoFigures(const std::filesystem::path& a,
                                                            const std::filesystem::path& b,
                                                            const core::TraceComparison& comparison,
                                                            const std::filesystem::path& dir) {
    const auto app = startOffscreenGui();
    auto ra = data::TraceReader::open(a);
    if (!ra) return ra.error();
    auto rb = data::TraceReader::open(b);
    if (!rb) return rb.error();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Error{ErrorKind::Io, "cannot create folder: " + ec.message(), dir.string(), {}};

    const auto [layer, head] = mostDifferentHead(comparison);
    const std::string nameA = a.stem().string(), nameB = b.stem().string();
    const std::string at = fmt::format("L{}H{}", layer, head);
    struct Job {
        const data::TraceReader* reader;
        widgets::FigureKind kind;
        std::string file;
    };
    using widgets::FigureKind;
    const std::vector<Job> jobs = {
        {ra->get(), FigureKind::Grid, nameA + "-grid.png"},
        {rb->get(), FigureKind::Grid, nameB + "-grid.png"},
        {ra->get(), FigureKind::Retention, fmt::format("{}-retention-L{}.svg", nameA, layer)},
        {ra->get(), FigureKind::Map, fmt::format("{}-map-{}.png", nameA, at)},
        {rb->get(), FigureKind::Map, fmt::format("{}-map-{}.png", nameB, at)},
        {ra->get(), FigureKind::Compare, fmt::format("compare-{}.png", at)},
        {ra->get(), FigureKind::Loss, nameA + "-loss.svg"},
    };
    std::vector<std::filesystem::path> written;
    for (const auto& job : jobs) {
        widgets::FigureOptions options;
        options.kind = job.kind;
        options.layer = layer;
        options.head = head;
        if (job.kind == FigureKind::Map || job.kind == FigureKind::Compare)
            options.colors.colormap = widgets::ColormapKind::Magma;
        if (job.kind == FigureKind::Map) {
            // The first 1024 tokens, cell by cell: across the samples' 512-byte training length,
            // where the Transformer starts to differ; the compare panel shows the whole text.
            options.end = std::min<int64_t>(1024, job.reader->summary().nTokens);
        }
        auto figure = widgets::makeFigure(*job.reader, options,
                                          job.kind == FigureKind::Compare ? rb->get() : nullptr);
        if (!figure) {
            Error e = figure.error();
            e.message = fmt::format("demo figure {}: {}", job.file, e.message);
            return e;
        }
        const auto path = dir / job.file;
        if (auto st = widgets::writeFigure(**figure, path, *widgets::formatFromPath(path), 150);
            !st)
            return st.error();
        written.push_back(path);
    }
    return written;
}
#else
Result<std::vector<std::filesystem::path>> writeDemoFigures(const std::filesystem::path&,
                                                            const std::filesystem::path&,
                                                            const core::TraceComparison&,
                                                            const std::filesystem::path&) {
    return std::vector<std::filesystem::path>{};
}
#endif

}  // namespace gatescope::app
