// The bundled sample checkpoints (resources/models, made by scripts/gpu-train-samples.sh): each
// loads with the model zoo and reproduces the held-out loss its train.json records (measured by
// the training net on the GPU) on resources/samples/held_out.py, which training never saw.
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

const std::filesystem::path kResources = GATESCOPE_SOURCE_DIR "/resources";

class SampleModel : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleModel, LoadsAndReproducesItsRecordedHeldOutLoss) {
    const auto dir = kResources / "models" / GetParam();
    const auto record = nlohmann::json::parse(test::readFile(dir / "train.json"));
    EXPECT_EQ(record["arch"], GetParam());
    EXPECT_EQ(record["step"], record["steps"]);  // trained to the end of its schedule
    EXPECT_EQ(record["held_out"]["file"], "held_out.py");
    EXPECT_FALSE(record["command"].get<std::string>().empty());
    EXPECT_LT(std::filesystem::file_size(dir / "model.safetensors"), 8u << 20);

    auto checkpoint = core::Checkpoint::open(dir);
    ASSERT_TRUE(checkpoint) << checkpoint.error().describe();
    auto model = core::loadModel(*checkpoint);
    ASSERT_TRUE(model) << model.error().describe();
    const auto text = test::readFile(kResources / "samples" / "held_out.py");
    const auto windows = core::train::heldOutWindows(text, record["seq_len"].get<int64_t>(),
                                                     record["held_out"]["windows"].get<int64_t>());
    ASSERT_EQ(static_cast<int64_t>(windows.size()), record["held_out"]["windows"].get<int64_t>());
    const auto loss = test::heldOutLoss(**model, windows);
    EXPECT_EQ(loss.tokens, record["held_out"]["tokens"].get<int64_t>());
    const double recorded = record["held_out"]["loss"].get<double>();
    // Recorded on the GPU by the training net (cuBLAS, TF32 off), recomputed here on the CPU by
    // the inference model: the same function, summed in other orders.
    EXPECT_NEAR(loss.mean, recorded, 2e-4 * recorded);
    // Trained: far below a uniform byte (log 256 = 5.55 nats).
    EXPECT_LT(recorded, 1.2);
}

INSTANTIATE_TEST_SUITE_P(Bundled, SampleModel,
                         ::testing::Values("fox", "transformer", "wall", "gated_fwa", "power",
                                           "gsa"));

}  // namespace
}  // namespace gatescope
