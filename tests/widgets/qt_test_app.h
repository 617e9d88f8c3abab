// The one QApplication of widgets_tests (offscreen unless QT_QPA_PLATFORM says otherwise), shared
// by every file that needs an event loop, and a wait that runs the loop until a condition holds.
#pragma once

#include <cstdlib>
#include <functional>

#include <QApplication>
#include <QElapsedTimer>

namespace gatescope::test {

inline QApplication& qtApp() {
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    static int argc = 1;
    static char name[] = "widgets_tests";
    static char* argv[] = {name, nullptr};
    static QApplication instance(argc, argv);
    return instance;
}

/// Processes events until `done()` or `ms` milliseconds have passed; returns `done()`.
inline bool spinUntil(const std::function<bool()>& done, int ms) {
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < ms)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    return done();
}

}  // namespace gatescope::test
