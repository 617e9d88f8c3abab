// Top next-token predictions in the trace (/per_token/top_ids, top_logprobs, vocab_ids,
// vocab_text): written and read back exactly; traces without them read as before; wrong shapes
// are refused by the writer, and a forged file by the reader, naming the dataset.
#include <gtest/gtest.h>

#include "data/trace/trace_reader.h"
#include "data/trace/trace_writer.h"
#include "tests/data/hostile_edits.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

void addTopPredictions(testing::Sample& sample) {
    const int64_t n = sample.n;
    auto& per = sample.perToken;
    per.topK = 3;
    for (int64_t i = 0; i < n; ++i)
        for (int j = 0; j < 3; ++j) {
            per.topIds.push_back(static_cast<int32_t>((i * 7 + j * 3) % 11));
            per.topLogProbs.push_back(-0.5f * static_cast<float>(j + 1) - 0.01f * i);
        }
    for (int32_t id = 0; id < 11; ++id) {
        per.vocabIds.push_back(id);
        per.vocabText.push_back(id == 4 ? "\xE2\x96\x81the" : std::string(1, char('a' + id)));
    }
}

class TopPredictionsIo : public ::testing::Test {
protected:
    testing::TempDir dir;
};

TEST_F(TopPredictionsIo, RoundTripExactly) {
    auto sample = testing::makeSample(40, 9);
    addTopPredictions(sample);
    const auto path = dir / "top.h5";
    auto rc = testing::writeSample(sample, path);
    ASSERT_TRUE(rc) << rc.error().describe();
    auto reader = TraceReader::open(path);
    ASSERT_TRUE(reader) << reader.error().describe();
    auto per = (*reader)->perToken();
    ASSERT_TRUE(per) << per.error().describe();
    EXPECT_EQ(per->topK, 3);
    EXPECT_EQ(per->topIds, sample.perToken.topIds);
    EXPECT_EQ(per->topLogProbs, sample.perToken.topLogProbs);
    EXPECT_EQ(per->vocabIds, sample.perToken.vocabIds);
    EXPECT_EQ(per->vocabText, sample.perToken.vocabText);
}

TEST_F(TopPredictionsIo, TracesWithoutThemReadAsBefore) {
    auto sample = testing::makeSample(40, 9);
    const auto path = dir / "plain.h5";
    ASSERT_TRUE(testing::writeSample(sample, path));
    auto per = TraceReader::open(path).value()->perToken();
    ASSERT_TRUE(per) << per.error().describe();
    EXPECT_EQ(per->topK, 0);
    EXPECT_TRUE(per->topIds.empty() && per->vocabIds.empty());
}

TEST_F(TopPredictionsIo, TheWriterRefusesWrongShapes) {
    auto sample = testing::makeSample(40, 9);
    addTopPredictions(sample);
    sample.perToken.topIds.pop_back();
    auto rc = testing::writeSample(sample, dir / "short.h5");
    ASSERT_FALSE(rc);
    EXPECT_EQ(rc.error().kind, ErrorKind::Shape) << rc.error().describe();
    EXPECT_EQ(rc.error().object, "/per_token");
    auto texts = testing::makeSample(40, 9);
    addTopPredictions(texts);
    texts.perToken.vocabText.pop_back();
    EXPECT_FALSE(testing::writeSample(texts, dir / "texts.h5"));
}

TEST_F(TopPredictionsIo, AForgedVocabularyOrderIsRefused) {
    auto sample = testing::makeSample(40, 9);
    addTopPredictions(sample);
    const auto path = dir / "forged.h5";
    ASSERT_TRUE(testing::writeSample(sample, path));
    test::editTrace(path, [](hid_t f) {
        const hid_t ds = H5Dopen2(f, "/per_token/vocab_ids", H5P_DEFAULT);
        ASSERT_GE(ds, 0);
        std::vector<int32_t> ids(11);
        for (int32_t i = 0; i < 11; ++i)
            ids[static_cast<size_t>(i)] = 10 - i;
        EXPECT_GE(H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, ids.data()), 0);
        H5Dclose(ds);
    });
    auto per = TraceReader::open(path).value()->perToken();
    ASSERT_FALSE(per);
    EXPECT_EQ(per.error().object, "/per_token/vocab_ids") << per.error().describe();
    EXPECT_EQ(per.error().file, path.string());
}

}  // namespace
}  // namespace gatescope::data
