#include "export/matrix_files.h"

#include <cmath>
#include <cstring>

namespace attnviz::exporting {
namespace {

QByteArray csvField(const QString& text)
{
    QByteArray utf8 = text.toUtf8();
    if (utf8.contains(',') || utf8.contains('"') || utf8.contains('\n') || utf8.contains('\r') ||
        utf8 != utf8.trimmed()) {
        utf8.replace("\"", "\"\"");
        return '"' + utf8 + '"';
    }
    return utf8;
}

QByteArray number(float v)
{
    if (std::isinf(v))
        return v < 0 ? "-inf" : "inf";
    if (std::isnan(v))
        return "nan";
    return QByteArray::number(static_cast<double>(v), 'g', 9);
}

} // namespace

QByteArray csvBytes(const app::HeatmapData& d)
{
    QByteArray out = csvField(d.rowAxis + QLatin1Char('\\') + d.columnAxis);
    for (int c = 0; c < d.cols; ++c)
        out += ',' + csvField(c < d.columnLabels.size() ? d.columnLabels[c] : QString::number(c));
    out += '\n';
    for (int r = 0; r < d.rows; ++r) {
        out += csvField(r < d.rowLabels.size() ? d.rowLabels[r] : QString::number(r));
        for (int c = 0; c < d.cols; ++c)
            out += ',' + number(d.value(r, c));
        out += '\n';
    }
    return out;
}

QByteArray npyBytes(const app::HeatmapData& d)
{
    QByteArray header = QStringLiteral("{'descr': '<f4', 'fortran_order': False, 'shape': (%1, %2), }")
                            .arg(d.rows).arg(d.cols).toLatin1();
    // Magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple of
    // 64 and ended by a newline, as the format asks.
    const int unpadded = 10 + static_cast<int>(header.size()) + 1;
    header += QByteArray((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    QByteArray out("\x93NUMPY\x01\x00", 8);
    const auto length = static_cast<quint16>(header.size());
    out += static_cast<char>(length & 0xff);
    out += static_cast<char>(length >> 8);
    out += header;
    const qsizetype start = out.size();
    out.resize(start + static_cast<qsizetype>(d.rows) * d.cols * 4);
    for (int r = 0; r < d.rows; ++r)
        for (int c = 0; c < d.cols; ++c) {
            const float v = d.value(r, c);
            std::memcpy(out.data() + start + (static_cast<qsizetype>(r) * d.cols + c) * 4, &v, 4); // x86: little-endian
        }
    return out;
}

} // namespace attnviz::exporting
