#include "widgets/gui/post_to_thread.h"

#include <QMetaObject>
#include <QObject>

namespace gatescope::widgets {

JobPool::Post postToThreadOf(QObject& context) {
    QObject* target = &context;
    return [target](std::function<void()> call) {
        QMetaObject::invokeMethod(target, std::move(call), Qt::QueuedConnection);
    };
}

}  // namespace gatescope::widgets
