// NeedleGridPanel: a `gatescope niah` grid (depths x lengths), each cell coloured by the fraction
// of the answer the model produces (matched_prefix / answer_tokens) with its values on hover.
// Clicking a cell asks the window to open that cell's trace at the needle. Needs no trace open
// (it outlives the trace sessions). GUI thread only.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include <imgui.h>

#include "widgets/gui/panel.h"
#include "widgets/view/needle_grid.h"

namespace gatescope::widgets {

class NeedleGridPanel final : public Panel {
public:
    using OpenCell = std::function<void(const NeedleGridCell&)>;

    NeedleGridPanel(std::shared_ptr<const NeedleGrid> grid, OpenCell open)
        : m_grid(std::move(grid)), m_open(std::move(open)) {}

    const char* title() const override { return "Needle Grid"; }
    void draw(PanelFrame& frame) override;

    void setGrid(std::shared_ptr<const NeedleGrid> grid) {
        m_grid = std::move(grid);
        m_lastOpened = nullptr;
    }
    const NeedleGrid& grid() const { return *m_grid; }
    /// Centre of the cell (length `length`, depth `depth`) in host pixels as of the last frame,
    /// or nothing when the grid has no such cell or has not been drawn yet (scripts click it).
    std::optional<ImVec2> cellCenter(int64_t length, int depth) const;

private:
    std::shared_ptr<const NeedleGrid> m_grid;
    OpenCell m_open;
    const NeedleGridCell* m_lastOpened = nullptr;
    // Cell geometry of the last frame: top-left of cell (0, 0), cell size, step between cells.
    std::optional<ImVec2> m_cell0;
    ImVec2 m_cellSize{0, 0};
    float m_step = 2;
};

}  // namespace gatescope::widgets
