#include "core/input/id_sources.h"

#include <charconv>

#include <fmt/format.h>

#include "core/checkpoint/safetensors_file.h"
#include "core/checkpoint/safetensors_header.h"
#include "core/input/npy_reader.h"
#include "core/tokenizer/text_file.h"
#include "data/common/utf8.h"

namespace gatescope::core {
namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

Result<std::vector<int64_t>> readSafetensorsIds(const InputSpec& spec) {
    Result<std::shared_ptr<const SafetensorsFile>> file = SafetensorsFile::open(spec.path);
    if (!file) return file.error();
    const auto& tensors = (*file)->tensors();
    std::string name = spec.tensorName;
    if (name.empty()) {
        if (tensors.size() == 1) {
            name = tensors.begin()->first;
        } else if (tensors.count("input_ids") != 0) {
            name = "input_ids";
        } else {
            std::string integers;
            for (const auto& [n, info] : tensors) {
                if (isInteger(info.dtype)) integers += (integers.empty() ? "" : ", ") + n;
            }
            return Error{ErrorKind::Usage,
                         fmt::format("name the tensor of token ids (the file has {} tensors and "
                                     "none is \"input_ids\"; integer tensors: {})",
                                     tensors.size(), integers.empty() ? "none" : integers),
                         spec.path.string(),
                         {}};
        }
    }
    const TensorInfo* info = (*file)->find(name);
    if (info == nullptr) {
        return Error{ErrorKind::Missing, "no such tensor in the file", spec.path.string(), name};
    }
    const bool oneD = info->shape.size() == 1;
    const bool rowVector = info->shape.size() == 2 && info->shape[0] == 1;
    if (!isInteger(info->dtype) || (!oneD && !rowVector)) {
        return Error{ErrorKind::Shape,
                     fmt::format("token ids must be an integer tensor of shape [N] or [1, N]; "
                                 "this one is {} {}",
                                 dtypeName(info->dtype), formatShape(info->shape)),
                     spec.path.string(), name};
    }
    return toInt64(*info);
}

}  // namespace

Result<std::vector<int64_t>> parseIdText(std::string_view text, const std::filesystem::path& file) {
    std::vector<int64_t> ids;
    std::size_t line = 1;
    std::size_t lineStart = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        if (isSpace(text[pos])) {
            if (text[pos] == '\n') {
                ++line;
                lineStart = pos + 1;
            }
            ++pos;
            continue;
        }
        std::size_t end = pos;
        while (end < text.size() && !isSpace(text[end]))
            ++end;
        const std::string_view word = text.substr(pos, end - pos);
        int64_t value = 0;
        const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
        if (ec != std::errc() || ptr != word.data() + word.size()) {
            const std::string shown = data::escapeInvalidUtf8(word.substr(0, 40));
            return Error{ErrorKind::Format,
                         fmt::format("line {}, column {}: \"{}\" is not an integer token id{}",
                                     line, pos - lineStart + 1, shown,
                                     ec == std::errc::result_out_of_range ? " (out of range)" : ""),
                         file.string(),
                         {}};
        }
        ids.push_back(value);
        pos = end;
    }
    return ids;
}

Result<std::vector<int64_t>> readIdSource(const InputSpec& spec, InputKind kind) {
    if (kind == InputKind::Safetensors) return readSafetensorsIds(spec);
    Result<std::string> bytes = readWholeFile(spec.path);
    if (!bytes) return bytes.error();
    if (kind == InputKind::Npy) return parseNpyIds(*bytes, spec.path);
    return parseIdText(*bytes, spec.path);
}

}  // namespace gatescope::core
