// MainWindow's menus: File (open, needle grid, recent, run a model), Go (position, search,
// bookmarks), View (dock toggles, main_window_grid.cpp).
#include <algorithm>
#include <cmath>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include "widgets/gui/export_dialog.h"
#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/gui/main_window.h"
#include "widgets/gui/run_model_dialog.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/bookmark_store.h"
#include "widgets/view/map_keys.h"
#include "widgets/view/token_search.h"
#include "widgets/view/trace_document.h"

namespace gatescope::widgets {

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu("&File");
    file->addAction("&Open Trace...", QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, "Open trace", {},
                                                          "Traces (*.h5 *.hdf5);;All files (*)");
        if (!path.isEmpty()) openTrace(path);
    });
    file->addAction("Open &Needle Grid...", this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, "Open needle grid", {}, "Needle grids (grid.json *.json);;All files (*)");
        if (!path.isEmpty()) openNeedleGrid(path);
    });
    file->addAction("Open Checkpoint &Series...", this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(
            this, "Open traces of one text from successive checkpoints", {},
            "Traces (*.h5 *.hdf5);;All files (*)");
        if (!paths.isEmpty()) openSeries(paths);
    });
    file->addAction("&Compare With...", this, [this] {
        if (!m_session) {
            QMessageBox::information(this, "Compare",
                                     "Open trace A first, then compare it with B.");
            return;
        }
        const QString path = QFileDialog::getOpenFileName(this, "Compare with trace B", {},
                                                          "Traces (*.h5 *.hdf5);;All files (*)");
        if (!path.isEmpty()) openCompare(path);
    });
    m_recentMenu = file->addMenu("Open &Recent");
    rebuildRecentMenu();
    QAction* runModel = file->addAction("&Run Model on Text...", this, [this] {
        auto* dialog = new RunModelDialog(m_runTrace, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &RunModelDialog::traceReady, this, &MainWindow::openTrace);
        dialog->show();
    });
    runModel->setEnabled(static_cast<bool>(m_runTrace));
    file->addAction("&Export Figure...", QKeySequence(Qt::CTRL | Qt::Key_E), this,
                    [this] { showExportDialog(); });
    file->addSeparator();
    file->addAction("&Quit", QKeySequence::Quit, qApp, &QApplication::quit);

    QMenu* go = menuBar()->addMenu("&Go");
    go->addAction("Go to &Position...", QKeySequence(Qt::CTRL | Qt::Key_G), this, [this] {
        if (!m_session) return;
        const int64_t n = m_session->document().n();
        const QString text = QInputDialog::getText(
            this, "Go to position",
            QString("Token position, 0 to %1 (or NN%):").arg(std::max<int64_t>(0, n - 1)));
        if (!text.isEmpty()) goToText(text);
    });
    go->addAction("&Find...", QKeySequence::Find, this, [this] { find(false); });
    go->addAction("Find &Next", QKeySequence::FindNext, this, [this] { find(true); });
    go->addSeparator();
    go->addAction("Add &Bookmark...", QKeySequence(Qt::CTRL | Qt::Key_D), this,
                  [this] { promptBookmark(); });
    m_bookmarksMenu = go->addMenu("B&ookmarks");
    rebuildBookmarksMenu();

    m_viewMenu = menuBar()->addMenu("&View");  // a toggle per dock, filled when docks exist
    rebuildViewMenu();

    QMenu* help = menuBar()->addMenu("&Help");
    QAction* shortcuts = help->addAction("&Keyboard Shortcuts", QKeySequence(Qt::Key_F1), this,
                                         [this] { showShortcuts(); });
    shortcuts->setObjectName("helpShortcuts");
}

QString MainWindow::goToText(const QString& text) {
    if (!m_session) return "Open a trace first.";
    const int64_t n = m_session->document().n();
    if (auto pos = parsePosition(text.toStdString(), n)) {
        goToPosition(*pos);
        return {};
    }
    const QString hint = QString::fromStdString(positionHint(text.toStdString(), n));
    statusBar()->showMessage(hint, 8000);
    return hint;
}

void MainWindow::find(bool next) {
    if (!m_session) return;
    if (!next || m_lastSearch.isEmpty()) {
        const QString text = QInputDialog::getText(
            this, "Find", "Text (token or string):", QLineEdit::Normal, m_lastSearch);
        if (text.isEmpty()) return;
        findText(text, false);
        return;
    }
    findText(m_lastSearch, true);
}

QString MainWindow::findText(const QString& text, bool next) {
    if (!m_session) return "Open a trace first.";
    if (!next || text != m_lastSearch) {
        m_lastSearch = text;
        m_lastMatch = m_session->context().cursor();
    }
    const auto matches = findString(m_session->document().tokens, m_lastSearch.toStdString());
    auto hit = nextMatch(matches, m_lastMatch);
    if (!hit) {
        const QString message = "Not found: " + m_lastSearch;
        statusBar()->showMessage(message, 4000);
        return message;
    }
    m_lastMatch = *hit;
    const auto k = std::find(matches.begin(), matches.end(), *hit) - matches.begin() + 1;
    const QString message = QString("'%1': match %2 of %3, at token %4")
                                .arg(m_lastSearch)
                                .arg(k)
                                .arg(matches.size())
                                .arg(*hit);
    statusBar()->showMessage(message, 8000);
    goToPosition(*hit);
    return message;
}

void MainWindow::showShortcuts() {
    // A table of shortcutHelp()'s "keys<TAB>what" lines; non-blocking, text selectable.
    QString html = "<table cellspacing='0' cellpadding='3'>";
    for (const QString& line : QString(shortcutHelp()).split('\n')) {
        const QStringList parts = line.split('\t');
        if (parts.size() == 2)
            html += QString("<tr><td><b>%1</b></td><td>%2</td></tr>")
                        .arg(parts[0].toHtmlEscaped(), parts[1].toHtmlEscaped());
        else if (!line.isEmpty())
            html +=
                QString("<tr><td colspan='2'><br><i>%1</i></td></tr>").arg(line.toHtmlEscaped());
    }
    html += "</table>";
    auto* box =
        new QMessageBox(QMessageBox::NoIcon, "Keyboard Shortcuts", html, QMessageBox::Close, this);
    box->setObjectName("shortcutsDialog");
    box->setTextFormat(Qt::RichText);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const QStringList recent = QSettings().value("recentFiles").toStringList();
    for (const QString& path : recent) {
        m_recentMenu->addAction(path, this, [this, path] { openTrace(path); });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::rebuildBookmarksMenu() {
    m_bookmarksMenu->clear();
    if (!m_session) {
        m_bookmarksMenu->setEnabled(false);
        return;
    }
    const auto& marks = m_session->context().bookmarks();
    const auto& tokens = m_session->document().tokens;
    auto label = [&](const Bookmark& b) {
        const std::string token = b.token < tokens.size()
                                      ? displayToken(tokens.text[static_cast<size_t>(b.token)], 20)
                                      : std::string();
        return QString::fromStdString(b.name) + QString("  (token %1 '%2', L%3 h%4)")
                                                    .arg(b.token)
                                                    .arg(QString::fromStdString(token))
                                                    .arg(b.layer)
                                                    .arg(b.head);
    };
    for (const Bookmark& b : marks)
        m_bookmarksMenu->addAction(label(b), this, [this, b] {
            m_session->context().setLayerHead(b.layer, b.head);
            goToPosition(b.token);
        });
    if (!marks.empty()) {
        m_bookmarksMenu->addSeparator();
        QMenu* remove = m_bookmarksMenu->addMenu("&Remove");
        for (size_t i = 0; i < marks.size(); ++i)
            remove->addAction(label(marks[i]), this, [this, i] { removeBookmark(i); });
        m_bookmarksMenu->addAction("Remove &All", this, [this] {
            while (m_session && !m_session->context().bookmarks().empty())
                m_session->context().removeBookmark(0);
            saveBookmarks();
        });
    }
    m_bookmarksMenu->setEnabled(!marks.empty());
}

void MainWindow::promptBookmark() {
    if (!m_session) return;
    const int64_t token = std::max<int64_t>(0, m_session->context().cursor());
    // Not modal: the map keeps drawing while the name is typed.
    auto* dialog = new QInputDialog(this);
    dialog->setObjectName("bookmarkName");
    dialog->setWindowTitle("Add Bookmark");
    dialog->setLabelText(QString("Name of the bookmark at token %1:").arg(token));
    dialog->setTextValue(QString("token %1").arg(token));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QInputDialog::textValueSelected, this, [this](const QString& name) {
        if (!name.trimmed().isEmpty()) addBookmark(name.trimmed());
    });
    dialog->open();
}

namespace {
QString absolutePath(const std::string& path) {
    return QFileInfo(QString::fromStdString(path)).absoluteFilePath();
}
}  // namespace

void MainWindow::loadBookmarks() {
    if (!m_session) return;
    const auto& doc = m_session->document();
    const std::string key = bookmarksKey(absolutePath(doc.summary().path).toStdString());
    const std::string text =
        QSettings().value(QString::fromStdString(key)).toString().toStdString();
    auto marks = bookmarksFromJson(text, doc.n(), [&](int layer, int head) {
        const auto* info = doc.summary().layer(layer);
        return info && head < info->header.nHeads;
    });
    for (Bookmark& b : marks)
        m_session->context().addBookmark(std::move(b));
}

void MainWindow::saveBookmarks() {
    if (!m_session) return;
    const std::string key =
        bookmarksKey(absolutePath(m_session->document().summary().path).toStdString());
    QSettings settings;
    const auto& marks = m_session->context().bookmarks();
    if (marks.empty())
        settings.remove(QString::fromStdString(key));
    else
        settings.setValue(QString::fromStdString(key),
                          QString::fromStdString(bookmarksToJson(marks)));
}

void MainWindow::showExportDialog() {
    if (!m_session) {
        QMessageBox::information(this, "Export Figure", "Open a trace first.");
        return;
    }
    const auto& ctx = m_session->context();
    FigureOptions base;
    base.layer = ctx.layer();
    base.head = ctx.head();
    // The view as it is: its map, colormap, scale and value range.
    base.map = ctx.map();
    base.colors = ctx.colors();
    const int64_t n = m_session->document().n();
    base.begin = 0;
    base.end = n;
    if (auto* canvas = canvasPanel(); canvas && canvas->view().width() > 0) {
        // The value range the canvas resolved for what is on screen, so that colours match.
        if (base.colors.autoRange) {
            base.colors.autoRange = false;
            base.colors.fixedLo = canvas->range().lo;
            base.colors.fixedHi = canvas->range().hi;
        }
        // The region on screen, as whole tokens within the sequence: keys [begin, end) and
        // queries [queryBegin, queryEnd).
        const auto& v = canvas->view();
        auto span = [n](double from, double to, int64_t& begin, int64_t& end) {
            begin = std::clamp<int64_t>(static_cast<int64_t>(std::floor(from)), 0, n - 1);
            end = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(to)), begin + 1, n);
        };
        span(v.keyAt(0), v.keyAt(v.width()), base.begin, base.end);
        span(v.queryAt(0), v.queryAt(v.height()), base.queryBegin, base.queryEnd);
    }
    auto* dialog = new ExportDialog(m_session->documentPtr(), base, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

}  // namespace gatescope::widgets
