// Text helpers for ImGui panels, so that no label is cut at a panel edge: tooltips that wrap to
// the host's width, and single lines shortened to a width with "..." (the full text then goes
// in a tooltip). Call inside a frame (they use the current ImGui context's font and display).
#pragma once

#include <string>

#include <imgui.h>

namespace gatescope::widgets {

/// A tooltip with `text`, wrapped to fit inside the host window (at most about 60 characters'
/// width beyond which long lines wrap), so that it is never cut at the panel edge.
void wrappedTooltip(const std::string& text);
/// printf-style wrappedTooltip (drop-in for ImGui::SetTooltip).
void wrappedTooltipf(const char* fmt, ...) IM_FMTARGS(1);

/// `text` cut to at most `width` pixels with a trailing "..." (unchanged when it fits).
std::string elideToWidth(const std::string& text, float width);

/// Draws `text` at `at` cut to `width` pixels; when cut, hovering the line shows the whole
/// text in a wrapped tooltip. Returns whether it was cut.
bool drawElidedText(ImDrawList* dl, ImVec2 at, float width, ImU32 colour, const std::string& text);

}  // namespace gatescope::widgets
