#include "widgets/gui/view_toolbar.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSpinBox>

#include "widgets/gui/viewer_session.h"

namespace gatescope::widgets {

namespace {
QDoubleSpinBox* rangeBox(double value) {
    auto* box = new QDoubleSpinBox;
    box->setDecimals(6);
    box->setRange(-1e9, 1e9);
    box->setValue(value);
    return box;
}
}  // namespace

ViewToolbar::ViewToolbar(QWidget* parent) : QToolBar("View", parent) {
    setObjectName("viewToolbar");
    m_layer = new QSpinBox;
    m_layer->setObjectName("layer");
    m_head = new QSpinBox;
    m_head->setObjectName("head");
    m_map = new QComboBox;
    m_map->setObjectName("map");
    for (MapView m : {MapView::Attention, MapView::Decay, MapView::Product})
        m_map->addItem(toString(m));
    m_pool = new QComboBox;
    m_pool->setObjectName("pool");
    m_pool->addItems({"max", "mean"});
    m_colormap = new QComboBox;
    m_colormap->setObjectName("colormap");
    for (int i = 0; i < kColormapCount; ++i)
        m_colormap->addItem(toString(static_cast<ColormapKind>(i)));
    m_scale = new QComboBox;
    m_scale->setObjectName("scale");
    for (ScaleKind s : {ScaleKind::Linear, ScaleKind::Log, ScaleKind::Gamma})
        m_scale->addItem(toString(s));
    m_gamma = new QDoubleSpinBox;
    m_gamma->setObjectName("gamma");
    m_gamma->setRange(0.05, 5);
    m_gamma->setSingleStep(0.05);
    m_gamma->setValue(0.5);
    m_auto = new QCheckBox("auto range");
    m_auto->setObjectName("autoRange");
    m_auto->setChecked(true);
    m_lo = rangeBox(0);
    m_lo->setObjectName("rangeLo");
    m_hi = rangeBox(1);
    m_hi->setObjectName("rangeHi");
    addWidget(new QLabel(" layer "));
    addWidget(m_layer);
    addWidget(new QLabel(" head "));
    addWidget(m_head);
    addWidget(m_map);
    addWidget(m_pool);
    addSeparator();
    addWidget(m_colormap);
    addWidget(m_scale);
    addWidget(new QLabel(" gamma "));
    addWidget(m_gamma);
    addWidget(m_auto);
    addWidget(m_lo);
    addWidget(m_hi);
    auto changed = [this] { apply(); };
    connect(m_layer, &QSpinBox::valueChanged, this, changed);
    connect(m_head, &QSpinBox::valueChanged, this, changed);
    for (QComboBox* c : {m_map, m_pool, m_colormap, m_scale})
        connect(c, &QComboBox::currentIndexChanged, this, changed);
    connect(m_gamma, &QDoubleSpinBox::valueChanged, this, changed);
    connect(m_lo, &QDoubleSpinBox::valueChanged, this, changed);
    connect(m_hi, &QDoubleSpinBox::valueChanged, this, changed);
    connect(m_auto, &QCheckBox::toggled, this, changed);
    bind(nullptr);
}

void ViewToolbar::bind(ViewerSession* session) {
    m_session = session;
    setEnabled(session != nullptr);
    if (session) connect(session, &ViewerSession::contextChanged, this, &ViewToolbar::sync);
    sync();
}

void ViewToolbar::sync() {
    if (!m_session) return;
    m_syncing = true;
    const ViewContext& ctx = m_session->context();
    const auto& layers = m_session->document().summary().layers;
    m_layer->setRange(layers.empty() ? 0 : layers.front().index,
                      layers.empty() ? 0 : layers.back().index);
    m_layer->setValue(ctx.layer());
    const data::LayerInfo* layer = m_session->document().summary().layer(ctx.layer());
    m_head->setRange(0, layer ? std::max(0, layer->header.nHeads - 1) : 0);
    m_head->setValue(ctx.head());
    m_map->setCurrentIndex(static_cast<int>(ctx.map()));
    m_pool->setCurrentIndex(static_cast<int>(ctx.pool()));
    const ColorSettings& c = ctx.colors();
    m_colormap->setCurrentIndex(static_cast<int>(c.colormap));
    m_scale->setCurrentIndex(static_cast<int>(c.scale));
    m_gamma->setValue(c.gamma);
    m_auto->setChecked(c.autoRange);
    m_lo->setValue(c.fixedLo);
    m_hi->setValue(c.fixedHi);
    m_lo->setEnabled(!c.autoRange);
    m_hi->setEnabled(!c.autoRange);
    m_gamma->setEnabled(c.scale == ScaleKind::Gamma);
    m_syncing = false;
}

void ViewToolbar::apply() {
    if (m_syncing || !m_session) return;
    ViewContext& ctx = m_session->context();
    ctx.setLayerHead(m_layer->value(), m_head->value());
    ctx.setMap(static_cast<MapView>(m_map->currentIndex()));
    ctx.setPool(static_cast<data::Pool>(m_pool->currentIndex()));
    ColorSettings c = ctx.colors();
    c.colormap = static_cast<ColormapKind>(m_colormap->currentIndex());
    c.scale = static_cast<ScaleKind>(m_scale->currentIndex());
    c.gamma = m_gamma->value();
    c.autoRange = m_auto->isChecked();
    c.fixedLo = m_lo->value();
    c.fixedHi = m_hi->value();
    ctx.setColors(c);
    sync();
}

}  // namespace gatescope::widgets
