// TileTextures: GL textures of tiles, coloured on the CPU with the current colormap and range.
// A texture is recoloured when the style (colormap, scale, range) changes; the least recently
// drawn are freed beyond a bound, so GPU memory follows what is on screen. GUI thread, inside
// paintGL only.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "widgets/gui/gl_textures.h"
#include "widgets/view/color_scale.h"
#include "widgets/view/tile_key.h"

namespace gatescope::widgets {

class TileTextures {
public:
    explicit TileTextures(size_t maxTextures = 192) : m_max(maxTextures) {}

    /// Starts a frame: `styleVersion` changes whenever colours must change.
    void beginFrame(uint64_t styleVersion, const ColorSettings& settings, const ValueRange& range,
                    int uploadBudget = 48);
    /// The texture of `tile` in the current style, uploading or recolouring within this frame's
    /// budget; a stale texture (older style) is returned when over budget; 0 when none exists.
    uint32_t get(GlTextures& gl, const TileData& tile);
    /// The same with colours of the tile's own: `style` identifies (settings, range) for it.
    uint32_t get(GlTextures& gl, const TileData& tile, uint64_t style,
                 const ColorSettings& settings, const ValueRange& range);
    /// Whether some texture could not be brought up to date this frame (draw again).
    bool behind() const { return m_behind; }
    /// Frees textures beyond the bound, least recently drawn first.
    void endFrame(GlTextures& gl);
    void releaseAll(GlTextures& gl);
    size_t size() const { return m_entries.size(); }

private:
    struct Entry {
        uint32_t texture = 0;
        uint64_t style = 0;
        uint64_t lastFrame = 0;
    };
    void paint(const TileData& tile);

    size_t m_max;
    std::unordered_map<TileKey, Entry, TileKeyHash> m_entries;
    std::vector<uint32_t> m_pixels;
    uint64_t m_frame = 0;
    uint64_t m_style = 0;
    ColorSettings m_settings;
    ValueRange m_range;
    int m_budget = 0;
    bool m_behind = false;
};

}  // namespace gatescope::widgets
