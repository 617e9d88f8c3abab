#include "data/h5/library.h"

#include <algorithm>
#include <vector>

#include "data/h5/filters.h"

namespace gatescope::data::h5 {
namespace {

std::recursive_mutex& libraryMutex() {
    // Leaked on purpose: readers held by static objects may still lock it during exit.
    static auto* mutex = new std::recursive_mutex;
    return *mutex;
}

// The POSIX driver's messages span lines and list every argument; keep the OS reason only.
std::string tidy(std::string text) {
    const std::string key = "error message = '";
    size_t at = text.find(key);
    if (at != std::string::npos) {
        size_t end = text.find('\'', at + key.size());
        text = text.substr(0, text.find(':')) + ": " +
               text.substr(at + key.size(), end - at - key.size());
    }
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

herr_t collectMessage(unsigned, const H5E_error2_t* entry, void* out) {
    auto* messages = static_cast<std::vector<std::string>*>(out);
    std::string text = tidy(entry->desc ? entry->desc : "");
    if (text.empty()) {
        char minor[256] = {0};
        if (H5Eget_msg(entry->min_num, nullptr, minor, sizeof minor) > 0) text = minor;
    }
    if (text.empty()) return 0;
    // A reason repeated by a later failure of the same call (a driver error that every later
    // write reports again) is kept where it is deepest: makeError shows the deepest entries.
    if (auto seen = std::find(messages->begin(), messages->end(), text); seen != messages->end())
        messages->erase(seen);
    messages->push_back(text);
    return 0;
}

}  // namespace

std::string joinPath(std::string_view parent, std::string_view child) {
    std::string out(parent);
    if (out.empty() || out.back() != '/') out += '/';
    out += child;
    return out;
}

std::unique_lock<std::recursive_mutex> lockLibrary() {
    std::unique_lock lock(libraryMutex());
    static bool initialized = false;
    if (!initialized) {
        initialized = true;
        // No cleanup at exit: HDF5's own closes every file still open, and one whose close had
        // already failed (a write past a file-size limit) crashes it. Writers commit or abandon
        // their files explicitly; readers only read.
        H5dont_atexit();
        H5open();
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        // A failure shows later as filterAvailable() == false and a clear error at use.
        (void)registerCompressionFilters();
    }
    return lock;
}

Error makeError(ErrorKind kind, const Location& where, std::string_view what) {
    std::vector<std::string> messages;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collectMessage, &messages);
    H5Eclear2(H5E_DEFAULT);
    std::string message(what);
    // The innermost entries say why ("file signature not found"); the outer ones repeat the call.
    if (!messages.empty()) {
        message += " (HDF5: ";
        size_t first = messages.size() > 3 ? messages.size() - 3 : 0;
        for (size_t i = messages.size(); i-- > first;) {
            message += messages[i];
            if (i > first) message += "; ";
        }
        message += ")";
    }
    return Error{kind, std::move(message), where.file, where.object};
}

Status check(herr_t rc, ErrorKind kind, const Location& where, std::string_view what) {
    if (rc >= 0) return Ok{};
    return makeError(kind, where, what);
}

Result<hid_t> checkId(hid_t id, ErrorKind kind, const Location& where, std::string_view what) {
    if (id >= 0) return id;
    return makeError(kind, where, what);
}

Result<bool> checkTri(htri_t rc, ErrorKind kind, const Location& where, std::string_view what) {
    if (rc >= 0) return rc > 0;
    return makeError(kind, where, what);
}

}  // namespace gatescope::data::h5
