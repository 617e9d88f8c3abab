// SafetensorsFile: reading valid files (written by hand and by writeSafetensors) and refusing
// broken ones with errors that name the file and the tensor.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "checkpoint_test_helpers.h"
#include "core/checkpoint/safetensors_file.h"
#include "core/checkpoint/safetensors_writer.h"

namespace gatescope::core {
namespace {

using test::asBytes;
using test::bytesOf;
using test::rawSafetensors;
using test::TempDir;
using test::writeFile;

Error openError(const std::filesystem::path& path) {
    auto file = SafetensorsFile::open(path);
    EXPECT_FALSE(file.ok()) << path;
    return file.ok() ? Error{} : file.error();
}

TEST(CheckpointSafetensors, ReadsHandWrittenFileWithUnalignedData) {
    TempDir dir;
    // Header of odd length: the F32 data starts at an unaligned file offset.
    const std::string header = R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
                               R"("ids":{"dtype":"I64","shape":[3],"data_offsets":[24,48]},)"
                               R"("__metadata__":{"format":"pt"}})";
    ASSERT_EQ(header.size() % 2, 1u);
    const std::vector<float> w = {1.5f, -2.25f, 3.0f, 0.125f, -7.0f, 1e-3f};
    const std::vector<int64_t> ids = {7, -1, 50256};
    writeFile(dir / "a.safetensors", rawSafetensors(header, bytesOf(w) + bytesOf(ids)));

    auto file = SafetensorsFile::open(dir / "a.safetensors");
    ASSERT_TRUE(file.ok()) << file.error().describe();
    EXPECT_EQ((*file)->metadata().at("format"), "pt");
    ASSERT_EQ((*file)->tensors().size(), 2u);
    const TensorInfo* tw = (*file)->find("w");
    ASSERT_NE(tw, nullptr);
    EXPECT_EQ(tw->dtype, DType::F32);
    EXPECT_EQ(tw->shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(tw->numel(), 6);
    EXPECT_EQ(tw->file, dir / "a.safetensors");
    auto values = toFloat32(*tw);
    ASSERT_TRUE(values.ok());
    EXPECT_EQ(*values, w);
    auto asInt = toInt64(*(*file)->find("ids"));
    ASSERT_TRUE(asInt.ok());
    EXPECT_EQ(*asInt, ids);
    EXPECT_EQ((*file)->find("nope"), nullptr);
    EXPECT_FALSE(toInt64(*tw).ok());
    EXPECT_EQ(toInt64(*tw).error().object, "w");
}

TEST(CheckpointSafetensors, Bf16AndF16TensorsConvertToHandComputedFloats) {
    TempDir dir;
    // bf16: 1.0, -2.0, +inf, NaN; f16: 1.0, -2.0, smallest subnormal 2^-24, -inf, 65504.
    const std::vector<uint16_t> bf16 = {0x3F80, 0xC000, 0x7F80, 0x7FC0};
    const std::vector<uint16_t> f16 = {0x3C00, 0xC000, 0x0001, 0xFC00, 0x7BFF, 0x0000};
    const std::string header = R"({"b":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]},)"
                               R"("h":{"dtype":"F16","shape":[2,3],"data_offsets":[8,20]}})";
    writeFile(dir / "half.safetensors", rawSafetensors(header, bytesOf(bf16) + bytesOf(f16)));
    auto file = SafetensorsFile::open(dir / "half.safetensors");
    ASSERT_TRUE(file.ok()) << file.error().describe();

    auto b = toFloat32(*(*file)->find("b"));
    ASSERT_TRUE(b.ok());
    EXPECT_EQ((*b)[0], 1.0f);
    EXPECT_EQ((*b)[1], -2.0f);
    EXPECT_TRUE(std::isinf((*b)[2]) && (*b)[2] > 0);
    EXPECT_TRUE(std::isnan((*b)[3]));

    auto h = toFloat32(*(*file)->find("h"));
    ASSERT_TRUE(h.ok());
    EXPECT_EQ((*h)[0], 1.0f);
    EXPECT_EQ((*h)[1], -2.0f);
    EXPECT_EQ((*h)[2], 5.9604644775390625e-08f);
    EXPECT_TRUE(std::isinf((*h)[3]) && (*h)[3] < 0);
    EXPECT_EQ((*h)[4], 65504.0f);
    EXPECT_EQ((*h)[5], 0.0f);
}

TEST(CheckpointSafetensors, WriterRoundTripsEveryDType) {
    TempDir dir;
    const std::string f64 = bytesOf(std::vector<double>{1.0 / 3.0, -1e300});
    const std::vector<float> f32Values = {0.1f, 0.2f, 0.3f};
    const std::string f32 = bytesOf(f32Values);
    const std::string i32 = bytesOf(std::vector<int32_t>{-5, 6, 7, 8, 9});
    const std::string u8 = bytesOf(std::vector<uint8_t>{0, 255, 3});
    const std::string bf16 = bytesOf(std::vector<uint16_t>{0x3F80});
    const std::vector<TensorToWrite> tensors = {
        {"z.u8", DType::U8, {3}, asBytes(u8)},          {"a.f64", DType::F64, {2}, asBytes(f64)},
        {"m.bf16", DType::BF16, {1, 1}, asBytes(bf16)}, {"c.i32", DType::I32, {5}, asBytes(i32)},
        {"b.f32", DType::F32, {3}, asBytes(f32)},       {"empty", DType::F32, {0, 4}, {}},
    };
    Status written = writeSafetensors(dir / "rt.safetensors", tensors, {{"k", "v"}});
    ASSERT_TRUE(written.ok()) << written.error().describe();

    auto file = SafetensorsFile::open(dir / "rt.safetensors");
    ASSERT_TRUE(file.ok()) << file.error().describe();
    EXPECT_EQ((*file)->metadata().at("k"), "v");
    EXPECT_EQ((*file)->tensors().size(), 6u);
    EXPECT_EQ(*toFloat32(*(*file)->find("a.f64")),
              (std::vector<float>{static_cast<float>(1.0 / 3.0), -INFINITY}));
    EXPECT_EQ(*toFloat32(*(*file)->find("b.f32")), f32Values);
    EXPECT_EQ(*toInt64(*(*file)->find("c.i32")), (std::vector<int64_t>{-5, 6, 7, 8, 9}));
    EXPECT_EQ(*toInt64(*(*file)->find("z.u8")), (std::vector<int64_t>{0, 255, 3}));
    EXPECT_EQ(*toFloat32(*(*file)->find("m.bf16")), std::vector<float>{1.0f});
    EXPECT_EQ((*file)->find("empty")->numel(), 0);

    // Header padded to 8 bytes; each tensor's offset a multiple of its element size.
    const std::string raw = test::readFile(dir / "rt.safetensors");
    uint64_t headerLength = 0;
    std::memcpy(&headerLength, raw.data(), 8);
    EXPECT_EQ(headerLength % 8, 0u);
    const auto header = nlohmann::json::parse(raw.substr(8, headerLength));
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") continue;
        const DType dtype = *parseDType(entry["dtype"].get<std::string>());
        EXPECT_EQ(entry["data_offsets"][0].get<uint64_t>() % dtypeSize(dtype), 0u) << name;
    }

    // A byte count that disagrees with dtype x shape is refused, naming the tensor.
    const std::vector<TensorToWrite> bad = {{"x", DType::F32, {2}, asBytes(f32)}};
    Status refused = writeSafetensors(dir / "bad.safetensors", bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().object, "x");
}

class CheckpointSafetensorsErrors : public ::testing::Test {
protected:
    TempDir dir;
    std::filesystem::path write(const std::string& name, const std::string& bytes) {
        writeFile(dir / name, bytes);
        return dir / name;
    }
    std::string valid() {
        const std::vector<float> data = {1, 2, 3, 4, 5, 6};
        return rawSafetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                              R"("b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})",
                              bytesOf(data));
    }
};

TEST_F(CheckpointSafetensorsErrors, MissingFile) {
    Error e = openError(dir / "absent.safetensors");
    EXPECT_EQ(e.kind, ErrorKind::Io);
    EXPECT_NE(e.file.find("absent.safetensors"), std::string::npos);
}

TEST_F(CheckpointSafetensorsErrors, ShorterThanLengthField) {
    Error e = openError(write("tiny.safetensors", "abc"));
    EXPECT_EQ(e.kind, ErrorKind::Format);
    EXPECT_NE(e.message.find("truncated"), std::string::npos) << e.message;
}

TEST_F(CheckpointSafetensorsErrors, TruncatedInsideData) {
    const std::string full = valid();
    Error e = openError(write("cut.safetensors", full.substr(0, full.size() - 5)));
    EXPECT_EQ(e.kind, ErrorKind::Format);
    EXPECT_EQ(e.object, "b");
    EXPECT_NE(e.message.find("beyond the data region"), std::string::npos) << e.message;
    EXPECT_NE(e.file.find("cut.safetensors"), std::string::npos);
}

TEST_F(CheckpointSafetensorsErrors, TruncatedInsideHeader) {
    const std::string full = valid();
    Error e = openError(write("cut.safetensors", full.substr(0, 30)));
    EXPECT_EQ(e.kind, ErrorKind::Format);
    EXPECT_NE(e.message.find("header length"), std::string::npos) << e.message;
}

TEST_F(CheckpointSafetensorsErrors, HeaderLengthLargerThanFile) {
    std::string bytes = valid();
    const uint64_t huge = uint64_t{1} << 40;
    std::memcpy(bytes.data(), &huge, 8);
    Error e = openError(write("huge.safetensors", bytes));
    EXPECT_EQ(e.kind, ErrorKind::Format);
    EXPECT_NE(e.message.find("exceeds"), std::string::npos) << e.message;
}

TEST_F(CheckpointSafetensorsErrors, CorruptHeaderBytes) {
    std::string bytes = valid();
    bytes[8 + 5] = '\x01';  // inside the first key's JSON
    bytes[8 + 6] = '{';
    Error e = openError(write("corrupt.safetensors", bytes));
    EXPECT_EQ(e.kind, ErrorKind::Format);
    EXPECT_NE(e.message.find("corrupt header"), std::string::npos) << e.message;
    Error notObject = openError(write("array.safetensors", rawSafetensors("[1,2]", "")));
    EXPECT_NE(notObject.message.find("not an object"), std::string::npos);
}

TEST_F(CheckpointSafetensorsErrors, OverlappingOffsetsNameBothTensors) {
    const std::string header = R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},)"
                               R"("b":{"dtype":"F32","shape":[3],"data_offsets":[8,20]}})";
    Error e = openError(write("overlap.safetensors", rawSafetensors(header, std::string(24, 'x'))));
    EXPECT_EQ(e.kind, ErrorKind::Format);
    EXPECT_EQ(e.object, "b");
    EXPECT_NE(e.message.find("overlap tensor \"a\""), std::string::npos) << e.message;
}

TEST_F(CheckpointSafetensorsErrors, SizeDisagreesWithDTypeTimesShape) {
    const std::string header = R"({"w":{"dtype":"BF16","shape":[3,2],"data_offsets":[0,24]}})";
    Error e = openError(write("size.safetensors", rawSafetensors(header, std::string(24, 'x'))));
    EXPECT_EQ(e.kind, ErrorKind::Format);
    EXPECT_EQ(e.object, "w");
    EXPECT_NE(e.message.find("needs 12"), std::string::npos) << e.message;
}

TEST_F(CheckpointSafetensorsErrors, MalformedEntries) {
    struct Case {
        const char* header;
        const char* tensor;
        ErrorKind kind;
        const char* text;
    };
    const Case cases[] = {
        {R"({"w":{"shape":[1],"data_offsets":[0,4]}})", "w", ErrorKind::Format, "dtype"},
        {R"({"w":{"dtype":"F32","data_offsets":[0,4]}})", "w", ErrorKind::Format, "shape"},
        {R"({"w":{"dtype":"F32","shape":[1]}})", "w", ErrorKind::Format, "data_offsets"},
        {R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", "w", ErrorKind::Format,
         "data_offsets"},
        {R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "w", ErrorKind::Format,
         "shape"},
        {R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", "w", ErrorKind::Format,
         "reversed"},
        // 2^61 x 8 bytes wraps to 0 in 64 bits: must not pass as an empty tensor.
        {R"({"w":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,0]}})", "w",
         ErrorKind::Format, "too large"},
        {R"({"w":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", "w",
         ErrorKind::Format, "too large"},
        {R"({"w":{"dtype":"F8_E4M3","shape":[4],"data_offsets":[0,4]}})", "w",
         ErrorKind::Unsupported, "F8_E4M3"},
        {R"({"w":[1,2]})", "w", ErrorKind::Format, "not a JSON object"},
        {R"({"__metadata__":{"a":1}})", "__metadata__.a", ErrorKind::Format, "strings"},
    };
    for (const Case& c : cases) {
        Error e = openError(write("m.safetensors", rawSafetensors(c.header, std::string(8, 'x'))));
        EXPECT_EQ(e.kind, c.kind) << c.header;
        EXPECT_EQ(e.object, c.tensor) << c.header;
        EXPECT_NE(e.message.find(c.text), std::string::npos) << c.header << " -> " << e.message;
        EXPECT_NE(e.describe().find("m.safetensors"), std::string::npos);
    }
}

}  // namespace
}  // namespace gatescope::core
