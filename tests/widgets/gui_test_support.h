// Helpers of the GUI tests that drive the real viewer under Xvfb (gui_*_test.cpp): run
// `gatescope open ... --script` in a folder of its own (which is also its settings home), with or
// without a window manager, and read screenshots and the script's output lines.
#pragma once

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <QImage>

namespace gatescope::test {

inline std::string runCapture(const std::string& cmd, int& status) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return out;
    std::array<char, 4096> buf;
    while (size_t got = fread(buf.data(), 1, buf.size(), p))
        out.append(buf.data(), got);
    status = pclose(p);
    return out;
}

/// Runs `gatescope open TRACES... --script SCRIPT` under xvfb-run in `dir`, with `dir` as the
/// settings home (so the test never touches the user's recent files); stdout and stderr together.
/// With `windowManager` (e.g. "openbox"), that window manager runs on the Xvfb display first,
/// as on a desktop (it places and decorates the window).
inline std::string runViewerScript(const std::vector<std::filesystem::path>& traces,
                                   const std::filesystem::path& script,
                                   const std::filesystem::path& dir, int& status,
                                   const std::string& windowManager = {}) {
    std::string args;
    for (const auto& trace : traces)
        args += " '" + trace.string() + "'";
    const std::string viewer =
        fmt::format("'{}' open{} --script '{}'", GATESCOPE_CLI, args, script.string());
    const std::string run =
        windowManager.empty()
            ? viewer
            : fmt::format("sh -c \"{} > /dev/null 2>&1 & sleep 1; {}\"", windowManager, viewer);
    const std::string cmd = fmt::format(
        "cd '{0}' && HOME='{0}' XDG_CONFIG_HOME='{0}' timeout 300 xvfb-run -a -n {2} -s '-screen 0 "
        "1600x1000x24' {1} 2>&1",
        dir.string(), run, 100 + getpid() % 800);
    return runCapture(cmd, status);
}

inline std::string runViewerScript(const std::filesystem::path& trace,
                                   const std::filesystem::path& script,
                                   const std::filesystem::path& dir, int& status) {
    return runViewerScript(std::vector<std::filesystem::path>{trace}, script, dir, status);
}

/// Distinct colours in the image's rectangle: a blank or failed render has very few.
inline size_t distinctColours(const QImage& img, QRect rect) {
    std::set<QRgb> colours;
    rect = rect.intersected(img.rect());
    for (int y = rect.top(); y <= rect.bottom(); y += 2)
        for (int x = rect.left(); x <= rect.right(); x += 2)
            colours.insert(img.pixel(x, y));
    return colours.size();
}

/// Mean absolute RGB difference inside `rect` of two images of the same size (255 when the
/// sizes differ), sampling every `step`th pixel.
inline double meanAbsDiffIn(const QImage& a, const QImage& b, QRect rect, int step = 2) {
    if (a.size() != b.size()) return 255;
    rect = rect.intersected(a.rect());
    double sum = 0;
    int count = 0;
    for (int y = rect.top(); y <= rect.bottom(); y += step)
        for (int x = rect.left(); x <= rect.right(); x += step, ++count) {
            const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
            sum += std::abs(qRed(p) - qRed(q)) + std::abs(qGreen(p) - qGreen(q)) +
                   std::abs(qBlue(p) - qBlue(q));
        }
    return count ? sum / (3.0 * count) : 0;
}

inline double meanAbsDiff(const QImage& a, const QImage& b) {
    return meanAbsDiffIn(a, b, a.rect(), 3);
}

inline std::filesystem::path screenshotDir() {
    const auto shots = std::filesystem::path(GATESCOPE_BINARY_DIR) / "tests" / "gui-screenshots";
    std::filesystem::create_directories(shots);
    return shots;
}

/// `dir`, emptied (a test's own working folder under the screenshots).
inline std::filesystem::path freshDir(const std::filesystem::path& dir) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

inline QImage loadPng(const std::filesystem::path& path) {
    return QImage(QString::fromStdString(path.string()));
}

/// The integers after `key=` on the output line that starts with "script: PREFIX".
inline std::vector<double> scriptNumbers(const std::string& out, const std::string& prefix,
                                         const std::vector<std::string>& keys) {
    std::vector<double> values;
    const auto line = out.find("script: " + prefix);
    if (line == std::string::npos) return values;
    const std::string text = out.substr(line, out.find('\n', line) - line);
    for (const std::string& key : keys) {
        std::smatch m;
        if (!std::regex_search(text, m, std::regex(" " + key + R"(=(-?[0-9.]+(?:e[-+]?[0-9]+)?))")))
            return {};
        values.push_back(std::stod(m[1]));
    }
    return values;
}

}  // namespace gatescope::test

#define SKIP_WITHOUT_XVFB()                                       \
    if (std::system("command -v xvfb-run > /dev/null 2>&1") != 0) \
    GTEST_SKIP() << "xvfb-run is not installed"
