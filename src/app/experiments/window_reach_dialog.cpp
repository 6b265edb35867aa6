#include "app/experiments/window_reach_dialog.h"

#include "app/views/heatmap_view.h"
#include "app/window/session.h"
#include "lesson/window_reach.h"
#include "ui_window_reach_dialog.h"

#include <QLocale>
#include <QSignalBlocker>

#include <algorithm>
#include <limits>

namespace attnviz::app {
namespace {

// The model's windows when it has any.
std::optional<std::vector<std::optional<std::int64_t>>> modelWindows(const lesson::ModelRun* run)
{
    if (!run || !run->model || !run->config.hasDecoder() || !run->trace)
        return std::nullopt;
    auto windows = lesson::layerWindows(run->config);
    if (std::none_of(windows.begin(), windows.end(), [](const auto& w) { return w.has_value(); }))
        return std::nullopt;
    return windows;
}

} // namespace

WindowReachDialog::WindowReachDialog(QWidget* parent)
    : ExperimentDialog(parent)
    , m_ui(std::make_unique<Ui::WindowReachDialog>())
{
    m_ui->setupUi(this);
    for (QSpinBox* box : {m_ui->query, m_ui->layers, m_ui->window, m_ui->tokens})
        connect(box, &QSpinBox::valueChanged, this, &WindowReachDialog::redraw);
    m_ui->query->setValue(m_ui->tokens->value() - 1);
    redraw();
}

WindowReachDialog::~WindowReachDialog() = default;

bool WindowReachDialog::showsModel() const
{
    return modelWindows(m_run.get()).has_value();
}

void WindowReachDialog::follow(const Session& session)
{
    const std::shared_ptr<const lesson::ModelRun> run = session.run();
    if (run == m_run)
        return;
    m_run = run;
    // A new text: its last token, the one whose reach is longest.
    const QSignalBlocker block(m_ui->query);
    m_ui->query->setMaximum(std::numeric_limits<int>::max()); // redraw() narrows it to the text
    m_ui->query->setValue(showsModel() ? static_cast<int>(m_run->trace->targetIds.size()) - 1
                                       : m_ui->tokens->value() - 1);
    redraw();
}

void WindowReachDialog::redraw()
{
    const std::optional<std::vector<std::optional<std::int64_t>>> fromModel =
        modelWindows(m_run.get());
    std::vector<std::optional<std::int64_t>> windows;
    std::vector<std::string> tokens;
    if (fromModel) {
        windows = *fromModel;
        for (const int id : m_run->trace->targetIds)
            tokens.push_back(m_run->model->tokenizer->displayToken(id));
        m_ui->source->setText(
            tr("The decoder of %1: %n layer(s), as its configuration gives their windows.", nullptr,
               static_cast<int>(windows.size()))
                .arg(QString::fromStdString(m_run->config.name)));
    } else {
        windows.assign(static_cast<std::size_t>(m_ui->layers->value()),
                       std::optional<std::int64_t>(m_ui->window->value()));
        for (int i = 0; i < m_ui->tokens->value(); ++i)
            tokens.push_back(std::to_string(i));
        m_ui->source->setText(
            m_run && m_run->model
                ? tr("The model shown has no sliding window: every layer sees every earlier "
                     "token. Below, a stack of your own.")
                : tr("A stack of your own: every layer with the same sliding window. Open "
                     "Mistral, Qwen2 or the bundled modern to see a model's."));
    }
    for (QSpinBox* box : {m_ui->layers, m_ui->window, m_ui->tokens})
        box->setEnabled(!fromModel);
    const QSignalBlocker block(m_ui->query);
    m_ui->query->setRange(0, static_cast<int>(tokens.size()) - 1);
    const lesson::WindowReach r = lesson::windowReach(windows, tokens, m_ui->query->value());
    lesson::Heatmap map = r.map;
    map.caption = tr("Token %1: 2 = read by the layer's own window, 1 = reached through the layers "
                     "below, 0 = out of reach")
                      .arg(r.query)
                      .toStdString();
    map.title = map.caption;
    map.matrix.rowAxis = tr("layer").toStdString();
    m_ui->reach->setHeatmap(map, {0.0, 2.0}, true);

    QStringList lines;
    for (std::size_t L = 0; L < r.reach.size(); ++L) {
        const QString window =
            r.windows[L] ? tr("window of %1").arg(*r.windows[L]) : tr("no window");
        lines << (r.reach[L] ? tr("after layer %1 (%2): %3 tokens back")
                                   .arg(L)
                                   .arg(window)
                                   .arg(QLocale().toString(static_cast<qlonglong>(*r.reach[L])))
                             : tr("after layer %1 (%2): every earlier token").arg(L).arg(window));
    }
    m_ui->numbers->setText(
        tr("<p>%1.</p><p>A window of W keys lets a token read the W − 1 tokens before it; what "
           "they read in the layers below comes along, so L windowed layers reach L · (W − 1) "
           "tokens back. Mistral 7B (32 layers, W = 4,096) reaches 131,040 tokens; a layer "
           "without a window, as every other layer of Gemma 2, lets every earlier token in "
           "at once.</p>")
            .arg(lines.join(QStringLiteral("; "))));
}

} // namespace attnviz::app
