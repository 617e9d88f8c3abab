// Every architecture's config.json is read key by key: a key nobody reads is an error, and every
// value is type- and range-checked at parse time with an error naming config.json, the key and
// the value (docs/models.md, "Config audit"). Checked on the official fixtures and the bundled
// sample models, each copied with one key changed.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "core/checkpoint/checkpoint.h"
#include "core/model/model.h"
#include "engine/models/registry.h"
#include "fixture_support.h"

namespace gatescope {
namespace {

namespace fs = std::filesystem;

fs::path sampleModel(const std::string& name) {
    return fs::path(GATESCOPE_SOURCE_DIR) / "resources/models" / name;
}

/// A copy of a checkpoint folder whose config.json is `edit`ed; removed when destroyed.
class EditedCheckpoint {
public:
    EditedCheckpoint(const fs::path& source, const std::function<void(nlohmann::json&)>& edit) {
        static int counter = 0;
        m_dir =
            fs::temp_directory_path() / ("gatescope_config_audit_" + std::to_string(::getpid()) +
                                         "_" + std::to_string(counter++));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        for (const auto& entry : fs::directory_iterator(source)) {
            if (entry.path().filename() == "config.json") continue;
            fs::create_symlink(fs::absolute(entry.path()), m_dir / entry.path().filename());
        }
        nlohmann::json config;
        std::ifstream(source / "config.json") >> config;
        edit(config);
        std::ofstream(m_dir / "config.json") << config.dump(2);
    }
    ~EditedCheckpoint() {
        std::error_code ignored;
        fs::remove_all(m_dir, ignored);
    }
    Result<std::unique_ptr<core::Model>> load() const {
        auto checkpoint = core::Checkpoint::open(m_dir);
        if (!checkpoint) return checkpoint.error();
        return core::loadModel(*checkpoint);
    }

private:
    fs::path m_dir;
};

struct Case {
    const char* name;
    const char* checkpoint;  ///< "fixture:<dir>" or "sample:<dir>"
    const char* pointer;     ///< JSON pointer of the key to set
    nlohmann::json value;
    ErrorKind kind;
    const char* object;                                 ///< the key the error names
    const char* messagePart;                            ///< a fragment of the message
    nlohmann::json alsoSet = nlohmann::json::object();  ///< merged into the config first
};

fs::path resolve(const std::string& spec) {
    const auto colon = spec.find(':');
    const auto kind = spec.substr(0, colon), rest = spec.substr(colon + 1);
    return kind == "fixture" ? test::fixturesDir() / rest : sampleModel(rest);
}

class ConfigAudit : public ::testing::TestWithParam<Case> {};

TEST_P(ConfigAudit, RefusesWithAnErrorNamingTheKey) {
    const auto& c = GetParam();
    const auto dir = resolve(c.checkpoint);
    if (!fs::exists(dir / "config.json")) GTEST_SKIP() << dir << " not found";
    EditedCheckpoint edited(dir, [&](nlohmann::json& config) {
        config.merge_patch(c.alsoSet);
        config[nlohmann::json::json_pointer(c.pointer)] = c.value;
    });
    auto model = edited.load();
    ASSERT_FALSE(model) << c.name << ": loaded with " << c.pointer << " = " << c.value.dump();
    const auto& e = model.error();
    EXPECT_EQ(e.kind, c.kind) << e.describe();
    EXPECT_EQ(e.object, c.object) << e.describe();
    EXPECT_NE(e.file.find("config.json"), std::string::npos) << e.describe();
    EXPECT_NE(e.message.find(c.messagePart), std::string::npos) << e.describe();
}

using nlohmann::json;
constexpr auto kFormat = ErrorKind::Format;
constexpr auto kUnsupported = ErrorKind::Unsupported;

INSTANTIATE_TEST_SUITE_P(
    ConfigAuditKeys, ConfigAudit,
    ::testing::Values(
        // Unknown keys, in every architecture and at both levels of nested configs.
        Case{"fox_unknown", "fixture:fox/fox-pro", "/attention_sink", true, kUnsupported,
             "attention_sink", "unknown config key"},
        Case{"gsa_unknown", "fixture:gsa/gsa", "/window_size", 64, kUnsupported, "window_size",
             "unknown config key"},
        Case{"gatedfwa_unknown", "fixture:gatedfwa/gatedfwa", "/model_config/softcap", 30,
             kUnsupported, "model_config.softcap", "unknown config key"},
        Case{"gatedfwa_unknown_top", "fixture:gatedfwa/gatedfwa", "/rope_base", 5e5, kUnsupported,
             "rope_base", "unknown config key"},
        Case{"power_unknown", "fixture:power/power", "/model_config/norm", "rms", kUnsupported,
             "model_config.norm", "unknown config key"},
        Case{"wall_unknown", "sample:wall", "/sliding_window", 64, kUnsupported, "sliding_window",
             "unknown config key"},
        // Integers are 64-bit checked, never cut to 32 bits.
        Case{"fox_heads_wrap", "fixture:fox/fox-pro", "/num_heads", 4294967300LL, kFormat,
             "num_heads", "out of range"},
        Case{"gsa_heads_wrap", "fixture:gsa/gsa", "/num_heads", 4294967300LL, kFormat, "num_heads",
             "out of range"},
        // Values that make every loss NaN or that size work without bound.
        Case{"fox_rope_base_zero", "fixture:fox/transformer-pro-rope", "/rope_base", 0, kFormat,
             "rope_base", "out of range"},
        Case{"fox_norm_eps_negative", "fixture:fox/fox-pro", "/norm_eps", -1, kFormat, "norm_eps",
             "out of range"},
        Case{"gsa_conv_size_zero", "fixture:gsa/gsa", "/conv_size", 0, kFormat, "conv_size",
             "out of range"},
        Case{"gsa_conv_size_huge", "fixture:gsa/gsa", "/conv_size", 1099511627776LL, kFormat,
             "conv_size", "out of range"},
        Case{"gsa_normalizer_null", "fixture:gsa/gsa", "/gate_logit_normalizer", nullptr,
             kUnsupported, "gate_logit_normalizer", "None"},
        Case{"gsa_attnres", "fixture:gsa/gsa", "/attnres_block_size", 2, kUnsupported,
             "attnres_block_size", "residual"},
        Case{"gatedfwa_sequence_len", "fixture:gatedfwa/gatedfwa", "/model_config/sequence_len",
             1000000000, kFormat, "model_config.sequence_len", "out of range"},
        Case{"gatedfwa_window", "fixture:gatedfwa/gatedfwa", "/model_config/window_size",
             1000000000, kFormat, "model_config.window_size", "out of range"},
        Case{"power_block_size", "fixture:power/power", "/model_config/block_size", 1000000000,
             kFormat, "model_config.block_size", "out of range"},
        Case{"power_degree", "fixture:power/power", "/model_config/degree", 1000000000, kFormat,
             "model_config.degree", "out of range"},
        Case{"power_chunked_gqa", "fixture:power/power", "/model_config/qhead_ratio", 2,
             kUnsupported, "model_config.chunk_size", "normalizer",
             json{{"model_config", {{"chunk_size", 32}}}}},
        // Wrong types.
        Case{"power_dropout_type", "fixture:power/power", "/model_config/dropout", "x", kFormat,
             "model_config.dropout", "expected a number"},
        Case{"power_log_space_type", "fixture:power/power", "/model_config/log_space", "x", kFormat,
             "model_config.log_space", "expected true or false"},
        Case{"fox_qk_norm_type", "fixture:fox/fox-pro", "/qk_norm", "yes", kFormat, "qk_norm",
             "expected true or false"},
        Case{"wall_gate_bias_init_type", "sample:wall", "/gate_bias_init", "x", kFormat,
             "gate_bias_init", "two numbers"}),
    [](const auto& info) { return std::string(info.param.name); });

/// The configs as published (fixtures) and as `gatescope train` writes them (samples) hold no
/// key the parsers do not know.
TEST(ConfigAudit, PublishedAndSampleConfigsLoad) {
    std::vector<fs::path> dirs;
    for (const char* f : {"fox/fox-pro", "fox/fox-llama", "fox/transformer-pro-rope", "gsa/gsa",
                          "gatedfwa/gatedfwa", "gatedfwa/gatedfwa-noshift", "power/power"})
        if (fs::exists(test::fixturesDir() / f)) dirs.push_back(test::fixturesDir() / f);
    for (const char* s : {"fox", "transformer", "gsa", "gated_fwa", "power", "wall"})
        dirs.push_back(sampleModel(s));
    for (const auto& dir : dirs) {
        auto checkpoint = core::Checkpoint::open(dir);
        ASSERT_TRUE(checkpoint) << checkpoint.error().describe();
        auto model = core::loadModel(*checkpoint);
        EXPECT_TRUE(model) << dir << ": " << model.error().describe();
    }
}

}  // namespace
}  // namespace gatescope
