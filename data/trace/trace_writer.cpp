// TraceWriter: file lifecycle (temporary name, commit, failure) and the manifest.
#include "data/trace/trace_writer.h"

#include <cstdio>
#include <system_error>

#include <fmt/format.h>

#include "data/common/atomic_file.h"
#include "data/h5/attribute.h"
#include "data/h5/filters.h"
#include "data/trace/manifest.h"
#include "data/trace/nexus.h"
#include "data/trace/writer_state.h"

namespace gatescope::data {

TraceWriter::TraceWriter(std::filesystem::path finalPath, std::filesystem::path tempPath,
                         TraceWriterOptions options)
    : m_finalPath(std::move(finalPath)),
      m_tempPath(std::move(tempPath)),
      m_options(options),
      m_storage(std::make_unique<Storage>()) {}

Result<std::unique_ptr<TraceWriter>> TraceWriter::create(const std::filesystem::path& finalPath,
                                                         TraceWriterOptions options) {
    auto lock = h5::lockLibrary();
    if (finalPath.empty() || !finalPath.has_filename())
        return Error{ErrorKind::Usage, "the trace path must name a file", finalPath.string(), ""};
    if (options.compression == Compression::Zstd && !h5::filterAvailable(h5::kZstdFilterId))
        return Error{ErrorKind::Unsupported, "the zstd filter is not available", finalPath.string(),
                     ""};
    if (options.compression == Compression::Lz4 && !h5::filterAvailable(h5::kLz4FilterId))
        return Error{ErrorKind::Unsupported, "the lz4 filter is not available", finalPath.string(),
                     ""};
    const std::filesystem::path temp = partialPath(finalPath);
    std::unique_ptr<TraceWriter> writer(new TraceWriter(finalPath, temp, options));
    auto file = h5::File::create(temp.string());
    if (!file) return file.error();
    Storage& storage = *writer->m_storage;
    storage.file = std::move(*file);
    storage.chunkWriter = std::make_unique<h5::ChunkWriter>(options.encodeThreads);
    if (options.flushWhileWriting) {
        auto flush = BackgroundFlush::start(temp);
        if (!flush) return writer->fail(flush.error());
        storage.flush = std::move(*flush);
    }
    auto root = h5::Group::root(storage.file);
    if (!root) return writer->fail(root.error());
    storage.root = std::move(*root);
    auto rc = h5::writeAttribute(storage.root, "gatescope_format", kFormatName);
    if (rc) rc = h5::writeAttribute(storage.root, "format_version", int64_t{kFormatVersion});
    if (rc) rc = h5::writeAttribute(storage.root, "compression", toString(options.compression));
    if (rc) rc = h5::writeAttribute(storage.root, "default", std::string_view("per_token"));
    if (!rc) return writer->fail(rc.error());
    auto layers = h5::Group::create(storage.root, "layers");
    if (!layers) return writer->fail(layers.error());
    return writer;
}

TraceWriter::~TraceWriter() {
    if (!m_committed) abandon();
}

Status TraceWriter::usable() const {
    if (m_failure) {
        Error again = *m_failure;
        again.message = "the writer failed earlier: " + again.message;
        return again;
    }
    if (m_committed) return usage("the trace is already committed");
    return Ok{};
}

Error TraceWriter::usage(std::string message, std::string object) const {
    return Error{ErrorKind::Usage, std::move(message), m_tempPath.string(), std::move(object)};
}

Error TraceWriter::fail(Error error) {
    abandon();
    m_failure = error;
    return error;
}

void TraceWriter::abandon() {
    auto lock = h5::lockLibrary();
    // Detached first, so that closing the datasets and the file flushes into memory: a close
    // that fails (disk full) would leave the file open in HDF5.
    h5::File& file = m_storage->file;
    if (m_storage->flush) (void)m_storage->flush->stop();
    if (m_storage->chunkWriter) m_storage->chunkWriter->discard();
    m_storage->queued.clear();
    m_storage->queuedBuffers.clear();
    m_storage->holding = false;
    if (file.valid()) (void)file.detachFromDisk();
    m_storage->layers.clear();
    m_storage->root = h5::Group();
    if (file.valid()) (void)file.close();  // still best effort, see lockLibrary()
    std::error_code ec;
    std::filesystem::remove(m_tempPath, ec);
}

Status TraceWriter::writeManifest(const nlohmann::json& manifest) {
    auto lock = h5::lockLibrary();
    if (auto rc = usable(); !rc) return rc;
    if (auto rc = validateManifest(manifest, m_tempPath.string()); !rc) return rc;
    std::string text = manifest.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    if (m_hasManifest) {
        if (auto removed = h5::removeLink(m_storage->root, "manifest"); !removed)
            return fail(removed.error());
    }
    h5::Type type = h5::Type::utf8String();
    auto dataset = h5::Dataset::createScalar(m_storage->root, "manifest", type);
    if (!dataset) return fail(dataset.error());
    const char* pointer = text.c_str();
    auto rc = dataset->write(type, &pointer);
    if (rc) rc = nexus::describe(*dataset, "provenance manifest (JSON)");
    if (rc)
        rc = h5::writeAttribute(m_storage->root, "model_type",
                                manifest.at("model_type").get<std::string>());
    if (!rc) return fail(rc.error());
    m_hasManifest = true;
    return Ok{};
}

void TraceWriter::holdWrites() {
    m_storage->holding = true;
}

Status TraceWriter::writeHeld() {
    m_storage->holding = false;
    if (auto rc = usable(); !rc) return rc;
    if (auto rc = writeQueued(true); !rc) return fail(rc.error());
    return Ok{};
}

Status TraceWriter::store(h5::ChunkSet set, std::unique_ptr<unsigned char[]> buffer) {
    m_storage->queued.push_back(std::move(set));
    if (buffer) m_storage->queuedBuffers.push_back(std::move(buffer));
    return m_storage->holding ? Status(Ok{}) : writeQueued();
}

Status TraceWriter::writeQueued(bool ahead) {
    Storage& s = *m_storage;
    auto rc = ahead ? s.chunkWriter->writeAhead(std::move(s.queued), m_options.cancel)
                    : s.chunkWriter->write(std::move(s.queued), m_options.cancel);
    s.queued.clear();
    s.queuedBuffers.clear();
    return rc;
}

Status TraceWriter::commit() {
    auto lock = h5::lockLibrary();
    if (auto rc = usable(); !rc) return rc;
    std::string missing;
    if (!m_hasManifest) missing += " manifest";
    if (m_nTokens == 0) missing += " tokens";
    if (!m_hasPerToken) missing += " per_token";
    if (!missing.empty()) return usage("cannot commit an incomplete trace; missing:" + missing);
    if (auto held = writeHeld(); !held) return held;
    if (auto rc = m_storage->chunkWriter->finish(m_options.cancel); !rc) return fail(rc.error());
    auto rc = h5::writeAttribute(m_storage->root, "n_layers",
                                 static_cast<int64_t>(m_storage->layers.size()));
    if (!rc) return fail(rc.error());
    m_storage->layers.clear();
    m_storage->root = h5::Group();
    rc = m_storage->file.flush();
    if (rc) rc = m_storage->file.close();
    // Stopped before the last fsync: a writeback error it was told of would not reach that one.
    if (rc && m_storage->flush) rc = m_storage->flush->stop();
    if (rc) rc = commitFile(m_tempPath, m_finalPath);
    if (!rc) return fail(rc.error());
    m_committed = true;
    return Ok{};
}

}  // namespace gatescope::data
