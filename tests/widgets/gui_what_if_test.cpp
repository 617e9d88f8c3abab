// Right-click > What if... in the real viewer under Xvfb: a random FoX checkpoint traced by the
// CLI, opened, `what-if gate=1` on layer 0 head 1: the trace job runs the manifest's checkpoint
// on the trace's text with forgetting switched off there and the viewer lands in compare mode
// (A the trace, B the intervened one, same tokens). B's stored gates of that head are 1 (log 0)
// while another head's equal A's, its manifest records the intervention, and the loss moved.
// A trace whose checkpoint is gone says so in the dialog.
#include <cmath>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "core/sample/random_fox_checkpoint.h"
#include "support/sample_trace.h"
#include "widgets/gui_test_support.h"
#include "widgets/view/trace_document.h"

using namespace gatescope;
using namespace gatescope::test;

TEST(GuiWhatIf, ForgettingOffInOneHeadLandsInCompareModeUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto dir = freshDir(screenshotDir() / "what-if");
    const auto model = dir / "model", text = dir / "in.txt", a = dir / "a.h5";
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(model, core::RandomFoxSpec{}));
    {
        std::ifstream in(sample::sampleText(), std::ios::binary);
        std::string bytes(200, '\0');
        in.read(bytes.data(), 200);
        std::ofstream(text, std::ios::binary) << bytes;
    }
    const std::string trace = fmt::format("'{}' trace --model '{}' --input '{}' --out '{}' 2>&1",
                                          GATESCOPE_CLI, model.string(), text.string(), a.string());
    ASSERT_EQ(std::system(trace.c_str()), 0);
    const auto png = dir / "21-what-if-compare.png";
    const auto script = dir / "what-if.script";
    // First the Overview's way in: right-click layer 1 head 0 > What if... opens the dialog for
    // that head; then the Retention dock's: on layer 0, right-click head 1's track.
    std::ofstream(script) << "wait\noverview-what-if 1 0\nlayer 0\nretention-what-if 1\n"
                             "what-if gate=1\n"
                             "screenshot "
                          << png.string() << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(a, script, dir, status);
    ASSERT_EQ(status, 0) << out;
    ASSERT_NE(out.find("script: what-if gate=1 ok=1"), std::string::npos) << out;
    EXPECT_NE(out.find("overview-what-if layer=1 head=0 dialog=What if... (layer 1, head 0)"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("retention-what-if row=1 dialog=What if... (layer 0, head 1) channel=all"),
              std::string::npos)
        << out;
    const auto cmp = scriptNumbers(out, "compare", {"identical", "tokens-a", "tokens-b"});
    ASSERT_EQ(cmp.size(), 3u) << out;
    EXPECT_EQ(cmp[0], 1);
    EXPECT_EQ(cmp[1], 200);
    EXPECT_EQ(cmp[2], 200);
    EXPECT_NE(scriptNumbers(out, "compare", {"mean-delta"}).at(0), 0) << "the loss did not move";

    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(compare mode with (\S+\.h5))"))) << out;
    auto docA = widgets::TraceDocument::open(a);
    auto docB = widgets::TraceDocument::open(m[1].str());
    ASSERT_TRUE(docA.ok() && docB.ok());
    const auto& ra = *(*docA)->reader;
    const auto& rb = *(*docB)->reader;
    auto off = rb.gatesForHead(0, 1, 0, 200);
    auto keptB = rb.gatesForHead(0, 0, 0, 200), keptA = ra.gatesForHead(0, 0, 0, 200);
    ASSERT_TRUE(off.ok() && keptA.ok() && keptB.ok());
    for (float l : off->values)
        ASSERT_EQ(l, 0.f) << "head 1's log gate is not 0 with forgetting off";
    double moved = 0;
    for (size_t i = 0; i < keptA->values.size(); ++i)
        moved = std::max(moved, std::abs(double(keptA->values[i]) - keptB->values[i]));
    EXPECT_LT(moved, 1e-6) << "head 0 of layer 0 changed too";
    const auto manifest = rb.manifest();
    ASSERT_TRUE(manifest.ok());
    EXPECT_NE(manifest->dump().find("gate=1@layers=0;heads=1"), std::string::npos)
        << manifest->dump();

    // A trace whose checkpoint is gone (the sample's model was removed after tracing).
    std::ofstream(script) << "wait\nwhat-if ablate\nquit 0\n";
    const std::string gone = runViewerScript(sample::sampleTrace(), script, dir, status);
    ASSERT_EQ(status, 0) << gone;
    EXPECT_NE(gone.find("script: what-if ablate ok=0 status=The checkpoint this trace was made "
                        "from"),
              std::string::npos)
        << gone;
}

// Per-channel gates: the bundled Wall model (one gate per head dimension), What if... on one
// channel of layer 0 head 1 with forgetting off there: B's gates of that channel are 1 (log 0),
// the head's other channels are A's, and the manifest records the channel.
TEST(GuiWhatIf, OneGateChannelOfAPerChannelHeadUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto dir = freshDir(screenshotDir() / "what-if-channel");
    const auto text = dir / "in.txt", a = dir / "wall.h5";
    {
        std::ifstream in(sample::sampleText(), std::ios::binary);
        std::string bytes(120, '\0');
        in.read(bytes.data(), 120);
        std::ofstream(text, std::ios::binary) << bytes;
    }
    const std::string trace =
        fmt::format("'{}' trace --model '{}/resources/models/wall' --input '{}' --out '{}' 2>&1",
                    GATESCOPE_CLI, GATESCOPE_SOURCE_DIR, text.string(), a.string());
    ASSERT_EQ(std::system(trace.c_str()), 0);
    const auto script = dir / "what-if.script";
    // Through the Retention dock: right-click channel 3's row of head 1's heatmap.
    std::ofstream(script) << "wait\nhead 1\nretention-what-if 3\nwhat-if gate=1\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(a, script, dir, status);
    ASSERT_EQ(status, 0) << out;
    EXPECT_NE(out.find("script: retention-what-if row=3 dialog=What if... (layer 0, head 1) "
                       "channel=3"),
              std::string::npos)
        << out;
    ASSERT_NE(out.find("script: what-if gate=1 ok=1"), std::string::npos) << out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(compare mode with (\S+\.h5))"))) << out;
    auto docA = widgets::TraceDocument::open(a);
    auto docB = widgets::TraceDocument::open(m[1].str());
    ASSERT_TRUE(docA.ok() && docB.ok());
    const int64_t n = (*docA)->n();
    auto gatesA = (*docA)->reader->gatesForHead(0, 1, 0, n);
    auto gatesB = (*docB)->reader->gatesForHead(0, 1, 0, n);
    ASSERT_TRUE(gatesA.ok() && gatesB.ok());
    const int64_t channels = static_cast<int64_t>(gatesA->values.size()) / n;
    ASSERT_GT(channels, 3);
    bool otherChannelsDiffer = false, channelWasForgetting = false;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t c = 0; c < channels; ++c) {
            const size_t at = static_cast<size_t>(i * channels + c);
            if (c == 3) {
                ASSERT_EQ(gatesB->values[at], 0.f) << "channel 3's log gate at " << i;
                channelWasForgetting = channelWasForgetting || gatesA->values[at] < -1e-6f;
            } else if (std::abs(gatesA->values[at] - gatesB->values[at]) > 1e-6f) {
                otherChannelsDiffer = true;
            }
        }
    EXPECT_TRUE(channelWasForgetting) << "A's channel 3 never forgot: the test shows nothing";
    EXPECT_FALSE(otherChannelsDiffer) << "another channel of head 1 changed";
    const auto manifest = (*docB)->reader->manifest();
    ASSERT_TRUE(manifest.ok());
    EXPECT_NE(manifest->dump().find("gate=1@layers=0;heads=1;channels=3"), std::string::npos)
        << manifest->dump();
}
