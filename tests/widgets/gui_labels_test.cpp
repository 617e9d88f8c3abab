// Labels of the real viewer under Xvfb: the colour bar's labels lie fully inside their panel, and
// on a log scale they state the range the colours show (the floor, not the data's 1e-38 minimum).
#include <algorithm>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "data/trace/trace_reader.h"
#include "support/sample_trace.h"
#include "widgets/gui_test_support.h"

using namespace gatescope;
using namespace gatescope::test;

TEST(GuiLabels, ColorBarLabelsInsideThePanelAndLogStatesTheFloorUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty());
    const auto dir = freshDir(screenshotDir() / "labels");
    const auto script = dir / "labels.script";
    std::ofstream(script) << "wait\ncolorbar\nscale log\nfit\nwait\ncolorbar\nscreenshot "
                          << (dir / "colorbar-log.png").string()
                          << "\nzoom-cells 300 290 30\nwait\ncolorbar\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(trace, script, dir, status);
    ASSERT_EQ(status, 0) << out;
    const std::regex line(R"(colorbar a labels=(\S*(?: \S+)*?) inside=(\d) right=(\d+) )"
                          R"(panel-right=(\d+))");
    int lines = 0;
    for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator();
         ++it, ++lines) {
        const std::smatch& m = *it;
        EXPECT_EQ(m[2], "1") << "a colour bar label is cut at the panel edge: " << m[0];
        EXPECT_LE(std::stoi(m[3]), std::stoi(m[4])) << m[0];
        const std::string labels = m[1];
        EXPECT_EQ(labels.find("e-38"), std::string::npos) << labels;
        if (lines > 0) {  // log scale: the bottom label is the floor the colours show
            EXPECT_NE(labels.find("<= 1e-08|log"), std::string::npos) << labels;
        }
    }
    EXPECT_EQ(lines, 3) << out;
}

TEST(GuiLabels, ACorruptChunkIsReportedInFullInTheMessagesDockUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    // h5py (Debian's python3-h5py, in scripts/setup.sh) finds the chunks to spoil.
    if (std::system("/usr/bin/python3 -c 'import h5py' > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "python3-h5py is not installed";
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty());
    const auto dir = freshDir(screenshotDir() / "corrupt-chunk");
    // A long path, as real ones are: the message must not stop at "error: /tm...".
    const auto bad = dir / "a-folder-with-a-long-name-as-real-runs-have" / "corrupt-run.h5";
    std::filesystem::create_directories(bad.parent_path());
    std::filesystem::copy_file(trace, bad);
    // Every chunk of head 0's level-2 attention pyramid (what the whole map shows) is overwritten
    // inside its deflate stream: the file opens, those tiles fail to read. Where readers pool
    // level 2 (format v4), the stored level it is pooled from is spoiled instead.
    auto reader = data::TraceReader::open(trace);
    ASSERT_TRUE(reader) << reader.error().describe();
    const data::PyramidInfo* attention = (*reader)->summary().layer(0)->pyramid("attention");
    ASSERT_NE(attention, nullptr);
    const int level = attention->poolSource(2) >= 0 ? attention->poolSource(2) : 2;
    const std::string dataset = fmt::format("/layers/000/pyramid/attention/max/{}", level);
    const std::string spoil = fmt::format(
        "/usr/bin/python3 -c \"import h5py\n"
        "f = h5py.File('{0}', 'r'); d = f['{1}']\n"
        "spans = [(c.byte_offset, c.size) for c in map(d.id.get_chunk_info, "
        "range(d.id.get_num_chunks())) if c.chunk_offset[0] == 0]\n"
        "f.close(); g = open('{0}', 'r+b')\n"
        "for o, s in spans: g.seek(o + 8); g.write(b'Z' * (s - 16))\n\"",
        bad.string(), dataset);
    ASSERT_EQ(std::system(spoil.c_str()), 0) << spoil;
    const auto png = dir / "16-corrupt-chunk-messages.png";
    const auto script = dir / "corrupt.script";
    std::ofstream(script) << "wait\nfit\nwait\nmessages\nscreenshot " << png.string()
                          << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(bad, script, dir, status);
    ASSERT_EQ(status, 0) << out;
    EXPECT_NE(out.find("script: messages lines=1 shown=1"), std::string::npos) << out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(script: message (.*))"))) << out;
    const std::string message = m[1];
    // The whole path, the dataset and the reason (the chunk's check, data/h5/chunk_verify.h): all
    // of it readable (and selectable).
    EXPECT_NE(message.find(bad.string()), std::string::npos) << message;
    EXPECT_NE(message.find(dataset), std::string::npos) << message;
    EXPECT_NE(message.find("does not inflate"), std::string::npos) << message;
}

TEST(GuiLabels, PositionNumbersAndAnAxisLegendAboveCellLevelUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty());
    const auto dir = freshDir(screenshotDir() / "axes");
    const auto script = dir / "axes.script";
    std::ofstream(script) << "wait\nfit\nwait\naxes\nscreenshot " << (dir / "19-axes.png").string()
                          << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(trace, script, dir, status);
    ASSERT_EQ(status, 0) << out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        out, m, std::regex(R"(axes keys=(\S+) queries=(\S+) inside=(\d) legend=(\d))")))
        << out;
    // The whole map: several round key positions from 0, increasing, all inside the canvas.
    std::vector<long> keys;
    std::stringstream list(m[1].str());
    for (std::string item; std::getline(list, item, '|');) {
        item.erase(std::remove(item.begin(), item.end(), ','), item.end());
        keys.push_back(std::stol(item));
    }
    ASSERT_GE(keys.size(), 3u) << m[0];
    EXPECT_EQ(keys.front(), 0);
    for (size_t i = 1; i < keys.size(); ++i)
        EXPECT_EQ(keys[i] - keys[i - 1], keys[1] - keys[0]) << m[0];
    EXPECT_FALSE(m[2].str().empty());
    EXPECT_EQ(m[3], "1") << "an axis number is cut at the canvas edge";
    EXPECT_EQ(m[4], "1") << "no legend saying which axis is the query and which the key";
}
