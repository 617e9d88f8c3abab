#include "engine/train/train_log.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/build_info.h"
#include "data/common/atomic_file.h"

namespace gatescope::core::train {

TrainLog::TrainLog(const TrainOptions& options, int64_t corpusFiles, int64_t corpusBytes,
                   int64_t parameters)
    : m_options(options),
      m_corpusFiles(corpusFiles),
      m_corpusBytes(corpusBytes),
      m_parameters(parameters) {}

void TrainLog::addStep(const TrainProgress& p, double lr, double seconds) {
    m_rows.push_back({p.step, p.loss, lr, p.heldOutLoss, p.tokensPerSecond, seconds});
}

double TrainLog::recentLoss() const {
    const std::size_t n = std::min<std::size_t>(50, m_rows.size());
    double sum = 0;
    for (std::size_t i = m_rows.size() - n; i < m_rows.size(); ++i)
        sum += m_rows[i].loss;
    return n ? sum / static_cast<double>(n) : 0.0;
}

Status TrainLog::write(const std::filesystem::path& dir, const TrainProgress& last,
                       int64_t heldOutWindows) const {
    std::string csv = "step,loss,lr,held_out_loss,tokens_per_second,seconds\n";
    for (const auto& r : m_rows) {
        csv += fmt::format("{},{:.6f},{:.6g},{},{:.1f},{:.2f}\n", r.step, r.loss, r.lr,
                           r.heldOutLoss < 0 ? std::string() : fmt::format("{:.6f}", r.heldOutLoss),
                           r.tokensPerSecond, r.seconds);
    }
    if (auto st = data::writeFileAtomically(dir / "train_log.csv", csv); !st) return st;
    const auto& o = m_options;
    std::vector<std::string> corpus;
    for (const auto& c : o.corpus)
        corpus.push_back(c.string());
    nlohmann::json record = {
        {"gatescope_version", gatescopeVersion()},
        {"command", o.command},
        {"arch", o.arch},
        {"shape",
         {{"layers", o.shape.layers},
          {"hidden_size", o.shape.hiddenSize},
          {"heads", o.shape.heads},
          {"vocab_size", o.shape.vocabSize},
          {"seed", o.shape.seed}}},
        {"parameters", m_parameters},
        {"corpus", {{"roots", corpus}, {"files", m_corpusFiles}, {"bytes", m_corpusBytes}}},
        {"recall_fraction", o.recallFraction},
        {"assoc_fraction", o.assocFraction},
        {"steps", o.steps},
        {"batch", o.batch},
        {"seq_len", o.seqLen},
        {"lr", o.lr},
        {"warmup", o.warmup},
        {"weight_decay", o.weightDecay},
        {"device", o.device},
        {"step", last.step},
        {"time_limit_seconds", o.maxSeconds},
        {"train_loss", recentLoss()},
        {"held_out",
         {{"file", o.heldOut.empty() ? "last 5% of the corpus" : o.heldOut.filename().string()},
          {"windows", heldOutWindows},
          {"tokens", heldOutWindows * o.seqLen},
          {"loss", last.heldOutLoss}}},
        {"seconds", m_rows.empty() ? 0.0 : m_rows.back().seconds}};
    return data::writeFileAtomically(dir / "train.json", record.dump(2) + "\n");
}

}  // namespace gatescope::core::train
