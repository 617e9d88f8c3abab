// CLI11 validators shared by the subcommands whose numeric options size work: each failure is a
// usage error (exit 2) that names the option and the allowed range.
#pragma once

#include <cmath>
#include <string>

#include <CLI/CLI.hpp>

namespace gatescope::app {

/// A floating-point value strictly between 0 and 1.
inline CLI::Validator openUnitInterval() {
    return CLI::Validator(
        [](std::string& input) -> std::string {
            double value = 0;
            if (CLI::detail::lexical_cast(input, value) && std::isfinite(value) && value > 0 &&
                value < 1)
                return {};
            return "Value " + input + " not in range: strictly between 0 and 1";
        },
        "in (0, 1)");
}

/// A floating-point value in [lo, hi].
inline CLI::Validator finiteRange(double lo, double hi) {
    return CLI::Validator(
        [lo, hi](std::string& input) -> std::string {
            double value = 0;
            if (CLI::detail::lexical_cast(input, value) && std::isfinite(value) && value >= lo &&
                value <= hi)
                return {};
            return "Value " + input + " not in range " + CLI::detail::to_string(lo) + " to " +
                   CLI::detail::to_string(hi);
        },
        "in [" + CLI::detail::to_string(lo) + ", " + CLI::detail::to_string(hi) + "]");
}

}  // namespace gatescope::app
