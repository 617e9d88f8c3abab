// SHA-256 against published NIST vectors and Python's hashlib; the SHA-NI path against the
// portable one on random blocks and states.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/sha256.h"

namespace gatescope::core {
namespace {

using test::TempDir;

TEST(CheckpointSha256, NistVectors) {
    EXPECT_EQ(sha256Hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256Hex("abc", 3),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const std::string twoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    EXPECT_EQ(sha256Hex(twoBlocks.data(), twoBlocks.size()),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const std::string million(1'000'000, 'a');
    EXPECT_EQ(sha256Hex(million.data(), million.size()),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(CheckpointSha256, StreamingEqualsOneShotForAnyChunking) {
    std::string data(10'000, '\0');
    for (std::size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<char>((i * 131 + 7) % 251);
    const std::string whole = sha256Hex(data.data(), data.size());
    for (std::size_t chunk : {1u, 3u, 55u, 56u, 63u, 64u, 65u, 1000u}) {
        Sha256 hasher;
        for (std::size_t pos = 0; pos < data.size(); pos += chunk) {
            hasher.update(data.data() + pos, std::min(chunk, data.size() - pos));
        }
        EXPECT_EQ(hasher.finishHex(), whole) << "chunk " << chunk;
    }
}

TEST(CheckpointSha256, PaddingBoundariesAndMegabyteMatchHashlib) {
    if (!test::havePython()) GTEST_SKIP() << "python3 not found: hashlib ground truth unavailable";
    TempDir dir;
    // Lengths around the 55/56/64-byte padding boundaries, then a 1 MB pattern.
    std::vector<std::string> inputs;
    for (std::size_t n : {1u, 54u, 55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 127u, 128u, 129u}) {
        std::string s(n, '\0');
        for (std::size_t i = 0; i < n; ++i)
            s[i] = static_cast<char>((i * 37 + n) & 0xFF);
        inputs.push_back(s);
    }
    std::string megabyte(1 << 20, '\0');
    for (std::size_t i = 0; i < megabyte.size(); ++i) {
        megabyte[i] = static_cast<char>((i ^ (i >> 8)) * 2654435761u >> 24);
    }
    inputs.push_back(megabyte);
    std::string stdinText;
    for (const std::string& s : inputs)
        stdinText += test::toHex(s) + "\n";
    const auto lines =
        test::runPython(dir,
                        "import hashlib, sys\n"
                        "for line in sys.stdin:\n"
                        "    print(hashlib.sha256(bytes.fromhex(line.strip())).hexdigest())\n",
                        stdinText);
    ASSERT_EQ(lines.size(), inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        EXPECT_EQ(sha256Hex(inputs[i].data(), inputs[i].size()), lines[i])
            << "length " << inputs[i].size();
    }

    test::writeFile(dir / "mb.bin", megabyte);
    Result<std::string> fileDigest = sha256File(dir / "mb.bin");
    ASSERT_TRUE(fileDigest.ok()) << fileDigest.error().describe();
    EXPECT_EQ(*fileDigest, lines.back());
}

TEST(CheckpointSha256, HardwareCompressionEqualsThePortableCode) {
    if (!detail::sha256HardwareAvailable()) GTEST_SKIP() << "no SHA extensions on this processor";
    std::mt19937 random(11);
    std::vector<uint8_t> data(64 * 300);
    for (auto& byte : data)
        byte = static_cast<uint8_t>(random());
    for (std::size_t blocks : {1u, 2u, 3u, 17u, 300u}) {
        std::array<uint32_t, 8> portable, hardware;
        for (auto& word : portable)
            word = static_cast<uint32_t>(random());
        hardware = portable;
        detail::sha256CompressPortable(portable, data.data(), blocks);
        detail::sha256CompressHardware(hardware, data.data(), blocks);
        EXPECT_EQ(hardware, portable) << blocks << " blocks";
    }
}

TEST(CheckpointSha256, MissingFileIsAnIoErrorNamingIt) {
    TempDir dir;
    Result<std::string> digest = sha256File(dir / "absent.bin");
    ASSERT_FALSE(digest.ok());
    EXPECT_EQ(digest.error().kind, ErrorKind::Io);
    EXPECT_NE(digest.error().file.find("absent.bin"), std::string::npos);
}

}  // namespace
}  // namespace gatescope::core
