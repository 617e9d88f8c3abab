// The training sequences: text windows, pass-key tasks and associative recall, checked by
// parsing the bytes back.
#include <fstream>
#include <map>
#include <regex>

#include <gtest/gtest.h>

#include "core/analysis/niah_prompt.h"
#include "engine/train/train_corpus.h"
#include "tests/app/cli_runner.h"

namespace gatescope {
namespace {

using core::train::SequenceSampler;
using core::train::TrainCorpus;

std::string bytesOf(const std::vector<int64_t>& ids) {
    std::string s;
    for (auto id : ids) {
        EXPECT_GE(id, 0);
        EXPECT_LT(id, 256);
        s += static_cast<char>(id);
    }
    return s;
}

TrainCorpus corpus() {
    TrainCorpus c;
    for (int i = 0; i < 400; ++i)
        c.bytes += "line " + std::to_string(i) + " of the corpus.\n";
    return c;
}

TEST(TrainCorpus, PasskeyTasksHideTheKeyTheyAskFor) {
    const auto c = corpus();
    SequenceSampler sampler(c, 300, 1.0, 0.0, 7);
    const std::regex needle(
        "The pass key is (\\d{5})\\. Remember it\\. (\\d{5}) is the pass key\\.");
    for (int i = 0; i < 20; ++i) {
        const auto text = bytesOf(sampler.next());
        ASSERT_EQ(text.size(), 300u);
        std::smatch m;
        ASSERT_TRUE(std::regex_search(text, m, needle)) << text;
        EXPECT_EQ(m[1], m[2]);
        const auto task = core::passkeyNeedleTexts(m[1]);
        EXPECT_TRUE(text.ends_with(task.question + task.answer)) << text;
    }
}

TEST(TrainCorpus, AssociativeRecallAsksEveryKeyWithItsValue) {
    const auto c = corpus();
    SequenceSampler sampler(c, 200, 0.0, 1.0, 3);
    for (int i = 0; i < 10; ++i) {
        const auto text = bytesOf(sampler.next());
        ASSERT_EQ(text.size(), 200u);
        std::map<std::string, std::string> written, asked;
        const std::regex pair("([a-z]{2})([=?])(\\d{2}) ");
        for (std::sregex_iterator it(text.begin(), text.end(), pair), end; it != end; ++it)
            ((*it)[2] == "=" ? written : asked)[(*it)[1]] = (*it)[3];
        EXPECT_EQ(written.size(), 16u);  // (200 - 2) / 12 pairs
        EXPECT_EQ(written, asked);
    }
}

TEST(TrainCorpus, TextWindowsComeFromTheCorpus) {
    const auto c = corpus();
    SequenceSampler sampler(c, 64, 0.0, 0.0, 5);
    for (int i = 0; i < 10; ++i)
        EXPECT_NE(c.bytes.find(bytesOf(sampler.next())), std::string::npos);
}

TEST(TrainCorpus, LoadSkipsTheHeldOutFileAndNamesAMissingRoot) {
    auto missing = core::train::loadTrainCorpus({"/nonexistent/corpus"}, {}, 1 << 20);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().file, "/nonexistent/corpus");

    test::TempDir dir;
    std::filesystem::create_directories(dir / "src");
    std::ofstream(dir / "src" / "a.txt") << std::string(5000, 'a');
    std::ofstream(dir / "src" / "held.py") << std::string(5000, 'h');
    std::ofstream(dir / "src" / "binary.bin") << std::string(5000, 'b');
    auto all = core::train::loadTrainCorpus({dir / "src"}, {}, 64 << 20);
    ASSERT_TRUE(all) << all.error().describe();
    EXPECT_EQ(all->files, 2);  // .bin is not a text source
    EXPECT_EQ(all->bytes, std::string(5000, 'a') + "\n" + std::string(5000, 'h') + "\n");
    // Held out by name too: another Python's copy of the held-out module stays out.
    auto held = core::train::loadTrainCorpus({dir / "src"}, "/elsewhere/held.py", 64 << 20);
    ASSERT_TRUE(held) << held.error().describe();
    EXPECT_EQ(held->bytes, std::string(5000, 'a') + "\n");
    auto tooSmall = core::train::loadTrainCorpus({dir / "src"}, {}, 3000);
    ASSERT_FALSE(tooSmall);
    EXPECT_EQ(tooSmall.error().kind, ErrorKind::Usage);
}

}  // namespace
}  // namespace gatescope
