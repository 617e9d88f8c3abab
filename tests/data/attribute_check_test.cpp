// Attribute messages checked before HDF5 decodes them (data/h5/attribute_check.h): the two fuzz
// findings that HDF5 1.10 mishandled inside the library now end in errors naming the attribute and
// the problem; and the raw object-header walk agrees with HDF5 on files h5py writes in either
// header version, so sound files still read.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "data/h5/attribute.h"
#include "data/h5/file.h"
#include "data/h5/handle.h"
#include "data/h5/object_header.h"
#include "data/trace/trace_reader.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

const std::filesystem::path kRegressions =
    std::filesystem::path(GATESCOPE_SOURCE_DIR) / "fuzz" / "regressions" / "trace_reader";

std::vector<char> bytesOf(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// ASan found HDF5 reading 8 bytes past a buffer while H5Aexists decoded an attribute message of
// /layers/000 whose declared name, datatype and dataspace sizes exceed the message.
TEST(AttributeCheck, AnAttributeMessageLargerInsideThanOutsideIsRefused) {
    const auto path = kRegressions / "heap-overflow-attribute-decode.h5";
    const auto bytes = bytesOf(path);
    ASSERT_FALSE(bytes.empty());
    auto fromDisk = TraceReader::open(path);
    auto fromImage = TraceReader::openImage("image.h5", bytes.data(), bytes.size());
    for (auto* reader : {&fromDisk, &fromImage}) {
        ASSERT_FALSE(*reader);
        EXPECT_EQ(reader->error().kind, ErrorKind::Format);
        EXPECT_EQ(reader->error().object, "/layers/000") << reader->error().describe();
        EXPECT_NE(reader->error().message.find("attribute message of 56 bytes"), std::string::npos)
            << reader->error().describe();
    }
}

// The root's `gatescope_format` string attribute with its stored length set to 1.8e9: HDF5 1.10
// allocated 3.6 GB converting it (and then succeeded). The length is now refused from the
// descriptor in the object header first.
TEST(AttributeCheck, AForgedStringAttributeLengthIsRefusedBeforeHdf5AllocatesIt) {
    auto reader = TraceReader::open(kRegressions / "oom-vlen-length-attribute.h5");
    ASSERT_FALSE(reader);
    EXPECT_EQ(reader.error().object, "/@gatescope_format") << reader.error().describe();
    EXPECT_NE(reader.error().message.find("claims 1800000000 bytes"), std::string::npos)
        << reader.error().describe();
}

// h5py writes version-1 object headers by default and version-2 ("OHDR") with libver="latest";
// both, with scalar and array string attributes beside numeric ones, read back exactly.
TEST(AttributeCheck, SoundHeadersOfBothVersionsRead) {
    const std::string python =
        std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    testing::TempDir dir;
    for (const std::string libver : {"earliest", "latest"}) {
        const auto file = dir / (libver + ".h5");
        const std::string script =
            "import h5py, numpy\n"
            "with h5py.File('" +
            file.string() + "', 'w', libver='" + libver +
            "') as f:\n"
            "    g = f.create_group('g')\n"
            "    g.attrs['text'] = 'gr\\u00fc\\u00dfe ' * 40\n"
            "    g.attrs.create('names', ['a', 'bc', 'def'], dtype=h5py.string_dtype())\n"
            "    g.attrs['n'] = numpy.int64(7)\n"
            "    many = f.create_group('many')\n"
            "    for i in range(12): many.attrs['k%d' % i] = 'v%d' % i\n";
        const auto scriptFile = dir / (libver + ".py");
        std::ofstream(scriptFile) << script;
        if (std::system((python + " -c 'import h5py' 2>/dev/null").c_str()) != 0)
            GTEST_SKIP() << "no h5py";
        ASSERT_EQ(std::system((python + " '" + scriptFile.string() + "'").c_str()), 0);
        auto opened = h5::File::openReadOnly(file.string(), 1 << 20);
        ASSERT_TRUE(opened) << opened.error().describe();
        auto group = h5::Group::open(*opened, "g");
        ASSERT_TRUE(group) << group.error().describe();
        auto text = h5::readStringAttribute(*group, "text", 1 << 20);
        ASSERT_TRUE(text) << libver << ": " << text.error().describe();
        std::string expected;
        for (int i = 0; i < 40; ++i)
            expected +=
                "gr\xC3\xBC\xC3\x9F"
                "e ";
        EXPECT_EQ(*text, expected) << libver;
        // The walk sees g's three attribute messages in its header, whichever the version.
        H5O_info_t info;
        ASSERT_GE(H5Oget_info2(group->id(), &info, H5O_INFO_BASIC), 0);
        auto messages = h5::readObjectHeader(opened->id(), info.addr, 8, 8, group->where());
        ASSERT_TRUE(messages) << messages.error().describe();
        ASSERT_TRUE(*messages);
        EXPECT_EQ(std::count_if((*messages)->begin(), (*messages)->end(),
                                [](const h5::RawMessage& m) { return m.type == 0x000C; }),
                  3)
            << libver;
        // Twelve attributes: dense storage (a fractal heap) under libver="latest".
        auto many = h5::Group::open(*opened, "many");
        ASSERT_TRUE(many) << many.error().describe();
        auto k11 = h5::readStringAttribute(*many, "k11", 1 << 20);
        ASSERT_TRUE(k11) << libver << ": " << k11.error().describe();
        EXPECT_EQ(*k11, "v11");
        auto present = h5::hasAttribute(*group, "names");
        ASSERT_TRUE(present) << present.error().describe();
        EXPECT_TRUE(*present);
    }
}

}  // namespace
}  // namespace gatescope::data
