// Where a trace may be written: a new path, or an existing regular file that is none of the run's
// own inputs. Without this check `--out` could silently replace the input text, the checkpoint's
// weights (the final rename replaces whatever is there) or a device node.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "data/common/result.h"

namespace gatescope::core {

/// A file the run reads, and how to name it in an error ("the input text", "the weights").
struct RunInputFile {
    std::filesystem::path path;
    std::string role;
};

/// Ok when `out` may receive a trace: its folder exists, and `out` does not exist yet or is a
/// regular file (not a symbolic link, FIFO, device, socket or directory) that is not one of
/// `inputs` (std::filesystem::equivalent: the same file under another name or through a hard or
/// symbolic link). Inputs that do not exist are skipped. Errors: Usage naming `out` and the input
/// it would replace, or its type. Reads only file metadata; thread-safe.
Status checkTraceOutput(const std::filesystem::path& out, const std::vector<RunInputFile>& inputs);

/// The files a trace of the checkpoint folder `dir` may read besides its weights: config.json, the
/// shard index and the tokenizer files (those that exist).
std::vector<RunInputFile> checkpointSideFiles(const std::filesystem::path& dir);

}  // namespace gatescope::core
