// session.info.form: which form a finished load served, and why.
import { formName } from '../cache/messages.js';

/** session.info.form for a finished load (inPlace: its .ort form created in place, js/forms/in-place.js). */
export function formInfo(forms, served, createMs, capturing, stamped, inPlace = false) {
  // (a verified form found while the capturing loader turned out refused still served)
  if (served) return { form: formName(served), level: 'disabled', createMs, chosen: 'verified', inPlace };
  if (forms.off) return { form: 'original', level: null, createMs, chosen: 'off', why: forms.off };
  if (stamped) return { form: 'original', level: 'disabled', createMs, chosen: 'stamped' };
  return {
    form: 'original',
    level: forms.level,
    createMs,
    chosen: capturing ? 'capturing' : 'original',
    ...(capturing ? { capturing: formName(capturing) } : {}),
  };
}
