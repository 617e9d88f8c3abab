// Whether a GUI can open here: used by `demo` to choose between the viewer and written figures.
#pragma once

namespace gatescope::app {

/// True when WAYLAND_DISPLAY is set, or DISPLAY names an X server that accepts a connection
/// (":N" through its local socket, "host:N" over TCP port 6000 + N, within about a second). A
/// DISPLAY left set without a server behind it (an SSH session without forwarding, a closed
/// Xvfb) would otherwise abort Qt after the work was done. Thread-safe; blocks at most ~1 s.
bool displayReachable();

}  // namespace gatescope::app
