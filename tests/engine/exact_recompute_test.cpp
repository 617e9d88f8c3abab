// "Exact means exact" (issue 24): attention tiles recomputed from a written trace, through the
// viewer's path (TraceReader -> core::loadTraceHead -> TileSource), against the model's own
// attention probabilities: the softmax, in float64 and with no gatescope kernel, of the scores the
// model formed from its own float32 q, k and c = cumsum(log f), captured by a Probe during a
// forward of the same model on the same tokens. With and without --factors-f16.
//
// The bundled FoX sample at 8192 tokens in ctest (|c| reaches about 1.1e4 there: float16's step is
// 8). scripts/exact-recompute.sh runs the same test at 64k and 128k tokens
// (GATESCOPE_EXACT_TOKENS) on a smaller random FoX (GATESCOPE_EXACT_MODEL=tiny: 1 layer, 2 heads,
// its first head's gates decaying fast, so |c| reaches about 1e5 at 128k); results in
// docs/benchmarks.md.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint_test_helpers.h"
#include "core/maps/trace_head.h"
#include "core/model/model.h"
#include "core/sample/random_fox_checkpoint.h"
#include "core/tokenizer/load_tokenizer.h"
#include "data/common/float16.h"
#include "data/trace/trace_reader.h"
#include "engine/models/registry.h"
#include "engine/trace/trace_job.h"

namespace gatescope::core {
namespace {

const std::filesystem::path kSample = GATESCOPE_SOURCE_DIR "/resources/models/fox";

struct Capture : Probe {
    std::map<int, LayerRecord> layers;
    void onLayer(LayerRecord&& record) override { layers[record.layer] = std::move(record); }
};

/// The bundled sample, or with GATESCOPE_EXACT_MODEL=tiny a random FoX written into `tmp`.
std::filesystem::path modelDir(const test::TempDir& tmp) {
    const char* env = std::getenv("GATESCOPE_EXACT_MODEL");
    if (!env || std::string(env) != "tiny") return kSample;
    RandomFoxSpec spec;
    spec.layers = 1;
    spec.heads = 2;
    spec.hiddenSize = 64;
    spec.pro = false;
    const auto dir = tmp / "tiny";
    EXPECT_TRUE(writeRandomFoxCheckpoint(dir, spec));
    return dir;
}

int64_t tokenCount() {
    const char* env = std::getenv("GATESCOPE_EXACT_TOKENS");
    return env ? std::atoll(env) : 8192;
}

/// A byte-level text of n bytes: the bundled held-out sample, repeated.
std::filesystem::path writeText(const test::TempDir& tmp, int64_t n) {
    std::ifstream in(GATESCOPE_SOURCE_DIR "/resources/samples/held_out.py", std::ios::binary);
    const std::string sample((std::istreambuf_iterator<char>(in)), {});
    std::string text;
    while (static_cast<int64_t>(text.size()) < n)
        text += sample;
    text.resize(static_cast<size_t>(n));
    const auto path = tmp / "input.txt";
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

/// Query rows checked: both ends, and evenly spaced ones between.
std::vector<int64_t> sampleRows(int64_t n) {
    std::vector<int64_t> rows = {0, 1, n / 2, n - 2, n - 1};
    for (int k = 1; k <= 11; ++k)
        rows.push_back(n * k / 12 + 7 * k);
    std::erase_if(rows, [n](int64_t r) { return r < 0 || r >= n; });
    return rows;
}

/// The model's probabilities of row i of one head, float64: softmax over allowed keys j of
/// scale * q_i . k_j + (c_i - c_j), from the model's own float32 factors.
std::vector<double> modelRow(const LayerRecord& rec, int head, int64_t i, double* lse) {
    const auto& a = rec.attention;
    const int64_t n = rec.factors.at("q").shape[1], d = a.headDim;
    const int kv = head / (a.heads / a.kvHeads);
    const float* q = rec.factors.at("q").data.data() + (head * n + i) * d;
    const float* k = rec.factors.at("k").data.data() + kv * n * d;
    const float* c =
        a.hasDecay ? rec.factors.at("log_decay_cumsum").data.data() + head * n : nullptr;
    const int64_t first = a.window > 0 ? std::max<int64_t>(0, i - a.window + 1) : 0;
    std::vector<double> s(static_cast<size_t>(i + 1), -INFINITY);
    double best = -INFINITY;
    for (int64_t j = first; j <= i; ++j) {
        double dot = 0;
        for (int64_t x = 0; x < d; ++x)
            dot += double(q[x]) * double(k[j * d + x]);
        s[j] = a.scale * dot + (c ? double(c[i]) - double(c[j]) : 0.0);
        best = std::max(best, s[j]);
    }
    double sum = 0;
    for (int64_t j = first; j <= i; ++j)
        sum += std::exp(s[j] - best);
    *lse = best + std::log(sum);
    for (auto& v : s)
        v = std::isinf(v) ? 0.0 : std::exp(v - *lse);
    return s;
}

struct Worst {
    double tile = 0;  ///< max |tile from the file - model|
    double lse = 0;   ///< max |model's own lse - float64 lse|
};

/// Every layer and head of the trace at `path`, rows sampleRows(n), against the model.
Worst compareTrace(const std::filesystem::path& path, const Capture& model) {
    auto reader = data::TraceReader::open(path);
    EXPECT_TRUE(reader) << reader.error().describe();
    if (!reader) return {INFINITY, INFINITY};
    Worst worst;
    for (const auto& [l, rec] : model.layers) {
        const int64_t n = rec.factors.at("q").shape[1];
        for (int h = 0; h < rec.attention.heads; ++h) {
            auto head = loadTraceHead(**reader, l, h);
            EXPECT_TRUE(head) << head.error().describe();
            if (!head) return {INFINITY, INFINITY};
            for (int64_t i : sampleRows(n)) {
                double lse = 0;
                const auto want = modelRow(rec, h, i, &lse);
                std::vector<float> got(static_cast<size_t>(i + 1));
                (*head)->source->compute(kernels::MapKind::Attention, i, 1, 0, i + 1, got.data());
                for (int64_t j = 0; j <= i; ++j)
                    worst.tile = std::max(worst.tile, std::abs(double(got[j]) - want[j]));
                const double own = rec.factors.at("lse").data[h * n + i];
                worst.lse = std::max(worst.lse, std::abs(own - lse));
            }
        }
    }
    return worst;
}

/// What format v1's --factors-f16 gave: the same rows with c rounded to float16 (as its writer
/// rounded every factor), q and k too; computed here from the captured factors.
double v1HalfError(const Capture& model) {
    double worst = 0;
    for (const auto& [l, rec] : model.layers) {
        LayerRecord half = rec;
        for (auto& [name, array] : half.factors)
            for (auto& v : array.data)
                v = data::halfToFloat(data::floatToHalf(v));
        const int64_t n = rec.factors.at("q").shape[1];
        for (int h = 0; h < rec.attention.heads; ++h)
            for (int64_t i : sampleRows(n)) {
                double lse = 0, lseHalf = 0;
                const auto want = modelRow(rec, h, i, &lse);
                // v1 stored lse in float16 too: its tiles were exp(s - lse16).
                auto got = modelRow(half, h, i, &lseHalf);
                const double lse16 = half.factors.at("lse").data[h * n + i];
                for (int64_t j = 0; j <= i; ++j) {
                    const double p = got[j] * std::exp(lseHalf - lse16);
                    worst = std::max(worst, std::isfinite(p) ? std::abs(p - want[j]) : INFINITY);
                }
            }
    }
    return worst;
}

TEST(ExactRecompute, TilesFromTheFileAreTheModelsProbabilities) {
    const int64_t n = tokenCount();
    test::TempDir tmp;
    const auto dir = modelDir(tmp);
    auto checkpoint = Checkpoint::open(dir);
    ASSERT_TRUE(checkpoint) << checkpoint.error().describe();
    auto model = loadModel(*checkpoint);
    ASSERT_TRUE(model) << model.error().describe();
    auto tokenizer = loadTokenizer((*checkpoint)->dir(), (*checkpoint)->config());
    ASSERT_TRUE(tokenizer) << tokenizer.error().describe();
    TraceRequest request;
    request.modelDir = dir;
    request.input.path = writeText(tmp, n);
    request.input.end = n;
    request.threads = 2;
    request.storePyramids = false;
    auto input = readInput(request.input, tokenizer->get());
    ASSERT_TRUE(input) << input.error().describe();
    ASSERT_EQ(static_cast<int64_t>(input->ids.size()), n);

    Capture own;
    RunOptions run;
    run.threads = request.threads;
    auto forward = (*model)->forward(input->ids, {}, run, &own);
    ASSERT_TRUE(forward) << forward.error().describe();
    double maxC = 0;
    for (const auto& [l, rec] : own.layers)
        for (float c : rec.factors.at("log_decay_cumsum").data)
            maxC = std::max(maxC, std::abs(double(c)));
    std::printf("[ exact    ] N = %lld, %s: %zu layers x %d heads, max |c| = %.4g\n",
                static_cast<long long>(n), dir.filename().c_str(), own.layers.size(),
                own.layers.begin()->second.attention.heads, maxC);

    for (bool f16 : {false, true}) {
        SCOPED_TRACE(f16 ? "--factors-f16" : "float32 factors");
        request.writer.factorsAsF16 = f16;
        request.out = tmp / (f16 ? "f16.h5" : "f32.h5");
        auto outcome = runTraceJob(request, nullptr, nullptr);
        ASSERT_TRUE(outcome) << outcome.error().describe();
        // c as the model summed it, to the bit, whatever the factors' dtype.
        auto reader = data::TraceReader::open(request.out);
        ASSERT_TRUE(reader) << reader.error().describe();
        for (const auto& [l, rec] : own.layers) {
            const auto& c = rec.factors.at("log_decay_cumsum").data;
            for (int h = 0; h < rec.attention.heads; ++h) {
                auto stored = (*reader)->factor(l, "log_decay_cumsum", h, 0, n);
                ASSERT_TRUE(stored) << stored.error().describe();
                EXPECT_TRUE(
                    std::equal(stored->values.begin(), stored->values.end(), c.begin() + h * n))
                    << "layer " << l << " head " << h;
            }
        }
        const Worst worst = compareTrace(request.out, own);
        std::printf(
            "[ exact    ] N = %lld, %s: max |tile from file - model| = %.3g, "
            "max |model lse - float64 lse| = %.3g\n",
            static_cast<long long>(n), f16 ? "--factors-f16" : "float32", worst.tile, worst.lse);
        EXPECT_LT(worst.lse, 1e-4);
        // float32: the model's own arithmetic; float16 q and k: their rounding (2^-11 relative).
        EXPECT_LT(worst.tile, f16 ? 2e-2 : 1e-5);
    }
    std::printf(
        "[ exact    ] N = %lld, format v1 --factors-f16 (c, lse in float16): max |tile - "
        "model| = %.3g\n",
        static_cast<long long>(n), v1HalfError(own));
}

}  // namespace
}  // namespace gatescope::core
