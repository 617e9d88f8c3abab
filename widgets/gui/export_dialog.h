// ExportDialog: File > Export Figure. Kind, format, DPI, token range, query rows and path; the
// figure is the one `gatescope export` writes (widgets/figures), preset to the view on screen:
// its layer, head, map, colours, value range and region (keys as Range, queries as Queries).
// GUI thread only; rendering blocks briefly (exact tiles up to kExactLimit tokens).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include <QRectF>

#include <QDialog>

#include "widgets/figures/figure.h"

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace gatescope::widgets {

struct TraceDocument;

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    /// `base`: layer, head, map, colormap and range of the current view.
    ExportDialog(std::shared_ptr<const TraceDocument> document, FigureOptions base,
                 QWidget* parent = nullptr);

    /// Renders and writes the figure as set in the dialog; false (with a message box) on error.
    bool exportNow();
    /// After a successful exportNow of a Map figure: where its cells are, in pixels of the PNG
    /// written (figure units at its DPI); else none.
    std::optional<QRectF> exportedMapRect() const { return m_exportedMapRect; }

private:
    std::shared_ptr<const TraceDocument> m_document;
    FigureOptions m_base;
    QComboBox* m_kind = nullptr;
    QComboBox* m_format = nullptr;
    QSpinBox* m_dpi = nullptr;
    QLineEdit* m_range = nullptr;
    QLineEdit* m_queries = nullptr;
    QLineEdit* m_compare = nullptr;
    QLineEdit* m_path = nullptr;
    std::optional<QRectF> m_exportedMapRect;
};

}  // namespace gatescope::widgets
