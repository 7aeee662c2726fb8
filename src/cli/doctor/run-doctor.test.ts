import { describe, expect, it } from 'vitest';
import { satisfiesMinimum } from './run-doctor.js';

describe('the Node.js check', () => {
  it("compares a version with package.json's >= range", () => {
    expect(satisfiesMinimum('v20.19.0', '>=20.19')).toBe(true);
    expect(satisfiesMinimum('v20.20.2', '>=20.19')).toBe(true);
    expect(satisfiesMinimum('v22.1.0', '>=20.19')).toBe(true);
    expect(satisfiesMinimum('v20.18.3', '>=20.19')).toBe(false);
    expect(satisfiesMinimum('v18.20.0', '>=20.19')).toBe(false);
  });
});
