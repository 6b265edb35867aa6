// The tokenizers of io/tokenizer. The first byte of the input picks what is fuzzed:
//   0  ByteLevelBpe::fromVocabAndMerges   chunks (fuzz_support.h): 0 vocab.json, 1 merges.txt,
//   1  ByteLevelBpe::fromTokenizerJson    2 the text to encode (selectors taken modulo 3);
//   2  WordPiece::fromVocabTxt            for 1 and 3, chunk 0 is tokenizer.json and for 2
//   3  WordPiece::fromTokenizerJson       vocab.txt
//   4  GPT-2's real tokenizer (tests/data/hf/gpt2) on the rest of the input as text
//   5  bert-base-uncased's real tokenizer (tests/data/hf/bert) on the rest of the input
//   6  added tokens (io::SpecialTokens): chunk 0's lines are the tokens, chunk 2 the text; the
//      cut must be the leftmost-longest one that checking every token at every position finds
//   7  TokenizerPipeline::fromTokenizerJson   chunk 0 is tokenizer.json, chunk 2 the text
//   8  Llama 3's real tokenizer (tests/data/tokenizers/llama3) on the rest of the input as text
//   9  Llama 2's real tokenizer (tests/data/tokenizers/llama2) on the rest of the input
// (the byte is taken modulo 10). A tokenizer that is built encodes the text; the ids must be
// inside the vocabulary, and GPT-2's byte-level encoding must decode back to the exact bytes
// whenever its special tokens are spelled in its own byte alphabet (always true of vocab.json +
// merges.txt, whose only special token is <|endoftext|>), as must Llama 3's for any bytes.
#include "fuzz_support.h"

#include "io/tokenizer/special_tokens.h"
#include "io/tokenizer/tokenizer_pipeline.h"

namespace attnviz::fuzz {
namespace {

/// What every tokenizer promises about ids: each is in the vocabulary, and names a token that
/// maps back to an id.
void checkIds(const io::Tokenizer& tokenizer, const std::vector<int>& ids)
{
    for (const int id : ids) {
        require(id >= 0 && id < tokenizer.size(),
                "encode gave id " + std::to_string(id) + " outside the vocabulary of " +
                    std::to_string(tokenizer.size()));
        const std::string token = tokenizer.token(id);
        require(tokenizer.id(token).has_value(), "the token of an encoded id has no id");
        (void)tokenizer.displayToken(id);
    }
    (void)tokenizer.tokenTypes(ids);
    require(tokenizer.displayTokens(ids).size() == ids.size() &&
                tokenizer.tokenDetails(ids).size() == ids.size(),
            "displayTokens or tokenDetails gave another number of tokens than ids");
}

void exerciseBpe(const io::ByteLevelBpe& bpe, std::string_view text, bool roundTrip)
{
    const std::vector<int> ids = bpe.encode(text);
    checkIds(bpe, ids);
    const std::string decoded = bpe.decode(ids);
    if (roundTrip)
        require(decoded == text, "decode(encode(x)) != x for a byte-level BPE");
}

void exerciseWordPiece(const io::WordPiece& wordPiece, std::string_view text)
{
    const std::vector<int> ids = wordPiece.encode(text);
    require(ids.size() >= 2, "WordPiece's encode lacks [CLS] or [SEP]");
    checkIds(wordPiece, ids);
    (void)wordPiece.decode(ids);
    (void)wordPiece.encodeWithoutSpecialTokens(text);
}

void exercisePipeline(const io::TokenizerPipeline& pipeline, std::string_view text, bool roundTrip)
{
    const std::vector<int> ids = pipeline.encodeWithoutSpecialTokens(text);
    checkIds(pipeline, ids);
    checkIds(pipeline, pipeline.encode(text));
    const std::string decoded = pipeline.decode(ids);
    if (roundTrip)
        require(decoded == text, "decode(encode(x)) != x for Llama 3's byte-level pipeline");
}

/// Added tokens cut from the text as io::SpecialTokens promises: the pieces spell the text, each
/// token piece is the token of its id, and each is the longest token starting where it starts,
/// the first one found scanning from the left (checked one by one when the input is small).
void exerciseAddedTokens(std::string_view lines, std::string_view text)
{
    std::vector<std::pair<std::string, int>> tokens;
    for (std::size_t start = 0; start <= lines.size() && tokens.size() < 4096;) {
        const std::size_t end = std::min(lines.find('\n', start), lines.size());
        tokens.emplace_back(std::string(lines.substr(start, end - start)),
                            static_cast<int>(tokens.size()));
        start = end + 1;
    }
    const io::SpecialTokens special(tokens);
    const bool small = tokens.size() <= 64 && text.size() <= 4096;
    // The first token of the longest among those starting at `pos`, as checking each would find.
    const auto longestAt = [&](std::size_t pos) {
        const std::pair<std::string, int>* best = nullptr;
        for (const auto& token : tokens)
            if (!token.first.empty() && text.substr(pos).starts_with(token.first) &&
                (!best || token.first.size() > best->first.size()))
                best = &token;
        return best;
    };
    std::string spelled;
    std::size_t pos = 0;
    for (const io::SpecialTokens::Piece& piece : special.split(text)) {
        require(!piece.text.empty(), "SpecialTokens::split gave an empty piece");
        require(piece.text.data() == text.data() + pos, "the pieces do not follow each other");
        if (piece.id >= 0) {
            require(piece.id < static_cast<int>(tokens.size()) &&
                        tokens[static_cast<std::size_t>(piece.id)].first == piece.text,
                    "a token piece is not the token of its id");
            if (small) {
                const auto* best = longestAt(pos);
                require(best && best->first.size() == piece.text.size(),
                        "a token piece is not the longest token starting there");
            }
        } else if (small) {
            for (std::size_t k = pos; k < pos + piece.text.size(); ++k)
                require(!longestAt(k), "a text piece holds a token");
        }
        spelled += piece.text;
        pos += piece.text.size();
    }
    require(spelled == text, "the pieces do not spell the text");
}

/// Ids read from the text's bytes, two at a time: decode must refuse the unknown ones with
/// std::out_of_range (as documented) and nothing else.
void decodeAnyIds(const io::Tokenizer& tokenizer, std::string_view text)
{
    std::vector<int> ids;
    for (std::size_t i = 0; i + 1 < text.size() && ids.size() < 64; i += 2)
        ids.push_back(static_cast<std::int16_t>(static_cast<unsigned char>(text[i]) |
                                                static_cast<unsigned char>(text[i + 1]) << 8));
    try {
        (void)tokenizer.decode(ids);
    } catch (const std::out_of_range&) {
    }
}

} // namespace

void fuzzTokenizers(std::string_view input)
{
    if (input.empty())
        return;
    const int mode = static_cast<unsigned char>(input[0]) % 10;
    input.remove_prefix(1);
    if (mode == 4) {
        exerciseBpe(realGpt2(), input, true);
        decodeAnyIds(realGpt2(), input);
        return;
    }
    if (mode == 5) {
        exerciseWordPiece(realBert(), input);
        decodeAnyIds(realBert(), input);
        return;
    }
    if (mode == 8 || mode == 9) {
        const io::TokenizerPipeline& real = mode == 8 ? realLlama3() : realLlama2();
        exercisePipeline(real, input, mode == 8);
        decodeAnyIds(real, input);
        return;
    }
    std::string files[3];
    for (const Chunk& chunk : decodeChunks(input))
        files[chunk.selector % 3] += chunk.bytes;
    const std::string& text = files[2];
    if (mode == 6) {
        exerciseAddedTokens(files[0], text);
        return;
    }
    acceptingDocumentedRejections([&] {
        switch (mode) {
        case 0:
            exerciseBpe(io::ByteLevelBpe::fromVocabAndMerges(files[0], files[1]), text, true);
            break;
        case 1:
            exerciseBpe(io::ByteLevelBpe::fromTokenizerJson(files[0]), text, false);
            break;
        case 2:
            exerciseWordPiece(io::WordPiece::fromVocabTxt(files[0]), text);
            break;
        case 7:
            exercisePipeline(*io::TokenizerPipeline::fromTokenizerJson(files[0]), text, false);
            break;
        default:
            exerciseWordPiece(io::WordPiece::fromTokenizerJson(files[0]), text);
            break;
        }
    });
}

} // namespace attnviz::fuzz

ATTNVIZ_FUZZ_ENTRY_POINT(attnviz::fuzz::fuzzTokenizers)
