// The page kept responsive (issue 53): what the page's main thread is held
// for from page start to the first result, a first and a second visit, for
//   plain     onnxruntime-web alone on the page's thread
//   proxy     onnxruntime-web with env.wasm.proxy = true (its own worker)
//   ortkeep   ortkeep's script-tag bundle as it ships
// Each long task is one over 50 ms (PerformanceObserver 'longtask'); the
// longest and the total blocking time (each long task's part over 50 ms)
// are what a person feels as a frozen page. Then silero v5's run loop, a
// 32 ms frame per call with its state fed back, 1,000 calls of ortkeep's
// session and 1,000 of plain onnxruntime-web's in one page, in alternating
// blocks of 50 (ABBA) after 100 untimed calls each: ms per call on the
// page's clock (without the warm-up, the first block's JIT fell on ortkeep). Goals (the issue's): no long
// task, a second visit <= 0.45x plain, a call <= 1.1x plain's.
import process from 'node:process';
import { startServer } from './static-server.mjs';
import { median, twoVisits } from './bench-visits.mjs';
import { REAL_MODELS } from '../tests/models.mjs';

const MODELS = ['silero_vad_v5', 'ppocr_v4_det'].map((name) => REAL_MODELS.find((m) => m.name === name));
const MODES = { plain: { mode: 'plain' }, proxy: { mode: 'plain', proxy: 1 }, ortkeep: { mode: 'ortkeep' } };
const REPEATS = 3;
const LOOP_CALLS = 1000;
const GOALS = { longestMs: 50, secondRatio: 0.45, perCallRatio: 1.1 };

/** The longest task and the total blocking time of one visit's long tasks. */
function held(longTasks) {
  const longest = longTasks.reduce((m, t) => Math.max(m, t.ms), 0);
  const blocking = longTasks.reduce((sum, t) => sum + Math.max(0, t.ms - 50), 0);
  return { longest, blocking };
}

const fmt = (v) => (Number.isFinite(v) ? v.toFixed(0) : '-').padStart(8);

export async function run({ log = console.log, repeats = REPEATS, models = MODELS } = {}) {
  const server = await startServer();
  const rows = [];
  try {
    log(
      'medians over fresh profiles: ms from page start to the first result, the longest task on the page thread and the total blocking time in that span (lower is better)',
    );
    log(
      `${'model'.padEnd(16)}${'visit'.padEnd(8)}${Object.keys(MODES)
        .map((m) => `${m} result/longest/blocking`.padStart(36))
        .join('')}  ortkeep/plain  goals`,
    );
    for (const m of models) {
      const t = { first: {}, second: {} };
      for (const which of ['first', 'second'])
        for (const mode of Object.keys(MODES)) t[which][mode] = { result: [], longest: [], blocking: [] };
      for (let i = 0; i < repeats; i++)
        for (const [mode, query] of Object.entries(MODES)) {
          const r = await twoVisits(server.origin, { ...query, model: `/${m.path}`, name: m.name });
          for (const which of ['first', 'second']) {
            const h = held(r[which].longTasks);
            t[which][mode].result.push(r[which].marks.result);
            t[which][mode].longest.push(h.longest);
            t[which][mode].blocking.push(h.blocking);
          }
        }
      for (const which of ['first', 'second']) {
        const med = Object.fromEntries(
          Object.entries(t[which]).map(([mode, v]) => [
            mode,
            { result: median(v.result), longest: median(v.longest), blocking: median(v.blocking) },
          ]),
        );
        const ratio = med.ortkeep.result / med.plain.result;
        const goals = { longestMs: { measured: med.ortkeep.longest, goal: GOALS.longestMs } };
        if (which === 'second') goals.ratio = { measured: ratio, goal: GOALS.secondRatio };
        // flat: each mode's first result, then its longest task and total blocking time
        const cols = {};
        for (const [mode, v] of Object.entries(med))
          Object.assign(cols, { [mode]: v.result, [`${mode}Longest`]: v.longest, [`${mode}Blocking`]: v.blocking });
        rows.push({ model: m.name, visit: which, ...cols, ratio, goals, repeats, samples: t[which] });
        const met = Object.entries(goals)
          .map(([k, g]) => `${k} ${g.measured <= g.goal ? 'met' : 'not met'} (<= ${g.goal})`)
          .join(', ');
        log(
          `${m.name.padEnd(16)}${which.padEnd(8)}${Object.values(med)
            .map((v) => `${fmt(v.result)}/${fmt(v.longest)}/${fmt(v.blocking)}`.padStart(36))
            .join('')}  ${ratio.toFixed(2).padStart(13)}  ${met}`,
        );
      }
    }
    const silero = REAL_MODELS.find((m) => m.name === 'silero_vad_v5');
    const loop = await twoVisits(server.origin, {
      mode: 'ortkeep',
      model: `/${silero.path}`,
      name: silero.name,
      loop: LOOP_CALLS,
    });
    const perCall = loop.second.perCall;
    const perCallRatio = perCall.session / perCall.plain;
    rows.push({
      model: silero.name,
      visit: 'run loop',
      plain: perCall.plain,
      ortkeep: perCall.session,
      ratio: perCallRatio,
      calls: perCall.calls,
      goals: { perCallRatio: { measured: perCallRatio, goal: GOALS.perCallRatio } },
    });
    log(
      `silero v5 run loop, ${perCall.calls} calls each, one page (second visit), alternating blocks of 50 (ABBA) after 100 calls each: ortkeep ${perCall.session.toFixed(3)} ms per call, plain ${perCall.plain.toFixed(3)}: ${perCallRatio.toFixed(2)}x (goal <= ${GOALS.perCallRatio}: ${perCallRatio <= GOALS.perCallRatio ? 'met' : 'not met'})`,
    );
  } finally {
    await server.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
