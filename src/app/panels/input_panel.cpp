#include "app/panels/input_panel.h"

#include "lesson/field_limits.h"
#include "render/display_words.h"
#include "ui_input_panel.h"

#include <QRandomGenerator>

namespace attnviz::app {
namespace {

std::vector<std::string> lines(const QString& text)
{
    std::vector<std::string> out;
    for (const QString& line : text.split(QLatin1Char('\n')))
        if (!line.trimmed().isEmpty())
            out.push_back(line.trimmed().toStdString());
    return out;
}

QString joined(const std::vector<std::string>& sentences)
{
    QStringList out;
    for (const std::string& s : sentences)
        out << QString::fromStdString(s);
    return out.join(QLatin1Char('\n'));
}

} // namespace

InputPanel::InputPanel(QWidget* parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::InputPanel>())
{
    m_ui->setupUi(this);
    // The bounds a lesson file is read against, so that a lesson is never cut to fit a field.
    for (QSpinBox* size :
         {m_ui->modelWidth, m_ui->queryKeySize, m_ui->valueSize, m_ui->outputWidth})
        size->setMaximum(lesson::kMaxSizeField);
    m_ui->heads->setMaximum(lesson::kMaxHeadsField);
    m_ui->keyValueHeads->setMaximum(lesson::kMaxHeadsField);
    m_ui->slidingWindow->setMaximum(lesson::kMaxWindowField);
    m_ui->onlineSoftmaxTile->setMaximum(lesson::kMaxWindowField);
    m_ui->seed->setMaximum(lesson::kMaxSeed);
    m_ui->ropeTheta->setRange(lesson::kMinRopeTheta, lesson::kMaxRopeTheta);
    m_ui->rotaryDim->setMaximum(lesson::kMaxSizeField);
    m_ui->scoreScale->setRange(0, lesson::kMaxScoreScale);
    m_ui->softCap->setRange(0, lesson::kMaxSoftCap);
    m_ui->validLengths->setMaxLength(lesson::kMaxValidLengthsLength);
    const auto changed = [this] {
        if (!m_loading)
            emit settingsChanged();
    };
    connect(m_ui->querySentences, &QPlainTextEdit::textChanged, this, changed);
    connect(m_ui->keyValueSentences, &QPlainTextEdit::textChanged, this, changed);
    connect(m_ui->tokenizer, &QComboBox::currentIndexChanged, this, changed);
    connect(m_ui->positions, &QComboBox::currentIndexChanged, this, [this, changed] {
        showPositionControls();
        changed();
    });
    for (QDoubleSpinBox* number : {m_ui->ropeTheta, m_ui->scoreScale, m_ui->softCap})
        connect(number, &QDoubleSpinBox::valueChanged, this, changed);
    connect(m_ui->queryKeyNorm, &QComboBox::currentIndexChanged, this, [this, changed] {
        showQueryKeyNormControls();
        changed();
    });
    connect(m_ui->queryKeyNormUnitOffset, &QCheckBox::toggled, this, [this, changed] {
        showQueryKeyNormControls();
        changed();
    });
    connect(m_ui->learnedSinks, &QCheckBox::toggled, this, changed);
    connect(m_ui->rotaryDim, &QSpinBox::valueChanged, this, [this] { showPositionControls(); });
    connect(m_ui->bias, &QCheckBox::toggled, this, changed);
    connect(m_ui->mask, &QComboBox::currentIndexChanged, this, [this, changed] {
        showMaskControls();
        changed();
    });
    connect(m_ui->validLengths, &QLineEdit::textChanged, this, changed);
    connect(m_ui->slidingWindow, &QSpinBox::valueChanged, this, [this] { showMaskControls(); });
    for (QSpinBox* spin : {m_ui->modelWidth, m_ui->heads, m_ui->keyValueHeads, m_ui->queryKeySize,
                           m_ui->valueSize, m_ui->outputWidth, m_ui->slidingWindow,
                           m_ui->onlineSoftmaxTile, m_ui->rotaryDim, m_ui->seed})
        connect(spin, &QSpinBox::valueChanged, this, changed);
    connect(m_ui->reroll, &QPushButton::clicked, this, [this] {
        m_ui->seed->setValue(static_cast<int>(QRandomGenerator::global()->bounded(1000000)));
    });
    connect(m_ui->clearMask, &QPushButton::clicked, this, [this, changed] {
        m_blockedCells.clear();
        showMaskControls();
        changed();
    });
    showMaskControls();
    showPositionControls();
    showQueryKeyNormControls();
}

InputPanel::~InputPanel() = default;

void InputPanel::showPositionControls()
{
    const bool rotary =
        m_ui->positions->currentIndex() == static_cast<int>(lesson::PositionKind::Rotary);
    // Shown with rotary positions, or while set so that it can be undone.
    const bool partial = rotary || m_ui->rotaryDim->value() != 0;
    m_ui->label_ropeTheta->setVisible(rotary);
    m_ui->ropeTheta->setVisible(rotary);
    m_ui->label_rotaryDim->setVisible(partial);
    m_ui->rotaryDim->setVisible(partial);
}

void InputPanel::showQueryKeyNormControls()
{
    // Gemma's (1 + w) gain: shown with a q/k norm, or while set so that it can be undone.
    m_ui->queryKeyNormUnitOffset->setVisible(m_ui->queryKeyNorm->currentIndex() != 0 ||
                                             m_ui->queryKeyNormUnitOffset->isChecked());
}

void InputPanel::showMaskControls()
{
    const auto kind = static_cast<lesson::MaskKind>(m_ui->mask->currentIndex());
    m_ui->label_validLengths->setVisible(kind == lesson::MaskKind::ValidLengths);
    m_ui->validLengths->setVisible(kind == lesson::MaskKind::ValidLengths);
    m_ui->clearMask->setVisible(kind == lesson::MaskKind::Custom);
    // A window narrows the causal mask; shown with it, or while set so that it can be undone.
    const bool window = kind == lesson::MaskKind::Causal || m_ui->slidingWindow->value() > 0;
    m_ui->label_slidingWindow->setVisible(window);
    m_ui->slidingWindow->setVisible(window);
    m_ui->clearMask->setEnabled(!m_blockedCells.empty());
}

lesson::PlaygroundSettings InputPanel::settings() const
{
    lesson::PlaygroundSettings s;
    s.querySentences = lines(m_ui->querySentences->toPlainText());
    s.keyValueSentences = lines(m_ui->keyValueSentences->toPlainText());
    s.tokenUnit = m_ui->tokenizer->currentIndex() == 1 ? lesson::TokenUnit::Character
                                                       : lesson::TokenUnit::Word;
    s.positions = static_cast<lesson::PositionKind>(m_ui->positions->currentIndex());
    s.ropeTheta = m_ui->ropeTheta->value();
    s.rotaryDim = m_ui->rotaryDim->value();
    s.queryKeyNorm = static_cast<lesson::QueryKeyNormKind>(m_ui->queryKeyNorm->currentIndex());
    s.queryKeyNormUnitOffset = m_ui->queryKeyNormUnitOffset->isChecked();
    s.scoreScale = m_ui->scoreScale->value();
    s.softCap = m_ui->softCap->value();
    s.learnedSinks = m_ui->learnedSinks->isChecked();
    s.modelWidth = m_ui->modelWidth->value();
    s.heads = m_ui->heads->value();
    s.keyValueHeads = m_ui->keyValueHeads->value();
    s.queryKeySize = m_ui->queryKeySize->value();
    s.valueSize = m_ui->valueSize->value();
    s.outputWidth = m_ui->outputWidth->value();
    s.bias = m_ui->bias->isChecked();
    s.mask = static_cast<lesson::MaskKind>(m_ui->mask->currentIndex());
    s.blockedCells = m_blockedCells;
    s.validLengths = m_ui->validLengths->text().trimmed().toStdString();
    s.slidingWindow = m_ui->slidingWindow->value();
    s.onlineSoftmaxTile = m_ui->onlineSoftmaxTile->value();
    s.ablatedHeads = m_ablatedHeads;
    s.seed = static_cast<std::uint32_t>(m_ui->seed->value());
    return s;
}

void InputPanel::setSettings(const lesson::PlaygroundSettings& s)
{
    m_loading = true;
    m_ui->querySentences->setPlainText(joined(s.querySentences));
    m_ui->keyValueSentences->setPlainText(joined(s.keyValueSentences));
    m_ui->tokenizer->setCurrentIndex(s.tokenUnit == lesson::TokenUnit::Character ? 1 : 0);
    m_ui->positions->setCurrentIndex(static_cast<int>(s.positions));
    m_ui->ropeTheta->setValue(s.ropeTheta);
    m_ui->rotaryDim->setValue(s.rotaryDim);
    m_ui->queryKeyNorm->setCurrentIndex(static_cast<int>(s.queryKeyNorm));
    m_ui->queryKeyNormUnitOffset->setChecked(s.queryKeyNormUnitOffset);
    m_ui->scoreScale->setValue(s.scoreScale);
    m_ui->softCap->setValue(s.softCap);
    m_ui->learnedSinks->setChecked(s.learnedSinks);
    m_ui->modelWidth->setValue(s.modelWidth);
    m_ui->heads->setValue(s.heads);
    m_ui->keyValueHeads->setValue(s.keyValueHeads);
    m_ui->queryKeySize->setValue(s.queryKeySize);
    m_ui->valueSize->setValue(s.valueSize);
    m_ui->outputWidth->setValue(s.outputWidth);
    m_ui->bias->setChecked(s.bias);
    m_ui->mask->setCurrentIndex(static_cast<int>(s.mask));
    m_ui->validLengths->setText(QString::fromStdString(s.validLengths));
    m_ui->slidingWindow->setValue(s.slidingWindow);
    m_ui->onlineSoftmaxTile->setValue(s.onlineSoftmaxTile);
    m_ui->seed->setValue(static_cast<int>(s.seed));
    m_blockedCells = s.blockedCells;
    m_ablatedHeads = s.ablatedHeads;
    showMaskControls();
    showPositionControls();
    showQueryKeyNormControls();
    m_loading = false;
    emit settingsChanged();
}

void InputPanel::toggleBlockedCell(int query, int key)
{
    const std::pair cell{query, key};
    if (!m_blockedCells.erase(cell))
        m_blockedCells.insert(cell);
    showMaskControls();
    emit settingsChanged();
}

void InputPanel::setHeadSwitchedOff(int head, bool off)
{
    if (off ? m_ablatedHeads.insert(head).second : m_ablatedHeads.erase(head) > 0)
        emit settingsChanged();
}

void InputPanel::switchAllHeadsOn()
{
    if (m_ablatedHeads.empty())
        return;
    m_ablatedHeads.clear();
    emit settingsChanged();
}

void InputPanel::showProblems(const std::vector<lesson::SettingsProblem>& problems)
{
    using lesson::SettingsField;
    const std::pair<SettingsField, QLabel*> labels[] = {
        {SettingsField::QuerySentences, m_ui->queryError},
        {SettingsField::KeyValueSentences, m_ui->keyValueError},
        {SettingsField::ModelWidth, m_ui->modelWidthError},
        {SettingsField::Heads, m_ui->headsError},
        {SettingsField::KeyValueHeads, m_ui->keyValueHeadsError},
        {SettingsField::Positions, m_ui->positionsError},
        {SettingsField::RotaryDim, m_ui->rotaryDimError},
        {SettingsField::ScoreScale, m_ui->scoreScaleError},
        {SettingsField::SoftCap, m_ui->softCapError},
        {SettingsField::SlidingWindow, m_ui->slidingWindowError},
        {SettingsField::OnlineSoftmaxTile, m_ui->onlineSoftmaxTileError},
        {SettingsField::QueryKeySize, m_ui->queryKeySizeError},
        {SettingsField::ValueSize, m_ui->valueSizeError},
        {SettingsField::OutputWidth, m_ui->outputWidthError},
        {SettingsField::Mask, m_ui->maskError},
        {SettingsField::ValidLengths, m_ui->validLengthsError}};
    for (const auto& [field, label] : labels) {
        QStringList messages;
        for (const lesson::SettingsProblem& p : problems)
            if (p.field == field)
                messages << render::displayed(p.message);
        label->setText(messages.join(QLatin1Char('\n')));
        label->setVisible(!messages.isEmpty());
    }
}

} // namespace attnviz::app
