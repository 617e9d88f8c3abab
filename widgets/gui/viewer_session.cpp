#include "widgets/gui/viewer_session.h"

#include <QMetaObject>

#include "widgets/gui/post_to_thread.h"

namespace gatescope::widgets {

namespace {
/// Statistics, retention, summaries: a few long jobs may run at once without starving the rest.
constexpr int kJobThreads = 4;
}  // namespace

ViewerSession::ViewerSession(std::shared_ptr<const TraceDocument> document,
                             TileService::Options options, QObject* parent)
    : ViewerSession(document, nullptr, options, parent) {}

ViewerSession::ViewerSession(std::shared_ptr<const TraceDocument> document,
                             TileScheduler::Loader loader, TileService::Options options,
                             QObject* parent)
    : QObject(parent),
      m_document(std::move(document)),
      m_loader(std::make_shared<TraceTileLoader>(m_document->reader)) {
    if (!loader) {
        loader = [traceLoader = m_loader](const TileKey& key) { return traceLoader->load(key); };
    }
    m_tiles = std::make_unique<TileService>(std::move(loader), options, [this] {
        // Worker thread: hop to the GUI thread (dropped if the session is gone).
        QMetaObject::invokeMethod(
            this, [this] { pump(); }, Qt::QueuedConnection);
    });
    m_jobs = std::make_unique<JobPool>(kJobThreads, postToThreadOf(*this));
    m_context.addListener([this] { emit contextChanged(); });
}

ViewerSession::~ViewerSession() {
    // Join workers while the loader and context still exist.
    m_jobs.reset();
    m_tiles.reset();
}

void ViewerSession::pump() {
    if (m_tiles->pump() > 0) emit tilesArrived();
}

}  // namespace gatescope::widgets
