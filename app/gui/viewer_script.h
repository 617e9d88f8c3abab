// ViewerScript: drives the real viewer from a text file, one command per line, for the GUI test
// and the benchmark (F3D-style: the application is its own test harness). Commands:
//   wait                      until the trace is open and every visible tile is drawn
//   screenshot PATH           the main window as PNG
//   export-view PATH [DPI]    File > Export Figure of the view as preset (map, colours, range,
//                             the region on screen), written to PATH; prints "export-view PATH
//                             ok= keys=A:B queries=C:D png-map=X,Y,W,H" (the cells' rectangle in
//                             PNG pixels) and "export-view screen x0= y0= key0= query0= tpp= w= h="
//                             (token (q, k) is at window pixel x0 + (k - key0) / tpp, likewise y)
//   fit | zoom-cells Q K PX   whole map | cells of PX pixels centred on query Q, key K
//   layer L | head H | map attention|decay|product | pool max|mean
//   colormap NAME | scale linear|log|gamma
//   hover Q K                 centres cell (Q, K) if off screen, moves the mouse over it;
//                             prints "hover query= key= value= exact= level="
//   cursor T | find TEXT | bookmark NAME | bookmark-remove INDEX
//   bookmarks                 prints "bookmarks count= list=NAME@TOKEN:LlayerHhead,..."
//   token-summary             prints the Text dock's line for the cursor (loss, rank, entropy)
//   minimap                   prints "minimap box=X0,Y0,X1,Y1 side=S" (the map's you-are-here
//                             box, minimap pixels) or "minimap none" (whole map on screen)
//   minimap-click X Y         clicks minimap pixel (X, Y); prints "minimap-click center-key=
//                             center-query= cursor=" (where the view went; the cursor stays)
//   retention-window          prints "retention-window begin= end= follow= map=Q0:Q1" (the
//                             Retention dock's positions and the map's visible queries)
//   dock NAME                 shows and raises the dock NAME (object name, e.g. statistics, or
//                             title, e.g. "Needle Grid"); prints "dock NAME x= y= w= h="
//   stats-attention           computes the Statistics dock's attention statistics of the layer,
//                             shows their tab and waits; prints "stats gate-rows= attention-rows="
//   reads row|column          shows the Reads dock on the cursor's row (what it reads) or column
//                             (who reads it), waits for it; prints "reads mode= layer= head=
//                             position= sum= split= top=P:W:CONTENT:FORGET,..." and, for the
//                             strongest token painted over the text, "reads-painted position=
//                             x= y= w= h= color=RRGGBB" (window pixels, the expected fill)
//   reads-click RANK          clicks listed token RANK (0: the strongest); prints
//                             "reads-click rank= position= cursor="
//   gate-events [SEARCH]      shows the Gate Events dock, waits for its table, searches; prints
//                             "gate-events total= kept= shown= first=L:H:C:POS:RETENTION,.." (the
//                             first three rows) or "gate-events message=TEXT" (no gates)
//   gate-events-click ROW     clicks shown row ROW; prints "gate-events-click row= event=L:H:POS
//                             layer= head= cursor=" (fails unless the view went to the event)
//   context [attention]       shows the Effective Context dock and waits for its map (with
//                             `attention`, computes attention horizons too); prints "context
//                             rows= bins= bin-width= kind=gate|attention row0=LxHy first=A,B,C"
//                             (row 0's horizons of bins 0-2, tokens)
//   context-click ROW BIN     clicks that cell; prints "context-click row= bin= layer= head=
//                             cursor=" (fails unless the view went to that head and bin)
//   series [attention]        (after `gatescope open --series`) waits for the Checkpoint Series
//                             dock (with `attention`: presses its Compute attention statistics
//                             and waits again); prints "series points= steps=A,B,..
//                             mean-loss=X,Y,.. sink-mass=S,T,.." or "series message=TEXT"
//   series-click ROW          clicks row ROW and waits for its trace; prints "series-click row=
//                             step= opened=PATH" (fails unless that row's trace opened)
//   overview-what-if L H      right-clicks the Overview's cell of layer L head H and picks
//                             "What if..." from its menu; prints "overview-what-if layer= head=
//                             dialog=TITLE channel=" (the dialog that opened, for that head)
//   retention-what-if ROW     right-clicks the Retention dock's row ROW (a head's track for
//                             scalar gates, a channel's heatmap row for per-channel gates) and
//                             picks the menu's first item; prints "retention-what-if row=
//                             dialog=TITLE channel=K|all"
//   open-grid PATH            opens a `gatescope niah` grid.json in the Needle Grid dock
//   grid-click LENGTH DEPTH   clicks that grid cell and waits for its trace to open and draw;
//                             prints "opened PATH tokens= cursor="
//   bench-first-frame         prints the time from start to the first complete frame
//   bench-pan FRAMES DX DY    pans by (DX, DY) px per frame; prints frame times, tile latencies
//                             and resident memory
//   idle-frames MS            prints how many frames every host painted during MS ms of no input
//                             (repaint is on demand: 0 once settled)
//   bench-tiles               prints the latency distribution of every tile loaded so far
//   compare PATH              compare mode with trace B (as File > Compare With...); waits for
//                             everything to draw; prints "compare identical= tokens-a= tokens-b=
//                             aligned= mean-delta= a-better= bins= cursor-a= cursor-b="
//   compare-summary           prints that line for the compare mode already open
//   what-if CHANGE [VALUE] [channel=K]
//                             right-click > What if... on the shown head (one gate channel with
//                             channel=K; the open dialog when it is for the shown head, as the
//                             two commands above leave it): CHANGE is gate=1,
//                             gate, log_gate, clamp or ablate; runs it, prints "what-if CHANGE
//                             ok= status=", then (when it ran) the compare line for A vs B
//   diff-mode diff|log-ratio  the difference view's mode
//   hover-b Q K | hover-diff Q K   like hover, on B's canvas or the difference canvas
//   linked                    after hover on A: waits for and prints the read-out B's and the
//                             difference canvas show at that cell: "linked b|diff query= key=
//                             value= exact="
//   row-divergence            waits for the KL/JS track of the rows on screen; prints
//                             "row-divergence rows= first= last= mean-kl= mean-js="
//   colorbar                  prints each canvas's colour bar labels: "colorbar a|b
//   labels=hi|mid|lo|
//                             caption inside=0|1 right= panel-right= range=lo:hi"
//   key NAME [shift]          a key press on the canvas (left right up down pageup pagedown home
//                             end plus minus); prints "key NAME cursor= tpp= keys=A:B
//                             queries=C:D diagonal-on-screen=0|1 masked=SHARE"
//   axes                      prints the map's position numbers and legend: "axes keys=A|B|..
//                             queries=..|.. inside=0|1 legend=0|1"
//   help                      Help > Keyboard Shortcuts; prints "help ROW" per row, closes it
//   goto TEXT                 Go to Position with TEXT; prints "goto TEXT cursor= masked=SHARE
//                             hint=" (the share of the map on screen that is masked future; the
//                             status bar's hint when TEXT is not a position)
//   gate-messages             prints what the Retention (and Compare) dock say instead of
//                             tracks: "gate-message retention|compare: TEXT"
//   messages                  prints the Messages dock: "messages lines= shown=", then one
//                             "message TEXT" per line
//   layout | reset-layout     prints "layout window=WxH map=WxH side-dock-max= shows-map=";
//                             reset-layout first does View > Reset Layout
//   resize-dock NAME W        drags dock NAME to W pixels wide
//   quit [CODE]               closes the window (which saves its layout) and exits
// Output lines start with "script: ". Runs on the GUI thread with nested event loops (a test
// harness only; viewer code never spins event loops).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/common/result.h"

class QWidget;

namespace gatescope::widgets {
class HeatmapCanvasPanel;
class ImGuiHost;
class MainWindow;
class ViewContext;
}  // namespace gatescope::widgets

namespace gatescope::app {

class ViewerScript {
public:
    static Result<std::unique_ptr<ViewerScript>> load(const std::string& path,
                                                      widgets::MainWindow& window);
    /// Runs every command; returns the exit code (0, or 1 at the first failing command).
    int run();
    /// The viewer opens compare mode by itself (`gatescope open A B`): `wait` waits for it too.
    void expectCompare() { m_expectCompare = true; }

private:
    ViewerScript(std::vector<std::string> lines, widgets::MainWindow& window)
        : m_lines(std::move(lines)), m_window(window) {}
    bool execute(const std::vector<std::string>& words);
    /// Window-level commands (docks, needle grids, compare mode): the outcome, or nothing when
    /// `words` is not one of them (viewer_script_window.cpp).
    std::optional<bool> executeWindow(const std::vector<std::string>& words);
    /// Whether compare mode (when on) has drawn everything it asked for.
    bool compareIdle();
    void sendClick(QWidget* host, double x, double y, bool right = false);
    /// Commands that read what the canvases drew (viewer_script_view.cpp), like executeWindow.
    std::optional<bool> executeView(const std::vector<std::string>& words);
    /// The Reads dock's commands (viewer_script_reads.cpp), like executeWindow.
    std::optional<bool> executeReads(const std::vector<std::string>& words);
    /// Compare mode's commands (viewer_script_compare.cpp), like executeWindow.
    std::optional<bool> executeCompare(const std::vector<std::string>& words);
    /// The Gate Events and Checkpoint Series docks' commands (viewer_script_events.cpp), like
    /// executeWindow.
    std::optional<bool> executeEvents(const std::vector<std::string>& words);
    bool executeSeriesCommand(const std::vector<std::string>& words);
    /// overview-what-if and retention-what-if (viewer_script_what_if.cpp), like executeWindow.
    std::optional<bool> executeWhatIfEntry(const std::vector<std::string>& words);
    bool executeContextCommand(const std::vector<std::string>& words);
    /// export-view (viewer_script_export.cpp), like executeWindow.
    std::optional<bool> executeExport(const std::vector<std::string>& words);
    /// Moves the mouse over cell (q, k) of `canvas` (centring it first when off screen), waits
    /// for the exact value and prints "NAME query= key= value= exact= level=".
    bool hoverCell(widgets::ImGuiHost* host, widgets::HeatmapCanvasPanel* canvas,
                   widgets::ViewContext& ctx, int64_t q, int64_t k, const std::string& name);
    bool waitIdle(int timeoutMs = 60000);
    bool waitFor(const std::function<bool()>& done, int timeoutMs);
    void frames(int count);
    bool benchPan(int frames, double dx, double dy);
    void benchTiles();

    std::vector<std::string> m_lines;
    widgets::MainWindow& m_window;
    bool m_opened = false;
    bool m_openFailed = false;
    bool m_gridOpened = false;
    bool m_expectCompare = false;
    bool m_compareOpened = false;
    bool m_seriesOpened = false;
};

}  // namespace gatescope::app
