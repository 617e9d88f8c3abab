// core/input/documents.h: the `--documents` forms and the document starts they give.
#include <gtest/gtest.h>

#include "core/input/documents.h"

namespace gatescope {
namespace {

std::vector<int64_t> startsOf(const std::string& text, const std::vector<int32_t>& ids) {
    auto split = core::parseDocumentSplit(text);
    EXPECT_TRUE(split) << split.error().describe();
    auto starts = core::documentStarts(*split, ids);
    EXPECT_TRUE(starts) << starts.error().describe();
    return starts ? *starts : std::vector<int64_t>{};
}

TEST(Documents, EachFormGivesTheStartsOfItsDocuments) {
    const std::vector<int32_t> ids = {1, 5, 6, 1, 7, 2, 1, 8, 2};
    EXPECT_TRUE(startsOf("", ids).empty());  // one document
    // A separator that opens documents: position 0 is a start whatever it holds.
    EXPECT_EQ(startsOf("start:1", ids), (std::vector<int64_t>{0, 3, 6}));
    EXPECT_EQ(startsOf("start:7,8", ids), (std::vector<int64_t>{0, 4, 7}));
    // A token that closes its document: the next one opens another (none after the last token).
    EXPECT_EQ(startsOf("end:2", ids), (std::vector<int64_t>{0, 6}));
    EXPECT_EQ(startsOf("at:0,4,5", ids), (std::vector<int64_t>{0, 4, 5}));
    EXPECT_EQ(startsOf("at:2", ids), (std::vector<int64_t>{0, 2}));
    EXPECT_EQ(startsOf("start:99", ids), (std::vector<int64_t>{0}));
    EXPECT_TRUE(startsOf("start:1", {}).empty());
}

TEST(Documents, MalformedValuesAreUsageErrorsNamingTheOption) {
    for (const char* text : {"every:3", "start:", "start:1,", "start:-1", "at:1;2", "4", "at:x"}) {
        auto split = core::parseDocumentSplit(text);
        ASSERT_FALSE(split) << text;
        EXPECT_EQ(split.error().kind, ErrorKind::Usage);
        EXPECT_EQ(split.error().object, "--documents");
        EXPECT_NE(split.error().message.find(text), std::string::npos) << split.error().message;
    }
    const std::vector<int32_t> ids(10, 3);
    for (const char* text : {"at:5,5", "at:6,2", "at:10", "at:0,0"}) {
        auto split = core::parseDocumentSplit(text);
        ASSERT_TRUE(split) << text;
        auto starts = core::documentStarts(*split, ids);
        ASSERT_FALSE(starts) << text;
        EXPECT_EQ(starts.error().kind, ErrorKind::Usage);
        EXPECT_EQ(starts.error().object, "--documents");
    }
}

}  // namespace
}  // namespace gatescope
