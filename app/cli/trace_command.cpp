// `gatescope trace`: run a checkpoint on an input and write its trace.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/commands.h"
#include "app/cli/interrupt.h"
#include "app/cli/progress_reporter.h"
#include "app/cli/report.h"
#include "app/engine_module.h"
#include "core/input/list_syntax.h"
#include "core/trace/thread_limit.h"
#include "data/common/compression.h"

namespace gatescope::app {

namespace {

class TraceCommand final : public Command {
public:
    void declare(CLI::App& sub) override {
        sub.add_option("--model", m_request.modelDir,
                       "Checkpoint folder (config.json + safetensors)")
            ->required();
        sub.add_option("--input", m_request.input.path,
                       "UTF-8 text, or token ids (.ids/.txt of integers with --input-kind ids, "
                       ".npy, .safetensors)")
            ->required();
        sub.add_option("--out", m_request.out, "Trace file to write (.h5)")->required();
        sub.add_option("--input-kind", m_inputKind, "auto, text, ids, npy or safetensors")
            ->check(CLI::IsMember({"auto", "text", "ids", "npy", "safetensors"}));
        sub.add_option("--tensor", m_request.input.tensorName, "Tensor of a .safetensors input");
        sub.add_option("--range", m_range, "Tokens to keep, START:END (END exclusive)");
        sub.add_option("--documents", m_documents,
                       "Packed documents (Wall): start:ID[,ID] (each such token opens one), "
                       "end:ID[,ID] (each closes one) or at:POS[,POS] (token positions)");
        sub.add_option("--layers", m_layers, "Layers to record, e.g. 0,5,10-12 (default: all)");
        sub.add_option("--heads", m_heads, "Heads to build pyramids for (default: all)");
        sub.add_option("--dtype", m_dtype, "float32, or bfloat16 (the official evaluation)")
            ->check(CLI::IsMember({"float32", "bfloat16"}));
        sub.add_option("--device", m_request.device,
                       "cpu, cuda (GPU 0) or cuda:N (visible GPU N); cuda fails when this build "
                       "or machine has none");
        sub.add_option(
            "--threads", m_request.threads,
            fmt::format("Worker threads (0: all cores; at most {})", core::maxThreadRequest()));
        sub.add_flag("--no-factors", m_noFactors,
                     "Do not store q, k, normalizers (no exact tiles)");
        sub.add_flag("--no-pyramids", m_noPyramids, "Do not build attention/decay pyramids");
        sub.add_flag("--store-values", m_request.storeValues, "Also store v");
        sub.add_option("--pyramid-side", m_request.pyramidFinestSide,
                       "Finest stored pyramid level: at most this many cells a side")
            ->check(CLI::Range(256, 16384));
        sub.add_option("--compression", m_compression,
                       "deflate (default; every HDF5 reads it), lz4 (readers need a filter "
                       "plugin: Debian's hdf5-filter-plugin), zstd (no Debian 12 package reads "
                       "it: h5py, silx and h5dump show nothing without pip's hdf5plugin) or none");
        sub.add_flag("--factors-f16", m_request.writer.factorsAsF16,
                     "Store q, k, v as float16 (half their bytes; tiles then carry their "
                     "rounding, about 1e-3 relative); lse and log_* factors stay float32. "
                     "h5web cannot show float16 datasets");
        sub.add_option("--intervene", m_interventions,
                       "Change the forward (repeatable, applied in order): WHAT[@WHERE], WHAT "
                       "gate=1 | gate=C | gate=clamp(LO,HI) | gate=from:TRACE.h5 | log_gate*S | "
                       "ablate, WHERE layers=L;heads=H;channels=C (docs/interventions.md)")
            ->expected(1)
            ->take_all();
        sub.add_flag("--json", m_json, "Print the outcome as JSON");
    }

    int run() override {
        if (auto st = finishRequest(); !st) return reportError(st.error());
        const auto& interrupted = installInterruptFlag();
        auto engine = loadEngine();
        if (!engine) return reportError(engine.error());
        ProgressReporter bar("tok");
        auto outcome = (*engine)->runTraceJob(
            m_request,
            [&](const core::TraceProgress& p) { bar.update(p.fraction, p.stage, p.tokens); },
            &interrupted, nullptr);
        bar.finish();
        if (!outcome) return reportError(outcome.error());
        const double rate = outcome->seconds > 0 ? outcome->tokens / outcome->seconds : 0;
        if (m_json) {
            nlohmann::json j = {
                {"path", outcome->path.string()}, {"model_type", outcome->modelType},
                {"tokens", outcome->tokens},      {"layers", outcome->layersRecorded},
                {"seconds", outcome->seconds},    {"tokens_per_second", rate},
                {"device", outcome->device},      {"attention_path", outcome->attentionPath}};
            fmt::print("{}\n", j.dump(2));
        } else {
            fmt::print("wrote {} ({} tokens, {} layers, {} model) in {:.2f}s, {:.0f} tokens/s\n",
                       outcome->path.string(), outcome->tokens, outcome->layersRecorded,
                       outcome->modelType, outcome->seconds, rate);
            fmt::print("device {}, attention {}\n", outcome->device, outcome->attentionPath);
        }
        return kExitOk;
    }

private:
    Status finishRequest() {
        const std::map<std::string, core::InputKind> kinds = {
            {"auto", core::InputKind::Auto},
            {"text", core::InputKind::Text},
            {"ids", core::InputKind::Ids},
            {"npy", core::InputKind::Npy},
            {"safetensors", core::InputKind::Safetensors}};
        m_request.input.kind = kinds.at(m_inputKind);
        if (auto st = core::checkThreadCount(m_request.threads); !st)
            return Error{ErrorKind::Usage, st.error().message, {}, "--threads"};
        if (!m_range.empty()) {
            auto range = core::parseRange(m_range, "--range");
            if (!range) return range.error();
            m_request.input.begin = range->begin;
            m_request.input.end = range->end;
        }
        auto documents = core::parseDocumentSplit(m_documents);
        if (!documents) return documents.error();
        m_request.documents = std::move(*documents);
        auto lists = core::parseLayersAndHeads(m_layers, m_heads);
        if (!lists) return lists.error();
        m_request.layers = lists->layers;
        m_request.pyramidHeads = lists->heads;
        m_request.dtype =
            m_dtype == "bfloat16" ? core::ComputeDType::BFloat16 : core::ComputeDType::Float32;
        m_request.storeFactors = !m_noFactors;
        m_request.storePyramids = !m_noPyramids;
        auto compression = data::parseCompression(m_compression);
        if (!compression)
            return Error{ErrorKind::Usage, compression.error().message, {}, "--compression"};
        m_request.writer.compression = *compression;
        auto interventions = core::parseInterventions(m_interventions);
        if (!interventions) return interventions.error();
        m_request.interventions = std::move(*interventions);
        return Ok{};
    }

    core::TraceRequest m_request;
    std::string m_inputKind = "auto", m_range, m_layers, m_heads, m_dtype = "float32";
    std::string m_documents;
    std::vector<std::string> m_interventions;
    std::string m_compression = "deflate";
    bool m_noFactors = false, m_noPyramids = false, m_json = false;
};

}  // namespace

std::unique_ptr<Command> makeTraceCommand() {
    return std::make_unique<TraceCommand>();
}

}  // namespace gatescope::app
