// Private to core/train: the bytes a byte-level model trains on, and the sequences drawn from
// them: windows of text, some carrying a pass-key needle that is asked for at the end.
#pragma once

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "data/common/result.h"

namespace gatescope::core::train {

struct TrainCorpus {
    std::string bytes;  ///< the files' contents, in path order, each followed by "\n"
    int64_t files = 0;
};

/// Reads `roots` (files, or folders searched recursively for *.py, *.txt, *.md and *.rst, in
/// sorted order), skipping `exclude` (the held-out file) and files of the same name, until
/// `maxBytes`. Errors: Io naming an
/// unreadable root or file; Usage when nothing was found.
Result<TrainCorpus> loadTrainCorpus(const std::vector<std::filesystem::path>& roots,
                                    const std::filesystem::path& exclude, int64_t maxBytes);

/// Draws training sequences of `length` byte ids from a corpus.
class SequenceSampler {
public:
    /// `recallFraction` of the sequences are pass-key tasks: a window of text with
    /// passkeyNeedleTexts(random 5-digit key).needle inserted at a random depth, then the
    /// question and the answer at the end (core/analysis/niah_prompt.h). `assocFraction` are
    /// multi-query associative recall (Zoology's MQAR in bytes): "k=v" pairs of random two-letter
    /// keys and two-digit values, then the keys asked again in random order ("k?v").
    SequenceSampler(const TrainCorpus& corpus, int64_t length, double recallFraction,
                    double assocFraction, uint64_t seed);
    /// One sequence of exactly `length` ids in [0, 256).
    std::vector<int64_t> next();

private:
    std::string window(int64_t size);
    std::string passkeyTask();
    std::string associativeRecall();
    const TrainCorpus& m_corpus;
    int64_t m_length;
    double m_recallFraction, m_assocFraction;
    std::mt19937_64 m_rng;
};

}  // namespace gatescope::core::train
