// gatescope._figures: `gatescope export` from Python. The figure painter of widgets/figures (Qt
// GUI on its offscreen platform; no LibTorch, no display), with the CLI's options and limits, so
// a figure from Python is the same file as the CLI's. Qt wants its application on one thread:
// call export from the thread that first did (in a notebook, the kernel's main thread).
#include <cstdlib>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <pybind11/stl.h>
#include <QGuiApplication>
#include <QHashFunctions>

#include "core/input/list_syntax.h"
#include "py_support.h"
#include "widgets/figures/figure.h"

namespace gatescope::python {

namespace {

constexpr int64_t kMaxGridPanels = 4096;           ///< as `gatescope export`
constexpr double kMaxPngPixels = double(1 << 28);  ///< as `gatescope export`

Error usage(std::string message) {
    return Error{ErrorKind::Usage, std::move(message), {}, {}};
}

/// The process's QGuiApplication: created (offscreen, with the CLI's fixed hash seed, so output
/// bytes repeat) on first use unless the process already has one. Never destroyed: Python may
/// unload modules in any order at exit, after which Qt's teardown could not run safely.
void ensureGui() {
    if (QGuiApplication::instance()) return;
    setenv("QT_QPA_PLATFORM", "offscreen", 0);
    QHashSeed::setDeterministicGlobalSeed();
    static char name[] = "gatescope";
    static char* argv[] = {name, nullptr};
    static int argc = 1;
    new QGuiApplication(argc, argv);
}

Result<std::string> exportFigure(const py::dict& o) {
    using namespace widgets;
    FigureOptions f;
    const auto kind = parseFigureKind(o["figure"].cast<std::string>());
    if (!kind) return usage("figure must be map, grid, retention, loss or compare");
    f.kind = *kind;
    const auto map = parseMapView(o["map"].cast<std::string>());
    if (!map) return usage("map must be attention, decay or product");
    f.map = *map;
    const auto colormap = parseColormap(o["colormap"].cast<std::string>());
    if (!colormap) return usage("colormap must be viridis, magma, cividis or diverging");
    f.colors.colormap = *colormap;
    f.layer = o["layer"].cast<int>();
    f.head = o["head"].cast<int>();
    f.begin = o["begin"].cast<int64_t>();
    f.end = o["end"].cast<int64_t>();
    f.width = o["width"].cast<double>();
    f.height = o["height"].cast<double>();
    const int dpi = o["dpi"].cast<int>();
    if (dpi < 10 || dpi > 1200) return usage("dpi must be in [10, 1200]");
    const std::string out = o["out"].cast<std::string>();
    const auto format = formatFromPath(out);
    if (!format) return usage("out must end in .png, .svg or .pdf");
    const std::string comparePath = o["compare"].cast<std::string>();
    if (f.kind == FigureKind::Compare && comparePath.empty())
        return usage("figure compare needs compare=B (a second trace)");
    const std::string path = o["trace"].cast<std::string>();

    py::gil_scoped_release release;
    auto reader = data::TraceReader::open(path);
    if (!reader) return reader.error();
    std::shared_ptr<data::TraceReader> other;
    if (!comparePath.empty()) {
        auto b = data::TraceReader::open(comparePath);
        if (!b) return b.error();
        other = *b;
    }
    if (f.kind == FigureKind::Grid) {
        int64_t panels = 0;
        for (const auto& layer : (*reader)->summary().layers)
            panels += layer.header.nHeads;
        if (panels > kMaxGridPanels)
            return usage(fmt::format("figure grid would draw {} panels, more than {}", panels,
                                     kMaxGridPanels));
    }
    auto figure = makeFigure(**reader, f, other.get());
    if (!figure) return figure.error();
    if (*format == FigureFormat::Png) {
        const QSizeF size = (*figure)->size();
        const double pixels = size.width() * dpi / 100.0 * (size.height() * dpi / 100.0);
        if (pixels > kMaxPngPixels)
            return usage(fmt::format("a {:.0f} megapixel PNG is more than {:.0f}; lower dpi",
                                     pixels / 1e6, kMaxPngPixels / 1e6));
    }
    if (auto st = writeFigure(**figure, out, *format, dpi); !st) return st.error();
    return (*figure)->title();
}

}  // namespace

}  // namespace gatescope::python

PYBIND11_MODULE(_figures, m) {
    using namespace gatescope::python;
    registerErrors();
    m.doc() = "gatescope's figure export; use gatescope.Trace.export()";
    m.def(
        "export",
        [](const py::dict& options) {
            ensureGui();
            return unwrap(exportFigure(options));
        },
        py::arg("options"));
}
