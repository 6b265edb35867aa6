// The CSV and .npy writers, as unit tests (until #9 they were reached only through processes).
#include "io/labelled_matrix.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace attnviz::io {
namespace {

LabelledMatrix sample(const std::vector<float>& values)
{
    return {values.data(), 2, 3, "query", "key", {"the", "a, b"}, {"x", "\"q\"", " pad "}};
}

// #23: no cell is quoted, so numpy.genfromtxt (which knows no quotes and takes # for a comment)
// reads the file as a spreadsheet does: what would need quoting is written \xNN.
TEST(Csv, LabelsFirstRowAndColumnWithNothingThatNeedsQuoting)
{
    const std::vector<float> v{0.5f,  -1.25f,       3.0f,
                               1e-7f, 123456789.0f, -std::numeric_limits<float>::infinity()};
    EXPECT_EQ(csvBytes(sample(v)),
              "query\\key,x,\\x22q\\x22,\\x20pad\\x20\n"
              "the,0.5,-1.25,3\n"
              "a\\x2C b,1.00000001e-07,123456792,-inf\n");
    const std::vector<float> one{1.0f};
    EXPECT_EQ(csvBytes({one.data(), 1, 1, "r", "c", {"#1"}, {"a\nb"}}), "r\\c,a\\x0Ab\n\\x231,1\n");
}

// #22: tokens are input, and a CSV goes to spreadsheets, which run a cell beginning with =, +,
// -, @, a tab or a carriage return as a formula. Such a label starts with a quote mark; one that
// is a number stays a number, and so do the values.
TEST(Csv, LabelsASpreadsheetWouldRunAsFormulasAreNeutralised)
{
    const std::vector<float> v{-0.5f, 0.25f, 1.0f, 2.0f, 3.0f, 4.0f};
    const LabelledMatrix m{v.data(),
                           2,
                           3,
                           "query",
                           "key",
                           {"=HYPERLINK(\"http://x\")", "-0.5"},
                           {"+1+cmd|' /C calc'!A0", "@SUM(A1)", "\tx"}};
    EXPECT_EQ(csvBytes(m),
              "query\\key,'+1+cmd|' /C calc'!A0,'@SUM(A1),\\x09x\n"
              "'=HYPERLINK(\\x22http://x\\x22),-0.5,0.25,1\n"
              "-0.5,2,3,4\n");
    const LabelledMatrix signs{
        v.data(), 1, 6, "r", "c", {"-"}, {"-", "+3", "-inf", "-1e-7", ".5", "a-b"}};
    EXPECT_EQ(csvBytes(signs).substr(0, csvBytes(signs).find('\n')),
              "r\\c,'-,+3,'-inf,-1e-7,.5,a-b");
}

TEST(Csv, NineSignificantDigitsRoundTripEveryFloat)
{
    const std::vector<float> v{0.1f,      1.0f / 3.0f, 2.71828182f,
                               -7.5e-12f, 65504.0f,    1.17549435e-38f};
    const std::string csv = csvBytes({v.data(), 1, 6, "r", "c", {}, {}});
    const std::string row = csv.substr(csv.find('\n') + 1);
    std::size_t at = row.find(',') + 1;
    for (const float expected : v) {
        const std::size_t end = row.find_first_of(",\n", at);
        EXPECT_EQ(std::strtof(row.substr(at, end - at).c_str(), nullptr), expected)
            << row.substr(at, end - at);
        at = end + 1;
    }
}

TEST(Npy, HeaderIsPaddedTo64AndDataIsLittleEndianFloat32)
{
    const std::vector<float> v{1, 2, 3, 4, 5, 6};
    const std::string npy = npyBytes(sample(v));
    ASSERT_EQ(npy.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    const auto headerLength = static_cast<std::size_t>(static_cast<unsigned char>(npy[8]) |
                                                       static_cast<unsigned char>(npy[9]) << 8);
    EXPECT_EQ((10 + headerLength) % 64, 0u);
    const std::string header = npy.substr(10, headerLength);
    EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos);
    EXPECT_NE(header.find("'shape': (2, 3)"), std::string::npos);
    EXPECT_EQ(header.back(), '\n');
    ASSERT_EQ(npy.size(), 10 + headerLength + 6 * 4);
    float back[6];
    std::memcpy(back, npy.data() + 10 + headerLength, sizeof back);
    EXPECT_EQ(std::vector<float>(back, back + 6), v);
}

} // namespace
} // namespace attnviz::io
