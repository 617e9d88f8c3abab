// TraceWriter: factors, the O(N) per-head arrays that define each attention tile exactly.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data/trace/nexus.h"
#include "data/trace/trace_writer.h"
#include "data/trace/writer_state.h"

namespace gatescope::data {

Status TraceWriter::declareFactor(int layer, std::string_view name, std::vector<int64_t> shape) {
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
    // Float16 only for factors whose relative rounding the formula tolerates (q, k, v, ...).
    const bool f16 = m_options.factorsAsF16 && !schema::keepsFloat32(name);
    auto dataset = createArray(*group, name, shape, f16);
    if (!dataset) return fail(dataset.error());
    // The viewer-friendly signal: lse when present (one row normalizer per head), else the first.
    Status rc = Ok{};
    if (l.factors.empty() || name == "lse")
        rc = nexus::markData(*group, name, static_cast<int>(shape.size()));
    if (rc)
        rc = nexus::describe(*dataset, fmt::format("factor {} [head, token{}]", name,
                                                   shape.size() == 3 ? ", dim" : ""));
    if (!rc) return fail(rc.error());
    l.factors.emplace(std::string(name), ArrayState{std::move(*dataset), std::move(shape), f16});
    return Ok{};
}

Status TraceWriter::writeFactorHead(int layer, std::string_view name, int head, const float* data) {
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
    auto rc = writeHead(it->second, head, data);
    if (!rc) return fail(rc.error());
    return Ok{};
}

Status TraceWriter::writeFactor(int layer, std::string_view name, const float* data,
                                std::vector<int64_t> shape) {
    std::vector<int64_t> dims = shape;
    auto rc = declareFactor(layer, name, std::move(shape));
    if (!rc) return rc;
    int64_t perHead = dims[1] * (dims.size() == 3 ? dims[2] : 1);
    for (int64_t h = 0; rc && h < dims[0]; ++h)
        rc = writeFactorHead(layer, name, static_cast<int>(h), data + h * perHead);
    return rc;
}

}  // namespace gatescope::data
