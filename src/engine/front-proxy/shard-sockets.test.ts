import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseShardSockets } from './shard-sockets.js';

describe('parseShardSockets', () => {
  it('maps shard names to absolute socket paths, with or without unix:', () => {
    const sockets = parseShardSockets(['root=/run/kcpt/root.sock', 'shard-1=unix:rel/s1.sock']);
    expect(sockets.get('root')).toBe('/run/kcpt/root.sock');
    expect(sockets.get('shard-1')).toBe(path.resolve('rel/s1.sock'));
  });

  it('refuses values that are not NAME=PATH and names given twice', () => {
    expect(() => parseShardSockets(['/run/root.sock'])).toThrow(/expected NAME=PATH/);
    expect(() => parseShardSockets(['Root=/x'])).toThrow(/expected NAME=PATH/);
    expect(() => parseShardSockets(['root='])).toThrow(/expected NAME=PATH/);
    expect(() => parseShardSockets(['root=/a', 'root=/b'])).toThrow(/given twice/);
  });
});
