#include "app/window/walkthrough_runner.h"

#include "app/window/job_failure.h"

namespace attnviz::app {

WalkthroughRunner::WalkthroughRunner(QObject* parent)
    : QObject(parent)
    , m_work(
          [this](const lesson::PlaygroundSettings& settings) {
              return [settings, limit = m_memoryLimit](const std::atomic<bool>&) {
                  try {
                      return Outcome{lesson::computePlayground(settings, limit), {}};
                  } catch (...) {
                      return Outcome{
                          nullptr,
                          jobFailure(std::current_exception(),
                                     WalkthroughRunner::tr(
                                         "There was not enough memory for these settings."))};
                  }
              };
          },
          [this](const Outcome& outcome, JobFate fate) {
              if (fate != JobFate::Current)
                  return;
              if (outcome.walkthrough)
                  emit computed(outcome.walkthrough);
              else
                  emit failed(outcome.error);
          },
          [this] { emit idle(); })
{
}

void WalkthroughRunner::request(const lesson::PlaygroundSettings& settings)
{
    const std::vector<lesson::SettingsProblem> problems = lesson::checkSettings(settings);
    if (!problems.empty()) {
        // Their problems go on screen: what still runs would show settings no longer asked for.
        m_work.discard();
        emit rejected(problems);
        return;
    }
    m_work.request(settings);
}

} // namespace attnviz::app
