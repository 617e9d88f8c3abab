// `gatescope train`'s nets against the inference models: for every trainable architecture, a
// short training run writes a checkpoint; the model zoo's loader (verified against the official
// outputs) opens it and must compute the logits the training net computes, and reproduce the
// held-out loss that train.json records. Plus what training must refuse.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/model/model.h"
#include "engine/models/registry.h"
#include "engine/train/trainer.h"
#include "tests/app/cli_runner.h"
#include "tests/engine/held_out_support.h"

namespace gatescope {
namespace {

using core::train::TrainOptions;

/// Deterministic text with structure a model can learn: words drawn from a small vocabulary.
std::string syntheticText(int words, unsigned seed) {
    static const char* kWords[] = {"def",   "return", "self",  "value", "import", "class",
                                   "for",   "in",     "range", "if",    "else",   "None",
                                   "print", "(x)",    "= 0",   ":\n"};
    std::mt19937 rng(seed);
    std::string text;
    for (int i = 0; i < words; ++i)
        text += std::string(kWords[rng() % 16]) + (i % 9 == 8 ? "\n" : " ");
    return text;
}

struct TrainedCheckpoint {
    test::TempDir dir;
    TrainOptions options;
    std::string heldOut;
};

void train(TrainedCheckpoint& t, const std::string& arch, int64_t steps) {
    std::ofstream(t.dir / "corpus.txt") << syntheticText(3000, 1);
    t.heldOut = syntheticText(200, 2);
    std::ofstream(t.dir / "held_out.txt") << t.heldOut;
    auto& o = t.options;
    o.arch = arch;
    o.shape = {2, 64, 4, 256, 3};
    o.corpus = {t.dir / "corpus.txt"};
    o.heldOut = t.dir / "held_out.txt";
    o.steps = steps;
    o.batch = 2;
    o.seqLen = 96;
    o.warmup = 2;
    o.evalEvery = steps;
    o.threads = 2;
    o.out = t.dir / "ckpt";
    auto summary = core::train::runTraining(o, {}, nullptr);
    ASSERT_TRUE(summary) << summary.error().describe();
    EXPECT_EQ(summary->steps, steps);
}

class TrainedArch : public ::testing::TestWithParam<std::string> {};

TEST_P(TrainedArch, InferenceModelComputesTheTrainedLogitsAndRecordedLoss) {
    TrainedCheckpoint t;
    train(t, GetParam(), 3);
    if (HasFatalFailure()) return;
    for (const char* file : {"config.json", "model.safetensors", "train.json", "train_log.csv"})
        EXPECT_TRUE(std::filesystem::exists(t.options.out / file)) << file;

    auto checkpoint = core::Checkpoint::open(t.options.out);
    ASSERT_TRUE(checkpoint) << checkpoint.error().describe();
    auto model = core::loadModel(*checkpoint);
    ASSERT_TRUE(model) << model.error().describe();

    // Longer than the training length, the GatedFWA window and the kernels' 64-token blocks.
    std::vector<int32_t> ids;
    for (unsigned char c : syntheticText(40, 5).substr(0, 150))
        ids.push_back(c);
    core::RunOptions run;
    run.returnLogits = true;
    auto result = (*model)->forward(ids, {}, run, nullptr);
    ASSERT_TRUE(result) << result.error().describe();
    auto expected = core::train::trainingNetLogits(t.options.out, ids);
    ASSERT_TRUE(expected) << expected.error().describe();
    ASSERT_EQ(result->logits.data.size(), expected->size());
    double scale = 0, worst = 0;
    for (std::size_t i = 0; i < expected->size(); ++i) {
        scale = std::max(scale, std::abs(double((*expected)[i])));
        worst = std::max(worst, std::abs(double(result->logits.data[i]) - (*expected)[i]));
    }
    EXPECT_LT(worst, 1e-4 * std::max(1.0, scale)) << "max |logit| " << scale;

    // train.json's held-out loss, recomputed window by window by the inference model.
    const auto record = nlohmann::json::parse(test::readFile(t.options.out / "train.json"));
    const auto loss =
        test::heldOutLoss(**model, core::train::heldOutWindows(t.heldOut, t.options.seqLen, 64));
    EXPECT_EQ(loss.tokens, record["held_out"]["tokens"].get<int64_t>());
    EXPECT_NEAR(loss.mean, record["held_out"]["loss"].get<double>(), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(AllArchitectures, TrainedArch,
                         ::testing::Values("fox", "transformer", "wall", "gated_fwa", "power",
                                           "gsa"));

TEST(Train, LossFallsOnLearnableText) {
    TrainedCheckpoint t;
    train(t, "fox", 40);
    if (HasFatalFailure()) return;
    std::ifstream log(t.options.out / "train_log.csv");
    std::string header, first, line, last;
    std::getline(log, header);
    std::getline(log, first);
    while (std::getline(log, line))
        last = line;
    const double firstLoss = std::stod(first.substr(first.find(',') + 1));
    const auto record = nlohmann::json::parse(test::readFile(t.options.out / "train.json"));
    EXPECT_NEAR(firstLoss, std::log(256.0), 0.3);  // a fresh net predicts ~uniform bytes
    EXPECT_LT(record["held_out"]["loss"].get<double>(), firstLoss - 1.5);
    EXPECT_EQ(record["step"].get<int64_t>(), 40);
}

TEST(Train, RefusesBadOptionsNamingTheProblem) {
    test::TempDir dir;
    std::ofstream(dir / "corpus.txt") << syntheticText(3000, 1);
    TrainOptions o;
    o.corpus = {dir / "corpus.txt"};
    o.out = dir / "ckpt";
    o.steps = 1;

    o.arch = "mamba";
    auto r = core::train::runTraining(o, {}, nullptr);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("unknown architecture 'mamba'"), std::string::npos);

    o.arch = "fox";
    o.seqLen = 4096;
    r = core::train::runTraining(o, {}, nullptr);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().object, "--seq-len");

    o.seqLen = 64;
    o.corpus = {dir / "missing"};
    r = core::train::runTraining(o, {}, nullptr);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::Io);
    EXPECT_NE(r.error().file.find("missing"), std::string::npos);

    o.corpus = {dir / "corpus.txt"};
    o.shape.hiddenSize = 66;  // not a multiple of 4 heads: the FoX config parser refuses it
    r = core::train::runTraining(o, {}, nullptr);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().object, "num_heads");
    EXPECT_FALSE(std::filesystem::exists(dir / "ckpt" / "model.safetensors"));

    o.shape.hiddenSize = 64;
    std::ofstream(dir / "file") << "x";
    o.out = dir / "file" / "ckpt";  // under a regular file: cannot be created
    r = core::train::runTraining(o, {}, nullptr);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::Io);
}

}  // namespace
}  // namespace gatescope
