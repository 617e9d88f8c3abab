// `gatescope export`: every figure kind rendered by the real CLI (offscreen, no display) from the
// demo trace; the files open (PNG at the right size and DPI, SVG is XML with the token labels as
// text, PDF has one page), re-exports are byte-identical, and the PNGs match the committed
// references in tests/data/figures within a small tolerance (font rasterizers differ a little).
// Set GATESCOPE_UPDATE_FIGURES=1 to rewrite the references (then look at them).
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <QColor>
#include <QImage>
#include <QXmlStreamReader>

#include "support/sample_trace.h"
#include "support/temp_dir.h"

namespace gatescope {
namespace {

const std::filesystem::path kReferences =
    std::filesystem::path(GATESCOPE_SOURCE_DIR) / "tests" / "data" / "figures";

/// Runs `gatescope export TRACE ARGS --out OUT` with no display; returns the exit code.
int exportFigure(const std::filesystem::path& trace, const std::string& args,
                 const std::filesystem::path& out) {
    const std::string cmd = fmt::format(
        "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM '{}' export '{}' {} --out '{}' "
        ">/dev/null 2>'{}.err'",
        GATESCOPE_CLI, trace.string(), args, out.string(), out.string());
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

double meanAbsDiff(const QImage& a, const QImage& b) {
    const QImage x = a.convertToFormat(QImage::Format_RGB32);
    const QImage y = b.convertToFormat(QImage::Format_RGB32);
    double sum = 0;
    for (int r = 0; r < x.height(); ++r) {
        const auto* px = reinterpret_cast<const QRgb*>(x.constScanLine(r));
        const auto* py = reinterpret_cast<const QRgb*>(y.constScanLine(r));
        for (int c = 0; c < x.width(); ++c)
            sum += std::abs(qRed(px[c]) - qRed(py[c])) + std::abs(qGreen(px[c]) - qGreen(py[c])) +
                   std::abs(qBlue(px[c]) - qBlue(py[c]));
    }
    return sum / (3.0 * x.width() * x.height() * 255.0);
}

struct Case {
    const char* name;
    std::string args;
    int width, height;  ///< PNG pixels at 100 DPI
};

// ctest lists the case by name, not as raw bytes.
void PrintTo(const Case& c, std::ostream* os) {
    *os << c.name << ": " << c.args;
}

class ExportFigure : public ::testing::TestWithParam<Case> {};

TEST_P(ExportFigure, FilesOpenAreDeterministicAndMatchTheReference) {
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty()) << "gatescope demo failed";
    const Case& c = GetParam();
    std::string args = c.args;
    if (args.find("{trace}") != std::string::npos)
        args.replace(args.find("{trace}"), 7, "'" + trace.string() + "'");
    test::TempDir dir;
    const auto png = dir.path() / "fig.png", png2 = dir.path() / "fig2.png";
    const auto svg = dir.path() / "fig.svg", pdf = dir.path() / "fig.pdf",
               pdf2 = dir.path() / "fig2.pdf", svg2 = dir.path() / "fig2.svg";
    ASSERT_EQ(exportFigure(trace, args + " --dpi 100", png), 0)
        << test::readFile(png.string() + ".err");
    ASSERT_EQ(exportFigure(trace, args + " --dpi 100", png2), 0);
    ASSERT_EQ(exportFigure(trace, args, svg), 0) << test::readFile(svg.string() + ".err");
    ASSERT_EQ(exportFigure(trace, args, svg2), 0);
    ASSERT_EQ(exportFigure(trace, args, pdf), 0) << test::readFile(pdf.string() + ".err");
    ASSERT_EQ(exportFigure(trace, args, pdf2), 0);

    // Same figure, same bytes.
    EXPECT_EQ(test::readFile(png), test::readFile(png2));
    EXPECT_EQ(test::readFile(svg), test::readFile(svg2));
    EXPECT_EQ(test::readFile(pdf), test::readFile(pdf2));

    // PNG: decodes at the size of the figure at 100 DPI, with the DPI recorded.
    QImage image(QString::fromStdString(png.string()));
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.width(), c.width);
    EXPECT_EQ(image.height(), c.height);
    EXPECT_NEAR(image.dotsPerMeterX() * 0.0254, 100, 0.5);
    // A higher DPI scales the pixels.
    const auto png200 = dir.path() / "fig200.png";
    ASSERT_EQ(exportFigure(trace, args + " --dpi 200", png200), 0);
    QImage big(QString::fromStdString(png200.string()));
    EXPECT_EQ(big.width(), 2 * c.width);
    EXPECT_NEAR(big.dotsPerMeterX() * 0.0254, 200, 0.5);

    // SVG: well-formed XML whose text elements hold the title (and token labels for maps).
    const std::string svgText = test::readFile(svg);
    QXmlStreamReader xml(QByteArray::fromStdString(svgText));
    std::vector<std::string> texts;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QStringLiteral("text"))
            texts.push_back(xml.readElementText(QXmlStreamReader::IncludeChildElements)
                                .trimmed()
                                .toStdString());
    }
    ASSERT_FALSE(xml.hasError()) << xml.errorString().toStdString();
    auto hasText = [&](const std::string& t) {
        return std::find(texts.begin(), texts.end(), t) != texts.end();
    };
    if (std::string(c.name) == "map" || std::string(c.name) == "compare") {
        // The demo text starts "A forgetting gate decides": character tokens as labels.
        for (const char* label : {"A", "f", "o", "r", "g", "d"})
            EXPECT_TRUE(hasText(label)) << "token label " << label << " missing from the SVG";
        EXPECT_TRUE(hasText("key position"));
    }
    EXPECT_GE(texts.size(), 5u);
    EXPECT_EQ(svgText.find("Generated with Qt"), std::string::npos);  // no generator stamp

    // PDF: one page, no creation time.
    const std::string pdfText = test::readFile(pdf);
    ASSERT_EQ(pdfText.rfind("%PDF", 0), 0u);
    int pages = 0;
    for (size_t at = pdfText.find("/Type /Page"); at != std::string::npos;
         at = pdfText.find("/Type /Page", at + 1))
        if (pdfText.compare(at, 12, "/Type /Pages") != 0) ++pages;
    EXPECT_EQ(pages, 1);

    // Pixels against the committed reference.
    const auto ref = kReferences / fmt::format("{}.png", c.name);
    if (std::getenv("GATESCOPE_UPDATE_FIGURES")) {
        std::filesystem::create_directories(kReferences);
        std::filesystem::copy_file(png, ref, std::filesystem::copy_options::overwrite_existing);
    }
    QImage reference(QString::fromStdString(ref.string()));
    ASSERT_FALSE(reference.isNull()) << "missing reference " << ref;
    ASSERT_EQ(reference.size(), image.size());
    EXPECT_LT(meanAbsDiff(image, reference), 2.0 / 255.0);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, ExportFigure,
    ::testing::Values(Case{"map", "--figure map --layer 1 --head 2 --range 0:24", 800, 680},
                      Case{"map_full", "--figure map --map decay --layer 0 --head 3", 800, 680},
                      Case{"grid", "--figure grid", 742, 380},
                      Case{"retention", "--figure retention --layer 0 --head 1 --range 0:300", 900,
                           520},
                      Case{"loss", "--figure loss", 900, 420},
                      Case{"compare", "--figure compare --compare {trace} --range 0:24", 1500, 500},
                      Case{"map_product_log",
                           "--figure map --map product --scale log --layer 1 --head 2 "
                           "--range 0:48",
                           800, 680}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(ExportCommand, RejectsBadArguments) {
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty());
    test::TempDir dir;
    EXPECT_EQ(exportFigure(trace, "--figure nope", dir.path() / "a.png"), 2);
    EXPECT_EQ(exportFigure(trace, "--figure map", dir.path() / "a.bmp"), 2);
    EXPECT_EQ(exportFigure(trace, "--figure map --layer 9", dir.path() / "a.png"), 2);
    EXPECT_EQ(exportFigure(trace, "--figure map --range 5:3", dir.path() / "a.png"), 2);
    EXPECT_EQ(exportFigure(trace, "--figure compare", dir.path() / "a.png"), 2);
    EXPECT_EQ(exportFigure(trace, "--figure map --queries 5:3", dir.path() / "a.png"), 2);
    EXPECT_EQ(exportFigure(trace, "--figure map --queries 0:99999", dir.path() / "a.png"), 2);
    EXPECT_EQ(exportFigure(trace, "--figure grid --queries 0:10", dir.path() / "a.png"), 2);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "a.png"));
}

TEST(ExportCommand, LongRangesReadThePyramidWithoutGaps) {
    // 6,000 tokens: past kExactLimit, so the whole map comes from a pyramid level whose cells
    // are coarser than a figure cell would be; every plot pixel must still be coloured.
    test::TempDir dir;
    {
        std::ifstream in(std::filesystem::path(GATESCOPE_SOURCE_DIR) / "resources" / "samples" /
                         "forgetting.txt");
        const std::string text{std::istreambuf_iterator<char>(in), {}};
        std::ofstream out(dir.path() / "long.txt");
        std::string repeated;
        while (repeated.size() < 6000)
            repeated += text;
        out << repeated.substr(0, 6000);
    }
    const auto trace = dir.path() / "long.h5";
    ASSERT_TRUE(sample::traceRandomFox(core::RandomFoxSpec{}, dir.path() / "long.txt", trace));
    const auto png = dir.path() / "map.png";
    ASSERT_EQ(exportFigure(trace, "--figure map --layer 0 --head 3 --dpi 100", png), 0)
        << test::readFile(png.string() + ".err");
    QImage image(QString::fromStdString(png.string()));
    ASSERT_EQ(image.width(), 800);
    // The plot is [100, 635) x [50, 585) at 100 DPI; look inside its border, at and below the
    // diagonal (the masked future above it is blank, as on screen).
    int white = 0, blankAbove = 0, above = 0;
    for (int y = 53; y < 582; ++y)
        for (int x = 103; x < 632; ++x) {
            const bool isWhite = image.pixel(x, y) == qRgb(255, 255, 255);
            if (x - 100 < y - 50 - 4) white += isWhite;
            if (x - 100 > y - 50 + 8) {
                ++above;
                blankAbove += isWhite;
            }
        }
    EXPECT_EQ(white, 0);
    EXPECT_EQ(blankAbove, above);

    // A rectangle past the exact limit, wholly in the past: queries 5000-5999 x keys 0-4999, from
    // the pyramid. The plot has the region's shape (590 x 118 units, the page shrunk around it)
    // and every pixel inside it is coloured.
    const auto region = dir.path() / "region.png";
    ASSERT_EQ(exportFigure(trace,
                           "--figure map --layer 0 --head 3 --dpi 100 --range 0:5000 "
                           "--queries 5000:6000",
                           region),
              0)
        << test::readFile(region.string() + ".err");
    QImage rect(QString::fromStdString(region.string()));
    ASSERT_EQ(rect.width(), 800);
    ASSERT_EQ(rect.height(), 263);
    int uncoloured = 0;
    for (int y = 53; y < 50 + 118 - 3; ++y)
        for (int x = 103; x < 100 + 590 - 3; ++x)
            uncoloured += rect.pixel(x, y) == qRgb(255, 255, 255);
    EXPECT_EQ(uncoloured, 0);
}

// What the viewer shows, from the CLI: the product map, a log scale, a fixed value range; the
// colour bar says which. Bad values are usage errors that write nothing.
TEST(ExportCommand, ScaleMapAndValueRangeAreTheViewersOwn) {
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty()) << "gatescope demo failed";
    test::TempDir dir;
    const auto svg = dir.path() / "product.svg";
    ASSERT_EQ(exportFigure(trace,
                           "--figure map --map product --scale log --value-range 1e-4:1 "
                           "--layer 1 --head 2 --range 0:64",
                           svg),
              0)
        << test::readFile(svg.string() + ".err");
    const std::string text = test::readFile(svg);
    EXPECT_NE(text.find("attention x decay"), std::string::npos);
    EXPECT_NE(text.find(">log<"), std::string::npos) << "the bar's scale caption";
    EXPECT_NE(text.find("0.0001"), std::string::npos) << "the bar's bottom label";

    // Linear and log exports of the same map differ in colour, not in size.
    const auto linear = dir.path() / "linear.png", log = dir.path() / "log.png";
    const std::string map = "--figure map --layer 1 --head 2 --range 0:64 --dpi 100";
    ASSERT_EQ(exportFigure(trace, map, linear), 0);
    ASSERT_EQ(exportFigure(trace, map + " --scale log", log), 0);
    const QImage a(QString::fromStdString(linear.string())),
        b(QString::fromStdString(log.string()));
    ASSERT_EQ(a.size(), b.size());
    EXPECT_GT(meanAbsDiff(a, b), 0.01);

    for (const char* bad :
         {"--value-range 1:0", "--value-range 0:1 --scale log", "--value-range nan:1",
          "--value-range 3", "--scale cubic", "--map logit", "--scale gamma --gamma 0"}) {
        const auto out = dir.path() / "bad.png";
        EXPECT_EQ(exportFigure(trace, std::string("--figure map ") + bad, out), 2) << bad;
        EXPECT_FALSE(std::filesystem::exists(out)) << bad;
    }
}

TEST(ExportCommand, PerChannelRetentionHeatmapOfGsa) {
    const auto trace = sample::gsaTrace();
    if (trace.empty()) GTEST_SKIP() << "GSA fixture absent (../shared/fixtures)";
    test::TempDir dir;
    const auto png = dir.path() / "ret.png", svg = dir.path() / "ret.svg";
    ASSERT_EQ(exportFigure(trace, "--figure retention --layer 0 --head 0 --dpi 100", png), 0)
        << test::readFile(png.string() + ".err");
    ASSERT_EQ(exportFigure(trace, "--figure retention --layer 0 --head 0", svg), 0);
    QImage image(QString::fromStdString(png.string()));
    ASSERT_EQ(image.width(), 900);
    EXPECT_NE(test::readFile(svg).find("retention per channel"), std::string::npos);
    // The heatmap fills the plot ([90, 700) x [50, 450) at 100 DPI): no white inside.
    int white = 0;
    for (int y = 53; y < 447; ++y)
        for (int x = 93; x < 697; ++x)
            if (image.pixel(x, y) == qRgb(255, 255, 255)) ++white;
    EXPECT_EQ(white, 0);
}

}  // namespace
}  // namespace gatescope
