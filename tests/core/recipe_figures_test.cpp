// A batch recipe's figures are checked when the recipe is read: every bad value is an error
// naming the file and the key before any run is traced.
#include <gtest/gtest.h>

#include "core/batch/recipe_figures.h"

namespace gatescope::core {
namespace {

struct BadFigure {
    const char* name;
    const char* figure;  // JSON of one figure
    const char* key;     // expected in the error
    const char* says;    // expected in the message
};

class RecipeFigures : public ::testing::TestWithParam<BadFigure> {};

TEST_P(RecipeFigures, BadValueIsAnErrorNamingFileAndKey) {
    const auto& c = GetParam();
    const auto figures = nlohmann::json::array({nlohmann::json::parse(c.figure)});
    auto parsed = parseRecipeFigures(figures, "/r/recipe.json");
    ASSERT_FALSE(parsed) << c.figure;
    EXPECT_EQ(parsed.error().kind, ErrorKind::Format);
    EXPECT_EQ(parsed.error().file, "/r/recipe.json");
    EXPECT_EQ(parsed.error().object, c.key) << parsed.error().describe();
    EXPECT_NE(parsed.error().message.find(c.says), std::string::npos) << parsed.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Recipe, RecipeFigures,
    ::testing::Values(
        BadFigure{"range_reversed", R"({"figure": "map", "range": "512:100"})", "figures.range",
                  "end > start"},
        BadFigure{"range_text", R"({"figure": "map", "range": "first half"})", "figures.range",
                  "a range like"},
        BadFigure{"range_overflow", R"({"figure": "map", "range": "0:99999999999999999999"})",
                  "figures.range", "a range like"},
        BadFigure{"kind_unknown", R"({"figure": "heatmap"})", "figures.figure", "'heatmap'"},
        BadFigure{"kind_compare", R"({"figure": "compare"})", "figures.figure", "'compare'"},
        BadFigure{"map_product", R"({"figure": "map", "map": "product"})", "figures.map",
                  "attention or decay"},
        BadFigure{"map_logit", R"({"figure": "map", "map": "logit"})", "figures.map",
                  "attention or decay"},
        BadFigure{"format_gif", R"({"figure": "loss", "format": "gif"})", "figures.format",
                  "svg, png or pdf"},
        BadFigure{"layer_negative", R"({"figure": "map", "layer": -1})", "figures.layer",
                  "out of range"},
        BadFigure{"head_huge", R"({"figure": "map", "head": 4294967296})", "figures.head",
                  "out of range"},
        BadFigure{"layer_text", R"({"figure": "map", "layer": "2"})", "figures.layer",
                  "an integer"},
        BadFigure{"dpi_zero", R"({"figure": "map", "dpi": 0})", "figures.dpi", "out of range"},
        BadFigure{"unknown_key", R"({"figure": "map", "colormap": "magma"})", "figures.colormap",
                  "unknown key"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(RecipeFigures, ValuesAndDefaultsAreRead) {
    const auto figures = nlohmann::json::parse(
        R"([{"figure": "loss"},
            {"figure": "map", "layer": 2, "head": 3, "map": "decay", "range": "100:612",
             "format": "png", "dpi": 300},
            {"figure": "grid", "range": "64:"}])");
    auto parsed = parseRecipeFigures(figures, "recipe.json");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    ASSERT_EQ(parsed->size(), 3u);
    const auto& loss = (*parsed)[0];
    EXPECT_EQ(loss.kind, "loss");
    EXPECT_EQ(loss.layer, 0);
    EXPECT_EQ(loss.map, kernels::MapKind::Attention);
    EXPECT_EQ(loss.begin, 0);
    EXPECT_FALSE(loss.end);
    EXPECT_EQ(loss.format, "svg");
    EXPECT_EQ(loss.dpi, 150);
    const auto& map = (*parsed)[1];
    EXPECT_EQ(map.layer, 2);
    EXPECT_EQ(map.head, 3);
    EXPECT_EQ(map.map, kernels::MapKind::Decay);
    EXPECT_EQ(map.begin, 100);
    EXPECT_EQ(map.end, 612);
    EXPECT_EQ(map.format, "png");
    EXPECT_EQ(map.dpi, 300);
    EXPECT_EQ((*parsed)[2].begin, 64);
    EXPECT_FALSE((*parsed)[2].end);
    EXPECT_FALSE(parseRecipeFigures(nlohmann::json::object(), "recipe.json"));
}

}  // namespace
}  // namespace gatescope::core
