<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>attnviz::app::CellArithmeticDialog</name>
    <message numerus="yes">
        <source>&lt;p&gt;… and %n more terms, included in the sum.&lt;/p&gt;</source>
        <translation>
            <numerusform>&lt;p&gt;… and %n more term, included in the sum.&lt;/p&gt;</numerusform>
            <numerusform>&lt;p&gt;… and %n more terms, included in the sum.&lt;/p&gt;</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;p&gt;Sum of the %n products = &lt;b&gt;%1&lt;/b&gt; (the trace&apos;s score: %2)&lt;/p&gt;</source>
        <translation>
            <numerusform>&lt;p&gt;The %n product = &lt;b&gt;%1&lt;/b&gt; (the trace&apos;s score: %2)&lt;/p&gt;</numerusform>
            <numerusform>&lt;p&gt;Sum of the %n products = &lt;b&gt;%1&lt;/b&gt; (the trace&apos;s score: %2)&lt;/p&gt;</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnviz::app::ExportMenu</name>
    <message numerus="yes">
        <source>Saved %n file(s) into %1</source>
        <translation>
            <numerusform>Saved %n file into %1</numerusform>
            <numerusform>Saved %n files into %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnviz::app::HeadTypesDialog</name>
    <message numerus="yes">
        <source>Scored over the %n token(s) of the text shown. The top head: layer %1, head %2.</source>
        <translation>
            <numerusform>Scored over the %n token of the text shown. The top head: layer %1, head %2.</numerusform>
            <numerusform>Scored over the %n tokens of the text shown. The top head: layer %1, head %2.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnviz::app::ImportanceDialog</name>
    <message numerus="yes">
        <source>%1: press Measure to switch each of its %n attention heads off in turn.</source>
        <translation>
            <numerusform>%1: press Measure to switch its %n attention head off.</numerusform>
            <numerusform>%1: press Measure to switch each of its %n attention heads off in turn.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Measure runs the model once with every head on and once with each of its %n heads switched off, each time on up to %1 examples: up to %2 runs of the model. On the bundled models 100 examples take from about 3 seconds (a two-core desktop) to 20 (a slow laptop); a model the size of GPT-2 takes far longer. A bar counts the runs as they are done, with the time left, and Stop ends the measurement.</source>
        <translation>
            <numerusform>Measure runs the model once with every head on and once with its %n head switched off, each time on up to %1 examples: up to %2 runs of the model. On the bundled models 100 examples take from about 3 seconds (a two-core desktop) to 20 (a slow laptop); a model the size of GPT-2 takes far longer. A bar counts the runs as they are done, with the time left, and Stop ends the measurement.</numerusform>
            <numerusform>Measure runs the model once with every head on and once with each of its %n heads switched off, each time on up to %1 examples: up to %2 runs of the model. On the bundled models 100 examples take from about 3 seconds (a two-core desktop) to 20 (a slow laptop); a model the size of GPT-2 takes far longer. A bar counts the runs as they are done, with the time left, and Stop ends the measurement.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the first %1 of %n held-out examples (heldout.txt)</source>
        <translation>
            <numerusform>the first %1 of %n held-out example (heldout.txt)</numerusform>
            <numerusform>the first %1 of %n held-out examples (heldout.txt)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>all %n held-out examples (heldout.txt)</source>
        <translation>
            <numerusform>the %n held-out example (heldout.txt)</numerusform>
            <numerusform>all %n held-out examples (heldout.txt)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnviz::app::KvCacheDialog</name>
    <message numerus="yes">
        <source>Decoding %n token(s) with a KV cache…</source>
        <translation>
            <numerusform>Decoding %n token with a KV cache…</numerusform>
            <numerusform>Decoding %n tokens with a KV cache…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the prefill read the whole text, %n token(s),</source>
        <translation>
            <numerusform>the prefill read the whole text, %n token,</numerusform>
            <numerusform>the prefill read the whole text, %n tokens,</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnviz::app::ModelPanel</name>
    <message numerus="yes">
        <source>Output: &lt;b&gt;%1&lt;/b&gt; (greedy decoding, %n steps)</source>
        <translation>
            <numerusform>Output: &lt;b&gt;%1&lt;/b&gt; (greedy decoding, %n step)</numerusform>
            <numerusform>Output: &lt;b&gt;%1&lt;/b&gt; (greedy decoding, %n steps)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n layer</numerusform>
            <numerusform>%n layers</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n head(s)</source>
        <translation>
            <numerusform>%n head</numerusform>
            <numerusform>%n heads</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnviz::app::PictureAttentionDialog</name>
    <message numerus="yes">
        <source>Rollout of %n layer(s), heads fused by their mean, from %1</source>
        <translation>
            <numerusform>Rollout of %n layer, heads fused by their mean, from %1</numerusform>
            <numerusform>Rollout of %n layers, heads fused by their mean, from %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnviz::app::PredictionPrompt</name>
    <message numerus="yes">
        <source>No answers yet this session (%n skipped).</source>
        <translation>
            <numerusform>No answers yet this session (%n skipped).</numerusform>
            <numerusform>No answers yet this session (%n skipped).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>(%n skipped)</source>
        <translation>
            <numerusform>(%n skipped)</numerusform>
            <numerusform>(%n skipped)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnviz::app::RolloutDialog</name>
    <message numerus="yes">
        <source>%1, %n layer(s): attention rollout</source>
        <translation>
            <numerusform>%1, %n layer: attention rollout</numerusform>
            <numerusform>%1, %n layers: attention rollout</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnviz::app::Session</name>
    <message numerus="yes">
        <source> · %n query row(s) fully masked (zero weights)</source>
        <translation>
            <numerusform> · %n query row fully masked (zero weights)</numerusform>
            <numerusform> · %n query rows fully masked (zero weights)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnviz::app::WindowReachDialog</name>
    <message numerus="yes">
        <source>The decoder of %1: %n layer(s), as its configuration gives their windows.</source>
        <translation>
            <numerusform>The decoder of %1: %n layer, as its configuration gives its window.</numerusform>
            <numerusform>The decoder of %1: %n layers, as its configuration gives their windows.</numerusform>
        </translation>
    </message>
</context>
</TS>
