// libFuzzer target: config.json bytes through the bounded JSON parse and every architecture's
// config parser (FoX/Transformer, GatedFWA, GSA, power, Wall), as loadModel would run the one its
// model_type names. A parser may refuse a config only with ModelError; any other exception
// escaping, or a sanitizer report, is a finding. Seeds: fuzz/corpus/config/.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "data/common/bounded_json.h"
#include "engine/models/fox/fox_config.h"
#include "engine/models/gatedfwa/gatedfwa_config.h"
#include "engine/models/gsa/gsa_config.h"
#include "engine/models/power/power_config.h"
#include "engine/models/wall/wall_config.h"
#include "engine/nn/model_error.h"

namespace {

template <class Parse>
void tryParse(Parse parse) {
    try {
        parse();
    } catch (const gatescope::core::ModelError&) {
        // A refused config: the expected outcome for most inputs.
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    using namespace gatescope::core;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto parsed = gatescope::data::parseBoundedJson(text, "config.json");
    if (!parsed || !parsed->is_object()) return 0;
    const nlohmann::json& config = *parsed;
    tryParse([&] { (void)fox::parseFoxConfig(config, "config.json"); });
    tryParse([&] { (void)gatedfwa::parseGatedFwaConfig(config, "config.json"); });
    tryParse([&] { (void)gsa::parseGsaConfig(config, "config.json"); });
    tryParse([&] { (void)power::parsePowerConfig(config, "config.json"); });
    tryParse([&] { (void)wall::parseWallConfig(config, "config.json"); });
    return 0;
}
