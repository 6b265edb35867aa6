// The colour maps against matplotlib (tests/data/colour_maps_reference.json, written by
// tools/make_colour_tables.py): the same numbers and range give the same colour as an imshow,
// at the edges of every level, at and beyond the ends of a range, on tiny and signed ranges.
#include "io/input_file.h"
#include "io/json.h"
#include "render/colour_map.h"

#include <gtest/gtest.h>

#include <QColor>

#include <set>

namespace attnviz::render {
namespace {

TEST(ColourMap, EveryLevelIsMatplotlibsColourForTheSameValueAndRange)
{
    const io::JsonValue reference = io::parseJson(
        io::readFile(std::string(ATTNVIZ_TEST_DATA_DIR) + "/colour_maps_reference.json"));
    std::set<std::string> maps, stretches;
    int checked = 0;
    for (const io::JsonValue& c : reference.find("cases")->asArray()) {
        const std::string map = c.find("map")->asString();
        const ColourMap* found = colourMap(map);
        ASSERT_NE(found, nullptr) << map;
        Colouring colouring;
        const auto scale =
            found->diverging ? lesson::ColourScale::Diverging : lesson::ColourScale::Sequential;
        (found->diverging ? colouring.diverging : colouring.sequential) = found;
        const std::string stretch = c.find("stretch")->asString();
        if (stretch == "log")
            colouring.stretch = lesson::Stretch::Log;
        if (stretch == "power") {
            colouring.stretch = lesson::Stretch::Power;
            colouring.gamma = c.find("gamma")->asNumber();
        }
        const std::pair range{c.find("low")->asNumber(), c.find("high")->asNumber()};
        const double value = c.find("value")->asNumber();
        const QString colour = QColor(colourOf(value, range, scale, colouring)).name();
        ASSERT_EQ(colour.toStdString(), c.find("colour")->asString())
            << map << " (" << stretch << ") at " << value << " in [" << range.first << ", "
            << range.second << "]";
        maps.insert(map);
        stretches.insert(stretch);
        ++checked;
    }
    EXPECT_EQ(maps.size(), colourMaps().size()) << "every map is checked";
    EXPECT_EQ(stretches.size(), 3u);
    EXPECT_GT(checked, 1500);
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
