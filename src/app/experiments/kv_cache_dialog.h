#pragma once

#include "app/experiments/experiment_dialog.h"
#include "app/window/newest_request_wins.h"
#include "lesson/kv_cache_decoding.h"
#include "lesson/model_run.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace Ui {
class KvCacheDialog;
}

namespace attnviz::app {

/// Experiments ▸ KV cache: the model shown continues its text token by token with a KV cache
/// (lesson::decodeWithKvCache, off the GUI thread). A step slider walks through the decoding:
/// the chosen head's weights fill one query row a step, the cached keys and values of its K/V
/// head one column a step; beside them the step's work with and without the cache, the cache's
/// size and the largest difference from one full causal pass. The playground (no trained model
/// to decode with) says so.
class KvCacheDialog : public ExperimentDialog {
    Q_OBJECT
public:
    explicit KvCacheDialog(QWidget* parent = nullptr);
    ~KvCacheDialog() override;

    bool busy() const override { return m_work.busy(); }
    /// The decoding shown, null while none is.
    const lesson::KvCacheDecoding* decoding() const { return m_decoding.get(); }
    Ui::KvCacheDialog& ui() { return *m_ui; }

protected:
    void showEvent(QShowEvent* event) override;

signals:
    /// A decoding ended: shown, or an error in the numbers' place.
    void decoded();

private:
    /// The run whose model and text to continue (none in the playground), under the memory
    /// limit. Another run starts a new decoding, at once when the dialog is shown, else when it
    /// next is.
    void follow(const Session& session) override;

    struct Request {
        std::shared_ptr<const lesson::ModelRun> run;
        int tokens = 0;
        std::optional<std::uint64_t> maxMemory;
    };
    struct Outcome {
        std::shared_ptr<const lesson::KvCacheDecoding> decoding;
        QString error;
    };
    using Job = NewestRequestWins<Request, Outcome>::Job;
    void decode();
    void finish(Outcome outcome, JobFate fate);
    void fillChoices();
    void redraw();
    void plotWork();
    void clear(const QString& message);

    std::unique_ptr<Ui::KvCacheDialog> m_ui;
    std::shared_ptr<const lesson::ModelRun> m_run;
    std::optional<std::uint64_t> m_maxMemory;
    std::shared_ptr<const lesson::KvCacheDecoding> m_decoding;
    /// A run arrived while hidden: decode it when shown.
    bool m_stale = false;
    NewestRequestWins<Request, Outcome> m_work;
};

} // namespace attnviz::app
