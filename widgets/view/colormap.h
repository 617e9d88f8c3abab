// Colormaps: 256-entry RGBA lookup tables (viridis, magma, cividis: perceptually uniform; a
// blue-white-red diverging map for signed data). Display-free; the tables are built once and
// are immutable, so reading them from any thread is safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gatescope::widgets {

enum class ColormapKind { Viridis, Magma, Cividis, Diverging };

inline constexpr int kColormapCount = 4;

const char* toString(ColormapKind kind);
std::optional<ColormapKind> parseColormap(std::string_view name);
/// Whether the map is meant for data centred on a midpoint (a symmetric range).
bool isDiverging(ColormapKind kind);

/// Colours packed as 0xAABBGGRR (little-endian RGBA bytes, the layout of GL_RGBA uploads and
/// of ImGui's IM_COL32).
using Lut = std::array<uint32_t, 256>;

/// The lookup table of `kind`, interpolated linearly between the published anchor colours.
const Lut& colormapLut(ColormapKind kind);

inline uint32_t packRgba(uint8_t r, uint8_t g, uint8_t b, uint8_t a = 255) {
    return uint32_t{r} | uint32_t{g} << 8 | uint32_t{b} << 16 | uint32_t{a} << 24;
}

}  // namespace gatescope::widgets
