// chunkviz timeline: both engines on one canvas with a shared time axis; the cursor (a time in ms) moves in the
// browser (arrow keys, buttons, scrub, play by simulated time or by steps), so no step waits for a server rerun.
// Invariant: nothing after the cursor is drawn; data arrives once per scenario (data.version) and is read-only.

const KINDS = ["waiting", "prefill", "decode", "stall", "preempted"];
const STATE = (window.__cvTimelineState = window.__cvTimelineState || {});  // per key: survives re-mounts

function fmt(v, digits) {
  return v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function fill(template, fields) {
  return template.replace(/\{(\w+)\}/g, (_, k) => (k in fields ? fields[k] : "{" + k + "}"));
}

// Index of the last element of a sorted array strictly below x (-1 if none).
function lastBelow(arr, x) {
  let lo = 0, hi = arr.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (arr[mid] < x) lo = mid + 1; else hi = mid; }
  return lo - 1;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

class Timeline {
  constructor(root, data, key) {
    this.d = data; this.key = key; this.root = root;
    const saved = STATE[key] || {};
    // A re-mount (rerun, new scenario) keeps the cursor where the user left it; a fresh page starts at the link's.
    const start = saved.cursor !== undefined ? saved.cursor : data.t0_ms;
    this.cursor = Math.min(Math.max(start, 0), data.end_ms);
    this.speed = saved.speed ?? data.default_speed;  // index into data.speeds
    this.follow = saved.follow ?? true;
    this.playing = false; this.acc = 0; this.last = 0; this.hits = [];
    this.draws = 0; this.stepsShown = 0; this.dropped = 0; this.lastGrid = -2;
    this.build();
    this.draw();
  }

  t(name) { return this.d.text[name] || name; }

  build() {
    const d = this.d, box = el("div", "cv" + (d.present ? " present" : ""));
    box.tabIndex = 0; this.box = box;
    const bar = el("div", "bar");
    const btn = (label, title, fn) => { const b = el("button", "", label); b.title = title; b.onclick = fn; bar.appendChild(b); return b; };
    btn("|◀", this.t("first"), () => this.jumpTo(0));
    btn("◀", this.t("prev"), () => this.stepBy(-1));
    this.playBtn = btn(this.t("play"), this.t("play"), () => this.toggle());
    this.playBtn.className = "play";
    btn("▶", this.t("next"), () => this.stepBy(1));
    btn("▶|", this.t("last"), () => this.jumpTo(d.end_ms));
    this.speedSel = el("select", "speed");
    d.speeds.forEach((s, i) => { const o = el("option", "", s.label); o.value = i; this.speedSel.appendChild(o); });
    this.speedSel.value = this.speed;
    this.speedSel.onchange = () => { this.speed = +this.speedSel.value; this.save(); };
    bar.appendChild(this.speedSel);
    this.followBtn = btn(this.t("follow"), this.t("follow_help"), () => { this.follow = !this.follow; this.save(); this.draw(); });
    this.readout = el("span", "readout"); bar.appendChild(this.readout);
    box.appendChild(bar);
    this.scrub = el("input", "scrub"); this.scrub.type = "range"; this.scrub.min = 0; this.scrub.max = d.end_ms;
    this.scrub.step = "any"; this.scrub.setAttribute("aria-label", this.t("time"));
    this.scrub.oninput = () => { this.pause(); this.cursor = +this.scrub.value; this.draw(); this.saveUrlSoon(); };
    box.appendChild(this.scrub);
    const stage = el("div", "stage"); this.canvas = el("canvas"); this.tip = el("div", "tip");
    stage.appendChild(this.canvas); stage.appendChild(this.tip); box.appendChild(stage);
    const row = el("div", "row"), legend = el("div", "legend"), marks = el("div", "marks");
    d.legend.forEach(([label, colour]) => { const s = el("span"); const i = el("i"); i.style.background = colour; s.appendChild(i); s.appendChild(document.createTextNode(label)); legend.appendChild(s); });
    d.bookmarks.forEach((m) => { const b = el("button", "mark", m.label); b.title = m.title; b.onclick = () => this.jumpTo(m.t_ms); marks.appendChild(b); });
    row.appendChild(legend); row.appendChild(marks); box.appendChild(row);
    box.appendChild(this.cards());
    this.why = el("div", "why"); box.appendChild(this.why);
    this.canvas.onmousemove = (e) => this.hover(e);
    this.canvas.onmouseleave = () => { this.tip.style.display = "none"; };
    box.addEventListener("pointerdown", () => { window.__cvTimelineActive = this.key; });
    this.root.appendChild(box);
  }

  cards() {
    const d = this.d, grid = el("div", "cards");
    grid.appendChild(el("span", "h", ""));
    d.card_labels.forEach((l) => grid.appendChild(el("span", "h", l)));
    d.engines.forEach((e) => {
      grid.appendChild(el("span", "name", `${e.tag} · ${e.label}`));
      e.cards.forEach((c) => {
        const cell = el("span", "v", c.value);
        if (c.delta) { const s = el("span", "d " + (c.good === null ? "" : c.good ? "good" : "bad"), c.delta); cell.appendChild(s); }
        grid.appendChild(cell);
      });
    });
    return grid;
  }

  save() { STATE[this.key] = { version: this.d.version, cursor: this.cursor, speed: this.speed, follow: this.follow }; }

  saveUrlSoon() {
    this.save();
    clearTimeout(this.urlTimer);
    if (this.playing) return;
    this.urlTimer = setTimeout(() => {  // the link keeps the cursor; the old step= parameter is replaced
      const u = new URL(window.location.href);
      u.searchParams.set(this.d.url_param, String(Math.round(this.cursor * 10) / 10));
      u.searchParams.delete("step");
      window.history.replaceState(window.history.state, "", u.toString());
    }, 250);
  }

  gridIndex() { return lastBelow(this.d.grid_ms, this.cursor + 1e-6); }

  stepBy(n) {
    this.pause();
    const g = this.d.grid_ms, i = this.gridIndex();
    const target = n > 0 ? Math.min(i + n, g.length - 1) : Math.max(lastBelow(g, this.cursor - 1e-6) + 1 + n, 0);
    this.cursor = g[Math.max(target, 0)]; this.draw(); this.saveUrlSoon();
  }

  jumpTo(ms) { this.pause(); this.cursor = Math.min(Math.max(ms, 0), this.d.end_ms); this.draw(); this.saveUrlSoon(); }

  toggle() { if (this.playing) this.pause(); else this.play(); }

  play() {
    if (this.cursor >= this.d.end_ms - 1e-6) this.cursor = 0;
    this.playing = true; this.acc = 0; this.last = performance.now();
    this.playBtn.textContent = this.t("pause"); this.playBtn.classList.add("on");
    this.box.dataset.playing = "1";
    const tick = (now) => {
      if (!this.playing) return;
      this.advance(Math.min(now - this.last, 250)); this.last = now; this.draw();
      if (this.cursor >= this.d.end_ms - 1e-6) { this.pause(); return; }
      this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  advance(dtMs) {
    const s = this.d.speeds[this.speed];
    if (s.kind === "sim") { this.cursor = Math.min(this.cursor + dtMs * s.factor, this.d.end_ms); return; }
    // By steps: at most one grid position per frame, so no step is skipped; the remainder carries over.
    this.acc = Math.min(this.acc + (dtMs * s.rate) / 1000, 1.999);
    if (this.acc >= 1) {
      this.acc -= 1;
      const g = this.d.grid_ms, i = this.gridIndex();
      this.cursor = g[Math.min(i + 1, g.length - 1)];
    }
  }

  pause() {
    if (!this.playing) return;
    this.playing = false; cancelAnimationFrame(this.raf);
    this.playBtn.textContent = this.t("play"); this.playBtn.classList.remove("on");
    this.box.dataset.playing = "0";
    this.saveUrlSoon();
  }

  window() {
    const d = this.d, w = d.window_ms;
    if (!this.follow || d.end_ms <= w) return [0, Math.max(d.end_ms, 1)];
    const hi = Math.min(Math.max(this.cursor, w * 0.85) + w * 0.15, d.end_ms);
    return [hi - w, hi];
  }

  colours() {
    const css = getComputedStyle(this.box);
    return { text: css.getPropertyValue("--st-text-color").trim() || css.color || "#31333f",
             grid: "rgba(128,128,128,0.25)", cursor: css.getPropertyValue("--st-text-color").trim() || "#31333f" };
  }

  // Lanes of one engine active in [x0, min(cursor, x1)], and the step index at the cursor.
  activeLanes(e, x0, x1) {
    const hi = Math.min(this.cursor, x1), seen = new Set(), s = e.segs;
    for (let i = 0; i < s.r.length; i++) if (s.s[i] < hi && s.e[i] > x0) seen.add(s.r[i]);
    return [...seen].sort((a, b) => a - b);
  }

  draw() {
    const d = this.d, c = this.canvas, dpr = window.devicePixelRatio || 1;
    const width = Math.max(this.box.clientWidth || 600, 300), height = d.height_px;
    if (c.width !== Math.round(width * dpr) || c.height !== Math.round(height * dpr)) {
      c.width = Math.round(width * dpr); c.height = Math.round(height * dpr); c.style.height = height + "px";
    }
    const ctx = c.getContext("2d"); ctx.setTransform(dpr, 0, 0, dpr, 0, 0); ctx.clearRect(0, 0, width, height);
    const col = this.colours(), font = d.font_px, tick = d.tick_px;
    const [x0, x1] = this.window(), left = d.gutter_px, right = width - 10, axisH = tick + 12;
    const X = (ms) => left + ((ms - x0) / (x1 - x0)) * (right - left);
    this.hits = [];
    const panelH = (height - axisH) / d.engines.length;
    const stepIdx = [];
    d.engines.forEach((e, k) => stepIdx.push(this.drawEngine(ctx, e, k * panelH, panelH, X, x0, x1, col, font)));
    // Shared time axis with ticks every "nice" interval.
    const span = x1 - x0, raw = span / 8, pow = Math.pow(10, Math.floor(Math.log10(raw)));
    const stepMs = [1, 2, 5, 10].map((m) => m * pow).find((v) => v >= raw);
    ctx.font = `${tick}px sans-serif`; ctx.fillStyle = col.text; ctx.textAlign = "center";
    const yAxis = height - axisH;
    for (let v = Math.ceil(x0 / stepMs) * stepMs; v <= x1; v += stepMs) {
      const x = X(v); ctx.fillRect(x, yAxis, 1, 4); ctx.fillText(fmt(v, 0), x, yAxis + tick + 4);
      ctx.fillStyle = col.grid; ctx.fillRect(x, 0, 1, yAxis); ctx.fillStyle = col.text;
    }
    ctx.textAlign = "left"; ctx.fillText(this.t("time_ms"), 2, yAxis + tick + 4);
    // The cursor: palette.CURSOR, a colour no bar uses.
    const xc = X(this.cursor); this.cursorX = xc;
    ctx.fillStyle = d.colours.cursor; ctx.fillRect(xc - 1.5, 0, 3, yAxis);
    this.afterDraw(stepIdx);
  }

  drawEngine(ctx, e, top, h, X, x0, x1, col, font) {
    const d = this.d, C = d.colours, hi = Math.min(this.cursor, x1), st = e.steps;
    const i = lastBelow(st.s, this.cursor);  // the step running at (or just finished by) the cursor
    ctx.font = `600 ${font}px sans-serif`; ctx.fillStyle = col.text; ctx.textAlign = "left";
    const idle = i >= 0 && this.cursor > st.s[i] + st.d[i] + 1e-6;
    const stepText = i < 0 ? this.t("no_step") : fill(this.t(idle ? "step_idle" : "step_of"), { n: st.n[i], total: st.n.length });
    ctx.fillText(`${e.tag} · ${e.label} · ${stepText}`, 4, top + font + 2);
    const laneTop = top + font + 8, stepH = Math.max(font, 14);
    ctx.font = `${d.tick_px - 2}px sans-serif`; ctx.fillText(this.t("steps"), 2, laneTop + stepH - 3);
    for (let j = Math.max(lastBelow(st.s, x0) - 1, 0); j < st.s.length && st.s[j] < hi; j++) {
      const a = Math.max(st.s[j], x0), b = Math.min(st.s[j] + st.d[j], hi);
      if (b <= a) continue;
      ctx.fillStyle = C[st.k[j]]; ctx.fillRect(X(a), laneTop, Math.max(X(b) - X(a) - 0.5, 0.8), stepH);
      this.hits.push([X(a), X(b), laneTop, laneTop + stepH, e, "step", j]);
    }
    const lanes = this.activeLanes(e, x0, x1), bodyTop = laneTop + stepH + 6, bodyH = top + h - bodyTop - 4;
    const laneH = lanes.length ? Math.min(bodyH / lanes.length, d.lane_max_px) : 0;
    const row = new Map(lanes.map((r, n) => [r, n])), every = Math.max(1, Math.ceil((d.tick_px + 2) / Math.max(laneH, 1)));
    ctx.fillStyle = col.text; ctx.font = `${Math.max(11, Math.min(d.tick_px - 2, laneH))}px sans-serif`;
    lanes.forEach((r, n) => { if (n % every === 0 && n * laneH >= 6) ctx.fillText("R" + r, 2, bodyTop + n * laneH + laneH * 0.8); });
    const s = e.segs;
    for (let j = 0; j < s.r.length; j++) {
      if (!(s.s[j] < hi && s.e[j] > x0)) continue;
      const a = Math.max(s.s[j], x0), b = Math.min(s.e[j], hi), y = bodyTop + row.get(s.r[j]) * laneH;
      ctx.fillStyle = C[KINDS[s.k[j]]];
      ctx.fillRect(X(a), y + laneH * 0.1, Math.max(X(b) - X(a), 0.8), Math.max(laneH * 0.8, 1));
      this.hits.push([X(a), X(b), y, y + laneH, e, "seg", j]);
    }
    return i;
  }

  afterDraw(stepIdx) {
    const d = this.d;
    this.draws++;
    const g = this.gridIndex();
    if (g !== this.lastGrid) { if (this.lastGrid >= -1 && g > this.lastGrid + 1 && this.playing) this.dropped += g - this.lastGrid - 1; this.stepsShown++; this.lastGrid = g; }
    this.scrub.value = this.cursor;
    this.readout.textContent = fill(this.t("cursor"), { ms: fmt(this.cursor, 1) });
    this.followBtn.classList.toggle("on", this.follow);
    this.why.replaceChildren(...d.engines.map((e, k) => {
      const line = el("div"); const i = stepIdx[k];
      line.appendChild(el("b", "", `${e.tag}: `));
      line.appendChild(document.createTextNode(i >= 0 ? e.why[i] : this.t("no_step")));
      return line;
    }));
    const ds = this.box.dataset;
    ds.cursorMs = this.cursor.toFixed(3); ds.draws = this.draws; ds.stepsShown = this.stepsShown;
    ds.dropped = this.dropped; ds.playing = this.playing ? "1" : "0"; ds.cursorX = (this.cursorX || 0).toFixed(1);
    ds.steps = stepIdx.map((i, k) => (i >= 0 ? d.engines[k].steps.n[i] : -1)).join(",");
  }

  hover(ev) {
    const r = this.canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
    let hit = null;
    for (let n = this.hits.length - 1; n >= 0; n--) {
      const h = this.hits[n];
      if (x >= h[0] - 1 && x <= h[1] + 1 && y >= h[2] && y <= h[3]) { hit = h; break; }
    }
    if (!hit) { this.tip.style.display = "none"; return; }
    this.tip.textContent = this.describe(hit[4], hit[5], hit[6]);
    this.tip.style.display = "block";
    const w = this.canvas.clientWidth;
    this.tip.style.left = Math.min(x + 12, w - 320) + "px"; this.tip.style.top = (y + 14) + "px";
  }

  // Tooltip text: start, end and the true duration (end − start), token ranges 1-based and inclusive.
  describe(e, what, j) {
    const T = this.d.text;
    if (what === "step") {
      const st = e.steps, a = st.s[j], b = st.s[j] + st.d[j];
      return fill(T.tip_step, { engine: e.label, n: st.n[j], kind: T["kind_" + st.k[j]], from: fmt(a, 1), to: fmt(b, 1),
                                dur: fmt(st.d[j], 1), p: fmt(st.p[j], 0), dec: fmt(st.dc[j], 0) });
    }
    const s = e.segs, kind = KINDS[s.k[j]], a = s.s[j], b = s.e[j];
    let text = fill(T.tip_seg, { r: s.r[j], kind: T["lbl_" + kind], from: fmt(a, 1), to: fmt(b, 1), dur: fmt(b - a, 1) });
    if (kind === "prefill") text += "\n" + fill(T.tip_tokens, { a: fmt(s.a[j] + 1, 0), b: fmt(s.a[j] + s.tok[j], 0), total: fmt(s.tot[j], 0) });
    if (kind === "decode") text += "\n" + fill(T.tip_decodes, { n: fmt(s.tok[j], 0) });
    return text;
  }

  onKey(ev) {
    const active = window.__cvTimelineActive;
    if (active !== undefined && active !== this.key && document.querySelector(".st-key-" + active)) return;
    const target = ev.composedPath()[0];
    const tag = target && target.tagName;
    const ours = this.box.contains(target) || (this.root.contains && this.root.contains(target));
    // Other widgets keep their own keys (Streamlit's sliders are divs with role="slider", not inputs).
    const role = target && target.getAttribute && target.getAttribute("role");
    if (tag === "SELECT") return;  // the speed menu (ours or not) keeps its arrow keys
    const widget = ["slider", "spinbutton", "listbox", "combobox", "option", "radio", "textbox", "tab"].includes(role);
    if (!ours && (widget || tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable))) return;
    const map = { ArrowRight: () => this.stepBy(1), ArrowLeft: () => this.stepBy(-1), Home: () => this.jumpTo(0),
                  End: () => this.jumpTo(this.d.end_ms), " ": () => this.toggle() };
    const fn = map[ev.key];
    if (!fn || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    ev.preventDefault(); ev.stopPropagation(); fn();
  }

  destroy() { this.pause(); clearTimeout(this.urlTimer); this.save(); this.box.remove(); }
}

export default function (component) {
  const { data, parentElement, key } = component;
  const host = parentElement;
  const k = key || "timeline";
  // A rerun that did not change the scenario: keep everything, but write the cursor into the URL again, because
  // the server rewrites the query string from the values it read when the session started.
  if (host.__cv && host.__cv.d.version === data.version) { host.__cv.saveUrlSoon(); return () => {}; }
  if (host.__cv) host.__cv.destroy();
  const restored = STATE[k] !== undefined;
  const tl = new Timeline(host, data, k);
  host.__cv = tl;
  if (restored) tl.saveUrlSoon();
  const onKey = (ev) => tl.onKey(ev);
  const onResize = () => tl.draw();
  window.addEventListener("keydown", onKey, true);
  window.addEventListener("resize", onResize);
  tl.unlisten = () => { window.removeEventListener("keydown", onKey, true); window.removeEventListener("resize", onResize); };
  return () => {
    if (host.__cv === tl) { tl.unlisten(); tl.destroy(); host.__cv = null; }
  };
}
