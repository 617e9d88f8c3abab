#include "core/trace/trace_job.h"

#include <atomic>
#include <chrono>
#include <future>

#include <fmt/format.h>

#include "core/checkpoint/checkpoint.h"
#include "core/tokenizer/load_tokenizer.h"
#include "core/trace/layer_recorder.h"
#include "core/trace/trace_manifest.h"

namespace gatescope::core {

namespace {

using Clock = std::chrono::steady_clock;

data::TokenTable tokenTable(const InputTokens& input) {
    data::TokenTable table;
    table.ids = input.ids;
    table.text = input.tokenTexts;
    table.sourceText = input.sourceText;
    for (const auto& span : input.byteOffsets) {
        table.byteOffsets.push_back(
            {static_cast<int64_t>(span.start), static_cast<int64_t>(span.end)});
    }
    return table;
}

data::PerTokenResults perToken(ForwardResult&& result) {
    return {std::move(result.loss), std::move(result.targetRank), std::move(result.entropy)};
}

}  // namespace

struct LoadedModel {
    std::shared_ptr<const Checkpoint> checkpoint;
    std::unique_ptr<Model> model;
    std::unique_ptr<Tokenizer> tokenizer;  ///< null: the folder has none (token-id inputs)
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
    if (!tokenizer && tokenizer.error().kind != ErrorKind::Missing) return tokenizer.error();
    if (tokenizer) loaded->tokenizer = std::move(*tokenizer);
    m_dir = key;
    m_loaded = loaded;
    return loaded;
}

Result<TraceOutcome> runTraceJob(const TraceRequest& request,
                                 const std::function<void(const TraceProgress&)>& progress,
                                 const std::atomic<bool>* cancel, LoadedModelCache* models) {
    const auto started = Clock::now();
    auto report = [&](double fraction, std::string stage, int64_t tokens) {
        if (progress) progress({fraction, std::move(stage), tokens});
    };
    report(0.0, "loading", 0);
    auto device = checkDevice(request.device);
    if (!device) return device.error();

    LoadedModelCache ownModels;
    auto loaded = (models ? models : &ownModels)->load(request.modelDir);
    if (!loaded) return loaded.error();
    const auto& checkpoint = (*loaded)->checkpoint;
    auto& model = (*loaded)->model;
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
    const Tokenizer* tok = (*loaded)->tokenizer.get();
    auto input = readInput(request.input, tok);
    if (!input) return input.error();
    const int64_t n = static_cast<int64_t>(input->ids.size());

    data::TraceWriterOptions writerOptions = request.writer;
    if (writerOptions.encodeThreads == 0) writerOptions.encodeThreads = request.threads;
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
    if (auto st = (*writer)->writePerToken(perToken(std::move(*result))); !st) return st.error();
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

}  // namespace gatescope::core
