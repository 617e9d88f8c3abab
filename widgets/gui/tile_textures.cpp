#include "widgets/gui/tile_textures.h"

#include <algorithm>

namespace gatescope::widgets {

void TileTextures::beginFrame(uint64_t styleVersion, const ColorSettings& settings,
                              const ValueRange& range, int uploadBudget) {
    ++m_frame;
    m_style = styleVersion;
    m_settings = settings;
    m_range = range;
    m_budget = uploadBudget;
    m_behind = false;
}

void TileTextures::paint(const TileData& tile) {
    m_pixels.assign(static_cast<size_t>(kTile * kTile), 0u);
    colorize(tile.values.data(), tile.rows, tile.cols, kTile, m_settings, m_range, m_pixels.data());
    // Cells above the diagonal are not part of a causal map: leave them transparent.
    if (tile.key.row == tile.key.col) {
        for (int64_t r = 0; r < tile.rows; ++r) {
            for (int64_t c = r + 1; c < tile.cols; ++c)
                m_pixels[static_cast<size_t>(r * kTile + c)] = 0;
        }
    }
}

uint32_t TileTextures::get(GlTextures& gl, const TileData& tile, uint64_t style,
                           const ColorSettings& settings, const ValueRange& range) {
    const uint64_t frameStyle = m_style;
    const ColorSettings frameSettings = m_settings;
    const ValueRange frameRange = m_range;
    m_style = style;
    m_settings = settings;
    m_range = range;
    const uint32_t texture = get(gl, tile);
    m_style = frameStyle;
    m_settings = frameSettings;
    m_range = frameRange;
    return texture;
}

uint32_t TileTextures::get(GlTextures& gl, const TileData& tile) {
    auto it = m_entries.find(tile.key);
    if (it != m_entries.end() && it->second.style == m_style) {
        it->second.lastFrame = m_frame;
        return it->second.texture;
    }
    if (m_budget <= 0) {
        m_behind = true;
        if (it == m_entries.end()) return 0;
        it->second.lastFrame = m_frame;
        return it->second.texture;
    }
    --m_budget;
    paint(tile);
    if (it == m_entries.end()) {
        Entry e{gl.create(static_cast<int>(kTile), static_cast<int>(kTile), m_pixels.data()),
                m_style, m_frame};
        it = m_entries.emplace(tile.key, e).first;
    } else {
        gl.update(it->second.texture, static_cast<int>(kTile), static_cast<int>(kTile),
                  m_pixels.data());
        it->second.style = m_style;
        it->second.lastFrame = m_frame;
    }
    return it->second.texture;
}

void TileTextures::endFrame(GlTextures& gl) {
    if (m_entries.size() <= m_max) return;
    std::vector<std::pair<uint64_t, TileKey>> byAge;
    for (const auto& [key, e] : m_entries) {
        if (e.lastFrame != m_frame) byAge.emplace_back(e.lastFrame, key);
    }
    std::sort(byAge.begin(), byAge.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [age, key] : byAge) {
        if (m_entries.size() <= m_max) break;
        gl.destroy(m_entries[key].texture);
        m_entries.erase(key);
    }
}

void TileTextures::releaseAll(GlTextures& gl) {
    for (const auto& [key, e] : m_entries)
        gl.destroy(e.texture);
    m_entries.clear();
}

}  // namespace gatescope::widgets
