// Hostile traces through the real CLI (issue 29): `info`, `stats`, `compare` and `export` on
// traces made hostile with the HDF5 C API after `gatescope trace` wrote them: forged counts, deep
// JSON, external storage and links. Each ends in a clear error naming the file and the problem,
// exit 1, within a time limit and bounded memory, and writes nothing.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "tests/app/cli_bounded.h"
#include "tests/data/hostile_edits.h"

namespace gatescope {
namespace {

namespace fs = std::filesystem;
using test::quoted;

const fs::path kSourceRoot = GATESCOPE_SOURCE_DIR;

class HostileTraceCli : public ::testing::Test {
protected:
    // One valid 64-token FoX trace for the whole suite; each test edits copies of it.
    static void SetUpTestSuite() {
        suiteDir = new test::TempDir;
        auto r = test::runCli(fmt::format("trace --model {} --input {} --range 0:64 --out {}",
                                          quoted(kSourceRoot / "resources/models/fox"),
                                          quoted(kSourceRoot / "resources/samples/forgetting.txt"),
                                          quoted(*suiteDir / "good.h5")),
                              *suiteDir);
        ASSERT_EQ(r.exitCode, 0) << r.err;
    }
    static void TearDownTestSuite() {
        delete suiteDir;
        suiteDir = nullptr;
    }

    fs::path good() const { return *suiteDir / "good.h5"; }

    template <class Edit>
    fs::path hostile(const std::string& name, Edit edit) {
        const auto path = tmp / name;
        fs::copy_file(good(), path);
        test::editTrace(path, edit);
        return path;
    }

    // `gatescope ARGS` must fail with exit 1, naming `file` and `words`, in bounded time and
    // memory.
    test::BoundedResult expectRefused(const std::string& args, const fs::path& file,
                                      const std::string& words) {
        auto r = test::runCliBounded(args, tmp);
        EXPECT_FALSE(r.timedOut) << args;
        EXPECT_EQ(r.exitCode, 1) << args << "\n" << r.err;
        EXPECT_NE(r.err.find(file.string()), std::string::npos) << args << "\n" << r.err;
        EXPECT_NE(r.err.find(words), std::string::npos) << args << "\n" << r.err;
        EXPECT_LT(r.seconds, 30) << args;
        EXPECT_LT(r.maxRssMb, 1500) << args;
        std::cout << "    " << r.err;
        return r;
    }

    // Every reading subcommand on `trace`.
    std::vector<std::string> readers(const fs::path& trace) {
        std::vector<std::string> out = {
            "info " + quoted(trace), "info --json " + quoted(trace),
            "stats " + quoted(trace) + " --csv " + quoted(tmp / "csv"),
            "compare " + quoted(trace) + " " + quoted(good()) + " --csv " + quoted(tmp / "cmp"),
            "compare " + quoted(good()) + " " + quoted(trace)};
#ifdef GATESCOPE_WITH_GUI
        for (const char* figure : {"grid", "map", "loss"})
            out.push_back(fmt::format("export {} --figure {} --out {}", quoted(trace), figure,
                                      quoted(tmp / "fig.svg")));
#endif
        return out;
    }

    void expectNothingWritten() {
        for (const char* name : {"csv", "cmp", "fig.svg"})
            EXPECT_FALSE(fs::exists(tmp / name)) << name;
    }

    static test::TempDir* suiteDir;
    test::TempDir tmp;
};

test::TempDir* HostileTraceCli::suiteDir = nullptr;

TEST_F(HostileTraceCli, DeepJsonInExtrasIsAnErrorInEveryCommand) {
    const auto trace = hostile("deep-extras.h5", [](hid_t f) {
        test::setStringAttribute(f, "/layers/000", "extras", test::deepJson(100000));
    });
    for (const auto& args : readers(trace))
        expectRefused(args, trace, "/layers/000@extras: JSON nested deeper than");
    expectNothingWritten();
}

TEST_F(HostileTraceCli, DeepJsonInTheManifestIsAnErrorWhereverItIsRead) {
    const auto trace = hostile("deep-manifest.h5", [](hid_t f) {
        test::setScalarString(f, "/manifest", test::deepJson(100000));
    });
    expectRefused("info " + quoted(trace), trace, "/manifest: JSON nested deeper than");
    expectRefused("info --json " + quoted(trace), trace, "/manifest: JSON nested deeper than");
    // The others do not need the manifest: they must not crash, and they do not.
    for (const auto& args : readers(trace)) {
        auto r = test::runCliBounded(args, tmp);
        EXPECT_TRUE(r.exitCode == 0 || r.exitCode == 1) << args << "\n" << r.err;
        if (r.exitCode == 1) {
            EXPECT_NE(r.err.find("nested deeper"), std::string::npos) << r.err;
        }
    }
}

TEST_F(HostileTraceCli, ForgedCountsAreRefusedBeforeAllocating) {
    const auto disagrees =
        hostile("n-tokens.h5", [](hid_t f) { test::setIntAttribute(f, "/", "n_tokens", 65); });
    for (const auto& args : readers(disagrees))
        expectRefused(args, disagrees, "/tokens/ids: wrong shape");
    const auto huge = hostile("huge-n-tokens.h5", [](hid_t f) {
        test::setIntAttribute(f, "/", "n_tokens", int64_t{1} << 40);
    });
    for (const auto& args : readers(huge))
        expectRefused(args, huge, "n_tokens is 1099511627776");
    const auto heads = hostile(
        "n-heads.h5", [](hid_t f) { test::setIntAttribute(f, "/layers/000", "n_heads", 1000); });
    for (const auto& args : readers(heads))
        expectRefused(args, heads, "/layers/000/");
    const auto wrapped = hostile("wrapped-heads.h5", [](hid_t f) {
        test::setIntAttribute(f, "/layers/001", "n_heads", (int64_t{1} << 32) + 4);
    });
    expectRefused("export " + quoted(wrapped) + " --figure grid --out " + quoted(tmp / "g.svg"),
                  wrapped, "n_heads is 4294967300");
    expectNothingWritten();
}

TEST_F(HostileTraceCli, ExternalStorageNeverLeaksAnotherFilesBytes) {
    // /per_token/loss whose values HDF5 would read from /etc/passwd.
    const auto trace = hostile("passwd.h5", [](hid_t f) {
        test::replaceWithExternalStorage(f, "/per_token/loss", "/etc/passwd", 64);
    });
    for (const auto& args : readers(trace)) {
        auto r = expectRefused(args, trace, "stored in external file '/etc/passwd'");
        EXPECT_EQ(r.out.find("root"), std::string::npos) << r.out;
    }
    auto r = expectRefused("stats " + quoted(trace) + " --json " + quoted(tmp / "s.json"), trace,
                           "/per_token/loss");
    EXPECT_FALSE(fs::exists(tmp / "s.json"));
    expectNothingWritten();
}

TEST_F(HostileTraceCli, LinksOutOfTheFileAreNeverFollowed) {
    const auto external = hostile("elink.h5", [&](hid_t f) {
        test::replaceWithExternalLink(f, "/per_token/loss", good(), "/per_token/entropy");
    });
    for (const auto& args : readers(external))
        expectRefused(args, external,
                      "/per_token/loss: is an external link to '" + good().string() + "'");
    const auto layer = hostile("elink-layer.h5", [&](hid_t f) {
        test::replaceWithExternalLink(f, "/layers/001", good(), "/layers/001");
    });
    expectRefused("info " + quoted(layer), layer, "/layers/001: is an external link");
    expectNothingWritten();
}

TEST_F(HostileTraceCli, OptionsThatSizeWorkAreBounded) {
    const auto trace = quoted(good());
    for (const auto& [args, option] : std::vector<std::pair<std::string, std::string>>{
             {"stats " + trace + " --bins-per-octave 1e9", "--bins-per-octave"},
             {"stats " + trace + " --bins-per-octave 0", "--bins-per-octave"},
             {"stats " + trace + " --bin-width 0", "--bin-width"},
             {"stats " + trace + " --smooth=0", "--smooth"},
             {"stats " + trace + " --horizon-threshold 1.5", "--horizon-threshold"},
             {"stats " + trace + " --threads 100000000", "--threads"},
             {"stats " + trace + " --layers 0-2000000000", "--layers"},
             {"compare " + trace + " " + trace + " --bins-per-octave 1e9", "--bins-per-octave"},
             {"compare " + trace + " " + trace + " --bin-width=-1", "--bin-width"},
             {"compare " + trace + " " + trace + " --heads 0-99999999", "--heads"},
             // The same bound as trace (4 x the cores): 5000 passed the old 1024-thread cap.
             {"compare " + trace + " " + trace + " --threads 5000", "4 x the cores"},
             {"stats " + trace + " --threads 5000", "4 x the cores"},
             {"export " + trace + " --dpi 100000 --out " + quoted(tmp / "f.png"), "--dpi"},
             {"export " + trace + " --width 1e12 --out " + quoted(tmp / "f.png"), "--width"},
             {"export " + trace + " --head 5000 --out " + quoted(tmp / "f.png"), "--head"}}) {
        auto r = test::runCliBounded(args, tmp);
        EXPECT_FALSE(r.timedOut) << args;
        EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.err;
        EXPECT_NE(r.err.find(option), std::string::npos) << args << "\n" << r.err;
        EXPECT_LT(r.seconds, 30) << args;
        std::cout << "    " << r.err.substr(0, r.err.find('\n')) << "\n";
    }
    EXPECT_FALSE(fs::exists(tmp / "f.png"));
}

// A real full disk: a tmpfs in a private user and mount namespace (unshare -rm), filled so that
// some of the tables fit and not all. The set appears whole or not at all, and an existing folder
// keeps its contents. Skipped where the machine does not allow the mount.
TEST_F(HostileTraceCli, CsvTablesOnAFullDiskAreAllOrNothing) {
    const auto trace = quoted(good());
    for (const std::string& command : {"stats " + trace, "compare " + trace + " " + trace}) {
        // The tables' size in 4 KiB pages, measured on a roomy disk.
        const auto roomy = tmp / "roomy";
        fs::remove_all(roomy);
        auto r = test::runCliBounded(command + " --csv " + quoted(roomy), tmp);
        ASSERT_EQ(r.exitCode, 0) << r.err;
        uintmax_t pages = 0;
        for (const auto& entry : fs::directory_iterator(roomy))
            pages += (fs::file_size(entry.path()) + 4095) / 4096;
        ASSERT_GE(pages, 2u) << command;
        const auto mountPoint = tmp / "small", listing = tmp / "listing.txt",
                   script = tmp / "full_disk.sh";
        fs::create_directories(mountPoint);
        std::ofstream(script)
            << "mount -t tmpfs -o size=1m tmpfs \"$1\" || exit 99\n"
            << "mkdir \"$1/old\" && echo old > \"$1/old/heads.csv\"\n"
            << "dd if=/dev/zero of=\"$1/fill\" bs=4096 2>/dev/null\n"
            << "truncate -s -" << (pages - 1) * 4096 << " \"$1/fill\"\n"
            << "timeout -s KILL 60 \"$2\" " << command << " --csv \"$1/new\"; a=$?\n"
            << "timeout -s KILL 60 \"$2\" " << command << " --csv \"$1/old\"; b=$?\n"
            << "ls -a \"$1\" \"$1/old\" > \"$3\"; cat \"$1/old/heads.csv\" >> \"$3\"\n"
            << "exit $((a * 10 + b))\n";
        auto full = test::runShell(fmt::format("unshare -rm sh {} {} {} {}", quoted(script),
                                               quoted(mountPoint), GATESCOPE_CLI, quoted(listing)),
                                   tmp);
        if (full.exitCode == 99 || full.err.find("unshare") != std::string::npos)
            GTEST_SKIP() << "cannot mount a tmpfs in a user namespace here: " << full.err;
        EXPECT_EQ(full.exitCode, 11) << command << "\n" << full.err;  // both runs exit 1
        EXPECT_NE(full.err.find("No space left on device"), std::string::npos) << full.err;
        const std::string left = test::readFile(listing);
        std::cout << "    after a full disk: " << left << "\n";
        EXPECT_EQ(left.find("new"), std::string::npos) << left;
        EXPECT_EQ(left.find("partial"), std::string::npos) << left;
        // Only the old table, "heads.csv" (its ".csv" the one in the listing), with its old
        // contents (cat'ed after the listing).
        const auto csv = left.find(".csv");
        EXPECT_EQ(csv, left.find("heads.csv") + std::string("heads").size()) << left;
        EXPECT_EQ(left.find(".csv", csv + 1), std::string::npos) << left;
        EXPECT_TRUE(left.ends_with("heads.csv\nold\n")) << left;
    }
}

}  // namespace
}  // namespace gatescope
