#pragma once

#include "app/playground.h"

#include <QByteArray>
#include <QString>

#include <memory>

namespace attnviz::exporting {

/// The whole walkthrough as a printable A4 PDF: one page per step with its title, the formula
/// with the live sizes, the shapes, the explanation and the step's heatmaps (batch item 0).
/// `subtitle` says what is shown ("reverse · layer 1 · cross").
QByteArray renderHandout(const std::shared_ptr<const app::Walkthrough>& walkthrough, const QString& subtitle);

} // namespace attnviz::exporting
