// Packed documents in one input (fla's cu_seqlens): how the trace option `--documents` says where
// documents start, and the starts it gives for a token sequence. Models that run packed
// documents (Wall) keep attention and cumulative gates inside each (RunOptions::documentStarts).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "data/common/result.h"

namespace gatescope::core {

/// A parsed `--documents` value. Plain value.
struct DocumentSplit {
    enum class Mode {
        None,         ///< one document
        StartTokens,  ///< "start:ID,...": each such token opens a document (BOS-style separator)
        EndTokens,    ///< "end:ID,...": each such token closes its document (EOS-style)
        Positions,    ///< "at:P,...": documents start at these positions of the selected tokens
    };
    Mode mode = Mode::None;
    std::vector<int64_t> values;  ///< token ids or positions, as given
    std::string text;             ///< the option as given ("" for None), for manifests
};

/// Parses "start:ID[,ID...]", "end:ID[,ID...]" or "at:P[,P...]" (non-negative integers); ""
/// gives Mode::None. Errors: ErrorKind::Usage naming `option` and the text.
Result<DocumentSplit> parseDocumentSplit(const std::string& text,
                                         const std::string& option = "--documents");

/// The document starts of `ids` under `split`: {0, ...} strictly increasing, each < ids.size();
/// {} for Mode::None or no ids. Positions are relative to the selected tokens (after any token
/// range); 0 is always a start. Errors: ErrorKind::Usage for positions that are not increasing
/// or lie past the last token. Pure; thread-safe.
Result<std::vector<int64_t>> documentStarts(const DocumentSplit& split,
                                            std::span<const int32_t> ids);

}  // namespace gatescope::core
