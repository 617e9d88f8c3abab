#include "core/maps/score_kind.h"

#include <array>
#include <utility>

namespace gatescope::core {

namespace {

constexpr std::array<std::pair<ScoreKind, std::string_view>, 4> kWords = {{
    {ScoreKind::AdditiveDecay, "additive_decay"},
    {ScoreKind::Power, "power"},
    {ScoreKind::Gsa, "gsa"},
    {ScoreKind::Wall, "wall"},
}};

}  // namespace

std::string_view toString(ScoreKind kind) {
    for (const auto& [k, word] : kWords)
        if (k == kind) return word;
    return "unknown";
}

std::optional<ScoreKind> parseScoreKind(std::string_view word) {
    for (const auto& [k, w] : kWords)
        if (w == word) return k;
    return std::nullopt;
}

}  // namespace gatescope::core
