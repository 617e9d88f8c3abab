#include "widgets/gui/export_dialog.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>

#include "widgets/view/trace_document.h"

namespace gatescope::widgets {

ExportDialog::ExportDialog(std::shared_ptr<const TraceDocument> document, FigureOptions base,
                           QWidget* parent)
    : QDialog(parent), m_document(std::move(document)), m_base(base) {
    setWindowTitle("Export Figure");
    auto* form = new QFormLayout(this);
    m_kind = new QComboBox(this);
    for (auto k : {FigureKind::Map, FigureKind::Grid, FigureKind::Retention, FigureKind::Loss,
                   FigureKind::Compare})
        m_kind->addItem(toString(k));
    m_format = new QComboBox(this);
    m_format->addItems({"png", "svg", "pdf"});
    m_dpi = new QSpinBox(this);
    m_dpi->setRange(10, 2400);
    m_dpi->setValue(150);
    m_range = new QLineEdit(this);
    m_range->setText(QStringLiteral("%1:%2").arg(base.begin).arg(base.end));
    m_range->setToolTip(
        "Tokens A:B (end exclusive) of retention and loss; the keys of map and compare");
    m_queries = new QLineEdit(this);
    if (base.queryBegin >= 0)
        m_queries->setText(QStringLiteral("%1:%2").arg(base.queryBegin).arg(base.queryEnd));
    m_queries->setPlaceholderText("as Range");
    m_queries->setToolTip("Query rows A:B of map and compare (empty: the Range tokens)");
    m_compare = new QLineEdit(this);
    m_compare->setPlaceholderText("B.h5 (compare only)");
    m_path = new QLineEdit(this);
    m_path->setText(QStringLiteral("figure.png"));
    m_kind->setObjectName("kind");
    m_format->setObjectName("format");
    m_dpi->setObjectName("dpi");
    m_range->setObjectName("range");
    m_queries->setObjectName("queries");
    m_compare->setObjectName("compare");
    m_path->setObjectName("path");
    auto* browse = new QPushButton("Browse...", this);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path);
    pathRow->addWidget(browse);
    form->addRow("Figure", m_kind);
    form->addRow("Format", m_format);
    form->addRow("DPI (PNG)", m_dpi);
    form->addRow("Range", m_range);
    form->addRow("Queries", m_queries);
    form->addRow("Compare with", m_compare);
    form->addRow("File", pathRow);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText("Export");
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (exportNow()) accept();
    });
    connect(m_format, &QComboBox::currentTextChanged, this, [this](const QString& ext) {
        QFileInfo info(m_path->text());
        m_path->setText(info.path() + "/" + info.completeBaseName() + "." + ext);
    });
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, "Export figure", m_path->text(),
                                                          "Figures (*.png *.svg *.pdf)");
        if (!path.isEmpty()) m_path->setText(path);
    });
}

bool ExportDialog::exportNow() {
    FigureOptions o = m_base;
    o.kind = static_cast<FigureKind>(m_kind->currentIndex());
    auto fail = [this](const QString& message) {
        QMessageBox::warning(this, "Export Figure", message);
        return false;
    };
    auto span = [](const QString& text, int64_t& begin, int64_t& end) {
        const QStringList parts = text.split(':');
        bool okA = false, okB = false;
        if (parts.size() == 2) {
            begin = parts[0].trimmed().toLongLong(&okA);
            end = parts[1].trimmed().toLongLong(&okB);
        }
        return okA && okB;
    };
    if (!span(m_range->text(), o.begin, o.end))
        return fail("Range must be A:B (token positions, end exclusive)");
    o.queryBegin = o.queryEnd = -1;
    const bool region = o.kind == FigureKind::Map || o.kind == FigureKind::Compare;
    if (region && !m_queries->text().trimmed().isEmpty() &&
        !span(m_queries->text(), o.queryBegin, o.queryEnd))
        return fail("Queries must be A:B (token positions, end exclusive) or empty");
    const std::filesystem::path path = m_path->text().toStdString();
    const auto format = formatFromPath(path);
    if (!format) return fail("The file must end in .png, .svg or .pdf");
    std::shared_ptr<data::TraceReader> other;
    if (o.kind == FigureKind::Compare) {
        if (m_compare->text().isEmpty()) return fail("The compare figure needs a second trace");
        auto b = data::TraceReader::open(m_compare->text().toStdString());
        if (!b) return fail(QString::fromStdString(b.error().describe()));
        other = *b;
    }
    QApplication::setOverrideCursor(Qt::WaitCursor);
    auto figure = makeFigure(*m_document->reader, o, other.get());
    Status written =
        figure ? writeFigure(**figure, path, *format, m_dpi->value()) : Status(figure.error());
    QApplication::restoreOverrideCursor();
    if (!written) return fail(QString::fromStdString(written.error().describe()));
    m_exportedMapRect.reset();
    if (auto rect = (*figure)->mapRect()) {
        const double pixelsPerUnit = m_dpi->value() / 100.0;
        m_exportedMapRect = QRectF(rect->topLeft() * pixelsPerUnit, rect->size() * pixelsPerUnit);
    }
    return true;
}

}  // namespace gatescope::widgets
