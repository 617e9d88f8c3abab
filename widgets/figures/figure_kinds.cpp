// The figure kinds' names, as `gatescope export --figure` and batch recipes spell them.
#include "widgets/figures/figure.h"

namespace gatescope::widgets {

const char* toString(FigureKind kind) {
    switch (kind) {
        case FigureKind::Map:
            return "map";
        case FigureKind::Grid:
            return "grid";
        case FigureKind::Retention:
            return "retention";
        case FigureKind::Loss:
            return "loss";
        case FigureKind::Compare:
            return "compare";
        case FigureKind::Context:
            return "context";
        case FigureKind::Series:
            return "series";
    }
    return "map";
}

std::optional<FigureKind> parseFigureKind(std::string_view name) {
    for (auto k : {FigureKind::Map, FigureKind::Grid, FigureKind::Retention, FigureKind::Loss,
                   FigureKind::Compare, FigureKind::Context, FigureKind::Series})
        if (name == toString(k)) return k;
    return std::nullopt;
}

}  // namespace gatescope::widgets
