// MainWindow's What if...: the dialog for the shown head, fed with the current trace's manifest
// and source bytes; its finished trace opens compare mode (this trace as A).
#include <QFileInfo>

#include "widgets/gui/main_window.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/gui/what_if_dialog.h"

namespace gatescope::widgets {

WhatIfDialog* MainWindow::whatIfDialog() {
    return m_whatIf.data();
}

void MainWindow::showWhatIf(std::optional<int> channel) {
    if (!m_session || !m_runTrace) return;
    if (m_whatIf) m_whatIf->close();
    const TraceDocument& doc = m_session->document();
    WhatIfSource source;
    if (auto manifest = doc.reader->manifest()) source.manifest = *manifest;
    source.sourceBytes = doc.tokens.sourceText;
    const ViewContext& ctx = m_session->context();
    const QString stem = QFileInfo(QString::fromStdString(doc.summary().path)).completeBaseName();
    const data::LayerInfo* layer = doc.summary().layer(ctx.layer());
    const int channels = layer ? layer->header.nChannels : 1;
    auto* dialog = new WhatIfDialog(m_runTrace, std::move(source), ctx.layer(), ctx.head(),
                                    channels, stem, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setChannel(channel);
    connect(dialog, &WhatIfDialog::traceReady, this,
            [this](const QString& path) { openCompare(path); });
    m_whatIf = dialog;
    dialog->show();
}

}  // namespace gatescope::widgets
