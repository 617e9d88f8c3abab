#include "core/batch/batch_recipe.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/analysis/analysis_limits.h"
#include "core/batch/output_paths.h"
#include "core/batch/recipe_keys.h"
#include "core/batch/recipe_toml.h"
#include "core/trace/thread_limit.h"
#include "data/common/bounded_json.h"
#include "data/common/compression.h"
#include "data/common/input_file.h"

namespace gatescope::core {

namespace {

struct Reader {
    const std::filesystem::path& file;
    Error error(const std::string& key, const std::string& what) const {
        return Error{ErrorKind::Format, what, file.string(), key};
    }
};

Result<InputKind> parseKind(const std::string& text, const Reader& r) {
    for (auto kind :
         {InputKind::Auto, InputKind::Text, InputKind::Ids, InputKind::Npy, InputKind::Safetensors})
        if (text == toString(kind)) return kind;
    return r.error("inputs", "unknown input kind '" + text + "'");
}

Status parseTrace(const nlohmann::json& t, const Reader& r, TraceRequest& out) {
    if (auto st = rejectUnknownKeys(t,
                                    {"device", "dtype", "threads", "layers", "pyramids", "factors",
                                     "values", "pyramid_side", "compression", "interventions"},
                                    "trace.", r.file);
        !st)
        return st;
    const std::string dtype = t.value("dtype", "float32");
    if (dtype != "float32" && dtype != "bfloat16")
        return r.error("trace.dtype", "float32 or bfloat16");
    out.dtype = dtype == "bfloat16" ? ComputeDType::BFloat16 : ComputeDType::Float32;
    out.device = t.value("device", "cpu");
    out.threads = t.value("threads", 0);
    if (auto st = checkThreadCount(out.threads); !st)
        return r.error("trace.threads", st.error().message);
    out.layers = t.value("layers", std::vector<int>{});
    for (int layer : out.layers)
        if (layer < 0) return r.error("trace.layers", "layer indices are >= 0");
    out.storePyramids = t.value("pyramids", true);
    out.storeFactors = t.value("factors", true);
    out.storeValues = t.value("values", false);
    out.pyramidFinestSide = t.value("pyramid_side", int64_t{1024});
    const auto compression = data::parseCompression(t.value("compression", "deflate"));
    if (!compression) return r.error("trace.compression", compression.error().message);
    out.writer.compression = *compression;
    // As `trace --intervene`, each run's model checks them (docs/interventions.md); patch traces
    // are relative to the recipe's folder like every other path.
    if (t.contains("interventions")) {
        const auto& list = t["interventions"];
        if (!list.is_array() ||
            !std::all_of(list.begin(), list.end(), [](const auto& v) { return v.is_string(); }))
            return r.error("trace.interventions", "a list of --intervene values (strings)");
        auto parsed =
            parseInterventions(list.get<std::vector<std::string>>(), "trace.interventions");
        if (!parsed) return r.error("trace.interventions", parsed.error().message);
        for (auto& item : *parsed) {
            if (item.kind == InterventionKind::GatePatch && item.patchTrace.is_relative())
                item.patchTrace = r.file.parent_path() / item.patchTrace;
        }
        out.interventions = std::move(*parsed);
    }
    return Ok{};
}

// analyses.KEY: an integer in [lo, hi] (the ranges the `stats` options have), `fallback` when
// absent. Checked here so that a recipe's "bins_per_octave": 1e9 is refused when the recipe is
// read, naming the key, rather than after every run.
Result<int64_t> analysisInteger(const nlohmann::json& a, const char* key, int64_t fallback,
                                int64_t lo, int64_t hi, const Reader& r) {
    const std::string name = std::string("analyses.") + key;
    if (!a.contains(key)) return fallback;
    const auto& v = a[key];
    if (!v.is_number_integer())
        return r.error(name, "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi))
        return r.error(name, fmt::format("{} is {}; allowed: {} to {}", key, v.dump(), lo, hi));
    if (auto st = checkOptionRange(key, v.get<int64_t>(), lo, hi); !st)
        return r.error(name, st.error().message);
    return v.get<int64_t>();
}

}  // namespace

Status rejectUnknownKeys(const nlohmann::json& j, std::initializer_list<std::string_view> known,
                         const std::string& prefix, const std::filesystem::path& file) {
    const auto error = [&](const std::string& key, const std::string& what) {
        return Error{ErrorKind::Format, what, file.string(), key};
    };
    if (!j.is_object())
        return error(prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1),
                     "expected an object");
    for (const auto& [key, value] : j.items()) {
        if (std::find(known.begin(), known.end(), key) != known.end()) continue;
        std::string list;
        for (auto k : known)
            list += (list.empty() ? "" : ", ") + std::string(k);
        return error(prefix + key, "unknown key (this recipe format knows " + list + ")");
    }
    return Ok{};
}

Result<BatchRecipe> readRecipe(const std::filesystem::path& file) {
    BatchRecipe recipe;
    recipe.file = std::filesystem::absolute(file);
    const Reader r{recipe.file};
    auto text = data::readRegularFile(file, data::input_limits::kRecipe, "a batch recipe");
    if (!text) return text.error();
    auto parsed = file.extension() == ".toml" ? parseTomlAsJson(*text, recipe.file)
                                              : data::parseBoundedJson(*text, recipe.file.string());
    if (!parsed) return parsed.error();
    recipe.source = std::move(parsed).value();
    if (!recipe.source.is_object()) return r.error({}, "a recipe is a JSON object (TOML table)");
    const auto& j = recipe.source;
    const auto base = recipe.file.parent_path();
    if (auto st = rejectUnknownKeys(j,
                                    {"output", "checkpoints", "inputs", "max_tokens",
                                     "token_budget", "trace", "devices", "analyses", "figures"},
                                    "", r.file);
        !st)
        return st.error();
    try {
        if (!j.contains("output")) return r.error("output", "the results folder is required");
        recipe.output = base / j["output"].get<std::string>();
        std::set<std::string> names;
        for (const auto& c : j.value("checkpoints", nlohmann::json::array())) {
            if (c.is_object())
                if (auto st = rejectUnknownKeys(c, {"name", "path"}, "checkpoints.", r.file); !st)
                    return st.error();
            RecipeCheckpoint cp;
            cp.path =
                base / (c.is_string() ? c.get<std::string>() : c.at("path").get<std::string>());
            const bool named = c.is_object() && c.contains("name");
            cp.name = named ? c["name"].get<std::string>() : cp.path.filename().string();
            if (!isSafeRunName(cp.name))
                return r.error(
                    "checkpoints",
                    fmt::format("checkpoint name '{}'{} cannot name the output folders: "
                                "use 1-{} of A-Z a-z 0-9 . _ - +, not starting with "
                                "'.'{}",
                                cp.name, named ? "" : " (the folder's name)", kMaxRunNameBytes,
                                named ? "" : ", or give the checkpoint a \"name\""));
            if (!names.insert(cp.name).second)
                return r.error("checkpoints", "two checkpoints are named '" + cp.name +
                                                  "': give them distinct \"name\"s");
            recipe.checkpoints.push_back(std::move(cp));
        }
        for (const auto& i : j.value("inputs", nlohmann::json::array())) {
            if (i.is_object())
                if (auto st = rejectUnknownKeys(i, {"path", "kind"}, "inputs.", r.file); !st)
                    return st.error();
            RecipeInput input;
            input.path =
                base / (i.is_string() ? i.get<std::string>() : i.at("path").get<std::string>());
            if (i.is_object() && i.contains("kind")) {
                auto kind = parseKind(i["kind"].get<std::string>(), r);
                if (!kind) return kind.error();
                input.kind = *kind;
            }
            recipe.inputs.push_back(std::move(input));
        }
        if (recipe.checkpoints.empty() || recipe.inputs.empty())
            return r.error("checkpoints", "a recipe needs at least one checkpoint and one input");
        recipe.maxTokens = j.value("max_tokens", int64_t{0});
        recipe.tokenBudget = j.value("token_budget", int64_t{0});
        if (recipe.maxTokens < 0 || recipe.tokenBudget < 0)
            return r.error("max_tokens", "max_tokens and token_budget must be >= 0");
        if (auto st = parseTrace(j.value("trace", nlohmann::json::object()), r, recipe.trace); !st)
            return st.error();
        auto figures = parseRecipeFigures(j.value("figures", nlohmann::json::array()), file);
        if (!figures) return figures.error();
        recipe.figures = std::move(*figures);
        recipe.devices = j.value("devices", std::vector<int>{});
        for (int d : recipe.devices)
            if (d < 0 || d > 1023) return r.error("devices", "GPU indices are 0..1023");
        const auto a = j.value("analyses", nlohmann::json::object());
        if (auto st = rejectUnknownKeys(
                a,
                {"loss", "gates", "attention", "bin_width", "bins_per_octave", "smoothing_window"},
                "analyses.", r.file);
            !st)
            return st.error();
        recipe.analyses.loss = a.value("loss", true);
        recipe.analyses.gates = a.value("gates", true);
        recipe.analyses.attention = a.value("attention", false);
        auto binWidth = analysisInteger(a, "bin_width", 256, 1, kMaxBinWidth, r);
        if (!binWidth) return binWidth.error();
        auto binsPerOctave = analysisInteger(a, "bins_per_octave", 4, 1, kMaxBinsPerOctave, r);
        if (!binsPerOctave) return binsPerOctave.error();
        auto smoothing = analysisInteger(a, "smoothing_window", 101, 1, kMaxSmoothingWindow, r);
        if (!smoothing) return smoothing.error();
        recipe.analyses.linearBinWidth = *binWidth;
        recipe.analyses.binsPerOctave = static_cast<int>(*binsPerOctave);
        recipe.analyses.smoothingWindow = static_cast<int>(*smoothing);
    } catch (const nlohmann::json::exception& e) {
        return r.error({}, std::string("unexpected value: ") + e.what());
    }
    return recipe;
}

}  // namespace gatescope::core
