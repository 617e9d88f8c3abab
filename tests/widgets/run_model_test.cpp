// File > Run Model on Text and the viewer's plain messages: the dialog's fields map to the CLI's
// TraceRequest fields and are remembered between runs; progress and the outcome are said in
// words (a Cancel reads "Cancelled"); Go to Position states the valid range; a model without
// forget gates is said to have none.
#include <gtest/gtest.h>
#include <QCoreApplication>
#include <QSettings>
#include <QTemporaryDir>

#include "widgets/gui/run_model_dialog.h"
#include "widgets/qt_test_app.h"
#include "widgets/view/retention_model.h"
#include "widgets/view/run_request.h"
#include "widgets/view/token_search.h"

using namespace gatescope;
using namespace gatescope::widgets;

TEST(RunRequest, MapsTheCliOptionsToTheTraceRequest) {
    RunInputs in;
    in.model = "/m";
    in.input = "/t.txt";
    in.out = "/o.h5";
    in.range = "100:4196";
    in.layers = "0,2-3";
    in.heads = "1";
    in.device = "cuda";
    in.dtype = "bfloat16";
    in.pyramids = false;
    in.pyramidSide = 4096;
    auto r = toTraceRequest(in);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_EQ(r->modelDir, "/m");
    EXPECT_EQ(r->input.path, "/t.txt");
    EXPECT_EQ(r->out, "/o.h5");
    EXPECT_EQ(r->input.begin, 100);
    EXPECT_EQ(r->input.end, 4196);
    EXPECT_EQ(r->layers, (std::vector<int>{0, 2, 3}));
    EXPECT_EQ(r->pyramidHeads, (std::vector<int>{1}));
    EXPECT_EQ(r->device, "cuda");
    EXPECT_EQ(r->dtype, core::ComputeDType::BFloat16);
    EXPECT_FALSE(r->storePyramids);
    EXPECT_EQ(r->pyramidFinestSide, 4096);
    // Defaults: everything, as `gatescope trace` with no options.
    RunInputs plain{"/m", "/t.txt", "/o.h5"};
    auto d = toTraceRequest(plain);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->input.begin, 0);
    EXPECT_FALSE(d->input.end);
    EXPECT_TRUE(d->layers.empty());
    EXPECT_TRUE(d->storePyramids);
    EXPECT_EQ(d->pyramidFinestSide, 1024);
    // Mistakes name the field.
    plain.range = "50:10";
    EXPECT_NE(toTraceRequest(plain).error().describe().find("--range"), std::string::npos);
    plain.range.clear();
    plain.layers = "x";
    EXPECT_FALSE(toTraceRequest(plain));
    plain.layers.clear();
    plain.model.clear();
    EXPECT_NE(toTraceRequest(plain).error().describe().find("checkpoint"), std::string::npos);
}

TEST(RunRequest, DescribesProgressAndOutcomeInWords) {
    EXPECT_EQ(describeProgress({0.0, "loading", 0}, 3.4),
              "loading the checkpoint, reading the input and running the first layer (3 s)");
    EXPECT_EQ(describeProgress({0.5, "layer 2/4", 1418}, 12.0),
              "layer 2 of 4 recorded, 1418 tokens (12 s)");
    EXPECT_EQ(describeProgress({0.97, "writing", 1418}, 20.0),
              "writing the trace, 1418 tokens (20 s)");
    EXPECT_EQ(describeOutcome(false, true, "/o.h5: pyramid build cancelled"),
              "Cancelled: no trace was written");
    EXPECT_EQ(describeOutcome(false, false, "no such folder"), "Failed: no such folder");
}

TEST(PlainMessages, GoToPositionStatesTheValidRange) {
    EXPECT_FALSE(parsePosition("99999", 1418));
    EXPECT_EQ(positionHint("99999", 1418),
              "Not a position: 99999. This trace has positions 0 to 1,417 (type 1234, 1,234 or "
              "50%).");
}

TEST(PlainMessages, AModelWithoutGatesIsSaidToHaveNone) {
    data::TraceSummary transformer;
    transformer.layers.resize(2);
    const Error e = noGatesError(transformer, 0);
    EXPECT_EQ(e.kind, ErrorKind::Missing);
    EXPECT_NE(e.describe().find("this model has no forget gates"), std::string::npos);
    EXPECT_EQ(e.describe().find("/layers/"), std::string::npos) << "no dataset paths";
    data::TraceSummary someLayers = transformer;
    someLayers.layers[1].hasGates = true;
    EXPECT_EQ(noGatesError(someLayers, 0).describe(), "layer 0 has no forget gates");
}

TEST(RunModelDialog, RemembersItsInputsShowsProgressAndSaysCancelled) {
    test::qtApp();
    QTemporaryDir home;
    ASSERT_TRUE(home.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, home.path());
    QSettings::setDefaultFormat(QSettings::NativeFormat);
    std::atomic<bool> started{false};
    auto job = [&](const core::TraceRequest& request, const core::TraceProgressFn& progress,
                   const std::atomic<bool>* cancel) -> Result<core::TraceOutcome> {
        EXPECT_EQ(request.input.begin, 0);
        EXPECT_EQ(request.input.end, 64);
        EXPECT_EQ(request.layers, (std::vector<int>{1}));
        progress({0.5, "layer 1/2", 64});
        started = true;
        while (!(cancel && *cancel))
            std::this_thread::yield();
        // What the engine says when its pyramid stage sees the flag.
        return Error{ErrorKind::Cancelled, "pyramid build cancelled", request.out.string(), {}};
    };
    RunInputs in{"/models/fox", "/texts/a.txt", home.filePath("out.h5").toStdString()};
    in.range = "0:64";
    in.layers = "1";
    in.device = "cuda:1";
    in.pyramidSide = 2048;
    {
        RunModelDialog dialog(job);
        dialog.setInputs(in);
        bool finished = false;
        QObject::connect(&dialog, &RunModelDialog::jobFinished, [&] { finished = true; });
        dialog.run();
        ASSERT_TRUE(test::spinUntil([&] { return started.load(); }, 30000));
        ASSERT_TRUE(test::spinUntil(
            [&] { return dialog.stageText().startsWith("layer 1 of 2 recorded"); }, 30000))
            << dialog.stageText().toStdString();
        dialog.cancel();
        ASSERT_TRUE(test::spinUntil([&] { return finished; }, 30000));
        EXPECT_EQ(dialog.stageText().toStdString(), "Cancelled: no trace was written");
    }
    // A new dialog (the next File > Run Model) starts from what was typed.
    RunModelDialog again(job);
    const RunInputs back = again.inputs();
    EXPECT_EQ(back.model, in.model);
    EXPECT_EQ(back.input, in.input);
    EXPECT_EQ(back.out, in.out);
    EXPECT_EQ(back.range, "0:64");
    EXPECT_EQ(back.layers, "1");
    EXPECT_EQ(back.device, "cuda:1");
    EXPECT_EQ(back.pyramidSide, 2048);
    EXPECT_TRUE(back.pyramids);
}
