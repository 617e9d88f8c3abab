// The cursor's prediction in words (widgets/view/token_summary.h): position i's loss, rank and
// entropy are about token i + 1, and the text says so; no results, the last position and
// positions outside the trace say what is missing instead of printing garbage.
#include <cmath>

#include <gtest/gtest.h>

#include "widgets/view/token_summary.h"

namespace gatescope::widgets {
namespace {

TraceDocument threeTokens(bool withResults) {
    TraceDocument doc;
    doc.tokens.ids = {10, 11, 12};
    doc.tokens.text = {"A", " gate", "\n"};
    if (withResults)
        doc.perToken = data::PerTokenResults{{1.2344f, NAN, NAN}, {3, -1, -1}, {2.104f, 0.5f, 0.f}};
    return doc;
}

TEST(TokenSummary, ThePredictionIsAboutTheNextToken) {
    const auto doc = threeTokens(true);
    EXPECT_EQ(tokenSummary(doc, 0),
              "token 0 'A' -> next ' gate': loss 1.234 nat, rank 3, entropy 2.10 nat");
    // No target stored at position 1 (NaN loss, rank -1): only the entropy.
    EXPECT_EQ(tokenSummary(doc, 1), "token 1 ' gate' -> next '\\n': no loss, entropy 0.50 nat");
    EXPECT_EQ(tokenSummary(doc, 2), "token 2 '\\n' (last position: nothing to predict)");
}

TEST(TokenSummary, MissingResultsAndPositionsAreSaid) {
    const auto doc = threeTokens(false);
    EXPECT_EQ(tokenSummary(doc, 0), "token 0 'A' (no prediction stored)");
    EXPECT_EQ(tokenSummary(doc, -1), "");
    EXPECT_EQ(tokenSummary(doc, 3), "");
}

TEST(TokenSummary, TopPredictionsWithTheirTextAndProbability) {
    auto doc = threeTokens(true);
    auto& per = *doc.perToken;
    per.topK = 2;
    // exp(-0.2231) = 0.80, exp(-1.6094) = 0.20; id 99 has no stored text.
    per.topIds = {11, 99, 12, 11, 10, 11};
    per.topLogProbs = {-0.2231f, -1.6094f, -0.1f, -2.4f, -0.7f, -0.8f};
    per.vocabIds = {10, 11, 12};
    per.vocabText = {"A", " gate", "\n"};
    EXPECT_EQ(tokenSummary(doc, 0),
              "token 0 'A' -> next ' gate': loss 1.234 nat, rank 3, entropy 2.10 nat; top: "
              "' gate' 80%, id 99 20%");
    EXPECT_EQ(topPredictions(per, 1), "; top: '\\n' 90%, ' gate' 9%");
    EXPECT_EQ(topPredictions(per, 3), "");  // past the stored rows
}

}  // namespace
}  // namespace gatescope::widgets
