// TraceWriter: factors, the O(N) per-head arrays that define each attention tile exactly.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data/trace/derived_decay.h"
#include "data/trace/nexus.h"
#include "data/trace/trace_writer.h"
#include "data/trace/writer_state.h"

namespace gatescope::data {
namespace {
constexpr std::string_view kDecayFactor = "log_decay_cumsum";
}  // namespace

Status TraceWriter::declareFactor(int layer, std::string_view name, std::vector<int64_t> shape) {
    // Float16 only for factors whose relative rounding the formula tolerates (q, k, v, ...).
    const bool f16 = m_options.factorsAsF16 && !schema::keepsFloat32(name);
    return declareFactorAs(layer, name, std::move(shape),
                           f16 ? ElementType::Float16 : ElementType::Float32);
}

Status TraceWriter::declareFactorAs(int layer, std::string_view name, std::vector<int64_t> shape,
                                    ElementType type) {
    auto lock = h5::lockLibrary();
    if (auto rc = usable(); !rc) return rc;
    if (m_nTokens == 0) return usage("write the tokens before factors");
    auto state = layerState(layer);
    if (!state) return state.error();
    LayerState& l = **state;
    if (!schema::isValidName(name))
        return usage(fmt::format("bad factor name '{}' (use 1-64 of A-Z a-z 0-9 _ . -)", name),
                     schema::layerPath(layer) + "/factors");
    std::string path = schema::factorPath(layer, name);
    if (l.factors.count(name)) return usage("factor is already declared", path);
    bool headsOk = !shape.empty() && (shape[0] == l.header.nHeads || shape[0] == l.header.nKvHeads);
    bool rankOk = shape.size() == 2 || (shape.size() == 3 && shape[2] >= 1);
    if (!headsOk || !rankOk || shape[1] != m_nTokens)
        return Error{
            ErrorKind::Shape,
            fmt::format("a factor must be [H, N, D] or [H, N] with H = n_heads ({}) or "
                        "n_kv_heads ({}) and N = {}; got [{}]",
                        l.header.nHeads, l.header.nKvHeads, m_nTokens, fmt::join(shape, ", ")),
            m_tempPath.string(), path};
    auto group = openOrCreateGroup(l.group, "factors");
    if (!group) return fail(group.error());
    auto dataset = createArray(*group, name, shape, type);
    if (!dataset) return fail(dataset.error());
    // The viewer-friendly signal: lse when present (one row normalizer per head), else the first.
    Status rc = Ok{};
    if (l.factors.empty() || name == "lse")
        rc = nexus::markData(*group, name, static_cast<int>(shape.size()));
    if (rc)
        rc = nexus::describe(*dataset, fmt::format("factor {} [head, token{}]", name,
                                                   shape.size() == 3 ? ", dim" : ""));
    if (!rc) return fail(rc.error());
    l.factors.emplace(std::string(name), ArrayState{std::move(*dataset), std::move(shape), type});
    if (name == kDecayFactor && l.factors.at(std::string(name)).shape.size() == 2)
        l.monotoneDecay.assign(static_cast<size_t>(l.factors.at(std::string(name)).shape[0]), 0);
    return Ok{};
}

Status TraceWriter::checkFactorHead(int layer, std::string_view name, int head, const void* data,
                                    ArrayState** array) {
    if (auto rc = usable(); !rc) return rc;
    auto state = layerState(layer);
    if (!state) return state.error();
    auto it = (*state)->factors.find(name);
    if (it == (*state)->factors.end())
        return usage("factor is not declared; call declareFactor first",
                     schema::factorPath(layer, name));
    if (head < 0 || head >= it->second.shape[0] || !data)
        return usage(fmt::format("head {} is outside 0..{} (or data is null)", head,
                                 it->second.shape[0] - 1),
                     schema::factorPath(layer, name));
    *array = &it->second;
    return Ok{};
}

Status TraceWriter::writeFactorHead(int layer, std::string_view name, int head, const float* data) {
    return writeFactorHeads(layer, name, head, 1, data);
}

Status TraceWriter::writeFactorHeads(int layer, std::string_view name, int firstHead, int heads,
                                     const float* data) {
    ArrayState* array = nullptr;
    if (auto rc = checkFactorHead(layer, name, firstHead, data, &array); !rc) return rc;
    if (heads > 1)
        if (auto rc = checkFactorHead(layer, name, firstHead + heads - 1, data, &array); !rc)
            return rc;
    if (array->type == ElementType::BFloat16)
        return usage("a bfloat16 factor is written with writeFactorBf16",
                     schema::factorPath(layer, name));
    auto rc = writeHeads(*array, firstHead, heads, data);
    if (!rc) return fail(rc.error());
    // A derived decay map needs every head of c written and non-increasing (derived_decay.h).
    LayerState& l = **layerState(layer);
    if (name == kDecayFactor && !l.monotoneDecay.empty())
        for (int h = 0; h < heads; ++h)
            l.monotoneDecay[static_cast<size_t>(firstHead + h)] =
                isNonIncreasing(data + int64_t{h} * m_nTokens, m_nTokens) ? 1 : 0;
    return Ok{};
}

Status TraceWriter::writeFactorBf16(int layer, std::string_view name, const uint16_t* bits,
                                    std::vector<int64_t> shape) {
    if (schema::keepsFloat32(name))
        return usage("lse and log_* factors are float32; write them with writeFactor",
                     schema::factorPath(layer, name));
    std::vector<int64_t> dims = shape;
    const ElementType type = !m_options.bf16Factors   ? ElementType::Float32
                             : m_options.factorsAsF16 ? ElementType::Float16
                                                      : ElementType::BFloat16;
    auto rc = declareFactorAs(layer, name, std::move(shape), type);
    if (!rc) return rc;
    ArrayState* array = nullptr;
    if (rc = checkFactorHead(layer, name, 0, bits, &array); !rc) return rc;
    // Every head in one call: the encoder gets chunks for all its threads.
    if (rc = writeHeads(*array, 0, static_cast<int>(dims[0]), bits, true); !rc)
        return fail(rc.error());
    return Ok{};
}

Status TraceWriter::writeFactor(int layer, std::string_view name, const float* data,
                                std::vector<int64_t> shape) {
    std::vector<int64_t> dims = shape;
    auto rc = declareFactor(layer, name, std::move(shape));
    if (!rc) return rc;
    // Every head in one call: the encoder gets chunks for all its threads.
    return writeFactorHeads(layer, name, 0, static_cast<int>(dims[0]), data);
}

}  // namespace gatescope::data
