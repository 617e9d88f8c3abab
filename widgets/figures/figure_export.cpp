// Writing figures: PNG (QImage at a DPI), SVG (QSvgGenerator), PDF (QPdfWriter), with fixed
// metadata so the bytes depend only on the figure.
#include <algorithm>
#include <cmath>
#include <regex>

#include <QBuffer>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include "data/common/atomic_file.h"
#include "widgets/figures/figure.h"
#include "widgets/figures/figure_parts.h"

namespace gatescope::widgets {

const char* toString(FigureFormat format) {
    switch (format) {
        case FigureFormat::Png:
            return "png";
        case FigureFormat::Svg:
            return "svg";
        case FigureFormat::Pdf:
            return "pdf";
    }
    return "png";
}

std::optional<FigureFormat> formatFromPath(const std::filesystem::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext == ".png") return FigureFormat::Png;
    if (ext == ".svg") return FigureFormat::Svg;
    if (ext == ".pdf") return FigureFormat::Pdf;
    return std::nullopt;
}

namespace {

constexpr double kUnitsPerInch = 100;

void paintOn(QPainter& p, const Figure& figure, double scale) {
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    // Not the application's default font (it differs between the viewer and the CLI): SVG
    // writes the painter's font into every group.
    p.setFont(figures::figureFont(12));
    p.scale(scale, scale);
    p.fillRect(QRectF(QPointF(0, 0), figure.size()), Qt::white);
    p.setPen(Qt::black);
    figure.paint(p);
}

/// Replaces every match of `pattern`'s first group with `fill` characters of the same length,
/// so PDF cross-reference offsets stay valid.
void blankGroups(std::string& bytes, const std::regex& pattern, char fill) {
    std::string out;
    auto it = std::sregex_iterator(bytes.begin(), bytes.end(), pattern);
    for (; it != std::sregex_iterator(); ++it) {
        const auto& m = *it;
        const auto pos = static_cast<size_t>(m.position(1));
        const auto len = static_cast<size_t>(m.length(1));
        std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(pos),
                  bytes.begin() + static_cast<std::ptrdiff_t>(pos + len), fill);
    }
}

}  // namespace

Result<std::string> renderFigure(const Figure& figure, FigureFormat format, int dpi) {
    if (dpi < 10 || dpi > 2400)
        return Error{ErrorKind::Usage, "DPI must be within 10-2400", {}, {}};
    const QSizeF size = figure.size();
    const QString title = QString::fromStdString(figure.title());
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    switch (format) {
        case FigureFormat::Png: {
            const double scale = dpi / kUnitsPerInch;
            QImage img(static_cast<int>(std::lround(size.width() * scale)),
                       static_cast<int>(std::lround(size.height() * scale)), QImage::Format_RGB32);
            img.fill(Qt::white);
            const int dpm = static_cast<int>(std::lround(dpi / 0.0254));
            img.setDotsPerMeterX(dpm);
            img.setDotsPerMeterY(dpm);
            {
                QPainter p(&img);
                paintOn(p, figure, scale);
            }
            if (!img.save(&buffer, "PNG"))
                return Error{ErrorKind::Internal, "PNG encoding failed", {}, {}};
            break;
        }
        case FigureFormat::Svg: {
            QSvgGenerator gen;
            gen.setOutputDevice(&buffer);
            const QSize s(static_cast<int>(std::lround(size.width())),
                          static_cast<int>(std::lround(size.height())));
            gen.setSize(s);
            gen.setViewBox(QRect(QPoint(0, 0), s));
            gen.setResolution(static_cast<int>(kUnitsPerInch));
            gen.setTitle(title);
            gen.setDescription(QStringLiteral("gatescope figure"));
            QPainter p(&gen);
            paintOn(p, figure, 1.0);
            break;
        }
        case FigureFormat::Pdf: {
            QPdfWriter pdf(&buffer);
            pdf.setCreator(QStringLiteral("gatescope"));
            pdf.setTitle(title);
            pdf.setResolution(1200);
            pdf.setPageSize(
                QPageSize(QSizeF(size.width() / kUnitsPerInch, size.height() / kUnitsPerInch),
                          QPageSize::Inch, QString(), QPageSize::ExactMatch));
            pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
            QPainter p(&pdf);
            paintOn(p, figure, pdf.resolution() / kUnitsPerInch);
            break;
        }
    }
    buffer.close();
    std::string out(bytes.constData(), static_cast<size_t>(bytes.size()));
    if (format == FigureFormat::Pdf) {
        // Qt stamps the creation time and a random document id; blank them in place (same
        // length) so the file depends on the figure alone.
        blankGroups(out, std::regex(R"(/CreationDate \(D:([0-9+\-Z']+)\))"), '0');
        blankGroups(out, std::regex(R"(<xmp:CreateDate>([^<]*)</xmp:CreateDate>)"), '0');
        blankGroups(out, std::regex(R"(<xmp:ModifyDate>([^<]*)</xmp:ModifyDate>)"), '0');
        blankGroups(out, std::regex(R"(<xmp:MetadataDate>([^<]*)</xmp:MetadataDate>)"), '0');
        blankGroups(out, std::regex(R"(uuid:([0-9a-fA-F\-]+))"), '0');
        blankGroups(out, std::regex(R"(/ID \[<([0-9a-fA-F]+)>)"), '0');
        blankGroups(out, std::regex(R"(/ID \[<[0-9a-fA-F]+> <([0-9a-fA-F]+)>)"), '0');
    }
    return out;
}

Status writeFigure(const Figure& figure, const std::filesystem::path& path, FigureFormat format,
                   int dpi) {
    auto bytes = renderFigure(figure, format, dpi);
    if (!bytes) return bytes.error();
    return data::writeFileAtomically(path, *bytes);
}

}  // namespace gatescope::widgets
