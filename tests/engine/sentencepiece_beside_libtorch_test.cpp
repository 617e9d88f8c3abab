// SentencePiece tokenization inside a process that links LibTorch, as the gatescope binary does:
// LibTorch brings the system libprotobuf and libsentencepiece carries a protobuf-lite of another
// version. Both run in one process because the module keeps libsentencepiece out of the
// process's main link namespace (core/tokenizer/sentencepiece_module.h). Here, not in core_tests:
// only this suite loads LibTorch.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include "core/checkpoint_test_helpers.h"
#include "core/tokenizer/sentencepiece_module.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "core/tokenizer_reference_tools.h"
#include "engine/models/registry.h"

namespace gatescope::core {
namespace {

using namespace gatescope::test;

TEST(SentencePieceBesideLibTorch, EncodesLikeSpmEncode) {
    if (!haveSentencePieceTools()) GTEST_SKIP() << "spm_train not on PATH (sentencepiece)";
    if (!sentencePieceAvailable()) GTEST_SKIP() << "gatescope built without SentencePiece";
    // Keeps the engine (and so LibTorch) linked into this test's process.
    ASSERT_FALSE(knownModelTypes().empty());
    TempDir dir;
    std::string corpus;
    for (int i = 0; i < 300; ++i)
        corpus += "def tokenize(text): return text.split() # line " + std::to_string(i) + "\n";
    writeFile(dir / "corpus.txt", corpus);
    std::string log;
    const auto model = trainSentencePiece(dir.path(), "ascii", dir / "corpus.txt",
                                          "--model_type=bpe --vocab_size=320 "
                                          "--byte_fallback=true --normalization_rule_name=identity",
                                          &log);
    ASSERT_FALSE(model.empty()) << log;
    SentencePieceTokenizer::Options options;
    options.addBos = false;  // spm_encode adds none
    auto tok = SentencePieceTokenizer::fromFile(model, options);
    ASSERT_TRUE(tok) << tok.error().describe();
    EXPECT_NE(dlopen("libprotobuf.so.32", RTLD_LAZY | RTLD_NOLOAD), nullptr)
        << "LibTorch's libprotobuf is not loaded: this test proves nothing";
    EXPECT_EQ(dlopen("libsentencepiece.so.0", RTLD_LAZY | RTLD_NOLOAD), nullptr)
        << "libsentencepiece is in the main namespace, beside libprotobuf";
    const std::string line = "def tokenize(text)";
    auto enc = (*tok)->encode(line);
    ASSERT_TRUE(enc.ok()) << enc.error().describe();
    writeFile(dir / "line.txt", line + "\n");
    const auto want = spmEncodeIds(model, dir / "line.txt");
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(std::vector<int>(enc->ids.begin(), enc->ids.end()), want[0]);
}

}  // namespace
}  // namespace gatescope::core
