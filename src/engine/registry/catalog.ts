/**
 * The set of resource types one logical cluster serves. Built-ins are shared by every cluster; CRDs and bound APIs
 * (later issues) are layered on per cluster. A catalog has a `revision` that changes whenever its API set changes,
 * so discovery and OpenAPI documents derived from it can be cached per revision.
 */
import type { ResourceType } from './types.js';

export interface GroupVersions {
  group: string;
  /** Served versions, preferred first. */
  versions: string[];
}

export interface ClusterCatalog {
  /** Changes whenever the served API set changes. */
  readonly revision: string;
  resourceTypes(): readonly ResourceType[];
  find(group: string, version: string, resource: string): ResourceType | undefined;
  /** Groups in discovery order (core first, then built-ins, then custom groups). */
  groups(): readonly GroupVersions[];
}

export class StaticCatalog implements ClusterCatalog {
  /** group → version → resource: asked on every request, three lookups of its parts build no key string. */
  private readonly byGvr = new Map<string, Map<string, Map<string, ResourceType>>>();
  private readonly groupList: GroupVersions[] = [];

  constructor(
    private readonly types: readonly ResourceType[],
    readonly revision: string,
  ) {
    for (const rt of types) {
      let versions = this.byGvr.get(rt.group);
      if (!versions) this.byGvr.set(rt.group, (versions = new Map()));
      let resources = versions.get(rt.version);
      if (!resources) versions.set(rt.version, (resources = new Map()));
      resources.set(rt.resource, rt);
      let entry = this.groupList.find((g) => g.group === rt.group);
      if (!entry) {
        entry = { group: rt.group, versions: [] };
        this.groupList.push(entry);
      }
      if (!entry.versions.includes(rt.version)) entry.versions.push(rt.version);
    }
    for (const g of this.groupList) g.versions.sort(compareKubeVersions);
  }

  resourceTypes(): readonly ResourceType[] {
    return this.types;
  }

  find(group: string, version: string, resource: string): ResourceType | undefined {
    return this.byGvr.get(group)?.get(version)?.get(resource);
  }

  groups(): readonly GroupVersions[] {
    return this.groupList;
  }
}

/**
 * Kube's version priority: GA > beta > alpha, higher numbers first; names that do not look like Kubernetes
 * versions sort last, alphabetically.
 */
export function compareKubeVersions(a: string, b: string): number {
  const pa = parseKubeVersion(a);
  const pb = parseKubeVersion(b);
  if (!pa && !pb) return a.localeCompare(b);
  if (!pa) return 1;
  if (!pb) return -1;
  if (pa.stage !== pb.stage) return pb.stage - pa.stage;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}

function parseKubeVersion(v: string): { major: number; stage: number; minor: number } | undefined {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return undefined;
  const stage = m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2;
  return { major: Number(m[1]), stage, minor: m[3] ? Number(m[3]) : 0 };
}
