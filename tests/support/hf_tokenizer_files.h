#pragma once

// The Hugging Face tokenizer files the tests read: the committed real vocabularies, and the
// tokenizer.json files the Hub has for them, built from those vocabularies.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::test {

/// A file under tests/data, whole.
inline std::string readData(const std::string& relative)
{
    const std::string path = std::string(ATTNVIZ_TEST_DATA_DIR) + "/" + relative;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read test data " + path);
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

inline std::string jsonString(std::string_view s)
{
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

inline std::vector<std::string> lines(std::string_view text)
{
    std::vector<std::string> out;
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

/// GPT-2's tokenizer.json as the Hub has it, built from the committed vocab.json and merges.txt;
/// `pairs` writes each merge as ["left", "right"] instead of "left right".
inline std::string gpt2TokenizerJson(bool pairs)
{
    std::string merges;
    for (const std::string& line : lines(readData("hf/gpt2/merges.txt"))) {
        if (line.starts_with("#version"))
            continue;
        const std::size_t space = line.find(' ');
        merges += merges.empty() ? "" : ",";
        merges += pairs ? "[" + jsonString(line.substr(0, space)) + "," +
                jsonString(line.substr(space + 1)) + "]"
                        : jsonString(line);
    }
    return R"({"added_tokens":[{"id":50256,"content":"<|endoftext|>","special":true}],)"
           R"("normalizer":null,"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false},)"
           R"("model":{"type":"BPE","dropout":null,"vocab":)" +
        readData("hf/gpt2/vocab.json") + R"(,"merges":[)" + merges + "]}}";
}

/// bert-base-uncased's tokenizer.json as the Hub has it, built from the committed vocab.txt.
inline std::string bertTokenizerJson()
{
    std::string vocab;
    int id = 0;
    for (const std::string& token : lines(readData("hf/bert/vocab.txt")))
        vocab += (vocab.empty() ? "" : ",") + jsonString(token) + ":" + std::to_string(id++);
    std::string added;
    const std::pair<const char*, int> special[] = {
        {"[PAD]", 0}, {"[UNK]", 100}, {"[CLS]", 101}, {"[SEP]", 102}, {"[MASK]", 103}};
    for (const auto& [content, tokenId] : special)
        added += (added.empty() ? "" : ",") + std::string(R"({"id":)") + std::to_string(tokenId) +
            R"(,"content":")" + content + R"(","special":true})";
    return R"({"added_tokens":[)" + added +
        R"(],"normalizer":{"type":"BertNormalizer","clean_text":true,)"
        R"("handle_chinese_chars":true,"strip_accents":null,"lowercase":true},)"
        R"("pre_tokenizer":{"type":"BertPreTokenizer"},"model":{"type":"WordPiece",)"
        R"("unk_token":"[UNK]","continuing_subword_prefix":"##",)"
        R"("max_input_chars_per_word":100,"vocab":{)" +
        vocab + "}}}";
}

} // namespace attnviz::test
