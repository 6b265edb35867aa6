<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>DisplayWords</name>
    <message>
        <source>A causal mask on cross-attention compares positions of two different sequences by their index: query i loses the source positions after i for no reason. Cross-attention needs no causal mask.</source>
        <translation>交叉注意力上的因果掩码按下标比较两个不同序列的位置：查询 i 无缘无故地失去了 i 之后的源位置。交叉注意力不需要因果掩码。</translation>
    </message>
    <message>
        <source>query i of an item sees the keys before its own length; each row of the mask has its own cut.</source>
        <translation>批量样本中的查询 i 只看到它自己的长度之前的键；掩码的每一行都有自己的截断位置。</translation>
    </message>
    <message>
        <source>Keys at or after an item&apos;s length are blocked.</source>
        <translation>位于批量样本长度处及之后的键被屏蔽。</translation>
    </message>
    <message>
        <source>Valid lengths per query</source>
        <translation>每个查询的有效长度</translation>
    </message>
    <message>
        <source>Valid lengths</source>
        <translation>有效长度</translation>
    </message>
    <message>
        <source>item {1} sees keys {2}–{3}</source>
        <translation>批量样本 {1} 看到键 {2}–{3}</translation>
    </message>
    <message>
        <source>item {1} sees key {2}</source>
        <translation>批量样本 {1} 看到键 {2}</translation>
    </message>
    <message>
        <source>item {1} sees no key</source>
        <translation>批量样本 {1} 看不到任何键</translation>
    </message>
    <message>
        <source>the stream after the masked self-attention of decoder layer {1}</source>
        <translation>解码器第 {1} 层掩码自注意力之后的残差流</translation>
    </message>
    <message>
        <source>the output of encoder layer {1}</source>
        <translation>编码器第 {1} 层的输出</translation>
    </message>
    <message>
        <source>the output of decoder layer {1}</source>
        <translation>解码器第 {1} 层的输出</translation>
    </message>
    <message>
        <source>encoder embedding + position</source>
        <translation>编码器嵌入 + 位置编码</translation>
    </message>
    <message>
        <source>decoder embedding + position</source>
        <translation>解码器嵌入 + 位置编码</translation>
    </message>
    <message>
        <source>the encoder&apos;s output</source>
        <translation>编码器的输出</translation>
    </message>
    <message>
        <source>the module: {1} ({2} without biases)</source>
        <translation>整个模块：{1}（不含偏置为 {2}）</translation>
    </message>
    <message>
        <source>{1} parameters</source>
        <translation>{1} 个参数</translation>
    </message>
    <message>
        <source>token embedding</source>
        <translation>词元嵌入</translation>
    </message>
    <message>
        <source>positional encoding (off)</source>
        <translation>位置编码（关闭）</translation>
    </message>
    <message>
        <source>positional encoding</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>(switched off)</source>
        <translation>（已关闭）</translation>
    </message>
    <message>
        <source>keys, values</source>
        <translation>键、值</translation>
    </message>
    <message>
        <source>queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>head {1}</source>
        <translation>头 {1}</translation>
    </message>
    <message>
        <source>layer {1}</source>
        <translation>第 {1} 层</translation>
    </message>
    <message>
        <source>batch {1}</source>
        <translation>批量样本 {1}</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>feature</source>
        <translation>特征</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>batch</source>
        <translation>批量</translation>
    </message>
    <message>
        <source>scores</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>scaled</source>
        <translation>缩放后</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>掩码后</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>concat</source>
        <translation>拼接</translation>
    </message>
    <message>
        <source>output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>(nothing: the scores stay as they are)</source>
        <translation>（什么都不做：分数保持原样）</translation>
    </message>
    <message>
        <source>(the number of heads)</source>
        <translation>（头的个数）</translation>
    </message>
    <message>
        <source>all {1}</source>
        <translation>全部 {1} 个</translation>
    </message>
    <message>
        <source>{1} keys</source>
        <translation>{1} 个键</translation>
    </message>
    <message>
        <source>{1} key</source>
        <translation>{1} 个键</translation>
    </message>
    <message>
        <source>key {1}</source>
        <translation>键 {1}</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>encoder-decoder</source>
        <translation>编码器-解码器</translation>
    </message>
    <message>
        <source>decoder-only</source>
        <translation>仅解码器</translation>
    </message>
    <message>
        <source>encoder-only</source>
        <translation>仅编码器</translation>
    </message>
    <message>
        <source>pre-norm</source>
        <translation>前置归一化</translation>
    </message>
    <message>
        <source>post-norm</source>
        <translation>后置归一化</translation>
    </message>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>D = {1} cannot be split into {2} equal heads: choose D as a multiple of H, or set d_k yourself.</source>
        <translation>D = {1} 无法平均分给 {2} 个头：请把 D 设为 H 的倍数，或者自己设定 d_k。</translation>
    </message>
    <message>
        <source>D = {1} cannot be split into {2} equal heads: choose D as a multiple of H, or set d_v yourself.</source>
        <translation>D = {1} 无法平均分给 {2} 个头：请把 D 设为 H 的倍数，或者自己设定 d_v。</translation>
    </message>
    <message>
        <source>Type a sentence: there is nothing to attend over.</source>
        <translation>请输入一个句子：现在没有任何内容可供注意力关注。</translation>
    </message>
    <message>
        <source>A sentence has more than {1} tokens.</source>
        <translation>有一个句子超过了 {1} 个词元。</translation>
    </message>
    <message>
        <source>Cross-attention needs one key/value sentence per query sentence ({1}), not {2}.</source>
        <translation>交叉注意力要求每个查询句子对应一个键/值句子（{1} 个），而不是 {2} 个。</translation>
    </message>
    <message>
        <source>The model width D must be at least 1</source>
        <translation>模型宽度 D 至少为 1</translation>
    </message>
    <message>
        <source>The model width D {1} is above the limit of {2}</source>
        <translation>模型宽度 D = {1} 超过了上限 {2}</translation>
    </message>
    <message>
        <source>The number of heads H must be at least 1</source>
        <translation>头数 H 至少为 1</translation>
    </message>
    <message>
        <source>The number of heads H {1} is above the limit of {2}</source>
        <translation>头数 H = {1} 超过了上限 {2}</translation>
    </message>
    <message>
        <source>The output width {1} is above the limit of {2}</source>
        <translation>输出宽度 {1} 超过了上限 {2}</translation>
    </message>
    <message>
        <source>d_k {1} is above the limit of {2}</source>
        <translation>d_k = {1} 超过了上限 {2}</translation>
    </message>
    <message>
        <source>d_v {1} is above the limit of {2}</source>
        <translation>d_v = {1} 超过了上限 {2}</translation>
    </message>
    <message>
        <source>The drawn mask has a cell outside the {1} × {2} score matrix; clear it and draw again.</source>
        <translation>画出的掩码有一个单元格在 {1} × {2} 的分数矩阵之外；请清除后重新绘制。</translation>
    </message>
    <message>
        <source>The output width must be at least 1</source>
        <translation>输出宽度至少为 1</translation>
    </message>
    <message>
        <source>d_k must be at least 1</source>
        <translation>d_k 至少为 1</translation>
    </message>
    <message>
        <source>d_v must be at least 1</source>
        <translation>d_v 至少为 1</translation>
    </message>
    <message>
        <source>Sliding window of {1} keys: query i sees keys i − {2} … i only, so each row&apos;s allowed cells are a band along the diagonal; information from further back reaches it through the layers below.</source>
        <translation>{1} 个键的滑动窗口：查询 i 只看到键 i − {2} … i，所以每行允许的格子是沿对角线的一条带；更早的信息要通过下面的层才能传到它。</translation>
    </message>
    <message>
        <source>A sliding window limits how far back a causal query looks: choose the causal mask, or set the window to 0.</source>
        <translation>滑动窗口限制因果查询能往回看多远：请选择因果掩码，或把窗口设为 0。</translation>
    </message>
    <message>
        <source>θ of the rotary positions must be a number above 1, at most 1e9 (Llama uses 10000 or 500000).</source>
        <translation>旋转位置编码的 θ 必须大于 1、不超过 1e9（Llama 用 10000 或 500000）。</translation>
    </message>
    <message>
        <source>Rotary positions turn the features of a head in pairs: d_k = {1} must be even.</source>
        <translation>旋转位置编码把一个头的特征两两旋转：d_k = {1} 必须是偶数。</translation>
    </message>
    <message>
        <source>{1} K/V heads cannot serve {2} query heads in equal groups: choose a divisor of H.</source>
        <translation>{1} 个 K/V 头无法把 {2} 个查询头分成大小相同的组：请选择 H 的约数。</translation>
    </message>
    <message>
        <source>no positions added (rotary: q and k turn by position)</source>
        <translation>不加位置（旋转：q 和 k 按位置旋转）</translation>
    </message>
    <message>
        <source>The number of K/V heads {1} is above the limit of {2}</source>
        <translation>K/V 头数 {1} 超过上限 {2}</translation>
    </message>
    <message>
        <source>The sliding window {1} is above the limit of {2}</source>
        <translation>滑动窗口 {1} 超过上限 {2}</translation>
    </message>
    <message>
        <source>K/V head {1} (heads {2}–{3})</source>
        <translation>K/V 头 {1}（头 {2}–{3}）</translation>
    </message>
    <message>
        <source>K/V head {1} (head {2})</source>
        <translation>K/V 头 {1}（头 {2}）</translation>
    </message>
    <message>
        <source>+ bias</source>
        <translation>+ 偏置</translation>
    </message>
    <message>
        <source>biased</source>
        <translation>加偏置后</translation>
    </message>
    <message>
        <source>Batch item {1} has no tokens; remove the empty line.</source>
        <translation>批量样本 {1} 没有任何词元；请删除这个空行。</translation>
    </message>
    <message>
        <source>Batch item {1} has {2} characters, more than the {3} a sentence may have.</source>
        <translation>批量样本 {1} 有 {2} 个字符，超过了一个句子最多允许的 {3} 个。</translation>
    </message>
    <message>
        <source>Batch item {1} has a word of {2} characters, more than the {3} a word may have.</source>
        <translation>批量样本 {1} 中有一个 {2} 个字符的单词，超过了一个单词最多允许的 {3} 个。</translation>
    </message>
    <message>
        <source>There are {1} sentences, more than the {2} the playground takes.</source>
        <translation>共有 {1} 个句子，超过了演练场最多接受的 {2} 个。</translation>
    </message>
    <message>
        <source>A valid length of {1} is more than the {2} keys of batch item {3}: a length counts real keys, from 0 up to the sentence&apos;s length.</source>
        <translation>有效长度 {1} 超过了批量样本 {3} 的 {2} 个键：有效长度数的是真实的键，取值从 0 到句子的长度。</translation>
    </message>
    <message>
        <source>The row of batch item {1} in the valid lengths has {2} lengths; per-query lengths need one per query ({3}).</source>
        <translation>有效长度中批量样本 {1} 那一行有 {2} 个长度；逐查询的有效长度需要每个查询一个（{3} 个）。</translation>
    </message>
    <message>
        <source>The valid lengths give {1} items but there are {2} sentences: write one length per sentence.</source>
        <translation>有效长度给出了 {1} 项，但共有 {2} 个句子：请每个句子写一个长度。</translation>
    </message>
    <message>
        <source>The valid lengths give {1} items but there are {2} sentences: write one row per sentence.</source>
        <translation>有效长度给出了 {1} 项，但共有 {2} 个句子：请每个句子写一行。</translation>
    </message>
    <message>
        <source>The valid lengths give {1} item but there are {2} sentences: write one length per sentence.</source>
        <translation>有效长度只给出了 {1} 项，但共有 {2} 个句子：请每个句子写一个长度。</translation>
    </message>
    <message>
        <source>The valid lengths give {1} items but there is {2} sentence: write one length per sentence.</source>
        <translation>有效长度给出了 {1} 项，但只有 {2} 个句子：请每个句子写一个长度。</translation>
    </message>
    <message>
        <source>Valid lengths nest at most two levels of brackets, as in [[1, 3], [2, 4]].</source>
        <translation>有效长度最多嵌套两层方括号，例如 [[1, 3], [2, 4]]。</translation>
    </message>
    <message>
        <source>A ] in the valid lengths has no [ to close.</source>
        <translation>有效长度中的一个 ] 没有对应的 [。</translation>
    </message>
    <message>
        <source>A [ in the valid lengths is never closed.</source>
        <translation>有效长度中的一个 [ 没有闭合。</translation>
    </message>
    <message>
        <source>A valid length cannot be negative.</source>
        <translation>有效长度不能是负数。</translation>
    </message>
    <message>
        <source>Valid lengths are whole numbers separated by commas, e.g. 3, 2.</source>
        <translation>有效长度是用逗号分隔的整数，例如 3, 2。</translation>
    </message>
    <message>
        <source>Type one valid length per sentence, e.g. 3, 2.</source>
        <translation>请为每个句子输入一个有效长度，例如 3, 2。</translation>
    </message>
    <message>
        <source>The key/value sentence of batch item {1} has no tokens.</source>
        <translation>批量样本 {1} 的键/值句子没有任何词元。</translation>
    </message>
    <message>
        <source>head {1} (K/V head {2})</source>
        <translation>头 {1}（K/V 头 {2}）</translation>
    </message>
    <message>
        <source>tile</source>
        <translation>块</translation>
    </message>
    <message>
        <source>K/V head {1}</source>
        <translation>K/V 头 {1}</translation>
    </message>
    <message>
        <source>cached K (turned)</source>
        <translation>缓存的 K（已旋转）</translation>
    </message>
    <message>
        <source>cached K</source>
        <translation>缓存的 K</translation>
    </message>
    <message>
        <source>cached V</source>
        <translation>缓存的 V</translation>
    </message>
    <message>
        <source>angle = position × frequency (radians, wrapped)</source>
        <translation>角度 = 位置 × 频率（弧度，折回到 ±π）</translation>
    </message>
    <message>
        <source>pair</source>
        <translation>特征对</translation>
    </message>
    <message>
        <source>{1} bytes</source>
        <translation>{1} 字节</translation>
    </message>
    <message>
        <source>{1} tokens</source>
        <translation>{1} 个词元</translation>
    </message>
</context>
<context>
    <name>ExperimentWindows</name>
    <message>
        <source>&amp;Scaling the scores…</source>
        <translation>分数的缩放(&amp;S)…</translation>
    </message>
    <message>
        <source>The module shown with its scores divided by √d_k, by nothing or by a temperature: entropy, largest weight, histogram, and why √d_k</source>
        <translation>把当前模块的注意力分数除以 √d_k、不除或除以一个温度：比较熵、最大权重和直方图，并说明为什么要除以 √d_k</translation>
    </message>
    <message>
        <source>Common &amp;mistakes…</source>
        <translation>常见错误(&amp;M)…</translation>
    </message>
    <message>
        <source>The module shown, computed correctly and with a common mistake made, side by side</source>
        <translation>并排对比当前模块的正确计算结果与犯了常见错误后的结果</translation>
    </message>
    <message>
        <source>Head &amp;importance…</source>
        <translation>头的重要性(&amp;I)…</translation>
    </message>
    <message>
        <source>Switch every head of the model shown off in turn and rank the heads by how much the model suffers (D2L 10.3)</source>
        <translation>依次关闭当前模型的每个头，按模型受损的程度给各个头排序（《动手学深度学习》10.3 节）</translation>
    </message>
    <message>
        <source>Head &amp;types…</source>
        <translation>注意力头的类型(&amp;T)…</translation>
    </message>
    <message>
        <source>Every head of the model shown scored as previous-token, duplicate-token, induction or sink head, with its distance and entropy, layers × heads with a ranking</source>
        <translation>为当前模型的每个头打分：前一词元头、重复词元头、归纳头或注意力汇聚点，以及它的距离和熵；按层 × 头显示并排名</translation>
    </message>
    <message>
        <source>Attention r&amp;ollout…</source>
        <translation>注意力展开(&amp;O)…</translation>
    </message>
    <message>
        <source>How much of each token at the top came from each input token, through every layer (Abnar and Zuidema 2020)</source>
        <translation>经过所有层之后，最上层每个词元所含的内容各有多少来自每个输入词元（Abnar 与 Zuidema，2020）</translation>
    </message>
    <message>
        <source>Attention on the &amp;picture…</source>
        <translation>图片上的注意力(&amp;P)…</translation>
    </message>
    <message>
        <source>For a Vision Transformer: the attention of [CLS] or of a patch you click, drawn over the picture, per head, averaged or rolled out</source>
        <translation>用于视觉 Transformer：把 [CLS] 或你点击的图块的注意力画在图片上，可按单个头、各头平均或注意力展开显示</translation>
    </message>
    <message>
        <source>&amp;Rotary positions…</source>
        <translation>旋转位置编码(&amp;R)…</translation>
    </message>
    <message>
        <source>One query and one key of the block shown, pair of features by pair, each turned by position × frequency; move every position and the score stays</source>
        <translation>当前块的一个查询和一个键，逐对特征显示，每一对都旋转 位置 × 频率；把所有位置一起平移，分数保持不变</translation>
    </message>
    <message>
        <source>&amp;KV cache…</source>
        <translation>&amp;KV 缓存…</translation>
    </message>
    <message>
        <source>The model shown writes on token by token with a KV cache: each step adds one query row and one key/value column, with the work saved and the memory spent</source>
        <translation>当前模型借助 KV 缓存逐个词元地往下写：每一步增加一行查询和一列键/值，并给出省下的计算量和占用的内存</translation>
    </message>
    <message>
        <source>Sliding &amp;window reach…</source>
        <translation>滑动窗口的覆盖范围(&amp;W)…</translation>
    </message>
    <message>
        <source>How far back a token can hear, layer by layer, when the layers have a sliding window</source>
        <translation>当各层带有滑动窗口时，一个词元逐层能“听到”多远以前的词元</translation>
    </message>
    <message>
        <source>Attention si&amp;nks…</source>
        <translation>注意力汇聚点(&amp;N)…</translation>
    </message>
    <message>
        <source>How much of each head&apos;s weight lands on the first token, layers × heads, for the model shown (Xiao et al. 2023)</source>
        <translation>所示模型中每个头有多少权重落在第一个词元上，按层 × 头显示（Xiao 等人 2023）</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export image</source>
        <translation>导出图像</translation>
    </message>
    <message>
        <source>&amp;Format</source>
        <translation>格式(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Width</source>
        <translation>宽度(&amp;W)</translation>
    </message>
    <message>
        <source> px</source>
        <translation> 像素</translation>
    </message>
    <message>
        <source>&amp;Height</source>
        <translation>高度(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Resolution</source>
        <translation>分辨率(&amp;R)</translation>
    </message>
    <message>
        <source> dpi</source>
        <translation> dpi</translation>
    </message>
    <message>
        <source>&amp;Colour map</source>
        <translation>颜色映射(&amp;C)</translation>
    </message>
    <message>
        <source>The colours of the weights; signed steps (scores, projections) keep the blue–white–red map.</source>
        <translation>权重所用的颜色；有正负的步骤（分数、投影）仍用蓝–白–红映射。</translation>
    </message>
    <message>
        <source>&amp;Token labels</source>
        <translation>词元标签(&amp;T)</translation>
    </message>
    <message>
        <source>Frame in the head&apos;s c&amp;olour</source>
        <translation>用头的颜色加边框(&amp;O)</translation>
    </message>
    <message>
        <source>Show s&amp;paces in tokens as ␣</source>
        <translation>把词元中的空格显示为 ␣(&amp;P)</translation>
    </message>
    <message>
        <source>Tr&amp;ansparent background (for slides)</source>
        <translation>透明背景（用于幻灯片）(&amp;A)</translation>
    </message>
    <message>
        <source>Colour ran&amp;ge</source>
        <translation>颜色范围(&amp;G)</translation>
    </message>
    <message>
        <source>from </source>
        <translation>从 </translation>
    </message>
    <message>
        <source>to </source>
        <translation>到 </translation>
    </message>
    <message>
        <source>&amp;Scale</source>
        <translation>刻度(&amp;S)</translation>
    </message>
    <message>
        <source>For the weights: on a long text most weights are tiny, and a linear scale shows one colour.</source>
        <translation>用于权重：长文本中大多数权重都很小，线性刻度下几乎只有一种颜色。</translation>
    </message>
</context>
<context>
    <name>GlossaryDialog</name>
    <message>
        <source>Glossary</source>
        <translation>术语表</translation>
    </message>
    <message>
        <source>Find a term</source>
        <translation>查找术语</translation>
    </message>
    <message>
        <source>Shows the terms whose name, other spellings or explanation contain these words</source>
        <translation>显示名称、其他写法或解释中包含这些词的术语</translation>
    </message>
    <message>
        <source>Every term the app&apos;s texts use; the explanation of the one chosen is on the right</source>
        <translation>本应用的文字中用到的所有术语；右侧是所选术语的解释</translation>
    </message>
</context>
<context>
    <name>GuidedTour</name>
    <message>
        <source>What to look at</source>
        <translation>看什么</translation>
    </message>
    <message>
        <source>The steps</source>
        <translation>计算步骤</translation>
    </message>
    <message>
        <source>Formula and shapes</source>
        <translation>公式与形状</translation>
    </message>
    <message>
        <source>Each step&apos;s formula with the sizes of what you look at filled in, and the shape of every tensor with its axes named.</source>
        <translation>每一步的公式，其中代入了你正在查看的各项的大小；还有每个张量的形状，并标出了各个轴的名称。</translation>
    </message>
    <message>
        <source>Why this step</source>
        <translation>为什么有这一步</translation>
    </message>
    <message>
        <source>A short explanation. Underlined terms are in the glossary: point at one to read it, click it to open the glossary (F1).</source>
        <translation>一段简短的解释。带下划线的词收录在术语表中：把鼠标指向它即可阅读解释，单击则打开术语表（F1）。</translation>
    </message>
    <message>
        <source>One heatmap per head</source>
        <translation>每个头一张热力图</translation>
    </message>
    <message>
        <source>Each head&apos;s matrix at this step. Point at a cell for its value; click a head to see it alone, right-click for its menu: export, the arithmetic of a cell, switch the head off.</source>
        <translation>每个头在这一步的矩阵。把鼠标指向单元格可查看它的值；单击某个头可单独查看它，右键单击则打开它的菜单：导出、单元格的算术过程、关闭该头。</translation>
    </message>
    <message>
        <source>Experiments, lessons and exports</source>
        <translation>实验、课件与导出</translation>
    </message>
    <message>
        <source>Choose the random-weights playground, a bundled demo model, or a model folder (GPT-2, BERT, Llama, Mistral or Qwen2 as Hugging Face stores them). The text below is what the model reads.</source>
        <translation>选择随机权重练习场、内置演示模型，或一个模型文件夹（按 Hugging Face 格式保存的 GPT-2、BERT、Llama、Mistral 或 Qwen2）。下面的文本就是模型读入的内容。</translation>
    </message>
    <message>
        <source>Multi-head attention, one step at a time: from the input through Q, K, V, the split into heads, scores, scaling, the mask, softmax and the weighted values to the output. ← and → walk through them. Today&apos;s variants add their own steps: rotary positions (RoPE), and FlashAttention&apos;s online softmax when the playground&apos;s softmax tile is set.</source>
        <translation>多头注意力，一次一步：从输入开始，经过 Q、K、V，拆分成多个头，计算注意力分数、缩放、掩码、softmax，再对值加权求和，直到输出。用 ← 和 → 逐步浏览。如今模型的变体会增加自己的步骤：旋转位置编码（RoPE），以及设置了演练场的 softmax 分块时 FlashAttention 的在线 softmax。</translation>
    </message>
    <message>
        <source>Experiments compares common mistakes, the scaling of the scores and how much each head matters, and shows today&apos;s attention: rotary positions pair by pair, the KV cache step by step, a sliding window&apos;s reach, attention sinks. File saves what you see as a lesson; Export writes heatmaps for slides and papers; F5 is the projector&apos;s mode.</source>
        <translation>“实验”菜单可以对比常见错误、分数的缩放以及每个头的重要程度，还能展示今天模型的注意力：逐对旋转的位置编码、一步步增长的 KV 缓存、滑动窗口的覆盖范围、注意力汇聚点。“文件”菜单把你看到的内容保存为课件；“导出”菜单为幻灯片和论文生成热力图；F5 是投影演示模式。</translation>
    </message>
</context>
<context>
    <name>Handout</name>
    <message>
        <source>AttnViz — multi-head attention, step by step</source>
        <translation>AttnViz — 一步一步理解多头注意力</translation>
    </message>
    <message>
        <source>Step %1 of %2 — %3</source>
        <translation>第 %1 步（共 %2 步）— %3</translation>
    </message>
</context>
<context>
    <name>HeadTypesDialog</name>
    <message>
        <source>Head types</source>
        <translation>注意力头的类型</translation>
    </message>
    <message>
        <source>&amp;Score</source>
        <translation>分数(&amp;S)</translation>
    </message>
    <message>
        <source>Double-click a head to open it in the main window</source>
        <translation>双击一个头，在主窗口中打开它</translation>
    </message>
</context>
<context>
    <name>ImportanceDialog</name>
    <message>
        <source>Head importance</source>
        <translation>头的重要性</translation>
    </message>
    <message>
        <source>Every attention head is switched off in turn (its columns of the concatenation become zero) and the model is scored on the same examples each time. A head whose absence hurts most is the one the model relies on most; many heads can go with almost no loss, which is why heads can be pruned (D2L 10.3).</source>
        <translation>依次关闭每个注意力头（它在拼接结果中的列变为零），每次都在同一批样例上给模型评分。去掉后损害最大的头，就是模型最依赖的头；许多头去掉后几乎没有损失，这正是注意力头可以剪枝的原因（《动手学深度学习》10.3 节）。</translation>
    </message>
    <message>
        <source>&amp;Examples</source>
        <translation>样例数(&amp;E)</translation>
    </message>
    <message>
        <source>How many examples of the model&apos;s heldout.txt to score on; more is steadier and slower. Without heldout.txt, the text shown is used.</source>
        <translation>用模型 heldout.txt 中的多少个样例来评分；样例越多，结果越稳定，也越慢。没有 heldout.txt 时，使用当前显示的文本。</translation>
    </message>
    <message>
        <source>&amp;Measure</source>
        <translation>测量(&amp;M)</translation>
    </message>
    <message>
        <source>Double-click a head to switch it off in the main window</source>
        <translation>双击某个头，即可在主窗口中关闭该头</translation>
    </message>
    <message>
        <source>Click a cell or double-click a row to switch that head off in the main window and see what changes (tick Change from all heads on there). To undo it, right-click any head there and choose Switch every head back on.</source>
        <translation>单击一个单元格或双击一行，即可在主窗口中关闭对应的头并查看发生的变化（在主窗口中勾选“与所有头开启时的差异”）。要撤销，请在主窗口中右键单击任意一个头，然后选择“重新开启所有头”。</translation>
    </message>
</context>
<context>
    <name>InputPanel</name>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Query sentences (one per line; several lines form a batch)</source>
        <translation>查询句子（每行一句；多行组成一个批量）</translation>
    </message>
    <message>
        <source>Queries. Each line is one sentence of the batch.</source>
        <translation>查询。每行是批量中的一个句子。</translation>
    </message>
    <message>
        <source>Key/value sentences for cross-attention (empty: self-attention)</source>
        <translation>用于交叉注意力的键/值句子（留空：自注意力）</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>words (split at spaces)</source>
        <translation>单词（按空格切分）</translation>
    </message>
    <message>
        <source>characters</source>
        <translation>字符</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>Model width D</source>
        <translation>模型宽度 D</translation>
    </message>
    <message>
        <source>Heads H</source>
        <translation>头数 H</translation>
    </message>
    <message>
        <source>d_k per head</source>
        <translation>每个头的 d_k</translation>
    </message>
    <message>
        <source>auto (D / H)</source>
        <translation>自动（D / H）</translation>
    </message>
    <message>
        <source>Query/key size per head; auto = D / H</source>
        <translation>每个头的查询/键维度；自动 = D / H</translation>
    </message>
    <message>
        <source>d_v per head</source>
        <translation>每个头的 d_v</translation>
    </message>
    <message>
        <source>Value size per head; auto = D / H</source>
        <translation>每个头的值维度；自动 = D / H</translation>
    </message>
    <message>
        <source>Output width</source>
        <translation>输出宽度</translation>
    </message>
    <message>
        <source>auto (D)</source>
        <translation>自动（D）</translation>
    </message>
    <message>
        <source>Bias on every projection</source>
        <translation>每个投影都带偏置</translation>
    </message>
    <message>
        <source>Mask and weights</source>
        <translation>掩码与权重</translation>
    </message>
    <message>
        <source>Mask</source>
        <translation>掩码</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Valid lengths</source>
        <translation>有效长度</translation>
    </message>
    <message>
        <source>e.g. 3, 2</source>
        <translation>例如 3, 2</translation>
    </message>
    <message>
        <source>&lt;p&gt;D2L&apos;s valid lengths: one number per sentence (3, 2), or one row per sentence with a length per query ([[1, 3], [2, 4]]). Keys at or after the length are blocked. Empty: each sentence&apos;s own length, so only padding is blocked.&lt;/p&gt;</source>
        <translation>&lt;p&gt;《动手学深度学习》中的有效长度：每个句子一个数（3, 2），或者每个句子一行、每个查询一个长度（[[1, 3], [2, 4]]）。位置大于或等于该长度的键会被屏蔽。留空：使用每个句子自身的长度，因此只屏蔽填充。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Clear drawn mask</source>
        <translation>清除手绘的掩码</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Re-roll weights</source>
        <translation>重新随机生成权重</translation>
    </message>
    <message>
        <source>Unblock every cell drawn on the score steps</source>
        <translation>取消在分数步骤上画出的所有屏蔽单元格</translation>
    </message>
    <message>
        <source>Which query–key pairs are blocked before the softmax. Causal: no query sees a later position. Valid lengths: the keys at or after each sentence&apos;s length (its padding) are blocked. Custom: you block cells yourself by clicking them on a score step.</source>
        <translation>在 softmax 之前屏蔽哪些查询–键对。因果：任何查询都看不到后面的位置。有效长度：每个句子长度处及之后的键（即填充）被屏蔽。自定义：在分数步骤上点击单元格，亲手屏蔽它们。</translation>
    </message>
    <message>
        <source>causal</source>
        <translation>因果</translation>
    </message>
    <message>
        <source>valid lengths</source>
        <translation>有效长度</translation>
    </message>
    <message>
        <source>custom (drawn)</source>
        <translation>自定义（手绘）</translation>
    </message>
    <message>
        <source>Keys and values for cross-attention, one sentence per line of the batch; empty: the queries attend to themselves (self-attention).</source>
        <translation>交叉注意力的键和值，每行一句，对应批量中的一个样本；留空：查询关注它们自己（自注意力）。</translation>
    </message>
    <message>
        <source>How the text is cut into tokens: at spaces (one token per word) or one token per character.</source>
        <translation>如何把文本切分成词元：按空格切分（每个单词一个词元），或每个字符一个词元。</translation>
    </message>
    <message>
        <source>D (d_model): the width of every token&apos;s vector, split across the heads.</source>
        <translation>D（d_model）：每个词元向量的宽度，它会被分给各个头。</translation>
    </message>
    <message>
        <source>H: how many heads attend in parallel, each on its own slice of the features.</source>
        <translation>H：并行计算注意力的头数，每个头处理特征中属于自己的一段。</translation>
    </message>
    <message>
        <source>The width W_o maps the concatenated heads to; auto = D, so the output can be added back to the input.</source>
        <translation>W_o 把拼接后的各头映射到的宽度；自动 = D，这样输出可以加回到输入上。</translation>
    </message>
    <message>
        <source>Add a learned bias vector to each projection (Q, K, V and the output), as nn.MultiheadAttention does by default.</source>
        <translation>给每个投影（Q、K、V 和输出）加上一个可学习的偏置向量，nn.MultiheadAttention 默认就是这样做的。</translation>
    </message>
    <message>
        <source>The random weights come from this seed: the same seed gives the same weights on every computer.</source>
        <translation>随机权重由这个种子生成：同一个种子在任何电脑上都得到相同的权重。</translation>
    </message>
    <message>
        <source>Draw a new seed, and so new random weights.</source>
        <translation>抽取一个新的种子，从而得到新的随机权重。</translation>
    </message>
    <message>
        <source>Positions</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>sinusoidal, added to X</source>
        <translation>正弦，加到 X 上</translation>
    </message>
    <message>
        <source>rotary (RoPE)</source>
        <translation>旋转（RoPE）</translation>
    </message>
    <message>
        <source>RoPE θ</source>
        <translation>RoPE θ</translation>
    </message>
    <message>
        <source>&lt;p&gt;θ of rotary positions: pair i of a head turns by position · θ^(−2i/d_k). A larger θ turns the last pairs more slowly, for longer texts (Llama 2: 10000, Llama 3: 500000).&lt;/p&gt;</source>
        <translation>&lt;p&gt;旋转位置编码的 θ：一个头的第 i 对特征旋转 位置 · θ^(−2i/d_k)。θ 越大，后面的特征对转得越慢，适合更长的文本（Llama 2：10000，Llama 3：500000）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>K/V heads</source>
        <translation>K/V 头数</translation>
    </message>
    <message>
        <source>&lt;p&gt;H_kv: how many key/value heads the H query heads share. Equal to H is ordinary multi-head attention; fewer is grouped-query attention, each K/V head serving H / H_kv query heads (Llama 2 70B, Mistral); 1 is multi-query attention.&lt;/p&gt;</source>
        <translation>&lt;p&gt;H_kv：H 个查询头共享多少个键/值头。等于 H 就是普通的多头注意力；更少就是分组查询注意力，每个 K/V 头服务 H / H_kv 个查询头（Llama 2 70B、Mistral）；为 1 时是多查询注意力。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>= H</source>
        <translation>= H</translation>
    </message>
    <message>
        <source>Window W</source>
        <translation>窗口 W</translation>
    </message>
    <message>
        <source>&lt;p&gt;A sliding window on the causal mask: query i sees only keys i − W + 1 … i, as in Mistral. What lies further back reaches it only through the layers below.&lt;/p&gt;</source>
        <translation>&lt;p&gt;因果掩码上的滑动窗口：查询 i 只看到键 i − W + 1 … i，和 Mistral 一样。更早的信息只能通过下面的层传到它。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Softmax tile</source>
        <translation>softmax 分块</translation>
    </message>
    <message>
        <source>&lt;p&gt;Compute the softmax online, as FlashAttention does: each query row&apos;s keys are read in tiles of this many keys, keeping only a running maximum m, a running sum ℓ and a running output. The walkthrough gains the step “online softmax” with m and ℓ after every tile; the weights and the context come out the same.&lt;/p&gt;</source>
        <translation>&lt;p&gt;像 FlashAttention 那样在线计算 softmax：每个查询行的键按这里的个数分块读取，只保留累计最大值 m、累计和 ℓ 以及累计输出。逐步讲解中会多出“在线 softmax”一步，显示每读完一块后的 m 和 ℓ；注意力权重和上下文结果不变。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>whole rows</source>
        <translation>整行</translation>
    </message>
    <message>
        <source>&lt;p&gt;How attention learns where tokens are. None: it cannot tell the order. Sinusoidal: a position signal is added to every embedding (the 2017 Transformer). Rotary (RoPE): q and k are turned by an angle that grows with the position, so scores depend on distance (Llama, Mistral, Qwen2). ALiBi: each head subtracts its own slope times the distance from every score (BLOOM, MPT).&lt;/p&gt;</source>
        <translation>&lt;p&gt;注意力如何得知词元的位置。无：它分不清顺序。正弦：每个嵌入都加上一个位置信号（2017 年的 Transformer）。旋转（RoPE）：q 和 k 按随位置增长的角度旋转，于是分数取决于距离（Llama、Mistral、Qwen2）。ALiBi：每个头从每个分数中减去它自己的斜率乘以距离（BLOOM、MPT）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>a bias by distance (ALiBi)</source>
        <translation>按距离的偏置（ALiBi）</translation>
    </message>
    <message>
        <source>Rotated features</source>
        <translation>旋转的特征</translation>
    </message>
    <message>
        <source>&lt;p&gt;How many features of each head rotary positions turn: the first ones, in pairs; the others pass unturned, so a head can keep some features free of position (Phi-3&apos;s partial rotary, Qwen3-Next). 0: all of d_k.&lt;/p&gt;</source>
        <translation>&lt;p&gt;旋转位置编码转动每个头的多少个特征：最前面的那些，成对转动；其余的不转，这样一个头可以留一些与位置无关的特征（Phi-3 的部分旋转、Qwen3-Next）。0：全部 d_k。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>all of d_k</source>
        <translation>全部 d_k</translation>
    </message>
    <message>
        <source>Queries, keys and scores</source>
        <translation>查询、键与分数</translation>
    </message>
    <message>
        <source>QK-norm</source>
        <translation>QK 归一化</translation>
    </message>
    <message>
        <source>&lt;p&gt;Normalise q and k before they meet: an RMSNorm with a learned gain, so that no score can grow without bound. Each head: every head&apos;s q and k on their own, after the split (Qwen3, Gemma 3). Whole projection: a token&apos;s q, all heads together, and its k (OLMo 2). Either comes before rotary positions.&lt;/p&gt;</source>
        <translation>&lt;p&gt;在 q 与 k 相乘之前先归一化：一个带可学习增益的 RMSNorm，使任何分数都不会无限增长。每个头：在拆分之后，各个头的 q 和 k 各自归一化（Qwen3、Gemma 3）。整个投影：一个词元的 q（所有头合在一起）及其 k（OLMo 2）。两者都在旋转位置编码之前。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>each head</source>
        <translation>每个头</translation>
    </message>
    <message>
        <source>whole projection</source>
        <translation>整个投影</translation>
    </message>
    <message>
        <source>&lt;p&gt;Multiply the normalised q and k by (1 + w) rather than w, as Gemma&apos;s RMSNorm does: a gain of zeros then leaves them as normalised.&lt;/p&gt;</source>
        <translation>&lt;p&gt;把归一化后的 q 和 k 乘以 (1 + w) 而不是 w，如 Gemma 的 RMSNorm：增益全为零时，它们保持归一化后的样子。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Gain 1 + w (Gemma)</source>
        <translation>增益 1 + w（Gemma）</translation>
    </message>
    <message>
        <source>Scale</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>&lt;p&gt;What the scores QKᵀ are multiplied by. 0: 1/√d_k, as the 2017 Transformer. Gemma multiplies by query_pre_attn_scalar^(−1/2), which need not be the head&apos;s size.&lt;/p&gt;</source>
        <translation>&lt;p&gt;分数 QKᵀ 所乘的数。0：1/√d_k，同 2017 年的 Transformer。Gemma 乘以 query_pre_attn_scalar^(−1/2)，它不一定等于头的大小。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>1/√d_k</source>
        <translation>1/√d_k</translation>
    </message>
    <message>
        <source>Soft cap</source>
        <translation>软上限</translation>
    </message>
    <message>
        <source>&lt;p&gt;Squeeze every scaled score into ±c with c · tanh(s / c), after the scale and before the mask (Gemma 2 caps at 50). Small scores pass almost unchanged; large ones never pass the cap. 0: no cap.&lt;/p&gt;</source>
        <translation>&lt;p&gt;用 c · tanh(s / c) 把每个缩放后的分数压进 ±c 之内，在缩放之后、掩码之前（Gemma 2 的上限是 50）。小分数几乎不变地通过；大分数永远超不过上限。0：没有上限。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Give each head a learned sink: a logit that joins every row of its softmax as one more key and is dropped after it, so a row&apos;s weights add up to less than 1 and a head can attend to nothing (gpt-oss).&lt;/p&gt;</source>
        <translation>&lt;p&gt;给每个头一个可学习的汇点：一个 logit，作为多出来的一个键加入它的 softmax 的每一行，之后再被去掉，于是一行的权重之和小于 1，一个头可以什么都不关注（gpt-oss）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>A learned sink per head</source>
        <translation>每个头一个可学习的汇点</translation>
    </message>
</context>
<context>
    <name>KvCacheDialog</name>
    <message>
        <source>Decoding with a KV cache</source>
        <translation>用 KV 缓存解码</translation>
    </message>
    <message>
        <source>&amp;Tokens to write</source>
        <translation>要写的词元数(&amp;T)</translation>
    </message>
    <message>
        <source>How many tokens the model writes after the text, one decoding step each</source>
        <translation>模型在文本之后要写多少个词元，每个词元一个解码步</translation>
    </message>
    <message>
        <source>&amp;Layer</source>
        <translation>层(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Head</source>
        <translation>头(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Previous step</source>
        <translation>上一步(&amp;P)</translation>
    </message>
    <message>
        <source>The decoding step shown: the prefill reads the whole text, every later step one token</source>
        <translation>显示的解码步：预填充读入整段文本，之后每一步读一个词元</translation>
    </message>
    <message>
        <source>&amp;Next step</source>
        <translation>下一步(&amp;N)</translation>
    </message>
</context>
<context>
    <name>LessonFiles</name>
    <message>
        <source>“%1” cannot be opened: %2</source>
        <translation>无法打开“%1”：%2</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>AttnViz — multi-head attention, step by step</source>
        <translation>AttnViz — 一步一步理解多头注意力</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open &amp;recent lesson</source>
        <translation>最近打开的课件(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>E&amp;xperiments</source>
        <translation>实验(&amp;X)</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Open lesson…</source>
        <translation>打开课件(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a lesson saved as an .attnviz file: the model or playground, the text, the step, the block and the heads switched off</source>
        <translation>打开保存为 .attnviz 文件的课件：其中包括模型或演练场、文本、步骤、注意力块以及被关闭的头</translation>
    </message>
    <message>
        <source>Ctrl+O</source>
        <translation>Ctrl+O</translation>
    </message>
    <message>
        <source>&amp;Save lesson as…</source>
        <translation>课件另存为(&amp;S)…</translation>
    </message>
    <message>
        <source>Save what the window shows as a lesson (.attnviz), to open again in class</source>
        <translation>把窗口当前显示的内容保存为课件（.attnviz），以便上课时再次打开</translation>
    </message>
    <message>
        <source>Ctrl+S</source>
        <translation>Ctrl+S</translation>
    </message>
    <message>
        <source>&amp;Preferences…</source>
        <translation>首选项(&amp;P)…</translation>
    </message>
    <message>
        <source>Ctrl+,</source>
        <translation>Ctrl+,</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>Ctrl+Q</source>
        <translation>Ctrl+Q</translation>
    </message>
    <message>
        <source>&amp;Previous step</source>
        <translation>上一步(&amp;P)</translation>
    </message>
    <message>
        <source>Left</source>
        <translation>Left</translation>
    </message>
    <message>
        <source>&amp;Next step</source>
        <translation>下一步(&amp;N)</translation>
    </message>
    <message>
        <source>Right</source>
        <translation>Right</translation>
    </message>
    <message>
        <source>&amp;First step</source>
        <translation>第一步(&amp;F)</translation>
    </message>
    <message>
        <source>Home</source>
        <translation>Home</translation>
    </message>
    <message>
        <source>&amp;Last step</source>
        <translation>最后一步(&amp;L)</translation>
    </message>
    <message>
        <source>End</source>
        <translation>End</translation>
    </message>
    <message>
        <source>P&amp;resentation mode (large text)</source>
        <translation>演示模式（大字号）(&amp;R)</translation>
    </message>
    <message>
        <source>F5</source>
        <translation>F5</translation>
    </message>
    <message>
        <source>&amp;About AttnViz</source>
        <translation>关于 AttnViz(&amp;A)</translation>
    </message>
    <message>
        <source>Guided &amp;tour</source>
        <translation>导览(&amp;T)</translation>
    </message>
    <message>
        <source>A short walk around the window: where to choose a model, the steps, the heatmaps, the experiments</source>
        <translation>带你简单认识一下窗口：在哪里选择模型，以及计算步骤、热力图和实验</translation>
    </message>
    <message>
        <source>&amp;Glossary…</source>
        <translation>术语表(&amp;G)…</translation>
    </message>
    <message>
        <source>Every term the app uses, explained: d_model, d_k, head, residual stream, LayerNorm, greedy decoding, BPE …</source>
        <translation>解释本应用用到的每个术语：d_model、d_k、头、残差流、层归一化（LayerNorm）、贪心解码、BPE……</translation>
    </message>
    <message>
        <source>F1</source>
        <translation>F1</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;Animations</source>
        <translation>动画(&amp;A)</translation>
    </message>
    <message>
        <source>Offer ▶ Animate on the split, softmax, context and concat steps</source>
        <translation>在拆分、softmax、加权求和与拼接这几步提供 ▶ 播放动画</translation>
    </message>
</context>
<context>
    <name>MapExport</name>
    <message>
        <source>Cannot export to &apos;.%1&apos;; use .png, .svg, .pdf, .csv or .npy.</source>
        <translation>无法导出为“.%1”；请使用 .png、.svg、.pdf、.csv 或 .npy。</translation>
    </message>
    <message>
        <source>Export the map</source>
        <translation>导出这张图</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
</context>
<context>
    <name>MistakesDialog</name>
    <message>
        <source>Common mistakes</source>
        <translation>常见错误</translation>
    </message>
    <message>
        <source>Each mistake is computed by the engine on the module and inputs shown in the main window.</source>
        <translation>每种错误都由计算引擎在主窗口所示的模块和输入上实际算出。</translation>
    </message>
    <message>
        <source>&amp;Head</source>
        <translation>头(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Numbers in cells</source>
        <translation>在单元格中显示数值(&amp;N)</translation>
    </message>
</context>
<context>
    <name>ModelPanel</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>A trained demo model, the random-weights playground, or a model folder of your own</source>
        <translation>训练好的演示模型、随机权重演练场，或者你自己的模型文件夹</translation>
    </message>
    <message>
        <source>&amp;Text</source>
        <translation>文本(&amp;T)</translation>
    </message>
    <message>
        <source>Tar&amp;get</source>
        <translation>目标(&amp;G)</translation>
    </message>
    <message>
        <source>empty: the model decodes on its own</source>
        <translation>留空：由模型自行解码</translation>
    </message>
    <message>
        <source>&amp;Continue by</source>
        <translation>续写(&amp;C)</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个词元</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop loading or running the model; the panel keeps what it showed before</source>
        <translation>停止加载或运行模型；面板保留之前显示的内容</translation>
    </message>
    <message>
        <source>&amp;Layer</source>
        <translation>层(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Block</source>
        <translation>块(&amp;B)</translation>
    </message>
    <message>
        <source>&amp;Decoding step</source>
        <translation>解码步(&amp;D)</translation>
    </message>
    <message>
        <source>Replay greedy decoding: at step k the decoder has seen only the tokens before it</source>
        <translation>重放贪心解码：在第 k 步，解码器只看到它之前的词元</translation>
    </message>
    <message>
        <source>whole output</source>
        <translation>完整输出</translation>
    </message>
    <message>
        <source>Whole-model &amp;overview (layers × heads)</source>
        <translation>全模型概览（层 × 头）(&amp;O)</translation>
    </message>
    <message>
        <source>Layers, heads, positions and batch items count from 0, as in PyTorch: layer 1 is the second layer.</source>
        <translation>层、头、位置和批量样本都从 0 开始编号（与 PyTorch 一致）：第 1 层是第二层。</translation>
    </message>
    <message>
        <source>&amp;Picture</source>
        <translation>图片(&amp;P)</translation>
    </message>
    <message>
        <source>a PNG or JPEG file; or drop one on the window</source>
        <translation>PNG 或 JPEG 文件；也可以把图片拖到窗口上</translation>
    </message>
    <message>
        <source>C&amp;hoose…</source>
        <translation>选择(&amp;H)…</translation>
    </message>
    <message>
        <source>Choose the picture the Vision Transformer classifies</source>
        <translation>选择视觉 Transformer 要分类的图片</translation>
    </message>
</context>
<context>
    <name>PictureAttentionDialog</name>
    <message>
        <source>Attention on the picture</source>
        <translation>图片上的注意力</translation>
    </message>
    <message>
        <source>&amp;Show</source>
        <translation>显示(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Layer</source>
        <translation>层(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Head</source>
        <translation>头(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;From</source>
        <translation>来自(&amp;F)</translation>
    </message>
    <message>
        <source>The token whose attention is drawn: [CLS], or a patch you click on the picture</source>
        <translation>要画出其注意力的词元：[CLS]，或你在图片上点击的图块</translation>
    </message>
    <message>
        <source>&amp;Opacity</source>
        <translation>不透明度(&amp;O)</translation>
    </message>
    <message>
        <source>0: the picture alone; 100: the weights alone</source>
        <translation>0：只显示图片；100：只显示权重</translation>
    </message>
    <message>
        <source>&amp;Colour map</source>
        <translation>色图(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation>导出(&amp;E)…</translation>
    </message>
</context>
<context>
    <name>PredictionPrompt</name>
    <message>
        <source>Predict, then reveal — what will this step show?</source>
        <translation>先预测，再揭晓——这一步会显示什么？</translation>
    </message>
    <message>
        <source>Reveal without answering (Esc)</source>
        <translation>不作答，直接揭晓（Esc）</translation>
    </message>
    <message>
        <source>Show the step and the answer; nothing is counted</source>
        <translation>显示这一步和答案；不计分</translation>
    </message>
</context>
<context>
    <name>PreferencesDialog</name>
    <message>
        <source>Preferences</source>
        <translation>首选项</translation>
    </message>
    <message>
        <source>Limits</source>
        <translation>限制</translation>
    </message>
    <message>
        <source>&amp;Memory limit</source>
        <translation>内存上限(&amp;M)</translation>
    </message>
    <message>
        <source>empty: 80 % of the memory available</source>
        <translation>留空：可用内存的 80%</translation>
    </message>
    <message>
        <source>The most memory one model run may take, e.g. 2G or 512M. A run that would need more is refused before it starts, with the estimate. Empty: 80 % of the memory the machine has available.</source>
        <translation>一次模型运行最多可以占用的内存，例如 2G 或 512M。需要更多内存的运行会在开始前被拒绝，并给出估算值。留空：机器可用内存的 80%。</translation>
    </message>
</context>
<context>
    <name>RolloutDialog</name>
    <message>
        <source>Attention rollout</source>
        <translation>注意力展开</translation>
    </message>
    <message>
        <source>&amp;Heads fused by their</source>
        <translation>各头合并方式(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Discard ratio</source>
        <translation>丢弃比例(&amp;D)</translation>
    </message>
    <message>
        <source>In each layer, the share of each row&apos;s smallest entries set to 0 before the identity is added (the diagonal is kept)</source>
        <translation>在每一层加上单位矩阵之前，把每行中最小的这一比例的值设为 0（对角线保留）</translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation>导出(&amp;E)…</translation>
    </message>
</context>
<context>
    <name>RotaryDialog</name>
    <message>
        <source>Rotary positions</source>
        <translation>旋转位置编码</translation>
    </message>
    <message>
        <source>&amp;Head</source>
        <translation>头(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Query</source>
        <translation>查询(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Key</source>
        <translation>键(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;Move every position by</source>
        <translation>所有位置平移(&amp;M)</translation>
    </message>
    <message>
        <source>Add the same number to every position: each vector turns further, the angle between a query and a key stays, and so does their score</source>
        <translation>给每个位置加上同一个数：每个向量都多转一些，查询与键之间的夹角不变，它们的分数也不变</translation>
    </message>
</context>
<context>
    <name>ScalingDialog</name>
    <message>
        <source>Scaling the scores</source>
        <translation>分数的缩放</translation>
    </message>
    <message>
        <source>Divide the scores by</source>
        <translation>将注意力分数除以</translation>
    </message>
    <message>
        <source>√d_k</source>
        <translation>√d_k</translation>
    </message>
    <message>
        <source>nothing (1)</source>
        <translation>不除（1）</translation>
    </message>
    <message>
        <source>a temperature</source>
        <translation>一个温度</translation>
    </message>
    <message>
        <source>Any positive divisor: below √d_k the softmax sharpens, above it flattens</source>
        <translation>任意正数作除数：小于 √d_k 时 softmax 变得更尖锐，大于 √d_k 时变得更平缓</translation>
    </message>
    <message>
        <source>&amp;Head</source>
        <translation>头(&amp;H)</translation>
    </message>
</context>
<context>
    <name>WebPage</name>
    <message>
        <source>Step %1 of %2 — %3</source>
        <translation>第 %1 步（共 %2 步）— %3</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>mean of the heads</source>
        <translation>各头的平均</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>row</source>
        <translation>行</translation>
    </message>
    <message>
        <source>column</source>
        <translation>列</translation>
    </message>
    <message>
        <source>blocked by the mask</source>
        <translation>被掩码屏蔽</translation>
    </message>
    <message>
        <source>stored to ±%1</source>
        <translation>存储精度 ±%1</translation>
    </message>
    <message>
        <source>layer %1 · head %2</source>
        <translation>第 %1 层 · 头 %2</translation>
    </message>
    <message>
        <source>self-attention</source>
        <translation>自注意力</translation>
    </message>
    <message>
        <source>masked self-attention</source>
        <translation>掩码自注意力</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>This browser cannot unpack the page&apos;s numbers (it has no DecompressionStream): open the page in a current Chromium, Firefox or Safari.</source>
        <translation>这个浏览器无法解开网页中的数值（它没有 DecompressionStream）：请用较新的 Chromium、Firefox 或 Safari 打开。</translation>
    </message>
    <message>
        <source>Weights of “%1” over the keys (heads %2)</source>
        <translation>“%1”对各个键的权重（头 %2）</translation>
    </message>
    <message>
        <source>Attention of [CLS] over the picture: %1</source>
        <translation>[CLS] 在图片上的注意力：%1</translation>
    </message>
    <message>
        <source>Head view</source>
        <translation>头视图</translation>
    </message>
    <message>
        <source>Model view</source>
        <translation>模型视图</translation>
    </message>
    <message>
        <source>Step by step</source>
        <translation>逐步讲解</translation>
    </message>
    <message>
        <source>Picture</source>
        <translation>图片</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头</translation>
    </message>
    <message>
        <source>← Previous</source>
        <translation>← 上一步</translation>
    </message>
    <message>
        <source>Next →</source>
        <translation>下一步 →</translation>
    </message>
    <message>
        <source>Opacity</source>
        <translation>不透明度</translation>
    </message>
    <message>
        <source>Point at a word on the left, or move to it with Tab and the arrow keys, to see where it looks: each line&apos;s strength is its attention weight, each colour one head.</source>
        <translation>把鼠标指向左边的一个词元，或用 Tab 键和方向键移到它上面，就能看到它关注哪里：每条线的深浅是它的注意力权重，每种颜色代表一个头。</translation>
    </message>
    <message>
        <source>Every layer and head at once: rows are queries, columns keys. Click a map, or press Enter on it, to open it.</source>
        <translation>一次看全所有层和头：行是查询，列是键。点击一张图，或在它上面按 Enter，即可打开它。</translation>
    </message>
    <message>
        <source>← and → move between the steps; point at a cell to read its value.</source>
        <translation>用 ← 和 → 在各步之间移动；把鼠标指向一个单元格即可读出它的数值。</translation>
    </message>
    <message>
        <source>Each value is stored in %1 bits, as a whole number of steps from its map&apos;s smallest value; a value read here is within half a step of the computed one (the step is shown with it).</source>
        <translation>每个数值用 %1 位存储，记为从该图最小值起的整数个步长；这里读出的数值与计算值相差不超过半个步长（步长与数值一同显示）。</translation>
    </message>
    <message>
        <source>Made with AttnViz. Everything this page needs is inside it: it opens offline and loads nothing from the network.</source>
        <translation>由 AttnViz 生成。这个网页需要的一切都在它自身之中：离线即可打开，不从网络加载任何内容。</translation>
    </message>
</context>
<context>
    <name>WindowReachDialog</name>
    <message>
        <source>Sliding window reach</source>
        <translation>滑动窗口的覆盖范围</translation>
    </message>
    <message>
        <source>&amp;Token</source>
        <translation>词元(&amp;T)</translation>
    </message>
    <message>
        <source>The token whose reach is drawn; by default the last</source>
        <translation>要画出其覆盖范围的词元；默认为最后一个</translation>
    </message>
    <message>
        <source>&amp;Layers</source>
        <translation>层数(&amp;L)</translation>
    </message>
    <message>
        <source>A stack of your own, while no model with a sliding window is shown</source>
        <translation>当前没有显示带滑动窗口的模型时，使用你自己设定的层堆叠</translation>
    </message>
    <message>
        <source>&amp;Window</source>
        <translation>窗口(&amp;W)</translation>
    </message>
    <message>
        <source>T&amp;okens</source>
        <translation>词元数(&amp;O)</translation>
    </message>
</context>
<context>
    <name>attnviz::app::AttentionSinksDialog</name>
    <message>
        <source>Attention sinks</source>
        <translation>注意力汇聚点</translation>
    </message>
    <message>
        <source>&lt;p&gt;Many heads of a trained model put a large share of their weight on the very first token, whatever it says. Xiao et al. (2023) explain why: the softmax must hand out a total weight of 1 even when a head finds nothing worth reading, and the first token, which every later query can see, becomes the place where that weight is parked. Drop it from a sliding window and such a model falls apart; keep it, and the window can slide on.&lt;/p&gt;</source>
        <translation>&lt;p&gt;训练好的模型中，许多头把很大一部分权重放在第一个词元上，不管它是什么。Xiao 等人（2023）解释了原因：即使某个头找不到值得读取的内容，softmax 也必须分出总和为 1 的权重，而之后每个查询都能看到的第一个词元，就成了存放这些权重的地方。若从滑动窗口中丢掉它，这样的模型就会崩溃；保留它，窗口就能继续滑动。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Open a model: a sink is something training makes, and the playground&apos;s random heads have none.</source>
        <translation>请打开一个模型：汇聚点是训练出来的，演练场的随机头没有汇聚点。</translation>
    </message>
    <message>
        <source>This run kept no self-attention weights over two tokens or more: type a longer text.</source>
        <translation>这次运行没有保留两个及以上词元的自注意力权重：请输入更长的文本。</translation>
    </message>
    <message>
        <source>%1: on average the heads put %2 % of their weight on the first token; layer %3 head %4 the most, %5 %.</source>
        <translation>%1：各头平均把 %2 % 的权重放在第一个词元上；第 %3 层第 %4 个头最多，为 %5 %。</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>%1: share of weight on the first token</source>
        <translation>%1：第一个词元上的权重占比</translation>
    </message>
    <message>
        <source>There was not enough memory to run the text again.</source>
        <translation>内存不足，无法再次运行这段文本。</translation>
    </message>
    <message>
        <source>&amp;Run the text again without its first token</source>
        <translation>去掉第一个词元后再运行一次(&amp;R)</translation>
    </message>
    <message>
        <source>Xiao et al.&apos;s experiment: does the weight move to whatever comes first, and how much worse are the same predictions?</source>
        <translation>Xiao 等人的实验：权重会不会转移到新的第一个词元上？同样的预测会差多少？</translation>
    </message>
    <message>
        <source>%1, %2: share of weight on the token now first</source>
        <translation>%1，%2：现在排第一的词元上的权重占比</translation>
    </message>
    <message>
        <source>Removing the first token compares next-token predictions: open a decoder-only model (the bundled modern or genesis).</source>
        <translation>去掉第一个词元比较的是下一个词元的预测：请打开一个仅解码器模型（内置的 modern 或 genesis）。</translation>
    </message>
    <message>
        <source>Running the text again without its first token…</source>
        <translation>正在去掉第一个词元后再次运行这段文本…</translation>
    </message>
    <message>
        <source>Without “%1”: the heads put %2 % of their weight on the token now first. The same %3 next tokens are predicted with a loss of %4 nats instead of %5, and %6 of the greedy choices change.</source>
        <translation>去掉“%1”之后：各头把 %2 % 的权重放在现在排第一的词元上。同样的 %3 个下一个词元，预测损失从 %5 奈特变为 %4 奈特，贪心选择中有 %6 个发生了变化。</translation>
    </message>
    <message>
        <source>without “%1”</source>
        <translation>去掉“%1”</translation>
    </message>
</context>
<context>
    <name>attnviz::app::CellArithmeticDialog</name>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Head %1 · query %2 · key %3&lt;/b&gt;%4&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;头 %1 · 查询 %2 · 键 %3&lt;/b&gt;%4&lt;/p&gt;</translation>
    </message>
    <message>
        <source> · batch item %1</source>
        <translation> · 批量样本 %1</translation>
    </message>
    <message>
        <source>1. Score: q_%1 · k_%2, term by term</source>
        <translation>1. 注意力分数：q_%1 · k_%2，逐项计算</translation>
    </message>
    <message>
        <source>t</source>
        <translation>t</translation>
    </message>
    <message>
        <source>q[t]</source>
        <translation>q[t]</translation>
    </message>
    <message>
        <source>k[t]</source>
        <translation>k[t]</translation>
    </message>
    <message>
        <source>q[t] × k[t]</source>
        <translation>q[t] × k[t]</translation>
    </message>
    <message numerus="yes">
        <source>&lt;p&gt;… and %n more terms, included in the sum.&lt;/p&gt;</source>
        <translation>
            <numerusform>&lt;p&gt;……另有 %n 项，已计入总和。&lt;/p&gt;</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;p&gt;Sum of the %n products = &lt;b&gt;%1&lt;/b&gt; (the trace&apos;s score: %2)&lt;/p&gt;</source>
        <translation>
            <numerusform>&lt;p&gt;%n 个乘积之和 = &lt;b&gt;%1&lt;/b&gt;（计算轨迹中的分数：%2）&lt;/p&gt;</numerusform>
        </translation>
    </message>
    <message>
        <source>2. Scaled: ÷ √d_k</source>
        <translation>2. 缩放：÷ √d_k</translation>
    </message>
    <message>
        <source>&lt;p&gt;%1 ÷ √%2 = %1 ÷ %3 = &lt;b&gt;%4&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;%1 ÷ √%2 = %1 ÷ %3 = &lt;b&gt;%4&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Every key is blocked for this query. The softmax of a row of −∞ would be 0/0 (NaN); AttnViz gives the row zero weights, so the query attends to nothing and its context is zero.&lt;/p&gt;</source>
        <translation>&lt;p&gt;对这个查询，所有键都被屏蔽了。对一行全为 −∞ 的分数做 softmax 会得到 0/0（NaN）；AttnViz 让这一行的权重全为零，于是这个查询不关注任何键，它的上下文也为零。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Key %1 is &lt;b&gt;blocked&lt;/b&gt; for this query: the masked score is −∞, so exp gives 0 and its weight is exactly 0.&lt;/p&gt;</source>
        <translation>&lt;p&gt;对这个查询，键 %1 &lt;b&gt;被屏蔽&lt;/b&gt;：掩码后的分数为 −∞，因此 exp 得 0，它的权重恰好为 0。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;The row&apos;s largest masked score, %1, is subtracted before exp (the result is the same; the exps cannot overflow).&lt;/p&gt;</source>
        <translation>&lt;p&gt;求 exp 之前先减去这一行掩码后分数的最大值 %1（结果不变，exp 也不会溢出）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>掩码后</translation>
    </message>
    <message>
        <source>exp(masked − max)</source>
        <translation>exp(掩码后 − max)</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>&lt;p&gt;Showing %1 of %2 keys: the largest weights and key %3.&lt;/p&gt;</source>
        <translation>&lt;p&gt;显示 %2 个键中的 %1 个：权重最大的那些键以及键 %3。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Row sum of the exps = %1&lt;br&gt;weight = %2 ÷ %1 = &lt;b&gt;%3&lt;/b&gt; (the trace&apos;s weight: %4). The row&apos;s weights add up to 1.&lt;/p&gt;</source>
        <translation>&lt;p&gt;这一行 exp 之和 = %1&lt;br&gt;权重 = %2 ÷ %1 = &lt;b&gt;%3&lt;/b&gt;（计算轨迹中的权重：%4）。这一行的权重之和为 1。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Head %1 · query %2 · feature %3 of the context&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;头 %1 · 查询 %2 · 上下文的第 %3 个特征&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Each key&apos;s value in that column, times the weight query %1 gives the key:&lt;/p&gt;</source>
        <translation>&lt;p&gt;每个键在该列上的值，乘以查询 %1 分配给该键的权重：&lt;/p&gt;</translation>
    </message>
    <message>
        <source>v[%1]</source>
        <translation>v[%1]</translation>
    </message>
    <message>
        <source>weight × v</source>
        <translation>权重 × v</translation>
    </message>
    <message>
        <source>&lt;p&gt;Showing the %1 largest weights of %2 keys; the sum has every key.&lt;/p&gt;</source>
        <translation>&lt;p&gt;显示 %2 个键中权重最大的 %1 个；求和时包含所有键。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Sum = &lt;b&gt;%1&lt;/b&gt; (the trace&apos;s context: %2)&lt;/p&gt;</source>
        <translation>&lt;p&gt;和 = &lt;b&gt;%1&lt;/b&gt;（计算轨迹中的上下文：%2）&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;No arithmetic to show: %1.&lt;/p&gt;</source>
        <translation>&lt;p&gt;没有可显示的算术过程：%1。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Cell of &lt;i&gt;%1&lt;/i&gt;: every number below is the trace&apos;s.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;i&gt;%1&lt;/i&gt; 的单元格：下面的每个数字都来自计算轨迹。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>The arithmetic of one cell</source>
        <translation>单元格的算术过程</translation>
    </message>
    <message>
        <source>&lt;p&gt;Nothing is computed, so there is no cell to explain.&lt;/p&gt;</source>
        <translation>&lt;p&gt;尚未计算任何内容，因此没有可解释的单元格。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Head %1 · query %2 · after tile %3 (keys %4–%5)&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;头 %1 · 查询 %2 · 读完第 %3 块之后（键 %4–%5）&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>The row read tile by tile</source>
        <translation>逐块读取这一行</translation>
    </message>
    <message>
        <source>&lt;p&gt;m is the largest score so far, ℓ the sum of exp(s − m) so far and o the values weighted by exp(s − m). When a tile raises m, the earlier ℓ and o are multiplied by exp(m&lt;sub&gt;old&lt;/sub&gt; − m&lt;sub&gt;new&lt;/sub&gt;) first.&lt;/p&gt;</source>
        <translation>&lt;p&gt;m 是目前为止最大的分数，ℓ 是目前为止 exp(s − m) 的和，o 是按 exp(s − m) 加权的值之和。某一块使 m 变大时，先把之前的 ℓ 和 o 乘以 exp(m&lt;sub&gt;旧&lt;/sub&gt; − m&lt;sub&gt;新&lt;/sub&gt;)。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>tile</source>
        <translation>块</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <source>tile&apos;s max</source>
        <translation>块内最大值</translation>
    </message>
    <message>
        <source>m</source>
        <translation>m</translation>
    </message>
    <message>
        <source>rescale</source>
        <translation>重缩放</translation>
    </message>
    <message>
        <source>ℓ</source>
        <translation>ℓ</translation>
    </message>
    <message>
        <source>o</source>
        <translation>o</translation>
    </message>
    <message>
        <source>Tile %1</source>
        <translation>第 %1 块</translation>
    </message>
    <message>
        <source>&lt;p&gt;Every key of this tile is blocked: m and ℓ stay as they were (m = %1, ℓ = %2).&lt;/p&gt;</source>
        <translation>&lt;p&gt;这一块的键全部被屏蔽：m 和 ℓ 保持不变（m = %1，ℓ = %2）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Scores: %1&lt;br&gt;m = max(%2, %3) = &lt;b&gt;%4&lt;/b&gt; (the trace&apos;s online_max: %5)&lt;br&gt;rescale = exp(%2 − %4) = %6&lt;br&gt;exp(s − m): %7&lt;br&gt;ℓ = %8 × %6 + %9 = &lt;b&gt;%10&lt;/b&gt; (the trace&apos;s online_sum: %11)&lt;/p&gt;</source>
        <translation>&lt;p&gt;分数：%1&lt;br&gt;m = max(%2, %3) = &lt;b&gt;%4&lt;/b&gt;（计算轨迹中的 online_max：%5）&lt;br&gt;重缩放因子 = exp(%2 − %4) = %6&lt;br&gt;exp(s − m)：%7&lt;br&gt;ℓ = %8 × %6 + %9 = &lt;b&gt;%10&lt;/b&gt;（计算轨迹中的 online_sum：%11）&lt;/p&gt;</translation>
    </message>
    <message>
        <source>After the last tile</source>
        <translation>读完最后一块之后</translation>
    </message>
    <message>
        <source>&lt;p&gt;o ÷ ℓ = (%1%3) — the trace&apos;s context row: (%2%3), the same as softmax · V without ever holding the row whole.&lt;/p&gt;</source>
        <translation>&lt;p&gt;o ÷ ℓ = (%1%3)——计算轨迹中的上下文行：(%2%3)，与 softmax · V 相同，却从未同时保存整行分数。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;q from %1 of head %2, k from %3 of K/V head %4.&lt;/p&gt;</source>
        <translation>&lt;p&gt;q 取自头 %2 的 %1，k 取自 K/V 头 %4 的 %3。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>2. Scaled: × the module&apos;s scale</source>
        <translation>2. 缩放：× 模块自己的缩放</translation>
    </message>
    <message>
        <source>&lt;p&gt;%1 × %2 = &lt;b&gt;%3&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;%1 × %2 = &lt;b&gt;%3&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>%1. Capped: c · tanh(scaled / c)</source>
        <translation>%1. 上限：c · tanh(缩放后 / c)</translation>
    </message>
    <message>
        <source>&lt;p&gt;%1 · tanh(%2 ÷ %1) = &lt;b&gt;%3&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;%1 · tanh(%2 ÷ %1) = &lt;b&gt;%3&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>%1. Biased by distance (ALiBi)</source>
        <translation>%1. 按距离加偏置（ALiBi）</translation>
    </message>
    <message>
        <source>&lt;p&gt;%1 + (%2) = &lt;b&gt;%3&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;%1 + (%2) = &lt;b&gt;%3&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>%1. Masked</source>
        <translation>%1. 掩码</translation>
    </message>
    <message>
        <source>&lt;p&gt;Key %1 is allowed: the masked score is the score before the mask, %2.&lt;/p&gt;</source>
        <translation>&lt;p&gt;键 %1 是允许的：掩码后的分数就是掩码前的分数，%2。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>%1. Softmax over the keys of row %2</source>
        <translation>%1. 在第 %2 行的键上做 softmax</translation>
    </message>
    <message>
        <source>&lt;p&gt;The head&apos;s sink, a learned logit of %1, joins the row as one more key: it counts in the maximum and in the sum, then it is dropped, so the weights on the keys add up to 1 − %2.&lt;/p&gt;</source>
        <translation>&lt;p&gt;这个头的汇点是一个可学习的 logit，值为 %1，它作为多出来的一个键加入这一行：它计入最大值和总和，然后被去掉，所以各个键上的权重之和是 1 − %2。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Row sum of the exps, the sink&apos;s exp(%1 − max) = %2 included: %3&lt;br&gt;weight = %4 ÷ %3 = &lt;b&gt;%5&lt;/b&gt; (the trace&apos;s weight: %6); the sink takes %7.&lt;/p&gt;</source>
        <translation>&lt;p&gt;这一行各 exp 之和，含汇点的 exp(%1 − max) = %2：%3&lt;br&gt;权重 = %4 ÷ %3 = &lt;b&gt;%5&lt;/b&gt;（trace 中的权重：%6）；汇点占 %7。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>The weighted sum of column %1 of V of K/V head %2</source>
        <translation>K/V 头 %2 的 V 的第 %1 列的加权和</translation>
    </message>
</context>
<context>
    <name>attnviz::app::ExportDialog</name>
    <message>
        <source>As many as fit</source>
        <translation>放得下的都显示</translation>
    </message>
    <message>
        <source>Every one</source>
        <translation>全部显示</translation>
    </message>
    <message>
        <source>None</source>
        <translation>不显示</translation>
    </message>
    <message>
        <source>Shared by the step</source>
        <translation>同一步骤共用</translation>
    </message>
    <message>
        <source>Each map its own</source>
        <translation>每张图各自</translation>
    </message>
    <message>
        <source>Fixed</source>
        <translation>固定</translation>
    </message>
    <message>
        <source>Linear</source>
        <translation>线性</translation>
    </message>
    <message>
        <source>Logarithmic</source>
        <translation>对数</translation>
    </message>
    <message>
        <source>Square root (power 0.5)</source>
        <translation>平方根（幂 0.5）</translation>
    </message>
    <message>
        <source>The colour range is empty: “from” must be below “to”.</source>
        <translation>颜色范围为空：“从”必须小于“到”。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::ExportMenu</name>
    <message>
        <source>The input step shows no attention matrix; choose a step from Q, K, V on.</source>
        <translation>输入这一步没有注意力矩阵；请选择 Q、K、V 及之后的某一步。</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Current &amp;heatmap as image…</source>
        <translation>当前热力图导出为图像(&amp;H)…</translation>
    </message>
    <message>
        <source>Current head &amp;grid as image…</source>
        <translation>当前头网格导出为图像(&amp;G)…</translation>
    </message>
    <message>
        <source>Current matrix as &amp;CSV or NumPy…</source>
        <translation>当前矩阵导出为 CSV 或 NumPy(&amp;C)…</translation>
    </message>
    <message>
        <source>&amp;Every layer × head × step…</source>
        <translation>所有层 × 头 × 步骤(&amp;E)…</translation>
    </message>
    <message>
        <source>Whole &amp;trace (safetensors + JSON manifest)…</source>
        <translation>完整计算轨迹（safetensors + JSON 清单）(&amp;T)…</translation>
    </message>
    <message>
        <source>Export the trace</source>
        <translation>导出计算轨迹</translation>
    </message>
    <message>
        <source>safetensors (*.safetensors)</source>
        <translation>safetensors (*.safetensors)</translation>
    </message>
    <message>
        <source>Classroom &amp;handout (PDF)…</source>
        <translation>课堂讲义（PDF）(&amp;H)…</translation>
    </message>
    <message>
        <source>Export the handout</source>
        <translation>导出讲义</translation>
    </message>
    <message>
        <source>PDF (*.pdf)</source>
        <translation>PDF (*.pdf)</translation>
    </message>
    <message>
        <source>&amp;Copy view to clipboard</source>
        <translation>复制视图到剪贴板(&amp;C)</translation>
    </message>
    <message>
        <source>Cannot export to &apos;.%1&apos;; use .png, .svg, .pdf, .csv or .npy.</source>
        <translation>无法导出为“.%1”；请使用 .png、.svg、.pdf、.csv 或 .npy。</translation>
    </message>
    <message>
        <source>A head grid is an image; use .png, .svg or .pdf.</source>
        <translation>头网格是图像；请使用 .png、.svg 或 .pdf。</translation>
    </message>
    <message>
        <source>Nothing has been computed yet.</source>
        <translation>尚未计算任何内容。</translation>
    </message>
    <message>
        <source>Export image</source>
        <translation>导出图像</translation>
    </message>
    <message>
        <source>Export the matrix</source>
        <translation>导出矩阵</translation>
    </message>
    <message>
        <source>Export every layer × head × step</source>
        <translation>导出所有层 × 头 × 步骤</translation>
    </message>
    <message>
        <source>Export into folder</source>
        <translation>导出到文件夹</translation>
    </message>
    <message>
        <source>Exporting…</source>
        <translation>正在导出…</translation>
    </message>
    <message>
        <source>Current &amp;heatmap as image: head %1…</source>
        <translation>将当前热力图导出为图像：头 %1(&amp;H)…</translation>
    </message>
    <message>
        <source>All heads are shown: head 0 is exported. Click a head to show it alone and export that one, or export the head grid.</source>
        <translation>当前显示全部头：将导出头 0。单击某个头使其单独显示即可导出该头，或者导出整个头网格。</translation>
    </message>
    <message>
        <source>%1 · layer %2 · %3</source>
        <translation>%1 · 第 %2 层 · %3</translation>
    </message>
    <message>
        <source>the random-weights playground</source>
        <translation>随机权重演练场</translation>
    </message>
    <message>
        <source>Saved the trace as %1 and %2</source>
        <translation>计算轨迹已保存为 %1 和 %2</translation>
    </message>
    <message>
        <source>Saved the handout as %1</source>
        <translation>讲义已保存到 %1</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存到 %1</translation>
    </message>
    <message numerus="yes">
        <source>Saved %n file(s) into %1</source>
        <translation>
            <numerusform>已把 %n 个文件保存到 %1</numerusform>
        </translation>
    </message>
    <message>
        <source>The overview shows every layer and head; export it as an image (.png, .svg or .pdf), or its matrices with Every layer × head × step.</source>
        <translation>概览显示所有层和所有头；请把它导出为图像（.png、.svg 或 .pdf），或用“所有层 × 头 × 步骤”导出其中的矩阵。</translation>
    </message>
    <message>
        <source>&amp;Web page (one HTML file)…</source>
        <translation>网页（单个 HTML 文件）(&amp;W)…</translation>
    </message>
    <message>
        <source>Export a web page</source>
        <translation>导出网页</translation>
    </message>
    <message>
        <source>Web page (*.html)</source>
        <translation>网页 (*.html)</translation>
    </message>
    <message>
        <source>Saved the web page as %1</source>
        <translation>网页已保存为 %1</translation>
    </message>
</context>
<context>
    <name>attnviz::app::GlossaryDialog</name>
    <message>
        <source>Also written: %1</source>
        <translation>也写作：%1</translation>
    </message>
    <message>
        <source>No term matches “%1”.</source>
        <translation>没有与“%1”匹配的术语。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::GuardedApplication</name>
    <message>
        <source>Something went wrong</source>
        <translation>出了点问题</translation>
    </message>
    <message>
        <source>There was not enough memory for what was asked; the window shows what it could, and the last action was not completed.</source>
        <translation>内存不足以完成所请求的操作；窗口显示了能显示的内容，上一个操作没有完成。</translation>
    </message>
    <message>
        <source>The last action failed: %1</source>
        <translation>上一个操作失败：%1</translation>
    </message>
    <message>
        <source>The last action failed for an unknown reason.</source>
        <translation>上一个操作因未知原因失败。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::GuidedTour</name>
    <message>
        <source>Back</source>
        <translation>上一步</translation>
    </message>
    <message>
        <source>End the tour</source>
        <translation>结束导览</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一步</translation>
    </message>
</context>
<context>
    <name>attnviz::app::HeadTypesDialog</name>
    <message>
        <source>previous-token score</source>
        <translation>前一词元分数</translation>
    </message>
    <message>
        <source>duplicate-token score</source>
        <translation>重复词元分数</translation>
    </message>
    <message>
        <source>induction score (repeated random prompt)</source>
        <translation>归纳分数（重复的随机序列）</translation>
    </message>
    <message>
        <source>share on the first token</source>
        <translation>第一个词元上的占比</translation>
    </message>
    <message>
        <source>mean attention distance (tokens)</source>
        <translation>平均注意力距离（词元）</translation>
    </message>
    <message>
        <source>mean row entropy (nats)</source>
        <translation>行的平均熵（奈特）</translation>
    </message>
    <message>
        <source>There was not enough memory to score the heads.</source>
        <translation>内存不足，无法为各个头打分。</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>block</source>
        <translation>块</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>score</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>Open a model: the playground&apos;s one module has no layers to compare.</source>
        <translation>请打开一个模型：演练场只有一个模块，没有可以比较的层。</translation>
    </message>
    <message>
        <source>An imported attention file holds no model to run on the induction prompt.</source>
        <translation>导入的注意力文件里没有可以在归纳序列上运行的模型。</translation>
    </message>
    <message>
        <source>Scoring every head…</source>
        <translation>正在为每个头打分…</translation>
    </message>
    <message>
        <source>This run kept no self-attention weights over two tokens or more: type a longer text.</source>
        <translation>这次运行没有保留两个词元以上的自注意力权重：请输入更长的文本。</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Scored on a random sequence of ordinary tokens written twice, which only an induction head can predict the second half of. The top head: layer %1, head %2.</source>
        <translation>在一段写了两遍的随机普通词元序列上打分，只有归纳头能预测出第二遍。得分最高的头：第 %1 层，头 %2。</translation>
    </message>
    <message numerus="yes">
        <source>Scored over the %n token(s) of the text shown. The top head: layer %1, head %2.</source>
        <translation>
            <numerusform>在当前文本的 %n 个词元上打分。得分最高的头：第 %1 层，头 %2。</numerusform>
        </translation>
    </message>
    <message>
        <source>mean attention distance (pixels)</source>
        <translation>平均注意力距离（像素）</translation>
    </message>
    <message>
        <source>How far, in pixels of the model&apos;s input, a patch reaches for the patches it attends to, averaged over the patches (Dosovitskiy et al. 2021, Figure 7): small for heads that look nearby, large for heads that look across the picture. The farthest-reaching head: layer %1, head %2.</source>
        <translation>一个图块所关注的图块离它有多远（以模型输入的像素计），对所有图块取平均（Dosovitskiy 等，2021，图 7）：只看附近的头这个值小，看遍整张图片的头这个值大。看得最远的头：第 %1 层，头 %2。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::HeatmapView</name>
    <message>
        <source>%1” in “%2</source>
        <translation>%1” 属于 “%2</translation>
    </message>
    <message>
        <source> (blocked)</source>
        <translation>（被屏蔽）</translation>
    </message>
    <message>
        <source> (blocked: −∞ before the softmax)</source>
        <translation>（被屏蔽：softmax 之前为 −∞）</translation>
    </message>
    <message>
        <source>head %1 · </source>
        <translation>头 %1 · </translation>
    </message>
    <message>
        <source>%1%2 %3 → %4 %5: %6</source>
        <extracomment>A cell&apos;s tooltip: [head h · ]row-axis index “token” → column-axis index “token”: value (a feature index has no “token”). The axis names (query, key, …) are translated in the DisplayWords context.</extracomment>
        <translation>%1%2 %3 → %4 %5：%6</translation>
    </message>
    <message>
        <source>“%1” · id %2</source>
        <extracomment>A token in a cell&apos;s tooltip: its spelling in the vocabulary and its id</extracomment>
        <translation>“%1” · 编号 %2</translation>
    </message>
    <message>
        <source> · bytes %1</source>
        <translation> · 字节 %1</translation>
    </message>
    <message>
        <source> · part %1 of %2 of “%3” (%4)</source>
        <extracomment>A byte piece: part 1 of 3 of the character “猫” (U+732B)</extracomment>
        <translation> · “%3”（%4）的第 %1 部分，共 %2 部分</translation>
    </message>
</context>
<context>
    <name>attnviz::app::ImportanceDialog</name>
    <message>
        <source>rank</source>
        <translation>排名</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>block</source>
        <translation>块</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>score</source>
        <translation>得分</translation>
    </message>
    <message>
        <source>harm</source>
        <translation>损害</translation>
    </message>
    <message>
        <source>Open a trained model: the playground&apos;s random module has nothing to be scored on.</source>
        <translation>请打开一个训练好的模型：演练场的随机模块没有可用来评分的任务。</translation>
    </message>
    <message>
        <source>Open a trained model: the playground&apos;s random module and imported attentions have nothing to be scored on.</source>
        <translation>请打开一个训练好的模型：演练场的随机模块和导入的注意力权重都没有可用来评分的任务。</translation>
    </message>
    <message numerus="yes">
        <source>%1: press Measure to switch each of its %n attention heads off in turn.</source>
        <translation>
            <numerusform>%1：按“测量”依次关闭它的 %n 个注意力头。</numerusform>
        </translation>
    </message>
    <message>
        <source>heldout.txt cannot be used: %1</source>
        <translation>无法使用 heldout.txt：%1</translation>
    </message>
    <message>
        <source>the text shown</source>
        <translation>当前显示的文本</translation>
    </message>
    <message>
        <source>Measuring on %1…</source>
        <translation>正在基于 %1 测量…</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <source>There was not enough memory to measure the heads.</source>
        <translation>内存不足，无法测量各个头。</translation>
    </message>
    <message>
        <source>&amp;Measure</source>
        <translation>测量(&amp;M)</translation>
    </message>
    <message>
        <source>%1 on %2. With every head on: %3.</source>
        <translation>%1（基于 %2）。所有头都开启时：%3。</translation>
    </message>
    <message>
        <source>Switching off layer %1 %2 head %3 hurts most: %4 (%5 worse). Layers and heads count from 0.</source>
        <translation>关闭第 %1 层%2的头 %3 损害最大：%4（变差 %5）。层和头都从 0 开始编号。</translation>
    </message>
    <message>
        <source>exact-match accuracy</source>
        <translation>精确匹配准确率</translation>
    </message>
    <message>
        <source>loss (nats per token)</source>
        <translation>损失（每个词元的奈特数）</translation>
    </message>
    <message>
        <source>relative change of the encoder output</source>
        <translation>编码器输出的相对变化</translation>
    </message>
    <message numerus="yes">
        <source>the first %1 of %n held-out examples (heldout.txt)</source>
        <translation>
            <numerusform>heldout.txt 中 %n 个留出样本的前 %1 个</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>all %n held-out examples (heldout.txt)</source>
        <translation>
            <numerusform>heldout.txt 中全部 %n 个留出样本</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: harm of switching a head off</source>
        <translation>%1：关闭一个头造成的损害</translation>
    </message>
    <message>
        <source>%1: harm of switching a head off (%2)</source>
        <translation>%1：关闭一个头造成的损害——%2</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>sentence after sentence</comment>
        <extracomment>Two sentences one after the other: a space between them in English, none in Chinese.</extracomment>
        <translation>%1%2</translation>
    </message>
    <message>
        <source>Head importance needs a trained model: choose one in the Model box of the main window.</source>
        <translation>头的重要性需要一个训练好的模型：请在主窗口的“模型”框中选择一个。</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>%1 of %2 runs of the model · about %3 s left</source>
        <translation>模型已运行 %1 / %2 次 · 大约还需 %3 秒</translation>
    </message>
    <message numerus="yes">
        <source>Measure runs the model once with every head on and once with each of its %n heads switched off, each time on up to %1 examples: up to %2 runs of the model. On the bundled models 100 examples take from about 3 seconds (a two-core desktop) to 20 (a slow laptop); a model the size of GPT-2 takes far longer. A bar counts the runs as they are done, with the time left, and Stop ends the measurement.</source>
        <translation>
            <numerusform>“测量”会先在所有头都开启时运行模型一遍，再把它的 %n 个头逐个关闭各运行一遍，每次最多用 %1 个样本：模型最多要运行 %2 次。对内置模型，100 个样本大约需要 3 秒（双核台式机）到 20 秒（较慢的笔记本电脑）；GPT-2 这样大小的模型要久得多。测量时进度条会统计已完成的次数并显示剩余时间，“停止”按钮可随时结束测量。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnviz::app::JobFailure</name>
    <message>
        <source>The computation failed for an unknown reason.</source>
        <translation>计算因未知原因失败。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::KvCacheDialog</name>
    <message>
        <source>There was not enough memory to decode.</source>
        <translation>内存不足，无法解码。</translation>
    </message>
    <message>
        <source>Open a model: the playground&apos;s module writes no text.</source>
        <translation>请打开一个模型：演练场的模块不会写文本。</translation>
    </message>
    <message>
        <source>An imported attention file holds no model to write with.</source>
        <translation>导入的注意力文件里没有可以用来写文本的模型。</translation>
    </message>
    <message numerus="yes">
        <source>Decoding %n token(s) with a KV cache…</source>
        <translation>
            <numerusform>正在用 KV 缓存解码 %n 个词元…</numerusform>
        </translation>
    </message>
    <message>
        <source>The text already fills the model&apos;s context: there is no room to write.</source>
        <translation>文本已经占满模型的上下文：没有地方再写了。</translation>
    </message>
    <message>
        <source>%1 (window of %2)</source>
        <translation>%1（窗口 %2）</translation>
    </message>
    <message>
        <source>%1 (K/V head %2)</source>
        <translation>%1（K/V 头 %2）</translation>
    </message>
    <message numerus="yes">
        <source>the prefill read the whole text, %n token(s),</source>
        <translation>
            <numerusform>预填充读入了整段文本，共 %n 个词元，</numerusform>
        </translation>
    </message>
    <message>
        <source>read “%1” at position %2</source>
        <translation>读入了位置 %2 上的“%1”</translation>
    </message>
    <message>
        <source>without a cache: every token read again</source>
        <translation>不用缓存：每个词元都重新读一遍</translation>
    </message>
    <message>
        <source>with the KV cache: the new token only</source>
        <translation>用 KV 缓存：只算新词元</translation>
    </message>
    <message>
        <source>decoding step (0: the prefill)</source>
        <translation>解码步（0：预填充）</translation>
    </message>
    <message>
        <source>multiply-adds of the step</source>
        <translation>这一步的乘加次数</translation>
    </message>
    <message>
        <source>&lt;p&gt;For 1,024 tokens this model&apos;s cache takes &lt;b&gt;%1&lt;/b&gt; (2 · %2 layers · %3 K/V heads · %4 · 4 bytes a token); with a K/V head per query head (MHA) it would take %5, with one K/V head for all (MQA) %6.&lt;/p&gt;</source>
        <translation>&lt;p&gt;1,024 个词元时，这个模型的缓存占 &lt;b&gt;%1&lt;/b&gt;（每个词元 2 · %2 层 · %3 个 K/V 头 · %4 · 4 字节）；若每个查询头各有一个 K/V 头（MHA），要占 %5；若所有查询头共用一个 K/V 头（MQA），只占 %6。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Step %1 of %2&lt;/b&gt;: %3 and chose “%4” (p = %5).&lt;/p&gt;&lt;p&gt;It computed q, k and v for %6 and read the keys and values of %7 from the cache.&lt;br&gt;Multiply-adds: &lt;b&gt;%8&lt;/b&gt; with the cache, %9 without (%10 ×).&lt;/p&gt;&lt;p&gt;The cache now holds %11 tokens × %12 = &lt;b&gt;%13&lt;/b&gt; (float32, K and V of all %14 layers).&lt;/p&gt;&lt;p&gt;Largest difference from one full causal pass over the same %15 tokens (weights and logits): &lt;b&gt;%16&lt;/b&gt;.&lt;/p&gt;&lt;p&gt;All %2 steps: %17 multiply-adds with the cache, %18 without.&lt;/p&gt;%19</source>
        <translation>&lt;p&gt;&lt;b&gt;第 %1 步，共 %2 步&lt;/b&gt;：%3并选出了“%4”（p = %5）。&lt;/p&gt;&lt;p&gt;这一步为 %6计算了 q、k、v，并从缓存中读取了 %7 个词元的键和值。&lt;br&gt;乘加次数：用缓存 &lt;b&gt;%8&lt;/b&gt;，不用缓存 %9（%10 倍）。&lt;/p&gt;&lt;p&gt;缓存现在保存 %11 个词元 × %12 = &lt;b&gt;%13&lt;/b&gt;（float32，全部 %14 层的 K 和 V）。&lt;/p&gt;&lt;p&gt;与对同样 %15 个词元做一次完整因果计算相比的最大差（权重与对数几率）：&lt;b&gt;%16&lt;/b&gt;。&lt;/p&gt;&lt;p&gt;全部 %2 步：用缓存 %17 次乘加，不用缓存 %18 次。&lt;/p&gt;%19</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n 个词元</numerusform>
        </translation>
    </message>
    <message>
        <source>An encoder-only model writes no text, so it keeps no KV cache.</source>
        <translation>仅编码器的模型不写文本，所以不保留 KV 缓存。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::MainWindow</name>
    <message>
        <source>About AttnViz</source>
        <translation>关于 AttnViz</translation>
    </message>
    <message>
        <source>New here? Take the guided tour</source>
        <translation>第一次使用？来看看导览吧</translation>
    </message>
    <message>
        <source>In presentation mode: go to step 1 … 10</source>
        <translation>演示模式下：跳到第 1 … 10 步</translation>
    </message>
    <message>
        <source>In presentation mode: the next head alone, then all heads</source>
        <translation>演示模式下：单独显示下一个头，最后显示所有头</translation>
    </message>
    <message>
        <source>Leave presentation mode</source>
        <translation>退出演示模式</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Left arrow key</source>
        <translation>左箭头键</translation>
    </message>
    <message>
        <source>Right arrow key</source>
        <translation>右箭头键</translation>
    </message>
    <message>
        <source>Up arrow key</source>
        <translation>上箭头键</translation>
    </message>
    <message>
        <source>Down arrow key</source>
        <translation>下箭头键</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;AttnViz %1&lt;/b&gt; walks through multi-head attention one step at a time. Every number comes from the engine&apos;s trace, which the test suite checks against PyTorch: every intermediate, for torch.nn.MultiheadAttention and the bundled models, at a stated tolerance.&lt;/p&gt;&lt;p&gt;Built with Qt %2 (running on Qt %3), Eigen %4 and QCustomPlot %5.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;AttnViz %1&lt;/b&gt; 带你一步一步走完多头注意力的计算。每个数字都来自计算引擎的计算轨迹；测试套件把每一个中间结果都与 PyTorch 核对过（torch.nn.MultiheadAttention 和各个内置模型），误差在规定的容差之内。&lt;/p&gt;&lt;p&gt;使用 Qt %2（运行于 Qt %3）、Eigen %4 和 QCustomPlot %5 构建。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>attnviz::app::MistakesDialog</name>
    <message>
        <source>&lt;b&gt;Correct&lt;/b&gt;</source>
        <translation>&lt;b&gt;正确&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;With the mistake&lt;/b&gt;</source>
        <translation>&lt;b&gt;有错误时&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Nothing is computed in the main window, so there is nothing to compare.</source>
        <translation>主窗口中尚未计算任何内容，因此没有可比较的内容。</translation>
    </message>
    <message>
        <source>Cannot compare here: %1.</source>
        <translation>无法在此比较：%1。</translation>
    </message>
    <message>
        <source>head %1 · </source>
        <translation>头 %1 · </translation>
    </message>
    <message>
        <source>Row sums of the weights — correct: %1; with the mistake: %2. </source>
        <translation>权重的行和——正确：%1；有错误时：%2。</translation>
    </message>
    <message>
        <source>NaN reaches the output: every later layer and the loss become NaN.</source>
        <translation>NaN 传到了输出：之后的每一层以及损失都会变成 NaN。</translation>
    </message>
    <message>
        <source>The output does not change here: nothing in this computation triggers the mistake (see how to recognise it).</source>
        <translation>这里的输出没有变化：这次计算中没有任何东西会触发这个错误（请参阅如何识别它）。</translation>
    </message>
    <message>
        <source>The output changes by up to %1.</source>
        <translation>输出最多变化 %1。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::ModelOverview</name>
    <message>
        <source>layer %1 · head %2</source>
        <translation>第 %1 层 · 头 %2</translation>
    </message>
    <message>
        <source>◀ Back to the steps</source>
        <translation>◀ 返回分步视图</translation>
    </message>
    <message>
        <source>The step-by-step view of the block shown before</source>
        <translation>回到之前所看的块的分步视图</translation>
    </message>
    <message>
        <source>Each small map is one head&apos;s attention weights (rows: queries, columns: keys), all on one colour scale from 0 to 1. Compare the heads: some look at the previous token, some at one position, some spread out. Click a map to walk through that head step by step.</source>
        <translation>每张小图是一个头的注意力权重（行：查询，列：键），全部使用 0 到 1 的同一色标。比较各个头：有的看前一个词元，有的盯住某一个位置，有的分散开来。单击一张小图，即可逐步查看该头的计算。</translation>
    </message>
    <message>
        <source>Whole-model overview: the attention weights of every layer and head (%1)</source>
        <translation>全模型概览：每一层、每个头的注意力权重（%1）</translation>
    </message>
    <message>
        <source>layer %1 · head %2 (K/V head %3)</source>
        <translation>第 %1 层 · 头 %2（K/V 头 %3）</translation>
    </message>
</context>
<context>
    <name>attnviz::app::ModelPanel</name>
    <message>
        <source>Random-weights playground</source>
        <translation>随机权重演练场</translation>
    </message>
    <message>
        <source>Demo: %1</source>
        <translation>演示：%1</translation>
    </message>
    <message>
        <source>Open model folder…</source>
        <translation>打开模型文件夹…</translation>
    </message>
    <message>
        <source>Open attention weights file…</source>
        <translation>打开注意力权重文件…</translation>
    </message>
    <message>
        <source>layer %v of %m</source>
        <translation>第 %v 层，共 %m 层</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Open attention weights computed elsewhere</source>
        <translation>打开在别处计算的注意力权重</translation>
    </message>
    <message>
        <source>Attention weights (*.safetensors)</source>
        <translation>注意力权重 (*.safetensors)</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>%1 encoder, %2 decoder</source>
        <translation>编码器 %1，解码器 %2</translation>
    </message>
    <message>
        <source>Transformer</source>
        <translation>Transformer</translation>
    </message>
    <message>
        <source> of %1</source>
        <translation> / %1</translation>
    </message>
    <message numerus="yes">
        <source>Output: &lt;b&gt;%1&lt;/b&gt; (greedy decoding, %n steps)</source>
        <translation>
            <numerusform>输出：&lt;b&gt;%1&lt;/b&gt;（贪心解码，%n 步）</numerusform>
        </translation>
    </message>
    <message>
        <source>self-attention</source>
        <translation>自注意力</translation>
    </message>
    <message>
        <source>masked self-attention</source>
        <translation>掩码自注意力</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>%1 — called &quot;%2&quot; by attnviz-cli and in trace files</source>
        <translation>%1——在 attnviz-cli 和轨迹文件中称为“%2”</translation>
    </message>
    <message>
        <source>layer %1 · %2 · head %3</source>
        <translation>第 %1 层 · %2 · 头 %3</translation>
    </message>
    <message>
        <source>Heads switched off: %1</source>
        <translation>已关闭的头：%1</translation>
    </message>
    <message>
        <source>; </source>
        <comment>between the heads switched off</comment>
        <translation>；</translation>
    </message>
    <message>
        <source>%1 query heads share %2 K/V heads, %3 to each</source>
        <translation>%1 个查询头共用 %2 个 K/V 头，每个 K/V 头服务 %3 个查询头</translation>
    </message>
    <message>
        <source>K/V cache %1 per token in 16-bit floats</source>
        <translation>K/V 缓存：每个词元 %1（16 位浮点数）</translation>
    </message>
    <message>
        <source>rotary positions, θ = %1, %2 scaling ×%3</source>
        <translation>旋转位置编码，θ = %1，%2 缩放 ×%3</translation>
    </message>
    <message>
        <source>rotary positions, θ = %1</source>
        <translation>旋转位置编码，θ = %1</translation>
    </message>
    <message>
        <source>a sliding window of %1 tokens</source>
        <translation>滑动窗口 %1 个词元</translation>
    </message>
    <message>
        <source>a sliding window of %1 tokens on %2 of %3 layers</source>
        <translation>%3 层中有 %2 层使用 %1 个词元的滑动窗口</translation>
    </message>
    <message>
        <source>Open a model folder (AttnViz&apos;s own, or Hugging Face GPT-2, BERT, Llama, Mistral or Qwen2)</source>
        <translation>打开模型文件夹（AttnViz 自己的格式，或 Hugging Face 的 GPT-2、BERT、Llama、Mistral、Qwen2）</translation>
    </message>
    <message>
        <source>Choose a picture for the Vision Transformer</source>
        <translation>为视觉 Transformer 选择一张图片</translation>
    </message>
    <message>
        <source>Pictures (*.png *.jpg *.jpeg)</source>
        <translation>图片 (*.png *.jpg *.jpeg)</translation>
    </message>
    <message>
        <source>%1 %2 %</source>
        <translation>%1 %2 %</translation>
    </message>
    <message>
        <source>Classified as: &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>分类结果：&lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>reads %1 × %2 pictures cut into %3 patches of %4 × %4 pixels, after a [CLS] token</source>
        <translation>读入 %1 × %2 的图片，切成 %3 个 %4 × %4 像素的图块，前面是一个 [CLS] 词元</translation>
    </message>
    <message>
        <source>reads %1 × %2 pictures cut into %3 patches of %4 × %4 pixels, after a [CLS] and a [DIST] token</source>
        <translation>读入 %1 × %2 的图片，切成 %3 个 %4 × %4 像素的图块，前面是一个 [CLS] 词元和一个 [DIST] 词元</translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n 层</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n head(s)</source>
        <translation>
            <numerusform>%n 个头</numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; — attention weights computed elsewhere: %2, %3, %4. Only the softmax step has data.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; — 在别处计算的注意力权重：%2，%3，%4。只有 softmax 步骤有数据。</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n 个词元</numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; — %2 %3, %4, %5, d_model %6, %7, %8; %9 parameters (per layer: %10).&lt;br&gt;%11</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; — %2 %3，%4，%5，d_model %6，%7，%8；%9 个参数（每层：%10）。&lt;br&gt;%11</translation>
    </message>
</context>
<context>
    <name>attnviz::app::ModelRunner</name>
    <message>
        <source>There was not enough memory to run this model on this text.</source>
        <translation>内存不足，无法在这段文本上运行该模型。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::PictureAttentionDialog</name>
    <message>
        <source>one layer&apos;s weights</source>
        <translation>某一层的权重</translation>
    </message>
    <message>
        <source>rollout of every layer</source>
        <translation>所有层的注意力展开</translation>
    </message>
    <message>
        <source>Export the attention on the picture</source>
        <translation>导出图片上的注意力</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>mean of the heads</source>
        <translation>各头的平均</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>patch %1</source>
        <translation>图块 %1</translation>
    </message>
    <message numerus="yes">
        <source>Rollout of %n layer(s), heads fused by their mean, from %1</source>
        <translation>
            <numerusform>%n 层的注意力展开，各头取平均合并，来自 %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Layer %1, mean of %2 heads, from %3</source>
        <translation>第 %1 层，%2 个头的平均，来自 %3</translation>
    </message>
    <message>
        <source>Layer %1, head %2, from %3</source>
        <translation>第 %1 层，头 %2，来自 %3</translation>
    </message>
    <message>
        <source>[CLS] and [DIST]</source>
        <translation>[CLS] 和 [DIST]</translation>
    </message>
    <message>
        <source>&lt;b&gt;The classifier&apos;s five most probable classes&lt;/b&gt;</source>
        <translation>&lt;b&gt;分类器给出的最可能的五个类别&lt;/b&gt;</translation>
    </message>
    <message>
        <source>This model has no classifier: it gives the patches&apos; features only.</source>
        <translation>这个模型没有分类器：它只给出各图块的特征。</translation>
    </message>
    <message>
        <source>There is no attention on a picture to export.</source>
        <translation>没有可导出的图片注意力。</translation>
    </message>
    <message>
        <source>Cannot export to &apos;.%1&apos;; use .png, .svg or .pdf.</source>
        <translation>无法导出为“.%1”；请使用 .png、.svg 或 .pdf。</translation>
    </message>
    <message>
        <source>%1 % of this row is on %2, outside the picture; the colours spread the rest from 0 to its largest patch (%3).</source>
        <translation>这一行有 %1 % 落在 %2 上，它们在图片之外；颜色把其余部分从 0 铺到最大的图块值（%3）。</translation>
    </message>
    <message>
        <source>Open a Vision Transformer (the demo shapes, or a Hugging Face ViT or DeiT folder) and choose a picture: its attention is drawn over the picture here.</source>
        <translation>请打开一个视觉 Transformer（演示模型 shapes，或 Hugging Face 的 ViT 或 DeiT 文件夹）并选择一张图片：它的注意力会画在这里的图片上。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::PictureDrop</name>
    <message>
        <source>%1 is a picture: open a Vision Transformer first (the demo shapes, or a Hugging Face ViT or DeiT folder).</source>
        <translation>%1 是一张图片：请先打开一个视觉 Transformer（演示模型 shapes，或 Hugging Face 的 ViT 或 DeiT 文件夹）。</translation>
    </message>
    <message>
        <source>Running the model on %1</source>
        <translation>正在用模型处理 %1</translation>
    </message>
</context>
<context>
    <name>attnviz::app::PredictionPrompt</name>
    <message>
        <source>&amp;Predict, then reveal</source>
        <translation>先预测，再揭晓(&amp;P)</translation>
    </message>
    <message>
        <source>Before a step is shown, ask one question about it (which key a query attends to most, the next shape, the head that matters most); one click answers and reveals the step</source>
        <translation>在显示某一步之前，先就它提一个问题（某个查询最关注哪个键、下一个形状是什么、哪个头最重要）；单击一次即可作答并揭晓这一步</translation>
    </message>
    <message>
        <source>Hide the verdict</source>
        <translation>隐藏判定结果</translation>
    </message>
    <message numerus="yes">
        <source>No answers yet this session (%n skipped).</source>
        <translation>
            <numerusform>本次还没有作答（已跳过 %n 题）。</numerusform>
        </translation>
    </message>
    <message>
        <source>No answers yet this session.</source>
        <translation>本次还没有作答。</translation>
    </message>
    <message>
        <source>Score: %1 of %2 right this session.</source>
        <translation>得分：本次答对 %1 题，共 %2 题。</translation>
    </message>
    <message numerus="yes">
        <source>(%n skipped)</source>
        <translation>
            <numerusform>（已跳过 %n 题）</numerusform>
        </translation>
    </message>
    <message>
        <source>The answer: %1</source>
        <translation>答案：%1</translation>
    </message>
    <message>
        <source>✔ Right: %1</source>
        <translation>✔ 答对了：%1</translation>
    </message>
    <message>
        <source>✘ Not this time: you chose %1; the answer is %2.</source>
        <translation>✘ 这次没答对：你选了 %1；答案是 %2。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::PreferencesDialog</name>
    <message>
        <source>A limit below 1 MiB is most likely a missing unit (a plain number counts bytes); expected something like 512M or 2G.</source>
        <translation>低于 1 MiB 的上限很可能是漏写了单位（不带单位的数字按字节计）；应写成 512M 或 2G 这样的形式。</translation>
    </message>
    <message>
        <source>“%1” is not a size; expected a number with K, M, G or T, like 512M or 2G, or nothing for no limit of your own.</source>
        <translation>“%1”不是有效的大小；应为带 K、M、G 或 T 的数字，例如 512M 或 2G；留空则不自行设定上限。</translation>
    </message>
    <message>
        <source>Model runs that would need more are refused before they start.</source>
        <translation>需要更多内存的模型运行会在开始前被拒绝。</translation>
    </message>
    <message>
        <source>%1 Without a limit of your own, runs may take up to %2 now: 80 % of the %3 this machine has available.</source>
        <translation>%1如果你不自行设定上限，目前运行最多可以使用 %2，即本机可用内存 %3 的 80%。</translation>
    </message>
    <message>
        <source>%1 Without a limit of your own, runs may take up to %2: this system does not say how much memory is free, so that is a fixed guess.</source>
        <translation>%1如果你不自行设定上限，运行最多可以使用 %2：本系统不报告可用内存，所以这是一个固定的估计值。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::PresentationMode</name>
    <message>
        <source>Presentation: ←/→ steps · 1…9, 0 a step · H one head after another · S the settings · click a cell to mark it (Shift: its row, Ctrl: its column) · Esc leaves</source>
        <translation>演示模式：←/→ 切换步骤 · 1…9、0 跳到某一步 · H 逐个显示各头 · S 显示设置 · 单击单元格可标记它（Shift：整行，Ctrl：整列）· Esc 退出</translation>
    </message>
</context>
<context>
    <name>attnviz::app::RolloutDialog</name>
    <message>
        <source>mean</source>
        <translation>平均值</translation>
    </message>
    <message>
        <source>maximum</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>minimum</source>
        <translation>最小值</translation>
    </message>
    <message>
        <source>Open a model: the playground&apos;s one module has no layers to roll out.</source>
        <translation>请打开一个模型：演练场只有一个模块，没有可以展开的层。</translation>
    </message>
    <message numerus="yes">
        <source>%1, %n layer(s): attention rollout</source>
        <translation>
            <numerusform>%1，%n 层：注意力展开</numerusform>
        </translation>
    </message>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>input token</source>
        <translation>输入词元</translation>
    </message>
    <message>
        <source>Row i: the share of what token i holds after the last layer that came from each input token. Every row sums to 1.</source>
        <translation>第 i 行：词元 i 在最后一层之后所含的内容中，来自每个输入词元的比例。每行之和为 1。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::RotaryDialog</name>
    <message>
        <source>The block shown has no rotary positions. Open a model of the Llama family (the bundled &lt;i&gt;modern&lt;/i&gt; has them), or choose rotary positions in the playground.</source>
        <translation>当前块没有旋转位置编码。请打开一个 Llama 家族的模型（内置的 &lt;i&gt;modern&lt;/i&gt; 就有），或在演练场中选择旋转位置编码。</translation>
    </message>
    <message>
        <source>This block kept too few of its steps to draw its pairs.</source>
        <translation>这个块保留的步骤太少，画不出它的特征对。</translation>
    </message>
    <message>
        <source>This block cannot be run again at other positions (too large, or not kept in full): set the shift to 0.</source>
        <translation>这个块无法在其他位置上重新计算（太大，或没有完整保留）：请把平移量设为 0。</translation>
    </message>
    <message>
        <source> (%1 of it from the features that are not turned)</source>
        <translation>（其中 %1 来自不旋转的特征）</translation>
    </message>
    <message>
        <source>&lt;p&gt;Query at position &lt;b&gt;%1&lt;/b&gt;, key at position &lt;b&gt;%2&lt;/b&gt;: %3 apart. Pair i turns by position × its frequency, so the angle between the query&apos;s and the key&apos;s pair is their original angle plus (%1 − %2) × frequency: the distance, not the positions.&lt;/p&gt;&lt;p&gt;Score q · k = the sum of the pairs&apos; products = &lt;b&gt;%4&lt;/b&gt;%5; the trace holds %6.&lt;/p&gt;&lt;p&gt;Every position moved on by %7: the score was %8 before, %6 now (difference %9).&lt;/p&gt;</source>
        <translation>&lt;p&gt;查询在位置 &lt;b&gt;%1&lt;/b&gt;，键在位置 &lt;b&gt;%2&lt;/b&gt;：相距 %3。第 i 对旋转 位置 × 它的频率，所以查询的这一对与键的这一对之间的夹角等于原来的夹角加上 (%1 − %2) × 频率：取决于距离，而不是位置。&lt;/p&gt;&lt;p&gt;分数 q · k = 各对乘积之和 = &lt;b&gt;%4&lt;/b&gt;%5；计算轨迹中的值是 %6。&lt;/p&gt;&lt;p&gt;所有位置平移 %7：分数原来是 %8，现在是 %6（相差 %9）。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>attnviz::app::RotaryPairsView</name>
    <message>
        <source>query, turned</source>
        <translation>查询（旋转后）</translation>
    </message>
    <message>
        <source>before</source>
        <translation>旋转前</translation>
    </message>
    <message>
        <source>key, turned</source>
        <translation>键（旋转后）</translation>
    </message>
    <message>
        <source>pair %1 · %2 rad/pos
q·k %3</source>
        <translation>第 %1 对 · %2 弧度/位置
q·k %3</translation>
    </message>
</context>
<context>
    <name>attnviz::app::ScalingDialog</name>
    <message>
        <source>√d_k = √%1 = %2</source>
        <translation>√d_k = √%1 = %2</translation>
    </message>
    <message>
        <source>√d_k</source>
        <translation>√d_k</translation>
    </message>
    <message>
        <source>Nothing is computed in the main window.</source>
        <translation>主窗口中尚未计算任何内容。</translation>
    </message>
    <message>
        <source>Cannot run it again here: %1.</source>
        <translation>无法在此重新计算：%1。</translation>
    </message>
    <message>
        <source>head %1 · softmax(scores ÷ %2)</source>
        <translation>头 %1 · softmax(分数 ÷ %2)</translation>
    </message>
    <message>
        <source> That is %1 × d_k: trained weights, not random ones (see below).</source>
        <translation>这是 d_k 的 %1 倍：说明权重是训练得到的，而不是随机的（见下文）。</translation>
    </message>
    <message>
        <source>&lt;p&gt;Scores Q_h K_hᵀ of head %1: variance &lt;b&gt;%2&lt;/b&gt;, next to d_k = %3.%9&lt;br&gt;Divided by %4: variance &lt;b&gt;%5&lt;/b&gt;.&lt;/p&gt;&lt;p&gt;Entropy of a row of weights: &lt;b&gt;%6&lt;/b&gt; nats on average, of at most %7 (every key weighed alike).&lt;br&gt;Largest weight in a row: &lt;b&gt;%8&lt;/b&gt; on average (1 would be one-hot).&lt;/p&gt;</source>
        <translation>&lt;p&gt;头 %1 的注意力分数 Q_h K_hᵀ：方差 &lt;b&gt;%2&lt;/b&gt;，对照 d_k = %3。%9&lt;br&gt;除以 %4 后：方差 &lt;b&gt;%5&lt;/b&gt;。&lt;/p&gt;&lt;p&gt;一行权重的熵：平均 &lt;b&gt;%6&lt;/b&gt; 奈特，最大可能为 %7（所有键权重相同时）。&lt;br&gt;一行中最大的权重：平均 &lt;b&gt;%8&lt;/b&gt;（为 1 则是独热分布）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>scores ÷ %1 (the head&apos;s unblocked cells)</source>
        <translation>分数 ÷ %1（该头未被屏蔽的单元格）</translation>
    </message>
    <message>
        <source>cells</source>
        <translation>单元格数</translation>
    </message>
    <message>
        <source>d_k (random q, k: independent entries, mean 0, variance 1)</source>
        <translation>d_k（随机的 q、k：各元素独立，均值 0，方差 1）</translation>
    </message>
    <message>
        <source>variance of q · k</source>
        <translation>q · k 的方差</translation>
    </message>
    <message>
        <source>q · k: about d_k</source>
        <translation>q · k：约为 d_k</translation>
    </message>
    <message>
        <source>q · k ÷ √d_k: about 1</source>
        <translation>q · k ÷ √d_k：约为 1</translation>
    </message>
</context>
<context>
    <name>attnviz::app::Session</name>
    <message>
        <source>these settings cannot be computed; fix the fields marked in red.</source>
        <translation>这些设置无法计算；请修正标红的字段。</translation>
    </message>
    <message>
        <source>Not computed: fix the settings marked in red.</source>
        <translation>未计算：请修正标红的设置。</translation>
    </message>
    <message>
        <source>Not computed: %1</source>
        <translation>未计算：%1</translation>
    </message>
    <message>
        <source>Running %1…</source>
        <translation>正在运行 %1…</translation>
    </message>
    <message numerus="yes">
        <source> · %n query row(s) fully masked (zero weights)</source>
        <translation>
            <numerusform> · %n 个查询行被完全掩码（权重全为零）</numerusform>
        </translation>
    </message>
    <message>
        <source>computed in %1 ms · batch %2 · %3 heads · %4 queries × %5 keys · d_k %6, d_v %7%8</source>
        <translation>计算用时 %1 毫秒 · 批量大小 %2 · %3 个头 · %4 个查询 × %5 个键 · d_k %6，d_v %7%8</translation>
    </message>
    <message>
        <source>Cancelled: the window still shows the previous run.</source>
        <translation>已取消：窗口中仍是上一次运行的结果。</translation>
    </message>
    <message>
        <source>The model opened last time, “%1”, could not be opened again (%2), so the %3 demo is shown instead.</source>
        <translation>上次打开的模型“%1”无法再次打开（%2），因此改为显示演示模型 %3。</translation>
    </message>
    <message>
        <source>“%1” was not opened: %2.</source>
        <translation>未能打开“%1”：%2。</translation>
    </message>
    <message>
        <source>the model has not run yet.</source>
        <translation>模型尚未运行。</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>%1 · layer %2 · %3 · %4 heads · %5 queries × %6 keys · d_k %7</source>
        <translation>%1 · 第 %2 层 · %3 · %4 个头 · %5 个查询 × %6 个键 · d_k %7</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>there was not enough memory to compute layer %1.</source>
        <translation>内存不足，无法计算第 %1 层。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::StepAnimation</name>
    <message>
        <source>Q = X W_qᵀ: one row per token, H·d_k = %1 columns</source>
        <translation>Q = X W_qᵀ：每个词元一行，共 H·d_k = %1 列</translation>
    </message>
    <message>
        <source>split: every %1 columns become one head&apos;s Q_h; each head sees all tokens, but only its own features</source>
        <translation>拆分：每 %1 列成为一个头的 Q_h；每个头都能看到全部词元，但只看到属于自己的那部分特征</translation>
    </message>
    <message>
        <source>each head&apos;s context: one row per query, d_v = %1 columns</source>
        <translation>每个头的上下文：每个查询一行，共 d_v = %1 列</translation>
    </message>
    <message>
        <source>concat: the heads&apos; columns side by side again, H·d_v = %1 columns, ready for W_o</source>
        <translation>拼接：各头的列重新并排，共 H·d_v = %1 列，交给 W_o</translation>
    </message>
    <message>
        <source>1. The masked scores of query %1 in head %2; the largest is %3</source>
        <translation>1. 头 %2 中查询 %1 的掩码后分数；最大值为 %3</translation>
    </message>
    <message>
        <source>2. exp(score − max): every bar positive, the largest exactly 1, blocked keys 0</source>
        <translation>2. exp(分数 − 最大值)：每根柱都为正，最大的恰好为 1，被屏蔽的键为 0</translation>
    </message>
    <message>
        <source>3. ÷ Σ = %1: the weights, which sum to 1</source>
        <translation>3. ÷ Σ = %1：得到注意力权重，总和为 1</translation>
    </message>
    <message>
        <source>1. The value rows V_h of head %1, and query %2&apos;s weight for each key</source>
        <translation>1. 头 %1 的值矩阵 V_h 的各行，以及查询 %2 对每个键的权重</translation>
    </message>
    <message>
        <source>2. Each value row times its weight: rows with little weight fade</source>
        <translation>2. 每个值行乘以它的权重：权重小的行逐渐淡去</translation>
    </message>
    <message>
        <source>3. Their sum is query %1&apos;s context row</source>
        <translation>3. 它们的和就是查询 %1 的上下文行</translation>
    </message>
    <message>
        <source>click or press a key to skip · Esc closes</source>
        <translation>单击或按任意键跳过 · Esc 关闭</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <source>context %1</source>
        <translation>上下文 %1</translation>
    </message>
</context>
<context>
    <name>attnviz::app::StepPanel</name>
    <message>
        <source>One colour range for all heads</source>
        <translation>所有头使用同一颜色范围</translation>
    </message>
    <message>
        <source>Numbers in cells</source>
        <translation>在单元格中显示数值</translation>
    </message>
    <message>
        <source>Change from all heads on</source>
        <translation>与所有头开启时的差异</translation>
    </message>
    <message>
        <source>Learned matrices</source>
        <translation>学习到的矩阵</translation>
    </message>
    <message>
        <source>Show all heads</source>
        <translation>显示所有头</translation>
    </message>
    <message>
        <source>◀ Prev</source>
        <translation>◀ 上一步</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>下一步 ▶</translation>
    </message>
    <message>
        <source>batch item </source>
        <translation>批量样本 </translation>
    </message>
    <message>
        <source>Print each value in its cell where the cells are large enough to read it (small matrices, or one head shown alone)</source>
        <translation>在单元格大到足以看清时，把每个值写在它的单元格里（小矩阵，或单独显示一个头时）</translation>
    </message>
    <message>
        <source>Show (heads switched off) − (every head on) at every step: what switching the heads off changed</source>
        <translation>在每一步显示（关闭部分头）−（所有头开启）：即关闭这些头带来的变化</translation>
    </message>
    <message>
        <source>Show the weight matrices this step applies instead of its result</source>
        <translation>显示这一步所用的权重矩阵，而不是它的结果</translation>
    </message>
    <message>
        <source>Show the arithmetic of this cell…</source>
        <translation>显示这个单元格的算术过程…</translation>
    </message>
    <message>
        <source>Switch head %1 back on</source>
        <translation>重新开启头 %1</translation>
    </message>
    <message>
        <source>Switch head %1 off (zero its columns of concat)</source>
        <translation>关闭头 %1（把它在拼接结果 concat 中的列置零）</translation>
    </message>
    <message>
        <source>Show head %1 alone</source>
        <translation>单独显示头 %1</translation>
    </message>
    <message>
        <source>Switch every head back on</source>
        <translation>重新开启所有头</translation>
    </message>
    <message>
        <source>show %1</source>
        <translation>显示 %1</translation>
    </message>
    <message>
        <source>Step %1 of %2 — %3</source>
        <translation>第 %1 步（共 %2 步）— %3</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Nothing to show: %1&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;没有可显示的内容：%1&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;This file holds attention weights only, computed elsewhere: this step has nothing to show. The softmax step shows the weights.&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;这个文件只包含在别处计算的注意力权重：这一步没有可显示的内容。请在 softmax 这一步查看这些权重。&lt;/b&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>heads %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>Switched off: %1. A switched-off head&apos;s context is still computed, but its columns of concat are zero, so the output and everything after it no longer hear from it. Right-click a head to switch it back on.</source>
        <translation>已关闭：%1。被关闭的头仍会计算自己的上下文，但它在拼接结果 concat 中的列为零，因此输出以及之后的一切都不再受它影响。右键单击某个头可以重新开启它。</translation>
    </message>
    <message>
        <source>Nothing changed at this step: this block&apos;s heads are switched off later, at the concatenation.</source>
        <translation>这一步没有变化：这个块的头要到后面拼接时才被关闭。</translation>
    </message>
    <message>
        <source>Nothing changed at this step: no head before this block is switched off.</source>
        <translation>这一步没有变化：这个块之前没有任何头被关闭。</translation>
    </message>
    <message>
        <source>No head of this block is off, but heads elsewhere in the model are (the Model box names them).</source>
        <translation>这个块中没有头被关闭，但模型中其他位置有头被关闭（“模型”框中列出了它们）。</translation>
    </message>
    <message>
        <source>Shown: (heads off) − (every head on). %1</source>
        <translation>显示的是：（关闭部分头）−（所有头开启）。%1</translation>
    </message>
    <message>
        <source>Shown: (heads off) − (every head on); the largest change at this step is %1.</source>
        <translation>显示的是：（关闭部分头）−（所有头开启）；这一步最大的变化为 %1。</translation>
    </message>
    <message>
        <source> (switched off)</source>
        <translation>（已关闭）</translation>
    </message>
    <message>
        <source>▶ Animate</source>
        <translation>▶ 播放动画</translation>
    </message>
    <message>
        <source>Watch this step happen, with its own numbers: click or press a key to skip; View ▸ Animations turns them off</source>
        <translation>用这一步自己的数值演示它的计算过程：单击或按任意键跳过；在“视图 ▸ 动画”中可关闭</translation>
    </message>
    <message>
        <source>✎ Drawing the mask: click a cell to block that query–key pair in every head, click it again to unblock it. Drawn cells are hatched; choose another mask in the settings to stop drawing. Blocked: %1.</source>
        <translation>✎ 正在绘制掩码：点击一个单元格，在每个头中屏蔽这对查询–键；再点一次取消屏蔽。画出的单元格带斜线；在设置中选择其他掩码即可停止绘制。已屏蔽：%1 个。</translation>
    </message>
    <message>
        <source>✎ The mask is drawn on the score steps, %1 to %2. Blocked so far: %3.</source>
        <translation>✎ 掩码要在分数步骤（第 %1 步到第 %2 步）上绘制。目前已屏蔽：%3 个。</translation>
    </message>
    <message>
        <source>Columns by head: %1</source>
        <translation>各头对应的列：%1</translation>
    </message>
    <message>
        <source>KV%1 (heads %2–%3)</source>
        <translation>KV%1（头 %2–%3）</translation>
    </message>
    <message>
        <source>K, V columns by K/V head: %1</source>
        <translation>K、V 各 K/V 头对应的列：%1</translation>
    </message>
    <message>
        <source> (0 … %1)</source>
        <translation>（0 … %1）</translation>
    </message>
    <message>
        <source>The picture cut into %1 × %2 patches of %3 × %3 pixels: tokens %4 to %5 of X</source>
        <translation>图片被切成 %1 × %2 个 %3 × %3 像素的图块：即 X 的第 %4 到第 %5 个词元</translation>
    </message>
    <message>
        <source>Rows 0 and 1 of X are [CLS] and [DIST]: learned, from no patch.</source>
        <translation>X 的第 0 行和第 1 行是 [CLS] 和 [DIST]：它们是学出来的，不来自任何图块。</translation>
    </message>
    <message>
        <source>Row 0 of X is [CLS]: learned, from no patch.</source>
        <translation>X 的第 0 行是 [CLS]：它是学出来的，不来自任何图块。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::WalkthroughRunner</name>
    <message>
        <source>There was not enough memory for these settings.</source>
        <translation>内存不足，无法按这些设置计算。</translation>
    </message>
</context>
<context>
    <name>attnviz::app::WindowLesson</name>
    <message>
        <source>Open a lesson</source>
        <translation>打开课件</translation>
    </message>
    <message>
        <source>AttnViz lessons (*.attnviz)</source>
        <translation>AttnViz 课件 (*.attnviz)</translation>
    </message>
    <message>
        <source>Save the lesson</source>
        <translation>保存课件</translation>
    </message>
    <message>
        <source>Lesson not opened</source>
        <translation>课件未打开</translation>
    </message>
    <message>
        <source>Opened the lesson %1</source>
        <translation>已打开课件 %1</translation>
    </message>
    <message>
        <source>Lesson not saved</source>
        <translation>课件未保存</translation>
    </message>
    <message>
        <source>Saved the lesson as %1</source>
        <translation>课件已保存为 %1</translation>
    </message>
    <message>
        <source>No lessons yet</source>
        <translation>还没有课件</translation>
    </message>
    <message>
        <source>Clear the list</source>
        <translation>清空列表</translation>
    </message>
</context>
<context>
    <name>attnviz::app::WindowReachDialog</name>
    <message numerus="yes">
        <source>The decoder of %1: %n layer(s), as its configuration gives their windows.</source>
        <translation>
            <numerusform>%1 的解码器：共 %n 层，窗口取自它的配置。</numerusform>
        </translation>
    </message>
    <message>
        <source>The model shown has no sliding window: every layer sees every earlier token. Below, a stack of your own.</source>
        <translation>当前模型没有滑动窗口：每一层都能看到之前的所有词元。下面是你自己设定的层堆叠。</translation>
    </message>
    <message>
        <source>A stack of your own: every layer with the same sliding window. Open Mistral, Qwen2 or the bundled modern to see a model&apos;s.</source>
        <translation>你自己设定的层堆叠：每一层都有同样的滑动窗口。打开 Mistral、Qwen2 或内置的 modern 可以看到真实模型的情况。</translation>
    </message>
    <message>
        <source>Token %1: 2 = read by the layer&apos;s own window, 1 = reached through the layers below, 0 = out of reach</source>
        <translation>词元 %1：2 = 这一层自己的窗口直接读到，1 = 通过下面各层间接到达，0 = 到达不了</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>window of %1</source>
        <translation>窗口 %1</translation>
    </message>
    <message>
        <source>no window</source>
        <translation>无窗口</translation>
    </message>
    <message>
        <source>after layer %1 (%2): %3 tokens back</source>
        <translation>第 %1 层之后（%2）：往前 %3 个词元</translation>
    </message>
    <message>
        <source>after layer %1 (%2): every earlier token</source>
        <translation>第 %1 层之后（%2）：之前的所有词元</translation>
    </message>
    <message>
        <source>&lt;p&gt;%1.&lt;/p&gt;&lt;p&gt;A window of W keys lets a token read the W − 1 tokens before it; what they read in the layers below comes along, so L windowed layers reach L · (W − 1) tokens back. Mistral 7B (32 layers, W = 4,096) reaches 131,040 tokens; a layer without a window, as every other layer of Gemma 2, lets every earlier token in at once.&lt;/p&gt;</source>
        <translation>&lt;p&gt;%1。&lt;/p&gt;&lt;p&gt;W 个键的窗口让一个词元能读到它前面的 W − 1 个词元；这些词元在下面各层读到的内容也会随之传过来，所以 L 个带窗口的层能往前覆盖 L · (W − 1) 个词元。Mistral 7B（32 层，W = 4,096）能覆盖 131,040 个词元；而没有窗口的层（如 Gemma 2 每隔一层的那种）一下子就让之前的所有词元都进来。&lt;/p&gt;</translation>
    </message>
</context>
</TS>
