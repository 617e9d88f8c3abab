// Strings from files from outside (data/h5/string_values.h): every stored form h5py or another
// writer may produce reads back right, and malformed or oversized forms are errors naming the
// attribute, never a read into a buffer sized by the file.
#include <gtest/gtest.h>

#include "data/h5/attribute.h"
#include "data/h5/file.h"
#include "data/h5/strings.h"
#include "tests/data/hostile_edits.h"
#include "trace_test_util.h"

namespace gatescope::data::h5 {
namespace {

class StringAttributes : public ::testing::Test {
protected:
    void SetUp() override {
        path = dir / "strings.h5";
        auto file = File::create(path.string());
        ASSERT_TRUE(file) << file.error().describe();
        ASSERT_TRUE(file->close());
    }

    // A fixed-length string attribute `name` of `width` bytes with padding `pad` and `cset`.
    void fixed(hid_t f, const char* name, const std::string& bytes, size_t width, H5T_str_t pad,
               H5T_cset_t cset = H5T_CSET_ASCII) {
        hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, width);
        H5Tset_strpad(type, pad);
        H5Tset_cset(type, cset);
        hid_t space = H5Screate(H5S_SCALAR);
        std::string data = bytes;
        data.resize(width, pad == H5T_STR_SPACEPAD ? ' ' : '\0');
        test::setAttribute(f, "/", name, type, space, data.data());
        H5Sclose(space);
        H5Tclose(type);
    }

    Result<std::string> read(const std::string& name, size_t maxBytes = size_t{1} << 20) {
        auto file = File::openReadOnly(path.string(), 0);
        if (!file) return file.error();
        auto root = Group::root(*file);
        if (!root) return root.error();
        return readStringAttribute(*root, name, maxBytes);
    }

    void expectError(const std::string& name, ErrorKind kind, const std::string& words,
                     size_t maxBytes = size_t{1} << 20) {
        auto value = read(name, maxBytes);
        ASSERT_FALSE(value) << name << " read as '" << *value << "'";
        EXPECT_EQ(value.error().kind, kind) << value.error().describe();
        EXPECT_EQ(value.error().file, path.string());
        EXPECT_EQ(value.error().object, "/@" + name);
        EXPECT_NE(value.error().message.find(words), std::string::npos) << value.error().describe();
    }

    testing::TempDir dir;
    std::filesystem::path path;
};

TEST_F(StringAttributes, EveryStoredFormReadsBack) {
    test::editTrace(path, [&](hid_t f) {
        fixed(f, "nullterm", "abc", 8, H5T_STR_NULLTERM);
        fixed(f, "nullpad", "abcdefgh", 8, H5T_STR_NULLPAD);  // all 8 bytes used, no NUL
        fixed(f, "spacepad", "abc", 8, H5T_STR_SPACEPAD);
        fixed(f, "utf8", "f\xc3\xbcr", 6, H5T_STR_NULLTERM, H5T_CSET_UTF8);
        test::setStringAttribute(f, "/", "vlen", "variable \xc3\xbc");
        test::setStringAttribute(f, "/", "empty", "");
    });
    EXPECT_EQ(read("nullterm").value(), "abc");
    EXPECT_EQ(read("nullpad").value(), "abcdefgh");
    EXPECT_EQ(read("spacepad").value(), "abc");
    EXPECT_EQ(read("utf8").value(), "f\xc3\xbcr");
    EXPECT_EQ(read("vlen").value(), "variable \xc3\xbc");
    EXPECT_EQ(read("empty").value(), "");
}

TEST_F(StringAttributes, MalformedFormsAreErrors) {
    test::editTrace(path, [&](hid_t f) {
        fixed(f, "wide", "abc", 3000, H5T_STR_NULLTERM);
        test::setStringAttribute(f, "/", "long", std::string(5000, 'x'));
        hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, H5T_VARIABLE);
        hid_t null = H5Screate(H5S_NULL);
        test::setAttribute(f, "/", "null", type, null, nullptr);
        const hsize_t two = 2;
        hid_t pair = H5Screate_simple(1, &two, nullptr);
        const char* values[2] = {"a", "b"};
        test::setAttribute(f, "/", "array", type, pair, values);
        test::setIntAttribute(f, "/", "number", 7);
        H5Sclose(pair);
        H5Sclose(null);
        H5Tclose(type);
    });
    expectError("wide", ErrorKind::Format, "fixed-length strings of 3000 bytes", 1024);
    expectError("long", ErrorKind::Format, "exceed the 4096 bytes", 4096);
    expectError("null", ErrorKind::Shape, "expected a scalar string attribute");
    expectError("array", ErrorKind::Shape, "expected a scalar string attribute");
    expectError("number", ErrorKind::Shape, "expected a scalar string attribute");
    expectError("absent", ErrorKind::Missing, "no such attribute");
    auto file = File::openReadOnly(path.string(), 0);
    ASSERT_TRUE(file);
    auto root = Group::root(*file);
    ASSERT_TRUE(root);
    auto number = readIntAttribute(*root, "array");
    ASSERT_FALSE(number);
    EXPECT_EQ(number.error().kind, ErrorKind::Shape);
}

}  // namespace
}  // namespace gatescope::data::h5
