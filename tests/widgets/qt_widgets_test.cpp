// Qt widgets without GL under QT_QPA_PLATFORM=offscreen: the toolbar's two-way binding to the
// ViewContext, and the background trace job (progress, outcome, Cancel) behind File > Run Model.
#include <gtest/gtest.h>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QSpinBox>
#include <QTemporaryDir>

#include "core/sample/random_fox_checkpoint.h"
#include "qt_test_app.h"
#include "sample_trace.h"
#include "widgets/gui/export_dialog.h"
#include "widgets/gui/trace_job_runner.h"
#include "widgets/gui/view_toolbar.h"
#include "widgets/gui/viewer_session.h"

using namespace gatescope;
using namespace gatescope::widgets;

namespace {
using test::spinUntil;
QApplication& app() {
    return test::qtApp();
}
}  // namespace

TEST(QtWidgets, ToolbarAndViewContextStayInStep) {
    app();
    const auto path = sample::sampleTrace();
    ASSERT_FALSE(path.empty());
    auto doc = TraceDocument::open(path);
    ASSERT_TRUE(doc);
    ViewerSession session(*doc, TileService::Options{});
    ViewToolbar toolbar;
    toolbar.bind(&session);
    auto* head = toolbar.findChild<QSpinBox*>("head");
    auto* map = toolbar.findChild<QComboBox*>("map");
    auto* colormap = toolbar.findChild<QComboBox*>("colormap");
    auto* autoRange = toolbar.findChild<QCheckBox*>("autoRange");
    ASSERT_TRUE(head && map && colormap && autoRange);
    EXPECT_EQ(head->maximum(), (*doc)->summary().layer(0)->header.nHeads - 1);
    // Widgets -> context.
    head->setValue(2);
    map->setCurrentIndex(static_cast<int>(MapView::Decay));
    colormap->setCurrentIndex(static_cast<int>(ColormapKind::Cividis));
    autoRange->setChecked(false);
    const ViewContext& ctx = session.context();
    EXPECT_EQ(ctx.head(), 2);
    EXPECT_EQ(ctx.map(), MapView::Decay);
    EXPECT_EQ(ctx.colors().colormap, ColormapKind::Cividis);
    EXPECT_FALSE(ctx.colors().autoRange);
    EXPECT_TRUE(toolbar.findChild<QWidget*>("rangeLo")->isEnabled());
    // Context -> widgets (e.g. a click in the overview).
    session.context().setLayerHead(1, 3);
    EXPECT_EQ(head->value(), 3);
    EXPECT_EQ(toolbar.findChild<QSpinBox*>("layer")->value(), 1);
}

TEST(QtWidgets, TraceJobRunnerRunsInTheBackgroundAndCancels) {
    app();
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::filesystem::path model = dir.filePath("model").toStdString();
    core::RandomFoxSpec spec;
    spec.layers = 1;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(model, spec).ok());
    core::TraceRequest request;
    request.modelDir = model;
    request.input.path = GATESCOPE_SOURCE_DIR "/resources/samples/forgetting.txt";
    request.out = dir.filePath("run.h5").toStdString();

    TraceJobRunner runner;
    double lastFraction = -1;
    bool finished = false, ok = false;
    QString outPath, error;
    QObject::connect(&runner, &TraceJobRunner::progress,
                     [&](double f, const QString&) { lastFraction = f; });
    QObject::connect(&runner, &TraceJobRunner::finished, [&](bool k, QString p, QString e) {
        finished = true;
        ok = k;
        outPath = p;
        error = e;
    });
    ASSERT_TRUE(runner.start(request));
    EXPECT_FALSE(runner.start(request));  // one job at a time
    ASSERT_TRUE(spinUntil([&] { return finished; }, 300000));
    ASSERT_TRUE(ok) << error.toStdString();
    EXPECT_DOUBLE_EQ(lastFraction, 1.0);
    auto doc = TraceDocument::open(outPath.toStdString());
    ASSERT_TRUE(doc) << doc.error().describe();
    EXPECT_EQ((*doc)->summary().layers.size(), 1u);

    // Cancelled right away: an error, and no trace left at the output path.
    finished = false;
    request.out = dir.filePath("cancelled.h5").toStdString();
    ASSERT_TRUE(runner.start(request));
    runner.cancel();
    ASSERT_TRUE(spinUntil([&] { return finished; }, 300000));
    EXPECT_FALSE(ok);
    EXPECT_NE(error.toLower().indexOf("cancel"), -1) << error.toStdString();
    EXPECT_FALSE(std::filesystem::exists(request.out));
}

TEST(QtWidgets, ExportDialogWritesTheSameFileAsTheCli) {
    app();
    const auto path = sample::sampleTrace();
    ASSERT_FALSE(path.empty());
    auto doc = TraceDocument::open(path);
    ASSERT_TRUE(doc);
    QTemporaryDir dir;
    FigureOptions base;
    base.layer = 1;
    base.head = 2;
    base.begin = 0;
    base.end = 24;
    ExportDialog dialog(*doc, base);
    const QString gui = dir.filePath("gui.svg"), cli = dir.filePath("cli.svg");
    dialog.findChild<QComboBox*>("format")->setCurrentText("svg");
    dialog.findChild<QLineEdit*>("path")->setText(gui);
    ASSERT_TRUE(dialog.exportNow());
    const std::string cmd = fmt::format(
        "'{}' export '{}' --figure map --layer 1 --head 2 --range 0:24 --out '{}' >/dev/null "
        "2>&1",
        GATESCOPE_CLI, path.string(), cli.toStdString());
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    QFile a(gui), b(cli);
    ASSERT_TRUE(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
    const QByteArray bytes = a.readAll();
    EXPECT_GT(bytes.size(), 1000);
    const QByteArray other = b.readAll();
    EXPECT_TRUE(bytes == other) << "one painter: the viewer's export should be the CLI's, byte "
                                   "for byte; see test-tmp/export-gui.svg and export-cli.svg";
    if (bytes != other) {
        const QString keep = QStringLiteral(GATESCOPE_BINARY_DIR) + "/test-tmp/export-";
        QFile::remove(keep + "gui.svg");
        QFile::remove(keep + "cli.svg");
        QFile::copy(gui, keep + "gui.svg");
        QFile::copy(cli, keep + "cli.svg");
    }
}
