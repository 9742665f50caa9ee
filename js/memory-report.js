// session.info.memory: what creating the session cost onnxruntime-web's wasm
// memory, beside what the C reader found in the model. The pattern it warns
// about was reported against onnxruntime: If branches sharing one large
// initializer (one of them through a Transpose) get it duplicated in RAM by
// the optimizer. The wasm memory is readable only through ortkeep's derived
// loader (forms on); it never shrinks, so growth is 0 when earlier sessions
// left room.

// Whether growth is warned about is the core's answer (ok_session_growth_warns:
// past HOST_POLICY.GROWTH_WARN_PERCENT of the initializer bytes, with shared
// initializers in the model). With onnxruntime-web 1.30 any session grows the
// wasm memory by ~3-4x its initializer bytes (the model bytes, the parsed
// protobuf, the tensors), so in practice this warns for every model with
// shared initializers; the optimizer's copies show as more growth at 'basic'
// and above than at 'disabled' and than a control without the sharing
// (scripts/measure-shared-weight.mjs).

/**
 * @param {{growthWarns: (growth: number, initializerBytes: number, shared: number) => boolean}} core
 * @param {{before: number, after: number}|null} measured wasm memory bytes around the session's creation
 * @param {object} report the C reader's report
 * @param {(event: object) => void} emit the caller's onEvent
 * @returns {object|null}
 */
export function memoryReport(core, measured, report, emit) {
  if (!measured) return null;
  // the page's first session: onnxruntime-web's start-up is in it, no growth to tell apart
  const growth = measured.before === null ? null : measured.after - measured.before;
  const initializerBytes = report?.totals?.initializerBytes ?? 0;
  const shared = report?.sharedInitializers ?? [];
  const out = {
    wasmBefore: measured.before,
    wasmAfter: measured.after,
    growth,
    initializerBytes,
    sharedInitializers: shared,
  };
  if (growth !== null && core.growthWarns(growth, initializerBytes, shared.length)) {
    const names = shared.map((s) => s.name);
    console.warn(
      `ortkeep: creating the session grew onnxruntime-web's memory by ${(growth / 1048576).toFixed(1)} MiB, ${(growth / Math.max(1, initializerBytes)).toFixed(1)}x the model's ${(initializerBytes / 1048576).toFixed(1)} MiB of initializers; initializers shared by several subgraphs (${names.join(', ')}) can be duplicated by onnxruntime's optimizer`,
    );
    emit({ type: 'memory-growth', growth, initializerBytes, shared: names });
  }
  return out;
}
