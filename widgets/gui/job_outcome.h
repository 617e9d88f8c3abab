// shownValue: how a panel draws a job's outcome kept as std::optional<Result<T>> (empty while the
// job runs): a dimmed waiting line, the error, or the value for the panel to draw. GUI thread
// only, inside a panel's draw().
#pragma once

#include <optional>
#include <string>

#include <imgui.h>

#include "data/common/result.h"

namespace gatescope::widgets {

/// The value of `outcome`; null after drawing `waiting` (no outcome yet) or the error.
template <class T>
const T* shownValue(const std::optional<Result<T>>& outcome, const std::string& waiting) {
    if (!outcome) {
        ImGui::TextDisabled("%s", waiting.c_str());
        return nullptr;
    }
    if (!*outcome) {
        ImGui::TextWrapped("%s", outcome->error().describe().c_str());
        return nullptr;
    }
    return &**outcome;
}

}  // namespace gatescope::widgets
