// `gatescope export TRACE --figure KIND --out fig.png|svg|pdf`: the viewer's figure painter
// without a display (Qt's offscreen platform). GUI builds only; headless builds say so (exit 2).
#include <cstdlib>
#include <optional>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/option_checks.h"
#include "app/cli/report.h"
#include "core/analysis/stats_report.h"
#include "data/trace/trace_limits.h"
#include "data/trace/trace_schema.h"
#ifdef GATESCOPE_WITH_GUI
#include <QGuiApplication>

#include "app/cli/analysis_export.h"
#include "app/cli/offscreen_figures.h"
#include "core/input/list_syntax.h"
#include "widgets/figures/figure.h"
#endif

namespace gatescope::app {

namespace {

constexpr int kMinDpi = 10, kMaxDpi = 1200;
constexpr double kMaxFigureSide = 10000;           ///< 1/100 inch: 100 inches
constexpr int64_t kMaxGridPanels = 4096;           ///< layers x heads of --figure grid
constexpr double kMaxPngPixels = double(1 << 28);  ///< 1 GiB of RGB32

class ExportCommand final : public Command {
public:
    void declare(CLI::App& sub) override {
        sub.add_option("traces", m_traces,
                       "Trace (.h5); for --figure series, one per checkpoint of one text")
            ->required();
        sub.add_option("--figure", m_figure,
                       "map, grid, retention, loss, compare, context (effective context: layers x "
                       "heads by position) or series (checkpoint series against the step)")
            ->capture_default_str();
        sub.add_flag("--attention", m_analysis.attention,
                     "context, series: also attention horizons, sink mass and prunable fraction "
                     "(exact, O(N^2) work per head)");
        sub.add_option("--mass-share", m_analysis.attentionOptions.massShare,
                       "context, series: attention horizon's share of each query's mass, (0, 1]")
            ->capture_default_str()
            ->check(CLI::Range(0.0, 1.0));
        sub.add_option("--horizon-threshold", m_analysis.gate.horizonThreshold,
                       "context, series: gate horizon's retention threshold, in (0, 1)")
            ->capture_default_str()
            ->check(openUnitInterval());
        sub.add_option("--bin-width", m_analysis.linearBinWidth, "context: positions per column")
            ->capture_default_str()
            ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
        sub.add_option("--steps", m_analysis.steps,
                       "series: the training step of each trace (default: from the checkpoint "
                       "folders' names)")
            ->delimiter(',')
            ->check(CLI::NonNegativeNumber);
        sub.add_option("--map", m_map, "attention, decay or product (attention x decay)")
            ->capture_default_str();
        sub.add_option("--layer", m_layer, "Layer")
            ->capture_default_str()
            ->check(CLI::Range(0, data::kMaxLayers - 1));
        sub.add_option("--head", m_head, "Head")
            ->capture_default_str()
            ->check(CLI::Range(0, data::kMaxTraceHeads - 1));
        sub.add_option("--range", m_range, "Tokens A:B (end exclusive; default: all)");
        sub.add_option("--queries", m_queries,
                       "map, compare: query rows A:B, with --range as the keys (any rectangle "
                       "of the map, as the viewer shows it; default: the --range tokens)");
        sub.add_option("--compare", m_compare, "Second trace (B) of the compare figure");
        sub.add_option("--colormap", m_colormap, "viridis, magma, cividis or diverging")
            ->capture_default_str();
        sub.add_option("--scale", m_scale,
                       "Colour scale of map, compare, grid: linear, log or gamma")
            ->capture_default_str();
        sub.add_option("--gamma", m_gamma, "Exponent of --scale gamma")
            ->capture_default_str()
            ->check(finiteRange(0.01, 100));
        sub.add_option("--value-range", m_valueRange,
                       "Values the colormap spans, LO:HI (default: from the figure's cells)");
        sub.add_option("--dpi", m_dpi, "PNG resolution (dots per inch)")
            ->capture_default_str()
            ->check(CLI::Range(kMinDpi, kMaxDpi));
        sub.add_option("--width", m_width, "Figure width in 1/100 inch (default: per kind)")
            ->check(finiteRange(0, kMaxFigureSide));
        sub.add_option("--height", m_height, "Figure height in 1/100 inch (default: per kind)")
            ->check(finiteRange(0, kMaxFigureSide));
        sub.add_option("--out", m_out, "Output: .png, .svg or .pdf")->required();
    }

    int run() override;

private:
    std::vector<std::string> m_traces;
    core::StatsOptions m_analysis;
    std::string m_figure = "map", m_map = "attention", m_range, m_compare, m_colormap = "viridis",
                m_scale = "linear", m_valueRange, m_out, m_queries;
    double m_gamma = 0.5;
    int m_layer = 0, m_head = 0, m_dpi = 150;
    double m_width = 0, m_height = 0;
};

#ifdef GATESCOPE_WITH_GUI
int usageError(const std::string& message) {
    return reportError(Error{ErrorKind::Usage, message, {}, {}});
}

int ExportCommand::run() {
    using namespace widgets;
    widgets::FigureOptions o;
    const auto kind = parseFigureKind(m_figure);
    if (!kind)
        return usageError(
            "--figure must be map, grid, retention, loss, compare, context or series");
    o.kind = *kind;
    const auto map = parseMapView(m_map);
    if (!map) return usageError("--map must be attention, decay or product");
    o.map = *map;
    o.colors.gamma = m_gamma;
    const auto colormap = parseColormap(m_colormap);
    if (!colormap) return usageError("--colormap must be viridis, magma, cividis or diverging");
    o.colors.colormap = *colormap;
    const auto scale = parseScale(m_scale);
    if (!scale) return usageError("--scale must be linear, log or gamma");
    o.colors.scale = *scale;
    if (!m_valueRange.empty()) {
        auto values = parseValueRange(m_valueRange, o.colors.scale);
        if (!values) return reportError(values.error());
        o.colors.autoRange = false;
        o.colors.fixedLo = values->lo;
        o.colors.fixedHi = values->hi;
    }
    o.layer = m_layer;
    o.head = m_head;
    o.width = m_width;
    o.height = m_height;
    if (!m_range.empty()) {
        auto range = core::parseRange(m_range, "--range");
        if (!range) return reportError(range.error());
        o.begin = range->begin;
        o.end = range->end.value_or(-1);
    }
    if (!m_queries.empty()) {
        if (o.kind != FigureKind::Map && o.kind != FigureKind::Compare)
            return usageError("--queries is for --figure map and compare");
        auto queries = core::parseRange(m_queries, "--queries");
        if (!queries) return reportError(queries.error());
        o.queryBegin = queries->begin;
        o.queryEnd = queries->end.value_or(-1);
    }
    const auto format = formatFromPath(m_out);
    if (!format) return usageError("--out must end in .png, .svg or .pdf");
    if (o.kind == FigureKind::Compare && m_compare.empty())
        return usageError("--figure compare needs --compare B.h5");

    const auto app = startOffscreenGui();
    if (o.kind == FigureKind::Context || o.kind == FigureKind::Series)
        return exportAnalysisFigure({m_traces, o, m_analysis, m_out, m_dpi});
    if (m_traces.size() != 1)
        return usageError(
            fmt::format("--figure {} takes one trace (use --compare for B)", toString(o.kind)));

    auto reader = data::TraceReader::open(m_traces[0]);
    if (!reader) return reportError(reader.error());
    std::shared_ptr<data::TraceReader> other;
    if (!m_compare.empty()) {
        auto b = data::TraceReader::open(m_compare);
        if (!b) return reportError(b.error());
        other = *b;
    }
    if (o.kind == FigureKind::Grid) {
        int64_t panels = 0;
        for (const auto& layer : (*reader)->summary().layers)
            panels += layer.header.nHeads;
        if (panels > kMaxGridPanels)
            return usageError(
                fmt::format("--figure grid would draw {} panels (layers x heads), "
                            "more than {}; use --figure map per layer and head",
                            panels, kMaxGridPanels));
    }
    auto figure = makeFigure(**reader, o, other.get());
    if (!figure) return reportError(figure.error());
    if (*format == FigureFormat::Png) {
        const QSizeF size = (*figure)->size();
        const double pixels = size.width() * m_dpi / 100.0 * (size.height() * m_dpi / 100.0);
        if (pixels > kMaxPngPixels)
            return usageError(
                fmt::format("a {:.0f} x {:.0f} figure at {} dpi is {:.0f} "
                            "megapixels, more than {:.0f}; lower --dpi or the size",
                            size.width(), size.height(), m_dpi, pixels / 1e6, kMaxPngPixels / 1e6));
    }
    if (auto st = writeFigure(**figure, m_out, *format, m_dpi); !st) return reportError(st.error());
    fmt::print("wrote {} ({}: {})\n", m_out, toString(*format), (*figure)->title());
    return kExitOk;
}
#else
int ExportCommand::run() {
    fmt::print(stderr,
               "gatescope: this build has no figure export (configured with GATESCOPE_GUI=OFF); "
               "use `gatescope stats` for the numbers\n");
    return kExitUsage;
}
#endif

}  // namespace

std::unique_ptr<Command> makeExportCommand() {
    return std::make_unique<ExportCommand>();
}

}  // namespace gatescope::app
