// expectTensor / expectNoUnexpectedTensors: the errors model loaders show.
#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/checkpoint/safetensors_writer.h"
#include "core/checkpoint/tensor_checks.h"

namespace gatescope::core {
namespace {

using test::TempDir;

class TensorChecks : public ::testing::Test {
protected:
    void SetUp() override {
        test::writeFile(dir / "config.json", R"({"model_type": "toy"})");
        const std::string w(4 * 12, '\0');
        const std::string ids(8 * 3, '\0');
        const std::vector<TensorToWrite> tensors = {
            {"w", DType::F32, {3, 4}, std::as_bytes(std::span(w.data(), w.size()))},
            {"ids", DType::I64, {3}, std::as_bytes(std::span(ids.data(), ids.size()))},
        };
        ASSERT_TRUE(writeSafetensors(dir / "model.safetensors", tensors).ok());
        auto opened = Checkpoint::open(dir.path());
        ASSERT_TRUE(opened.ok()) << opened.error().describe();
        checkpoint = std::move(opened).value();
    }
    TempDir dir;
    std::shared_ptr<const Checkpoint> checkpoint;
};

TEST_F(TensorChecks, AcceptsMatchingTensor) {
    EXPECT_TRUE(expectTensor(*checkpoint, "w", kFloatDTypes, {3, 4}).ok());
    EXPECT_TRUE(expectTensor(*checkpoint, "ids", {}, {3}).ok());
    auto info = requireTensor(*checkpoint, "w", {DType::F32}, {3, 4});
    ASSERT_TRUE(info.ok());
    EXPECT_EQ((*info)->name, "w");
}

TEST_F(TensorChecks, MissingTensor) {
    Status s = expectTensor(*checkpoint, "model.norm.weight", kFloatDTypes, {4});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Missing);
    EXPECT_EQ(s.error().object, "model.norm.weight");
    EXPECT_NE(s.error().file.find("model.safetensors"), std::string::npos);
    EXPECT_NE(s.error().message.find("[4]"), std::string::npos);
}

TEST_F(TensorChecks, WrongShapeSaysExpectedAndGot) {
    Status s = expectTensor(*checkpoint, "w", kFloatDTypes, {4, 3});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Shape);
    EXPECT_EQ(s.error().object, "w");
    EXPECT_EQ(s.error().message, "expected shape [4, 3] got [3, 4]");
    EXPECT_NE(s.error().describe().find("model.safetensors: w: expected shape"), std::string::npos);
}

TEST_F(TensorChecks, WrongDType) {
    Status s = expectTensor(*checkpoint, "ids", {DType::F32, DType::BF16}, {3});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Shape);
    EXPECT_EQ(s.error().message, "expected dtype F32 or BF16, got I64");
}

TEST_F(TensorChecks, UnexpectedTensors) {
    EXPECT_TRUE(expectNoUnexpectedTensors(*checkpoint, {"w", "ids"}).ok());
    Status s = expectNoUnexpectedTensors(*checkpoint, {"w"});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().object, "ids");
    EXPECT_NE(s.error().message.find("unexpected"), std::string::npos);
    Status two = expectNoUnexpectedTensors(*checkpoint, {});
    ASSERT_FALSE(two.ok());
    EXPECT_NE(two.error().message.find("2 unexpected"), std::string::npos) << two.error().message;
}

}  // namespace
}  // namespace gatescope::core
