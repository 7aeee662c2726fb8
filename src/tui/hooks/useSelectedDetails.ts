/**
 * The details of the selected workspace (one burst of requests once the cursor rests for a moment, so holding ↓
 * through a long list does not fire requests for every row) and its APIBindings, listed and watched while it stays
 * selected.
 */
import { useEffect, useState } from 'react';
import type { APIBinding } from '../../client/apis-api.js';
import { keepWatching } from '../data/keep-watching.js';
import { describe, type WorkspaceDetails, type WorkspaceSource } from '../data/workspace-source.js';

const settleMs = 120;

export interface SelectedDetails {
  details?: WorkspaceDetails;
  bindings?: APIBinding[];
  bindingsError?: string;
}

export function useSelectedDetails(source: WorkspaceSource, path: string, generation: number): SelectedDetails {
  const [state, setState] = useState<SelectedDetails & { path: string }>({ path });

  useEffect(() => {
    const ctl = new AbortController();
    setState({ path });
    const timer = setTimeout(() => {
      source.details(path, ctl.signal).then(
        (details) => !ctl.signal.aborted && setState((s) => ({ ...s, details })),
        () => undefined,
      );
      const byName = new Map<string, APIBinding>();
      const publish = () => setState((s) => ({ ...s, bindings: [...byName.values()].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1)) }));
      void keepWatching<APIBinding>(
        {
          list: (signal) => source.listBindings(path, signal),
          watch: (rv, signal) => source.watchBindings(path, rv, signal),
          listed: (items) => {
            byName.clear();
            for (const b of items) byName.set(b.metadata.name, b);
            publish();
          },
          changed: (type, b) => {
            if (type === 'DELETED') byName.delete(b.metadata.name);
            else byName.set(b.metadata.name, b);
            publish();
          },
          failed: (err) => setState((s) => ({ ...s, bindingsError: describe(err) })),
          connection: () => undefined,
        },
        ctl.signal,
      );
    }, settleMs);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [source, path, generation]);

  return state.path === path ? state : {};
}
