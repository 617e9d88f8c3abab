// The model zoo, by config model_type. Adding an architecture is one row here.
#include <functional>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/model/model.h"
#include "engine/models/fox/fox_model.h"
#include "engine/models/gatedfwa/gatedfwa_model.h"
#include "engine/models/gsa/gsa_model.h"
#include "engine/models/power/power_model.h"
#include "engine/models/registry.h"
#include "engine/models/wall/wall_model.h"
#include "engine/nn/tensor_convert.h"

namespace gatescope::core {

namespace {

using Loader = std::unique_ptr<Model> (*)(std::shared_ptr<const Checkpoint>);

const std::vector<std::pair<std::string, Loader>>& registry() {
    static const std::vector<std::pair<std::string, Loader>> table = {
        {"forgetting_transformer-project_fox", &fox::loadFoxModel},
        {"transformer-project_fox", &fox::loadTransformerModel},
        {"gated_fwa", &gatedfwa::loadGatedFwaModel},
        {"gsa", &gsa::loadGsaModel},
        {"power", &power::loadPowerModel},
        {"wall", &wall::loadWallModel},
    };
    return table;
}

/// A model that runs one document at a time: refuses packed documents rather than letting
/// attention cross their boundaries.
class SingleDocumentModel final : public Model {
public:
    explicit SingleDocumentModel(std::unique_ptr<Model> model) : m_model(std::move(model)) {}
    const ModelInfo& info() const override { return m_model->info(); }
    Result<ForwardResult> forward(std::span<const int32_t> ids, std::span<const int32_t> targets,
                                  const RunOptions& options, Probe* probe) override {
        if (options.documentStarts.size() > 1) {
            return Error{ErrorKind::Unsupported,
                         fmt::format("model_type '{}' does not run packed documents (only "
                                     "\"wall\" does); trace each document on its own",
                                     info().modelType),
                         {},
                         "documents"};
        }
        return m_model->forward(ids, targets, options, probe);
    }

private:
    std::unique_ptr<Model> m_model;
};

}  // namespace

std::vector<std::string> knownModelTypes() {
    std::vector<std::string> names;
    for (const auto& [name, loader] : registry())
        names.push_back(name);
    return names;
}

Result<std::unique_ptr<Model>> loadModel(std::shared_ptr<const Checkpoint> checkpoint) {
    const std::string configFile = (checkpoint->dir() / "config.json").string();
    for (const auto& [name, loader] : registry()) {
        if (name != checkpoint->modelType()) continue;
        auto model =
            guarded<std::unique_ptr<Model>>([&] { return loader(checkpoint); }, configFile);
        if (model && !(*model)->info().packedDocuments)
            *model = std::make_unique<SingleDocumentModel>(std::move(*model));
        return model;
    }
    return Error{ErrorKind::Unsupported,
                 fmt::format("unknown model_type '{}' (known: {})", checkpoint->modelType(),
                             fmt::join(knownModelTypes(), ", ")),
                 configFile, "model_type"};
}

}  // namespace gatescope::core
