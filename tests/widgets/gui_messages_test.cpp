// Plain messages in the real viewer under Xvfb: a Transformer trace (no forget gates) is said to
// have none in the Retention dock, the Gate Events dock and in compare mode's Compare dock, with
// no dataset path;
// Go to Position past the end states the trace's positions.
#include <fstream>

#include <gtest/gtest.h>

#include "support/sample_trace.h"
#include "widgets/gui_test_support.h"

using namespace gatescope;
using namespace gatescope::test;

namespace {

/// The bundled sample model `name` traced by the CLI on the first 200 tokens of the sample text.
std::filesystem::path traceBundled(const std::string& name, const std::filesystem::path& dir) {
    const auto out = dir / (name + ".h5");
    const std::string cmd = fmt::format(
        "'{}' trace --model '{}/resources/models/{}' --input '{}' --range 0:200 --out '{}' "
        "> '{}.log' 2>&1",
        GATESCOPE_CLI, GATESCOPE_SOURCE_DIR, name, sample::sampleText().string(), out.string(),
        out.string());
    return std::system(cmd.c_str()) == 0 ? out : std::filesystem::path();
}

}  // namespace

TEST(GuiMessages, ATransformerHasNoForgetGatesAndGoToStatesTheRangeUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto dir = freshDir(screenshotDir() / "messages");
    const auto transformer = traceBundled("transformer", dir), fox = traceBundled("fox", dir);
    ASSERT_FALSE(transformer.empty() || fox.empty()) << "could not trace the sample models";
    const auto png = dir / "17-no-forget-gates.png";
    const auto script = dir / "messages.script";
    // A is the Transformer; compare mode with FoX as B.
    std::ofstream(script) << "wait\ngate-messages\ngate-events\ngoto 99999\ngoto 50%\ncompare "
                          << fox.string() << "\ngate-messages\nscreenshot " << png.string()
                          << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(transformer, script, dir, status);
    ASSERT_EQ(status, 0) << out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(gate-message retention: (.*))"))) << out;
    const std::string retention = m[1];
    EXPECT_NE(retention.find("this model has no forget gates"), std::string::npos) << retention;
    EXPECT_EQ(retention.find("/layers/"), std::string::npos) << "an internal path: " << retention;
    ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(gate-message compare: (.*))"))) << out;
    const std::string compare = m[1];
    EXPECT_NE(compare.find("trace A: this model has no forget gates"), std::string::npos)
        << compare;
    EXPECT_EQ(compare.find("/layers/"), std::string::npos) << compare;
    // The Gate Events dock says why it has no table.
    EXPECT_NE(out.find("gate-events message=This trace stores no forget gates"), std::string::npos)
        << out;
    // Go to Position: past the end says which positions there are; 50% moves the cursor.
    EXPECT_TRUE(std::regex_search(
        out, std::regex(R"(goto 99999 cursor=-1 masked=\S+ hint=Not a position: 99999\. This )"
                        R"(trace has positions 0 to 199 )")))
        << out;
    EXPECT_TRUE(std::regex_search(out, std::regex(R"(goto 50% cursor=100 masked=\S+ hint=\n)")))
        << out;
}
