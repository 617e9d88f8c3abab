#include "core/batch/batch_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/batch/output_paths.h"
#include "core/checkpoint/checkpoint.h"
#include "core/tokenizer/load_tokenizer.h"

namespace gatescope::core {

namespace {

struct Document {
    std::filesystem::path path;
    InputKind kind;
    std::string name;  ///< unique among documents
};

std::vector<Document> documents(const BatchRecipe& recipe) {
    std::vector<Document> docs;
    for (const auto& input : recipe.inputs) {
        std::vector<std::filesystem::path> files;
        std::error_code ec;
        if (std::filesystem::is_directory(input.path, ec)) {
            for (const auto& e : std::filesystem::directory_iterator(input.path, ec))
                if (e.is_regular_file()) files.push_back(e.path());
            std::sort(files.begin(), files.end());
        } else {
            files.push_back(input.path);  // a missing file fails its runs, with the reader's error
        }
        for (const auto& f : files) {
            std::string name = f.filename().string();
            for (int k = 2; std::any_of(docs.begin(), docs.end(),
                                        [&](const Document& d) { return d.name == name; });
                 ++k)
                name = fmt::format("{}-{}", f.filename().string(), k);
            docs.push_back({f, input.kind, name});
        }
    }
    return docs;
}

/// Token count of `doc` as the checkpoint's tokenizer sees it (ids inputs: as given).
Result<int64_t> countTokens(const std::filesystem::path& dir, const Document& doc) {
    auto checkpoint = Checkpoint::open(dir);
    if (!checkpoint) return checkpoint.error();
    auto tokenizer = loadTokenizer((*checkpoint)->dir(), (*checkpoint)->config());
    InputSpec spec;
    spec.path = doc.path;
    spec.kind = doc.kind;
    // Token ids need no tokenizer (see runTraceJob).
    if (!tokenizer && tokenizer.error().kind != ErrorKind::Missing &&
        resolveInputKind(spec) == InputKind::Text) {
        return tokenizer.error();
    }
    auto input = readInput(spec, tokenizer ? tokenizer->get() : nullptr);
    if (!input) return input.error();
    return input->totalTokens;
}

}  // namespace

std::string runFileName(const std::string& id) {
    std::string out = id;
    for (char& c : out)
        if (c == '/' || c == '#' || c == ' ' || c == '\\' || c == ':') c = '_';
    return out;
}

std::vector<BatchRun> planBatch(const BatchRecipe& recipe) {
    std::vector<BatchRun> runs;
    const auto docs = documents(recipe);
    for (const auto& cp : recipe.checkpoints) {
        int64_t spent = 0;
        for (const auto& doc : docs) {
            BatchRun base;
            base.checkpoint = cp.name;
            base.checkpointDir = cp.path;
            base.input.path = doc.path;
            base.input.kind = doc.kind;
            Result<int64_t> tokens =
                isSafeDocumentName(doc.name)
                    ? countTokens(cp.path, doc)
                    : Result<int64_t>(Error{ErrorKind::Usage,
                                            "the file name cannot name a trace (a control "
                                            "character or separator, or over 200 bytes)",
                                            doc.path.string(),
                                            {}});
            if (!tokens) {
                base.id = fmt::format("{}/{}#0", cp.name, doc.name);
                base.trace = std::filesystem::path("traces") / cp.name / (doc.name + ".0.h5");
                base.planError = tokens.error();
                runs.push_back(std::move(base));
                continue;
            }
            const int64_t chunk =
                recipe.maxTokens > 0 ? recipe.maxTokens : std::max<int64_t>(*tokens, 1);
            for (int64_t begin = 0, c = 0; begin < *tokens; begin += chunk, ++c) {
                const int64_t end = std::min(*tokens, begin + chunk);
                if (recipe.tokenBudget > 0 && spent + (end - begin) > recipe.tokenBudget) break;
                spent += end - begin;
                BatchRun run = base;
                run.id = fmt::format("{}/{}#{}", cp.name, doc.name, c);
                run.input.begin = begin;
                run.input.end = end;
                run.trace = std::filesystem::path("traces") / cp.name /
                            fmt::format("{}.{}.h5", doc.name, c);
                runs.push_back(std::move(run));
            }
        }
    }
    for (std::size_t i = 0; i < runs.size(); ++i)
        runs[i].index = static_cast<int>(i);
    return runs;
}

}  // namespace gatescope::core
