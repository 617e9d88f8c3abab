#include "core/maps/logit_split.h"

#include <cmath>

#include "kernels/cpu/power_attention.h"

namespace gatescope::core {

bool hasLogitSplit(const TraceHead& head) {
    const auto& spec = head.spec;
    if (spec.scoreKind == ScoreKind::Gsa || !head.factors.find("q")) return false;
    if (spec.scoreKind == ScoreKind::Wall)
        return head.factors.find("log_decay_cumsum") ||
               head.factors.find("log_scalar_decay_cumsum");
    return spec.hasDecay && head.factors.find("log_decay_cumsum");
}

double contentScore(const TraceHead& head, int64_t i, int64_t j) {
    const HeadFactorSet& f = head.factors;
    const int64_t d = f.width("q");
    const float* qi = f.find("q") + i * d;
    const float* kj = f.find("k") + j * d;
    double s = 0;
    for (int64_t c = 0; c < d; ++c)
        s += double(qi[c]) * double(kj[c]);
    const double scale = head.spec.scale;
    if (head.spec.scoreKind != ScoreKind::Power) return scale * s;
    const double p = head.spec.extras.value("p", 2);
    const double eps = head.spec.extras.value("eps", double(kernels::kPowerLogEps));
    return p * std::log(std::abs(scale * s) + eps);
}

double forgetScore(const TraceHead& head, int64_t i, int64_t j, double logit, double content) {
    if (head.spec.scoreKind == ScoreKind::Wall) return logit - content;
    const float* c = head.factors.find("log_decay_cumsum");
    return double(c[i]) - double(c[j]);
}

}  // namespace gatescope::core
