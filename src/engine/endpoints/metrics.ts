/**
 * `/metrics`, Prometheus text format, with kube-apiserver's request series: `apiserver_request_total` by verb,
 * group, version, resource, subresource, scope, component and code, and `apiserver_request_duration_seconds`
 * (watches excluded, as kube does: their duration is how long the client watched), plus the Node process
 * metrics, and how many creates were committed together (create-turn.ts: this process's figures). One registry per
 * server, so servers started in one process (tests) do not share request counters.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { RequestInfo } from './request-info.js';
import { turnCommits } from './create-turn.js';
import { sendBody } from './responses.js';

const labelNames = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'] as const;
const durationLabels = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

/** kube's metric verbs: POST for create, PUT for update, LIST and WATCH split from GET. */
const reportedVerbs: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETE',
};

const DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

type Labels = Record<(typeof durationLabels)[number], string>;

/** What the requests of one label set added up to: the counter per code and the duration histogram. */
interface Series {
  labels: Labels;
  byCode: Map<number, number>;
  /** Observations per bucket (DURATION_BUCKETS, then +Inf), not cumulative. */
  buckets: number[];
  sum: number;
  count: number;
}

export class RequestMetrics {
  readonly registry = new Registry();
  /**
   * The router's RequestInfo of a request, kept on the request itself: a WeakMap entry per request cost ~0.9 µs with
   * its share of GC.
   */
  private readonly infoKey = Symbol('request info');
  /**
   * Every request is counted here, by a plain key of its labels; prom-client's series are rebuilt from these when
   * /metrics is read. Labelling each request through prom-client hashed and validated its eight labels twice, a few
   * percent of a GET's CPU.
   */
  private readonly series = new Map<string, Series>();

  constructor() {
    const series = this.series;
    new Counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code.',
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of series.values()) for (const [code, n] of s.byCode) this.inc({ ...s.labels, code: String(code) }, n);
      },
    });
    new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component.',
      labelNames: durationLabels,
      buckets: DURATION_BUCKETS,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [key, s] of series) {
          if (s.count === 0) continue;
          // prom-client's own record of a label set (what observe() keeps), in its place: it formats the series.
          const record = { labels: s.labels, bucketValues: {} as Record<number, number>, sum: s.sum, count: s.count };
          DURATION_BUCKETS.forEach((bound, i) => (record.bucketValues[bound] = s.buckets[i]!));
          (this as unknown as { hashMap: Record<string, unknown> }).hashMap[key] = record;
        }
      },
    });
    const turnSeries = [
      ['transactions', 'Storage transactions that committed the writes of several creates of one event-loop turn together.'],
      ['writes', 'Creates whose write ran inside such a transaction (a refused one too).'],
    ] as const;
    for (const [figure, help] of turnSeries) {
      new Counter({
        name: `kcpt_create_turn_${figure}_total`,
        help,
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(turnCommits[figure]);
        },
      });
    }
    collectDefaultMetrics({ register: this.registry });
  }

  /** The router tells what a request was about once it has parsed it. */
  noteRequest(request: FastifyRequest, info: RequestInfo): void {
    (request.raw as unknown as Record<symbol, RequestInfo>)[this.infoKey] = info;
  }

  /** Called when a response is complete. */
  observe(request: FastifyRequest, code: number, seconds: number): void {
    const info = (request.raw as unknown as Record<symbol, RequestInfo | undefined>)[this.infoKey];
    // The labels object is built only for a new series: the key alone finds an existing one.
    const key = info ? seriesKeyOf(info) : seriesKey(request.method.toUpperCase(), '', '', '', '', '');
    let s = this.series.get(key);
    if (!s) {
      const labels = info ? labelsOf(info) : nonResourceLabels(request.method.toUpperCase());
      this.series.set(key, (s = { labels, byCode: new Map(), buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 }));
    }
    s.byCode.set(code, (s.byCode.get(code) ?? 0) + 1);
    if (s.labels.verb === 'WATCH') return;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
    s.buckets[bucket]! += 1;
    s.sum += seconds;
    s.count += 1;
  }

  async serve(reply: FastifyReply): Promise<unknown> {
    const text = await this.registry.metrics();
    return sendBody(reply, 200, this.registry.contentType, text);
  }
}

/** One string per label set (label values never hold a NUL; the component is always apiserver). */
function seriesKey(verb: string, group: string, version: string, resource: string, subresource: string, scope: string): string {
  return `${verb}\0${group}\0${version}\0${resource}\0${subresource}\0${scope}`;
}

/** The series key of labelsOf(info), without building the labels. */
function seriesKeyOf(info: RequestInfo): string {
  if (!info.isResourceRequest) return seriesKey(info.verb.toUpperCase(), '', '', '', '', '');
  return seriesKey(reportedVerb(info.verb), info.group, info.version, info.resource, info.subresource, scopeOf(info));
}

function nonResourceLabels(verb: string): Labels {
  return { verb, group: '', version: '', resource: '', subresource: '', scope: '', component: 'apiserver' };
}

function reportedVerb(verb: string): string {
  return reportedVerbs[verb] ?? verb.toUpperCase();
}

/** Current kube-apiserver's `CleanScope`: a named request or a create is one resource, wherever it lives. */
function scopeOf(info: RequestInfo): string {
  if (info.name || info.verb === 'create') return 'resource';
  return info.namespace ? 'namespace' : 'cluster';
}

function labelsOf(info: RequestInfo): Labels {
  if (!info.isResourceRequest) return nonResourceLabels(info.verb.toUpperCase());
  const scope = scopeOf(info);
  return {
    verb: reportedVerb(info.verb),
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource: info.subresource,
    scope,
    component: 'apiserver',
  };
}
