// `gatescope niah --model DIR`: the needle-in-a-haystack grid (lengths x depths), scored by exact
// match of the greedy continuation, with a heatmap and one trace per cell.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt.h"
#include "app/cli/report.h"
#include "app/engine_module.h"
#include "core/input/list_syntax.h"
#include "core/trace/thread_limit.h"

namespace gatescope::app {

namespace {

Result<std::vector<int64_t>> parseLengths(const std::string& text) {
    std::vector<int64_t> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find(',', start), text.size());
        try {
            std::size_t used = 0;
            const std::string item = text.substr(start, end - start);
            const long long v = std::stoll(item, &used);
            if (used != item.size() || v < 1) throw std::invalid_argument(item);
            out.push_back(v);
        } catch (const std::exception&) {
            return Error{ErrorKind::Usage,
                         "expected positive token counts like 512,1024,2048",
                         {},
                         "--lengths"};
        }
        start = end + 1;
    }
    return out;
}

class NiahCommand final : public Command {
public:
    void declare(CLI::App& sub) override {
        sub.add_option("--model", m_options.modelDir, "Checkpoint folder")->required();
        sub.add_option("--haystack", m_options.haystack, "Haystack text (UTF-8)")->required();
        sub.add_option("--lengths", m_lengths, "Prompt lengths in tokens")->capture_default_str();
        sub.add_option("--depths", m_depths, "Needle depths in percent")->capture_default_str();
        auto* easy =
            sub.add_flag("--easy", m_easy, "Easy mode: the needle states the question too");
        sub.add_option("--passkey", m_passkey,
                       "Pass-key retrieval instead of the FoX needle: hide this key (e.g. 71432)")
            ->excludes(easy);
        sub.add_option("--out", m_options.out, "Output folder")->required();
        sub.add_option("--threads", m_options.trace.threads, "Threads (0: all cores)");
        sub.add_flag("--no-pyramids", m_noPyramids, "Keep factors but skip the pyramids");
    }

    int run() override {
        if (auto st = core::checkThreadCount(m_options.trace.threads); !st)
            return reportError(Error{ErrorKind::Usage, st.error().message, {}, "--threads"});
        auto lengths = parseLengths(m_lengths);
        if (!lengths) return reportError(lengths.error());
        auto depths = core::parseIndexList(m_depths, "--depths");
        if (!depths) return reportError(depths.error());
        m_options.texts =
            m_passkey.empty() ? core::foxNeedleTexts(m_easy) : core::passkeyNeedleTexts(m_passkey);
        m_options.lengths = *lengths;
        m_options.depths = *depths;
        m_options.trace.storePyramids = !m_noPyramids;
        auto engine = loadEngine();
        if (!engine) return reportError(engine.error());
        auto cells = (*engine)->runNiah(
            m_options,
            [](int done, int total) {
                fmt::print(stderr, "gatescope: niah: {}/{} cells\n", done, total);
            },
            &installInterruptFlag());
        if (!cells) return reportError(cells.error());
        int passed = 0;
        for (const auto& c : *cells)
            passed += c.exactMatch ? 1 : 0;
        fmt::print("{} of {} cells exact; grid {}, heatmap {}\n", passed, cells->size(),
                   (m_options.out / "grid.csv").string(), (m_options.out / "heatmap.svg").string());
        return kExitOk;
    }

private:
    core::NiahOptions m_options;
    std::string m_lengths = "256,512,1024", m_depths = "0,25,50,75,100";
    bool m_noPyramids = false;
    bool m_easy = false;
    std::string m_passkey;
};

}  // namespace

std::unique_ptr<Command> makeNiahCommand() {
    return std::make_unique<NiahCommand>();
}

}  // namespace gatescope::app
