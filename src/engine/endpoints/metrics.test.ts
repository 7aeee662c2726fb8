import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { turnCommits } from './create-turn.js';
import { RequestMetrics } from './metrics.js';
import { parseRequestInfo } from './request-info.js';

const request = (method: string) => ({ method, raw: {} }) as unknown as FastifyRequest;

function served(metrics: RequestMetrics, method: string, path: string, code: number, seconds: number): void {
  const req = request(method);
  metrics.noteRequest(req, parseRequestInfo(method, path, new URLSearchParams(path.endsWith('watch') ? 'watch=true' : '')));
  metrics.observe(req, code, seconds);
}

describe('request metrics', () => {
  it('counts requests per label set and code, and their durations in kube buckets (watches left out)', async () => {
    const metrics = new RequestMetrics();
    const cm = '/clusters/root/api/v1/namespaces/default/configmaps';
    served(metrics, 'GET', `${cm}/a`, 200, 0.003);
    served(metrics, 'GET', `${cm}/b`, 200, 0.03);
    served(metrics, 'GET', `${cm}/c`, 404, 0.001);
    served(metrics, 'GET', cm, 200, 70);
    served(metrics, 'POST', cm, 201, 0.004);
    served(metrics, 'GET', '/clusters/root/api/v1/namespaces', 200, 0.004);
    served(metrics, 'GET', '/clusters/root/api/v1/configmaps?watch', 200, 12);
    served(metrics, 'GET', '/healthz', 200, 0.002);
    const text = await metrics.registry.metrics();
    const value = (prefix: string, labels: string[]) =>
      text
        .split('\n')
        .find((l) => l.startsWith(`${prefix}{`) && labels.every((x) => l.includes(x)))
        ?.split(' ')
        .at(-1);
    expect(value('apiserver_request_total', ['verb="GET"', 'code="200"', 'resource="configmaps"', 'scope="resource"'])).toBe('2');
    expect(text).not.toMatch(/apiserver_request_total\{verb="GET"[^}]*scope="namespace"/);
    expect(value('apiserver_request_total', ['verb="POST"', 'code="201"', 'resource="configmaps"', 'scope="resource"'])).toBe('1');
    expect(value('apiserver_request_total', ['verb="LIST"', 'code="200"', 'resource="namespaces"', 'scope="cluster"'])).toBe('1');
    expect(value('apiserver_request_total', ['verb="GET"', 'code="404"'])).toBe('1');
    expect(value('apiserver_request_total', ['verb="LIST"', 'code="200"', 'scope="namespace"'])).toBe('1');
    expect(value('apiserver_request_total', ['verb="WATCH"', 'code="200"'])).toBe('1');
    expect(value('apiserver_request_total', ['verb="GET"', 'scope=""', 'code="200"'])).toBe('1');
    expect(value('apiserver_request_duration_seconds_bucket', ['le="0.005"', 'verb="GET"', 'resource="configmaps"'])).toBe('2');
    expect(value('apiserver_request_duration_seconds_bucket', ['le="0.025"', 'verb="GET"', 'resource="configmaps"'])).toBe('2');
    expect(value('apiserver_request_duration_seconds_bucket', ['le="0.05"', 'verb="GET"', 'resource="configmaps"'])).toBe('3');
    expect(value('apiserver_request_duration_seconds_count', ['verb="GET"', 'resource="configmaps"'])).toBe('3');
    expect(Number(value('apiserver_request_duration_seconds_sum', ['verb="GET"', 'resource="configmaps"']))).toBeCloseTo(0.034);
    expect(value('apiserver_request_duration_seconds_bucket', ['le="60"', 'verb="LIST"'])).toBe('0');
    expect(value('apiserver_request_duration_seconds_bucket', ['le="+Inf"', 'verb="LIST"'])).toBe('1');
    expect(text).not.toMatch(/apiserver_request_duration_seconds_count\{[^}]*verb="WATCH"/);
    // Creates committed together in one transaction (this process's figures).
    expect(text).toContain(`kcpt_create_turn_transactions_total ${turnCommits.transactions}\n`);
    expect(text).toContain(`kcpt_create_turn_writes_total ${turnCommits.writes}\n`);
    // Read again: the series are rebuilt from the counts, not added up twice.
    const again = await metrics.registry.metrics();
    const apiserverLines = (t: string) => t.split('\n').filter((l) => l.startsWith('apiserver_'));
    expect(apiserverLines(again)).toEqual(apiserverLines(text));
  });
});
