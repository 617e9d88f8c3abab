#include "widgets/view/trace_document.h"

#include <chrono>

namespace gatescope::widgets {

Result<std::shared_ptr<const TraceDocument>> TraceDocument::open(const std::filesystem::path& path,
                                                                 size_t readerCacheBytes) {
    const auto start = std::chrono::steady_clock::now();
    auto reader = data::TraceReader::open(path, {readerCacheBytes});
    if (!reader) return reader.error();
    auto doc = std::make_shared<TraceDocument>();
    doc->reader = *reader;
    auto tokens = doc->reader->tokens();
    if (!tokens) return tokens.error();
    doc->tokens = std::move(*tokens);
    if (doc->reader->summary().hasPerToken) {
        auto per = doc->reader->perToken();
        if (!per) return per.error();
        doc->perToken = std::move(*per);
    }
    doc->openSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::shared_ptr<const TraceDocument>(std::move(doc));
}

std::string displayToken(const std::string& text, size_t maxChars) {
    std::string out;
    for (char ch : text) {
        if (ch == '\n') {
            out += "\\n";
        } else if (ch == '\t') {
            out += "\\t";
        } else if (ch == '\r') {
            out += "\\r";
        } else {
            out += ch;
        }
    }
    if (out.size() > maxChars) {
        size_t cut = maxChars;
        while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80)
            --cut;
        out = out.substr(0, cut) + "...";
    }
    return out;
}

}  // namespace gatescope::widgets
