// GlTextures: RGBA8 textures in the GL context of one ImGuiHost, handed to ImGui as ImTextureID.
// Only valid inside that host's paintGL() (its context current). Textures are counted so that a
// panel can see how many it holds.
#pragma once

#include <cstdint>

class QOpenGLFunctions;

namespace gatescope::widgets {

class GlTextures {
public:
    explicit GlTextures(QOpenGLFunctions* gl) : m_gl(gl) {}

    /// A new texture of `width` x `height` packed RGBA (0xAABBGGRR) pixels; nearest-neighbour
    /// magnification (cells stay crisp), linear minification. Returns the GL name (0 on failure).
    uint32_t create(int width, int height, const uint32_t* rgba);
    /// Replaces the pixels of a texture made by create() with the same size.
    void update(uint32_t texture, int width, int height, const uint32_t* rgba);
    void destroy(uint32_t texture);
    int live() const { return m_live; }

private:
    QOpenGLFunctions* m_gl;
    int m_live = 0;
};

}  // namespace gatescope::widgets
