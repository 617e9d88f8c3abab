// Aligning two tokenizations of one text by the byte where their tokens end.
#include <gtest/gtest.h>

#include "core/analysis/compare.h"

namespace gatescope {
namespace {

data::TokenTable table(const std::string& text, std::vector<std::array<int64_t, 2>> spans) {
    data::TokenTable t;
    t.sourceText = text;
    t.byteOffsets = std::move(spans);
    for (std::size_t i = 0; i < t.byteOffsets.size(); ++i)
        t.ids.push_back(static_cast<int32_t>(i));
    return t;
}

TEST(CompareAlignment, IdenticalIdsAlignEveryPosition) {
    const auto a = table("ab", {{0, 1}, {1, 2}});
    const auto al = core::alignTokens(a, a);
    EXPECT_TRUE(al.identical);
    EXPECT_EQ(al.pairs.size(), 2u);
}

TEST(CompareAlignment, DifferentTokenizationsPairCommonBoundaries) {
    // "the cat": A = [BOS][the][ cat], B = [th][e][ c][at]; boundaries shared at bytes 3 and 7.
    auto a = table("the cat", {{0, 0}, {0, 3}, {3, 7}});
    a.ids = {9, 1, 2};
    const auto b = table("the cat", {{0, 2}, {2, 3}, {3, 5}, {5, 7}});
    const auto al = core::alignTokens(a, b);
    EXPECT_FALSE(al.identical);
    ASSERT_EQ(al.pairs.size(), 2u);
    EXPECT_EQ(al.pairs[0], (std::pair<int64_t, int64_t>{1, 1}));
    EXPECT_EQ(al.pairs[1], (std::pair<int64_t, int64_t>{2, 3}));
}

TEST(CompareAlignment, DifferentTextsDoNotAlign) {
    auto a = table("abc", {{0, 3}});
    const auto b = table("abd", {{0, 3}});
    a.ids = {5};
    const auto al = core::alignTokens(a, b);
    EXPECT_TRUE(al.pairs.empty());
    EXPECT_NE(al.note.find("no alignment"), std::string::npos);
}

}  // namespace
}  // namespace gatescope
