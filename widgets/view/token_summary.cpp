#include "widgets/view/token_summary.h"

#include <algorithm>
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
    return out + topPredictions(*doc.perToken, position);
}

std::string topPredictions(const data::PerTokenResults& results, int64_t position) {
    const auto k = static_cast<size_t>(std::max(0, results.topK));
    if (k == 0 || position < 0 || (static_cast<size_t>(position) + 1) * k > results.topIds.size())
        return {};
    std::string out = "; top:";
    for (size_t j = 0; j < k; ++j) {
        const size_t at = static_cast<size_t>(position) * k + j;
        const int32_t id = results.topIds[at];
        const auto found = std::lower_bound(results.vocabIds.begin(), results.vocabIds.end(), id);
        const size_t index = static_cast<size_t>(found - results.vocabIds.begin());
        const std::string text =
            found != results.vocabIds.end() && *found == id && index < results.vocabText.size()
                ? "'" + displayToken(results.vocabText[index], 16) + "'"
                : fmt::format("id {}", id);
        out += fmt::format("{} {} {:.0f}%", j ? "," : "", text,
                           100.0 * std::exp(double{results.topLogProbs[at]}));
    }
    return out;
}

}  // namespace gatescope::widgets
