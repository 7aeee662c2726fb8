/**
 * What the controller decides for one Widget, without any I/O: the status it should have. A Widget is reconciled
 * when `status.observedGeneration` equals `metadata.generation` and its Ready condition is True; anything else gets
 * a new status. Replace the body with your own logic (call other services, create objects, …).
 */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    generation?: number;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
  spec?: { size?: number; colour?: string };
  status?: { observedGeneration?: number; conditions?: Condition[] };
}

/** The status the Widget should have, or undefined when it already has it. */
export function desiredStatus(widget: Widget, now: Date): Widget['status'] | undefined {
  const generation = widget.metadata?.generation ?? 0;
  const ready = widget.status?.conditions?.find((c) => c.type === 'Ready');
  if (widget.status?.observedGeneration === generation && ready?.status === 'True') return undefined;
  const size = widget.spec?.size ?? 0;
  return {
    observedGeneration: generation,
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Reconciled',
        message: `a ${widget.spec?.colour ?? 'plain'} widget of size ${size} is ready`,
        lastTransitionTime: ready?.status === 'True' ? ready.lastTransitionTime : now.toISOString().replace(/\.\d+Z$/, 'Z'),
      },
    ],
  };
}
