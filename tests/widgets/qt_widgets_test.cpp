// Qt widgets without GL under QT_QPA_PLATFORM=offscreen: the toolbar's two-way binding to the
// ViewContext, and the runner of the background trace job (progress, outcome, Cancel) behind
// File > Run Model.
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QThread>

#include "qt_test_app.h"
#include "support/sample_trace.h"
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
    // The runner's job is injected (app/ gives it the engine's runTraceJob; engine_tests'
    // TraceJobProgress checks that job). This one reports two steps, then either writes the
    // output or, when cancelled, ends the way the engine's does.
    const Qt::HANDLE guiThread = QThread::currentThreadId();
    std::atomic<bool> jobOffGuiThread{false}, releaseJob{false};
    auto job = [&](const core::TraceRequest& request, const core::TraceProgressFn& progress,
                   const std::atomic<bool>* cancel) -> Result<core::TraceOutcome> {
        jobOffGuiThread = QThread::currentThreadId() != guiThread;
        progress({0.5, "layer 1/2", 0});
        while (!releaseJob && !(cancel && *cancel))
            std::this_thread::yield();
        if (cancel && *cancel) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
        progress({1.0, "writing", 0});
        return core::TraceOutcome{request.out, "fox", 7, 1, 0.1, "cpu", "test"};
    };
    TraceJobRunner runner(job);
    std::vector<double> fractions;
    Qt::HANDLE progressThread = nullptr;
    bool finished = false, ok = false;
    QString outPath, error;
    QObject::connect(&runner, &TraceJobRunner::progress, [&](double f, const QString&) {
        fractions.push_back(f);
        progressThread = QThread::currentThreadId();
    });
    QObject::connect(&runner, &TraceJobRunner::finished, [&](bool k, QString p, QString e) {
        finished = true;
        ok = k;
        outPath = p;
        error = e;
    });
    core::TraceRequest request;
    request.out = "/tmp/run.h5";
    ASSERT_TRUE(runner.start(request));
    EXPECT_TRUE(runner.running());
    EXPECT_FALSE(runner.start(request));  // one job at a time
    ASSERT_TRUE(spinUntil([&] { return !fractions.empty(); }, 30000));
    releaseJob = true;
    ASSERT_TRUE(spinUntil([&] { return finished; }, 30000));
    ASSERT_TRUE(ok) << error.toStdString();
    EXPECT_EQ(outPath.toStdString(), "/tmp/run.h5");
    EXPECT_EQ(fractions, (std::vector<double>{0.5, 1.0}));
    EXPECT_TRUE(jobOffGuiThread);
    EXPECT_EQ(progressThread, guiThread);  // signals arrive on the GUI thread
    EXPECT_FALSE(runner.running());

    // Cancel while the job runs: finished() reports the job's cancellation error.
    finished = false;
    releaseJob = false;
    fractions.clear();
    ASSERT_TRUE(runner.start(request));
    ASSERT_TRUE(spinUntil([&] { return !fractions.empty(); }, 30000));
    runner.cancel();
    ASSERT_TRUE(spinUntil([&] { return finished; }, 30000));
    EXPECT_FALSE(ok);
    EXPECT_NE(error.toLower().indexOf("cancel"), -1) << error.toStdString();
}

TEST(QtWidgets, ExportDialogWritesTheSameFileAsTheCli) {
    app();
    const auto path = sample::sampleTrace();
    ASSERT_FALSE(path.empty());
    auto doc = TraceDocument::open(path);
    ASSERT_TRUE(doc);
    QTemporaryDir dir;
    // The default view, and a view of the product map on a log scale with a fixed range (what
    // the viewer hands the dialog when its range is automatic: the range on screen).
    FigureOptions product;
    product.map = MapView::Product;
    product.colors.scale = ScaleKind::Log;
    product.colors.autoRange = false;
    product.colors.fixedLo = 1e-5;
    product.colors.fixedHi = 0.5;
    const std::pair<FigureOptions, std::string> views[] = {
        {FigureOptions{}, ""}, {product, "--map product --scale log --value-range 1e-5:0.5"}};
    for (const auto& [view, flags] : views) {
        FigureOptions base = view;
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
            "'{}' export '{}' --figure map --layer 1 --head 2 --range 0:24 {} --out '{}' "
            ">/dev/null 2>&1",
            GATESCOPE_CLI, path.string(), flags, cli.toStdString());
        ASSERT_EQ(std::system(cmd.c_str()), 0) << flags;
        QFile a(gui), b(cli);
        ASSERT_TRUE(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        const QByteArray bytes = a.readAll();
        EXPECT_GT(bytes.size(), 1000);
        const QByteArray other = b.readAll();
        EXPECT_TRUE(bytes == other) << "one painter: the viewer's export should be the CLI's, "
                                       "byte for byte ("
                                    << flags << "); see test-tmp/export-gui.svg and export-cli.svg";
        if (bytes != other) {
            const QString keep = QStringLiteral(GATESCOPE_BINARY_DIR) + "/test-tmp/export-";
            QFile::remove(keep + "gui.svg");
            QFile::remove(keep + "cli.svg");
            QFile::copy(gui, keep + "gui.svg");
            QFile::copy(cli, keep + "cli.svg");
        }
    }
}
