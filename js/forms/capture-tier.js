// One form tier captured from the original's bytes for storeForms
// (js/forms/tiers.js), through captureOptimized (js/forms/capture.js).
import { formName } from '../cache/messages.js';
import { captureOptimized } from './capture.js';
import { formsWentOff } from './availability.js';

/**
 * One tier captured from the original's bytes: a session created with
 * onnxruntime's optimized-model writer on (then released) and the artifact
 * self-tested: its bytes; null: onnxruntime wrote nothing usable or could
 * not create the session (a tombstone for this tier); undefined: forms went
 * off in this page (onnxruntime-web started with another loader), said once.
 */
export async function captureTier(ort, originalBytes, form, forms, sessionOptions, onWarning) {
  try {
    const c = await captureOptimized(ort, originalBytes, {
      level: forms.level,
      format: formName(form),
      sessionOptions,
      loader: forms.loader,
    });
    await c.session.release();
    return c.bytes;
  } catch (e) {
    if (e?.details?.session) await e.details.session.release().catch(() => {});
    if (e?.code !== 'FORMS_OFF') return null;
    formsWentOff(e, onWarning);
    return undefined;
  }
}
