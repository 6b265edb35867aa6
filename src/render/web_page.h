#pragma once

#include "engine/attention_trace.h"
#include "lesson/export_plan.h"
#include "lesson/walkthrough.h"
#include "render/colour_map.h"

#include <QByteArray>
#include <QImage>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

namespace attnviz::render {

/// What one self-contained web page (Export ▸ Web page…, `attnviz-cli export --format html`)
/// holds: the attention weights of the selected layers, blocks and heads for the head view and
/// the model view, the walkthrough of one block, and a Vision Transformer's picture.
struct WebPageContent {
    QString title; ///< "genesis · “and god said”"
    /// The weights maps (lesson::planModelExport with the weights step), one per layer, block and
    /// head, or a walkthrough's heads for a single module.
    std::vector<lesson::ExportItem> weights;
    /// The block whose steps the page walks through; null for none.
    std::shared_ptr<const lesson::Walkthrough> walkthrough;
    /// The walkthrough's steps that show one of these trace steps; empty: every step.
    std::vector<engine::AttentionStep> steps;
    /// The walkthrough's heads to show on per-head steps; empty: all.
    lesson::IndexSet heads;
    /// A Vision Transformer's picture as the model read it (null image for text), with the grid
    /// its tokens come from.
    QImage picture;
    int patchRows = 0;
    int patchColumns = 0;
    int firstPatchToken = 1;
    Colouring colouring;
    /// Bits per stored value: 16 (the default) or 8. Each map stores its values as steps of
    /// (max − min) / (2^bits − 5) from its minimum; the page states the step.
    int bits = 16;
};

/// How many values the page would store (every map's cells): checked against a limit before
/// anything is drawn.
std::uint64_t webPageValueCount(const WebPageContent& content);

/// The largest page AttnViz writes, in stored values (at 16 bits about 260 MB before packing).
inline constexpr std::uint64_t kMaxWebPageValues = std::uint64_t{1} << 27;

/// The page: one HTML file with its style, script, numbers and picture inline, and a
/// Content-Security-Policy that lets nothing else load. Texts are in QLocale's default language.
/// Throws engine::InputError with one sentence for a page over kMaxWebPageValues or with
/// nothing to show.
QByteArray renderWebPage(const WebPageContent& content);

} // namespace attnviz::render
