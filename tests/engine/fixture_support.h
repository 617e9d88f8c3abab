// Test support: the official-output fixtures in ../shared/fixtures.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/checkpoint/safetensors_file.h"
#include "core/model/probe.h"

namespace gatescope::test {

inline std::filesystem::path fixturesDir() {
    return GATESCOPE_FIXTURES_DIR;
}

/// A parameterized test's name for fixture `name` ("fox-pro" -> "fox_pro": GoogleTest allows only
/// letters, digits and underscores).
inline std::string fixtureCaseName(const ::testing::TestParamInfo<const char*>& info) {
    std::string name = info.param;
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

/// The fixture folder, or GTEST_SKIP()s with a message when ../shared/fixtures is absent.
#define GATESCOPE_REQUIRE_FIXTURE(var, relative)                                     \
    const std::filesystem::path var = ::gatescope::test::fixturesDir() / (relative); \
    if (!std::filesystem::exists(var / "config.json"))                               \
        GTEST_SKIP() << "fixture " << var << " not found (../shared/fixtures is absent)";

/// Keeps every layer's record a forward reports, by layer index.
struct RecordingProbe : core::Probe {
    std::map<int, core::LayerRecord> layers;
    void onLayer(core::LayerRecord&& record) override { layers[record.layer] = std::move(record); }
};

/// Head h of an [H, N, ...] array, as a flat vector.
inline std::vector<float> headSlice(const core::FloatArray& a, int64_t h) {
    const int64_t per = a.numel() / a.shape[0];
    return {a.data.begin() + h * per, a.data.begin() + (h + 1) * per};
}

/// Expected tensors written by the official code.
class Expected {
public:
    explicit Expected(const std::filesystem::path& file) {
        auto opened = core::SafetensorsFile::open(file);
        if (!opened) throw std::runtime_error(opened.error().describe());
        m_file = *opened;
    }
    bool has(const std::string& name) const { return m_file->find(name) != nullptr; }
    std::vector<float> floats(const std::string& name) const {
        const auto* t = m_file->find(name);
        if (!t) throw std::runtime_error("expected tensor missing: " + name);
        return core::toFloat32(*t).value();
    }
    std::vector<int32_t> ints(const std::string& name) const {
        const auto* t = m_file->find(name);
        if (!t) throw std::runtime_error("expected tensor missing: " + name);
        auto wide = core::toInt64(*t).value();
        return {wide.begin(), wide.end()};
    }
    std::vector<int64_t> shape(const std::string& name) const { return m_file->find(name)->shape; }

private:
    std::shared_ptr<const core::SafetensorsFile> m_file;
};

/// max |a - b| / max(|b|, floor): a relative error over the whole tensor.
inline double relativeError(const std::vector<float>& actual, const std::vector<float>& expected,
                            double floor = 1e-6) {
    EXPECT_EQ(actual.size(), expected.size());
    double maxDiff = 0, maxRef = floor;
    for (std::size_t i = 0; i < std::min(actual.size(), expected.size()); ++i) {
        maxDiff = std::max(maxDiff, std::abs(double(actual[i]) - double(expected[i])));
        maxRef = std::max(maxRef, std::abs(double(expected[i])));
    }
    return maxDiff / maxRef;
}

/// A bfloat16 run's per-token loss against the official code's: rounding, not bugs, so ours should
/// sit about as close to the official bf16 loss as the official fp32 loss does (recorded in
/// docs/models.md). Prints both mean distances under `name`.
inline void expectBf16LossNearOfficial(const std::vector<float>& ours, const Expected& expected,
                                       const std::string& name) {
    const auto bf16 = expected.floats("per_token_loss_bf16");
    const auto fp32 = expected.floats("per_token_loss");
    ASSERT_EQ(ours.size(), bf16.size());
    double mine = 0, theirs = 0;
    for (std::size_t i = 0; i < bf16.size(); ++i) {
        mine += std::abs(ours[i] - bf16[i]);
        theirs += std::abs(fp32[i] - bf16[i]);
    }
    mine /= bf16.size();
    theirs /= bf16.size();
    std::printf(
        "[ bf16     ] %s: mean |ours_bf16 - official_bf16| = %.5f, "
        "mean |official_fp32 - official_bf16| = %.5f\n",
        name.c_str(), mine, theirs);
    EXPECT_LT(mine, std::max(0.03, 2 * theirs));
}

}  // namespace gatescope::test
