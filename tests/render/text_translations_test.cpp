// Every text of the lesson exists in Chinese with the same fields and the same placeholders, so
// nothing falls back to English and no number goes missing from a sentence; a checkpoint's
// description is translated only while its English text is the one translated.
#include "io/checkpoint/model_folder.h"
#include "render/model_description.h"
#include "render/text_resource.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>

#include <gtest/gtest.h>

namespace attnviz::render {
namespace {

class InLanguage {
public:
    explicit InLanguage(const char* name) { QLocale::setDefault(QLocale(name)); }
    ~InLanguage() { QLocale::setDefault(QLocale(QLocale::English)); }
};

QStringList placeholders(const QString& text)
{
    static const QRegularExpression placeholder("\\{[A-Za-z_]+\\}");
    QStringList found;
    for (auto m = placeholder.globalMatch(text); m.hasNext();)
        found << m.next().captured();
    found.sort();
    return found;
}

class TranslatedFolder : public testing::TestWithParam<const char*> { };

TEST_P(TranslatedFolder, EveryTextIsTranslatedWithTheSameFieldsAndPlaceholders)
{
    registerTextResources();
    const QString folder = QString::fromLatin1(GetParam());
    const QStringList files = QDir(":/" + folder).entryList({"*.txt"}, QDir::Files);
    ASSERT_FALSE(files.isEmpty()) << folder.toStdString();
    for (const QString& file : files) {
        const QString path = ":/" + folder + "/" + file;
        const std::string name = path.toStdString();
        ASSERT_TRUE(QFile::exists(":/zh_CN/" + folder + "/" + file))
            << name << " is not translated";
        const TextResource english = readTextResource({path});
        TextResource chinese;
        {
            InLanguage zh("zh_CN");
            chinese = readTextResource({path});
        }
        // A translated glossary term may add aliases (the English term, so it links too), the
        // the words it is not linked inside (not: 均值 for 值), which belong to one language.
        QStringList chineseKeys = chinese.fields.keys(), englishKeys = english.fields.keys();
        for (const char* languageOnly : {"aliases", "not"}) {
            chineseKeys.removeAll(languageOnly);
            englishKeys.removeAll(languageOnly);
        }
        ASSERT_EQ(chineseKeys, englishKeys) << name;
        for (auto field = english.fields.cbegin(); field != english.fields.cend(); ++field) {
            const QString translated = chinese.fields.value(field.key());
            EXPECT_EQ(placeholders(translated), placeholders(field.value()))
                << name << " " << field.key().toStdString();
            // Code, formulas, short symbol labels and a glossary's terms are the same in every
            // language; everything else is prose a student reads.
            static const QStringList notProse{"code",    "kinds",   "term",
                                              "aliases", "formula", "label"};
            if (!notProse.contains(field.key())) {
                EXPECT_NE(translated, field.value()) << name << " " << field.key().toStdString();
            }
        }
        EXPECT_EQ(placeholders(chinese.body), placeholders(english.body)) << name;
        EXPECT_EQ(chinese.body.isEmpty(), english.body.isEmpty()) << name;
        if (!english.body.isEmpty()) {
            EXPECT_NE(chinese.body, english.body) << name;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(LessonTexts, TranslatedFolder,
                         testing::Values("steps", "mistakes", "questions", "experiments",
                                         "glossary"));

QString demoDescription(const char* model)
{
    QFile config(QStringLiteral(ATTNVIZ_SOURCE_MODELS_DIR "/%1/config.json").arg(model));
    if (!config.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(config.readAll()).object().value("description").toString();
}

TEST(ModelDescription, EachDemoModelIsDescribedInChinese)
{
    for (const char* model : {"genesis", "induction", "reverse"}) {
        const QString english = demoDescription(model);
        ASSERT_FALSE(english.isEmpty()) << model;
        EXPECT_EQ(localisedModelDescription(english.toStdString()), english) << model;
        InLanguage zh("zh_CN");
        const QString chinese = localisedModelDescription(english.toStdString());
        EXPECT_NE(chinese, english) << model;
        EXPECT_TRUE(chinese.contains(QRegularExpression("[\\x{4e00}-\\x{9fff}]"))) << model;
    }
}

// A downloaded checkpoint's description is its layout's fixed sentence: each is translated.
TEST(ModelDescription, EachCheckpointLayoutIsDescribedInChinese)
{
    for (const char* folder : {"bert", "gpt2", "llama3", "mistral", "qwen2", "vit", "deit"}) {
        const std::string english =
            io::loadModel(std::string(ATTNVIZ_TEST_DATA_DIR "/hf/") + folder)
                .model->config()
                .description;
        ASSERT_FALSE(english.empty()) << folder;
        InLanguage zh("zh_CN");
        const QString chinese = localisedModelDescription(english);
        EXPECT_TRUE(chinese.contains(QRegularExpression("[\\x{4e00}-\\x{9fff}]"))) << english;
    }
}

TEST(ModelDescription, AnEditedOrUnknownDescriptionStaysAsWritten)
{
    InLanguage zh("zh_CN");
    const std::string edited = demoDescription("reverse").toStdString() + " Retrained.";
    EXPECT_EQ(localisedModelDescription(edited), QString::fromStdString(edited));
    EXPECT_EQ(localisedModelDescription(""), QString());
    EXPECT_EQ(localisedModelDescription("my own model"), QString("my own model"));
}

} // namespace
} // namespace attnviz::render
