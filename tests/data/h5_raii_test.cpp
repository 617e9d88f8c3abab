// The RAII layer: errors become values naming file and object, nothing reaches stderr, handles
// are move-only and close once.
#include <gtest/gtest.h>

#include "data/h5/attribute.h"
#include "data/h5/dataset.h"
#include "data/h5/file.h"
#include "trace_test_util.h"

namespace gatescope::data::h5 {
namespace {

TEST(H5Raii, ErrorsNameFileAndObjectAndPrintNothing) {
    testing::TempDir dir;
    std::string path = (dir / "raii.h5").string();
    ::testing::internal::CaptureStderr();
    auto file = File::create(path);
    ASSERT_TRUE(file) << file.error().describe();
    auto root = Group::root(*file);
    ASSERT_TRUE(root);
    auto group = Group::create(*root, "g");
    ASSERT_TRUE(group);

    auto again = Group::create(*root, "g");  // HDF5 itself refuses: its message must come back
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().kind, ErrorKind::Io);
    EXPECT_EQ(again.error().file, path);
    EXPECT_EQ(again.error().object, "/g");
    EXPECT_NE(again.error().message.find("HDF5:"), std::string::npos) << again.error().message;

    auto missing = Dataset::open(*group, "nothing/here");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().kind, ErrorKind::Missing);
    EXPECT_EQ(missing.error().object, "/g/nothing/here");
    EXPECT_EQ(missing.error().describe(), path + ": /g/nothing/here: no such dataset");

    auto notGroup = Group::open(*root, "g");
    ASSERT_TRUE(notGroup);
    auto attr = readIntAttribute(*group, "absent");
    ASSERT_FALSE(attr);
    EXPECT_EQ(attr.error().kind, ErrorKind::Missing);
    EXPECT_EQ(attr.error().object, "/g@absent");

    auto ds = Dataset::create(*group, "d", Type::nativeFloat(), {3});
    ASSERT_TRUE(ds);
    float values[3] = {1, 2, 3};
    auto outOfRange = ds->writeBlock(Type::nativeFloat(), values, {2}, {3});
    ASSERT_FALSE(outOfRange);
    EXPECT_EQ(outOfRange.error().object, "/g/d");
    auto asGroup = Group::open(*group, "d");
    ASSERT_FALSE(asGroup);
    EXPECT_EQ(asGroup.error().kind, ErrorKind::Shape);
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(H5Raii, HandlesMoveAndCloseOnce) {
    testing::TempDir dir;
    auto file = File::create((dir / "move.h5").string());
    ASSERT_TRUE(file);
    auto root = Group::root(*file);
    ASSERT_TRUE(root);
    Group moved = std::move(*root);
    EXPECT_TRUE(moved.valid());
    EXPECT_FALSE(root->valid());
    EXPECT_TRUE(moved.close());
    EXPECT_FALSE(moved.valid());
    EXPECT_TRUE(moved.close());  // closing twice is a no-op
    EXPECT_TRUE(file->close());
}

TEST(H5Raii, AttributesRoundTripAndReplace) {
    testing::TempDir dir;
    std::string path = (dir / "attrs.h5").string();
    {
        auto file = File::create(path);
        ASSERT_TRUE(file);
        auto root = Group::root(*file);
        ASSERT_TRUE(writeAttribute(*root, "s", std::string_view("first")));
        ASSERT_TRUE(writeAttribute(*root, "s", std::string_view("sécond ✓")));  // replaced
        ASSERT_TRUE(writeAttribute(*root, "i", int64_t{-42}));
        ASSERT_TRUE(writeAttribute(*root, "list", std::vector<std::string>{"a", "bc"}));
        // A fixed-length string, as other tools write them.
        auto lock = lockLibrary();
        hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, 8);
        hid_t space = H5Screate(H5S_SCALAR);
        hid_t attr = H5Acreate2(root->id(), "fixed", type, space, H5P_DEFAULT, H5P_DEFAULT);
        char text[8] = "fixed";
        H5Awrite(attr, type, text);
        H5Aclose(attr);
        H5Sclose(space);
        H5Tclose(type);
    }
    auto file = File::openReadOnly(path, 0);
    ASSERT_TRUE(file) << file.error().describe();
    auto root = Group::root(*file);
    EXPECT_EQ(*readStringAttribute(*root, "s"), "sécond ✓");
    EXPECT_EQ(*readIntAttribute(*root, "i"), -42);
    EXPECT_EQ(*readStringAttribute(*root, "fixed"), "fixed");
    auto wrong = readIntAttribute(*root, "s");
    ASSERT_FALSE(wrong);
    EXPECT_EQ(wrong.error().kind, ErrorKind::Shape);
    EXPECT_EQ(wrong.error().object, "/@s");
}

}  // namespace
}  // namespace gatescope::data::h5
