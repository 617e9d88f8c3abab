// `gatescope info TRACE`: what a trace holds (model, input, sizes, contents, manifest).
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/report.h"
#include "core/analysis/trace_info.h"
#include "data/trace/trace_reader.h"

namespace gatescope::app {

namespace {

void printText(const data::TraceSummary& s, const nlohmann::json& manifest);

class InfoCommand final : public Command {
public:
    void declare(CLI::App& sub) override {
        sub.add_option("trace", m_path, "Trace file (.h5)")->required();
        sub.add_flag("--json", m_json, "Print one JSON object (summary and manifest)");
    }

    int run() override { return printTraceInfo(m_path, m_json); }

private:
    std::string m_path;
    bool m_json = false;
};

}  // namespace

int printTraceInfo(const std::string& path, bool json) {
    {
        auto reader = data::TraceReader::open(path);
        if (!reader) return reportError(reader.error());
        const auto& s = (*reader)->summary();
        auto manifest = (*reader)->manifest();
        if (!manifest) return reportError(manifest.error());

        nlohmann::json out = core::traceSummaryJson(s);
        out["manifest"] = *manifest;
        if (json) {
            fmt::print("{}\n", out.dump(2));
            return kExitOk;
        }
        printText(s, *manifest);
        return kExitOk;
    }
}

namespace {

void printText(const data::TraceSummary& s, const nlohmann::json& manifest) {
    fmt::print("trace        {}\n", s.path);
    fmt::print("format       gatescope-trace v{} ({} compression)\n", s.formatVersion,
               s.compression);
    fmt::print("model        {}  ({})\n", s.modelType,
               manifest.value("/checkpoint/path"_json_pointer, std::string("?")));
    fmt::print("tokens       {}\n", s.nTokens);
    if (auto it = manifest.find("input_file"); it != manifest.end()) {
        fmt::print("input        {}\n", it->value("path", std::string("?")));
    }
    // What was changed in the forward (trace --intervene): the stored gates are the changed ones.
    if (auto it = manifest.find("interventions"); it != manifest.end() && it->is_array()) {
        for (const auto& item : *it) {
            fmt::print("intervened   {}\n",
                       item.is_object() ? item.value("spec", std::string("?")) : item.dump());
        }
    }
    fmt::print("per-token    {}\n", s.hasPerToken ? "loss, target rank, entropy" : "absent");
    fmt::print("layers       {}\n", s.layers.size());
    for (const auto& layer : s.layers) {
        std::vector<std::string> factors, maps;
        for (const auto& f : layer.factors)
            factors.push_back(f.name);
        for (const auto& p : layer.pyramids) {
            maps.push_back(
                fmt::format("{} (levels {}-{})", p.map, p.levels.front(), p.levels.back()));
        }
        fmt::print("  {:3}  {:15} heads {:3}  d {:4}  gates {:3}  factors [{}]  pyramids [{}]\n",
                   layer.index, layer.header.scoreKind, layer.header.nHeads, layer.header.headDim,
                   layer.hasGates ? std::to_string(layer.header.nChannels) + "ch" : "-",
                   fmt::join(factors, " "), fmt::join(maps, ", "));
    }
    fmt::print("manifest\n{}\n", manifest.dump(2));
}

}  // namespace

std::unique_ptr<Command> makeInfoCommand() {
    return std::make_unique<InfoCommand>();
}

}  // namespace gatescope::app
