// ortkeep/transformers is imported for its effect (before @huggingface/transformers):
// transformers.js's sessions and model files become ortkeep's. It re-exports transformers.js's env.
export { env } from '@huggingface/transformers';
