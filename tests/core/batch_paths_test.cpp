// Recipe names and output paths (core/batch/output_paths.h) and the TOML nesting pre-scan
// (core/batch/toml_prescan.h): what keeps a recipe from writing outside its output folder or
// crashing toml++.
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "core/batch/output_paths.h"
#include "core/batch/toml_prescan.h"

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;

TEST(RunNames, SafeCharsetNoSeparatorsNoDotsBoundedLength) {
    for (const char* ok : {"fox", "fox-pro", "tfm_1.3b", "a+b", "X9"})
        EXPECT_TRUE(isSafeRunName(ok)) << ok;
    for (const char* bad : {"", ".", "..", "../x", "/tmp/x", "a/b", "a\\b", ".hidden", "a b", "a:b",
                            "caf\xc3\xa9", "tab\t"})
        EXPECT_FALSE(isSafeRunName(bad)) << bad;
    EXPECT_TRUE(isSafeRunName(std::string(kMaxRunNameBytes, 'a')));
    EXPECT_FALSE(isSafeRunName(std::string(kMaxRunNameBytes + 1, 'a')));
    EXPECT_TRUE(isSafeDocumentName("my essay (draft).txt"));
    for (const char* bad : {"", ".", "..", "a/b", "a\nb"})
        EXPECT_FALSE(isSafeDocumentName(bad)) << bad;
}

TEST(OutputPaths, StayInsideTheOutputFolder) {
    const fs::path root =
        fs::temp_directory_path() / ("gatescope-paths-" + std::to_string(::getpid()));
    fs::create_directories(root / "out" / "traces");
    auto inside = pathInside(root / "out", "traces/fox/doc.0.h5");
    ASSERT_TRUE(inside) << inside.error().describe();
    EXPECT_EQ(*inside, root / "out" / "traces/fox/doc.0.h5");
    for (const char* bad : {"/etc/passwd", "../x.h5", "traces/../../x", "./a", ""}) {
        auto refused = pathInside(root / "out", bad);
        ASSERT_FALSE(refused) << bad;
        EXPECT_EQ(refused.error().kind, ErrorKind::Usage);
        EXPECT_NE(refused.error().message.find("refusing to write"), std::string::npos);
    }
    // A symbolic link inside the folder that leads out of it.
    fs::create_directory_symlink(root, root / "out" / "escape");
    auto escaped = pathInside(root / "out", "escape/x.h5");
    ASSERT_FALSE(escaped);
    EXPECT_NE(escaped.error().message.find("outside the output folder"), std::string::npos);
    fs::remove_all(root);
}

TEST(TomlPrescan, RefusesDeepDottedKeysAndHeadersBeforeToml) {
    std::string dotted = "a";
    for (int i = 0; i < 100000; ++i)
        dotted += ".b";
    auto key = checkTomlNesting("output = \"x\"\n" + dotted + " = 1\n", "r.toml");
    ASSERT_FALSE(key);
    EXPECT_EQ(key.error().kind, ErrorKind::Format);
    EXPECT_EQ(key.error().file, "r.toml");
    EXPECT_NE(key.error().message.find("line 2"), std::string::npos) << key.error().message;
    EXPECT_FALSE(checkTomlNesting("[" + dotted + "]\nx = 1\n", "r.toml"));
    EXPECT_FALSE(checkTomlNesting("[[" + dotted + "]]\n", "r.toml"));
    EXPECT_FALSE(checkTomlNesting("x = { " + dotted + " = 1 }\n", "r.toml"));
    // Depth adds up: header parts + key parts + brackets.
    std::string arrays = "x = " + std::string(80, '[') + std::string(80, ']') + "\n";
    EXPECT_FALSE(checkTomlNesting(arrays, "r.toml"));
    std::string mixed =
        "[a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t]\nu.v.w.x.y.z = " + std::string(40, '[') +
        std::string(40, ']');
    EXPECT_FALSE(checkTomlNesting(mixed, "r.toml"));
}

TEST(TomlPrescan, AcceptsOrdinaryRecipesWhateverTheirStringsHold) {
    const char* recipe = R"(# a comment with [[brackets]] and a.b.c.d
output = "out.[x].y"
checkpoints = ["m", { name = "t", path = "a.b/c" }]
inputs = ['''
multi.line.literal [[[ ''', """basic "quoted" [{""" ]
trace.dtype = "float32"
analyses = { loss = true, "bin.width" = 64, nested = { a = [1, [2, [3]]] } }

[trace.extra]
layers = [
  0, 1,  # a comment inside an array
  2,
]

[[figures]]
range = "0:512"
version = 1.5e3
)";
    auto st = checkTomlNesting(recipe, "r.toml");
    EXPECT_TRUE(st) << st.error().describe();
    std::string deepString = "x = \"" + std::string(100000, '.') + std::string(1000, '[') + "\"\n";
    EXPECT_TRUE(checkTomlNesting(deepString, "r.toml"));
}

// toml++ 3.3 reaches __builtin_unreachable() when it tests some non-ASCII characters for
// whitespace (fuzz/recipe_toml_fuzz found U+FEFC, "\xEF\xBB\xBC", at the start of a recipe).
TEST(TomlPrescan, NonAsciiOutsideStringsAndCommentsIsRefusedBeforeTomlpp) {
    for (const std::string& text :
         {std::string("\xEF\xBB\xBCoutput = \"x\"\n"),
          std::string("output = \"x\"\n\xC2\xA1 = 1\n"), std::string("x =\xE3\x80\x81 1\n"),
          std::string("[a\xC3\xA9]\n"), std::string("x = \"\"\"a\\\n  \xC3\xA9\"\"\"\n"),
          std::string("x = \"\\\xC3\xA9\"\n"),
          // toml++ reads a bare value up to a terminator, through quotes (recipe_toml_fuzz found
          // `1024\x0e...\"...\xCC\xB1` in a long run): fuzz/regressions/recipe_toml/
          std::string("oe = 1024x\"a\xCC\xB1\"\n"), std::string("x = [1, tru\xC3\xA9]\n")}) {
        auto st = checkTomlNesting(text, "r.toml");
        ASSERT_FALSE(st) << text;
        EXPECT_EQ(st.error().file, "r.toml");
        EXPECT_NE(st.error().message.find("non-ASCII character"), std::string::npos)
            << st.error().message;
    }
    auto line = checkTomlNesting("output = \"x\"\n\xC2\xA1 = 1\n", "r.toml");
    ASSERT_FALSE(line);
    EXPECT_NE(line.error().message.find("line 2"), std::string::npos) << line.error().message;
    // Where TOML allows them: strings, comments, and a byte order mark first.
    for (const std::string& text :
         {std::string("\xEF\xBB\xBFoutput = \"\xC3\xA9t\xC3\xA9\" # caf\xC3\xA9\n"),
          std::string("x = '\xE3\x80\x81'\ny = \"\"\"\n\xC2\xA1\"\"\"\nz = \"\\u00e9\xC3\xA9\"\n"),
          std::string("n = 1024 # \xC3\xA9\nd = 1979-05-27 07:32:00\ns = [1,\"\xC3\xA9\"]\n")}) {
        auto st = checkTomlNesting(text, "r.toml");
        EXPECT_TRUE(st) << text << ": " << st.error().describe();
    }
}

}  // namespace
}  // namespace gatescope::core
