// Session-create timing for the artifact-form tests, in Node and in pages.
// Variants are interleaved round by round, so a load spike on this shared
// machine hits each alike; each variant reports its median.

/**
 * @param {object} ort onnxruntime-web
 * @param {Record<string, [Uint8Array, object]>} variants label → [model bytes, session options]
 * @param {number} [rounds]
 * @returns {Promise<Record<string, number>>} label → median ms
 */
export async function interleavedCreateMs(ort, variants, rounds = 5) {
  const ms = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) {
    for (const [label, [bytes, options]] of Object.entries(variants)) {
      const t0 = performance.now();
      const session = await ort.InferenceSession.create(bytes, options);
      ms[label].push(performance.now() - t0);
      await session.release();
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return Object.fromEntries(Object.entries(ms).map(([k, xs]) => [k, median(xs)]));
}

/** One line: original@default, then each form with its ratio to the original. */
export function timingLine(ms) {
  const base = ms.original;
  return [
    `original@default ${base.toFixed(1)}`,
    ...Object.entries(ms)
      .filter(([k]) => k !== 'original')
      .map(([k, v]) => `.${k}@disabled ${v.toFixed(1)} (${(v / base).toFixed(2)}x)`),
  ].join(', ');
}
