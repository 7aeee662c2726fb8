/**
 * metadata.generateName, like k8s.io/apiserver's SimpleNameGenerator: the base plus 5 random characters from
 * utilrand's alphabet (no vowels, so no accidental words; no 0/1/3 lookalikes), the base cut so the result stays
 * within 63 characters.
 */
import { randomInt } from 'node:crypto';

export const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export const RANDOM_LENGTH = 5;
const MAX_NAME_LENGTH = 63;
/** Longest base kept before the random suffix. */
export const MAX_GENERATED_NAME_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH;

export function randomSuffix(length = RANDOM_LENGTH): string {
  let out = '';
  for (let i = 0; i < length; i++) out += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return out;
}

export function generateName(base: string): string {
  // Kube slices bytes; names are validated as ASCII afterwards, so slicing characters is equivalent for any
  // base that can produce a valid name.
  const kept = base.length > MAX_GENERATED_NAME_LENGTH ? base.slice(0, MAX_GENERATED_NAME_LENGTH) : base;
  return kept + randomSuffix();
}
