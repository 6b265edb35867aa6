// #23 (classroom 12): a Chinese class walks every step and opens every window (every row of
// kExperimentWindows among them, #44.5); no English may be left for a student to find. The test
// reads every text a student can see — labels, buttons, group boxes, tabs, menus, text boxes,
// window titles, tooltips, table headers and cells, combo box items, spin box prefixes, chart
// axes, the heatmaps' titles and axes — and fails on each Latin-script word that is not a token, a
// formula or one of the names and units of kAllowed.
#include "app/dialogs/cell_arithmetic_dialog.h"
#include "app/dialogs/glossary_dialog.h"
#include "app/dialogs/guided_tour.h"
#include "app/dialogs/preferences_dialog.h"
#include "app/experiments/attention_sinks_dialog.h"
#include "app/experiments/experiment_windows.h"
#include "app/experiments/experiments_menu.h"
#include "app/experiments/head_types_dialog.h"
#include "app/experiments/importance_dialog.h"
#include "app/experiments/kv_cache_dialog.h"
#include "app/experiments/mistakes_dialog.h"
#include "app/experiments/rollout_dialog.h"
#include "app/experiments/rotary_dialog.h"
#include "app/experiments/scaling_dialog.h"
#include "app/experiments/window_reach_dialog.h"
#include "app/panels/model_overview.h"
#include "app/views/heatmap_view.h"
#include "app/window/language.h"
#include "app_test_steps.h"
#include "engine/attention_mistakes.h"
#include "lesson/scaling_experiment.h"
#include "render/display_words.h"
#include "ui_glossary_dialog.h"
#include "ui_head_types_dialog.h"
#include "ui_importance_dialog.h"
#include "ui_kv_cache_dialog.h"
#include "ui_mistakes_dialog.h"
#include "ui_model_panel.h"
#include "ui_rollout_dialog.h"
#include "ui_rotary_dialog.h"
#include "ui_scaling_dialog.h"
#include "ui_window_reach_dialog.h"
#include "window_test_support.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAbstractTextDocumentLayout>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCharFormat>
#include <QTextDocument>
#include <QTextFragment>
#include <QTextLayout>
#include <QTimer>
#include <QtTest>

#include <qcustomplot.h>

using namespace attnviz::app;
using attnviz::engine::Block;

namespace {

// Words that stay Latin in a Chinese lesson: names of models, libraries, formats, file names and
// keys; the step's formula words (softmax, exp, max, concat are written so in Chinese textbooks
// too); units. Single letters (Q, K, V, D, H, i, x) and identifiers with an underscore or a
// digit (d_k, W_q, Q_h, GPT-2, L2) are formula symbols and are never reported.
const QStringList kAllowed = {
    // names (English is the language menu's own name for English)
    "English",
    "SmolLM",
    "MultiheadAttention",
    "NPY",
    "AttnViz",
    "PyTorch",
    "GPT",
    "BERT",
    "Llama",
    "Mistral",
    "Gemma",
    "Transformer",
    "Qt",
    "Eigen",
    "QCustomPlot",
    "NumPy",
    "Hugging",
    "Face",
    "Linguist",
    "D2L",
    "KJV",
    "Genesis",
    "reverse",
    "genesis",
    "induction",
    "modern",
    "matplotlib",
    "viridis",
    "RdBu",
    "ColorBrewer",
    "GPU",
    "ViT",
    "DeiT",
    "shapes",
    "CLS",
    "DIST",
    "JPEG",
    "jpg",
    "jpeg",
    "HTML",
    // authors a glossary entry cites
    "Shazeer",
    "Dosovitskiy",
    "Milakov",
    "Gimelshein",
    "Xiao",
    "Dao",
    "Zhang",
    "Sennrich",
    "Abnar",
    "Zuidema",
    // a library whose head detector the head types follow
    "TransformerLens",
    // models and positions a playground option names (ALiBi: BLOOM's and MPT's bias by distance)
    "ALiBi",
    "BLOOM",
    "MPT",
    "OLMo",
    // matplotlib's colour map names, which a user looks up by name
    "magma",
    "cividis",
    "greys",
    // formats and files
    "PNG",
    "SVG",
    "PDF",
    "CSV",
    "JSON",
    "safetensors",
    "npy",
    "txt",
    "json",
    "pdf",
    "png",
    "svg",
    "csv",
    "attnviz",
    "heldout",
    "config",
    "model",
    "vocab",
    "merges",
    "tokenizer",
    "UTF",
    // formula words and abbreviations a Chinese textbook writes in Latin letters
    "softmax",
    "exp",
    "max",
    "concat",
    "RoPE",
    "LayerNorm",
    "RMSNorm",
    "GELU",
    "ReLU",
    "SiLU",
    "sigmoid",
    "tanh",
    "logit",
    "FFN",
    "BPE",
    "WordPiece",
    "FlashAttention",
    "SwiGLU",
    "KV",
    "QK",
    "QKᵀ",
    "MHA",
    "GQA",
    "MQA",
    "inf",
    "NaN",
    "nan",
    "masked_fill",
    "float",
    "view",
    "transpose",
    "sum",
    "dim",
    "mean",
    "var",
    "std",
    "sqrt",
    "log",
    "ln",
    "argmax",
    "relu",
    "gelu",
    "silu",
    "sublayer",
    "cos",
    "sin",
    "ex",
    "True",
    "False",
    "pad",
    "MultiHead",
    "Concat",
    "Attention",
    "Po",
    "Pqk",
    "Pv",
    "PE",
    "rearrange",
    // the trace's step names, variables of the formulas (weights_h = softmax(masked_h))
    "tokens",
    "scores",
    "scaled",
    "biased",
    "masked",
    "weights",
    "context",
    "output",
    "online_max",
    "online_sum",
    // keys
    "Ctrl",
    "Shift",
    "Alt",
    "Meta",
    "Esc",
    "Home",
    "End",
    "Enter",
    "Tab",
    "PgUp",
    "PgDown",
    // units
    "GiB",
    "MiB",
    "KiB",
    "TiB",
    "GB",
    "MB",
    "KB",
    "ms",
    "DPI",
    "dpi",
    "px",
    "pt",
};

// A formula symbol: one letter, or an identifier with an underscore, a digit or a modifier letter.
bool isFormulaSymbol(const QString& word)
{
    if (word.size() == 1)
        return true;
    return std::any_of(word.begin(), word.end(), [](QChar c) {
        return c == QLatin1Char('_') || c.isDigit() || c.category() == QChar::Letter_Modifier ||
            c.category() == QChar::Letter_Other;
    });
}

// The text a reader sees, without the code quoted in it (<code>, <tt>: PyTorch's own names).
QString plain(const QString& text)
{
    if (!Qt::mightBeRichText(text))
        return text;
    static const QRegularExpression code(QStringLiteral("<(code|tt)>.*?</\\1>"),
                                         QRegularExpression::DotMatchesEverythingOption);
    QTextDocument document;
    document.setHtml(QString(text).remove(code));
    return document.toPlainText();
}

// The prose of a text box: code set in a fixed-pitch font (<code>, <tt>: PyTorch's own names)
// is left out.
QString proseOf(const QTextDocument& document)
{
    QString out;
    for (QTextBlock b = document.begin(); b.isValid(); b = b.next()) {
        for (auto it = b.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            const QTextCharFormat format = fragment.charFormat();
            const QString family = format.fontFamilies().toStringList().join(QLatin1Char(' '));
            if (!format.fontFixedPitch() && !family.contains(QLatin1String("ourier")) &&
                !family.contains(QLatin1String("ono")))
                out += fragment.text();
        }
        out += QLatin1Char('\n');
    }
    return out;
}

/// A word of English found, and where.
struct Found {
    QString word;
    QString where;
    QString text;
};

/// Reads texts and keeps the Latin words that are not tokens, formulas or kAllowed.
class LatinWords {
public:
    /// The tokens and user text shown now: their words are the user's, never reported.
    void addTokens(const attnviz::lesson::Walkthrough* w)
    {
        if (!w)
            return;
        for (const auto* lists : {&w->queryTokens, &w->keyTokens})
            for (const std::vector<std::string>& tokens : *lists) {
                QString joined, spaced;
                for (const std::string& t : tokens) {
                    joined += QString::fromStdString(t);
                    spaced += QString::fromStdString(t) + QLatin1Char(' ');
                }
                addUserText(joined);
                addUserText(spaced);
            }
    }
    void addUserText(const QString& text)
    {
        static const QRegularExpression word(QStringLiteral("[A-Za-z]+"));
        for (auto it = word.globalMatch(text); it.hasNext();)
            m_tokens.insert(it.next().captured());
    }

    void check(const QString& text, const QString& where)
    {
        QString t = plain(text);
        // “Quoted” text is a token, as render::displayed treats it.
        static const QRegularExpression quoted(QStringLiteral("“[^”]*”"));
        t.remove(quoted);
        // A term's English name in brackets right after it, as Chinese textbooks gloss a term
        // (独热（one-hot）); a path; the names of works.
        static const QRegularExpression gloss(
            QStringLiteral("(?<=\\p{Han})[（(][A-Za-z][A-Za-z ,.'-]*[）)]"));
        t.remove(gloss);
        static const QRegularExpression path(QStringLiteral("(?:/[\\w.-]+)+"));
        t.remove(path);
        for (const char* name : {"The Annotated Transformer", "Hugging Face"})
            t.remove(QLatin1String(name));
        // Code named in a sentence (torch.nn.MultiheadAttention, math.sqrt, self.w_o).
        static const QRegularExpression dotted(QStringLiteral("\\b\\w+(?:\\.\\w+)+"));
        t.remove(dotted);
        // A glossary entry lists the term's other names, English ones on purpose: a student
        // meets them in papers and may search for them.
        static const QRegularExpression aliases(QStringLiteral("也写作：[^\\n]*"));
        t.remove(aliases);
        // A file name or extension (heldout.txt, *.attnviz, model.safetensors).
        static const QRegularExpression file(
            QStringLiteral("[\\w*.-]*\\.(txt|json|pdf|png|svg|csv|npy|safetensors|attnviz)\\b"));
        t.remove(file);
        static const QRegularExpression word(
            QStringLiteral("[A-Za-z][A-Za-z0-9_ᵀ]*(?:-[A-Za-z0-9]+)*"));
        for (auto it = word.globalMatch(t); it.hasNext();) {
            const QString w = it.next().captured();
            if (isFormulaSymbol(w) || kAllowed.contains(w) || m_tokens.contains(w))
                continue;
            // Each word once, where it was first seen: one fix removes it everywhere.
            if (m_seen.contains(w))
                continue;
            m_seen.insert(w);
            m_found.push_back({w, where, t.simplified().left(160)});
        }
    }

    /// Every text `root` and its visible children show.
    void read(QWidget* root, const QString& context)
    {
        QList<QWidget*> widgets = root->findChildren<QWidget*>();
        widgets.prepend(root);
        for (QWidget* w : widgets) {
            if (!w->isVisible())
                continue;
            const QString where = context + QStringLiteral(" › ") + describe(w);
            if (w->isWindow())
                check(w->windowTitle(), where + QStringLiteral(" (title)"));
            check(w->toolTip(), where + QStringLiteral(" (tooltip)"));
            if (auto* label = qobject_cast<QLabel*>(w)) {
                if (label->objectName() == QLatin1String("code")) {
                    // The mistaken line of code: its comment is read, and may name what the
                    // line names (mask, scores).
                    addUserText(label->text().section(QLatin1Char('#'), 0, 0));
                    check(label->text().section(QLatin1Char('#'), 1), where);
                } else {
                    check(label->text(), where);
                }
            } else if (auto* button = qobject_cast<QAbstractButton*>(w))
                check(button->text(), where);
            else if (auto* box = qobject_cast<QGroupBox*>(w))
                check(box->title(), where);
            else if (auto* tabs = qobject_cast<QTabBar*>(w))
                for (int i = 0; i < tabs->count(); ++i)
                    check(tabs->tabText(i) + QLatin1Char(' ') + tabs->tabToolTip(i), where);
            else if (auto* edit = qobject_cast<QTextEdit*>(w)) {
                if (edit->isReadOnly())
                    check(proseOf(*edit->document()), where);
            } else if (auto* line = qobject_cast<QLineEdit*>(w)) {
                check(line->placeholderText(), where + QStringLiteral(" (placeholder)"));
                if (line->isReadOnly())
                    check(line->text(), where);
            } else if (auto* text = qobject_cast<QPlainTextEdit*>(w))
                check(text->placeholderText(), where + QStringLiteral(" (placeholder)"));
            else if (auto* combo = qobject_cast<QComboBox*>(w)) {
                if (!combo->isEditable())
                    for (int i = 0; i < combo->count(); ++i)
                        check(combo->itemText(i), where);
            } else if (auto* spin = qobject_cast<QSpinBox*>(w))
                check(spin->prefix() + QLatin1Char(' ') + spin->suffix() + QLatin1Char(' ') +
                          spin->specialValueText(),
                      where);
            else if (auto* real = qobject_cast<QDoubleSpinBox*>(w))
                check(real->prefix() + QLatin1Char(' ') + real->suffix(), where);
            else if (auto* bar = qobject_cast<QProgressBar*>(w))
                check(bar->text(), where);
            else if (auto* view = qobject_cast<QAbstractItemView*>(w))
                readItems(view, where);
            else if (auto* menuBar = qobject_cast<QMenuBar*>(w))
                for (QAction* action : menuBar->actions())
                    readAction(action, where);
            else if (auto* heatmap = qobject_cast<HeatmapView*>(w))
                readHeatmap(*heatmap, where);
            else if (auto* plot = qobject_cast<QCustomPlot*>(w))
                readPlot(*plot, where);
        }
    }

    const std::vector<Found>& found() const { return m_found; }

    QString report() const
    {
        QString out;
        for (const Found& f : m_found)
            out += QStringLiteral("\n  \"%1\" in %2: %3").arg(f.word, f.where, f.text);
        return out;
    }

    void readHeatmap(const HeatmapView& view, const QString& where)
    {
        const attnviz::lesson::Heatmap& m = view.heatmap();
        addTokenLabels(m.matrix.rowLabels);
        addTokenLabels(m.matrix.columnLabels);
        // As the painter draws them: through render::displayed.
        check(attnviz::render::displayed(m.title), where + QStringLiteral(" heatmap title"));
        check(attnviz::render::displayed(m.matrix.rowAxis) + QLatin1Char(' ') +
                  attnviz::render::displayed(m.matrix.columnAxis),
              where + QStringLiteral(" heatmap axes"));
        if (m.rows() > 0 && m.cols() > 0)
            check(view.toolTipForCell(0, 0), where + QStringLiteral(" cell tooltip"));
    }

    void addTokenLabels(const std::vector<std::string>& labels)
    {
        for (const std::string& label : labels)
            addUserText(QString::fromStdString(label));
    }

    void readPlot(QCustomPlot& plot, const QString& where)
    {
        for (QCPAxisRect* rect : plot.axisRects())
            for (QCPAxis* axis : rect->axes())
                check(axis->label(), where + QStringLiteral(" axis"));
        for (int i = 0; i < plot.plottableCount(); ++i)
            check(plot.plottable(i)->name(), where + QStringLiteral(" legend"));
        for (QCPLayoutElement* element : plot.plotLayout()->elements(true))
            if (auto* text = qobject_cast<QCPTextElement*>(element))
                check(text->text(), where + QStringLiteral(" chart title"));
    }

private:
    static QString describe(const QWidget* w)
    {
        QString path = QString::fromLatin1(w->metaObject()->className());
        for (const QObject* o = w; o; o = o->parent())
            if (!o->objectName().isEmpty() && !o->objectName().startsWith(QLatin1String("qt_"))) {
                path += QLatin1Char('#') + o->objectName();
                break;
            }
        return path;
    }

    void readAction(QAction* action, const QString& where)
    {
        if (!action->isVisible())
            return;
        const QString text = action->text().remove(QLatin1Char('&'));
        check(text, where + QStringLiteral(" menu"));
        if (action->toolTip().remove(QLatin1Char('&')) != text)
            check(action->toolTip(), where + QStringLiteral(" menu (tooltip)"));
        check(action->statusTip(), where + QStringLiteral(" menu (status tip)"));
        if (QMenu* menu = action->menu()) {
            // Menus fill themselves when they open (recent lessons, the export menu's head).
            emit menu->aboutToShow();
            for (QAction* inner : menu->actions())
                readAction(inner, where + QStringLiteral(" › ") + text);
        }
    }

    void readItems(QAbstractItemView* view, const QString& where)
    {
        const QAbstractItemModel* model = view->model();
        if (!model)
            return;
        for (int c = 0; c < model->columnCount(); ++c)
            check(model->headerData(c, Qt::Horizontal).toString(),
                  where + QStringLiteral(" header"));
        for (int r = 0; r < std::min(model->rowCount(), 200); ++r)
            for (int c = 0; c < model->columnCount(); ++c) {
                const QModelIndex index = model->index(r, c);
                check(model->data(index).toString(), where);
                // The glossary's list names each term's English forms on purpose: a student
                // meets them in papers and may search for them.
                if (view->objectName() != QLatin1String("terms"))
                    check(model->data(index, Qt::ToolTipRole).toString(),
                          where + QStringLiteral(" (tooltip)"));
            }
    }

    QSet<QString> m_tokens;
    QSet<QString> m_seen;
    std::vector<Found> m_found;
};

MainWindow* onlyWindow()
{
    MainWindow* found = nullptr;
    for (QWidget* w : QApplication::topLevelWidgets())
        if (auto* window = qobject_cast<MainWindow*>(w); window && window->isVisible())
            found = window;
    return found;
}

} // namespace

class ChineseTextTest : public QObject {
    Q_OBJECT

private:
    MainWindow* m_window = nullptr;
    LatinWords m_words;

    void settle() { QVERIFY(attnviz::test::waitUntilIdle(*m_window)); }

    // Triggers a menu action that asks for a file and answers its dialog with `path`; false when
    // no dialog asked.
    bool saveThrough(QAction* action, const QString& path)
    {
        bool answered = false;
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            dialog->selectFile(path);
            static_cast<QDialog*>(dialog)->accept();
            answered = true;
        });
        action->trigger();
        return answered;
    }

    void readWindow(const QString& context)
    {
        m_words.addTokens(m_window->walkthrough().get());
        m_words.read(m_window, context);
    }

    /// Every step the walkthrough shown offers, each read whole.
    void walkSteps(const QString& context)
    {
        const auto steps = attnviz::lesson::shownLessonSteps(m_window->stepPanel()->shownTrace());
        for (const attnviz::lesson::LessonStepIndex step : steps) {
            m_window->stepPanel()->setStep(step);
            QApplication::processEvents();
            const std::string_view key = attnviz::lesson::kLessonSteps[step].key;
            const QString where = context + QLatin1Char(' ') +
                QString::fromLatin1(key.data(), static_cast<qsizetype>(key.size()));
            readWindow(where);
            explanationIsWhole(where);
        }
    }

    // #23 (classroom 6): the explanation box ends below a whole line, and scrolls when its text
    // is longer than the box.
    void explanationIsWhole(const QString& where)
    {
        auto* box = m_window->stepPanel()->findChild<QTextBrowser*>(QStringLiteral("explanation"));
        QVERIFY(box);
        const QTextDocument* document = box->document();
        const int shown = box->viewport()->height();
        for (QTextBlock b = document->begin(); b.isValid(); b = b.next()) {
            const QRectF at = document->documentLayout()->blockBoundingRect(b);
            for (int i = 0; i < b.layout()->lineCount(); ++i) {
                const QTextLine line = b.layout()->lineAt(i);
                const qreal top = at.top() + line.y(), bottom = top + line.height();
                QVERIFY2(top >= shown || bottom <= shown + 1,
                         qPrintable(QStringLiteral("%1: a line from %2 to %3 px is cut at %4 px")
                                        .arg(where)
                                        .arg(top)
                                        .arg(bottom)
                                        .arg(shown)));
            }
        }
        if (document->size().height() > shown + 1)
            QVERIFY2(box->verticalScrollBar()->isVisible(), qPrintable(where));
    }

    /// A modal dialog `trigger` opens, read, then closed.
    void readModal(const std::function<void()>& trigger, const QString& context)
    {
        bool seen = false;
        QTimer::singleShot(0, this, [&] {
            QWidget* modal = QApplication::activeModalWidget();
            if (!modal)
                return;
            seen = true;
            m_words.read(modal, context);
            if (auto* dialog = qobject_cast<QDialog*>(modal))
                dialog->reject();
        });
        trigger();
        QVERIFY2(seen, qPrintable(context + QStringLiteral(" opened no modal dialog")));
    }

private slots:
    void initTestCase()
    {
        // The classroom's window is 1400 × 900 (the offscreen screen of 1600 × 1000 holds it:
        // tests/app/screen_1600x1000.json).
        QVERIFY2(QGuiApplication::primaryScreen()->availableGeometry().height() >= 1000,
                 "run with QT_QPA_PLATFORM=offscreen:configfile=tests/app/screen_1600x1000.json");
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        applyLanguage(QStringLiteral("zh_CN"));
        m_window = new MainWindow; // the first start: the reverse demo
        m_window->setAttribute(Qt::WA_DeleteOnClose);
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window));
        settle();
    }

    void cleanupTestCase()
    {
        delete onlyWindow();
        applyLanguage(QStringLiteral("en"));
    }

    void everyStepOfTheDemoModel()
    {
        QVERIFY(!m_window->modelPanel()->playground());
        m_words.addUserText(m_window->modelPanel()->ui()->output->text());
        for (const Block block : {Block::Self, Block::MaskedSelf, Block::Cross}) {
            m_window->modelPanel()->setChoice({0, block, -1});
            settle();
            walkSteps(QStringLiteral("reverse %1").arg(static_cast<int>(block)));
        }
        // #23 (classroom 10): the scaled step of the trained model says how large its scores
        // are, and why.
        m_window->stepPanel()->setStep(attnviz::test::step("scaled"));
        QApplication::processEvents();
        auto* explanation =
            m_window->stepPanel()->findChild<QTextBrowser*>(QStringLiteral("explanation"));
        const QString scaled = explanation->toPlainText();
        static const QRegularExpression variance(QStringLiteral("分数方差为 ([\\d.]+)"));
        const QRegularExpressionMatch shown = variance.match(scaled);
        const auto spread = attnviz::lesson::scaledScoreSpread(*m_window->walkthrough());
        QVERIFY(spread);
        QVERIFY2(shown.hasMatch() &&
                     std::abs(shown.captured(1).toDouble() - spread->variance) <=
                         0.05 * spread->variance + 0.5,
                 qPrintable(scaled));
        QVERIFY2(scaled.contains(QStringLiteral("训练后的权重不再随机")), qPrintable(scaled));
        if (qEnvironmentVariableIsSet("ATTNVIZ_SCALED_SHOT")) {
            // docs/screenshots/42-chinese-scaled-variance.png: layer 1's cross-attention, whose
            // scaled scores reach ±30, the explanation scrolled to why.
            m_window->modelPanel()->setChoice({1, Block::Cross, -1});
            settle();
            explanation->verticalScrollBar()->setValue(explanation->verticalScrollBar()->maximum());
            QApplication::processEvents();
            QVERIFY(m_window->grab().save(qEnvironmentVariable("ATTNVIZ_SCALED_SHOT")));
        }
        m_window->modelPanel()->setHeadSwitchedOff({0, Block::Cross, 1}, true);
        settle();
        auto* difference =
            m_window->stepPanel()->findChild<QCheckBox*>(QStringLiteral("ablationDifference"));
        difference->setChecked(true);
        walkSteps(QStringLiteral("reverse, head off, difference"));
        difference->setChecked(false);
        m_window->modelPanel()->switchAllHeadsOn();
        settle();
        m_window->modelPanel()->ui()->overview->setChecked(true);
        QApplication::processEvents();
        readWindow(QStringLiteral("overview"));
        m_window->modelPanel()->ui()->overview->setChecked(false);
    }

    // #44.5: every window of kExperimentWindows opened from its menu action on each kind of
    // source (the encoder-decoder demo, a decoder-only model of today with rotary positions and
    // sliding windows, a Vision Transformer's picture, the playground), read as it opens and
    // after each choice of each of its lists. The table is walked: a new window is read here
    // without a line of this test.
    void everyRegisteredWindowOnEveryKindOfSource()
    {
        const attnviz::lesson::ModelSource shown = m_window->modelPanel()->request();
        attnviz::lesson::ModelSource modern;
        modern.folder = "modern";
        modern.text = "In the beginning God created the heaven and the earth.";
        attnviz::lesson::ModelSource shapes;
        shapes.folder = "shapes";
        for (const auto& [source, what] :
             {std::pair{shown, "reverse"}, std::pair{modern, "modern"}, std::pair{shapes, "shapes"},
              std::pair{attnviz::lesson::ModelSource{}, "playground"}}) {
            m_window->modelPanel()->setRequest(source);
            settle();
            m_words.addUserText(QString::fromStdString(source.text));
            m_words.addUserText(m_window->modelPanel()->ui()->output->text());
            m_words.addTokens(m_window->walkthrough().get());
            // A classifier's class names are the model's words, as its tokens are.
            if (const auto run = m_window->modelResult().run; run && run->config.image)
                for (const std::string& label : run->config.image->labels)
                    m_words.addUserText(QString::fromStdString(label));
            for (const ExperimentWindow& row : kExperimentWindows) {
                const QString where = QString::fromLatin1(row.name.data(), row.name.size()) +
                    QStringLiteral(" on ") + QLatin1String(what);
                m_window->experiments()->action(row.name)->trigger();
                ExperimentDialog* window = m_window->experiments()->window(row.name);
                QVERIFY2(window && window->isVisible(), qPrintable(where));
                QTRY_VERIFY(!window->busy());
                m_words.read(window, where);
                for (QComboBox* list : window->findChildren<QComboBox*>()) {
                    if (!list->isVisible() || !list->isEnabled() || list->count() > 16)
                        continue;
                    const int chosen = list->currentIndex();
                    for (int i = 0; i < list->count(); ++i) {
                        list->setCurrentIndex(i);
                        QTRY_VERIFY(!window->busy());
                        m_words.read(window, where + QStringLiteral(" › ") + list->itemText(i));
                    }
                    list->setCurrentIndex(chosen);
                }
                QTRY_VERIFY(!window->busy());
                window->close();
            }
        }
        m_window->modelPanel()->setRequest(shown);
        settle();
    }

    // Beyond what the windows show as they open: the texts their other controls bring up.
    void experimentControlsOnTheDemo()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        m_window->findChild<QAction*>(QStringLiteral("actionMistakes"))->trigger();
        auto* mistakes = m_window->experiments()->window<MistakesDialog>("mistakes");
        QVERIFY(mistakes);
        for (const auto& info : attnviz::engine::kAttentionMistakeTable) {
            mistakes->setMistake(info.mistake);
            QApplication::processEvents();
            m_words.read(mistakes, QStringLiteral("mistakes ") + QLatin1String(info.name));
        }
        // #23 (classroom 7): Numbers in cells writes the numbers on the reverse model's maps
        // too, whose cells beside each other in the dialog are smaller than in the main view.
        mistakes->setMistake(attnviz::engine::AttentionMistake::NoScaling);
        QApplication::processEvents();
        auto* right = mistakes->findChild<HeatmapView*>(QStringLiteral("right"));
        QVERIFY(right);
        mistakes->ui().valuesInCells->setChecked(false);
        QApplication::processEvents();
        const QImage without = right->grab().toImage();
        mistakes->ui().valuesInCells->setChecked(true);
        QApplication::processEvents();
        QVERIFY2(right->grab().toImage() != without, "Numbers in cells changed nothing");
        mistakes->close();

        m_window->findChild<QAction*>(QStringLiteral("actionScaling"))->trigger();
        auto* scaling = m_window->experiments()->window<ScalingDialog>("scaling");
        QVERIFY(scaling);
        for (QAbstractButton* divisor :
             {static_cast<QAbstractButton*>(scaling->ui().bySqrtDk),
              static_cast<QAbstractButton*>(scaling->ui().byOne),
              static_cast<QAbstractButton*>(scaling->ui().byTemperature)}) {
            divisor->click();
            QApplication::processEvents();
            m_words.read(scaling, QStringLiteral("scaling"));
        }
        scaling->close();

        m_window->findChild<QAction*>(QStringLiteral("actionImportance"))->trigger();
        auto* importance = m_window->experiments()->window<ImportanceDialog>("importance");
        QVERIFY(importance);
        m_words.read(importance, QStringLiteral("importance before measuring"));
        // #23 (classroom 1): before a measurement the window says what Measure will run.
        auto* empty = importance->findChild<QLabel*>(QStringLiteral("emptyState"));
        QVERIFY(empty && empty->isVisible());
        QVERIFY2(empty->text().contains(QStringLiteral("2500")), qPrintable(empty->text()));
        if (qEnvironmentVariableIsSet("ATTNVIZ_IMPORTANCE_SHOT")) {
            // docs/screenshots/43-chinese-importance-empty.png
            importance->resize(1000, 640);
            QApplication::processEvents();
            QVERIFY(importance->grab().save(qEnvironmentVariable("ATTNVIZ_IMPORTANCE_SHOT")));
        }
        importance->ui()->examples->setValue(3);
        QSignalSpy measured(importance, &ImportanceDialog::measured);
        importance->measure();
        m_words.read(importance, QStringLiteral("importance measuring"));
        QVERIFY(measured.wait(attnviz::test::kPatienceMs));
        QVERIFY(importance->report());
        QVERIFY(!empty->isVisible());
        m_words.read(importance, QStringLiteral("importance measured"));
        importance->close();

        for (const char* step : {"scores", "scaled", "masked", "softmax", "context"}) {
            m_window->stepPanel()->setStep(attnviz::test::step(step));
            m_window->stepPanel()->showCellArithmetic(0, 1, 1);
            QVERIFY(m_window->stepPanel()->cellArithmetic());
            QApplication::processEvents();
            m_words.read(m_window->stepPanel()->cellArithmetic(),
                         QStringLiteral("cell arithmetic ") + QLatin1String(step));
        }
        m_window->stepPanel()->cellArithmetic()->close();
    }

    // #25: the bundled modern model's every step, and the controls of today's attention's windows.
    void everyStepOfTodaysAttentionAndItsControls()
    {
        const attnviz::lesson::ModelSource shown = m_window->modelPanel()->request();
        attnviz::lesson::ModelSource modern;
        modern.folder = "modern";
        modern.text = "In the beginning God created the heaven and the earth. And the earth was "
                      "without form, and void; and darkness was upon the face of the deep.";
        m_window->modelPanel()->setRequest(modern);
        settle();
        m_words.addUserText(QString::fromStdString(modern.text));
        m_words.addUserText(m_window->modelPanel()->ui()->output->text());
        walkSteps(QStringLiteral("modern"));

        m_window->findChild<QAction*>(QStringLiteral("actionRotary"))->trigger();
        auto* rotary = m_window->experiments()->window<RotaryDialog>("rotary");
        QVERIFY(rotary);
        rotary->ui().shift->setValue(100);
        QApplication::processEvents();
        m_words.read(rotary, QStringLiteral("rotary"));
        m_words.readHeatmap(*rotary->ui().angles, QStringLiteral("rotary angles"));
        rotary->close();

        m_window->findChild<QAction*>(QStringLiteral("actionKvCache"))->trigger();
        auto* cache = m_window->experiments()->window<KvCacheDialog>("kvCache");
        QVERIFY(cache);
        QTRY_VERIFY_WITH_TIMEOUT(cache->decoding() != nullptr, attnviz::test::kPatienceMs);
        cache->ui().step->setValue(2);
        QApplication::processEvents();
        for (HeatmapView* view : {cache->ui().weights, cache->ui().keys, cache->ui().values})
            m_words.readHeatmap(*view, QStringLiteral("kv cache map"));
        m_words.read(cache, QStringLiteral("kv cache"));
        m_words.readPlot(*cache->ui().work, QStringLiteral("kv cache work"));
        cache->close();

        m_window->findChild<QAction*>(QStringLiteral("actionWindowReach"))->trigger();
        auto* reach = m_window->experiments()->window<WindowReachDialog>("windowReach");
        QVERIFY(reach);
        m_words.read(reach, QStringLiteral("window reach"));
        m_words.readHeatmap(*reach->ui().reach, QStringLiteral("window reach map"));
        reach->close();

        m_window->findChild<QAction*>(QStringLiteral("actionAttentionSinks"))->trigger();
        auto* sinks = m_window->experiments()->window<AttentionSinksDialog>("attentionSinks");
        QVERIFY(sinks);
        QSignalSpy removed(sinks, &AttentionSinksDialog::removalShown);
        sinks->removeFirstToken();
        QVERIFY(removed.wait(attnviz::test::kPatienceMs));
        m_words.read(sinks, QStringLiteral("sinks"));
        for (HeatmapView* view : sinks->removalViews())
            m_words.readHeatmap(*view, QStringLiteral("sinks without the first token"));
        sinks->close();

        m_window->findChild<QAction*>(QStringLiteral("actionHeadTypes"))->trigger();
        auto* types = m_window->experiments()->window<HeadTypesDialog>("headTypes");
        QVERIFY(types);
        QSignalSpy scored(types, &HeadTypesDialog::scored);
        QVERIFY(!types->maps().empty() || scored.wait(attnviz::test::kPatienceMs));
        for (int t = 0; t < types->ui().type->count(); ++t) {
            types->ui().type->setCurrentIndex(t);
            QApplication::processEvents();
            m_words.read(types, QStringLiteral("head types %1").arg(t));
            for (HeatmapView* view : types->views())
                m_words.readHeatmap(*view, QStringLiteral("head types map"));
        }
        types->close();

        m_window->findChild<QAction*>(QStringLiteral("actionRollout"))->trigger();
        auto* rollout = m_window->experiments()->window<RolloutDialog>("rollout");
        QVERIFY(rollout && rollout->map());
        m_words.read(rollout, QStringLiteral("rollout"));
        m_words.readHeatmap(*rollout->ui().rollout, QStringLiteral("rollout map"));
        rollout->close();

        m_window->modelPanel()->setRequest(shown);
        settle();
    }

    void everyHelpWindow()
    {
        m_window->findChild<QAction*>(QStringLiteral("actionPreferences"))->trigger();
        auto* preferences = m_window->findChild<PreferencesDialog*>();
        QVERIFY(preferences);
        m_words.read(preferences, QStringLiteral("preferences"));
        preferences->reject();

        GlossaryDialog* glossary = m_window->openGlossary({});
        for (int row = 0; row < glossary->form()->terms->count(); ++row) {
            glossary->form()->terms->setCurrentRow(row);
            m_words.read(glossary,
                         QStringLiteral("glossary ") + glossary->form()->terms->item(row)->text());
        }
        glossary->close();

        m_window->findChild<QAction*>(QStringLiteral("actionShortcuts"))->trigger();
        auto* shortcuts = m_window->findChild<QMessageBox*>(QStringLiteral("shortcuts"));
        QVERIFY(shortcuts);
        m_words.read(shortcuts, QStringLiteral("shortcuts"));
        shortcuts->close();

        readModal(
            [this] { m_window->findChild<QAction*>(QStringLiteral("actionAbout"))->trigger(); },
            QStringLiteral("about"));

        // #23 (classroom 6): at 1400 × 900 no bubble covers what it points at (stop 3 speaks of
        // the formula and the shape line below it, and highlights both).
        GuidedTour* tour = m_window->startTour();
        for (int stop = 0; stop < tour->stopCount(); ++stop) {
            tour->showStop(stop);
            m_words.read(tour, QStringLiteral("tour %1").arg(stop));
            const QRect bubble =
                tour->findChild<QWidget*>(QStringLiteral("tourBubble"))->geometry();
            QVERIFY2(!bubble.intersects(tour->targetRect()),
                     qPrintable(QStringLiteral("stop %1").arg(stop + 1)));
        }
        tour->showStop(2);
        QVERIFY(tour->targetRect().contains(QRect(m_window->stepPanel()
                                                      ->findChild<QLabel*>(QStringLiteral("shape"))
                                                      ->mapTo(m_window, QPoint(0, 0)),
                                                  QSize(1, 1))));
        tour->close();
    }

    void theExportDialogs()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        // The heatmap and every layer × head × step ask for a format and a size first.
        const QList<QAction*> actions =
            m_window->findChild<QMenu*>(QStringLiteral("menuExport"))->actions();
        for (const int index : {0, 3}) {
            QAction* action = actions.value(index);
            QVERIFY(action);
            readModal([action] { action->trigger(); }, QStringLiteral("export ") + action->text());
        }
    }

    // #23 (classroom 2): the handout saved from the Export menu has Chinese headings around its
    // Chinese body, and the status bar says where it went.
    void theHandoutIsChineseAndItsPlaceIsSaid()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("讲义.pdf"));
        QAction* action = nullptr;
        for (QAction* a : m_window->findChild<QMenu*>(QStringLiteral("menuExport"))->actions())
            if (a->text().contains(QStringLiteral("PDF")))
                action = a;
        QVERIFY(action);
        QVERIFY(saveThrough(action, path));
        QVERIFY(QFileInfo::exists(path));
        const QString message = m_window->statusBar()->currentMessage();
        QVERIFY2(message.contains(QDir::toNativeSeparators(path)) &&
                     message.contains(QStringLiteral("讲义")),
                 qPrintable(message));
        m_words.check(message, QStringLiteral("status bar after the handout"));
        QProcess text;
        text.start(QStringLiteral("pdftotext"), {path, QStringLiteral("-")});
        QVERIFY(text.waitForFinished(60000));
        const QString pdf = QString::fromUtf8(text.readAllStandardOutput());
        QVERIFY2(pdf.contains(QStringLiteral("第 1 步")), qPrintable(pdf.left(400)));
        QVERIFY2(!pdf.contains(QStringLiteral("Step ")), qPrintable(pdf.left(400)));
        // The PDF's text is read like a window's, page by page (pdftotext separates pages by
        // form feeds).
        const QStringList pages = pdf.split(QLatin1Char('\f'));
        for (int page = 0; page < pages.size(); ++page)
            m_words.check(pages[page], QStringLiteral("handout page %1").arg(page + 1));
    }

    // #27: the web page speaks the interface's language: its tabs, help and steps.
    void theWebPageIsChinese()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("课.html"));
        QAction* action = m_window->findChild<QAction*>(QStringLiteral("actionExportWebPage"));
        QVERIFY(action);
        QVERIFY(saveThrough(action, path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QString page = QString::fromUtf8(file.readAll());
        QVERIFY(page.contains(QStringLiteral("<html lang=\"zh-CN\">")));
        // What a reader sees without the script: the markup's text, data and code left out.
        page.remove(QRegularExpression(QStringLiteral("<(script|style)[^>]*>.*?</\\1>"),
                                       QRegularExpression::DotMatchesEverythingOption));
        page.replace(QRegularExpression(QStringLiteral("<[^>]*>")), QStringLiteral(" "));
        page.replace(QStringLiteral("&lt;"), QStringLiteral("<"))
            .replace(QStringLiteral("&gt;"), QStringLiteral(">"))
            .replace(QStringLiteral("&quot;"), QStringLiteral("\""))
            .replace(QStringLiteral("&#39;"), QStringLiteral("'"))
            .replace(QStringLiteral("&amp;"), QStringLiteral("&"));
        QVERIFY2(page.contains(QStringLiteral("头视图")) &&
                     page.contains(QStringLiteral("第 1 步")),
                 qPrintable(page.left(400)));
        m_words.check(page, QStringLiteral("web page"));
    }

    void everyStepOfThePlayground()
    {
        attnviz::lesson::PlaygroundSettings settings;
        settings.querySentences = {"the cat sat on the mat", "a dog ran"};
        settings.mask = attnviz::lesson::MaskKind::ValidLengths;
        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        m_window->inputPanel()->setSettings(settings);
        settle();
        QVERIFY(m_window->walkthrough());
        m_window->stepPanel()->setBatchIndex(1);
        walkSteps(QStringLiteral("playground batch"));
        settings.keyValueSentences = {"le chat", "un chien noir"};
        m_window->inputPanel()->setSettings(settings);
        settle();
        walkSteps(QStringLiteral("playground cross"));
        settings.keyValueSentences.clear();
        settings.heads = 4;
        settings.keyValueHeads = 2;
        settings.positions = attnviz::lesson::PositionKind::Rotary;
        settings.mask = attnviz::lesson::MaskKind::Custom;
        settings.onlineSoftmaxTile = 2;
        m_window->inputPanel()->setSettings(settings);
        settle();
        QVERIFY(m_window->walkthrough()->trace->has(attnviz::engine::AttentionStep::OnlineMax));
        walkSteps(QStringLiteral("playground grouped rotary custom online"));
        m_window->stepPanel()->setStep(attnviz::test::step("online"));
        m_window->stepPanel()->showCellArithmetic(0, 3, 1);
        QApplication::processEvents();
        m_words.read(m_window->stepPanel()->cellArithmetic(),
                     QStringLiteral("cell arithmetic online"));
        m_window->stepPanel()->cellArithmetic()->close();
    }

    // Last: the verdict over everything read above.
    void noEnglishWordIsLeft()
    {
        // One line per word (QTest cuts a long failure message).
        for (const QString& line : m_words.report().split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            qInfo().noquote() << line;
        QVERIFY2(
            m_words.found().empty(),
            qPrintable(QStringLiteral("%1 English words in the Chinese interface, listed above")
                           .arg(m_words.found().size())));
    }
};

QTEST_MAIN(ChineseTextTest)
#include "chinese_text_test.moc"
