#pragma once

#include "io/image/decoded_image.h"
#include "lesson/picture_attention.h"
#include "render/colour_map.h"
#include "render/image_export.h"

#include <QImage>
#include <QPainter>
#include <QRectF>
#include <QString>

#include <utility>

namespace attnviz::render {

/// A row of a Vision Transformer's attention drawn over its picture: the picture as the model
/// reads it, each patch tinted by its weight with the map and opacity of the user's choosing,
/// the patch grid, the query's own patch outlined, a colour bar, and the share left on the
/// first tokens (which have no place on the picture) under it.
struct PictureOverlay {
    QImage picture; ///< the model's input size, RGB
    lesson::PictureAttention attention;
    const ColourMap* colourMap = &colourMaps().front();
    double opacity = 0.6; ///< of the tint, 0 (the picture alone) to 1 (the weights alone)
    int queryPatch = -1; ///< row-major patch of the query, outlined; −1 for CLS or [DIST]
    QString title;
    QString firstTokensNote; ///< "12.5 % of the row is on [CLS]" (translated by the caller)
    /// Without weights: the picture cut into its patches, each with its token's number (the
    /// patch step), no tint and no colour bar.
    bool weights = true;
    int firstPatchToken = 1; ///< the token number of patch (0, 0): after [CLS] (and [DIST])

    /// The colour range: 0 to the largest patch weight (so a row that spends most of its weight
    /// on CLS still shows where the rest goes).
    std::pair<double, double> range() const;
};

/// A decoded picture as a Qt image, pixel for pixel.
QImage pictureImage(const io::DecodedImage& picture);

/// Where the picture lands in `area` (square pixels, as large as fits beside the colour bar).
QRectF pictureRect(const PictureOverlay& overlay, QRectF area, const QFont& font);

/// Paints the overlay into `area`: title band, picture, bar, note.
void paintPictureOverlay(QPainter& painter, QRectF area, const PictureOverlay& overlay,
                         const QFont& font, bool vector);

/// The overlay as an image file at the figure's size (PNG, SVG or PDF; its font, its colour
/// map when the figure names one), for slides and papers.
QByteArray renderPictureOverlay(const PictureOverlay& overlay, ImageFormat format,
                                const FigureOptions& figure);

} // namespace attnviz::render
