// io::readAttentionImport on a parsed safetensors file, as the app and `attnviz-cli export
// --attentions` read attention weights computed elsewhere. An accepted import must keep its
// promises (docs/attention-import.md): one [1, heads, query, key] tensor per layer, one token per
// row and column, every row a probability distribution or all zeros, and the listed fully masked
// rows exactly the rows that are zero in every head.
#include "fuzz_support.h"

#include "io/attention_import.h"

#include <cmath>

namespace attnviz::fuzz {

void fuzzImport(std::string_view input)
{
    acceptingDocumentedRejections([&] {
        const io::SafetensorsFile file = io::SafetensorsFile::parse(std::string(input));
        const io::ImportedAttentions imported = io::readAttentionImport(file);
        require(imported.layers >= 1 && imported.heads >= 1, "an import without layers or heads");
        require(imported.weights.size() == static_cast<std::size_t>(imported.layers) &&
                    imported.fullyMaskedRows.size() == imported.weights.size(),
                "the layer count disagrees with the tensors");
        const auto queries = static_cast<std::int64_t>(imported.queryTokens.size());
        const auto keys = static_cast<std::int64_t>(imported.keyTokens.size());
        require(imported.crossAttention || imported.queryTokens == imported.keyTokens,
                "self-attention with different query and key tokens");
        for (std::size_t l = 0; l < imported.weights.size(); ++l) {
            const engine::Tensor& w = imported.weights[l];
            require(w.rank() == 4 && w.dim(0) == 1 && w.dim(1) == imported.heads &&
                        w.dim(2) == queries && w.dim(3) == keys,
                    "layer " + std::to_string(l) + " is not [1, heads, query, key]");
            std::vector<bool> zeroInEveryHead(static_cast<std::size_t>(queries), true);
            const float* v = w.data();
            for (std::int64_t h = 0; h < imported.heads; ++h)
                for (std::int64_t q = 0; q < queries; ++q) {
                    double sum = 0;
                    for (std::int64_t k = 0; k < keys; ++k, ++v) {
                        require(std::isfinite(*v) && *v >= 0, "a negative or non-finite weight");
                        sum += *v;
                    }
                    require(sum == 0 || std::abs(sum - 1) <= io::kImportedRowSumTolerance,
                            "a row that is no distribution");
                    if (sum != 0)
                        zeroInEveryHead[static_cast<std::size_t>(q)] = false;
                }
            std::size_t masked = 0;
            for (const engine::MaskedRow& row : imported.fullyMaskedRows[l]) {
                require(row.batch == 0 && row.query >= 0 && row.query < queries &&
                            zeroInEveryHead[static_cast<std::size_t>(row.query)],
                        "a listed fully masked row is not zero in every head");
                ++masked;
            }
            require(masked ==
                        static_cast<std::size_t>(
                            std::count(zeroInEveryHead.begin(), zeroInEveryHead.end(), true)),
                    "a row zero in every head is not listed as fully masked");
        }
    });
}

} // namespace attnviz::fuzz

ATTNVIZ_FUZZ_ENTRY_POINT(attnviz::fuzz::fuzzImport)
