// A classic worker (importScripts) using the script-tag bundle: loads a model
// by URL, runs it on the deterministic feeds and posts the outputs back.
importScripts('/node_modules/onnxruntime-web/dist/ort.min.js', '/dist/ortkeep.iife.js');
ort.env.wasm.numThreads = 1;
// onnxruntime-web cannot tell its own URL in a classic worker either: tell it
ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';

onmessage = async ({ data: { url, model } }) => {
  try {
    const feeds = await import('/tests/browser/pages/feeds.js');
    const session = await ortkeep.load(url);
    const out = await session.run(feeds.FEEDS[model](ort, 1));
    const outputs = Object.fromEntries(
      Object.entries(out).map(([k, t]) => [k, { dims: t.dims, data: Array.from(t.data, Number) }]),
    );
    await session.dispose();
    postMessage({ ok: true, outputs });
  } catch (e) {
    postMessage({ ok: false, name: e?.name, code: e?.code, message: String(e?.message ?? e) });
  }
};
