import { describe, expect, it } from 'vitest';
import { healthAnswer, healthChecks } from './health.js';

let ready = true;
const checks = healthChecks([{ name: 'poststarthook/kcpt-bootstrap', run: () => (ready ? undefined : 'not finished') }]);
const answer = (path: string, query = '') => healthAnswer(checks, path, new URLSearchParams(query));

describe('health endpoints', () => {
  it('say ok, or with ?verbose every check and "<endpoint> check passed"', () => {
    ready = true;
    expect(answer('/readyz')).toMatchObject({ code: 200, body: 'ok', headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' } });
    expect(answer('/readyz', 'verbose')?.body).toBe('[+]ping ok\n[+]poststarthook/kcpt-bootstrap ok\nreadyz check passed\n');
    expect(answer('/livez', 'verbose=1')?.body).toBe('[+]ping ok\nlivez check passed\n');
  });

  it('skip excluded checks and warn about names that match none', () => {
    ready = false;
    expect(answer('/readyz', 'verbose&exclude=poststarthook/kcpt-bootstrap&exclude=etcd&exclude=a')).toEqual({
      code: 200,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
      body: '[+]ping ok\n[+]poststarthook/kcpt-bootstrap excluded: ok\nwarn: some health checks cannot be excluded: no matches for "a","etcd"\nreadyz check passed\n',
    });
  });

  it('fail with 500 listing every check, the reason withheld, verbose or not', () => {
    ready = false;
    for (const query of ['', 'verbose']) {
      expect(answer('/readyz', query)).toMatchObject({
        code: 500,
        body: '[+]ping ok\n[-]poststarthook/kcpt-bootstrap failed: reason withheld\nreadyz check failed\n',
      });
    }
    expect(answer('/livez')).toMatchObject({ code: 200, body: 'ok' });
  });

  it('run one check at /<endpoint>/<check>, and know no other path', () => {
    ready = false;
    expect(answer('/readyz/ping')).toEqual({ code: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'ok' });
    expect(answer('/healthz/poststarthook/kcpt-bootstrap')).toMatchObject({ code: 500, body: 'internal server error: not finished\n' });
    expect(answer('/readyz/etcd')).toBeUndefined();
    expect(answer('/livez/poststarthook/kcpt-bootstrap')).toBeUndefined();
    expect(answer('/readyz/')).toBeUndefined();
  });
});
