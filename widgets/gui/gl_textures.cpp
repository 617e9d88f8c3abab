#include "widgets/gui/gl_textures.h"

#include <QOpenGLFunctions>

namespace gatescope::widgets {

uint32_t GlTextures::create(int width, int height, const uint32_t* rgba) {
    GLuint id = 0;
    m_gl->glGenTextures(1, &id);
    if (id == 0) return 0;
    m_gl->glBindTexture(GL_TEXTURE_2D, id);
    m_gl->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    m_gl->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    m_gl->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    m_gl->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    m_gl->glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    m_gl->glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                       rgba);
    ++m_live;
    return id;
}

void GlTextures::update(uint32_t texture, int width, int height, const uint32_t* rgba) {
    m_gl->glBindTexture(GL_TEXTURE_2D, texture);
    m_gl->glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
}

void GlTextures::destroy(uint32_t texture) {
    if (texture == 0) return;
    GLuint id = texture;
    m_gl->glDeleteTextures(1, &id);
    --m_live;
}

}  // namespace gatescope::widgets
