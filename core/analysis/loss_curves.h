// Per-position loss over many documents, as the FoX and power-attention papers plot it: the mean
// loss at each position, linear and exponentially growing bins, the centered moving average, the
// running-mean perplexity, and the best-context loss. Position i is the loss of predicting token
// i + 1 from tokens 0..i (context length i + 1). Pure functions and a value type;
// thread-compatible.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gatescope::core {

/// Sums per position over documents (float64), skipping NaN (no target) entries.
class PositionLossAccumulator {
public:
    void add(std::span<const float> loss);
    /// Mean loss per position (NaN where no document reached it) and the counts behind it.
    std::vector<double> mean() const;
    const std::vector<int64_t>& count() const { return m_count; }
    int64_t documents() const { return m_documents; }

private:
    std::vector<double> m_sum;
    std::vector<int64_t> m_count;
    int64_t m_documents = 0;
};

/// Positions [begin, end) pooled: the count-weighted mean of their losses.
struct LossBin {
    int64_t begin = 0, end = 0;
    double center = 0;  ///< label: the arithmetic (linear) or geometric (exponential) centre
    double meanLoss = 0;
    int64_t count = 0;
};

/// Bins of `width` positions.
std::vector<LossBin> linearBins(std::span<const double> mean, std::span<const int64_t> count,
                                int64_t width);

/// Bins equal in width on a log axis of context length l = i + 1: bin k holds
/// l in [2^(k/b), 2^((k+1)/b)), labelled by its geometric centre 2^((k + 1/2) / b) (b =
/// binsPerOctave; 4 reproduces the power-attention paper's "1878" = 2048 * 2^(-1/8)).
/// Bins that hold no integer context length are skipped.
std::vector<LossBin> exponentialBins(std::span<const double> mean, std::span<const int64_t> count,
                                     int binsPerOctave);

/// Centered moving average over `window` positions (odd), truncated at the edges, as the FoX
/// paper's smooth_array (window 101 for Fig. 2). NaN entries are ignored.
std::vector<double> centeredMovingAverage(std::span<const double> values, int window);

/// P(l) = exp(sum_{i < l} L(i) / l): the FoX paper's running perplexity, on unsmoothed losses.
std::vector<double> runningPerplexity(std::span<const double> mean);

/// The minimum of a binned curve and where it is (the power-attention paper's best-context loss
/// and best context length). Empty bins give {NaN, 0}.
struct BestContext {
    double loss = 0;
    double contextLength = 0;
};
BestContext bestContext(std::span<const LossBin> bins);

}  // namespace gatescope::core
