#pragma once

#include "lesson/walkthrough.h"

#include <QByteArray>
#include <QString>

#include <memory>

namespace attnviz::render {

/// The whole walkthrough as a printable A4 PDF: one page per lesson step with its title, the
/// formula with the live sizes, the shapes, the explanation and the step's heatmaps (batch item
/// 0). `subtitle` says what is shown ("reverse · layer 1 · cross").
QByteArray renderHandout(const std::shared_ptr<const lesson::Walkthrough>& walkthrough,
                         const QString& subtitle);

} // namespace attnviz::render
