// TraceDocument: an opened trace as the viewer holds it: the reader plus the small per-token
// arrays read eagerly (tokens, per-token loss). Immutable once built; shared by every view and
// worker as shared_ptr<const TraceDocument>.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>

#include "data/trace/trace_reader.h"

namespace gatescope::widgets {

struct TraceDocument {
    std::shared_ptr<const data::TraceReader> reader;
    data::TokenTable tokens;
    std::optional<data::PerTokenResults> perToken;  ///< absent when the trace has none
    double openSeconds = 0;                         ///< wall time of open()

    const data::TraceSummary& summary() const { return reader->summary(); }
    int64_t n() const { return summary().nTokens; }

    /// Opens `path` and reads tokens and per-token results (blocking: call on a worker).
    /// Errors are the reader's (Io, Format, Version, ...).
    static Result<std::shared_ptr<const TraceDocument>> open(const std::filesystem::path& path,
                                                             size_t readerCacheBytes = 64 << 20);
};

/// A token's text for display: control characters shown as escapes (\n, \t), long texts cut.
std::string displayToken(const std::string& text, size_t maxChars = 24);

}  // namespace gatescope::widgets
