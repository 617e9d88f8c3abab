#include "data/h5/checked_driver.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "data/h5/file_driver_parts.h"
#include "data/h5/superblock_check.h"

namespace gatescope::data::h5 {
namespace {

constexpr size_t kHeader = 16;        // "GCOL", version, 3 reserved, collection size (8 bytes)
constexpr size_t kObjectHeader = 16;  // index (2), references (2), reserved (4), size (8)

uint64_t little64(const uint8_t* p) {
    uint64_t value = 0;
    for (int i = 7; i >= 0; --i)
        value = (value << 8) | p[i];
    return value;
}

bool isCollectionStart(const uint8_t* p, size_t size) {
    return size >= kHeader && std::memcmp(p, "GCOL\x01\0\0\0", 8) == 0;
}

/// Driver info stored in the file access list: an image (shared, immutable) or none.
struct Info {
    std::shared_ptr<const std::vector<uint8_t>> image;
};

/// One open file. `pub` first: HDF5 sees an H5FD_t.
struct CheckedFile {
    H5FD_t pub;
    int fd = -1;
    dev_t device = 0;
    ino_t inode = 0;
    std::shared_ptr<const std::vector<uint8_t>> image;
    haddr_t eoa = 0, eof = 0;
    // A collection larger than HDF5's first read of it: its head, until the rest arrives.
    haddr_t pendingAddr = HADDR_UNDEF;
    uint64_t pendingSize = 0;
    std::vector<uint8_t> pendingHead;
};

CheckedFile* self(H5FD_t* file) {
    return reinterpret_cast<CheckedFile*>(file);
}
const CheckedFile* self(const H5FD_t* file) {
    return reinterpret_cast<const CheckedFile*>(file);
}

void* infoCopy(const void* info) {
    return new Info(*static_cast<const Info*>(info));
}
herr_t infoFree(void* info) {
    delete static_cast<Info*>(info);
    return 0;
}

void pushError(const std::string& message) {
    H5Epush2(H5E_DEFAULT, __FILE__, "checked driver", __LINE__, H5E_ERR_CLS, H5E_VFL, H5E_READERROR,
             "%s", message.c_str());
}

// Bytes past the end of the file read as zeros, as with sec2.
bool readBytes(CheckedFile* f, haddr_t addr, size_t size, uint8_t* out) {
    if (size == 0) return true;  // `out` may be null
    const size_t available =
        addr >= f->eof ? 0 : static_cast<size_t>(std::min<haddr_t>(size, f->eof - addr));
    if (f->image) {
        // Only inside the image: an address past its end must not even be formed (UB).
        if (available > 0) std::memcpy(out, f->image->data() + addr, available);
    } else {
        size_t done = 0;
        while (done < available) {
            const ssize_t n =
                ::pread(f->fd, out + done, available - done, static_cast<off_t>(addr + done));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                pushError(fmt::format("cannot read {} bytes at {}: {}", size, addr,
                                      n < 0 ? std::strerror(errno) : "end of file"));
                return false;
            }
            done += static_cast<size_t>(n);
        }
    }
    std::memset(out + available, 0, size - available);
    return true;
}

H5FD_t* open(const char* name, unsigned flags, hid_t fapl, haddr_t maxaddr) {
    if (flags & (H5F_ACC_RDWR | H5F_ACC_TRUNC | H5F_ACC_CREAT)) {
        pushError("gatescope's checking driver is read-only");
        return nullptr;
    }
    const auto* info = static_cast<const Info*>(H5Pget_driver_info(fapl));
    auto file = std::make_unique<CheckedFile>();
    std::memset(&file->pub, 0, sizeof file->pub);
    if (info && info->image) {
        file->image = info->image;
        file->eof = file->image->size();
    } else {
        if (std::string failed = openDescriptor(*file, name, O_RDONLY); !failed.empty()) {
            pushError(failed);
            return nullptr;
        }
    }
    (void)maxaddr;
    CheckedFile* f = file.get();
    const FileBytes inside = [f](uint64_t addr, size_t size, uint8_t* out) {
        return addr <= f->eof && size <= f->eof - addr && readBytes(f, addr, size, out);
    };
    if (const std::string problem = superblockProblem(inside, f->eof); !problem.empty()) {
        pushError(problem);
        if (f->fd >= 0) ::close(f->fd);
        return nullptr;
    }
    return &file.release()->pub;
}

herr_t close(H5FD_t* file) {
    CheckedFile* f = self(file);
    if (f->fd >= 0) ::close(f->fd);
    delete f;
    return 0;
}

int compare(const H5FD_t* a, const H5FD_t* b) {
    const CheckedFile *x = self(a), *y = self(b);
    auto key = [](const CheckedFile* f) { return std::tuple(f->image.get(), f->device, f->inode); };
    return key(x) < key(y) ? -1 : (key(y) < key(x) ? 1 : 0);
}

// Checks what HDF5 is about to parse as a global-heap collection: the whole collection when this
// read holds it, else its head, kept until the read of the rest.
bool checkCollections(CheckedFile* f, haddr_t addr, size_t size, const uint8_t* bytes) {
    std::string why;
    if (f->pendingAddr != HADDR_UNDEF && addr == f->pendingAddr + f->pendingHead.size() &&
        f->pendingHead.size() + size == f->pendingSize) {
        std::vector<uint8_t> whole = std::move(f->pendingHead);
        whole.insert(whole.end(), bytes, bytes + size);
        const haddr_t start = f->pendingAddr;
        f->pendingAddr = HADDR_UNDEF;
        if (globalHeapCollectionIsSound(whole.data(), whole.size(), why)) return true;
        pushError(fmt::format("corrupt global heap collection at byte {}: {}", start, why));
        return false;
    }
    f->pendingAddr = HADDR_UNDEF;
    if (!isCollectionStart(bytes, size)) return true;
    const uint64_t collection = little64(bytes + 8);
    if (collection > size) {
        f->pendingAddr = addr;
        f->pendingSize = collection;
        f->pendingHead.assign(bytes, bytes + size);
        return true;
    }
    if (globalHeapCollectionIsSound(bytes, static_cast<size_t>(collection), why)) return true;
    pushError(fmt::format("corrupt global heap collection at byte {}: {}", addr, why));
    return false;
}

herr_t read(H5FD_t* file, H5FD_mem_t, hid_t, haddr_t addr, size_t size, void* buffer) {
    CheckedFile* f = self(file);
    auto* out = static_cast<uint8_t*>(buffer);
    if (!readBytes(f, addr, size, out)) return -1;
    return checkCollections(f, addr, size, out) ? 0 : -1;
}

herr_t write(H5FD_t*, H5FD_mem_t, hid_t, haddr_t, size_t, const void*) {
    pushError("gatescope's checking driver is read-only");
    return -1;
}

herr_t noop(H5FD_t*, hid_t, hbool_t) {
    return 0;
}

H5FD_class_t makeClass() {
    H5FD_class_t cls;
    std::memset(&cls, 0, sizeof cls);
    fillAddressCallbacks<CheckedFile>(cls);
    cls.name = "gatescope_checked";
    cls.fapl_size = sizeof(Info);
    cls.fapl_copy = infoCopy;
    cls.fapl_free = infoFree;
    cls.open = open;
    cls.close = close;
    cls.cmp = compare;
    cls.read = read;
    cls.write = write;
    cls.flush = noop;
    cls.truncate = noop;
    return cls;
}

}  // namespace

int64_t globalHeapObjectSize(const uint8_t* bytes, size_t size, unsigned index) {
    if (index == 0) return -1;
    for (size_t p = kHeader; p + kObjectHeader <= size;) {
        const unsigned at = bytes[p] | (bytes[p + 1] << 8);
        const uint64_t length = little64(bytes + p + 8);
        if (at == index) return static_cast<int64_t>(length);
        const uint64_t need = at == 0 ? length : kObjectHeader + ((length + 7) & ~uint64_t{7});
        if (need == 0 || need > size - p) return -1;
        p += static_cast<size_t>(need);
    }
    return -1;
}

bool globalHeapCollectionIsSound(const uint8_t* bytes, size_t size, std::string& why) {
    if (size < kHeader || !isCollectionStart(bytes, size) || little64(bytes + 8) != size) {
        why = "bad header";
        return false;
    }
    // HDF5 1.10's H5HG__cache_heap_deserialize, with every step checked.
    size_t p = kHeader;
    while (p < size) {
        if (p + kObjectHeader > size) break;  // a tail too small for an object: free space
        const unsigned index = bytes[p] | (bytes[p + 1] << 8);
        const uint64_t length = little64(bytes + p + 8);
        const size_t room = size - p;
        // Objects are padded to 8 bytes after their header; free space (index 0) counts its own.
        const uint64_t need = index == 0 ? length : kObjectHeader + ((length + 7) & ~uint64_t{7});
        if (length > room || need == 0 || need > room) {
            why = fmt::format("object {} at offset {} claims {} bytes, {} remain", index, p, length,
                              room);
            return false;
        }
        p += static_cast<size_t>(need);
    }
    return true;
}

namespace {

hid_t checkedDriver() {
    static const H5FD_class_t cls = makeClass();
    static const hid_t driver = H5FDregister(&cls);
    return driver;
}

}  // namespace

bool readCheckedBytes(hid_t file, uint64_t addr, size_t size, uint8_t* out) {
    void* handle = driverState(file, checkedDriver());
    if (handle == nullptr) return false;
    auto* f = static_cast<CheckedFile*>(handle);
    if (addr > f->eof || size > f->eof - addr) return false;
    if (!readBytes(f, addr, size, out)) {
        H5Eclear2(H5E_DEFAULT);
        return false;
    }
    return true;
}

Status useCheckedDriver(hid_t fapl, const void* image, size_t size, const Location& where) {
    const hid_t driver = checkedDriver();
    if (driver < 0) return makeError(ErrorKind::Internal, where, "cannot register the file driver");
    Info info;
    if (image)
        info.image = std::make_shared<const std::vector<uint8_t>>(
            static_cast<const uint8_t*>(image), static_cast<const uint8_t*>(image) + size);
    return check(H5Pset_driver(fapl, driver, &info), ErrorKind::Internal, where,
                 "cannot select the file driver");
}

}  // namespace gatescope::data::h5
