// What the demo page shows: the progress bar, the loads table and their
// phase chart, the cache's contents with delete buttons, the pool table and
// the per-frame speech chart. Plain DOM, no framework.
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const mib = (n) => `${(n / 1048576).toFixed(2)} MiB`;
const PHASE_COLORS = {
  'start runtime': '#9aa5b8',
  'look up cache': '#c6a15b',
  download: '#3a6ff7',
  'store / read cache': '#2bb3a3',
  verify: '#8a5cf6',
  'create session': '#e4572e',
};

export function progress(label, p) {
  const bar = $('progress');
  if (p.total) {
    bar.max = p.total;
    bar.value = p.loaded;
  } else {
    bar.removeAttribute('value');
  }
  $('status').textContent = `${label}: ${p.phase}${p.total ? ` ${Math.round((100 * p.loaded) / p.total)}%` : ''}`;
}

export function status(text, error = false) {
  $('status').innerHTML = error ? `<span class="error">${esc(text)}</span>` : esc(text);
}

export function loads(rows) {
  $('loads').querySelector('tbody').innerHTML = rows
    .map(
      (r) =>
        `<tr><td>${esc(r.label)}</td><td>${esc(r.tier)}</td><td>${esc(r.form)}</td><td>${r.ms.toFixed(0)} ms</td><td>${r.requests}</td><td>${r.stored ? 'yes' : 'no'}</td><td>${r.verified ? 'yes' : 'no'}</td></tr>`,
    )
    .join('');
  const longest = Math.max(...rows.map((r) => r.ms));
  $('phases').innerHTML =
    rows
      .map(
        (r) =>
          `<div class="row"><span class="label">${esc(r.label)}</span><span class="bar">${Object.entries(r.phases)
            .filter(([, ms]) => ms > 0)
            .map(
              ([name, ms]) =>
                `<i style="width:${(100 * ms) / longest}%;background:${PHASE_COLORS[name]}" title="${esc(name)} ${ms.toFixed(1)} ms"></i>`,
            )
            .join('')}</span><span class="ms">${r.ms.toFixed(0)} ms</span></div>`,
      )
      .join('') +
    `<div class="legend">${Object.entries(PHASE_COLORS)
      .map(([name, c]) => `<span><i style="background:${c}"></i>${esc(name)}</span>`)
      .join('')}</div>`;
}

/** An optimized form's verdict: its creation time against the original's, or why it failed. */
const formVerdict = (e) =>
  e.status === 'verified'
    ? `verified: creates in ${e.createMs.toFixed(0)} ms vs ${e.originalCreateMs.toFixed(0)} ms`
    : `failed: ${e.reason}`;

/** The cache's entries; each delete button calls onDelete(key) and the table is drawn again. */
export function cacheTable(entries, onDelete) {
  const body = $('cache').querySelector('tbody');
  body.innerHTML = entries.length
    ? entries
        .map(
          (e, i) =>
            `<tr><td>${esc(e.key)}</td><td>${mib(e.bytes)}</td><td>${esc(e.form)}${e.status ? ` ${esc(formVerdict(e))}` : ''}</td><td>${e.hits}</td><td>${e.sha256 ? `${esc(e.sha256.slice(0, 12))}…` : '—'}</td><td><button data-i="${i}">delete</button></td></tr>`,
        )
        .join('')
    : '<tr><td colspan="6">empty</td></tr>';
  body.querySelectorAll('button').forEach((b) => {
    b.onclick = () => onDelete(entries[Number(b.dataset.i)].key);
  });
}

export function pool(rows, note) {
  $('pool').querySelector('tbody').innerHTML = rows
    .map(
      (r) =>
        `<tr><td>${esc(r.label)}</td><td>${esc(r.device)}</td><td>${r.ms.toFixed(2)} ms</td><td>${r.buffers === null ? 'n/a' : r.buffers.toFixed(2)}</td><td>${esc(r.detail ?? '')}</td></tr>`,
    )
    .join('');
  $('pool-note').textContent = note;
}

export function frames(probabilities, summary) {
  $('frames').innerHTML = probabilities
    .map(
      (p) =>
        `<div class="${p > 0.5 ? 'speech' : ''}" style="height:${Math.max(1, p * 100)}%" title="${p.toFixed(3)}"></div>`,
    )
    .join('');
  $('run-summary').textContent = summary;
}
