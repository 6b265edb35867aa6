#include "app/experiments/experiment_windows.h"

#include "app/experiments/attention_sinks_dialog.h"
#include "app/experiments/head_types_dialog.h"
#include "app/experiments/importance_dialog.h"
#include "app/experiments/kv_cache_dialog.h"
#include "app/experiments/mistakes_dialog.h"
#include "app/experiments/picture_attention_dialog.h"
#include "app/experiments/rollout_dialog.h"
#include "app/experiments/rotary_dialog.h"
#include "app/experiments/scaling_dialog.h"
#include "app/experiments/window_reach_dialog.h"

#include <QtGlobal>

namespace attnviz::app {
namespace {

template <class Dialog> ExperimentDialog* make(QWidget* parent)
{
    return new Dialog(parent);
}

using enum ExperimentSection;
using enum Following;

constexpr ExperimentWindow kRows[] = {
    {"scaling", QT_TRANSLATE_NOOP("ExperimentWindows", "&Scaling the scores…"),
     QT_TRANSLATE_NOOP("ExperimentWindows",
                       "The module shown with its scores divided by √d_k, by nothing or by a "
                       "temperature: entropy, largest weight, histogram, and why √d_k"),
     "Ctrl+K", ModuleAndHeads, Walkthrough, &make<ScalingDialog>},
    {"mistakes", QT_TRANSLATE_NOOP("ExperimentWindows", "Common &mistakes…"),
     QT_TRANSLATE_NOOP("ExperimentWindows",
                       "The module shown, computed correctly and with a common mistake made, side "
                       "by side"),
     "Ctrl+M", ModuleAndHeads, Walkthrough, &make<MistakesDialog>},
    {"importance", QT_TRANSLATE_NOOP("ExperimentWindows", "Head &importance…"),
     QT_TRANSLATE_NOOP("ExperimentWindows",
                       "Switch every head of the model shown off in turn and rank the heads by how "
                       "much the model suffers (D2L 10.3)"),
     "Ctrl+I", ModuleAndHeads, Model, &make<ImportanceDialog>},
    {"headTypes", QT_TRANSLATE_NOOP("ExperimentWindows", "Head &types…"),
     QT_TRANSLATE_NOOP("ExperimentWindows",
                       "Every head of the model shown scored as previous-token, duplicate-token, "
                       "induction or sink head, with its distance and entropy, layers × heads with "
                       "a ranking"),
     "", ModuleAndHeads, Model, &make<HeadTypesDialog>},
    {"rollout", QT_TRANSLATE_NOOP("ExperimentWindows", "Attention r&ollout…"),
     QT_TRANSLATE_NOOP(
         "ExperimentWindows",
         "How much of each token at the top came from each input token, through every "
         "layer (Abnar and Zuidema 2020)"),
     "", ModuleAndHeads, Model, &make<RolloutDialog>},
    {"pictureAttention", QT_TRANSLATE_NOOP("ExperimentWindows", "Attention on the &picture…"),
     QT_TRANSLATE_NOOP("ExperimentWindows",
                       "For a Vision Transformer: the attention of [CLS] or of a patch you click, "
                       "drawn over the picture, per head, averaged or rolled out"),
     "", ModuleAndHeads, Model, &make<PictureAttentionDialog>},
    {"rotary", QT_TRANSLATE_NOOP("ExperimentWindows", "&Rotary positions…"),
     QT_TRANSLATE_NOOP("ExperimentWindows",
                       "One query and one key of the block shown, pair of features by pair, each "
                       "turned by position × frequency; move every position and the score stays"),
     "", TodaysAttention, Walkthrough, &make<RotaryDialog>},
    {"kvCache", QT_TRANSLATE_NOOP("ExperimentWindows", "&KV cache…"),
     QT_TRANSLATE_NOOP(
         "ExperimentWindows",
         "The model shown writes on token by token with a KV cache: each step adds one "
         "query row and one key/value column, with the work saved and the memory "
         "spent"),
     "", TodaysAttention, Model, &make<KvCacheDialog>},
    {"windowReach", QT_TRANSLATE_NOOP("ExperimentWindows", "Sliding &window reach…"),
     QT_TRANSLATE_NOOP("ExperimentWindows",
                       "How far back a token can hear, layer by layer, when the layers have a "
                       "sliding window"),
     "", TodaysAttention, Model, &make<WindowReachDialog>},
    {"attentionSinks", QT_TRANSLATE_NOOP("ExperimentWindows", "Attention si&nks…"),
     QT_TRANSLATE_NOOP(
         "ExperimentWindows",
         "How much of each head's weight lands on the first token, layers × heads, for "
         "the model shown (Xiao et al. 2023)"),
     "", TodaysAttention, Model, &make<AttentionSinksDialog>},
};

} // namespace

constinit const std::span<const ExperimentWindow> kExperimentWindows(kRows);

} // namespace attnviz::app
