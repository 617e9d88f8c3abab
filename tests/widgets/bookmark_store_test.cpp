// Bookmarks in the settings (widgets/view/bookmark_store.h): they round-trip, and what no longer
// fits the trace (or was never a list of bookmarks) is dropped rather than trusted.
#include <gtest/gtest.h>

#include "widgets/view/bookmark_store.h"

namespace gatescope::widgets {
namespace {

bool twoLayersFourHeads(int layer, int head) {
    return layer < 2 && head < 4;
}

TEST(BookmarkStore, RoundTripsInOrder) {
    const std::vector<Bookmark> marks = {{"needle", 7, 1, 2}, {"the \"answer\"", 0, 0, 3}};
    const auto back = bookmarksFromJson(bookmarksToJson(marks), 100, twoLayersFourHeads);
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].name, "needle");
    EXPECT_EQ(back[0].token, 7);
    EXPECT_EQ(back[0].layer, 1);
    EXPECT_EQ(back[0].head, 2);
    EXPECT_EQ(back[1].name, "the \"answer\"");
    EXPECT_EQ(back[1].head, 3);
}

TEST(BookmarkStore, MarksThatNoLongerFitTheTraceAreDropped) {
    const std::vector<Bookmark> marks = {{"past the end", 100, 0, 0},
                                         {"no such layer", 5, 2, 0},
                                         {"kept", 99, 1, 3},
                                         {"negative", -1, 0, 0},
                                         {"no such head", 5, 0, 4}};
    const auto back = bookmarksFromJson(bookmarksToJson(marks), 100, twoLayersFourHeads);
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].name, "kept");
}

TEST(BookmarkStore, TextThatIsNotAListOfBookmarksGivesNone) {
    for (const char* text :
         {"", "not json", "{}", "[1, 2]", R"([{"name": 3, "token": 1, "layer": 0, "head": 0}])",
          R"([{"name": "x", "token": 1.5, "layer": 0, "head": 0}])",
          R"([{"name": "x", "token": 1, "layer": 0}])", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["})
        EXPECT_TRUE(bookmarksFromJson(text, 100, twoLayersFourHeads).empty()) << text;
    const std::string deep = std::string(10000, '[') + std::string(10000, ']');
    EXPECT_TRUE(bookmarksFromJson(deep, 100, twoLayersFourHeads).empty());
}

TEST(BookmarkStore, KeysAreOnePerTraceAndFlat) {
    EXPECT_NE(bookmarksKey("/a/run.h5"), bookmarksKey("/b/run.h5"));
    EXPECT_EQ(bookmarksKey("/a/run.h5"), bookmarksKey("/a/run.h5"));
    const std::string key = bookmarksKey("/a/run.h5");
    EXPECT_EQ(key.rfind("bookmarks/", 0), 0u);
    EXPECT_EQ(key.find('/', 10), std::string::npos);
}

}  // namespace
}  // namespace gatescope::widgets
