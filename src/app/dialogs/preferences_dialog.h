#pragma once

#include <QDialog>

#include <cstdint>
#include <memory>
#include <optional>

namespace Ui {
class PreferencesDialog;
}

namespace attnviz::app {

/// What the user may set once for every run: today the memory limit of model runs (the app's
/// --max-memory). OK stays disabled while a field cannot be read, and the field says why.
struct Preferences {
    std::optional<std::uint64_t> memoryLimit; ///< bytes; none: the machine's available memory
    bool operator==(const Preferences&) const = default;
};

class PreferencesDialog : public QDialog {
    Q_OBJECT
public:
    explicit PreferencesDialog(const Preferences& current, QWidget* parent = nullptr);
    ~PreferencesDialog() override;

    /// What the fields say; meaningful once accepted.
    Preferences preferences() const { return m_preferences; }
    Ui::PreferencesDialog* form() const { return m_ui.get(); }

private:
    void readFields();

    std::unique_ptr<Ui::PreferencesDialog> m_ui;
    Preferences m_preferences;
};

} // namespace attnviz::app
