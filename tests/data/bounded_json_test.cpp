#include <string>

#include <gtest/gtest.h>

#include "data/common/bounded_json.h"

namespace gatescope::data {
namespace {

TEST(BoundedJson, CountsNestingOutsideStringsOnly) {
    EXPECT_EQ(jsonNestingDepth(R"({"a": [1, {"b": "[[[{{{"}]})", 100), 3u);
    EXPECT_EQ(jsonNestingDepth(R"(["\"[", ["x"]])", 100), 2u);
    EXPECT_EQ(jsonNestingDepth("42", 100), 0u);
}

TEST(BoundedJson, RefusesDeepNestingBeforeParsing) {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    auto parsed = parseBoundedJson(deep, "config.json");
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().kind, ErrorKind::Format);
    EXPECT_EQ(parsed.error().file, "config.json");
    EXPECT_NE(parsed.error().message.find("deeper than 128"), std::string::npos);
}

TEST(BoundedJson, ParsesWithinLimitsAndNamesInvalidJson) {
    const std::string ok = std::string(128, '[') + "7" + std::string(128, ']');
    auto parsed = parseBoundedJson(ok, "x.json");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    auto bad = parseBoundedJson(R"({"a": )", "recipe.json", "runs");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().object, "runs");
    EXPECT_NE(bad.error().message.find("invalid JSON"), std::string::npos);
    JsonLimits small;
    small.maxBytes = 4;
    EXPECT_FALSE(parseBoundedJson("[1, 2]", "x.json", {}, small));
}

}  // namespace
}  // namespace gatescope::data
