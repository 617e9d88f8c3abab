#include "engine/train/train_corpus.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "core/analysis/niah_prompt.h"
#include "core/tokenizer/text_file.h"

namespace gatescope::core::train {

namespace {

bool isTextSource(const std::filesystem::path& p) {
    const auto ext = p.extension().string();
    return ext == ".py" || ext == ".txt" || ext == ".md" || ext == ".rst";
}

Result<std::vector<std::filesystem::path>> listFiles(
    const std::vector<std::filesystem::path>& roots) {
    std::vector<std::filesystem::path> files;
    for (const auto& root : roots) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(root, ec)) {
            files.push_back(root);
            continue;
        }
        if (!std::filesystem::is_directory(root, ec))
            return Error{ErrorKind::Io, "no such file or folder", root.string(), {}};
        auto options = std::filesystem::directory_options::skip_permission_denied;
        for (auto it = std::filesystem::recursive_directory_iterator(root, options, ec);
             !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
            if (it->is_regular_file(ec) && isTextSource(it->path())) files.push_back(it->path());
        }
        if (ec) return Error{ErrorKind::Io, "cannot list: " + ec.message(), root.string(), {}};
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

Result<TrainCorpus> loadTrainCorpus(const std::vector<std::filesystem::path>& roots,
                                    const std::filesystem::path& exclude, int64_t maxBytes) {
    auto files = listFiles(roots);
    if (!files) return files.error();
    std::error_code ec;
    TrainCorpus corpus;
    for (const auto& file : *files) {
        if (static_cast<int64_t>(corpus.bytes.size()) >= maxBytes) break;
        // By name too: another Python's copy of a held-out stdlib module is still held out.
        if (!exclude.empty() && (file.filename() == exclude.filename() ||
                                 std::filesystem::equivalent(file, exclude, ec)))
            continue;
        auto text = readWholeFile(file);
        if (!text) return text.error();
        corpus.bytes += *text;
        corpus.bytes += '\n';
        ++corpus.files;
    }
    if (static_cast<int64_t>(corpus.bytes.size()) > maxBytes) corpus.bytes.resize(maxBytes);
    if (corpus.bytes.size() < 4096) {
        return Error{ErrorKind::Usage,
                     fmt::format("the corpus has {} bytes; training needs at least 4096 (give "
                                 "folders with .py/.txt/.md/.rst files)",
                                 corpus.bytes.size()),
                     roots.empty() ? std::string() : roots.front().string(), "--corpus"};
    }
    return corpus;
}

SequenceSampler::SequenceSampler(const TrainCorpus& corpus, int64_t length, double recallFraction,
                                 double assocFraction, uint64_t seed)
    : m_corpus(corpus),
      m_length(length),
      m_recallFraction(recallFraction),
      m_assocFraction(assocFraction),
      m_rng(seed) {}

std::string SequenceSampler::window(int64_t size) {
    const int64_t total = static_cast<int64_t>(m_corpus.bytes.size());
    size = std::min(size, total);
    std::uniform_int_distribution<int64_t> start(0, total - size);
    return m_corpus.bytes.substr(static_cast<std::size_t>(start(m_rng)), size);
}

std::string SequenceSampler::passkeyTask() {
    const auto key = fmt::format("{:05d}", std::uniform_int_distribution<int>(0, 99999)(m_rng));
    const auto task = passkeyNeedleTexts(key);
    const int64_t fixed = task.needle.size() + task.question.size() + task.answer.size();
    if (fixed >= m_length) return {};
    auto hay = window(m_length - fixed);
    std::uniform_int_distribution<std::size_t> depth(0, hay.size());
    hay.insert(depth(m_rng), task.needle);
    return hay + task.question + task.answer;
}

std::string SequenceSampler::associativeRecall() {
    // Each pair takes 6 bytes written and 6 asked: as many distinct keys as fit.
    const int64_t pairs = std::min<int64_t>(26 * 26, (m_length - 2) / 12);
    std::vector<int> keys(26 * 26);
    std::iota(keys.begin(), keys.end(), 0);
    std::shuffle(keys.begin(), keys.end(), m_rng);
    keys.resize(static_cast<std::size_t>(pairs));
    std::vector<int> values(keys.size());
    std::string text = "\n";
    auto key = [](int k) { return std::string{char('a' + k / 26), char('a' + k % 26)}; };
    for (std::size_t i = 0; i < keys.size(); ++i) {
        values[i] = std::uniform_int_distribution<int>(10, 99)(m_rng);
        text += fmt::format("{}={} ", key(keys[i]), values[i]);
    }
    text += "\n";
    std::vector<std::size_t> order(keys.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), m_rng);
    for (auto i : order)
        text += fmt::format("{}?{} ", key(keys[i]), values[i]);
    return text;
}

std::vector<int64_t> SequenceSampler::next() {
    const double u = std::uniform_real_distribution<double>(0, 1)(m_rng);
    std::string text;
    if (u < m_recallFraction)
        text = passkeyTask();
    else if (u < m_recallFraction + m_assocFraction)
        text = associativeRecall();
    if (text.empty()) text = window(m_length);
    while (static_cast<int64_t>(text.size()) < m_length)
        text += text;  // a corpus shorter than a sequence: repeat it
    std::vector<int64_t> ids(m_length);
    for (int64_t i = 0; i < m_length; ++i)
        ids[i] = static_cast<unsigned char>(text[static_cast<std::size_t>(i)]);
    return ids;
}

}  // namespace gatescope::core::train
