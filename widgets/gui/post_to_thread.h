// postToThreadOf: the Qt side of JobPool (widgets/view/job_pool.h): its results reach the GUI
// thread as queued calls with a context object, so they run from that object's event loop and
// Qt drops the ones still queued when the object is destroyed.
#pragma once

#include "widgets/view/job_pool.h"

class QObject;

namespace gatescope::widgets {

/// A JobPool::Post that runs each call on `context`'s thread, from its event loop. Callable
/// from any thread. `context` must outlive every use of it: give it to a JobPool that is a
/// member of `context` (its destructor joins the workers before `context` goes).
JobPool::Post postToThreadOf(QObject& context);

}  // namespace gatescope::widgets
