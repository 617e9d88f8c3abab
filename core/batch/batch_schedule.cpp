#include "core/batch/batch_schedule.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <numeric>

namespace gatescope::core {

double runCost(const BatchRun& run) {
    if (run.planError || !run.input.end) return 0;
    const double n = static_cast<double>(*run.input.end - run.input.begin);
    return n + n * n / 4096.0;
}

std::vector<int> costliestFirst(const std::vector<BatchRun>& plan) {
    std::vector<int> order(plan.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return runCost(plan[a]) > runCost(plan[b]); });
    return order;
}

std::vector<int> balancedShards(const std::vector<BatchRun>& plan, int count) {
    std::vector<int> shardOf(plan.size(), 0);
    std::vector<double> load(std::max(count, 1), 0.0);
    for (int run : costliestFirst(plan)) {
        const auto lightest = std::min_element(load.begin(), load.end()) - load.begin();
        shardOf[run] = static_cast<int>(lightest);
        load[lightest] += runCost(plan[run]);
    }
    return shardOf;
}

RunClaims::RunClaims(std::filesystem::path folder, std::string owner)
    : m_folder(std::move(folder)), m_owner(std::move(owner)) {}

Result<bool> RunClaims::tryClaim(const BatchRun& run) const {
    std::error_code ec;
    std::filesystem::create_directories(m_folder, ec);
    const auto path = m_folder / (runFileName(run.id) + ".claim");
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST) return false;
        return Error{ErrorKind::Io,
                     std::string("cannot claim the run: ") + std::strerror(errno),
                     path.string(),
                     {}};
    }
    // The claim is the file's existence; its contents only say who holds it.
    const std::string text = m_owner + "\n";
    [[maybe_unused]] const auto written = ::write(fd, text.data(), text.size());
    ::close(fd);
    return true;
}

}  // namespace gatescope::core
