#pragma once

#include "io/tokenizer/tokenizer.h"

namespace attnviz::io {

/// The "tokens" of a Vision Transformer, for every view that labels tokens: id 0 is "[CLS]", id 1
/// DeiT's "[DIST]", then the patches row by row of the grid, each named "row,column" ("0,3").
/// A Vision Transformer reads a picture, so encode() refuses text in one sentence.
class PatchTokenizer : public Tokenizer {
public:
    PatchTokenizer(int patchRows, int patchColumns, bool distillationToken);

    std::string_view kind() const override { return "image patches"; }
    int size() const override { return m_extra + m_rows * m_columns; }
    std::vector<int> encode(std::string_view text) const override;
    std::string decode(const std::vector<int>& ids) const override;
    std::string token(int id) const override;
    std::optional<int> id(std::string_view token) const override;

private:
    int m_rows;
    int m_columns;
    int m_extra;
};

} // namespace attnviz::io
