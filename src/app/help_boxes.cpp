#include "app/help_boxes.h"

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
            "Every number comes from the engine's trace, which is checked against "
            "PyTorch (see README).</p><p>Built with Qt %2 (running on Qt %3), Eigen %4 and "
            "QCustomPlot %5.</p>")
            .arg(QCoreApplication::applicationVersion(), QStringLiteral(QT_VERSION_STR),
                 QString::fromLatin1(qVersion()),
                 QStringLiteral("%1.%2.%3")
                     .arg(EIGEN_WORLD_VERSION)
                     .arg(EIGEN_MAJOR_VERSION)
                     .arg(EIGEN_MINOR_VERSION),
                 QStringLiteral(QCUSTOMPLOT_VERSION_STR)));
}

void showShortcuts(QWidget* parent, const QMenuBar* menus)
{
    QString rows;
    for (const QMenu* menu : menus->findChildren<QMenu*>()) {
        for (const QAction* action : menu->actions()) {
            if (action->shortcut().isEmpty())
                continue;
            rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                        .arg(action->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(),
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
