#include "trace_file.h"

#include <fmt/format.h>

namespace gatescope::python {

Result<std::shared_ptr<TraceFile>> TraceFile::open(const std::filesystem::path& path,
                                                   size_t cacheBytes) {
    data::ReaderOptions options;
    options.chunkCacheBytes = cacheBytes;
    auto reader = data::TraceReader::open(path, options);
    if (!reader) return reader.error();
    return std::shared_ptr<TraceFile>(new TraceFile(std::move(*reader)));
}

Result<std::shared_ptr<const core::TraceHead>> TraceFile::head(int layer, int head) const {
    {
        std::lock_guard lock(m_mutex);
        for (auto it = m_heads.begin(); it != m_heads.end(); ++it)
            if ((*it)->layer == layer && (*it)->head == head) {
                m_heads.splice(m_heads.begin(), m_heads, it);
                return m_heads.front();
            }
    }
    const data::LayerInfo* info = m_reader->summary().layer(layer);
    if (info && (head < 0 || head >= info->header.nHeads))
        return Error{ErrorKind::Usage,
                     fmt::format("head {} is outside layer {}'s heads [0, {})", head, layer,
                                 info->header.nHeads),
                     m_reader->path(),
                     {}};
    // Loaded without the lock: two threads asking for one head both read it, and one copy stays.
    auto loaded = core::loadTraceHead(*m_reader, layer, head);
    if (!loaded) return loaded.error();
    std::shared_ptr<const core::TraceHead> out = std::move(*loaded);
    std::lock_guard lock(m_mutex);
    m_heads.push_front(out);
    if (m_heads.size() > kHeads) m_heads.pop_back();
    return out;
}

Result<Region> TraceFile::region(const RegionRequest& request) const {
    if (auto st = checkRegion(*m_reader, request); !st) return st.error();
    if (request.level) return pyramidRegion(*m_reader, request);
    auto h = head(request.layer, request.head);
    if (!h) return h.error();
    return exactRegion(**h, request, m_reader->path());
}

Result<core::QueryRow> TraceFile::row(int layer, int head, int64_t query, int topK) const {
    auto h = this->head(layer, head);
    if (!h) return h.error();
    auto out = core::queryRow(**h, query, topK);
    if (!out) {
        Error e = out.error();
        if (e.file.empty()) e.file = m_reader->path();
        return e;
    }
    return out;
}

}  // namespace gatescope::python
