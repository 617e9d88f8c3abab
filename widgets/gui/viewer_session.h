// ViewerSession: one opened trace and everything views share about it: the document, the tile
// service (bounded cache + workers), the job pool of its panels' other background work, and the
// ViewContext. Tiles land on worker threads; the session pumps them into the cache on the GUI
// thread and emits tilesArrived(). Job results are delivered on the GUI thread. GUI thread only.
#pragma once

#include <memory>

#include <QObject>

#include "widgets/view/job_pool.h"
#include "widgets/view/tile_service.h"
#include "widgets/view/trace_document.h"
#include "widgets/view/trace_tile_loader.h"
#include "widgets/view/view_context.h"

namespace gatescope::widgets {

class ViewerSession : public QObject {
    Q_OBJECT
public:
    /// Tile channels, one per view that requests tiles.
    enum Channel { kCanvasChannel = 0, kOverviewChannel = 1, kHoverChannel = 2 };

    ViewerSession(std::shared_ptr<const TraceDocument> document, TileService::Options options,
                  QObject* parent = nullptr);
    /// A session whose tiles come from `loader` (run on the workers; it must be thread-safe)
    /// instead of the document's trace: compare mode's difference view.
    ViewerSession(std::shared_ptr<const TraceDocument> document, TileScheduler::Loader loader,
                  TileService::Options options, QObject* parent = nullptr);
    ~ViewerSession() override;

    const TraceDocument& document() const { return *m_document; }
    std::shared_ptr<const TraceDocument> documentPtr() const { return m_document; }
    TileService& tiles() { return *m_tiles; }
    const TraceTileLoader& loader() const { return *m_loader; }
    ViewContext& context() { return m_context; }
    /// Background work of the views of this trace (through a JobScope each), with results
    /// delivered on the GUI thread; joined when the session goes, so views must go first.
    JobPool& jobs() { return *m_jobs; }

signals:
    /// New tiles are in the cache (or a load failed).
    void tilesArrived();
    /// The ViewContext changed.
    void contextChanged();

private:
    void pump();

    std::shared_ptr<const TraceDocument> m_document;
    std::shared_ptr<TraceTileLoader> m_loader;
    ViewContext m_context;
    std::unique_ptr<TileService> m_tiles;  // workers stop before the loader goes
    std::unique_ptr<JobPool> m_jobs;
};

}  // namespace gatescope::widgets
