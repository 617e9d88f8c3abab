// The trainable architectures, by the name `gatescope train --arch` takes. One row each.
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/nn/model_error.h"
#include "engine/train/train_net.h"

namespace gatescope::core::train {

std::unique_ptr<TrainNet> makeFoxTrainNet(const NetShape& shape);
std::unique_ptr<TrainNet> makeTransformerTrainNet(const NetShape& shape);
std::unique_ptr<TrainNet> makeWallTrainNet(const NetShape& shape);
std::unique_ptr<TrainNet> makeGatedFwaTrainNet(const NetShape& shape);
std::unique_ptr<TrainNet> makePowerTrainNet(const NetShape& shape);
std::unique_ptr<TrainNet> makeGsaTrainNet(const NetShape& shape);

namespace {

using Factory = std::unique_ptr<TrainNet> (*)(const NetShape&);

const std::vector<std::pair<std::string, Factory>>& factories() {
    static const std::vector<std::pair<std::string, Factory>> table = {
        {"fox", &makeFoxTrainNet},                  // fox_train_net.cpp
        {"transformer", &makeTransformerTrainNet},  // fox_train_net.cpp (no forget gate)
        {"wall", &makeWallTrainNet},                // wall_train_net.cpp
        {"gated_fwa", &makeGatedFwaTrainNet},       // gatedfwa_train_net.cpp
        {"power", &makePowerTrainNet},              // power_train_net.cpp
        {"gsa", &makeGsaTrainNet},                  // gsa_train_net.cpp
    };
    return table;
}

}  // namespace

std::vector<std::string> trainableArchs() {
    std::vector<std::string> names;
    for (const auto& [name, factory] : factories())
        names.push_back(name);
    return names;
}

std::unique_ptr<TrainNet> makeTrainNet(const std::string& arch, const NetShape& shape) {
    for (const auto& [name, factory] : factories()) {
        if (name == arch) return factory(shape);
    }
    throwModelError(ErrorKind::Usage, fmt::format("unknown architecture '{}' (known: {})", arch,
                                                  fmt::join(trainableArchs(), ", ")));
}

}  // namespace gatescope::core::train
