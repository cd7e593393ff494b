// chunkviz attention stage (appended to ui/stage_player.js): the (query, key) matrix drawn block-wise, chunk by
// chunk: chunk k's rows highlighted, the cached keys of chunks 1…k−1 (hatched) and its own causal triangle in
// different colours; the KV cache growing under the key axis; FLOPs and KV bytes read so far against one pass.
// Positions: 0 = nothing computed, k = chunk k done, K+1 = the whole prefill equals one causal pass.

function si(v, unit) {  // as ui/fmt.py si(): two decimals with k, M, G, T
  for (const [scale, prefix] of [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]]) {
    if (Math.abs(v) >= scale) return `${(v / scale).toFixed(2)} ${prefix}${unit || ""}`;
  }
  return `${Math.round(v)} ${unit || ""}`.trim();
}

class AttentionStage {
  constructor(host, d, key) {
    this.d = d; this.T = d.text; const K = d.num_chunks;
    this.p = new StagePlayer(host, { key, version: d.version, positions: K + 2, start: d.start, url_param: d.url_param,
      speeds: d.speeds, default_speed: d.default_speed, text: d.text, draw: (c) => this.draw(c) });
    this.p.box.classList.add("attention");
    const T = this.T, p = this.p;
    p.addMark(T.m_first, T.m_first, () => p.jumpTo(1), "first-chunk");
    if (K > 1) p.addMark(T.m_second, T.m_second, () => p.jumpTo(2), "second-chunk");
    p.addMark(fill(T.m_last, { k: K }), T.m_last, () => p.jumpTo(K), "last-chunk");
    p.addMark(T.m_equal, T.m_equal, () => p.jumpTo(K + 1), "equal");
    p.stops = K > 1 ? [1, 2, K, K + 1] : [1, K + 1];  // the bookmarks above: a clicker's PageDown visits each
    const row = el("div", "row");
    this.canvas = el("canvas"); this.info = el("div", "info");
    row.appendChild(this.canvas);
    if (d.slide) {  // a lecture chapter's slide (1280×720): a smaller matrix, the legend beside it under the totals
      p.box.classList.add("slide");
      const side = el("div", "side"); side.appendChild(this.info); side.appendChild(this.legendRow());
      row.appendChild(side); p.body.appendChild(row);
    } else {
      row.appendChild(this.info); p.body.appendChild(row); p.body.appendChild(this.legendRow());
    }
    return p;
  }

  legendRow() {
    const C = this.d.colours, row = el("div", "legend");
    [["done", C.done], ["cached", C.cached], ["fresh", C.fresh], ["rows", "transparent"], ["later", "transparent"]].forEach(([k, colour]) => {
      const s = el("span"), i = el("i"); i.style.background = colour;
      if (k === "cached") i.style.backgroundImage = "repeating-linear-gradient(45deg, rgba(0,0,0,.45) 0 2px, transparent 2px 6px)";
      if (k === "rows") i.style.outline = `3px solid ${C.cursor}`;
      if (k === "later") i.style.outline = "1px dashed rgba(128,128,128,.9)";
      s.appendChild(i); s.appendChild(document.createTextNode(this.T["lg_" + k])); row.appendChild(s);
    });
    return row;
  }

  colours() {  // the theme's text colour, read at most twice a second (a style read per step costs a recalc)
    const now = performance.now();
    if (!this.themeAt || now - this.themeAt > 500) {
      const css = getComputedStyle(this.p.box);
      this.theme = { text: css.getPropertyValue("--st-text-color").trim() || css.color || "#31333f" };
      this.themeAt = now;
    }
    return this.theme;
  }

  draw(c) {
    const d = this.d, K = d.num_chunks, T = this.T;
    this.drawMatrix(c);
    this.info.replaceChildren(...this.infoLines(c));
    if (c === 0) return fill(T.readout_start, { num: K });
    if (c > K) return T.readout_equal;
    return fill(T.readout, { k: c, num: K });
  }

  // Staircase of causal rows [r0, r1) from key column x0: row i covers keys x0..i (a filled lower triangle part).
  stairs(ctx, X, Y, r0, r1, x0) {
    ctx.beginPath(); ctx.moveTo(X(x0), Y(r0));
    const stepRows = Math.max(1, Math.floor((r1 - r0) / 400));  // ≤ 400 corners: a 1-px stair is invisible anyway
    for (let i = r0; i < r1; i += stepRows) { const j = Math.min(i + stepRows, r1); ctx.lineTo(X(i + 1), Y(i)); ctx.lineTo(X(i + 1), Y(j)); }
    ctx.lineTo(X(r1), Y(r1)); ctx.lineTo(X(x0), Y(r1)); ctx.closePath();
  }

  drawMatrix(c) {
    const d = this.d, C = d.colours, K = d.num_chunks, n = d.n, ch = d.chunks, cnv = this.canvas;
    const dpr = window.devicePixelRatio || 1, width = Math.max(this.p.width || 700, 320);
    const font = 16, left = 58, top = 46, size = d.slide ? (d.compact ? 200 : 250) : Math.round(Math.min(380, Math.max(220, width * 0.42)));
    const W = left + size + 12, H = top + size + 58;
    if (cnv.width !== Math.round(W * dpr) || cnv.height !== Math.round(H * dpr)) {
      cnv.width = Math.round(W * dpr); cnv.height = Math.round(H * dpr); cnv.style.width = W + "px"; cnv.style.height = H + "px";
    }
    const ctx = cnv.getContext("2d"); ctx.setTransform(dpr, 0, 0, dpr, 0, 0); ctx.clearRect(0, 0, W, H);
    const col = this.colours(), s = size / n, X = (k) => left + k * s, Y = (q) => top + q * s;
    // The whole causal region, outlined: what is not drawn yet.
    ctx.setLineDash([4, 3]); ctx.strokeStyle = "rgba(128,128,128,.9)"; ctx.lineWidth = 1;
    this.stairs(ctx, X, Y, 0, n, 0); ctx.stroke(); ctx.setLineDash([]);
    if (c > K) {  // every cell coloured by the chunk that computed it
      for (let k = 0; k < K; k++) { ctx.fillStyle = C.cycle[k % C.cycle.length]; this.stairs(ctx, X, Y, ch.start[k], ch.end[k], 0); ctx.fill(); }
    } else if (c > 0) {
      const a = ch.start[c - 1], b = ch.end[c - 1];
      if (a > 0) { ctx.fillStyle = C.done; this.stairs(ctx, X, Y, 0, a, 0); ctx.fill(); }
      if (a > 0) {  // the cached keys of chunks 1…k−1: one rectangle, hatched
        ctx.fillStyle = C.cached; ctx.fillRect(X(0), Y(a), a * s, (b - a) * s);
        ctx.save(); ctx.beginPath(); ctx.rect(X(0), Y(a), a * s, (b - a) * s); ctx.clip();
        ctx.strokeStyle = "rgba(0,0,0,.45)"; ctx.lineWidth = 2; ctx.beginPath();  // one path: one stroke call
        for (let x = -size; x < size; x += 8) { ctx.moveTo(X(0) + x, Y(b)); ctx.lineTo(X(0) + x + (b - a) * s, Y(a)); }
        ctx.stroke(); ctx.restore();
      }
      ctx.fillStyle = C.fresh; this.stairs(ctx, X, Y, a, b, a); ctx.fill();
      ctx.strokeStyle = C.cursor; ctx.lineWidth = 3; ctx.strokeRect(X(0) - 2, Y(a) - 1, size + 4, (b - a) * s + 2);
    }
    // Chunk boundaries on both axes, and tick labels far enough apart to read.
    ctx.strokeStyle = "rgba(128,128,128,.45)"; ctx.lineWidth = 1;
    if (d.chunk * s >= 4) for (let k = 1; k < K; k++) {
      const v = ch.start[k]; ctx.beginPath(); ctx.moveTo(X(0), Y(v)); ctx.lineTo(X(n), Y(v)); ctx.moveTo(X(v), Y(0)); ctx.lineTo(X(v), Y(n)); ctx.stroke();
    }
    ctx.fillStyle = col.text; ctx.font = `${font}px sans-serif`;
    const every = Math.max(1, Math.ceil(44 / Math.max(d.chunk * s, 1)));
    const ticks = ch.start.filter((v, k) => k % every === 0 && (n - v) * s >= 40).concat([n]);  // labels ≥ 40 px apart
    ctx.textAlign = "right";
    ticks.forEach((v) => ctx.fillText(String(v), left - 6, Math.min(Y(v) + 6, top + size + 6)));
    ctx.textAlign = "center";
    ticks.forEach((v) => ctx.fillText(String(v), Math.min(X(v), left + size - 8), top - 8));
    ctx.textAlign = "left"; ctx.font = `600 ${font}px sans-serif`;
    ctx.fillText(this.T.axis_key, left, 16);
    ctx.save(); ctx.translate(16, top + size); ctx.rotate(-Math.PI / 2); ctx.fillText(this.T.axis_query, 0, 0); ctx.restore();
    this.drawKv(ctx, c, X, left, top + size + 12, size, s, col.text, font);
  }

  // The KV cache under the key axis: cached before this chunk, written by it, still empty.
  drawKv(ctx, c, X, left, ky, size, s, textColour, font) {
    const d = this.d, C = d.colours, K = d.num_chunks, n = d.n, ch = d.chunks, kh = 18;
    const kvEnd = c === 0 ? 0 : c > K ? n : ch.end[c - 1], kvStart = c === 0 || c > K ? kvEnd : ch.start[c - 1];
    ctx.fillStyle = C.cached; ctx.fillRect(X(0), ky, kvStart * s, kh);
    ctx.fillStyle = C.fresh; ctx.fillRect(X(kvStart), ky, (kvEnd - kvStart) * s, kh);
    ctx.strokeStyle = "rgba(128,128,128,.9)"; ctx.lineWidth = 1; ctx.strokeRect(X(0), ky, size, kh);
    ctx.fillStyle = textColour; ctx.font = `${font}px sans-serif`; ctx.textAlign = "left";
    ctx.fillText(fill(this.T.kv_strip, { t: kvEnd, n }), left, ky + kh + font + 4);
  }

  bar(label, value, ref, max, colour, refLabel) {
    const wrap = el("div", "meter"), C = this.d.colours;
    wrap.appendChild(el("div", "label", label));
    const track = el("div", "track"), fillEl = el("div", "fill");
    fillEl.style.width = `${(100 * value) / max}%`; fillEl.style.background = colour; track.appendChild(fillEl);
    const mark = el("div", "ref"); mark.style.left = `${(100 * ref) / max}%`; mark.style.background = C.reference;
    mark.title = refLabel; track.appendChild(mark); wrap.appendChild(track);
    return wrap;
  }

  infoLines(c) {
    const d = this.d, T = this.T, K = d.num_chunks, ch = d.chunks, out = [];
    const head = (text) => out.push(el("div", "head", text));
    const line = (text, cls) => out.push(el("div", "line" + (cls ? " " + cls : ""), text));
    const flopsMax = Math.max(d.one_pass_flops, d.total_flops), bytesMax = Math.max(d.one_pass_bytes, d.total_bytes);
    let cf = 0, cb = 0;
    if (c === 0) {
      head(fill(T.start_head, { n: d.n, chunk: d.chunk, num: K }));
      line(T.start_hint);
    } else if (c <= K) {
      const k = c - 1, a = ch.start[k], b = ch.end[k], q = b - a;
      head(fill(T.chunk_head, { k: c, num: K, a, b: b - 1 }));
      line(a ? fill(c === 2 ? T.cached_line_one : T.cached_line, { p: a, prev: c - 1 }) : T.no_cache_line, "cachedline");
      line(fill(T.tri_line, { c: q, pairs: fmtNum(q * (q + 1) / 2) }), "triline");
      line(fill(T.work_line, { pairs: fmtNum(ch.pairs[k]), flops: si(ch.flops[k]), bytes: si(ch.bytes[k], "B") }));
      cf = ch.cum_flops[k]; cb = ch.cum_bytes[k];
    } else {
      head(fill(T.equal_head, { num: K }));
      line(fill(T.equal_diff, { diff: d.max_abs_diff.toExponential(1) }), "strong");
      const extra = Math.round((100 * d.total_bytes) / d.one_pass_bytes - 100);
      line(fill(d.total_flops === d.one_pass_flops ? T.equal_flops : T.differ_flops, { flops: si(d.total_flops) }));
      line(fill(T.equal_bytes, { bytes: si(d.total_bytes, "B"), one: si(d.one_pass_bytes, "B"), extra: (extra >= 0 ? "+" : "") + extra }));
      cf = d.total_flops; cb = d.total_bytes;
    }
    out.push(this.bar(fill(T.flops_bar, { v: si(cf), one: si(d.one_pass_flops) }), cf, d.one_pass_flops, flopsMax, d.colours.fresh, T.one_pass));
    out.push(this.bar(fill(T.bytes_bar, { v: si(cb, "B"), one: si(d.one_pass_bytes, "B") }), cb, d.one_pass_bytes, bytesMax, d.colours.cached, T.one_pass));
    return out;
  }
}

export default function (component) {
  return mountStage(component, "attention_stage", (host, data, key) => new AttentionStage(host, data, key));
}
