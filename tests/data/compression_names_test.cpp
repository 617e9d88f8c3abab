// data::parseCompression: the one name -> Compression mapping (the trace CLI's --compression and
// batch recipes' trace.compression both use it).
#include <gtest/gtest.h>

#include "data/common/compression.h"

namespace gatescope::data {
namespace {

TEST(CompressionNames, EveryNameRoundTripsAndOthersNameTheValidOnes) {
    for (auto c : {Compression::None, Compression::Deflate, Compression::Zstd, Compression::Lz4}) {
        auto parsed = parseCompression(toString(c));
        ASSERT_TRUE(parsed) << toString(c);
        EXPECT_EQ(*parsed, c);
    }
    for (const char* bad : {"gzip", "", "Deflate", "zstd "}) {
        auto parsed = parseCompression(bad);
        ASSERT_FALSE(parsed) << bad;
        EXPECT_EQ(parsed.error().kind, ErrorKind::Usage);
        EXPECT_NE(parsed.error().message.find("'" + std::string(bad) + "'"), std::string::npos);
        EXPECT_NE(parsed.error().message.find("deflate, lz4, zstd or none"), std::string::npos);
    }
}

}  // namespace
}  // namespace gatescope::data
