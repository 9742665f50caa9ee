// probeFeeds() options that make each real model run (js/forms/probe.js says
// why: silero's generated sr 0..3 selects its 8 kHz branch, which takes 256
// samples; melspectrogram's Conv needs more samples than 1). Models not
// listed run on the defaults (every free dim 1).
export const PROBE_OPTIONS = {
  silero_vad_v5: { inputDims: { input: [1, 256] } },
  silero_vad_legacy: { freeDimensionOverrides: { batch: 1, sequence: 256 } },
  ppocr_v4_det: {
    freeDimensionOverrides: { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 64, 'p2o.DynamicDimension.2': 64 },
  },
  ppocr_v2_cls: {
    freeDimensionOverrides: {
      'p2o.DynamicDimension.0': 1,
      'p2o.DynamicDimension.1': 48,
      'p2o.DynamicDimension.2': 192,
    },
  },
  ppocr_v4_rec: {
    freeDimensionOverrides: {
      'p2o.DynamicDimension.0': 1,
      'p2o.DynamicDimension.1': 48,
      'p2o.DynamicDimension.2': 160,
    },
  },
  oww_melspectrogram: { freeDimensionOverrides: { batch_size: 1, samples: 1280 } },
};
