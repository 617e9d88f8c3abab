#include "widgets/view/colormap.h"

#include <cmath>
#include <vector>

namespace gatescope::widgets {

namespace {

using Rgb = std::array<uint8_t, 3>;

// Evenly spaced anchors of the published maps (matplotlib's viridis, magma and cividis at
// t = 0, 0.1, ..., 1; the diverging map is Moreland's cool-warm at t = 0, 0.25, ..., 1).
const std::vector<Rgb> kViridis = {{68, 1, 84},    {72, 36, 117},  {65, 68, 135},  {53, 95, 141},
                                   {42, 120, 142}, {33, 145, 140}, {34, 168, 132}, {68, 191, 112},
                                   {122, 209, 81}, {189, 223, 38}, {253, 231, 37}};
const std::vector<Rgb> kMagma = {{0, 0, 4},       {20, 14, 54},    {59, 15, 112},  {100, 26, 128},
                                 {140, 41, 129},  {183, 55, 121},  {222, 73, 104}, {247, 112, 92},
                                 {254, 159, 109}, {254, 207, 146}, {252, 253, 191}};
const std::vector<Rgb> kCividis = {{0, 34, 78},     {18, 53, 112},   {59, 73, 108},
                                   {87, 93, 109},   {112, 113, 115}, {138, 135, 121},
                                   {166, 157, 117}, {196, 181, 108}, {228, 207, 91},
                                   {253, 234, 69},  {255, 234, 70}};
const std::vector<Rgb> kDiverging = {
    {59, 76, 192}, {141, 176, 254}, {221, 221, 221}, {244, 154, 123}, {180, 4, 38}};

Lut build(const std::vector<Rgb>& anchors) {
    Lut lut{};
    const double segments = static_cast<double>(anchors.size() - 1);
    for (int i = 0; i < 256; ++i) {
        const double t = i / 255.0 * segments;
        const size_t a = std::min(static_cast<size_t>(t), anchors.size() - 2);
        const double f = t - static_cast<double>(a);
        uint8_t rgb[3];
        for (int ch = 0; ch < 3; ++ch) {
            const double v = anchors[a][ch] * (1 - f) + anchors[a + 1][ch] * f;
            rgb[ch] = static_cast<uint8_t>(std::lround(v));
        }
        lut[static_cast<size_t>(i)] = packRgba(rgb[0], rgb[1], rgb[2]);
    }
    return lut;
}

}  // namespace

const char* toString(ColormapKind kind) {
    switch (kind) {
        case ColormapKind::Viridis:
            return "viridis";
        case ColormapKind::Magma:
            return "magma";
        case ColormapKind::Cividis:
            return "cividis";
        case ColormapKind::Diverging:
            return "diverging";
    }
    return "viridis";
}

std::optional<ColormapKind> parseColormap(std::string_view name) {
    for (int i = 0; i < kColormapCount; ++i) {
        const auto kind = static_cast<ColormapKind>(i);
        if (name == toString(kind)) return kind;
    }
    return std::nullopt;
}

bool isDiverging(ColormapKind kind) {
    return kind == ColormapKind::Diverging;
}

const Lut& colormapLut(ColormapKind kind) {
    static const Lut viridis = build(kViridis), magma = build(kMagma), cividis = build(kCividis),
                     diverging = build(kDiverging);
    switch (kind) {
        case ColormapKind::Viridis:
            return viridis;
        case ColormapKind::Magma:
            return magma;
        case ColormapKind::Cividis:
            return cividis;
        case ColormapKind::Diverging:
            return diverging;
    }
    return viridis;
}

}  // namespace gatescope::widgets
