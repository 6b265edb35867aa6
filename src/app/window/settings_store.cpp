#include "app/window/settings_store.h"

#include <QSettings>

#include <QStringList>
#include <algorithm>

namespace attnviz::app {
namespace {

QStringList toList(const std::vector<std::string>& v)
{
    QStringList out;
    for (const std::string& s : v)
        out << QString::fromStdString(s);
    return out;
}

std::vector<std::string> fromList(const QStringList& l)
{
    std::vector<std::string> out;
    for (const QString& s : l)
        out.push_back(s.toStdString());
    return out;
}

} // namespace

void savePlaygroundSettings(QSettings& store, const lesson::PlaygroundSettings& s)
{
    store.beginGroup(QStringLiteral("playground"));
    store.setValue(QStringLiteral("querySentences"), toList(s.querySentences));
    store.setValue(QStringLiteral("keyValueSentences"), toList(s.keyValueSentences));
    store.setValue(QStringLiteral("characterTokens"), s.tokenUnit == lesson::TokenUnit::Character);
    store.setValue(QStringLiteral("positions"), static_cast<int>(s.positions));
    store.setValue(QStringLiteral("ropeTheta"), s.ropeTheta);
    store.setValue(QStringLiteral("modelWidth"), s.modelWidth);
    store.setValue(QStringLiteral("heads"), s.heads);
    store.setValue(QStringLiteral("keyValueHeads"), s.keyValueHeads);
    store.setValue(QStringLiteral("queryKeySize"), s.queryKeySize);
    store.setValue(QStringLiteral("valueSize"), s.valueSize);
    store.setValue(QStringLiteral("outputWidth"), s.outputWidth);
    store.setValue(QStringLiteral("bias"), s.bias);
    store.setValue(QStringLiteral("mask"), static_cast<int>(s.mask));
    QStringList cells;
    for (const auto& [q, k] : s.blockedCells)
        cells << QStringLiteral("%1,%2").arg(q).arg(k);
    store.setValue(QStringLiteral("blockedCells"), cells);
    store.setValue(QStringLiteral("validLengths"), QString::fromStdString(s.validLengths));
    store.setValue(QStringLiteral("slidingWindow"), s.slidingWindow);
    store.setValue(QStringLiteral("onlineSoftmaxTile"), s.onlineSoftmaxTile);
    QStringList heads;
    for (const int h : s.ablatedHeads)
        heads << QString::number(h);
    store.setValue(QStringLiteral("ablatedHeads"), heads);
    store.setValue(QStringLiteral("seed"), s.seed);
    store.endGroup();
}

lesson::PlaygroundSettings loadPlaygroundSettings(const QSettings& store)
{
    lesson::PlaygroundSettings s;
    const auto get = [&store](const char* key, const QVariant& fallback) {
        return store.value(QStringLiteral("playground/") + QLatin1String(key), fallback);
    };
    if (store.contains(QStringLiteral("playground/querySentences")))
        s.querySentences = fromList(get("querySentences", {}).toStringList());
    s.keyValueSentences = fromList(get("keyValueSentences", {}).toStringList());
    s.tokenUnit = get("characterTokens", false).toBool() ? lesson::TokenUnit::Character
                                                         : lesson::TokenUnit::Word;
    // Before rotary positions the choice was a check box, kept under its old key.
    const int oldPositions = get("positionalEncoding", true).toBool() ? 1 : 0;
    s.positions =
        static_cast<lesson::PositionKind>(std::clamp(get("positions", oldPositions).toInt(), 0, 2));
    s.ropeTheta = get("ropeTheta", s.ropeTheta).toDouble();
    s.modelWidth = get("modelWidth", s.modelWidth).toInt();
    s.heads = get("heads", s.heads).toInt();
    s.keyValueHeads = get("keyValueHeads", 0).toInt();
    s.queryKeySize = get("queryKeySize", 0).toInt();
    s.valueSize = get("valueSize", 0).toInt();
    s.outputWidth = get("outputWidth", 0).toInt();
    s.bias = get("bias", s.bias).toBool();
    s.mask = static_cast<lesson::MaskKind>(std::clamp(get("mask", 0).toInt(), 0, 3));
    for (const QString& cell : get("blockedCells", {}).toStringList()) {
        const QStringList parts = cell.split(QLatin1Char(','));
        if (parts.size() == 2)
            s.blockedCells.insert({parts[0].toInt(), parts[1].toInt()});
    }
    // Kept to a line's worth: a settings file edited by hand cannot make the field huge.
    s.validLengths = get("validLengths", QString()).toString().left(400).toStdString();
    s.slidingWindow = get("slidingWindow", 0).toInt();
    s.onlineSoftmaxTile = get("onlineSoftmaxTile", 0).toInt();
    for (const QString& head : get("ablatedHeads", {}).toStringList()) {
        bool ok = false;
        const int h = head.toInt(&ok);
        if (ok && h >= 0)
            s.ablatedHeads.insert(h);
    }
    s.seed = get("seed", s.seed).toUInt();
    return s;
}

void saveStep(QSettings& store, lesson::LessonStepIndex step)
{
    const std::string_view key = lesson::kLessonSteps[step].key;
    store.setValue(QStringLiteral("window/step"),
                   QString::fromLatin1(key.data(), static_cast<qsizetype>(key.size())));
}

lesson::LessonStepIndex loadStep(const QSettings& store)
{
    return lesson::lessonStepIndex(
               store.value(QStringLiteral("window/step")).toString().toStdString())
        .value_or(0);
}

void saveModelRequest(QSettings& store, const lesson::ModelSource& request)
{
    store.beginGroup(QStringLiteral("model"));
    store.setValue(QStringLiteral("folder"), QString::fromStdString(request.folder));
    store.setValue(QStringLiteral("text"), QString::fromStdString(request.text));
    store.setValue(QStringLiteral("target"),
                   QString::fromStdString(request.target.value_or(std::string())));
    store.setValue(QStringLiteral("generate"), request.generate);
    store.setValue(QStringLiteral("image"), QString::fromStdString(request.image));
    store.endGroup();
}

lesson::ModelSource loadModelRequest(const QSettings& store)
{
    if (!store.contains(QStringLiteral("model/folder")))
        return defaultModelRequest();
    lesson::ModelSource r;
    r.folder = store.value(QStringLiteral("model/folder")).toString().toStdString();
    r.text = store.value(QStringLiteral("model/text")).toString().toStdString();
    const QString target = store.value(QStringLiteral("model/target")).toString();
    if (!target.isEmpty())
        r.target = target.toStdString();
    r.generate = std::clamp(store.value(QStringLiteral("model/generate")).toInt(), 0, 256);
    r.image = store.value(QStringLiteral("model/image")).toString().toStdString();
    return r;
}

lesson::ModelSource defaultModelRequest()
{
    lesson::ModelSource r;
    r.folder = "reverse"; // its example text comes from its config.json
    return r;
}

void savePreferences(QSettings& store, const Preferences& preferences)
{
    if (preferences.memoryLimit)
        store.setValue(QStringLiteral("preferences/memoryLimit"),
                       QString::number(*preferences.memoryLimit));
    else
        store.remove(QStringLiteral("preferences/memoryLimit"));
}

Preferences loadPreferences(const QSettings& store)
{
    Preferences p;
    bool ok = false;
    const qulonglong bytes =
        store.value(QStringLiteral("preferences/memoryLimit")).toString().toULongLong(&ok);
    if (ok && bytes > 0)
        p.memoryLimit = bytes;
    return p;
}

void savePredictMode(QSettings& store, bool on)
{
    store.setValue(QStringLiteral("experiments/predictThenReveal"), on);
}

bool loadPredictMode(const QSettings& store)
{
    return store.value(QStringLiteral("experiments/predictThenReveal"), false).toBool();
}

void saveAnimations(QSettings& store, bool on)
{
    store.setValue(QStringLiteral("view/animations"), on);
}

bool loadAnimations(const QSettings& store)
{
    return store.value(QStringLiteral("view/animations"), true).toBool();
}

void saveWindowGeometry(QSettings& store, const QByteArray& geometry)
{
    store.setValue(QStringLiteral("window/geometry"), geometry);
}

QByteArray loadWindowGeometry(const QSettings& store)
{
    return store.value(QStringLiteral("window/geometry")).toByteArray();
}

void saveTourOffered(QSettings& store)
{
    store.setValue(QStringLiteral("tour/offered"), true);
}

bool loadTourOffered(const QSettings& store)
{
    return store.value(QStringLiteral("tour/offered")).toBool();
}

void saveLanguage(QSettings& store, const QString& code)
{
    store.setValue(QStringLiteral("language"), code);
}

QString loadLanguage(const QSettings& store, const QString& fallback)
{
    return store.value(QStringLiteral("language"), fallback).toString();
}

void saveRecentLessons(QSettings& store, const QStringList& paths)
{
    store.setValue(QStringLiteral("lessons/recent"), paths);
}

QStringList loadRecentLessons(const QSettings& store, int limit)
{
    // A settings file edited by hand may hold more.
    return store.value(QStringLiteral("lessons/recent")).toStringList().mid(0, limit);
}

void removeRecentLessons(QSettings& store)
{
    store.remove(QStringLiteral("lessons/recent"));
}

void saveSessionLessonText(QSettings& store, const QString& text)
{
    store.setValue(QStringLiteral("session/lesson"), text);
}

QString loadSessionLessonText(const QSettings& store)
{
    return store.value(QStringLiteral("session/lesson")).toString();
}

} // namespace attnviz::app
