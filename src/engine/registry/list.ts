/**
 * LIST with kube's semantics: selectors, limit/continue (consistent snapshots through the store's revision
 * history), resourceVersion and resourceVersionMatch. Returns stored bytes with the resourceVersion spliced in, so a
 * plain JSON list never parses objects it does not have to.
 */
import { decodeContinue, encodeContinue } from '../machinery/continue-token.js';
import { badRequest, gone, tooLargeResourceVersion } from '../machinery/status.js';
import { CompactedError, FutureRevisionError, type KeyValue, type Store } from '../storage/store.js';
import { validateListOptions } from './list-options.js';
import type { ListPredicate } from './predicates.js';
import { listRanges } from './ranged-list.js';
import { readScope } from './read-scope.js';
import { spliceResourceVersion } from './stored-object.js';
import type { KubeObject, ResourceType } from './types.js';

export interface ListQuery {
  limit?: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** Only to be refused (422): initial events belong to watches. */
  sendInitialEvents?: boolean;
}

export interface ListPage {
  /** Items as JSON text with resourceVersion set (parse lazily). */
  readonly items: string[];
  /**
   * The same items as stored (resourceVersion not spliced in), when the page was read from the store: a JSON answer
   * writes them into its body directly (endpoints/list-body.ts) and `items` is then never built.
   */
  stored?: readonly Pick<KeyValue, 'value' | 'revision'>[];
  /** Parsed items when the predicate had to parse them anyway. */
  parsed?: KubeObject[];
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
}

const pageFetchSize = 500;

export async function listObjects(
  store: Store,
  rt: ResourceType,
  cluster: string | undefined,
  namespace: string,
  predicate: ListPredicate,
  query: ListQuery,
): Promise<ListPage> {
  validateListOptions({ watch: false, ...query });
  // A wildcard read may have to skip keys by namespace or by whether their cluster serves the type.
  const { prefix, admits, ranges } = readScope(rt, cluster, namespace, true);
  const filtered = !predicate.matchesEverything || admits !== undefined;
  let revision: number | undefined;
  let startAfter: string | undefined;
  const limit = query.limit && query.limit > 0 ? query.limit : 0;

  if (query.continueToken) {
    if (query.resourceVersion && query.resourceVersion !== '0') {
      throw badRequest('specifying resource version is not allowed when using continue');
    }
    const token = decodeContinue(query.continueToken);
    revision = token.rv;
    startAfter = prefix + token.start;
  } else {
    revision = await resolveListRevision(store, rt, query);
  }

  // A limit with RV=0 may be ignored (served from "cache" upstream); honouring it is also legal and bounded.
  const items: KeyValue[] = [];
  /** The items' texts, when the predicate spliced and parsed them anyway. */
  const texts: string[] = [];
  const parsed: KubeObject[] = [];
  let more = false;
  let lastKey = startAfter;
  let readAt = revision ?? store.currentRevision();
  let remaining: number | undefined;
  for (;;) {
    // Filtered reads go page by page; an unfiltered one reads what it returns in one range read (0: everything).
    const fetch = filtered ? pageFetchSize : limit ? Math.max(limit - items.length, 1) : 0;
    let page;
    try {
      // The count of what follows is only ever reported for a limited, unfiltered list.
      const options = { startAfter: lastKey, limit: fetch, revision: readAt, countRemaining: limit > 0 && !filtered };
      page = ranges ? listRanges(store, ranges, options) : store.list(prefix, options);
    } catch (err) {
      throw translateRevisionError(err, Boolean(query.continueToken));
    }
    readAt = page.revision;
    for (let i = 0; i < page.items.length; i++) {
      const kv: KeyValue = page.items[i];
      lastKey = kv.key;
      if (admits && !admits(kv.key)) continue;
      if (!predicate.matchesEverything) {
        const text = spliceResourceVersion(kv.value, kv.revision);
        const obj = JSON.parse(text) as KubeObject;
        if (!predicate.matches(obj)) continue;
        parsed.push(obj);
        texts.push(text);
      }
      items.push(kv);
      if (limit && items.length >= limit) {
        more = i < page.items.length - 1 || page.more;
        if (more && !filtered) {
          remaining = (page.remaining ?? 0) + (page.items.length - 1 - i);
        }
        break;
      }
    }
    if ((limit && items.length >= limit) || !page.more) break;
  }
  let spliced: string[] | undefined = predicate.matchesEverything ? undefined : texts;
  const result: ListPage = {
    get items() {
      return (spliced ??= items.map((kv) => spliceResourceVersion(kv.value, kv.revision)));
    },
    stored: items,
    resourceVersion: String(readAt),
  };
  if (!predicate.matchesEverything) result.parsed = parsed;
  if (more && lastKey !== undefined) {
    result.continueToken = encodeContinue(readAt, lastKey.slice(prefix.length));
    if (remaining !== undefined) result.remainingItemCount = remaining;
  }
  return result;
}

/** Which revision a list reads at, from resourceVersion and resourceVersionMatch as kube-apiserver decides it. */
async function resolveListRevision(store: Store, rt: ResourceType, query: ListQuery): Promise<number | undefined> {
  // The combinations kube refuses were refused by validateListOptions already.
  const rv = query.resourceVersion;
  const match = query.resourceVersionMatch;
  if (!rv || rv === '0') return undefined;
  const n = parseResourceVersion(rv);
  // Both wait for a revision from the future (and answer 504 if it never comes, as kube does): an Exact read
  // must not reach the store with a revision it has not made.
  await waitForRevision(store, n);
  if (match === 'Exact') return n;
  // NotOlderThan (the default for a set RV): latest is fine once we have caught up with N.
  void rt;
  return undefined;
}

export function parseResourceVersion(rv: string): number {
  if (!/^\d+$/.test(rv) || rv.length > 18) {
    throw badRequest(`invalid resource version: ${JSON.stringify(rv)}`);
  }
  return Number(rv);
}

/** The watch cache's resourceVersionTooHighRetrySeconds. */
const WATCH_CACHE_RETRY_SECONDS = 1;

/**
 * kube waits up to ~3 s for the cache to reach a future revision, then answers 504 "Too large resource version",
 * asking the client to retry after `retryAfterSeconds` (client-go does, up to 10 times, when it is above 0).
 */
export async function waitForRevision(store: Store, n: number, retryAfterSeconds = WATCH_CACHE_RETRY_SECONDS, waitMs = 3000): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (store.currentRevision() < n) {
    if (Date.now() >= deadline) {
      throw tooLargeResourceVersion(n, store.currentRevision(), retryAfterSeconds);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function translateRevisionError(err: unknown, continuing: boolean): unknown {
  if (err instanceof CompactedError) {
    return continuing
      ? gone(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        )
      : gone('The resourceVersion for the provided list is too old.');
  }
  if (err instanceof FutureRevisionError) {
    return tooLargeResourceVersion(err.requested, err.current, 0);
  }
  return err;
}
