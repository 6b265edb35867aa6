#pragma once

#include "lesson/heatmap.h"
#include "render/heatmap_layout.h"
#include "render/heatmap_style.h"

#include <QImage>
#include <QPainter>

#include <utility>

namespace attnviz::render {

/// A heatmap's cells as an image, one pixel per cell, blocked cells grey: the costly part of
/// drawing a large matrix, which an on-screen view keeps between repaints. With `limit`, a
/// matrix larger than it is averaged over blocks of cells first (blocked cells left out; a block
/// with nothing else stays grey), so a 1024 × 1024 map shown in 200 × 200 pixels is a picture of
/// that size holding the mean of every block, not a megapixel sampled at every repaint.
QImage cellImage(const lesson::Heatmap& heatmap, std::pair<double, double> range, QSize limit = {},
                 const Colouring& colouring = {});

/// A colour bar alone, in a strip `area` (a grid's shared bar, beside its panels): the bar and
/// its ticks in the style's tick font.
void paintColourBar(QPainter& painter, QRectF area, lesson::ColourScale scale,
                    std::pair<double, double> range, const HeatmapStyle& style);
/// The width such a strip needs for a range's ticks.
double colourBarWidth(std::pair<double, double> range, const HeatmapStyle& style,
                      lesson::ColourScale scale);

/// Paints one heatmap where `layout` puts it: white card, title in the head's colour, head bands,
/// cells (rows are queries top to bottom, columns keys left to right), a frame in the head's
/// colour, tick labels, axis titles and the colour bar. The app's views and every export draw
/// through this one function, so the same view gives the same picture everywhere.
void paintHeatmap(QPainter& painter, const HeatmapLayout& layout, const lesson::Heatmap& heatmap,
                  std::pair<double, double> range, const HeatmapStyle& style,
                  const QImage* cells = nullptr);

} // namespace attnviz::render
