#include "engine/train/trainer.h"

#include <chrono>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/model/model.h"
#include "core/tokenizer/text_file.h"
#include "engine/nn/cpu_math.h"
#include "engine/nn/device_check.h"
#include "engine/nn/model_error.h"
#include "engine/nn/tensor_convert.h"
#include "engine/train/train_corpus.h"
#include "engine/train/train_log.h"
#include "engine/train/train_net.h"

namespace gatescope::core::train {

namespace {

constexpr int64_t kMaxSeqLen = 2048;
constexpr int64_t kHeldOutWindows = 64;

torch::Tensor toTensor(const std::vector<std::vector<int64_t>>& rows) {
    auto t = torch::empty({static_cast<int64_t>(rows.size()), static_cast<int64_t>(rows[0].size())},
                          torch::kLong);
    for (std::size_t r = 0; r < rows.size(); ++r)
        std::copy(rows[r].begin(), rows[r].end(), t[static_cast<int64_t>(r)].data_ptr<int64_t>());
    return t;
}

torch::Tensor nextTokenLoss(TrainNet& net, const torch::Tensor& batch) {
    const int64_t len = batch.size(1) - 1;
    auto logits = net.logits(batch.narrow(1, 0, len));
    return torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}),
                                                batch.narrow(1, 1, len).reshape({-1}));
}

double heldOutLoss(TrainNet& net, const std::vector<std::vector<int32_t>>& windows, int64_t batch,
                   const torch::Device& device) {
    torch::NoGradGuard noGrad;
    double sum = 0;
    int64_t count = 0;
    for (std::size_t first = 0; first < windows.size(); first += batch) {
        std::vector<std::vector<int64_t>> rows;
        for (std::size_t w = first; w < std::min(windows.size(), first + batch); ++w)
            rows.emplace_back(windows[w].begin(), windows[w].end());
        auto ids = toTensor(rows).to(device);
        const int64_t predicted = ids.numel() - ids.size(0);
        sum += nextTokenLoss(net, ids).item<double>() * predicted;
        count += predicted;
    }
    return sum / static_cast<double>(count);
}

double learningRate(const TrainOptions& o, int64_t step) {
    if (step < o.warmup) return o.lr * static_cast<double>(step + 1) / o.warmup;
    const double t =
        static_cast<double>(step - o.warmup) / std::max<int64_t>(1, o.steps - o.warmup);
    return o.lr * (0.1 + 0.9 * 0.5 * (1 + std::cos(M_PI * std::min(1.0, t))));
}

torch::optim::AdamW makeOptimizer(const TrainOptions& o, ParamSet& params) {
    std::vector<torch::Tensor> decay, noDecay;  // no weight decay on norms and biases
    for (const auto& t : params.tensors())
        (t.dim() >= 2 ? decay : noDecay).push_back(t);
    auto options = torch::optim::AdamWOptions(o.lr).betas({0.9, 0.95});
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(decay,
                        std::make_unique<torch::optim::AdamWOptions>(
                            torch::optim::AdamWOptions(options).weight_decay(o.weightDecay)));
    groups.emplace_back(noDecay, std::make_unique<torch::optim::AdamWOptions>(
                                     torch::optim::AdamWOptions(options).weight_decay(0)));
    return torch::optim::AdamW(std::move(groups), options);
}

nlohmann::json checkpointConfig(const TrainOptions& o, const TrainNet& net) {
    auto config = net.config();
    if (o.shape.vocabSize == 256) config["gatescope_tokenizer"] = "byte";
    config["gatescope_train"] = {{"arch", o.arch},
                                 {"layers", o.shape.layers},
                                 {"hidden_size", o.shape.hiddenSize},
                                 {"heads", o.shape.heads},
                                 {"vocab_size", o.shape.vocabSize},
                                 {"seed", o.shape.seed}};
    return config;
}

void validate(const TrainOptions& o) {
    if (o.seqLen < 8 || o.seqLen > kMaxSeqLen)
        throwModelError(ErrorKind::Usage,
                        fmt::format("training length {} is outside [8, {}] (attention is dense "
                                    "over it while training)",
                                    o.seqLen, kMaxSeqLen),
                        {}, "--seq-len");
    if (o.steps < 1 || o.batch < 1)
        throwModelError(ErrorKind::Usage, "steps and batch must be positive", {}, "--steps");
    if (o.shape.vocabSize != 256)
        throwModelError(ErrorKind::Unsupported,
                        "training reads bytes: only the byte-level vocabulary (256) is supported",
                        {}, "--vocab");
    if (o.out.empty()) throwModelError(ErrorKind::Usage, "no output folder", {}, "--out");
}

template <typename T>
T orThrow(Result<T> r) {
    if (!r) throw ModelError(r.error());
    return std::move(*r);
}

TrainSummary train(const TrainOptions& o, const std::function<void(const TrainProgress&)>& progress,
                   const std::atomic<bool>* cancel) {
    validate(o);
    if (o.device != "cpu") orThrow(checkDevice(o.device));
    const auto cudaIndex = cudaDeviceIndex(o.device);
    const torch::Device device =
        cudaIndex ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(*cudaIndex))
                  : torch::Device(torch::kCPU);
    prepareCpuMath(o.threads);
    torch::manual_seed(o.shape.seed);

    auto corpus = orThrow(loadTrainCorpus(o.corpus, o.heldOut, o.maxCorpusBytes));
    std::string heldOutText;
    if (!o.heldOut.empty()) {
        heldOutText = orThrow(readWholeFile(o.heldOut));
    } else {
        const std::size_t cut = corpus.bytes.size() * 95 / 100;
        heldOutText = corpus.bytes.substr(cut);
        corpus.bytes.resize(cut);
    }
    const auto windows = heldOutWindows(heldOutText, o.seqLen, kHeldOutWindows);
    if (windows.empty())
        throwModelError(
            ErrorKind::Usage,
            fmt::format("the held-out text is shorter than one window ({} bytes)", o.seqLen + 1),
            o.heldOut.string(), "--held-out");

    auto net = makeTrainNet(o.arch, o.shape);
    net->params().to(device);
    const auto config = checkpointConfig(o, *net);
    auto optimizer = makeOptimizer(o, net->params());
    SequenceSampler sampler(corpus, o.seqLen + 1, o.recallFraction, o.assocFraction,
                            o.shape.seed + 1);
    TrainLog log(o, corpus.files, static_cast<int64_t>(corpus.bytes.size()), net->params().count());

    const auto start = std::chrono::steady_clock::now();
    TrainProgress p;
    p.steps = o.steps;
    for (int64_t step = 0; step < o.steps; ++step) {
        std::vector<std::vector<int64_t>> rows;
        for (int64_t b = 0; b < o.batch; ++b)
            rows.push_back(sampler.next());
        const double lr = learningRate(o, step);
        for (auto& group : optimizer.param_groups())
            static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
        optimizer.zero_grad();
        auto loss = nextTokenLoss(*net, toTensor(rows).to(device));
        loss.backward();
        torch::nn::utils::clip_grad_norm_(net->params().tensors(), 1.0);
        optimizer.step();

        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        p.step = step + 1;
        p.loss = loss.item<double>();
        p.tokensPerSecond = static_cast<double>(p.step * o.batch * o.seqLen) / seconds;
        const bool stop = cancel && cancel->load();
        const bool outOfTime = o.maxSeconds > 0 && seconds >= o.maxSeconds;
        const bool last = p.step == o.steps || stop || outOfTime;
        const bool checkpoint = last || p.step % o.evalEvery == 0;
        if (checkpoint) p.heldOutLoss = heldOutLoss(*net, windows, o.batch, device);
        log.addStep(p, lr, seconds);
        if (checkpoint) {
            if (auto st =
                    net->params().save(o.out, config, {{"gatescope_step", std::to_string(p.step)}});
                !st)
                throw ModelError(st.error());
            if (auto st = log.write(o.out, p, static_cast<int64_t>(windows.size())); !st)
                throw ModelError(st.error());
        }
        if (progress) progress(p);
        if (outOfTime) break;
        if (stop)
            throwModelError(ErrorKind::Cancelled,
                            fmt::format("cancelled at step {}; its checkpoint is in {}", p.step,
                                        o.out.string()));
    }
    TrainSummary summary;
    summary.out = o.out;
    summary.steps = p.step;
    summary.parameters = net->params().count();
    summary.trainLoss = log.recentLoss();
    summary.heldOutLoss = p.heldOutLoss;
    summary.heldOutTokens = static_cast<int64_t>(windows.size()) * o.seqLen;
    summary.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return summary;
}

}  // namespace

Result<TrainSummary> runTraining(const TrainOptions& options,
                                 const std::function<void(const TrainProgress&)>& progress,
                                 const std::atomic<bool>* cancel) {
    return guarded<TrainSummary>([&] { return train(options, progress, cancel); });
}

std::vector<std::vector<int32_t>> heldOutWindows(const std::string& text, int64_t seqLen,
                                                 int64_t maxWindows) {
    std::vector<std::vector<int32_t>> windows;
    for (int64_t w = 0; w < maxWindows; ++w) {
        const int64_t begin = w * seqLen;
        if (begin + seqLen + 1 > static_cast<int64_t>(text.size())) break;
        std::vector<int32_t> ids(seqLen + 1);
        for (int64_t i = 0; i <= seqLen; ++i)
            ids[i] = static_cast<unsigned char>(text[static_cast<std::size_t>(begin + i)]);
        windows.push_back(std::move(ids));
    }
    return windows;
}

Result<std::vector<float>> trainingNetLogits(const std::filesystem::path& dir,
                                             std::span<const int32_t> ids) {
    const auto configFile = (dir / "config.json").string();
    return guarded<std::vector<float>>(
        [&] {
            const auto config = orThrow(readJsonFile(configFile));
            if (!config.contains("gatescope_train"))
                throwModelError(ErrorKind::Unsupported, "not a checkpoint gatescope trained",
                                configFile, "gatescope_train");
            const auto& t = config["gatescope_train"];
            NetShape shape{t.at("layers"), t.at("hidden_size"), t.at("heads"), t.at("vocab_size"),
                           t.at("seed")};
            auto net = makeTrainNet(t.at("arch"), shape);
            if (auto st = net->params().load(dir); !st) throw ModelError(st.error());
            torch::NoGradGuard noGrad;
            std::vector<int64_t> wide(ids.begin(), ids.end());
            auto logits = net->reportedLogits(net->logits(toTensor({wide}))).contiguous();
            return std::vector<float>(logits.data_ptr<float>(),
                                      logits.data_ptr<float>() + logits.numel());
        },
        configFile);
}

}  // namespace gatescope::core::train
