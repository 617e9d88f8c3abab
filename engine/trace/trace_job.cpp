#include "engine/trace/trace_job.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <new>
#include <optional>

#include <fmt/format.h>

#include "core/checkpoint/checkpoint.h"
#include "core/model/intervention_plan.h"
#include "core/tokenizer/load_tokenizer.h"
#include "core/trace/memory_budget.h"
#include "core/trace/thread_limit.h"
#include "data/common/utf8.h"
#include "engine/models/registry.h"
#include "engine/nn/device_check.h"
#include "engine/trace/layer_recorder.h"
#include "engine/trace/output_guard.h"
#include "engine/trace/trace_manifest.h"

namespace gatescope::core {

namespace {

using Clock = std::chrono::steady_clock;

/// The text a trace stores for token i. Tokenizer::tokenText shows a byte that is not valid UTF-8
/// as the four characters "\xC3", which a reader cannot tell from those characters in the text;
/// the trace promises U+FFFD. When the shown text is exactly the escaped form of the token's own
/// bytes (its span of the source text), those bytes are stored instead (the writer turns each
/// invalid byte into U+FFFD); other shown texts (a vocabulary string such as "▁the", an id
/// without a tokenizer) are stored as shown.
std::string storedTokenText(const InputTokens& input, std::size_t i) {
    const ByteSpan span = input.byteOffsets[i];
    const std::string& shown = input.tokenTexts[i];
    if (span.end <= span.start || span.end > input.sourceText.size()) return shown;
    const std::string_view bytes(input.sourceText.data() + span.start, span.end - span.start);
    if (data::escapeInvalidUtf8(bytes) == shown) return std::string(bytes);
    return shown;
}

data::TokenTable tokenTable(const InputTokens& input) {
    data::TokenTable table;
    table.ids = input.ids;
    table.sourceText = input.sourceText;
    for (std::size_t i = 0; i < input.ids.size(); ++i)
        table.text.push_back(storedTokenText(input, i));
    for (const auto& span : input.byteOffsets) {
        table.byteOffsets.push_back(
            {static_cast<int64_t>(span.start), static_cast<int64_t>(span.end)});
    }
    return table;
}

/// The forward's per-token results, with the text of every predicted id when there is a
/// tokenizer (the viewer cannot decode ids: the trace carries no vocabulary otherwise).
data::PerTokenResults perToken(ForwardResult&& result, const Tokenizer* tokenizer) {
    data::PerTokenResults out;
    out.loss = std::move(result.loss);
    out.targetRank = std::move(result.targetRank);
    out.entropy = std::move(result.entropy);
    out.topK = result.topK;
    out.topIds = std::move(result.topIds);
    out.topLogProbs = std::move(result.topLogProbs);
    if (tokenizer && out.topK > 0) {
        out.vocabIds = out.topIds;
        std::sort(out.vocabIds.begin(), out.vocabIds.end());
        out.vocabIds.erase(std::unique(out.vocabIds.begin(), out.vocabIds.end()),
                           out.vocabIds.end());
        std::erase_if(out.vocabIds, [](int32_t id) { return id < 0; });
        out.vocabText.reserve(out.vocabIds.size());
        for (int32_t id : out.vocabIds)
            out.vocabText.push_back(tokenizer->tokenText(id));
    }
    return out;
}

Error withObject(Error error, std::string object) {
    if (error.object.empty()) error.object = std::move(object);
    return error;
}

/// Every file the run reads: the input, the weights, config.json, the index, the tokenizer.
std::vector<RunInputFile> runInputs(const TraceRequest& request, const Checkpoint& checkpoint) {
    std::vector<RunInputFile> files = checkpointSideFiles(checkpoint.dir());
    files.push_back({request.input.path, "the input"});
    for (const auto& weights : checkpoint.weightFiles())
        files.push_back({weights, "the checkpoint's weights"});
    return files;
}

/// Layers and heads asked for must exist: silently ignoring --layers 40 on a 4-layer model
/// hands back a trace without what was asked for.
Status checkLayersAndHeads(const TraceRequest& request, const ModelInfo& info) {
    auto check = [](const std::vector<int>& asked, int count, const char* option,
                    const char* what) -> Status {
        for (int index : asked) {
            if (index < 0 || index >= count) {
                return Error{ErrorKind::Usage,
                             fmt::format("{} {} is outside the model's {} {} (0-{})", what, index,
                                         count, std::string(what) + "s", count - 1),
                             {},
                             option};
            }
        }
        return Ok{};
    };
    if (auto st = check(request.layers, info.layers, "--layers", "layer"); !st) return st;
    return check(request.pyramidHeads, info.heads, "--heads", "head");
}

/// Memory the pyramid levels of one head take besides the per-token arrays (both pools, both
/// maps, every level: 4/3 of the finest).
uint64_t pyramidBytes(const TraceRequest& request) {
    if (!request.storePyramids) return 0;
    const auto side = static_cast<uint64_t>(std::max<int64_t>(request.pyramidFinestSide, 1));
    return side * side * 4 * 2 * 2 * 4 / 3;
}

}  // namespace

struct LoadedModel {
    std::shared_ptr<const Checkpoint> checkpoint;
    std::unique_ptr<Model> model;
    std::unique_ptr<Tokenizer> tokenizer;  ///< null: the folder has none (token-id inputs)
    std::optional<Error> tokenizerError;   ///< why a tokenizer that is there could not be read
};

LoadedModelCache::LoadedModelCache() = default;
LoadedModelCache::~LoadedModelCache() = default;

Result<std::shared_ptr<LoadedModel>> LoadedModelCache::load(const std::filesystem::path& dir) {
    std::error_code ec;
    auto key = std::filesystem::weakly_canonical(dir, ec);
    if (ec) key = dir;
    if (m_loaded && key == m_dir) return m_loaded;
    m_loaded.reset();  // the previous model's memory goes before the next one's comes
    auto loaded = std::make_shared<LoadedModel>();
    auto checkpoint = Checkpoint::open(dir);
    if (!checkpoint) return checkpoint.error();
    loaded->checkpoint = *checkpoint;
    auto model = loadModel(*checkpoint);
    if (!model) return model.error();
    loaded->model = std::move(*model);
    auto tokenizer = loadTokenizer((*checkpoint)->dir(), (*checkpoint)->config());
    // Unreadable: kept for text inputs to report; token ids still run.
    if (tokenizer)
        loaded->tokenizer = std::move(*tokenizer);
    else if (tokenizer.error().kind != ErrorKind::Missing)
        loaded->tokenizerError = tokenizer.error();
    m_dir = key;
    m_loaded = loaded;
    return loaded;
}

namespace {

Result<TraceOutcome> runTraceJobUnguarded(const TraceRequest& request,
                                          const std::function<void(const TraceProgress&)>& progress,
                                          const std::atomic<bool>* cancel,
                                          LoadedModelCache* models) {
    const auto started = Clock::now();
    auto report = [&](double fraction, std::string stage, int64_t tokens) {
        if (progress) progress({fraction, std::move(stage), tokens});
    };
    report(0.0, "loading", 0);
    if (auto st = checkThreadCount(request.threads); !st)
        return withObject(st.error(), "--threads");
    auto device = checkDevice(request.device);
    if (!device) return device.error();

    LoadedModelCache ownModels;
    auto loaded = (models ? models : &ownModels)->load(request.modelDir);
    if (!loaded) return loaded.error();
    const auto& checkpoint = (*loaded)->checkpoint;
    auto& model = (*loaded)->model;
    // Before anything long runs: the trace may not replace one of its own inputs or a device.
    if (auto st = checkTraceOutput(request.out, runInputs(request, *checkpoint)); !st)
        return st.error();
    if (auto st = checkLayersAndHeads(request, model->info()); !st) return st.error();
    // The weights' digests for the manifest read every byte (seconds for a GB checkpoint): they
    // are computed beside the forward, and abandoned if the job ends early.
    std::atomic<bool> stopHashing = false;
    auto weightSha256 = std::async(std::launch::async, [c = checkpoint, &stopHashing] {
        return c->weightSha256(&stopHashing);
    });
    struct StopOnExit {
        std::atomic<bool>& flag;
        ~StopOnExit() { flag = true; }
    } stopOnExit{stopHashing};
    // Token ids need no tokenizer: a folder whose tokenizer gatescope cannot read still runs them.
    const Tokenizer* tok = (*loaded)->tokenizer.get();
    if (!tok && (*loaded)->tokenizerError && resolveInputKind(request.input) == InputKind::Text)
        return *(*loaded)->tokenizerError;
    // A sequence longer than memory allows is refused before its per-token tables are built.
    auto input = readInput(request.input, tok, [&](int64_t tokens) {
        return checkTraceMemory(tokens, model->info(), pyramidBytes(request), request.input.path);
    });
    if (!input) return input.error();
    const int64_t n = static_cast<int64_t>(input->ids.size());
    auto documents = documentStarts(request.documents, input->ids);
    if (!documents) return documents.error();
    if (documents->size() > 1 && !model->info().packedDocuments) {
        return Error{ErrorKind::Unsupported,
                     fmt::format("model_type '{}' does not run packed documents (only "
                                 "\"wall\" does); trace each document on its own",
                                 checkpoint->modelType()),
                     request.modelDir.string(), "--documents"};
    }
    // Checked (and patch traces read) before the output file exists.
    auto interventions = planInterventions(request.interventions, model->info(), input->ids);
    if (!interventions) return interventions.error();

    data::TraceWriterOptions writerOptions = request.writer;
    if (writerOptions.encodeThreads == 0) writerOptions.encodeThreads = request.threads;
    writerOptions.cancel = cancel;  // a large factor stops between chunk batches
    auto writer = data::TraceWriter::create(request.out, writerOptions);
    if (!writer) return writer.error();
    if (auto st = (*writer)->writeTokens(tokenTable(*input)); !st) return st.error();

    const int layers = model->info().layers;
    LayerRecorder recorder(**writer, request, cancel, [&](int layer, double) {
        report(0.05 + 0.9 * (layer + 1) / layers, fmt::format("layer {}/{}", layer + 1, layers), n);
    });
    RunOptions run;
    run.dtype = request.dtype;
    run.device = request.device;
    run.threads = request.threads;
    run.documentStarts = std::move(*documents);
    run.interventions = *interventions;
    run.cancelled = [&] { return (cancel && cancel->load()) || recorder.failure().has_value(); };
    auto result = model->forward(input->ids, {}, run, &recorder);
    // Layers of a GPU forward may still be on their way to the file (the recorder's writer
    // thread); a failed forward drops them with the recorder.
    if (result) {
        if (auto st = recorder.finish(); !st) return st.error();
    }
    if (auto failure = recorder.failure()) return *failure;
    if (!result) return result.error();

    report(0.97, "writing", n);
    auto hashes = weightSha256.get();
    if (!hashes) return hashes.error();
    const auto manifest = buildTraceManifest(*checkpoint, *hashes, tok, request, *input,
                                             result->attentionPath, *device);
    if (auto st = (*writer)->writeManifest(manifest); !st) return st.error();
    const std::string attentionPath = result->attentionPath;
    if (auto st = (*writer)->writePerToken(perToken(std::move(*result), tok)); !st)
        return st.error();
    if (cancel && cancel->load())
        return Error{ErrorKind::Cancelled, "cancelled", request.out.string(), {}};
    if (auto st = (*writer)->commit(); !st) return st.error();

    TraceOutcome outcome;
    outcome.path = request.out;
    outcome.modelType = checkpoint->modelType();
    outcome.tokens = n;
    outcome.layersRecorded = recorder.layersRecorded();
    outcome.device = *device;
    outcome.attentionPath = attentionPath;
    outcome.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    report(1.0, "done", n);
    return outcome;
}

}  // namespace

Result<TraceOutcome> runTraceJob(const TraceRequest& request, const TraceProgressFn& progress,
                                 const std::atomic<bool>* cancel, LoadedModelCache* models) {
    try {
        return runTraceJobUnguarded(request, progress, cancel, models);
    } catch (const std::bad_alloc&) {
        // Estimates come first (checkTraceMemory); this is what is left when they were short.
        return Error{ErrorKind::Io,
                     "out of memory while tracing this input: trace a part of it with --range "
                     "START:END, or record fewer layers (--layers)",
                     request.input.path.string(),
                     {}};
    }
}

}  // namespace gatescope::core
