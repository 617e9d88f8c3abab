#include "kernels/cpu/head_check.h"

#include <cmath>
#include <string>

namespace gatescope::kernels {
namespace {

Error shapeError(const std::string& object, std::string message) {
    return Error{ErrorKind::Shape, std::move(message), "", object};
}

// First non-finite value of an n x width matrix with row stride `stride`, as an error message.
std::string firstNonFinite(const char* name, const float* data, int64_t n, int64_t width,
                           int64_t stride) {
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < width; ++c) {
            const float x = data[r * stride + c];
            if (std::isfinite(x)) continue;
            std::string where = std::string(name) + " row " + std::to_string(r);
            if (width > 1) where += " column " + std::to_string(c);
            return where + " is " + (std::isnan(x) ? "nan" : x > 0 ? "+inf" : "-inf");
        }
    }
    return {};
}

}  // namespace

Status checkHead(const AdditiveDecayHead& head, const HeadNeeds& needs, const std::string& object) {
    if (head.n < 0) return shapeError(object, "negative sequence length " + std::to_string(head.n));
    if (head.dk < 1)
        return shapeError(object,
                          "query/key dimension must be >= 1, got " + std::to_string(head.dk));
    if (head.dv < 0)
        return shapeError(object, "negative value dimension " + std::to_string(head.dv));
    if (head.window < 0)
        return shapeError(object, "negative window " + std::to_string(head.window));
    if (head.qRow() < head.dk || head.kRow() < head.dk)
        return shapeError(object, "q/k row stride is smaller than dk = " + std::to_string(head.dk));
    if (needs.values && head.vRow() < head.dv)
        return shapeError(object, "v row stride is smaller than dv = " + std::to_string(head.dv));
    if (!std::isfinite(head.scale))
        return Error{ErrorKind::Format, "scale is not finite", "", object};
    if (head.n == 0) return Ok{};

    const bool needV = needs.values && head.dv > 0;
    if (!head.q || !head.k || (needV && !head.v) || (needs.lse && !head.lse)) {
        const char* what = !head.q ? "q" : !head.k ? "k" : (needV && !head.v) ? "v" : "lse";
        return Error{ErrorKind::Missing, std::string(what) + " is missing", "", object};
    }
    std::string bad = firstNonFinite("q", head.q, head.n, head.dk, head.qRow());
    if (bad.empty()) bad = firstNonFinite("k", head.k, head.n, head.dk, head.kRow());
    if (bad.empty() && needV) bad = firstNonFinite("v", head.v, head.n, head.dv, head.vRow());
    if (bad.empty() && head.logDecayCumsum)
        bad = firstNonFinite("log-decay cumsum", head.logDecayCumsum, head.n, 1, 1);
    if (bad.empty() && needs.lse) bad = firstNonFinite("lse", head.lse, head.n, 1, 1);
    if (!bad.empty()) return Error{ErrorKind::Format, bad, "", object};
    return Ok{};
}

}  // namespace gatescope::kernels
