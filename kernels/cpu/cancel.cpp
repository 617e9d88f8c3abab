#include "kernels/cpu/cancel.h"

namespace gatescope::kernels {

namespace {
thread_local const std::function<bool()>* t_cancelTest = nullptr;
}  // namespace

CancelScope::CancelScope(const std::function<bool()>& isCancelled) : m_previous(t_cancelTest) {
    t_cancelTest = isCancelled ? &isCancelled : m_previous;
}

CancelScope::~CancelScope() {
    t_cancelTest = m_previous;
}

const std::function<bool()>* currentCancelTest() {
    return t_cancelTest;
}

AdoptCancel::AdoptCancel(const std::function<bool()>* test) : m_previous(t_cancelTest) {
    t_cancelTest = test;
}

AdoptCancel::~AdoptCancel() {
    t_cancelTest = m_previous;
}

bool cancelRequested() {
    return t_cancelTest != nullptr && (*t_cancelTest)();
}

void throwIfCancelled() {
    if (cancelRequested()) throw Cancelled{};
}

}  // namespace gatescope::kernels
