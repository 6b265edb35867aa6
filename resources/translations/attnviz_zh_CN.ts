<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Format</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> px</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Height</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Resolution</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> dpi</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ImportanceDialog</name>
    <message>
        <source>Head importance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every attention head is switched off in turn (its columns of the concatenation become zero) and the model is scored on the same examples each time. A head whose absence hurts most is the one the model relies on most; many heads can go with almost no loss, which is why heads can be pruned (D2L 10.3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Examples</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How many examples of the model&apos;s heldout.txt to score on; more is steadier and slower. Without heldout.txt, the text shown is used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Measure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Double-click a head to switch it off in the main window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click a cell or double-click a row to switch that head off in the main window and see what changes (tick Change from all heads on there). To undo it, right-click any head there and choose Switch every head back on.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>InputPanel</name>
    <message>
        <source>Input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query sentences (one per line; several lines form a batch)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Queries. Each line is one sentence of the batch.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>color: #b00020;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key/value sentences for cross-attention (empty: self-attention)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>words (split at spaces)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add sinusoidal positional encoding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shape</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model width D</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Heads H</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>d_k per head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto (D / H)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query/key size per head; auto = D / H</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>d_v per head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value size per head; auto = D / H</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto (D)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bias on every projection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mask and weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mask</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>causal (no peeking ahead)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>valid lengths (block padding)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>custom (click cells of a score heatmap)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Valid lengths</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. 3, 2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;D2L&apos;s valid lengths: one number per sentence (3, 2), or one row per sentence with a length per query ([[1, 3], [2, 4]]). Keys at or after the length are blocked. Empty: each sentence&apos;s own length, so only padding is blocked.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear drawn mask</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re-roll weights</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>AttnViz — multi-head attention, step by step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;recent lesson</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xperiments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open lesson…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a lesson saved as an .attnviz file: the model or playground, the text, the step, the block and the heads switched off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ctrl+O</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save lesson as…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save what the window shows as a lesson (.attnviz), to open again in class</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ctrl+S</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Preferences…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ctrl+,</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ctrl+Q</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Previous step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Next step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Right</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;First step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Home</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Last step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>End</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>P&amp;resentation mode (large text)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>F5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Scaling the scores…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The module shown with its scores divided by √d_k, by nothing or by a temperature: entropy, largest weight, histogram, and why √d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ctrl+K</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Common &amp;mistakes…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The module shown, computed correctly and with a common mistake made, side by side</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ctrl+M</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head &amp;importance…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switch every head of the model shown off in turn and rank the heads by how much the model suffers (D2L 10.3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ctrl+I</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About AttnViz</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MistakesDialog</name>
    <message>
        <source>Common mistakes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each mistake is computed by the engine on the module and inputs shown in the main window.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Numbers in cells</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelPanel</name>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A trained demo model, the random-weights playground, or a model folder of your own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tar&amp;get</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty: the model decodes on its own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Continue by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>color: #b00020;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop loading or running the model; the panel keeps what it showed before</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Block</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Decoding step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replay greedy decoding: at step k the decoder has seen only the tokens before it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>whole output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Whole-model &amp;overview (layers × heads)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PredictionPrompt</name>
    <message>
        <source>Predict, then reveal — what will this step show?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reveal without answering (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the step and the answer; nothing is counted</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PreferencesDialog</name>
    <message>
        <source>Preferences</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Limits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Memory limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty: 80 % of the memory available</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The most memory one model run may take, e.g. 2G or 512M. A run that would need more is refused before it starts, with the estimate. Empty: 80 % of the memory the machine has available.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>color: #b00020;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Head %1 · query %2 · key %3&lt;/b&gt;%4&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · batch item %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1. Score: q_%1 · k_%2, term by term</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>t</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>q[t]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>k[t]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>q[t] × k[t]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;… and %1 more terms, included in the sum.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Sum of the %1 products = &lt;b&gt;%2&lt;/b&gt; (the trace&apos;s score: %3)&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>2. Scaled: ÷ √d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;%1 ÷ √%2 = %1 ÷ %3 = &lt;b&gt;%4&lt;/b&gt;&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>3. Masked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Every key is blocked for this query. The softmax of a row of −∞ would be 0/0 (NaN); AttnViz gives the row zero weights, so the query attends to nothing and its context is zero.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Key %1 is &lt;b&gt;blocked&lt;/b&gt; for this query: the masked score is −∞, so exp gives 0 and its weight is exactly 0.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Key %1 is allowed: the masked score is the scaled score, %2.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>4. Softmax over the keys of row %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;The row&apos;s largest masked score, %1, is subtracted before exp (the result is the same; the exps cannot overflow).&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>masked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exp(masked − max)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Showing %1 of %2 keys: the largest weights and key %3.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Row sum of the exps = %1&lt;br&gt;weight = %2 ÷ %1 = &lt;b&gt;%3&lt;/b&gt; (the trace&apos;s weight: %4). The row&apos;s weights add up to 1.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Head %1 · query %2 · feature %3 of the context&lt;/b&gt;&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The weighted sum of column %1 of V_h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Each key&apos;s value in that column, times the weight query %1 gives the key:&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>v[%1]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weight × v</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Showing the %1 largest weights of %2 keys; the sum has every key.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Sum = &lt;b&gt;%1&lt;/b&gt; (the trace&apos;s context: %2)&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;No arithmetic to show: %1.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Cell of &lt;i&gt;%1&lt;/i&gt;: every number below is the trace&apos;s.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There was not enough memory to measure the heads.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measuring the heads failed for an unknown reason.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>encoder self-attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>decoder masked self-attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>decoder cross-attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There was not enough memory to run this model on this text.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running the model failed for an unknown reason.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There was not enough memory for these settings.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ScalingDialog</name>
    <message>
        <source>Scaling the scores</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Divide the scores by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>√d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nothing (1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a temperature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Any positive divisor: below √d_k the softmax sharpens, above it flattens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Head</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attnviz::app::CellArithmeticDialog</name>
    <message>
        <source>The arithmetic of one cell</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Nothing is computed, so there is no cell to explain.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attnviz::app::ExportMenu</name>
    <message>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Current &amp;heatmap as image…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Current head &amp;grid as image…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Current matrix as &amp;CSV or NumPy…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Every layer × head × step…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Whole &amp;trace (safetensors + JSON manifest)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the trace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>safetensors (*.safetensors)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Classroom &amp;handout (PDF)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the handout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PDF (*.pdf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Copy view to clipboard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the matrix</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export every layer × head × step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export into folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exporting…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attnviz::app::HeatmapView</name>
    <message>
        <source>%1” in “%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (blocked)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (blocked: −∞ before the softmax)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head %1 · </source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attnviz::app::ImportanceDialog</name>
    <message>
        <source>rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>block</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>score</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>harm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a trained model: the playground&apos;s random module has nothing to be scored on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a trained model: the playground&apos;s random module and imported attentions have nothing to be scored on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: press Measure to switch each of its %2 attention heads off in turn.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>heldout.txt cannot be used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measuring on %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Measure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 on %2. With every head on: %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switching off layer %1 %2 head %3 hurts most: %4 (%5 worse). Layers and heads count from 0.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attnviz::app::MainWindow</name>
    <message>
        <source>About AttnViz</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;AttnViz&lt;/b&gt; walks through multi-head attention one step at a time. Every number comes from the engine&apos;s trace, which is checked against PyTorch (see README).&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>these settings cannot be computed; fix the fields marked in red.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not computed: fix the settings marked in red.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not computed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source> · %n query row(s) fully masked (zero weights)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>computed in %1 ms · batch %2 · %3 heads · %4 queries × %5 keys · d_k %6, d_v %7%8</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled: the window still shows the previous run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model opened last time, “%1”, could not be opened again (%2), so the %3 demo is shown instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“%1” was not opened: %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the model has not run yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · layer %2 · %3 · %4 heads · %5 queries × %6 keys · d_k %7</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attnviz::app::MistakesDialog</name>
    <message>
        <source>&lt;b&gt;Correct&lt;/b&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;With the mistake&lt;/b&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing is computed in the main window, so there is nothing to compare.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot compare here: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Row sums of the weights — correct: %1; with the mistake: %2. </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NaN reaches the output: every later layer and the loss become NaN.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The output does not change here: nothing in this computation triggers the mistake (see how to recognise it).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The output changes by up to %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attnviz::app::ModelOverview</name>
    <message>
        <source>Attention weights of every layer and head: %1 · click one to walk through it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer %1 · head %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attnviz::app::ModelPanel</name>
    <message>
        <source>Random-weights playground</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Demo: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open model folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open attention weights file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer %v of %m</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>loading…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a model folder (AttnViz&apos;s own, Hugging Face GPT-2 or BERT)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open attention weights computed elsewhere</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention weights (*.safetensors)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; — attention weights computed elsewhere: %2 layer(s), %3 heads, %4 tokens. Only the softmax step has data.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; — %2 %3, %4 layer(s), %5 heads, d_model %6, %7-norm, %8; %9 parameters (per layer: %10).&lt;br&gt;%11</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Transformer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> encoder, </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> decoder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output: &lt;b&gt;%1&lt;/b&gt; (greedy decoding, %2 steps)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Heads switched off (layer.block:head): %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attnviz::app::PredictionPrompt</name>
    <message>
        <source>&amp;Predict, then reveal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Before a step is shown, ask one question about it (which key a query attends to most, the next shape, the head that matters most); one click answers and reveals the step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hide the verdict</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>No answers yet this session (%n skipped).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>No answers yet this session.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Score: %1 of %2 right this session.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>(%n skipped)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>The answer: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✔ Right: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✘ Not this time: you chose %1; the answer is %2.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attnviz::app::PreferencesDialog</name>
    <message>
        <source>Model runs that would need more are refused before they start. Without a limit of your own, runs may take up to %1 now (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A limit below 1 MiB is most likely a missing unit (a plain number counts bytes); expected something like 512M or 2G.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“%1” is not a size; expected a number with K, M, G or T, like 512M or 2G, or nothing for no limit of your own.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attnviz::app::ScalingDialog</name>
    <message>
        <source>√d_k = √%1 = %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>√d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing is computed in the main window.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot run it again here: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> That is %1 × d_k: trained weights, not random ones (see below).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;Scores Q_h K_hᵀ of head %1: variance &lt;b&gt;%2&lt;/b&gt;, next to d_k = %3.%9&lt;br&gt;Divided by %4: variance &lt;b&gt;%5&lt;/b&gt;.&lt;/p&gt;&lt;p&gt;Entropy of a row of weights: &lt;b&gt;%6&lt;/b&gt; nats on average, of at most %7 (every key weighed alike).&lt;br&gt;Largest weight in a row: &lt;b&gt;%8&lt;/b&gt; on average (1 would be one-hot).&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>scores ÷ %1 (the head&apos;s unblocked cells)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cells</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>d_k (random q, k: independent entries, mean 0, variance 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>variance of q · k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>q · k: about d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>q · k ÷ √d_k: about 1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>attnviz::app::StepPanel</name>
    <message>
        <source>One colour range for all heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Numbers in cells</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change from all heads on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learned matrices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show all heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>◀ Prev</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>batch item </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print each value in its cell where the cells are large enough to read it (small matrices, or one head shown alone)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show (heads switched off) − (every head on) at every step: what switching the heads off changed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the weight matrices this step applies instead of its result</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the arithmetic of this cell…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switch head %1 back on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switch head %1 off (zero its columns of concat)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show head %1 alone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switch every head back on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>show %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step %1 of %2 — %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Nothing to show: %1&lt;/b&gt;&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;This file holds attention weights only, computed elsewhere: this step has nothing to show. The softmax step shows the weights.&lt;/b&gt;&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>heads %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switched off: %1. A switched-off head&apos;s context is still computed, but its columns of concat are zero, so the output and everything after it no longer hear from it. Right-click a head to switch it back on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing changed at this step: this block&apos;s heads are switched off later, at the concatenation.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing changed at this step: no head before this block is switched off.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No head of this block is off, but heads elsewhere in the model are (the Model box names them).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shown: (heads off) − (every head on). %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shown: (heads off) − (every head on); the largest change at this step is %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
