#include "widgets/gui/imgui_text.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <vector>

namespace gatescope::widgets {

void wrappedTooltip(const std::string& text) {
    const ImGuiIO& io = ImGui::GetIO();
    const float style = ImGui::GetStyle().WindowPadding.x * 2 + 8;
    const float wrap =
        std::max(120.f, std::min(io.DisplaySize.x - style, ImGui::CalcTextSize("M").x * 72));
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(wrap);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void wrappedTooltipf(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    va_list copy;
    va_copy(copy, args);
    const int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    std::vector<char> buffer(static_cast<size_t>(std::max(0, n)) + 1);
    std::vsnprintf(buffer.data(), buffer.size(), fmt, args);
    va_end(args);
    wrappedTooltip(buffer.data());
}

std::string elideToWidth(const std::string& text, float width) {
    if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
    const float dots = ImGui::CalcTextSize("...").x;
    // The longest prefix (whole UTF-8 characters) that fits with the dots.
    size_t lo = 0, hi = text.size();
    while (lo < hi) {
        const size_t mid = (lo + hi + 1) / 2;
        if (ImGui::CalcTextSize(text.data(), text.data() + mid).x + dots <= width)
            lo = mid;
        else
            hi = mid - 1;
    }
    while (lo > 0 && (static_cast<unsigned char>(text[lo]) & 0xC0) == 0x80)
        --lo;
    return text.substr(0, lo) + "...";
}

bool drawElidedText(ImDrawList* dl, ImVec2 at, float width, ImU32 colour, const std::string& text) {
    const std::string shown = elideToWidth(text, width);
    dl->AddText(at, colour, shown.c_str());
    const bool cut = shown.size() != text.size() || shown != text;
    if (cut && ImGui::IsMouseHoveringRect(
                   at, ImVec2(at.x + width, at.y + ImGui::GetTextLineHeightWithSpacing())))
        wrappedTooltip(text);
    return cut;
}

}  // namespace gatescope::widgets
