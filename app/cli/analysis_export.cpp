// Built into GUI builds only (widgets/ is Qt).
#ifdef GATESCOPE_WITH_GUI
#include "app/cli/analysis_export.h"

#include <fmt/core.h>

#include "app/cli/interrupt.h"
#include "app/cli/report.h"
#include "widgets/figures/analysis_figures.h"

namespace gatescope::app {

int exportAnalysisFigure(AnalysisExport r) {
    using widgets::FigureKind;
    const bool series = r.figure.kind == FigureKind::Series;
    if (!series && r.traces.size() != 1)
        return reportError(
            Error{ErrorKind::Usage, "--figure context takes one trace", {}, "--figure"});
    if (series && r.traces.size() < 2)
        return reportError(Error{ErrorKind::Usage,
                                 "--figure series takes two or more traces of one text, one per "
                                 "checkpoint",
                                 {},
                                 "--figure"});
    const auto format = widgets::formatFromPath(r.out);
    if (!format)
        return reportError(Error{ErrorKind::Usage, "--out must end in .png, .svg or .pdf", {}, {}});
    std::vector<std::shared_ptr<const data::TraceReader>> readers;
    for (const auto& path : r.traces) {
        auto reader = data::TraceReader::open(path);
        if (!reader) return reportError(reader.error());
        readers.push_back(*reader);
    }
    r.stats.series = series;
    r.stats.attentionOptions.cancel = &installInterruptFlag();
    auto report = core::statsReport(readers, r.stats);
    if (!report) return reportError(report.error());
    auto figure = series ? widgets::makeSeriesFigure(*report, r.figure)
                         : widgets::makeContextFigure(*report, r.figure);
    if (!figure) return reportError(figure.error());
    if (auto st = widgets::writeFigure(**figure, r.out, *format, r.dpi); !st)
        return reportError(st.error());
    fmt::print("wrote {} ({}: {})\n", r.out, widgets::toString(*format), (*figure)->title());
    return kExitOk;
}

}  // namespace gatescope::app
#endif
