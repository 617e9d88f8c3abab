// A layer's score kind, from the trace's word to the spec that recomputes its tiles: the four
// kinds the trace format defines (docs/trace-format.md), and a word gatescope does not know
// (a newer trace, another tool) refused by name instead of read as something else.
#include <gtest/gtest.h>

#include "core/maps/head_maps.h"
#include "core/maps/score_kind.h"

namespace gatescope::core {
namespace {

TEST(ScoreKind, TraceWordsRoundTrip) {
    const std::pair<const char*, ScoreKind> words[] = {{"additive_decay", ScoreKind::AdditiveDecay},
                                                       {"power", ScoreKind::Power},
                                                       {"gsa", ScoreKind::Gsa},
                                                       {"wall", ScoreKind::Wall}};
    for (const auto& [word, kind] : words) {
        EXPECT_EQ(parseScoreKind(word), kind) << word;
        EXPECT_EQ(toString(kind), word);
    }
    EXPECT_EQ(parseScoreKind("softmax"), std::nullopt);
    EXPECT_EQ(parseScoreKind("Wall"), std::nullopt);  // the trace's words are lower case
    EXPECT_EQ(parseScoreKind(""), std::nullopt);
}

TEST(ScoreKind, HeaderBecomesSpecWithItsFactors) {
    data::LayerHeader header;
    header.scoreKind = "power";
    header.extras = {{"scale", 0.125}, {"window", 64}, {"has_decay", true}};
    auto spec = mapSpecFromHeader(header);
    ASSERT_TRUE(spec) << spec.error().describe();
    EXPECT_EQ(spec->scoreKind, ScoreKind::Power);
    EXPECT_DOUBLE_EQ(spec->scale, 0.125);
    EXPECT_EQ(spec->window, 64);
    EXPECT_TRUE(spec->hasDecay);
    EXPECT_EQ(requiredFactors(*spec),
              (std::vector<std::string>{"q", "k", "log_normalizer", "log_decay_cumsum"}));

    header.scoreKind = "wall";
    header.extras = {{"gated_channels", 8}, {"scalar_gate", true}};
    spec = mapSpecFromHeader(header);
    ASSERT_TRUE(spec);
    EXPECT_EQ(requiredFactors(*spec), (std::vector<std::string>{"q", "k", "lse", "log_decay_cumsum",
                                                                "log_scalar_decay_cumsum"}));
}

TEST(ScoreKind, UnknownWordIsRefusedByName) {
    data::LayerHeader header;
    header.scoreKind = "softmax_v9";
    auto spec = mapSpecFromHeader(header);
    ASSERT_FALSE(spec);
    EXPECT_EQ(spec.error().kind, ErrorKind::Unsupported);
    EXPECT_NE(spec.error().message.find("'softmax_v9'"), std::string::npos)
        << spec.error().describe();
}

}  // namespace
}  // namespace gatescope::core
