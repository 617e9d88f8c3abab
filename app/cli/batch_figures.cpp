#include "app/cli/batch_figures.h"

#include <fmt/core.h>

#include "core/batch/output_paths.h"
#include "core/batch/run_status.h"

#ifdef GATESCOPE_WITH_GUI
#include <QGuiApplication>

#include "app/cli/offscreen_figures.h"
#include "widgets/figures/figure.h"
#endif

namespace gatescope::app {

#ifdef GATESCOPE_WITH_GUI
namespace {

widgets::FigureOptions figureOptions(const core::BatchFigure& f) {
    widgets::FigureOptions o;
    // The recipe reader admits only the kinds core::kBatchFigureKinds names.
    o.kind = widgets::parseFigureKind(f.kind).value_or(widgets::FigureKind::Map);
    o.layer = f.layer;
    o.head = f.head;
    o.map =
        f.map == kernels::MapKind::Decay ? widgets::MapView::Decay : widgets::MapView::Attention;
    o.begin = f.begin;
    o.end = f.end.value_or(-1);
    return o;
}

}  // namespace

Result<int> writeBatchFigures(const core::BatchRecipe& recipe,
                              const std::vector<core::BatchRun>& plan) {
    if (recipe.figures.empty()) return 0;
    const auto app = startOffscreenGui();
    int written = 0;
    for (const auto& run : plan) {
        if (core::readRunStatus(recipe, run).state != "done") continue;
        std::shared_ptr<data::TraceReader> reader;
        for (const auto& f : recipe.figures) {
            auto options = figureOptions(f);
            const auto stem = run.trace.stem().string();
            const auto inside = core::pathInside(
                recipe.output, std::filesystem::path("figures") / run.checkpoint /
                                   fmt::format("{}.{}-L{}H{}.{}", stem, f.kind, options.layer,
                                               options.head, f.format));
            if (!inside) return inside.error();
            const auto& path = *inside;
            if (std::filesystem::exists(path)) continue;
            const auto kind = widgets::formatFromPath(path);
            if (!kind)
                return Error{ErrorKind::Usage, "format must be svg, png or pdf", {}, f.format};
            if (!reader) {
                const auto trace = core::pathInside(recipe.output, run.trace);
                if (!trace) return trace.error();
                auto opened = data::TraceReader::open(*trace);
                if (!opened) return opened.error();
                reader = *opened;
            }
            // Runs differ in length (the last chunk of a document is short): clamp the range.
            const int64_t n = reader->summary().nTokens;
            if (options.end > n) options.end = n;
            if (options.begin >= n) options.begin = 0;
            auto figure = widgets::makeFigure(*reader, options);
            if (!figure) {
                Error e = figure.error();
                e.message = fmt::format("{}: figure {}: {}", run.id, f.source.dump(), e.message);
                return e;
            }
            std::error_code ec;
            std::filesystem::create_directories(path.parent_path(), ec);
            if (auto st = widgets::writeFigure(**figure, path, *kind, f.dpi); !st)
                return st.error();
            ++written;
        }
    }
    return written;
}
#else
Result<int> writeBatchFigures(const core::BatchRecipe& recipe, const std::vector<core::BatchRun>&) {
    if (!recipe.figures.empty())
        fmt::print(stderr,
                   "gatescope: batch: figures skipped: this build has no Qt "
                   "(GATESCOPE_GUI=OFF); the traces and tables are complete\n");
    return 0;
}
#endif

}  // namespace gatescope::app
