#include "core/checkpoint/safetensors_header.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "data/common/bounded_json.h"

namespace gatescope::core {
namespace {

using nlohmann::json;

Error tensorError(ErrorKind kind, const std::filesystem::path& file, const std::string& tensor,
                  std::string message) {
    return Error{kind, std::move(message), file.string(), tensor};
}

// Largest element count we accept: numel x 8 bytes must not wrap around in 64 bits, or a header
// could claim a huge shape over a tiny (even empty) byte range.
constexpr uint64_t kMaxExtent = uint64_t{1} << 60;

std::string supportedDTypes() {
    return "F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL";
}

Result<TensorInfo> parseTensor(const std::string& name, const json& entry,
                               std::span<const std::byte> data, const std::filesystem::path& file) {
    auto fail = [&](std::string message) {
        return tensorError(ErrorKind::Format, file, name, std::move(message));
    };
    if (!entry.is_object()) return fail("header entry is not a JSON object");
    auto dtypeIt = entry.find("dtype");
    auto shapeIt = entry.find("shape");
    auto offsetsIt = entry.find("data_offsets");
    if (dtypeIt == entry.end() || !dtypeIt->is_string()) {
        return fail("header entry lacks a string \"dtype\"");
    }
    if (shapeIt == entry.end() || !shapeIt->is_array()) {
        return fail("header entry lacks a \"shape\" array");
    }
    if (offsetsIt == entry.end() || !offsetsIt->is_array() || offsetsIt->size() != 2 ||
        !(*offsetsIt)[0].is_number_unsigned() || !(*offsetsIt)[1].is_number_unsigned()) {
        return fail("header entry lacks \"data_offsets\" as two non-negative integers");
    }

    TensorInfo info;
    info.name = name;
    info.file = file;
    const std::string dtypeText = dtypeIt->get<std::string>();
    std::optional<DType> dtype = parseDType(dtypeText);
    if (!dtype) {
        return tensorError(ErrorKind::Unsupported, file, name,
                           fmt::format("dtype \"{}\" is not supported (readable: {})", dtypeText,
                                       supportedDTypes()));
    }
    info.dtype = *dtype;

    if (shapeIt->size() > kMaxSafetensorsRank) {
        return fail(fmt::format("shape has {} dimensions, more than the {} accepted",
                                shapeIt->size(), kMaxSafetensorsRank));
    }
    uint64_t numel = 1;
    for (const json& dim : *shapeIt) {
        if (!dim.is_number_unsigned()) return fail("shape holds a value that is not a size");
        const auto d = dim.get<uint64_t>();
        if (d > kMaxExtent || (d != 0 && numel > kMaxExtent / d)) {
            return fail("shape is too large");
        }
        numel *= d;
        info.shape.push_back(static_cast<int64_t>(d));
    }
    const auto begin = (*offsetsIt)[0].get<uint64_t>();
    const auto end = (*offsetsIt)[1].get<uint64_t>();
    if (begin > end) {
        return fail(fmt::format("data_offsets [{}, {}] are reversed", begin, end));
    }
    if (end > data.size()) {
        return fail(
            fmt::format("data_offsets [{}, {}] end beyond the data region of {} bytes "
                        "(file truncated?)",
                        begin, end, data.size()));
    }
    const uint64_t expected = numel * dtypeSize(info.dtype);
    if (end - begin != expected) {
        return tensorError(
            ErrorKind::Format, file, name,
            fmt::format("data_offsets [{}, {}] hold {} bytes but {} x {} needs {}", begin, end,
                        end - begin, dtypeName(info.dtype), formatShape(info.shape), expected));
    }
    info.bytes = data.subspan(begin, end - begin);
    return info;
}

}  // namespace

std::string formatShape(std::span<const int64_t> shape) {
    return fmt::format("[{}]", fmt::join(shape, ", "));
}

Result<ParsedHeader> parseSafetensorsBytes(std::span<const std::byte> bytes,
                                           const std::filesystem::path& file) {
    auto fail = [&](std::string message) {
        return Error{ErrorKind::Format, std::move(message), file.string(), {}};
    };
    const uint64_t fileSize = bytes.size();
    if (fileSize < 8) {
        return fail(
            fmt::format("file is {} bytes, shorter than the 8-byte header length of a "
                        "safetensors file (truncated?)",
                        fileSize));
    }
    uint64_t headerLength = 0;
    std::memcpy(&headerLength, bytes.data(), sizeof headerLength);
    if (headerLength > fileSize - 8) {
        return fail(
            fmt::format("header length {} exceeds the {} bytes after the length field "
                        "(truncated, or not a safetensors file)",
                        headerLength, fileSize - 8));
    }
    if (headerLength > kMaxSafetensorsHeaderBytes) {
        return fail(
            fmt::format("header length {} exceeds the format's limit of {} bytes "
                        "(corrupt header)",
                        headerLength, kMaxSafetensorsHeaderBytes));
    }
    const std::string_view headerText(reinterpret_cast<const char*>(bytes.data() + 8),
                                      headerLength);
    return parseSafetensorsHeader(headerText, bytes.subspan(8 + headerLength), file);
}

Result<ParsedHeader> parseSafetensorsHeader(std::string_view header,
                                            std::span<const std::byte> data,
                                            const std::filesystem::path& file) {
    data::JsonLimits limits;
    limits.maxDepth = kMaxSafetensorsHeaderDepth;
    limits.maxBytes = kMaxSafetensorsHeaderBytes;
    Result<json> rootJson = data::parseBoundedJson(header, file.string(), "header", limits);
    if (!rootJson) {
        Error error = rootJson.error();
        error.message = "corrupt header: " + error.message;
        return error;
    }
    const json root = std::move(rootJson).value();
    if (!root.is_object()) {
        return Error{ErrorKind::Format,
                     "corrupt header: the JSON header is not an object",
                     file.string(),
                     {}};
    }

    ParsedHeader parsed;
    for (auto it = root.begin(); it != root.end(); ++it) {
        if (it.key() == "__metadata__") {
            if (!it->is_object()) {
                return tensorError(ErrorKind::Format, file, it.key(), "is not a JSON object");
            }
            for (auto m = it->begin(); m != it->end(); ++m) {
                if (!m->is_string()) {
                    return tensorError(ErrorKind::Format, file, "__metadata__." + m.key(),
                                       "metadata values must be strings");
                }
                parsed.metadata[m.key()] = m->get<std::string>();
            }
            continue;
        }
        Result<TensorInfo> tensor = parseTensor(it.key(), *it, data, file);
        if (!tensor) return tensor.error();
        parsed.tensors.emplace(it.key(), std::move(tensor).value());
    }

    // Overlap check over non-empty ranges, sorted by start.
    std::vector<const TensorInfo*> order;
    for (const auto& [name, info] : parsed.tensors) {
        if (!info.bytes.empty()) order.push_back(&info);
    }
    std::sort(order.begin(), order.end(), [](const TensorInfo* a, const TensorInfo* b) {
        return a->bytes.data() < b->bytes.data();
    });
    for (std::size_t i = 1; i < order.size(); ++i) {
        const TensorInfo& prev = *order[i - 1];
        const TensorInfo& cur = *order[i];
        if (cur.bytes.data() < prev.bytes.data() + prev.bytes.size()) {
            const auto offset = [&](const TensorInfo& t) { return t.bytes.data() - data.data(); };
            return tensorError(ErrorKind::Format, file, cur.name,
                               fmt::format("data_offsets starting at {} overlap tensor \"{}\" "
                                           "(bytes {} to {})",
                                           offset(cur), prev.name, offset(prev),
                                           offset(prev) + prev.bytes.size()));
        }
    }
    return parsed;
}

}  // namespace gatescope::core
