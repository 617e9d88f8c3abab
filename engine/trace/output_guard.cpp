#include "engine/trace/output_guard.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "data/common/input_file.h"

namespace gatescope::core {

namespace fs = std::filesystem;

Status checkTraceOutput(const fs::path& out, const std::vector<RunInputFile>& inputs) {
    auto refuse = [&](std::string why) {
        return Error{ErrorKind::Usage,
                     "refusing to write the trace here: " + std::move(why),
                     out.string(),
                     {}};
    };
    if (out.empty() || !out.has_filename()) return refuse("the path must name a file");
    const fs::path folder = out.has_parent_path() ? out.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        return refuse(fmt::format("its folder {} does not exist", folder.string()));

    struct stat st {};
    if (::lstat(out.c_str(), &st) != 0) {
        if (errno == ENOENT) return Ok{};  // a new file
        return refuse(fmt::format("cannot stat it: {}", std::strerror(errno)));
    }
    if (S_ISLNK(st.st_mode))
        return refuse(
            "it is a symbolic link (the trace would replace the link); give the path "
            "of a new file or of a regular file");
    if (!S_ISREG(st.st_mode))
        return refuse(
            fmt::format("it is a {}, not a regular file", data::describeFileType(st.st_mode)));
    for (const RunInputFile& input : inputs) {
        std::error_code e;
        if (!fs::exists(input.path, e)) continue;
        if (fs::equivalent(out, input.path, e) && !e) {
            return refuse(
                fmt::format("it is {} of this run ({}); a trace never replaces its own "
                            "inputs",
                            input.role, input.path.string()));
        }
    }
    return Ok{};
}

std::vector<RunInputFile> checkpointSideFiles(const fs::path& dir) {
    std::vector<RunInputFile> files;
    const std::pair<const char*, const char*> known[] = {
        {"config.json", "the checkpoint's config.json"},
        {"model.safetensors.index.json", "the checkpoint's shard index"},
        {"tokenizer.json", "the tokenizer"},
        {"vocab.json", "the tokenizer's vocabulary"},
        {"merges.txt", "the tokenizer's merges"},
        {"tokenizer_config.json", "the tokenizer's configuration"},
        {"special_tokens_map.json", "the tokenizer's special tokens"},
    };
    for (const auto& [name, role] : known) {
        std::error_code ec;
        if (fs::exists(dir / name, ec)) files.push_back({dir / name, role});
    }
    return files;
}

}  // namespace gatescope::core
