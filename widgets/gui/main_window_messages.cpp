// MainWindow's Messages dock: every error in full (tile reads, opening files), in a read-only
// text area that wraps long lines and whose text can be selected and copied (Ctrl+C, or the
// context menu's Copy / Select All). It outlives traces; the status bar points to it.
#include <QDateTime>
#include <QDockWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QStatusBar>

#include "widgets/gui/main_window.h"
#include "widgets/gui/viewer_session.h"

namespace gatescope::widgets {

void MainWindow::buildMessages() {
    m_messages = new QPlainTextEdit(this);
    m_messages->setObjectName("messages");
    m_messages->setReadOnly(true);
    m_messages->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_messages->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_messagesDock = new QDockWidget("Messages", this);
    m_messagesDock->setObjectName("messagesDock");
    m_messagesDock->setWidget(m_messages);
    addDockWidget(Qt::BottomDockWidgetArea, m_messagesDock);
    m_messagesDock->hide();  // until there is something to read
}

void MainWindow::showError(const QString& where, const QString& message) {
    const QString line =
        QString("[%1] %2: %3")
            .arg(QDateTime::currentDateTime().toString("HH:mm:ss"), where, message);
    m_messages->appendPlainText(line);
    if (!m_messagesDock->isVisible() && !m_messagesDock->isFloating()) {
        // Wide enough to read: a tab beside the Retention dock when there is one.
        auto* retention = findChild<QDockWidget*>("retentionDock");
        if (retention && retention->isVisible()) tabifyDockWidget(retention, m_messagesDock);
    }
    m_messagesDock->show();
    m_messagesDock->raise();
    // The status line says what failed, and where to read the rest.
    statusBar()->showMessage(where + " failed: the full message is in the Messages dock", 10000);
}

void MainWindow::showErrorBox(const QString& title, const QString& message) {
    // A box whose text can be selected and copied (a path or an HDF5 message is worth pasting).
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

QString MainWindow::messagesText() const {
    return m_messages->toPlainText();
}

void MainWindow::checkTileErrors() {
    if (!m_session) return;
    const auto error = m_session->tiles().lastError();
    if (!error || *error == m_lastTileError) return;
    m_lastTileError = *error;
    showError("Reading tiles", QString::fromStdString(*error));
}

}  // namespace gatescope::widgets
