// The intervention `gatescope demo` shows (issue 27): model A (the FoX sample) traced again with
// forgetting switched off in one layer, and what that costs in per-token loss within and beyond
// the sample's training length. Written as intervention.json beside the demo's compare.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "data/common/result.h"

namespace gatescope::app {

/// Which layer the demo switches off and the training length its summary splits at (the bundled
/// FoX sample: 4 layers, trained on 512-byte sequences; docs/sample-models.md).
inline constexpr int kDemoNoForgetLayer = 2;
inline constexpr int64_t kDemoTrainingLength = 512;

struct DemoIntervention {
    bool shown = false;  ///< false: model A has no such gate (the note says why)
    std::string note;
    std::filesystem::path trace;
    double deltaWithin = 0, deltaBeyond = 0;  ///< mean loss (intervened - baseline), nats/token
    int64_t within = 0, beyond = 0;           ///< positions averaged
};

/// Traces `text` (its first `tokens`, 0: all) with `model` and `gate=1@layers=kDemoNoForgetLayer`
/// (no pyramids or factors: the loss is what is summarized) into `out`, compares its per-token
/// loss with `baseline` (the same model's plain trace) and writes `out`/intervention.json. A model
/// without a forget gate in that layer is not an error: the result says so and is not shown.
/// Other failures (I/O, cancel) are errors. Prints nothing.
Result<DemoIntervention> runDemoIntervention(const std::filesystem::path& model,
                                             const std::filesystem::path& text, int64_t tokens,
                                             const std::filesystem::path& baseline,
                                             const std::filesystem::path& out);

}  // namespace gatescope::app
