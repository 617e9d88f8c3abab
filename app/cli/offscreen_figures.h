// Rendering export figures from the CLI without a display: one QGuiApplication on Qt's offscreen
// platform (unless the caller chose a platform) and a deterministic hash seed, so the same figure
// from the same trace is the same file. Shared by `export`, `batch` and `demo`.
#pragma once

#include <filesystem>
#include <memory>

#include "data/common/result.h"
#include "data/trace/trace_reader.h"

class QGuiApplication;

namespace gatescope::app {

/// Whether this build can render figures (Qt is in it).
bool canRenderFigures();

#ifdef GATESCOPE_WITH_GUI
/// Creates the QGuiApplication when none exists; call before any figure is made, on the main
/// thread. Returns the application it created (nullptr when one existed) for the caller to keep.
std::unique_ptr<QGuiApplication> startOffscreenGui();
#endif

}  // namespace gatescope::app
