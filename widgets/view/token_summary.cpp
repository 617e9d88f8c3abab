#include "widgets/view/token_summary.h"

#include <cmath>

#include <fmt/format.h>

namespace gatescope::widgets {

std::string tokenSummary(const TraceDocument& doc, int64_t position) {
    const int64_t n = doc.tokens.size();
    if (position < 0 || position >= n) return {};
    const auto at = static_cast<size_t>(position);
    std::string out = fmt::format("token {} '{}'", position, displayToken(doc.tokens.text[at]));
    if (!doc.perToken) return out + " (no prediction stored)";
    if (position + 1 >= n) return out + " (last position: nothing to predict)";
    // Position i predicts token i + 1: its loss and rank are about that token.
    const float loss = doc.perToken->loss[at];
    const int32_t rank = doc.perToken->targetRank[at];
    out += fmt::format(" -> next '{}': ", displayToken(doc.tokens.text[at + 1]));
    out += std::isfinite(loss) ? fmt::format("loss {:.3f} nat", loss) : std::string("no loss");
    if (rank >= 0) out += fmt::format(", rank {}", rank);
    const float entropy = doc.perToken->entropy[at];
    if (std::isfinite(entropy)) out += fmt::format(", entropy {:.2f} nat", entropy);
    return out;
}

}  // namespace gatescope::widgets
