#include "app/cli/commands.h"

namespace gatescope::app {

const std::vector<CommandSpec>& commandTable() {
    static const std::vector<CommandSpec> table = {
        {"trace", "Run a checkpoint on a text or token ids and write its trace", &makeTraceCommand},
        {"info", "Describe a trace: model, input, sizes, contents and provenance",
         &makeInfoCommand},
        {"demo",
         "Trace a sample text with the bundled FoX and Transformer, compare them and open the "
         "viewer (--headless: write the comparison and figures)",
         &makeDemoCommand},
        {"open", "Open a trace in the viewer (also: `gatescope FILE`)", &makeOpenCommand},
        {"stats", "Loss curves, gate and attention statistics of traces (JSON/CSV)",
         &makeStatsCommand},
        {"batch",
         "Run a recipe of checkpoints x inputs: traces, analyses, summary (resumable, "
         "sharded, MPI)",
         &makeBatchCommand},
        {"niah", "Needle-in-a-haystack grid: exact-match scores, heatmap, one trace per cell",
         &makeNiahCommand},
        {"compare",
         "Compare two traces of one input: attention divergences, gate and loss "
         "differences",
         &makeCompareCommand},
        {"train",
         "Train a small byte-level model of any architecture on text and the pass-key task",
         &makeTrainCommand},
        {"export", "Write a figure (map, grid, retention, loss, compare) as PNG, SVG or PDF",
         &makeExportCommand},
    };
    return table;
}

}  // namespace gatescope::app
