// ViewToolbar: Qt controls for what the views show: layer, head, map, pooling, colormap, scale,
// gamma and the colour range (automatic or fixed). Two-way bound to a ViewContext. GUI thread.
#pragma once

#include <QToolBar>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace gatescope::widgets {

class ViewerSession;

class ViewToolbar : public QToolBar {
    Q_OBJECT
public:
    explicit ViewToolbar(QWidget* parent = nullptr);

    /// Binds to `session` (may be null: controls disabled). The session must outlive the binding.
    void bind(ViewerSession* session);
    /// Refreshes the controls from the session's ViewContext.
    void sync();

private:
    void apply();

    ViewerSession* m_session = nullptr;
    bool m_syncing = false;
    QSpinBox* m_layer;
    QSpinBox* m_head;
    QComboBox* m_map;
    QComboBox* m_pool;
    QComboBox* m_colormap;
    QComboBox* m_scale;
    QDoubleSpinBox* m_gamma;
    QCheckBox* m_auto;
    QDoubleSpinBox* m_lo;
    QDoubleSpinBox* m_hi;
};

}  // namespace gatescope::widgets
