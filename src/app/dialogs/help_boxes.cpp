#include "app/dialogs/help_boxes.h"

#include <QCoreApplication>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

#include <Eigen/Core>
#include <qcustomplot.h>

namespace attnviz::app {

void showAbout(QWidget* parent)
{
    QMessageBox::about(
        parent, QCoreApplication::translate("attnviz::app::MainWindow", "About AttnViz"),
        QCoreApplication::translate(
            "attnviz::app::MainWindow",
            "<p><b>AttnViz %1</b> walks through multi-head attention one step at a time. "
            "Every number comes from the engine's trace, which the test suite checks "
            "against PyTorch: every intermediate, for torch.nn.MultiheadAttention and the "
            "bundled models, at a stated tolerance.</p><p>Built with Qt %2 (running on Qt %3), "
            "Eigen %4 and "
            "QCustomPlot %5.</p>")
            .arg(QCoreApplication::applicationVersion(), QStringLiteral(QT_VERSION_STR),
                 QString::fromLatin1(qVersion()),
                 QStringLiteral("%1.%2.%3")
                     .arg(EIGEN_WORLD_VERSION)
                     .arg(EIGEN_MAJOR_VERSION)
                     .arg(EIGEN_MINOR_VERSION),
                 QStringLiteral(QCUSTOMPLOT_VERSION_STR)));
}

namespace {

// A shortcut as the key column shows it. Qt's own Chinese names for the arrow keys (左方向,
// 右方向) are not what Chinese keyboards and manuals say; an arrow is shown as the arrow on the
// key with its name in the interface language (← 左箭头键, ← Left arrow key).
QString shortcutCell(const QKeySequence& sequence)
{
    QStringList keys;
    for (int i = 0; i < sequence.count(); ++i) {
        const QKeyCombination combination = sequence[static_cast<uint>(i)];
        QString arrow, name;
        switch (combination.key()) {
        case Qt::Key_Left:
            arrow = QStringLiteral("←");
            name = QCoreApplication::translate("attnviz::app::MainWindow", "Left arrow key");
            break;
        case Qt::Key_Right:
            arrow = QStringLiteral("→");
            name = QCoreApplication::translate("attnviz::app::MainWindow", "Right arrow key");
            break;
        case Qt::Key_Up:
            arrow = QStringLiteral("↑");
            name = QCoreApplication::translate("attnviz::app::MainWindow", "Up arrow key");
            break;
        case Qt::Key_Down:
            arrow = QStringLiteral("↓");
            name = QCoreApplication::translate("attnviz::app::MainWindow", "Down arrow key");
            break;
        default:
            keys << QStringLiteral("<b>%1</b>")
                        .arg(QKeySequence(combination)
                                 .toString(QKeySequence::NativeText)
                                 .toHtmlEscaped());
            continue;
        }
        QString modifiers;
        const Qt::KeyboardModifiers held = combination.keyboardModifiers();
        if (held & Qt::ControlModifier)
            modifiers += QStringLiteral("Ctrl+");
        if (held & Qt::AltModifier)
            modifiers += QStringLiteral("Alt+");
        if (held & Qt::ShiftModifier)
            modifiers += QStringLiteral("Shift+");
        if (held & Qt::MetaModifier)
            modifiers += QStringLiteral("Meta+");
        keys << QStringLiteral("<b>%1%2</b> %3").arg(modifiers, arrow, name.toHtmlEscaped());
    }
    return keys.join(QStringLiteral(", "));
}

} // namespace

void showShortcuts(QWidget* parent, const QMenuBar* menus)
{
    QString rows;
    for (const QMenu* menu : menus->findChildren<QMenu*>()) {
        for (const QAction* action : menu->actions()) {
            if (action->shortcut().isEmpty())
                continue;
            rows += QStringLiteral("<tr><td>%1</td><td>%2</td></tr>")
                        .arg(shortcutCell(action->shortcut()),
                             action->text().remove(QLatin1Char('&')).toHtmlEscaped());
        }
    }
    rows += QStringLiteral("<tr><td><b>1 … 9, 0</b></td><td>%1</td></tr>")
                .arg(QCoreApplication::translate("attnviz::app::MainWindow",
                                                 "In presentation mode: go to step 1 … 10")
                         .toHtmlEscaped());
    rows += QStringLiteral("<tr><td><b>H</b></td><td>%1</td></tr>")
                .arg(QCoreApplication::translate(
                         "attnviz::app::MainWindow",
                         "In presentation mode: the next head alone, then all heads")
                         .toHtmlEscaped());
    rows +=
        QStringLiteral("<tr><td><b>Esc</b></td><td>%1</td></tr>")
            .arg(QCoreApplication::translate("attnviz::app::MainWindow", "Leave presentation mode")
                     .toHtmlEscaped());
    auto* box = new QMessageBox(
        QMessageBox::NoIcon,
        QCoreApplication::translate("attnviz::app::MainWindow", "Keyboard shortcuts"),
        QStringLiteral("<table cellspacing=\"6\">%1</table>").arg(rows), QMessageBox::Close,
        parent);
    box->setObjectName(QStringLiteral("shortcuts"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace attnviz::app
