// #25.4: how far back a token hears through layers with sliding windows. L windowed layers of W
// keys reach L · (W − 1) tokens; a layer without a window lets every earlier token in; the map
// marks what a layer's own window reads (2), what arrives through the layers below (1) and what
// is out of reach (0), and blocks the tokens after the query. The modern demo's windows are its
// configuration's.
#include "engine/input_error.h"
#include "lesson/window_reach.h"
#include "model/model_fixtures.h"

#include <gtest/gtest.h>

namespace attnviz::lesson {
namespace {

std::vector<std::string> numbered(int n)
{
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i)
        out.push_back(std::to_string(i));
    return out;
}

TEST(WindowReach, WindowedLayersAddWMinusOneEach)
{
    const WindowReach r = windowReach({4, 4, 4}, numbered(21), 20);
    ASSERT_EQ(r.reach.size(), 3u);
    EXPECT_EQ(r.reach[0], 3);
    EXPECT_EQ(r.reach[1], 6);
    EXPECT_EQ(r.reach[2], 9);
    for (int L = 0; L < 3; ++L)
        for (int j = 0; j < 21; ++j) {
            const int back = 20 - j;
            const float expected = back < 4 ? 2.0f : back <= 3 * (L + 1) ? 1.0f : 0.0f;
            EXPECT_EQ(r.map.value(L, j), expected) << "layer " << L << " token " << j;
            EXPECT_FALSE(r.map.blocked(L, j));
        }
}

TEST(WindowReach, AFullLayerLetsEveryEarlierTokenInAndLaterTokensAreBlocked)
{
    const WindowReach r = windowReach({3, std::nullopt, 3}, numbered(12), 8);
    EXPECT_EQ(r.reach[0], 2);
    EXPECT_FALSE(r.reach[1]);
    EXPECT_FALSE(r.reach[2]);
    for (int j = 0; j <= 8; ++j) {
        EXPECT_EQ(r.map.value(1, j), 2.0f);
        EXPECT_EQ(r.map.value(2, j), 8 - j < 3 ? 2.0f : 1.0f);
    }
    for (int j = 9; j < 12; ++j)
        EXPECT_TRUE(r.map.blocked(0, j));
    EXPECT_EQ(r.map.rows(), 3);
    EXPECT_EQ(r.map.matrix.columnLabels[5], "5");
}

TEST(WindowReach, TheModernDemosWindowsAreItsConfigurations)
{
    const auto model = test::openModel("modern");
    const auto windows = layerWindows(model->model->config());
    ASSERT_EQ(windows.size(), 4u);
    EXPECT_EQ(windows[0], 16);
    EXPECT_FALSE(windows[1]);
    EXPECT_EQ(windows[2], 16);
    EXPECT_FALSE(windows[3]);
}

TEST(WindowReach, ImpossibleStacksAreRefused)
{
    EXPECT_THROW(windowReach({}, numbered(3), 1), engine::InputError);
    EXPECT_THROW(windowReach({0}, numbered(3), 1), engine::InputError);
    EXPECT_THROW(windowReach({2}, numbered(3), 3), engine::InputError);
    EXPECT_THROW(windowReach({2}, numbered(3), -1), engine::InputError);
}

} // namespace
} // namespace attnviz::lesson
