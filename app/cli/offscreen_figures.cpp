#include "app/cli/offscreen_figures.h"

#include <cstdlib>

#ifdef GATESCOPE_WITH_GUI
#include <QGuiApplication>
#include <QHashFunctions>
#endif

namespace gatescope::app {

#ifdef GATESCOPE_WITH_GUI
bool canRenderFigures() {
    return true;
}

std::unique_ptr<QGuiApplication> startOffscreenGui() {
    if (QGuiApplication::instance()) return nullptr;
    setenv("QT_QPA_PLATFORM", "offscreen", 0);
    // Qt's hash tables order some PDF objects; a fixed seed keeps that order from run to run.
    QHashSeed::setDeterministicGlobalSeed();
    static char name[] = "gatescope";
    static char* argv[] = {name, nullptr};
    static int argc = 1;
    return std::make_unique<QGuiApplication>(argc, argv);
}
#else
bool canRenderFigures() {
    return false;
}
#endif

}  // namespace gatescope::app
