/**
 * `/metrics`, Prometheus text format, with kube-apiserver's request series: `apiserver_request_total` by verb,
 * group, version, resource, subresource, scope, component and code, and `apiserver_request_duration_seconds`
 * (watches excluded, as kube does: their duration is how long the client watched), plus the Node process
 * metrics. One registry per server, so servers started in one process (tests) do not share counters.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { RequestInfo } from './request-info.js';
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

export class RequestMetrics {
  readonly registry = new Registry();
  private readonly total: Counter<(typeof labelNames)[number]>;
  private readonly duration: Histogram<(typeof durationLabels)[number]>;
  private readonly infos = new WeakMap<object, RequestInfo>();

  constructor() {
    this.total = new Counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code.',
      labelNames,
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component.',
      labelNames: durationLabels,
      buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
      registers: [this.registry],
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** The router tells what a request was about once it has parsed it. */
  noteRequest(request: FastifyRequest, info: RequestInfo): void {
    this.infos.set(request.raw, info);
  }

  /** Called when a response is complete. */
  observe(request: FastifyRequest, code: number, seconds: number): void {
    const info = this.infos.get(request.raw);
    const labels = info ? labelsOf(info) : { verb: request.method.toUpperCase(), group: '', version: '', resource: '', subresource: '', scope: '', component: 'apiserver' };
    this.total.inc({ ...labels, code: String(code) });
    if (labels.verb !== 'WATCH') this.duration.observe(labels, seconds);
  }

  async serve(reply: FastifyReply): Promise<unknown> {
    const text = await this.registry.metrics();
    return sendBody(reply, 200, this.registry.contentType, text);
  }
}

function labelsOf(info: RequestInfo) {
  if (!info.isResourceRequest) {
    return { verb: info.verb.toUpperCase(), group: '', version: '', resource: '', subresource: '', scope: '', component: 'apiserver' };
  }
  const scope = info.namespace ? 'namespace' : info.name ? 'resource' : 'cluster';
  return {
    verb: reportedVerbs[info.verb] ?? info.verb.toUpperCase(),
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource: info.subresource,
    scope,
    component: 'apiserver',
  };
}
