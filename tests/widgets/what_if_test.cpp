// What if... (display-free): each change becomes `--intervene` text that core::parseIntervention
// reads back as that change on that layer and head; the trace job takes the manifest's
// checkpoint and the trace's source bytes and repeats its dtype, device, documents and recording;
// a trace that cannot say what to run says so plainly.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include "widgets/view/what_if.h"

using namespace gatescope;
using namespace gatescope::widgets;

TEST(WhatIf, EveryChangeParsesAsTheCliReadsIt) {
    WhatIfChoice c;
    c.layer = 1;
    c.head = 2;
    const struct {
        WhatIfChange change;
        core::InterventionKind kind;
        const char* text;
    } cases[] = {
        {WhatIfChange::ForgettingOff, core::InterventionKind::GateOne, "gate=1@layers=1;heads=2"},
        {WhatIfChange::Constant, core::InterventionKind::GateConstant, "gate=0.5@layers=1;heads=2"},
        {WhatIfChange::ScaleLog, core::InterventionKind::LogGateScale,
         "log_gate*0.5@layers=1;heads=2"},
        {WhatIfChange::Clamp, core::InterventionKind::GateClamp,
         "gate=clamp(0.25,0.75)@layers=1;heads=2"},
        {WhatIfChange::Ablate, core::InterventionKind::Ablate, "ablate@layers=1;heads=2"},
    };
    c.low = 0.25;
    c.high = 0.75;
    for (const auto& t : cases) {
        c.change = t.change;
        EXPECT_EQ(interventionText(c), t.text);
        auto parsed = core::parseIntervention(interventionText(c));
        ASSERT_TRUE(parsed.ok()) << parsed.error().describe();
        EXPECT_EQ(parsed->kind, t.kind);
        EXPECT_EQ(parsed->layers, std::vector<int>{1});
        EXPECT_EQ(parsed->heads, std::vector<int>{2});
    }
    c.change = WhatIfChange::ScaleLog;
    c.channel = 3;
    EXPECT_EQ(interventionText(c), "log_gate*0.5@layers=1;heads=2;channels=3");
    c.change = WhatIfChange::Constant;
    c.value = 1.5;  // not a gate: the CLI's parser refuses it, and so does What if...
    EXPECT_FALSE(whatIfRequest({}, c, "in.txt", "out.h5").ok());
}

TEST(WhatIf, TheJobRunsTheManifestsCheckpointOnTheTracedBytes) {
    const auto dir = std::filesystem::temp_directory_path() / fmt::format("whatif-{}", getpid());
    std::filesystem::create_directories(dir / "model");
    WhatIfSource source;
    source.manifest = {{"checkpoint", {{"path", (dir / "model").string()}}},
                       {"input", {{"kind", "text"}}}};
    source.sourceBytes = "The cat sat.\n";
    WhatIfChoice c;
    c.layer = 0;
    c.head = 1;
    auto request = whatIfRequest(source, c, dir / "in.txt", dir / "out.h5");
    ASSERT_TRUE(request.ok()) << request.error().describe();
    EXPECT_EQ(request->modelDir, dir / "model");
    EXPECT_EQ(request->out, dir / "out.h5");
    EXPECT_EQ(request->input.kind, core::InputKind::Text);
    ASSERT_EQ(request->interventions.size(), 1u);
    EXPECT_EQ(request->interventions[0].kind, core::InterventionKind::GateOne);
    std::stringstream written;
    written << std::ifstream(dir / "in.txt", std::ios::binary).rdbuf();
    EXPECT_EQ(written.str(), source.sourceBytes);

    // A trace without run settings (an older manifest) runs with the defaults on the CPU.
    EXPECT_EQ(request->dtype, core::ComputeDType::Float32);
    EXPECT_EQ(request->device, "cpu");
    EXPECT_TRUE(request->storePyramids);

    // What cannot be run again is said plainly.
    WhatIfSource none = source;
    none.manifest["checkpoint"] = nlohmann::json::object();
    auto e = whatIfRequest(none, c, dir / "in.txt", dir / "out.h5");
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().message.find("does not record which checkpoint"), std::string::npos);
    WhatIfSource gone = source;
    gone.manifest["checkpoint"]["path"] = (dir / "deleted").string();
    e = whatIfRequest(gone, c, dir / "in.txt", dir / "out.h5");
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().message.find("is not there any more"), std::string::npos);
    WhatIfSource ids = source;
    ids.manifest["input"]["kind"] = "ids";
    e = whatIfRequest(ids, c, dir / "in.txt", dir / "out.h5");
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.error().kind, ErrorKind::Unsupported);
    std::filesystem::remove_all(dir);
}

TEST(WhatIf, TheJobRepeatsHowTheTraceWasMade) {
    const auto dir = std::filesystem::temp_directory_path() / fmt::format("whatif-s-{}", getpid());
    std::filesystem::create_directories(dir / "model");
    WhatIfSource source;
    source.manifest = nlohmann::json::parse(R"({
        "input": {"kind": "text"}, "device": "cuda:0: NVIDIA H100 80GB HBM3",
        "dtypes": {"weights": "float32", "compute": "bfloat16", "factors": "bfloat16"},
        "input_file": {"documents": "at:5,9"},
        "recording": {"layers": [0, 2], "pyramid_heads": [1], "factors": true, "values": true,
                      "pyramids": false, "pyramid_finest_side": 256}})");
    source.manifest["checkpoint"]["path"] = (dir / "model").string();
    source.sourceBytes = "The cat sat on the mat.\n";
    WhatIfChoice c;
    auto request = whatIfRequest(source, c, dir / "in.txt", dir / "out.h5");
    ASSERT_TRUE(request.ok()) << request.error().describe();
    EXPECT_EQ(request->dtype, core::ComputeDType::BFloat16);
    EXPECT_EQ(request->device, "cuda");
    EXPECT_EQ(request->documents.text, "at:5,9");
    EXPECT_EQ(request->layers, (std::vector<int>{0, 2}));
    EXPECT_EQ(request->pyramidHeads, std::vector<int>{1});
    EXPECT_TRUE(request->storeValues);
    EXPECT_FALSE(request->storePyramids);
    EXPECT_EQ(request->pyramidFinestSide, 256);
    c.device = "cpu";  // the user's choice wins over the trace's device
    request = whatIfRequest(source, c, dir / "in.txt", dir / "out.h5");
    ASSERT_TRUE(request.ok());
    EXPECT_EQ(request->device, "cpu");
    EXPECT_EQ(whatIfDevice({{"device", "cpu (16 threads)"}}), "cpu");
    EXPECT_EQ(whatIfDevice({{"device", 3}}), "cpu");
    // A documents text the parser refuses is an error, not a run on other documents.
    // It is refused before the input file is written.
    source.manifest["input_file"]["documents"] = "at:x";
    EXPECT_FALSE(whatIfRequest(source, c, dir / "refused.txt", dir / "out.h5").ok());
    EXPECT_FALSE(std::filesystem::exists(dir / "refused.txt"));
    // Keys of the wrong JSON type (a hand-edited manifest) are absent keys, not an exception.
    source.manifest["input_file"]["documents"] = 7;
    source.manifest["input"]["kind"] = 3;
    source.manifest["dtypes"]["compute"] = true;
    request = whatIfRequest(source, c, dir / "in.txt", dir / "out.h5");
    ASSERT_TRUE(request.ok()) << request.error().describe();
    EXPECT_EQ(request->dtype, core::ComputeDType::Float32);
    std::filesystem::remove_all(dir);
}
