// The colour maps against matplotlib (tests/data/colour_maps_reference.json, written by
// tools/make_colour_tables.py): the same numbers and range give the same colour as an imshow,
// at the edges of every level, at and beyond the ends of a range, on tiny and signed ranges.
#include "io/input_file.h"
#include "io/json.h"
#include "render/colour_map.h"

#include <gtest/gtest.h>

#include <QColor>

namespace attnviz::render {
namespace {

TEST(ColourMap, EveryLevelIsMatplotlibsColourForTheSameValueAndRange)
{
    const io::JsonValue reference = io::parseJson(
        io::readFile(std::string(ATTNVIZ_TEST_DATA_DIR) + "/colour_maps_reference.json"));
    int checked = 0;
    for (const io::JsonValue& c : reference.find("cases")->asArray()) {
        const std::string map = c.find("map")->asString();
        const auto scale = map == "kViridis" ? lesson::ColourScale::Sequential
                                             : lesson::ColourScale::Diverging;
        const std::pair range{c.find("low")->asNumber(), c.find("high")->asNumber()};
        const double value = c.find("value")->asNumber();
        const QString found = QColor(colourOf(value, range, scale)).name();
        ASSERT_EQ(found.toStdString(), c.find("colour")->asString())
            << map << " at " << value << " in [" << range.first << ", " << range.second << "]";
        ++checked;
    }
    EXPECT_GT(checked, 400);
}

TEST(ColourMap, TheEndsOfViridisAreItsPublishedColours)
{
    const std::pair<double, double> unit{0.0, 1.0};
    EXPECT_EQ(QColor(colourOf(0.0, unit, lesson::ColourScale::Sequential)).name(), "#440154");
    EXPECT_EQ(QColor(colourOf(1.0, unit, lesson::ColourScale::Sequential)).name(), "#fde725");
    EXPECT_EQ(QColor(colourOf(0.5, unit, lesson::ColourScale::Sequential)).name(), "#21918c");
}

} // namespace
} // namespace attnviz::render
