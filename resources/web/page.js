// The page AttnViz writes (src/render/web_page.cpp): it reads its numbers from the two data
// blocks above it and draws the head view, the model view, the walkthrough's heatmaps and a
// Vision Transformer's picture. Nothing is fetched, nothing is evaluated: the page's
// Content-Security-Policy allows this script alone, by its hash.
'use strict';
(() => {
  const data = JSON.parse(document.getElementById('attnviz-data').textContent);
  const S = data.strings;
  const top = 2 ** data.bits - 5; // the largest code of a number; the four above are not numbers
  let codes = new Uint16Array(0);

  const $ = (id) => document.getElementById(id);
  const make = (tag, attributes = {}, text) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const fill = (template, ...values) =>
    template.replace(/%(\d)/g, (m, i) => (values[i - 1] === undefined ? m : String(values[i - 1])));
  const rgb = (c) => `rgb(${(c >> 16) & 255},${(c >> 8) & 255},${c & 255})`;
  const headColour = (h) => rgb(data.colours.heads[((h % 64) + 64) % 64]);

  // The numbers: base64 of zlib-packed little-endian codes.
  async function unpack() {
    const text = $('attnviz-values').textContent.trim();
    if (!text) return new Uint16Array(0);
    if (typeof DecompressionStream === 'undefined') throw new Error(S.noUnpacking);
    const binary = atob(text);
    const packed = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; ++i) packed[i] = binary.charCodeAt(i);
    const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream('deflate'));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    if (data.bits === 8) return bytes;
    const out = new Uint16Array(bytes.length >> 1);
    for (let i = 0; i < out.length; ++i) out[i] = bytes[2 * i] | (bytes[2 * i + 1] << 8);
    return out;
  }

  // A cell: its value as stored (a whole number of steps from the map's minimum) or what it is.
  function cell(map, r, c) {
    const code = codes[map.offset + r * map.cols + c];
    if (code <= top) return { value: map.min + code * map.step };
    if (code === top + 1) return { value: NaN, blocked: true };
    if (code === top + 2) return { value: -Infinity };
    if (code === top + 3) return { value: Infinity };
    return { value: NaN };
  }

  // As the app colours a value: level ⌊f · 256⌋ of its place f in the range, the last at the top.
  function colour(map, v, blocked) {
    if (blocked) return data.colours.blocked;
    if (Number.isNaN(v)) return 0xff00ff;
    const levels = map.scale === 'sequential' ? data.colours.sequential : data.colours.diverging;
    const [lo, hi] = map.range;
    const f = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    const level = Math.max(0, Math.min(255, Math.floor(f * 256)));
    return levels[Number.isFinite(f) ? level : f > 0 ? 255 : 0];
  }

  function shown(map, v) {
    if (!Number.isFinite(v)) return String(v);
    const digits = map.step > 0 ? Math.min(10, Math.max(1, Math.ceil(-Math.log10(map.step / 2)))) : 4;
    return Math.abs(v) < 1e6 ? v.toFixed(digits) : v.toPrecision(7);
  }

  // A canvas of one pixel per cell, each the colour of its value.
  function cellCanvas(map) {
    const canvas = document.createElement('canvas');
    canvas.width = map.cols;
    canvas.height = map.rows;
    const g = canvas.getContext('2d');
    const pixels = g.createImageData(map.cols, map.rows);
    for (let r = 0; r < map.rows; ++r)
      for (let c = 0; c < map.cols; ++c) {
        const { value, blocked } = cell(map, r, c);
        const k = colour(map, value, blocked), at = 4 * (r * map.cols + c);
        pixels.data[at] = (k >> 16) & 255;
        pixels.data[at + 1] = (k >> 8) & 255;
        pixels.data[at + 2] = k & 255;
        pixels.data[at + 3] = 255;
      }
    g.putImageData(pixels, 0, 0);
    return canvas;
  }

  const label = (labels, i) => (labels ? labels[i] : String(i));
  const blockName = (b) => {
    const name = S['block_' + b.block] || b.block;
    const where = b.layer >= 0 ? `${S.layer} ${b.layer} · ${name}` : name;
    return b.batch > 0 ? `${where} · batch ${b.batch}` : where;
  };

  // The one readout of the page: what the last cell pointed at holds, with its place as data
  // attributes so that a script can read it back.
  function readCell(index, r, c, where = {}) {
    const map = data.maps[index];
    const { value, blocked } = cell(map, r, c);
    const out = $('cell-readout');
    const rowName = map.rowLabels ? `${S.query} “${label(map.rowLabels, r)}” (${r})` : `${S.row} ${r}`;
    const colName = map.colLabels ? `${S.key} “${label(map.colLabels, c)}” (${c})` : `${S.column} ${c}`;
    const said = blocked ? S.blocked : `${shown(map, value)} (${fill(S.within, shown(map, map.step / 2))})`;
    out.textContent = `${map.title} · ${rowName} · ${colName}: ${said}`;
    Object.assign(out.dataset, {
      map: index, query: r, key: c, value: blocked ? 'blocked' : String(value),
      precision: String(map.step / 2), step: where.step || '', layer: where.layer ?? '', head: map.head,
    });
  }

  // A heatmap on a canvas, every cell one colour; labels beside it when there is room. Point at
  // a cell, or move the cursor with the arrow keys, to read it.
  function heatmap(index, where = {}, maxWidth = 560, maxHeight = 520) {
    const map = data.maps[index];
    const figure = make('figure', { class: 'heatmap', 'data-map': index, 'data-rows': map.rows,
      'data-cols': map.cols, 'data-step': where.step || '', 'data-layer': where.layer ?? '',
      'data-head': map.head });
    figure.append(make('figcaption', {}, map.title));
    maxWidth = Math.min(maxWidth, document.documentElement.clientWidth - 40); // a phone's too
    const labelled = map.rows <= 48 && map.cols <= 48 && maxWidth >= 240;
    const margin = labelled ? { left: 76, top: 64 } : { left: 0, top: 0 };
    const size = Math.max(1, Math.min(28, Math.floor((maxWidth - margin.left) / map.cols),
      Math.floor((maxHeight - margin.top) / map.rows)));
    const canvas = make('canvas', { tabindex: '0', role: 'img', 'aria-label': map.title });
    const width = margin.left + size * map.cols, height = margin.top + size * map.rows;
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.ceil(width * ratio);
    canvas.height = Math.ceil(height * ratio);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    Object.assign(canvas.dataset, { left: margin.left, top: margin.top, cell: size });
    const cells = cellCanvas(map);
    let cursor = null;
    const draw = () => {
      const g = canvas.getContext('2d');
      g.setTransform(ratio, 0, 0, ratio, 0, 0);
      g.clearRect(0, 0, width, height);
      g.imageSmoothingEnabled = false;
      g.drawImage(cells, margin.left, margin.top, size * map.cols, size * map.rows);
      if (labelled) {
        g.fillStyle = '#1b1b1b';
        g.font = '11px system-ui, sans-serif';
        g.textAlign = 'right';
        g.textBaseline = 'middle';
        for (let r = 0; r < map.rows; ++r)
          g.fillText(label(map.rowLabels, r).slice(0, 10), margin.left - 4, margin.top + (r + 0.5) * size, margin.left - 6);
        for (let c = 0; c < map.cols; ++c) {
          g.save();
          g.translate(margin.left + (c + 0.5) * size, margin.top - 4);
          g.rotate(-Math.PI / 3);
          g.textAlign = 'left';
          g.fillText(label(map.colLabels, c).slice(0, 10), 0, 0, margin.top);
          g.restore();
        }
      }
      if (cursor) {
        g.strokeStyle = '#ff2d95';
        g.lineWidth = 2;
        g.strokeRect(margin.left + cursor.c * size, margin.top + cursor.r * size, size, size);
      }
    };
    const point = (r, c) => {
      cursor = { r, c };
      draw();
      readCell(index, r, c, where);
    };
    canvas.addEventListener('mousemove', (e) => {
      const box = canvas.getBoundingClientRect();
      const c = Math.floor((e.clientX - box.left - margin.left) / size);
      const r = Math.floor((e.clientY - box.top - margin.top) / size);
      if (r >= 0 && c >= 0 && r < map.rows && c < map.cols && (!cursor || cursor.r !== r || cursor.c !== c)) point(r, c);
    });
    canvas.addEventListener('keydown', (e) => {
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      if (!moves[e.key]) return;
      e.preventDefault();
      e.stopPropagation(); // the arrows move the cursor here, not the step
      const at = cursor || { r: 0, c: 0 };
      const [dr, dc] = cursor ? moves[e.key] : [0, 0];
      point(Math.max(0, Math.min(map.rows - 1, at.r + dr)), Math.max(0, Math.min(map.cols - 1, at.c + dc)));
    });
    draw();
    figure.append(canvas);
    return figure;
  }

  // ---- Tabs --------------------------------------------------------------------------------
  const tabs = [...document.querySelectorAll('#tabs [role=tab]')];
  const drawn = {};
  function showView(name) {
    for (const t of tabs) {
      const on = t.dataset.view === name;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      $('view-' + t.dataset.view).hidden = !on;
    }
    if (!drawn[name]) { drawn[name] = true; views[name].start(); }
    views[name].shown?.();
  }
  for (const t of tabs) {
    t.addEventListener('click', () => showView(t.dataset.view));
    t.addEventListener('keydown', (e) => {
      const visible = tabs.filter((x) => !x.hidden);
      const at = visible.indexOf(t);
      const to = e.key === 'ArrowRight' ? at + 1 : e.key === 'ArrowLeft' ? at - 1 : null;
      if (to === null) return;
      const next = visible[(to + visible.length) % visible.length];
      next.focus();
      showView(next.dataset.view);
    });
  }

  function fillBlocks(select, blocks) {
    for (const i of blocks) select.append(make('option', { value: i }, blockName(data.blocks[i])));
  }
  const allBlocks = data.blocks.map((_, i) => i);

  // ---- Head view ---------------------------------------------------------------------------
  const headView = (() => {
    const select = $('head-view-block'), toggles = $('head-toggles');
    const queries = $('head-view-queries'), keys = $('head-view-keys'), lines = $('head-view-lines');
    const rowHeight = 22;
    let block = null, on = [], active = null;
    const weight = (h, q, k) => {
      const { value, blocked } = cell(data.maps[block.maps[h]], q, k);
      return blocked || !Number.isFinite(value) ? 0 : value;
    };
    function draw() {
      const width = lines.clientWidth || 200, height = rowHeight * Math.max(block.queries.length, block.keys.length);
      const ratio = window.devicePixelRatio || 1;
      lines.width = Math.ceil(width * ratio);
      lines.height = Math.ceil(height * ratio);
      lines.style.height = `${height}px`;
      const g = lines.getContext('2d');
      g.setTransform(ratio, 0, 0, ratio, 0, 0);
      g.clearRect(0, 0, width, height);
      g.lineWidth = 2;
      const rows = active === null ? block.queries.map((_, q) => q) : [active];
      for (const h of on) {
        g.strokeStyle = headColour(block.heads[h]);
        for (const q of rows)
          for (let k = 0; k < block.keys.length; ++k) {
            const w = weight(h, q, k);
            if (w < 0.01) continue;
            g.globalAlpha = Math.min(1, w * (active === null ? 0.6 : 1)) / Math.max(1, on.length / 2);
            g.beginPath();
            g.moveTo(2, (q + 0.5) * rowHeight);
            g.lineTo(width - 2, (k + 0.5) * rowHeight);
            g.stroke();
          }
      }
      g.globalAlpha = 1;
      for (const li of queries.children) li.classList.toggle('active', Number(li.dataset.index) === active);
      for (const li of keys.children) {
        const k = Number(li.dataset.index);
        if (active === null || on.length === 0) {
          delete li.dataset.weight;
          li.style.background = '';
          continue;
        }
        const mean = on.reduce((sum, h) => sum + weight(h, active, k), 0) / on.length;
        li.dataset.weight = String(mean);
        li.title = shown(data.maps[block.maps[on[0]]], mean);
        li.style.background = `rgba(11, 99, 197, ${Math.min(0.85, mean)})`;
        li.style.color = mean > 0.45 ? '#fff' : '';
      }
      const readout = $('head-view-readout');
      readout.textContent = active === null ? '' :
        fill(S.hoverQuery, block.queries[active], on.map((h) => block.heads[h]).join(', '));
      readout.dataset.query = active ?? '';
    }
    function tokens(list, names, side) {
      list.replaceChildren(...names.map((name, i) => {
        const li = make('li', { 'data-index': i, 'data-side': side }, name);
        li.style.height = `${rowHeight}px`;
        if (side === 'query') {
          li.tabIndex = 0;
          const choose = () => { active = i; draw(); };
          li.addEventListener('mouseenter', choose);
          li.addEventListener('focus', choose);
          li.addEventListener('keydown', (e) => {
            const to = e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowUp' ? i - 1 : null;
            if (to === null || to < 0 || to >= names.length) return;
            e.preventDefault();
            list.children[to].focus();
          });
        }
        return li;
      }));
    }
    function open(blockIndex, heads = null) {
      block = data.blocks[blockIndex];
      select.value = String(blockIndex);
      on = heads ?? block.heads.map((_, h) => h);
      active = null;
      toggles.replaceChildren(...block.heads.map((head, h) => {
        const b = make('button', { 'data-head': head, 'aria-pressed': String(on.includes(h)) }, fill(S.head, head));
        b.style.color = headColour(head);
        const paint = () => { b.style.background = on.includes(h) ? headColour(head) : 'transparent'; };
        paint();
        b.addEventListener('click', () => {
          on = on.includes(h) ? on.filter((x) => x !== h) : [...on, h].sort((a, c) => a - c);
          b.setAttribute('aria-pressed', String(on.includes(h)));
          paint();
          draw();
        });
        return b;
      }));
      tokens(queries, block.queries, 'query');
      tokens(keys, block.keys, 'key');
      draw();
    }
    return {
      start() {
        if (!data.blocks.length) return;
        fillBlocks(select, allBlocks);
        select.addEventListener('change', () => open(Number(select.value)));
        $('head-view').addEventListener('mouseleave', () => { active = null; draw(); });
        window.addEventListener('resize', () => block && draw());
        open(data.blocks.length - 1);
      },
      open,
    };
  })();

  // ---- Model view: layers × heads ----------------------------------------------------------
  const modelView = (() => {
    const select = $('model-view-block'), grid = $('model-view'), opened = $('model-view-open');
    // One row per layer of the same block kind (and batch item).
    const kinds = [];
    for (const b of data.blocks) {
      const kind = `${b.block}/${b.batch}`;
      if (!kinds.includes(kind)) kinds.push(kind);
    }
    function openMap(blockIndex, h) {
      const b = data.blocks[blockIndex];
      opened.replaceChildren(heatmap(b.maps[h], { layer: b.layer }, 720, 640));
      opened.scrollIntoView({ block: 'nearest' });
    }
    function draw(kind) {
      const rows = allBlocks.filter((i) => `${data.blocks[i].block}/${data.blocks[i].batch}` === kind);
      const heads = Math.max(...rows.map((i) => data.blocks[i].heads.length));
      grid.style.gridTemplateColumns = `max-content repeat(${heads}, max-content)`;
      const thumb = Math.max(40, Math.min(110, Math.floor((Math.min(window.innerWidth, 1400) - 120) / heads) - 8));
      const cells = [];
      for (const i of rows) {
        const b = data.blocks[i];
        cells.push(make('div', { class: 'label' }, b.layer >= 0 ? `${S.layer} ${b.layer}` : ''));
        b.maps.forEach((m, h) => {
          const map = data.maps[m];
          const canvas = cellCanvas(map);
          for (const [k, v] of Object.entries({ tabindex: '0', role: 'button', 'data-layer': b.layer,
            'data-head': b.heads[h], 'data-map': m, 'aria-label': fill(S.layerHead, b.layer, b.heads[h]) }))
            canvas.setAttribute(k, v);
          const side = thumb;
          canvas.style.width = `${side}px`;
          canvas.style.height = `${Math.max(8, Math.round(side * map.rows / map.cols))}px`;
          canvas.style.borderColor = headColour(b.heads[h]);
          canvas.title = fill(S.layerHead, b.layer, b.heads[h]);
          canvas.addEventListener('click', () => openMap(i, h));
          canvas.addEventListener('keydown', (e) => {
            if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); openMap(i, h); }
          });
          cells.push(canvas);
        });
        for (let h = b.maps.length; h < heads; ++h) cells.push(make('div'));
      }
      grid.replaceChildren(...cells);
    }
    return {
      start() {
        if (!kinds.length) return;
        for (const kind of kinds) {
          const b = data.blocks.find((x) => `${x.block}/${x.batch}` === kind);
          select.append(make('option', { value: kind }, (S['block_' + b.block] || b.block) + (b.batch > 0 ? ` · batch ${b.batch}` : '')));
        }
        select.addEventListener('change', () => draw(select.value));
        draw(kinds[0]);
      },
    };
  })();

  // ---- The walkthrough ---------------------------------------------------------------------
  const walkthrough = (() => {
    const sections = [...document.querySelectorAll('section.step')];
    const buttons = $('step-buttons');
    let at = 0;
    const filled = new Set();
    function showGroup(section, step, g) {
      const maps = section.querySelector('.maps');
      maps.replaceChildren(...step.groups[g].maps.map((m) => heatmap(m, { step: step.key })));
      for (const b of section.querySelectorAll('.groups button'))
        b.setAttribute('aria-pressed', String(Number(b.dataset.group) === g));
    }
    function show(i) {
      at = Math.max(0, Math.min(sections.length - 1, i));
      sections.forEach((s, k) => { s.hidden = k !== at; });
      [...buttons.children].forEach((b, k) => {
        if (k === at) b.setAttribute('aria-current', 'step'); else b.removeAttribute('aria-current');
      });
      const section = sections[at], step = data.steps[at];
      if (!filled.has(at)) {
        filled.add(at);
        if (step.groups.length > 1) {
          const choice = section.querySelector('.groups');
          step.groups.forEach((group, g) => {
            const b = make('button', { 'data-group': g }, group.name);
            b.addEventListener('click', () => showGroup(section, step, g));
            choice.append(b);
          });
        }
        showGroup(section, step, 0);
      }
      $('step-previous').disabled = at === 0;
      $('step-next').disabled = at === sections.length - 1;
    }
    return {
      start() {
        if (!sections.length) return;
        sections.forEach((s, k) => {
          const b = make('button', { 'data-index': k, 'data-step': s.dataset.step }, String(k + 1));
          b.title = s.querySelector('h2').textContent;
          b.addEventListener('click', () => show(k));
          buttons.append(b);
        });
        $('step-previous').addEventListener('click', () => show(at - 1));
        $('step-next').addEventListener('click', () => show(at + 1));
        document.addEventListener('keydown', (e) => {
          if ($('view-steps').hidden || e.altKey || e.ctrlKey || e.metaKey) return;
          if (e.target.closest && e.target.closest('select, input, canvas')) return;
          if (e.key === 'ArrowRight') show(at + 1);
          else if (e.key === 'ArrowLeft') show(at - 1);
        });
        show(0);
      },
    };
  })();

  // ---- A Vision Transformer's picture ------------------------------------------------------
  const pictureView = (() => {
    const p = data.picture;
    const blockSelect = $('picture-block'), headSelect = $('picture-head'), opacity = $('picture-opacity');
    const canvas = $('picture-canvas');
    const image = new Image();
    const selfBlocks = allBlocks.filter((i) => data.blocks[i].block === 'self' && data.blocks[i].batch === 0);
    function draw() {
      if (!image.complete || !selfBlocks.length) return;
      const b = data.blocks[Number(blockSelect.value)];
      const heads = headSelect.value === 'mean' ? b.maps.map((_, h) => h) : [Number(headSelect.value)];
      const patches = p.patchRows * p.patchColumns;
      const row = new Float64Array(patches);
      for (const h of heads)
        for (let t = 0; t < patches; ++t) {
          const { value, blocked } = cell(data.maps[b.maps[h]], 0, p.firstPatchToken + t);
          row[t] += blocked || !Number.isFinite(value) ? 0 : value / heads.length;
        }
      const largest = Math.max(...row, 1e-12);
      const scale = Math.max(1, Math.floor(Math.min(560, (window.innerWidth || 600) - 40) / image.width));
      const width = image.width * scale, height = image.height * scale;
      canvas.width = width;
      canvas.height = height;
      canvas.style.width = `${width}px`;
      const g = canvas.getContext('2d');
      g.imageSmoothingEnabled = false;
      g.drawImage(image, 0, 0, width, height);
      const pw = width / p.patchColumns, ph = height / p.patchRows;
      g.globalAlpha = Number(opacity.value) / 100;
      for (let t = 0; t < patches; ++t) {
        const level = Math.min(255, Math.floor((row[t] / largest) * 256));
        g.fillStyle = rgb(data.colours.sequential[level]);
        g.fillRect((t % p.patchColumns) * pw, Math.floor(t / p.patchColumns) * ph, pw, ph);
      }
      g.globalAlpha = 1;
      canvas.dataset.largest = String(largest);
      canvas.dataset.brightest = String(row.indexOf(largest === 1e-12 ? row[0] : largest));
      $('picture-caption').textContent = fill(S.picture, `${blockName(b)} · ${headSelect.selectedOptions[0].textContent}`);
    }
    return {
      start() {
        fillBlocks(blockSelect, selfBlocks);
        blockSelect.value = String(selfBlocks[selfBlocks.length - 1]);
        headSelect.append(make('option', { value: 'mean' }, S.mean));
        data.blocks[selfBlocks[0]].heads.forEach((head, h) => headSelect.append(make('option', { value: h }, fill(S.head, head))));
        for (const control of [blockSelect, headSelect, opacity]) control.addEventListener('input', draw);
        image.addEventListener('load', draw);
        image.src = p.png;
      },
    };
  })();

  const views = { heads: headView, model: modelView, steps: walkthrough, picture: pictureView };

  function problem(error) {
    const p = $('problem');
    p.textContent = error && error.message ? error.message : String(error);
    p.hidden = false;
  }

  unpack().then((unpacked) => {
    codes = unpacked;
    if (!data.blocks.length) for (const v of ['heads', 'model']) $('tab-' + v).hidden = true;
    if (!data.steps.length) $('tab-steps').hidden = true;
    if (data.picture && data.blocks.some((b) => b.block === 'self')) $('tab-picture').hidden = false;
    const first = tabs.find((t) => !t.hidden);
    if (first) showView(first.dataset.view);
    document.body.dataset.ready = 'true';
  }).catch(problem);
})();
