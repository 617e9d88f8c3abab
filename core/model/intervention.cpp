#include "core/model/intervention.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/core.h>

#include "core/input/list_syntax.h"

namespace gatescope::core {

namespace {

constexpr const char* kSyntax =
    "expected WHAT[@WHERE], WHAT one of gate=1, gate=C (0 < C < 1), gate=clamp(LO,HI), "
    "gate=from:TRACE.h5, log_gate*S, ablate; WHERE like layers=0,2;heads=1-3;channels=0-7";

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    return s;
}

std::optional<double> parseNumber(std::string_view s) {
    s = trim(s);
    double value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

Error usage(std::string_view option, std::string_view text, const std::string& why) {
    return Error{ErrorKind::Usage, fmt::format("'{}': {}", text, why), {}, std::string(option)};
}

/// WHAT, into `out`; an error message otherwise.
std::optional<std::string> parseWhat(std::string_view what, Intervention& out) {
    if (what == "ablate") {
        out.kind = InterventionKind::Ablate;
        return std::nullopt;
    }
    if (what.starts_with("log_gate*")) {
        auto s = parseNumber(what.substr(9));
        if (!s || *s < 0)
            return std::string("log_gate*S needs a finite scale S >= 0 (S > 1 forgets more)");
        out.kind = InterventionKind::LogGateScale;
        out.value = *s;
        return std::nullopt;
    }
    if (!what.starts_with("gate=")) return std::string("unknown intervention; ") + kSyntax;
    auto rhs = trim(what.substr(5));
    if (rhs.starts_with("from:")) {
        auto path = trim(rhs.substr(5));
        if (path.empty()) return std::string("gate=from: needs a trace file");
        out.kind = InterventionKind::GatePatch;
        out.patchTrace = std::string(path);
        return std::nullopt;
    }
    if (rhs.starts_with("clamp(")) {
        if (!rhs.ends_with(")")) return std::string("gate=clamp(LO,HI) lacks its ')'");
        auto inside = rhs.substr(6, rhs.size() - 7);
        const auto comma = inside.find(',');
        auto lo =
            comma == std::string_view::npos ? std::nullopt : parseNumber(inside.substr(0, comma));
        auto hi =
            comma == std::string_view::npos ? std::nullopt : parseNumber(inside.substr(comma + 1));
        if (!lo || !hi || *lo < 0 || *hi > 1 || *lo > *hi)
            return std::string("gate=clamp(LO,HI) needs 0 <= LO <= HI <= 1 (bounds on the gate)");
        out.kind = InterventionKind::GateClamp;
        out.low = *lo;
        out.high = *hi;
        return std::nullopt;
    }
    auto c = parseNumber(rhs);
    if (!c || *c <= 0 || *c > 1)
        return std::string(
            "gate=C needs 0 < C <= 1 (gate=1: no forgetting), clamp(LO,HI) or "
            "from:TRACE.h5");
    out.kind = *c == 1 ? InterventionKind::GateOne : InterventionKind::GateConstant;
    out.value = *c;
    return std::nullopt;
}

/// Sorted, unique.
std::vector<int> normalized(std::vector<int> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

}  // namespace

Result<Intervention> parseIntervention(std::string_view text, std::string_view option) {
    Intervention out;
    out.text = std::string(text);
    const auto at = text.find('@');
    const auto what = trim(text.substr(0, at));
    if (auto why = parseWhat(what, out)) return usage(option, text, *why);
    if (at == std::string_view::npos) return out;
    auto where = text.substr(at + 1);
    if (trim(where).empty())
        return usage(option, text, "nothing after '@'; " + std::string(kSyntax));
    bool seen[3] = {false, false, false};
    while (!where.empty()) {
        const auto semi = where.find(';');
        const auto item = trim(where.substr(0, semi));
        where = semi == std::string_view::npos ? std::string_view{} : where.substr(semi + 1);
        const auto eq = item.find('=');
        const auto key = trim(item.substr(0, eq));
        const int slot = key == "layers" ? 0 : key == "heads" ? 1 : key == "channels" ? 2 : -1;
        if (slot < 0 || eq == std::string_view::npos)
            return usage(
                option, text,
                fmt::format("unknown selector '{}': use layers=, heads=, channels=", item));
        if (seen[slot]) return usage(option, text, fmt::format("'{}' is given twice", key));
        seen[slot] = true;
        const std::string list(trim(item.substr(eq + 1)));
        if (list.empty()) return usage(option, text, fmt::format("'{}=' has no indices", key));
        auto indices = parseIndexList(list, std::string(key));
        if (!indices) return usage(option, text, indices.error().message);
        auto& target = slot == 0 ? out.layers : slot == 1 ? out.heads : out.channels;
        target = normalized(std::move(*indices));
    }
    if (out.kind == InterventionKind::Ablate && !out.channels.empty())
        return usage(option, text, "ablate removes whole heads: channels= does not apply");
    return out;
}

Result<std::vector<Intervention>> parseInterventions(const std::vector<std::string>& texts,
                                                     std::string_view option) {
    std::vector<Intervention> out;
    for (const auto& text : texts) {
        auto parsed = parseIntervention(text, option);
        if (!parsed) return parsed.error();
        out.push_back(std::move(*parsed));
    }
    return out;
}

std::string describeWhat(const Intervention& i) {
    switch (i.kind) {
        case InterventionKind::GateOne:
            return "gate=1";
        case InterventionKind::GateConstant:
            return fmt::format("gate={}", i.value);
        case InterventionKind::LogGateScale:
            return fmt::format("log_gate*{}", i.value);
        case InterventionKind::GateClamp:
            return fmt::format("gate=clamp({},{})", i.low, i.high);
        case InterventionKind::GatePatch:
            return "gate=from:" + i.patchTrace.string();
        case InterventionKind::Ablate:
            return "ablate";
    }
    return "?";
}

nlohmann::json toJson(const Intervention& i) {
    auto list = [](const std::vector<int>& v) {
        return v.empty() ? nlohmann::json(nullptr) : nlohmann::json(v);
    };
    static const char* kinds[] = {"gate_one",   "gate_constant", "log_gate_scale",
                                  "gate_clamp", "gate_patch",    "ablate"};
    nlohmann::json j = {{"spec", i.text},
                        {"kind", kinds[static_cast<int>(i.kind)]},
                        {"layers", list(i.layers)},
                        {"heads", list(i.heads)},
                        {"channels", list(i.channels)}};
    switch (i.kind) {
        case InterventionKind::GateOne:
        case InterventionKind::GateConstant:
            j["gate"] = i.value;
            break;
        case InterventionKind::LogGateScale:
            j["log_gate_scale"] = i.value;
            break;
        case InterventionKind::GateClamp:
            j["gate_min"] = i.low;
            j["gate_max"] = i.high;
            break;
        case InterventionKind::GatePatch:
            j["patch_trace"] = std::filesystem::absolute(i.patchTrace).string();
            break;
        case InterventionKind::Ablate:
            break;
    }
    return j;
}

nlohmann::json toJson(const std::vector<Intervention>& interventions) {
    auto out = nlohmann::json::array();
    for (const auto& i : interventions)
        out.push_back(toJson(i));
    return out;
}

}  // namespace gatescope::core
