// runInSlot: runs one blocking computation on a detached worker thread and publishes its result
// in a StatsSlot (layer_stats.h), which the GUI polls each frame; the worker keeps everything it
// captured alive, so the GUI may drop the slot at any time (set `cancel` first to stop early).
#pragma once

#include <functional>
#include <memory>
#include <thread>

#include "widgets/view/layer_stats.h"

namespace gatescope::widgets {

/// Starts `work(cancel flag)` on a detached thread. Its value or error lands in the returned
/// slot (error "cancelled" when cancelled without a value); `finished` (may be empty) runs on the
/// worker afterwards, e.g. to request a repaint.
template <typename T>
std::shared_ptr<StatsSlot<T>> runInSlot(std::function<Result<T>(const std::atomic<bool>&)> work,
                                        std::function<void()> finished) {
    auto slot = std::make_shared<StatsSlot<T>>();
    std::thread([slot, work = std::move(work), finished = std::move(finished)] {
        Result<T> result = work(slot->cancel);
        {
            std::lock_guard lock(slot->mutex);
            if (result)
                slot->value = std::move(*result);
            else
                slot->error = slot->cancel ? "cancelled" : result.error().describe();
            slot->done = true;
        }
        if (finished) finished();
    }).detach();
    return slot;
}

}  // namespace gatescope::widgets
