// `gatescope train`: trains a small byte-level model of any architecture (engine/train/trainer.h)
// on text files and the pass-key task, writing a checkpoint the other subcommands open.
#include <cmath>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt.h"
#include "app/cli/progress_reporter.h"
#include "app/cli/report.h"
#include "app/engine_module.h"
#include "core/trace/thread_limit.h"

namespace gatescope::app {

namespace {

class TrainCommand final : public Command {
public:
    void declare(CLI::App& sub) override {
        auto& o = m_options;
        sub.add_option("--arch", o.arch,
                       "Architecture: fox, transformer, wall, gated_fwa, power, gsa")
            ->capture_default_str();
        sub.add_option("--corpus", o.corpus,
                       "Text files or folders (.py .txt .md .rst, recursively)")
            ->required();
        sub.add_option(
            "--held-out", o.heldOut,
            "Held-out text whose loss train.json records (default: the corpus' last 5%)");
        sub.add_option("--out", o.out, "Checkpoint folder to write")->required();
        sub.add_option("--layers", o.shape.layers)->capture_default_str();
        sub.add_option("--hidden", o.shape.hiddenSize, "Model width")->capture_default_str();
        sub.add_option("--heads", o.shape.heads)->capture_default_str();
        sub.add_option("--seed", o.shape.seed)->capture_default_str();
        sub.add_option("--steps", o.steps)->capture_default_str();
        sub.add_option("--batch", o.batch, "Sequences per step")->capture_default_str();
        sub.add_option("--seq-len", o.seqLen, "Training length in bytes (at most 2048)")
            ->capture_default_str();
        sub.add_option("--lr", o.lr, "Peak learning rate (AdamW, warmup then cosine)")
            ->capture_default_str();
        sub.add_option("--warmup", o.warmup)->capture_default_str();
        sub.add_option("--recall", o.recallFraction,
                       "Share of sequences that are pass-key retrieval tasks")
            ->capture_default_str();
        sub.add_option("--assoc", o.assocFraction,
                       "Share of sequences that are multi-query associative recall")
            ->capture_default_str();
        sub.add_option("--eval-every", o.evalEvery,
                       "Steps between held-out evaluations and "
                       "checkpoints")
            ->capture_default_str();
        sub.add_option("--time-limit", o.maxSeconds,
                       "Stop after this many seconds, saving the checkpoint (0: none)");
        sub.add_option("--max-corpus-mb", m_maxCorpusMb)->capture_default_str();
        sub.add_option("--device", o.device, "cpu, cuda or cuda:N")->capture_default_str();
        sub.add_option("--threads", o.threads, "CPU threads (0: all cores)");
    }

    int run() override {
        if (auto st = core::checkThreadCount(m_options.threads); !st)
            return reportError(Error{ErrorKind::Usage, st.error().message, {}, "--threads"});
        m_options.maxCorpusBytes = m_maxCorpusMb << 20;
        m_options.command = reproducingCommand();
        auto engine = loadEngine();
        if (!engine) return reportError(engine.error());
        ProgressReporter bar("tok");
        double heldOut = -1;
        auto summary = (*engine)->runTraining(
            m_options,
            [&](const core::train::TrainProgress& p) {
                heldOut = p.heldOutLoss;
                const auto stage = heldOut < 0 ? fmt::format("step {} loss {:.3f}", p.step, p.loss)
                                               : fmt::format("step {} loss {:.3f} held-out {:.3f}",
                                                             p.step, p.loss, heldOut);
                bar.update(static_cast<double>(p.step) / p.steps, stage,
                           p.step * m_options.batch * m_options.seqLen);
            },
            &installInterruptFlag());
        bar.finish();
        if (!summary) return reportError(summary.error());
        fmt::print(
            "trained {} ({} parameters) for {} steps in {:.0f}s: train loss {:.4f}, held-out "
            "loss {:.4f} nats/byte ({:.3f} bits/byte) on {} bytes\nwrote {} (config.json, "
            "model.safetensors, train.json, train_log.csv)\n",
            m_options.arch, summary->parameters, summary->steps, summary->seconds,
            summary->trainLoss, summary->heldOutLoss, summary->heldOutLoss / std::log(2.0),
            summary->heldOutTokens, summary->out.string());
        return 0;
    }

private:
    /// The command that retrains this model (recorded in train.json).
    std::string reproducingCommand() const {
        const auto& o = m_options;
        std::string corpus;
        for (const auto& c : o.corpus)
            corpus += " " + c.string();
        return fmt::format(
            "gatescope train --arch {} --corpus{}{} --layers {} --hidden {} --heads {} --seed {} "
            "--steps {} --batch {} --seq-len {} --lr {} --warmup {} --recall {} --assoc {} "
            "--eval-every {} "
            "--max-corpus-mb {} --out {}",
            o.arch, corpus, o.heldOut.empty() ? "" : " --held-out " + o.heldOut.string(),
            o.shape.layers, o.shape.hiddenSize, o.shape.heads, o.shape.seed, o.steps, o.batch,
            o.seqLen, o.lr, o.warmup, o.recallFraction, o.assocFraction, o.evalEvery, m_maxCorpusMb,
            o.out.string());
    }

    core::train::TrainOptions m_options;
    int64_t m_maxCorpusMb = 64;
};

}  // namespace

std::unique_ptr<Command> makeTrainCommand() {
    return std::make_unique<TrainCommand>();
}

}  // namespace gatescope::app
