// The multi-head, multi-threaded forward gives exactly what the single-head one gives.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "additive_head.h"
#include "kernels/cpu/attention_forward.h"

namespace gatescope {
namespace {

using test::additive::HeadSpec;
using test::additive::RandomHead;

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

TEST(AttentionForwardHeads, EqualsSingleThreadedPerHeadBitForBit) {
    // Heads of different shapes, lengths and windows in one call, one of them empty.
    std::vector<RandomHead> heads;
    const HeadSpec specs[] = {
        {.n = 700, .dk = 64, .dv = 64, .decay = true, .window = 0, .seed = 1},
        {.n = 129, .dk = 32, .dv = 48, .decay = false, .window = 0, .seed = 2},
        {.n = 1000, .dk = 16, .dv = 16, .decay = true, .window = 100, .seed = 3},
        {.n = 0, .dk = 16, .dv = 16, .seed = 4},
        {.n = 333, .dk = 48, .dv = 32, .decay = true, .window = 7, .seed = 5},
    };
    heads.reserve(std::size(specs));
    for (const HeadSpec& spec : specs)
        heads.emplace_back(spec);
    std::vector<kernels::AdditiveDecayHead> views;
    for (const auto& head : heads)
        views.push_back(head.view());

    for (bool bf16 : {false, true}) {
        kernels::ForwardOptions options;
        options.blockSize = 64;
        options.roundProbsToBf16 = bf16;
        std::vector<std::vector<float>> refOut, refLse;
        for (const auto& head : heads) {
            refOut.emplace_back(head.spec.n * head.spec.dv);
            refLse.emplace_back(head.spec.n);
            kernels::attentionForward(head.view(), refOut.back().data(), refLse.back().data(),
                                      options);
        }
        for (int threads : {1, 2, 3, 0}) {
            std::vector<std::vector<float>> out, lse;
            std::vector<float*> outPtrs, lsePtrs;
            for (const auto& head : heads) {
                out.emplace_back(head.spec.n * head.spec.dv, NAN);
                lse.emplace_back(head.spec.n, NAN);
            }
            for (size_t h = 0; h < heads.size(); ++h) {
                outPtrs.push_back(out[h].data());
                lsePtrs.push_back(lse[h].data());
            }
            kernels::attentionForwardHeads(views.data(), static_cast<int>(views.size()),
                                           outPtrs.data(), lsePtrs.data(), options, threads);
            for (size_t h = 0; h < heads.size(); ++h) {
                SCOPED_TRACE("head " + std::to_string(h) + " threads " + std::to_string(threads) +
                             " bf16 " + std::to_string(bf16));
                ASSERT_EQ(out[h].size(), refOut[h].size());
                EXPECT_TRUE(sameBits(out[h], refOut[h]));
                EXPECT_TRUE(sameBits(lse[h], refLse[h]));
            }
        }
    }
}

TEST(AttentionForwardHeads, NoHeadsIsANoOp) {
    kernels::attentionForwardHeads(nullptr, 0, nullptr, nullptr, {}, 2);
    SUCCEED() << "returned without touching the null arrays";
}

}  // namespace
}  // namespace gatescope
